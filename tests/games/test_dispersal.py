"""Carreno's dispersal Entropy: the seed's figures, the rulings, bad input, a plain reference."""

from __future__ import annotations

import copy
import pickle
import random
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidParameterError,
    InvalidPositionError,
    get_game,
)
from abstractgames.dispersal import (
    NEIGHBOURS,
    PASS,
    START,
    DispersalGame,
    DispersalState,
    Pass,
    Slide,
    contacts,
    is_dispersed,
    move_masks,
    reach,
    slide_of,
    split_key,
    touched,
    winning_masks,
)
from abstractgames.grid import QUEEN_DIRECTIONS, grid
from abstractgames.testing import playout, states
from tests.conftest import examples
from tests.support import dispersal_reference as reference

GAME = get_game("dispersal")
GRID = grid(5, 5)

# The seed's diagrams, top row rank 5, files a-e (see docs/games/dispersal.md).
FIG2 = "S1O1S/O3O/OSSOS/S4/2OOS"
FIG3 = "S1O1O/O1SOS/S4/OOSSO/S4"
FIG4 = "SOSOS/1S3/O1O1O/2S2/SOSO1"
FIG5 = "SOSOS/4O/O1S1O/5/SOSOS"
PUZZLE = "S1OSO/O3S/O3O/1O2S/SSS1O"  # "O is to play and win"


def at(*names: str) -> frozenset[int]:
    return frozenset(GRID.square(n) for n in names)


def play(position: str, *moves: str, game: DispersalGame = GAME) -> DispersalState:
    state = game.from_position(position)
    for move in moves:
        state = state.apply(move)
    return state


def texts(state: DispersalState) -> list[str]:
    return [str(m) for m in state.legal_moves()]


def illegal(state: DispersalState, move: str) -> str:
    with pytest.raises(IllegalMoveError) as info:
        state.apply(move)
    message = str(info.value)
    assert message.startswith(f"illegal move {move} in {state.position()}: "), message
    return message


# --- the game and the start -----------------------------------------------------------------------


def test_game_description() -> None:
    assert isinstance(GAME, DispersalGame)
    assert GAME.name == "dispersal"
    assert GAME.roles == ("O", "S")
    assert GAME.params == {"max_plies": 200}
    assert GAME.max_length == 200
    assert GAME.spec == "dispersal"
    assert get_game("dispersal", max_plies=50).spec == "dispersal:max_plies=50"
    assert get_game("dispersal", max_plies=50).max_length == 50
    assert get_game("dispersal", max_plies=50) != GAME


@pytest.mark.parametrize("value", [0, -3, "12", 2.5, True, None])
def test_max_plies_is_validated(value: object) -> None:
    with pytest.raises(InvalidParameterError, match="max_plies"):
        get_game("dispersal", max_plies=value)


def test_max_plies_has_a_documented_maximum() -> None:
    from abstractgames import dispersal

    limit = dispersal.MAX_PLIES_LIMIT
    assert limit == 10_000
    assert f"from 1 to [`MAX_PLIES_LIMIT`][] ({limit:,})" in " ".join(
        (DispersalGame.__doc__ or "").split()
    )
    assert get_game("dispersal", max_plies=limit).max_length == limit
    for value in (limit + 1, 10**18, 10**5000):
        started = time.perf_counter()
        with pytest.raises(InvalidParameterError, match=f"must be at most {limit}$") as caught:
            get_game("dispersal", max_plies=value)
        assert time.perf_counter() - started < 1  # no prime search for a huge filter
        assert len(str(caught.value)) < 100


def test_start_position() -> None:
    start = GAME.initial_state()
    assert start.position() == START == "SSSSS/S3S/5/O3O/OOOOO O"
    assert start.to_move == "O" and start.side == "O"
    assert start.outcome() is None and start.ply == 0
    assert not start.in_check() and start.isolated() == frozenset()
    assert start.cells() == "OOOOOO...O.....S...SSSSSS"
    assert str(start).splitlines() == [
        "5 S S S S S",
        "4 S . . . S",
        "3 . . . . .",
        "2 O . . . O",
        "1 O O O O O",
        "  a b c d e",
    ]


