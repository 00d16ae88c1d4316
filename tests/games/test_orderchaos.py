"""Order and Chaos (original rules): hand-made positions, move counts, statistics, bad input."""

from __future__ import annotations

import contextlib
import itertools
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abstractgames import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    get_game,
)
from abstractgames.orderchaos import MOVES, WINDOWS, OrderChaosState, Placement
from abstractgames.testing import playout, states

GAME = get_game("orderchaos")

# A full board without five in a row: rows alternate XXOOXX / OOXXOO.
NO_LINE_RANKS = "OOXXOO/XXOOXX/OOXXOO/XXOOXX/OOXXOO/XXOOXX"


def play(position: str, *moves: str) -> OrderChaosState:
    state = GAME.from_position(position)
    for move in moves:
        state = state.apply(move)
    return state


def test_game_description() -> None:
    assert GAME.name == "orderchaos"
    assert GAME.roles == ("order", "chaos")
    assert GAME.max_length == 36
    assert GAME.params == {}
    assert GAME.spec == "orderchaos"
    start = GAME.initial_state()
    assert start.position() == "6/6/6/6/6/6 order"
    assert start.to_move == "order"
    assert start.outcome() is None


@pytest.mark.parametrize(
    ("position", "move", "line"),
    [
        ("6/6/6/6/6/XXXX2 order", "X@e1", "a1 b1 c1 d1 e1"),  # row
        ("6/O5/O5/O5/O5/5X chaos", "O@a1", "a1 a2 a3 a4 a5"),  # column, made by Chaos
        ("6/6/3X2/2X3/1X4/X5 order", "X@e5", "a1 b2 c3 d4 e5"),  # diagonal
        ("O5/1O4/2O3/3O2/6/5X chaos", "O@e2", "a6 b5 c4 d3 e2"),  # anti-diagonal
        ("O5/6/6/6/6/1XXXX1 chaos", "X@f1", "b1 c1 d1 e1 f1"),  # row at the far edge, by Chaos
    ],
)
def test_five_in_a_row_in_every_direction(position: str, move: str, line: str) -> None:
    before = GAME.from_position(position)
    assert before.outcome() is None
    after = before.apply(move)
    outcome = after.outcome()
    assert outcome is not None
    assert outcome.winner == "order"
    assert outcome.scores == {"order": 1, "chaos": 0}
    assert after.to_move is None
    assert after.legal_moves() == ()
    names = {f"{'abcdef'[i % 6]}{i // 6 + 1}" for i in after.winning_squares()}
    assert names == set(line.split())


def test_six_in_a_row_wins() -> None:
    state = play("O5/6/6/6/6/XXXX1X order", "X@e1")
    assert state.outcome().winner == "order"  # type: ignore[union-attr]
    assert len(state.winning_squares()) == 6
    # A six made in the middle: the fifth and sixth symbols join two runs.
    state = play("6/6/6/6/6/XX1XXX chaos", "X@c1")
    assert state.outcome().winner == "order"  # type: ignore[union-attr]
    assert len(state.winning_squares()) == 6


def test_a_row_of_five_of_mixed_symbols_is_not_a_line() -> None:
    state = play("6/6/6/6/6/XXOX2 order", "X@e1")
    assert state.outcome() is None


def test_full_board_without_a_line_is_a_chaos_win() -> None:
    state = GAME.from_position(f"{NO_LINE_RANKS} order")
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winner == "chaos"
    assert outcome.scores == {"order": 0, "chaos": 1}
    assert state.to_move is None


def test_chaos_wins_when_the_last_square_is_filled_without_a_line() -> None:
    ranks = "OOXXOO/XXOOXX/OOXXOO/XXOOXX/OOXXOO/XXOOX1"
    state = play(f"{ranks} chaos", "X@f1")
    assert state.outcome().winner == "chaos"  # type: ignore[union-attr]


