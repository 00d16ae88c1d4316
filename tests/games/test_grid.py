"""Squares by name: the grid of a game or a state, names to indices and back, a move's squares."""

from __future__ import annotations

import random

import pytest

from abstractgames import InvalidMoveError, get_game, parse_game_spec, random_move
from abstractgames import dispersal as dispersal_module
from abstractgames import orderchaos as orderchaos_module
from abstractgames.grid import FILES, Grid, grid, grid_of
from tests.support.toygame import DiceRace

SIZES = {"orderchaos": (6, 6), "entropy": (7, 7), "entropy:size=5": (5, 5), "dispersal": (5, 5)}


@pytest.mark.parametrize(("spec", "size"), SIZES.items())
def test_the_grid_of_a_game_and_of_its_states(spec: str, size: tuple[int, int]) -> None:
    game = parse_game_spec(spec)
    board = grid_of(game)
    assert (board.width, board.height) == size
    assert board is grid(*size) is grid_of(game.initial_state())
    assert len(game.initial_state().cells()) == board.size


def test_the_games_share_their_grids() -> None:
    assert grid_of(get_game("orderchaos")) is orderchaos_module.GRID
    assert grid_of(get_game("dispersal")) is dispersal_module.GRID


def test_names_and_indices_go_both_ways() -> None:
    board = grid_of(get_game("orderchaos"))
    assert board.square("a1") == 0 and board.square("f6") == 35
    assert board.square("c3") == 14 == 2 * board.width + 2
    assert board.square(" C3 ") == 14  # as people type it
    assert (board.file(14), board.rank(14)) == (2, 2)
    for index in range(board.size):
        assert board.square(board.name(index)) == index
        assert board.name(index) == f"{FILES[board.file(index)]}{board.rank(index) + 1}"
    assert board.names == tuple(board.name(i) for i in range(board.size))


@pytest.mark.parametrize("text", ["g1", "a7", "a0", "c", "33", "", "c3 d4", "c\u00b3"])
def test_a_name_off_the_board_is_refused(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="not a square of this board \\(a1 to f6\\)"):
        grid(6, 6).square(text)


def test_a_square_name_must_be_text() -> None:
    with pytest.raises(InvalidMoveError, match="a square name is text, not 14"):
        grid(6, 6).square(14)  # type: ignore[arg-type]


@pytest.mark.parametrize("square", [-1, 36, 10**400, True, "c3", 2.0])
def test_an_index_off_the_board_is_refused(square: object) -> None:
    with pytest.raises(ValueError, match="is not on this board \\(0 to 35\\)"):
        grid(6, 6).name(square)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "move", "squares"),
    [
        ("orderchaos", "X@c3", ("c3",)),
        ("dispersal", "a4-c4", ("a4", "c4")),
        ("dispersal", "pass", ()),
        ("entropy", "R@g7", ("g7",)),
        ("entropy", "a1-a7", ("a1", "a7")),
        ("entropy", "R", ()),  # a draw from the bag names no square
    ],
)
def test_the_squares_a_move_names(spec: str, move: str, squares: tuple[str, ...]) -> None:
    board = grid_of(parse_game_spec(spec))
    assert tuple(board.name(i) for i in board.move_squares(move)) == squares


def test_a_moves_squares_name_a_square_off_the_board() -> None:
    with pytest.raises(InvalidMoveError, match="'f1' is not a square"):
        grid(5, 5).move_squares("a1-f1")


@pytest.mark.parametrize("name", ["orderchaos", "entropy", "dispersal"])
def test_every_move_of_random_games_names_its_squares(name: str) -> None:
    game = get_game(name)
    rng = random.Random(5)
    state = game.initial_state()
    board = grid_of(state)
    while not state.is_terminal():
        move = random_move(state, rng)
        names = [board.name(i) for i in board.move_squares(move)]
        text = "" if str(move) == "pass" else str(move)
        assert "".join(names) == "".join(c for c in text if c.islower() or c.isdigit())
        assert len(names) <= 2
        before = state.cells()
        state = state.apply(move)
        changed = {i for i, (a, b) in enumerate(zip(before, state.cells(), strict=True)) if a != b}
        assert changed <= set(board.move_squares(move))


def test_a_game_without_a_board_has_no_grid() -> None:
    with pytest.raises(NotImplementedError, match="no board"):
        grid_of(DiceRace())
    with pytest.raises(NotImplementedError, match="no board"):
        grid_of(DiceRace().initial_state())


def test_grid_is_shared_per_size() -> None:
    assert grid(4, 3) is grid(4, 3)
    board = Grid(4, 3)
    assert board.size == 12 and board.names[-1] == "d3"