def test_start_move_count() -> None:
    # Every O piece touches a friend, nothing is isolated, so every queen move is legal:
    #   a1: diagonal b2 c3 d4 (e5 is S)                                         3
    #   b1: up b2 b3 b4 (b5 S); up-right c2 d3 (e4 S); up-left a2 is O          5
    #   c1: up c2 c3 c4 (c5 S); up-left b2 a3; up-right d2 e3                   7
    #   d1: the mirror of b1                                                    5
    #   e1: the mirror of a1                                                    3
    #   a2: up a3 (a4 S); right b2 c2 d2 (e2 O); up-right b3 c4 (d5 S)          6
    #   e2: the mirror of a2                                                    6
    # 3 + 5 + 7 + 5 + 3 + 6 + 6 = 35; S has the same 35 by symmetry.
    start = GAME.initial_state()
    assert len(start.legal_moves()) == 35
    assert texts(start)[:3] == ["a1-b2", "a1-c3", "a1-d4"]
    assert len(GAME.from_position("SSSSS/S3S/5/O3O/OOOOO S").legal_moves()) == 35


def test_canonical_move_order() -> None:
    moves = GAME.initial_state().legal_moves()
    keys = [(m.source, m.target) for m in moves]  # type: ignore[attr-defined]
    assert keys == sorted(keys)
    assert all(type(m) is Slide for m in moves)


# --- the seed's figures ---------------------------------------------------------------------------


def test_fig2_o_in_check_and_a4_c4_checks_s() -> None:
    state = GAME.from_position(f"{FIG2} O")
    assert state.in_check()
    assert state.isolated() == at("c5")
    assert "a4-c4" in texts(state)
    # Every legal move puts a piece next to c5 (b4, c4, d4, b5 or d5).
    assert all(m.target in GRID.neighbours(22) for m in state.legal_moves())  # type: ignore[attr-defined]
    after = state.apply("a4-c4")
    assert after.position() == "S1O1S/2O1O/OSSOS/S4/2OOS S"
    assert after.isolated("O") == frozenset()
    assert after.to_move == "S" and after.in_check()
    assert after.isolated() == at("a5")
    assert after.outcome() is None


def test_fig3_s_wins_with_d2_e1() -> None:
    state = GAME.from_position(f"{FIG3} S")
    assert not state.in_check() and not state.dispersed("S")
    won = state.apply("d2-e1")
    assert won.outcome() is not None
    assert won.outcome().winner == "S"  # type: ignore[union-attr]
    assert won.outcome().scores == {"O": 0, "S": 1}  # type: ignore[union-attr]
    assert won.outcome().reason == "S dispersed"  # type: ignore[union-attr]
    assert won.dispersed("S") and not won.dispersed("O")
    assert won.to_move is None and won.legal_moves() == ()


def test_fig3_o_preempts_with_b2_b4() -> None:
    state = GAME.from_position(f"{FIG3} O")
    assert "b2-b4" in texts(state)
    after = state.apply("b2-b4")
    assert after.outcome() is None
    # d2-e1 is still legal for S but now cuts c2 off instead of winning ...
    cut = after.apply("d2-e1")
    assert cut.outcome() is None
    assert cut.isolated("S") == at("c2")
    # ... and S has no immediate win at all.
    for move in after.legal_moves():
        outcome = after.apply(move).outcome()
        assert outcome is None or outcome.winner != "S", move


def test_fig4_o_in_check_without_a_move_passes() -> None:
    state = GAME.from_position(f"{FIG4} O")
    assert state.in_check()
    assert state.isolated() == at("e3")
    assert state.legal_moves() == (PASS,)
    assert state.apply("pass").to_move == "S"


def test_fig4_simultaneous_dispersal_is_a_draw() -> None:
    state = play(f"{FIG4} O", "pass", "b4-b3", "pass", "c2-e2")
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winner is None
    assert outcome.reason == "both sides dispersed"
    assert outcome.scores == {"O": 0.5, "S": 0.5}
    assert state.dispersed("O") and state.dispersed("S")