def test_win_on_the_very_last_square() -> None:
    # 35 squares filled without a line; X on f1 completes b1-f1.
    ranks = "OOXXOO/XXOOXX/OOXXOO/XXOOXX/OOXXOO/OXXXX1"
    before = GAME.from_position(f"{ranks} chaos")
    assert before.outcome() is None
    assert [str(m) for m in before.legal_moves()] == ["X@f1", "O@f1"]
    assert before.apply("X@f1").outcome().winner == "order"  # type: ignore[union-attr]
    assert before.apply("O@f1").outcome().winner == "chaos"  # type: ignore[union-attr]


def test_no_move_is_accepted_after_the_game_is_over() -> None:
    state = play("6/6/6/6/6/XXXX2 order", "X@e1")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        state.apply("O@a6")
    full = GAME.from_position(f"{NO_LINE_RANKS} order")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        full.apply("X@a1")


def test_occupied_square_is_refused_with_the_reason() -> None:
    state = play("6/6/6/6/6/6 order", "X@c3")
    with pytest.raises(IllegalMoveError) as info:
        state.apply("O@c3")
    message = str(info.value)
    assert "O@c3" in message and "c3 is occupied" in message and state.position() in message


def test_windows() -> None:
    assert len(set(WINDOWS)) == len(WINDOWS) == 32
    steps = []
    for window in WINDOWS:
        squares = [i for i in range(36) if window >> i & 1]
        assert len(squares) == 5
        gaps = {b - a for a, b in itertools.pairwise(squares)}
        assert len(gaps) == 1
        steps.append(gaps.pop())
    # 6 rows and 6 columns hold 2 windows each; each diagonal direction holds 4.
    assert {step: steps.count(step) for step in set(steps)} == {1: 12, 6: 12, 7: 4, 5: 4}


def perft(state: OrderChaosState, depth: int) -> int:
    if depth == 0:
        return 1
    if depth == 1:
        return len(state.legal_moves())
    return sum(perft(state.apply(m), depth - 1) for m in state.legal_moves())


def test_perft_from_the_empty_board() -> None:
    start = GAME.initial_state()
    # 36 empty squares × 2 symbols, then 35 × 2, then 34 × 2; no line can form in three plies.
    assert perft(start, 1) == 72
    assert perft(start, 2) == 72 * 70
    assert perft(start, 3) == 72 * 70 * 68


def test_canonical_move_order() -> None:
    moves = GAME.initial_state().legal_moves()
    assert moves == MOVES
    assert [str(m) for m in moves[:4]] == ["X@a1", "O@a1", "X@b1", "O@b1"]
    assert str(moves[-1]) == "O@f6"


def test_random_play_statistics() -> None:
    """Uniformly random play: Order wins about 81% of games (a sanity check, not a tight bound)."""
    rng = random.Random(2023)
    games = 3000
    wins = sum(
        playout(GAME.initial_state(), rng)[-1].outcome().winner == "order"  # type: ignore[union-attr]
        for _ in range(games)
    )
    p = wins / games
    half_width = 1.96 * math.sqrt(p * (1 - p) / games)
    assert p - half_width <= 0.81 <= p + half_width + 0.01, (p, half_width)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("6/6/6/6/6 order", "5 ranks"),
        ("6/6/6/6/6/6/6 order", "7 ranks"),
        ("6/6/6/6/6/5 order", "has 5 squares, not 6"),
        ("6/6/6/6/6/7 order", "has 7 squares, not 6"),
        ("6/6/6/6/6/XXXXXXX order", "has 7 squares"),
        ("6/6/6/6/6/Z5 order", "unknown character 'Z'"),
        ("6/6/6/6/6/x5 chaos", "unknown character 'x'"),
        ("6/6/6/6/6/33 order", "two digits in a row"),
        ("6/6/6/6/6/06 order", "digit 0"),
        ("6/6/6/6/6/6", "1 fields, expected 2"),
        ("6/6/6/6/6/6 order extra", "3 fields"),
        ("", "0 fields"),
        ("6/6/6/6/6/6 chaos", "does not match the 0 pieces"),
        ("6/6/6/6/6/X5 order", "does not match the 1 pieces"),
        ("6/6/6/6/6/6 sideways", "must be 'order' or 'chaos'"),
        ("6//6/6/6/6 order", "has 0 squares"),
    ],
)
def test_malformed_positions(text: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        GAME.from_position(text)


def test_position_must_be_text() -> None:
    with pytest.raises(InvalidPositionError, match="must be a string"):
        GAME.from_position(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cannot read move"),
        ("X", "cannot read move"),
        ("X@", "cannot read move"),
        ("Z@c3", "cannot read move"),
        ("X@g1", "not a square of this board"),
        ("X@a7", "not a square of this board"),
        ("X@a0", "not a square of this board"),
        ("c3-c4", "cannot read move"),
        ("pass", "cannot read move"),
    ],
)
def test_malformed_moves(text: str, message: str) -> None:
    with pytest.raises(InvalidMoveError, match=message):
        GAME.parse_move(text, GAME.initial_state())
    with pytest.raises(IllegalMoveError, match=message):
        GAME.initial_state().apply(text)


