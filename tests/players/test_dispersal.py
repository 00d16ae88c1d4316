"""The dispersal Entropy bots: legal, reproducible, the seed's tactics, their evaluation."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings

from abstractgames import IllegalMoveError, State, get_game, make_player
from abstractgames.dispersal import PASS, DispersalGame, DispersalState
from abstractgames.players import InvalidPlayerError
from abstractgames.players import dispersal as bots
from abstractgames.players.dispersal import WIN_VALUE, DispersalSearch, evaluate
from abstractgames.testing import states
from tests.conftest import examples

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


# --- reproducible (legal, pure moves: tests/players/test_conformance.py) --------------------------


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


@pytest.mark.slow
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