def test_fig4_s_wins_by_first_creating_a_second_isolation() -> None:
    line = ["pass", "b4-c4", "pass", "c2-d2", "pass", "d2-e1", "pass", "c4-d3"]
    state = GAME.from_position(f"{FIG4} O")
    for ply, move in enumerate(line):
        assert state.outcome() is None
        if ply % 2 == 0:
            assert state.legal_moves() == (PASS,), ply  # O never gets a move
        state = state.apply(move)
    assert state.outcome().winner == "S"  # type: ignore[union-attr]
    assert state.isolated("O") == at("a3")  # "leaves O with an isolated piece at a3"
    assert state.dispersed("S") and not state.dispersed("O")


def test_fig5_s_cannot_move() -> None:
    state = GAME.from_position(f"{FIG5} S")
    assert state.in_check() and state.isolated() == at("c3")
    assert state.legal_moves() == (PASS,)
    for move in ("c3-c4", "a5-a4", "c1-c2"):
        assert "touches no S piece" in illegal(state, move)


@pytest.mark.parametrize("square", ["b4", "c4", "d4", "b3", "d3", "b2", "c2", "d2"])
def test_fig5_an_o_beside_c3_is_a_win_for_s(square: str) -> None:
    cells = list(GAME.from_position(f"{FIG5} O").cells())
    cells[GRID.square(square)] = "O"
    outcome = GAME.from_position(f"{GRID.format_ranks(cells)} S").outcome()
    assert outcome is not None and outcome.winner == "S"


def test_fig5_o_cannot_win() -> None:
    state = GAME.from_position(f"{FIG5} O")
    # O is in check too (a3 is isolated): d5-a2 and d5-b3 are its only moves, and d5-b3 puts an
    # O beside c3.
    assert state.isolated() == at("a3")
    assert texts(state) == ["d5-a2", "d5-b3"]
    assert state.apply("d5-b3").outcome().winner == "S"  # type: ignore[union-attr]
    after = state.apply("d5-a2")
    assert after.legal_moves() == (PASS,)
    after = after.apply("pass")
    assert after.position() == "SOS1S/4O/O1S1O/O4/SOSOS O"
    for move in after.legal_moves():
        outcome = after.apply(move).outcome()
        assert outcome is None or outcome.winner == "S", move


def test_fig5_forced_draw_by_repetition() -> None:
    line = ["d5-a2", "pass", "a3-a4", "pass", "a4-a3", "pass", "a3-a4", "pass", "a4-a3"]
    state = GAME.from_position(f"{FIG5} O")
    for move in line[:-1]:
        state = state.apply(move)
        assert state.outcome() is None, (move, state.ply)
    state = state.apply(line[-1])
    assert state.ply == 9
    assert state.outcome().reason == "threefold repetition"  # type: ignore[union-attr]
    assert state.outcome().winner is None  # type: ignore[union-attr]


def o_forces_a_win(state: DispersalState, moves: int) -> bool:
    """Whether O, to move, wins within ``moves`` moves of its own whatever S replies."""
    for move in state.legal_moves():
        child = state.apply(move)
        outcome = child.outcome()
        if outcome is not None:
            if outcome.winner == "O":
                return True
            continue
        if moves > 1 and all(
            o_wins_or_forces(child.apply(reply), moves - 1) for reply in child.legal_moves()
        ):
            return True
    return False


def o_wins_or_forces(state: DispersalState, moves: int) -> bool:
    outcome = state.outcome()
    if outcome is not None:
        return outcome.winner == "O"
    return o_forces_a_win(state, moves)


