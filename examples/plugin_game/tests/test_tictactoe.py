"""The plugin's own tests: the conformance kit of abstractgames, the rules, the bots, the packaging.

Run them from this folder with ``pytest`` (installed or not: pyproject.toml puts ``src`` on the
path).
"""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest
from abstractgames import available_games, make_player, register_game
from abstractgames.players.greedy import GreedyPlayer
from abstractgames.protocol import IllegalMoveError, InvalidMoveError, InvalidPositionError
from abstractgames.referee import Referee
from abstractgames.registry import GameEntry, import_object
from abstractgames.testing import conformance_properties

from abstractgames_tictactoe import ENTRY, MinimaxPlayer, TicTacToeGame, evaluate, search

GAME = TicTacToeGame()
PROPERTIES = conformance_properties(GAME, max_examples=200)
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


@pytest.mark.parametrize("name", sorted(PROPERTIES))
def test_the_game_keeps_the_protocol(name: str) -> None:
    PROPERTIES[name]()


# --- the rules ------------------------------------------------------------------------------------


def test_a_game_of_moves() -> None:
    state = GAME.initial_state()
    assert state.position() == "3/3/3 x"
    assert state.to_move == "x"
    for move in ["b2", "a1", "C3", " a3 "]:
        state = state.apply(move)
    assert state.position() == "O1X/1X1/O2 x"
    assert state.to_move == "x"
    assert [str(m) for m in state.legal_moves()] == ["b1", "c1", "a2", "c2", "b3"]
    assert state.outcome() is None


def test_three_in_a_row_wins() -> None:
    won = GAME.from_position("X1X/1O1/O2 x").apply("b3")
    assert won.position() == "XXX/1O1/O2 o"
    outcome = won.outcome()
    assert outcome is not None
    assert (outcome.winner, dict(outcome.scores)) == ("x", {"x": 1, "o": 0})
    assert won.to_move is None and won.legal_moves() == ()
    assert won.describe() == ("three in a row: a3 b3 c3",)
    assert won.marked_squares() == {6: "line", 7: "line", 8: "line"}


def test_a_full_board_without_a_line_is_a_draw() -> None:
    state = GAME.from_position("XOX/XOO/OX1 x").apply("c1")
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is None
    assert dict(outcome.scores) == {"x": 0.5, "o": 0.5}
    assert state.describe() == ()


@pytest.mark.parametrize(
    ("position", "reason"),
    [
        ("3/3/3", "expected 2"),
        ("3/3/3 z", "must be 'x' or 'o'"),
        ("4/3/3 x", "has 4 squares"),
        ("XX1/3/3 o", "2 X and 0 O"),
        ("X2/3/3 x", "it is 'o'"),
        ("XXX/OOO/3 x", "both X and O"),
        ("XXX/OO1/O2 x", "X has three in a row"),
    ],
)
def test_bad_positions_say_what_is_wrong(position: str, reason: str) -> None:
    with pytest.raises(InvalidPositionError, match=reason):
        GAME.from_position(position)


def test_bad_moves_say_what_is_wrong() -> None:
    state = GAME.from_position("3/1X1/3 o")
    with pytest.raises(InvalidMoveError, match="cannot read move 'd4'"):
        state.apply("d4")
    with pytest.raises(IllegalMoveError, match="illegal move b2 in 3/1X1/3 o: b2 is taken"):
        state.apply("b2")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        GAME.from_position("XXX/OO1/3 o").apply("c2")


# --- the bots -------------------------------------------------------------------------------------


def test_greedy_takes_a_win_and_blocks_a_line() -> None:
    greedy = GreedyPlayer(GAME, evaluate)
    win = GAME.from_position("OO1/XX1/3 x")  # X wins on c2 (O would win on c3)
    assert str(greedy.choose(win, random.Random(0))) == "c2"
    block = GAME.from_position("3/1X1/O1X o")  # O must block a3
    assert str(greedy.choose(block, random.Random(0))) == "a3"


@pytest.fixture
def registered() -> None:
    """The referee finds the game by name: register it when the plugin is not installed."""
    if "tictactoe" not in available_games():
        register_game("tictactoe", TicTacToeGame, evaluation=evaluate, search=search)


def test_greedy_beats_random(registered: None) -> None:
    greedy, random_player = make_player("greedy", GAME), make_player("random", GAME)
    wins = losses = 0
    for seed in range(10):
        for players, seat in (((greedy, random_player), 1), ((random_player, greedy), 2)):
            result = Referee(GAME, players, seed=seed).play().result
            assert result is not None
            wins += result.winner == seat
            losses += result.winner == 3 - seat
    assert wins >= 12 and losses <= 2


def test_the_minimax_player_never_loses(registered: None) -> None:
    minimax, random_player = MinimaxPlayer(GAME), make_player("random", GAME)
    for seed in range(10):
        for players, seat in (((minimax, random_player), 1), ((random_player, minimax), 2)):
            result = Referee(GAME, players, seed=seed).play().result
            assert result is not None and result.winner in (seat, None)
    result = Referee(GAME, (minimax, MinimaxPlayer(GAME)), seed=0).play().result
    assert result is not None and result.winner is None


# --- the packaging --------------------------------------------------------------------------------


def test_the_entry_points_name_what_abstractgames_needs() -> None:
    points = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["entry-points"]
    entry = import_object(points["abstractgames.games"]["tictactoe"])
    assert entry is ENTRY and isinstance(entry, GameEntry)
    assert isinstance(entry.factory, type) and entry.factory().name == "tictactoe"
    assert import_object(points["abstractgames.players"]["minimax"]) is MinimaxPlayer
