"""The dispersal solver (`abstractgames.solvers.dispersal`): exact against a plain reference,
aware of the history and the ply limit, and its deepening (progress, the time limit)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import get_game
from abstractgames.dispersal import DispersalGame, DispersalState
from abstractgames.players.dispersal import DispersalSearch
from abstractgames.solvers import Progress, Solution
from abstractgames.solvers.dispersal import solve
from tests.conftest import examples

GAME = get_game("dispersal")
FIG3 = "S1O1O/O1SOS/S4/OOSSO/S4"
FIG4 = "SOSOS/1S3/O1O1O/2S2/SOSO1"
PUZZLE = "S1OSO/O3S/O3O/1O2S/SSS1O O"  # "O is to play and win"


def position(text: str, game: DispersalGame = GAME) -> DispersalState:
    return game.from_position(text)


def forced_win(state: DispersalState, turns: int) -> bool:
    """Plain reference: whether the side to move wins within ``turns`` of its own turns (passes
    included), every rule applied by the engine, the history of ``state`` included."""
    attacker = state.side
    for move in state.legal_moves():
        child = state.apply(move)
        outcome = child.outcome()
        if outcome is not None:
            if outcome.winner == attacker:
                return True
            continue
        if all(
            wins_after(child.apply(reply), attacker, turns - 1) for reply in child.legal_moves()
        ):
            return True
    return False


def wins_after(state: DispersalState, attacker: str, turns: int) -> bool:
    outcome = state.outcome()
    if outcome is not None:
        return outcome.winner == attacker
    return turns > 0 and forced_win(state, turns)


# --- the solver -----------------------------------------------------------------------------------


def test_solve_fig3() -> None:
    solution = solve(position(f"{FIG3} S"), 3)
    line = (GAME.parse_move("d2-e1"),)
    assert solution == Solution(f"{FIG3} S", "S", "S", 3, "S", 1, line, 0)
    assert solution.won and solution.complete
    assert str(solution) == "S wins in 1 move: d2-e1"


@pytest.mark.slow
def test_solve_the_puzzle() -> None:
    state = position(PUZZLE)
    solution = solve(state, 6)
    assert solution.moves == 6 and solution.searched == 5
    assert str(solution.line[0]) == "a4-c4"
    assert len(solution.line) == 11
    for move in solution.line:
        assert state.outcome() is None
        state = state.apply(move)
    assert state.outcome().winner == "O"  # type: ignore[union-attr]
    assert str(solution).startswith("O wins in 6 moves: a4-c4 pass ")


@pytest.mark.slow
def test_solve_reports_no_win() -> None:
    solution = solve(GAME.initial_state(), 2)
    assert not solution.won and solution.complete
    assert (solution.moves, solution.line, solution.searched) == (None, (), 2)
    assert str(solution) == "no forced win for O within 2 moves"
    assert not solve(position(PUZZLE), 5).won  # the puzzle needs six


def test_solve_with_a_time_limit() -> None:
    cut = solve(position(PUZZLE), 6, time_limit=0.0)
    assert not cut.won and not cut.complete and cut.searched < 6
    assert "the time limit stopped the search" in str(cut)
    assert solve(position(f"{FIG3} S"), 2, time_limit=10.0).moves == 1


def test_solve_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="game is over"):
        solve(position(f"{FIG3} S").apply("d2-e1"), 2)
    with pytest.raises(ValueError, match="max_moves"):
        solve(GAME.initial_state(), 0)


def test_solve_counts_the_ply_limit() -> None:
    # Fig. 4: S wins on ply 7 (O passing in between): in time under a 7-ply limit (dispersal
    # beats the limit on the last ply), too late under a 6-ply one.
    assert solve(position(f"{FIG4} S", DispersalGame(max_plies=7)), 5).moves == 4
    assert not solve(position(f"{FIG4} S", DispersalGame(max_plies=6)), 5).won
    short = position(f"{FIG4} S", DispersalGame(max_plies=6))
    player = DispersalSearch(short.game, depth=6)
    player.choose(short, random.Random(0))
    assert player.info is not None and player.info.mate_in is None


NEAR_WINS = [
    f"{FIG3} S",  # S wins in 1
    f"{FIG3} O",
    f"{FIG4} S",  # S wins in 4 while O passes
    f"{FIG4} O",
    "SOSOS/2S2/O1O1O/5/SOSO1 S",  # Fig. 4 after pass, b4-c4, pass: S wins in 3
    "SOSOS/2S2/O1O1O/2S2/SOSO1 O",
]


@st.composite
def played(draw: st.DrawFn) -> DispersalState:
    """A position near a win after a random history, often going back and forth (repeating
    positions), with the ply limit often near."""
    start = draw(st.sampled_from(NEAR_WINS))
    rng = draw(st.randoms(use_true_random=False))
    plies = draw(st.integers(0, 16))
    game = DispersalGame(max_plies=draw(st.sampled_from([200, plies + 3, plies + 5, plies + 7])))
    state = position(start, game)
    back: list[str | None] = []
    for _ in range(plies):
        if state.outcome() is not None:
            break
        moves = [str(m) for m in state.legal_moves()]
        undo = back[-2] if len(back) >= 2 else None  # the reverse of the mover's last move
        move = undo if undo in moves and rng.random() < 0.9 else rng.choice(moves)
        back.append("-".join(reversed(move.split("-"))))
        state = state.apply(move)
    return state


def test_solve_knows_the_history() -> None:
    # Fig. 3, S to move: S and O go back and forth. Now each of S's wins in two would repeat a
    # position for the third time (a draw), though a fresh start from the same position wins.
    state = position(f"{FIG3} S")
    for move in ["c2-b1", "d4-c3", "b1-c2", "c3-d4", "c2-b1", "d4-d3"]:
        state = state.apply(move)
    fresh = position(state.position())
    assert solve(fresh, 2).moves == 2 and forced_win(fresh, 2)
    assert not solve(state, 2).won and not forced_win(state, 2)
    # The search bot sees the draw too.
    player = DispersalSearch(GAME, depth=3)
    player.choose(fresh, random.Random(0))
    assert player.info is not None and player.info.mate_in == 3
    player.choose(state, random.Random(0))
    assert player.info is not None and player.info.mate_in is None


@settings(max_examples=examples(100))
@given(played(), st.integers(1, 4))
def test_solve_agrees_with_the_plain_reference(state: DispersalState, turns: int) -> None:
    if state.outcome() is not None or len(state.legal_moves()) ** turns > 10**5:
        return
    solution = solve(state, turns)
    expected = next((k for k in range(1, turns + 1) if forced_win(state, k)), None)
    assert solution.moves == expected, (state.position(), state.ply)
    if solution.won:
        for move in solution.line:
            state = state.apply(move)
        assert state.outcome() is not None and state.outcome().winner == solution.side


# --- the deepening in Python ----------------------------------------------------------------------


@pytest.mark.slow
def test_progress_hears_each_depth_ruled_out() -> None:
    heard: list[Progress] = []
    solution = solve(GAME.from_position(PUZZLE), 10, progress=heard.append)
    assert solution.moves == 6 and solution.max_moves == 10
    assert [p.moves for p in heard] == [1, 2, 3, 4, 5]
    assert all(p.attacker == "O" for p in heard)
    nodes = [p.nodes for p in heard]
    assert nodes == sorted(nodes) and nodes[-1] < solution.nodes
    seconds = [p.seconds for p in heard]
    assert seconds == sorted(seconds) and seconds[0] >= 0
    assert str(heard[0]) == "no forced win for O within 1 move (1 position, 0.0 s)"


def test_progress_is_silent_on_the_last_depth_and_the_answer_is_unchanged() -> None:
    heard: list[Progress] = []
    state = GAME.initial_state()
    solution = solve(state, 2, progress=heard.append)
    assert [p.moves for p in heard] == [1]
    assert solution == solve(state, 2)
    assert str(solution) == "no forced win for O within 2 moves"


def test_progress_stops_with_the_time_limit() -> None:
    heard: list[Progress] = []
    solution = solve(GAME.initial_state(), 10, time_limit=0.3, progress=heard.append)
    assert isinstance(solution, Solution) and not solution.complete
    assert [p.moves for p in heard] == list(range(1, solution.searched + 1))