def test_puzzle_o_to_play_and_win() -> None:
    state = GAME.from_position(f"{PUZZLE} O")
    assert not state.in_check()
    assert not o_forces_a_win(state, 1)  # no move wins at once
    # a4-c4 cuts a5 off; no S piece can reach a4, b4 or b5, so S must pass, and again after
    # b2-a2 and a3-b3, each of which keeps a5 cut off.
    line = ["a4-c4", "pass", "b2-a2", "pass", "a3-b3", "pass"]
    for ply, move in enumerate(line):
        if ply % 2:
            assert state.in_check() and state.isolated() == at("a5")
            assert state.legal_moves() == (PASS,)
        state = state.apply(move)
    # From there O forces the win in three more moves whatever S does.
    assert o_forces_a_win(state, 3)
    for move in ["b3-d1", "b1-b4", "d1-a4", "b4-b1", "c4-c2"]:
        assert state.outcome() is None
        state = state.apply(move)
    assert state.outcome().winner == "O"  # type: ignore[union-attr]


# --- the rules ------------------------------------------------------------------------------------


def test_multiple_check_needs_one_move_clearing_every_isolation() -> None:
    # O's a3 and c3 are both isolated; only b2, b3, b4 touch both, and only d5-b3 reaches one.
    state = GAME.from_position("3OO/4S/O1O2/5/S4 O")
    assert state.isolated() == at("a3", "c3")
    assert state.legal_moves() == (Slide(GRID.square("d5"), GRID.square("b3")),)
    message = illegal(state, "d5-c4")  # touches c3 only
    assert "O is in check (isolated: a3, c3)" in message
    assert "leaves a3 isolated" in message
    assert not state.apply("d5-b3").isolated("O")


def test_putting_yourself_in_check_is_allowed_and_double_pass_draws() -> None:
    state = GAME.from_position("3OO/4S/5/5/S4 O")
    assert not state.in_check()
    after = state.apply("d5-b5")  # b5 now touches nothing
    assert after.isolated("O") == at("b5")
    assert after.to_move == "S" and after.legal_moves() == (PASS,)  # no S piece has a friend
    stuck = after.apply("pass")
    assert stuck.in_check() and stuck.legal_moves() == (PASS,)  # nothing can reach b5
    drawn = stuck.apply("pass")
    assert drawn.outcome().reason == "both players passed"  # type: ignore[union-attr]
    assert drawn.outcome().scores == {"O": 0.5, "S": 0.5}  # type: ignore[union-attr]


def test_a_move_that_disperses_only_the_opponent_loses() -> None:
    # O's d5-b3 puts an O beside S's c3, the last S piece without an enemy neighbour.
    state = GAME.from_position(f"{FIG5} O").apply("d5-b3")
    assert state.outcome().winner == "S"  # type: ignore[union-attr]
    assert state.outcome().reason == "S dispersed"  # type: ignore[union-attr]


def test_passing_is_refused_while_a_move_exists() -> None:
    message = illegal(GAME.initial_state(), "pass")
    assert "a legal move exists (e.g. a1-b2); O may pass only without one" in message
    # In check with a clearing move, passing is refused as well.
    assert "a legal move exists (e.g. a3-b4)" in illegal(GAME.from_position(f"{FIG2} O"), "pass")


REPEAT = ["a1-b2", "b5-b4", "b2-a1", "b4-b5"]


def test_threefold_repetition_on_the_third_occurrence_only() -> None:
    state = GAME.initial_state()
    for ply, move in enumerate(REPEAT * 2, start=1):
        state = state.apply(move)
        if ply < 8:
            assert state.outcome() is None, ply
    # The start position (O to move) stood at plies 0, 4 and 8.
    assert state.position() == START
    outcome = state.outcome()
    assert outcome is not None and outcome.winner is None
    assert outcome.reason == "threefold repetition"
    assert outcome.scores == {"O": 0.5, "S": 0.5}
    assert state.legal_moves() == () and state.to_move is None


def test_same_board_with_the_other_side_to_move_is_another_position() -> None:
    # After a1-b2 the board of ply 1 recurs at ply 5, with S to move both times; the start board
    # with S to move never occurs, so plies 0, 4, 8 are the only repetition.
    state = GAME.initial_state()
    seen = []
    for move in REPEAT * 2:
        state = state.apply(move)
        seen.append(state.position())
    assert seen.count(START) == 2
    assert seen.count(START.replace(" O", " S")) == 0


