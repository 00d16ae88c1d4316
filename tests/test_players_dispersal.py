"""The dispersal Entropy bots: legal, reproducible, the seed's tactics; the solver is exact."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import IllegalMoveError, State, get_game, make_player
from abstractgames.dispersal import PASS, DispersalGame, DispersalState
from abstractgames.players import InvalidPlayerError
from abstractgames.players import dispersal as bots
from abstractgames.players.dispersal import WIN_VALUE, DispersalSearch, evaluate
from abstractgames.solvers.dispersal import Solution, solve
from abstractgames.testing import states

from .conftest import examples

GAME = get_game("dispersal")
FIG3 = "S1O1O/O1SOS/S4/OOSSO/S4"
FIG4 = "SOSOS/1S3/O1O1O/2S2/SOSO1"
FIG5 = "SOSOS/4O/O1S1O/5/SOSOS"
PUZZLE = "S1OSO/O3S/O3O/1O2S/SSS1O O"  # "O is to play and win"

QUICK = settings(max_examples=examples(150))


def position(text: str, game: DispersalGame = GAME) -> DispersalState:
    return game.from_position(text)


def winning_moves(state: DispersalState) -> list[str]:
    """The moves after which the side to move has won, by the engine."""
    won = []
    for move in state.legal_moves():
        outcome = state.apply(move).outcome()
        if outcome is not None and outcome.winner == state.side:
            won.append(str(move))
    return won


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


# --- reproducible (legal, pure moves: tests/test_player_conformance.py) ---------------------------


def test_search_is_reproducible_for_a_seed_and_depth() -> None:
    state = GAME.initial_state()
    for move in ["a2-b3", "e5-c3", "c1-a3"]:
        state = state.apply(move)
    choices = {
        str(make_player("search:depth=3", GAME).choose(state, random.Random(seed)))
        for seed in (4, 4, 4)
    }
    assert len(choices) == 1
    # Different seeds may break ties differently, but always among legal moves.
    for seed in range(5):
        assert DispersalSearch(GAME, depth=2).choose(state, random.Random(seed)) in (
            state.legal_moves()
        )


def test_search_respects_the_time_budget() -> None:
    state = GAME.initial_state().apply("a2-b3").apply("e5-c3")
    player = make_player("search:time=0.2", GAME)
    started = time.monotonic()
    move = player.choose(state, random.Random(1))
    assert time.monotonic() - started < 1.0
    assert move in state.legal_moves()
    assert player.info is not None and player.info.depth >= 1
    # With a clock, a twentieth of the time left at most: here 0.05 s of the 1 s budget.
    started = time.monotonic()
    DispersalSearch(GAME, time=1.0).choose(state, random.Random(1), time_left=1.0)
    assert time.monotonic() - started < 0.5


def test_bots_refuse_finished_games() -> None:
    over = position(f"{FIG3} S").apply("d2-e1")
    for spec in ("greedy", "search:depth=2"):
        with pytest.raises(IllegalMoveError, match="no move to choose"):
            make_player(spec, GAME).choose(over, random.Random(0))


def test_search_options() -> None:
    player = make_player("search:time=0.5,depth=3", GAME)
    assert isinstance(player, DispersalSearch)
    assert (player.time, player.depth, player.spec) == (0.5, 3, "search:time=0.5,depth=3")
    with pytest.raises(InvalidPlayerError, match="depth"):
        DispersalSearch(GAME, depth=0)
    with pytest.raises(InvalidPlayerError, match="time"):
        DispersalSearch(GAME, time=-1)
    with pytest.raises(InvalidPlayerError, match="dispersal"):
        DispersalSearch(get_game("orderchaos"))


def test_a_forced_move_or_pass_is_returned_at_once() -> None:
    stuck = position(f"{FIG4} O")  # in check, no clearing move
    assert DispersalSearch(GAME, depth=5).choose(stuck, random.Random(0)) == PASS
    assert make_player("greedy", GAME).choose(stuck, random.Random(0)) == PASS


# --- the evaluation -------------------------------------------------------------------------------


def test_evaluation_of_finished_games() -> None:
    won = position(f"{FIG3} S").apply("d2-e1")
    assert evaluate(won, "S") == float("inf") and evaluate(won, "O") == float("-inf")
    drawn = position(f"{FIG4} O").apply("pass").apply("b4-b3").apply("pass").apply("c2-e2")
    assert evaluate(drawn, "O") == evaluate(drawn, "S") == 0.0


@QUICK
@given(states(GAME, max_plies=60))
def test_evaluation_sees_every_immediate_win(state: State) -> None:
    assert isinstance(state, DispersalState)
    if state.is_terminal():
        return
    value = evaluate(state, state.side)
    assert (value == WIN_VALUE) == bool(winning_moves(state)), state.position()
    other = "S" if state.side == "O" else "O"
    assert (evaluate(state, other) == -WIN_VALUE) == bool(winning_moves(state))


def test_greedy_prefers_a_check_when_nothing_else_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    # O's b4 alone touches S's a4: moving it away (b4-c3, b4-d2) leaves a4 touching nothing.
    state = position("2OO1/SO3/5/2S2/1S3 O")
    checks = {"b4-c3", "b4-d2"}
    for move in checks:
        assert state.apply(move).isolated("S") == {15}  # a4

    def best(state: DispersalState) -> set[str]:
        values = {str(m): evaluate(state.apply(m), "O") for m in state.legal_moves()}
        return {m for m, v in values.items() if v == max(values.values())}

    assert best(state) == checks
    assert make_player("greedy", GAME).choose(state, random.Random(0)) in {
        GAME.parse_move(m) for m in checks
    }
    # Without the bonus for the opponent's isolated pieces, quiet moves tie with the checks.
    monkeypatch.setattr(bots, "ISOLATED_OPPONENT", 0)
    assert best(state) > checks


# --- tactics --------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["greedy", "search:depth=1", "search:depth=3"])
def test_bots_take_an_immediate_win(spec: str) -> None:
    # Fig. 3: S wins with d2-e1.
    move = make_player(spec, GAME).choose(position(f"{FIG3} S"), random.Random(0))
    assert str(move) == "d2-e1"


@pytest.mark.parametrize("spec", ["greedy", "search:depth=1", "search:depth=4"])
def test_bots_do_not_disperse_the_opponent(spec: str) -> None:
    # Fig. 5, O to move: d5-b3 puts an O beside c3 and disperses S; d5-a2 is the only other move.
    move = make_player(spec, GAME).choose(position(f"{FIG5} O"), random.Random(0))
    assert str(move) == "d5-a2"


@pytest.mark.parametrize("spec", ["greedy", "search:depth=2", "search:depth=4"])
def test_bots_block_a_win_in_one(spec: str) -> None:
    # Fig. 3, O to move: S threatens d2-e1; e.g. b2-b4 denies c2 its connection.
    state = position(f"{FIG3} O")
    assert winning_moves(state.apply("b2-b4")) == []
    for seed in range(3):
        after = state.apply(make_player(spec, GAME).choose(state, random.Random(seed)))
        assert after.outcome() is None
        assert winning_moves(after) == [], after.position()


def test_search_finds_the_puzzle() -> None:
    player = DispersalSearch(GAME, depth=7)
    state = position(PUZZLE)
    assert str(player.choose(state, random.Random(0))) == "a4-c4"
    assert player.info is not None and player.info.mate_in == 11  # O's sixth move, ply 11


def test_search_plays_the_fastest_win_to_the_end() -> None:
    state = position(f"{FIG4} S")  # O must pass while S sets up; S wins in four moves
    player = DispersalSearch(GAME, depth=4)
    rng = random.Random(0)
    while state.outcome() is None:
        state = state.apply(player.choose(state, rng))
    assert state.outcome().winner == "S"  # type: ignore[union-attr]
    assert state.ply == 7


# --- the solver -----------------------------------------------------------------------------------


def test_solve_fig3() -> None:
    solution = solve(position(f"{FIG3} S"), 3)
    assert solution == Solution(f"{FIG3} S", "S", 3, 1, (GAME.parse_move("d2-e1"),), 0)
    assert solution.won and solution.complete
    assert str(solution) == "S wins in 1 move: d2-e1"


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


# --- strength, a smoke test (the measured figures are in docs/bots-dispersal.md) ------------------


def test_search_beats_random() -> None:
    rng = random.Random(3)
    for game_number in range(4):
        search, other = DispersalSearch(GAME, depth=2), make_player("random", GAME)
        seats = {"O": search, "S": other} if game_number % 2 == 0 else {"O": other, "S": search}
        state = GAME.initial_state()
        while state.outcome() is None:
            state = state.apply(seats[state.to_move].choose(state, rng))
        winner = state.outcome().winner  # type: ignore[union-attr]
        assert winner is not None and seats[winner] is search, state.outcome()