@pytest.mark.parametrize("text", ["X@c3", "x@c3", "X@C3", "xc3", "c3x", " X @ c3 ", "C3@X"])
def test_move_variants_are_read(text: str) -> None:
    assert GAME.parse_move(text, GAME.initial_state()) == Placement("X", 14)


def test_foreign_objects_are_not_moves() -> None:
    with pytest.raises(IllegalMoveError, match="not an Order and Chaos move"):
        GAME.initial_state().apply(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Placement("Z", 3)


def test_messages_quote_moves_and_positions_briefly() -> None:
    state = GAME.initial_state()
    for text in ("X@" + "c" * 1_000_000, "\x1b[2J" + "X" * 1_000_000, "x" + " " * 50_000 + "c3!"):
        with pytest.raises(InvalidMoveError, match=r"^cannot read move '") as caught:
            state.apply(text)
        assert len(str(caught.value)) < 200 and "\x1b" not in str(caught.value)
    for position in ("6/6/6/6/6/6 \x1b[2J" + "o" * 1_000_000, "X" * 1_000_000 + "/6/6/6/6/6 order"):
        with pytest.raises(InvalidPositionError) as caught:
            GAME.from_position(position)
        assert len(str(caught.value)) < 200 and "\x1b" not in str(caught.value)
    with pytest.raises(ValueError, match="symbol must be 'X' or 'O'") as caught:
        Placement("Z" * 1_000_000, 3)
    assert len(str(caught.value)) < 200


def test_states_are_immutable_values() -> None:
    state = GAME.initial_state()
    with pytest.raises(AttributeError):
        state.x = 5  # type: ignore[misc]
    assert state.apply("X@a1") == GAME.from_position("6/6/6/6/6/X5 chaos")
    assert len({state.apply("X@a1"), GAME.from_position("6/6/6/6/6/X5 chaos")}) == 1
    assert state.apply("X@a1") != state.apply("O@a1")


def test_text_diagram() -> None:
    state = play("6/6/6/6/6/6 order", "X@a1", "O@f6")
    assert str(state).splitlines() == [
        "6 . . . . . O",
        "5 . . . . . .",
        "4 . . . . . .",
        "3 . . . . . .",
        "2 . . . . . .",
        "1 X . . . . .",
        "  a b c d e f",
    ]


@given(states(GAME))
def test_outcome_matches_a_plain_line_scan(state: OrderChaosState) -> None:
    cells = state.cells()
    lines = []
    for r in range(6):
        for f in range(6):
            for df, dr in ((1, 0), (0, 1), (1, 1), (-1, 1)):
                squares = [(f + k * df, r + k * dr) for k in range(5)]
                if all(0 <= x < 6 and 0 <= y < 6 for x, y in squares):
                    lines.append("".join(cells[y * 6 + x] for x, y in squares))
    has_line = any(line in ("XXXXX", "OOOOO") for line in lines)
    outcome = state.outcome()
    if has_line:
        assert outcome is not None and outcome.winner == "order"
    elif "." not in cells:
        assert outcome is not None and outcome.winner == "chaos"
    else:
        assert outcome is None


@given(states(GAME), st.text())
def test_junk_moves_raise_only_illegal_move_errors(state: OrderChaosState, text: str) -> None:
    with contextlib.suppress(IllegalMoveError):
        state.apply(text)