def test_ply_limit() -> None:
    game = get_game("dispersal", max_plies=3)
    state = play(START, "a1-b2", "b5-b4", game=game)
    assert state.outcome() is None
    state = state.apply("b2-a1")
    assert state.ply == 3
    assert state.outcome().reason == "ply limit of 3 reached"  # type: ignore[union-attr]
    assert state.outcome().winner is None  # type: ignore[union-attr]
    # Dispersal on the last ply still decides the game.
    won = play(f"{FIG3} S", "d2-e1", game=get_game("dispersal", max_plies=1))
    assert won.outcome().reason == "S dispersed"  # type: ignore[union-attr]


def test_default_ply_limit_of_200() -> None:
    rng = random.Random(7)
    for _ in range(20):
        end = playout(GAME.initial_state(), rng)[-1]
        if end.outcome().reason.startswith("ply limit"):  # type: ignore[union-attr]
            assert end.ply == 200
            assert end.outcome().reason == "ply limit of 200 reached"  # type: ignore[union-attr]
            return
    pytest.fail("no random game reached the ply limit")


def test_positions_are_evaluated_when_read() -> None:
    won = GAME.from_position("S1O1O/O1SOS/S4/OOS1O/S3S O")  # Fig. 3 after d2-e1
    assert won.outcome().winner == "S" and won.to_move is None  # type: ignore[union-attr]
    drawn = GAME.from_position("SOSOS/5/OSO1O/4S/SOSO1 O")  # Fig. 4 after the drawing line
    assert drawn.outcome().reason == "both sides dispersed"  # type: ignore[union-attr]
    assert "the game is over (both sides dispersed)" in illegal(drawn, "pass")
    # A position whose side to move has nothing to do is not over: that side passes.
    assert GAME.from_position("O4/5/5/5/4S S").legal_moves() == (PASS,)


def test_history_is_not_part_of_equality() -> None:
    state = GAME.initial_state()
    for move in REPEAT:
        state = state.apply(move)
    fresh = GAME.from_position(state.position())
    assert state == fresh and hash(state) == hash(fresh)
    assert state.ply == 4 and fresh.ply == 0
    # The fresh history counts the position once, the played one twice.
    for move in REPEAT:
        state, fresh = state.apply(move), fresh.apply(move)
    assert state.outcome() is not None and fresh.outcome() is None
    assert state != GAME.from_position(START.replace(" O", " S"))


def test_pickle_and_copy_keep_the_history() -> None:
    state = play(START, *REPEAT, *REPEAT[:3])
    for again in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), copy.copy(state)):
        assert again == state and again.ply == 7 and again.game == GAME
        assert again.apply(REPEAT[3]).outcome().reason == "threefold repetition"  # type: ignore[union-attr]
    passed = play("3OO/4S/5/5/S4 O", "d5-b5", "pass", "pass")
    assert pickle.loads(pickle.dumps(passed)).outcome() == passed.outcome()
    game = get_game("dispersal", max_plies=9)
    assert pickle.loads(pickle.dumps(game)) == game


def test_states_are_immutable() -> None:
    state = GAME.initial_state()
    with pytest.raises(AttributeError, match="immutable"):
        state.o = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        state._ply = 3  # type: ignore[misc]
    child = state.apply("a1-b2")
    assert state.position() == START and child.position() == "SSSSS/S3S/5/OO2O/1OOOO S"


def test_helpers() -> None:
    state = GAME.from_position(f"{FIG2} O")
    assert state.isolated("S") == frozenset() and state.isolated("o") == at("c5")
    assert not state.dispersed() and not state.dispersed("S")
    assert state.cells()[GRID.square("c5")] == "O" and state.cells()[GRID.square("b5")] == "."
    with pytest.raises(ValueError, match="side must be 'O' or 'S'"):
        state.isolated("X")


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SSSSS/S3S/5/O3O O", "4 ranks"),
        ("SSSSS/S3S/5/O3O/OOOOO/5 O", "6 ranks"),
        ("SSSSS/S3S/5/O3O/OOOO O", "rank 1 'OOOO' has 4 squares, not 5"),
        ("SSSSS/S4S/5/O3O/OOOOO O", "rank 4 'S4S' has 6 squares, not 5"),
        ("SSSSS/S3S/5/O3O/OOOOX O", "unknown character 'X'"),
        ("SSSSS/S3S/5/O3O/OOOO. O", "unknown character '.'"),
        ("5/5/5/O3O/OOOOO O", "no S piece"),
        ("SSSSS/S3S/5/5/5 S", "no O piece"),
        ("5/5/5/5/5 O", "no O piece"),
        ("SSSSS/S3S/5/O3O/OOOOO X", "side to move 'X' must be 'O' or 'S'"),
        ("SSSSS/S3S/5/O3O/OOOOO order", "must be 'O' or 'S'"),
        ("SSSSS/S3S/5/O3O/OOOOO", "1 fields, expected 2"),
        ("SSSSS/S3S/5/O3O/OOOOO O 0", "3 fields"),
        ("SSSSS/S3S/5/O3O/OOO11 O", "two digits in a row"),
        ("", "0 fields"),
    ],
)
def test_malformed_positions(text: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=re.escape(message)):
        GAME.from_position(text)


def test_position_letters_and_side_may_be_lower_case() -> None:
    assert GAME.from_position("sssss/s3s/5/o3o/ooooo o") == GAME.initial_state()
    with pytest.raises(InvalidPositionError, match="must be a string"):
        GAME.from_position(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("position", "move", "why"),
    [
        (START, "a5-b4", "the piece on a5 is S's, and O is to move"),
        (START, "c3-c4", "c3 is empty"),
        (START, "a1-a2", "a2 is occupied"),
        (START, "a1-b3", "b3 is not on a line (rank, file or diagonal) from a1"),
        (START, "a1-a3", "the way from a1 to a3 is blocked on a2"),
        ("SSSSS/S3S/5/O1O1O/OOOOO O", "e2-b2", "the way from e2 to b2 is blocked on c2"),
        ("2SS1/2O2/2O2/5/O4 S", "c5-c2", "the way from c5 to c2 is blocked on c4"),
        ("3OO/4S/O1O2/5/S4 O", "a3-a4", "the O piece on a3 touches no O piece, so it may not move"),
        (f"{FIG2} O", "d1-d2", "O is in check (isolated: c5) and this move leaves c5 isolated"),
        (f"{FIG5} S", "c3-c4", "touches no S piece"),
    ],
)
def test_illegal_moves_say_why(position: str, move: str, why: str) -> None:
    message = illegal(GAME.from_position(position), move)
    assert why in message, message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cannot read move"),
        ("a1", "cannot read move"),
        ("a1-b2-c3", "cannot read move"),
        ("passe", "cannot read move"),
        ("X@c3", "cannot read move"),
        ("a1-a1", "at least one square"),
        ("f1-a1", "'f1' is not a square of this board (a1 to e5)"),
        ("a1-a6", "'a6' is not a square of this board"),
    ],
)
def test_malformed_moves(text: str, message: str) -> None:
    with pytest.raises(InvalidMoveError, match=re.escape(message)):
        GAME.parse_move(text, GAME.initial_state())
    with pytest.raises(IllegalMoveError, match=re.escape(message)):
        GAME.initial_state().apply(text)


@pytest.mark.parametrize("text", ["a4-c4", "A4-C4", "a4c4", "a4 c4", " a4 - c4 ", "a4–c4"])
def test_move_variants_are_read(text: str) -> None:
    assert GAME.parse_move(text) == Slide(15, 17)
    assert GAME.parse_move(text) is GAME.parse_move("a4-c4")


@pytest.mark.parametrize("text", ["pass", "PASS", " Pass "])
def test_pass_variants_are_read(text: str) -> None:
    assert GAME.parse_move(text) is PASS
    assert str(PASS) == "pass" and Pass() == PASS


def test_foreign_objects_are_not_moves() -> None:
    with pytest.raises(IllegalMoveError, match="not a dispersal Entropy move"):
        GAME.initial_state().apply(42)  # type: ignore[arg-type]
    with pytest.raises(InvalidMoveError, match="must be a string"):
        GAME.parse_move(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one square"):
        Slide(3, 3)
    with pytest.raises(ValueError, match="square index"):
        Slide(0, 25)


def test_a_fresh_slide_equal_to_a_legal_one_is_accepted() -> None:
    state = GAME.initial_state()
    assert state.apply(Slide(0, 6)) == state.apply("a1-b2")
    assert repr(Slide(0, 6)) == "Slide('a1-b2')" and repr(PASS) == "PASS"


# --- against the plain reference ------------------------------------------------------------------

QUICK = settings(max_examples=examples(150))


def assert_same(state: DispersalState, ref: reference.Game) -> None:
    position = state.position()
    assert state.cells() == "".join(ref.board.get((i % 5, i // 5), ".") for i in range(25)), (
        position
    )
    outcome = state.outcome()
    if ref.result is None:
        assert outcome is None, (position, outcome)
        assert sorted(texts(state)) == ref.legal(), position
        assert state.to_move == ref.side
    else:
        assert outcome is not None, (position, ref.result)
        assert (outcome.winner, outcome.reason) == ref.result, position
        assert state.legal_moves() == ()
    side = state.side
    assert state.isolated() == frozenset(
        GRID.square(reference.name(sq)) for sq in reference.isolated(ref.board, side)
    )
    assert state.in_check() == bool(reference.isolated(ref.board, side))
    for role in ("O", "S"):
        assert state.dispersed(role) == reference.dispersed(ref.board, role), (position, role)


def lockstep(position: str, rng: random.Random, max_plies: int) -> int:
    """Play random moves in the engine and the reference side by side; return the plies."""
    state = DispersalGame(max_plies).from_position(position)
    ref = reference.Game(position, max_plies)
    while True:
        assert_same(state, ref)
        if state.outcome() is not None:
            return state.ply
        move = rng.choice(state.legal_moves())
        state = state.apply(move)
        ref.play(str(move))


@pytest.mark.slow
@QUICK
@given(st.randoms(use_true_random=False), st.integers(min_value=1, max_value=200))
def test_random_games_match_the_reference(rng: random.Random, max_plies: int) -> None:
    lockstep(START, rng, max_plies)


@st.composite
def positions(draw: st.DrawFn) -> str:
    """Any board with at least one piece a side; crowded and sparse boards alike."""
    density = draw(st.floats(min_value=0.1, max_value=0.9))
    rng = draw(st.randoms(use_true_random=False))
    cells = [
        "O" if r < density / 2 else "S" if r < density else "."
        for r in (rng.random() for _ in range(25))
    ]
    cells[draw(st.integers(0, 24))] = "O"
    cells[draw(st.integers(0, 24).filter(lambda i: cells[i] != "O"))] = "S"
    return f"{GRID.format_ranks(cells)} {draw(st.sampled_from('OS'))}"


@pytest.mark.slow
@QUICK
@given(positions(), st.randoms(use_true_random=False))
def test_random_positions_match_the_reference(position: str, rng: random.Random) -> None:
    lockstep(position, rng, rng.randint(1, 60))


@settings(max_examples=examples(60))
@given(positions())
def test_apply_accepts_exactly_the_reference_moves(position: str) -> None:
    state = GAME.from_position(position)
    board, side = reference.parse_board(position.split()[0]), position.split()[1]
    legal = set(reference.legal_moves(board, side)) if state.outcome() is None else set()
    for a in range(25):
        for b in range(25):
            if a == b:
                continue
            move = Slide(a, b)
            try:
                state.apply(move)
            except IllegalMoveError as error:
                assert str(move) not in legal, (position, str(move), str(error))
                assert str(error).startswith(f"illegal move {move} in {position}: ")
            else:
                assert str(move) in legal, (position, str(move))
    try:
        state.apply(PASS)
    except IllegalMoveError:
        assert "pass" not in legal, position
    else:
        assert legal == {"pass"}, position


@settings(max_examples=examples(200))
@given(states(GAME))
def test_reachable_states_match_the_reference(state: DispersalState) -> None:
    board = reference.parse_board(state.position().split()[0])
    result = reference.dispersal_result(board)
    outcome = state.outcome()
    if result is not None:
        assert outcome is not None and (outcome.winner, outcome.reason) == result
    elif outcome is not None:  # a draw by the history: double pass, repetition, ply limit
        assert outcome.winner is None and "dispersed" not in outcome.reason
    else:
        assert sorted(texts(state)) == reference.legal_moves(board, state.side)


def test_perft_two_plies_matches_the_reference() -> None:
    start = GAME.initial_state()
    board = reference.parse_board(START.split()[0])
    engine = sum(len(start.apply(m).legal_moves()) for m in start.legal_moves())
    plain = 0
    for text in reference.legal_moves(board, "O"):
        a, b = text.split("-")
        move = ((ord(a[0]) - 97, int(a[1]) - 1), (ord(b[0]) - 97, int(b[1]) - 1))
        plain += len(reference.legal_moves(reference.after(board, move), "S"))
    assert engine == plain


# --- the kernels on bitboards ---------------------------------------------------------------------


@QUICK
@given(states(GAME, max_plies=60))
def test_the_bitboard_move_generator_agrees_with_the_engine(state: DispersalState) -> None:
    if state.is_terminal():
        return
    me, opp = (state.o, state.s) if state.side == "O" else (state.s, state.o)
    ours = [str(slide_of(mask, me)) for mask in move_masks(me, opp)]
    assert sorted(ours) == sorted(str(m) for m in state.legal_moves() if m != PASS)
    assert ours == [str(m) for m in state.legal_moves() if m != PASS]  # in the same order


@QUICK
@given(states(GAME, max_plies=60))
def test_the_bitboard_kernels_agree_with_the_engine(state: DispersalState) -> None:
    me, opp = (state.o, state.s) if state.side == "O" else (state.s, state.o)
    for side, own, other in (("O", state.o, state.s), ("S", state.s, state.o)):
        assert is_dispersed(own, other) == state.dispersed(side)
        lonely = own & ~touched(own | other)
        assert frozenset(sq for sq in range(25) if lonely >> sq & 1) == state.isolated(side)
    pairs = sum(
        1 for a in range(25) for b in range(a) if me >> a & me >> b & NEIGHBOURS[a] >> b & 1
    )
    assert contacts(me) == pairs
    occupied = state.o | state.s
    for sq in range(25):
        targets = 0
        for df, dr in QUEEN_DIRECTIONS:
            for to in GRID.ray(sq, df, dr):
                if occupied >> to & 1:
                    break
                targets |= 1 << to
        assert reach(1 << sq, occupied) == targets
    if state.is_terminal():
        return
    wins = [str(slide_of(mask, me)) for mask in winning_masks(me, opp)]
    expected = []
    for move in state.legal_moves():
        outcome = state.apply(move).outcome()
        if outcome is not None and outcome.winner == state.side:
            expected.append(str(move))
    assert wins == expected


def test_history_gives_the_position_keys() -> None:
    state = play(START, *REPEAT)
    keys = state.history()
    assert len(keys) == 5 and keys[0] == keys[4] and keys[1] != keys[3]
    assert split_key(keys[0]) == (GAME.initial_state().o, GAME.initial_state().s, 0)
    assert split_key(keys[1])[2] == 1 and GAME.from_position(state.position()).history() == keys[4:]
    passed = play("3OO/4S/5/5/S4 O", "d5-b5", "pass")
    assert [split_key(key)[:2] for key in passed.history()[-2:]] == [(passed.o, passed.s)] * 2


def test_benchmark_extras() -> None:
    runs = GAME.benchmarks(random.Random(0))
    assert set(runs) == {"move generations"}
    assert runs["move generations"]() == 1000


# The conformance kit runs over dispersal (default, max_plies=12 and max_plies=1) in
# tests/games/test_conformance.py.
