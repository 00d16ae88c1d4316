"""The `perfect` player: Order's composite strategy (pairing answers on the rim, the centre
certificate's moves, the closing moves) wins every game from the start, against every Chaos; it
says in `SearchInfo.route` which part chose a move, or what it falls back on."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import get_game, make_player, parse_game_spec
from abstractgames.orderchaos import OrderChaosState
from abstractgames.players import Player
from abstractgames.referee import Referee
from abstractgames.registry import available_players
from tests.conftest import examples

GAME = get_game("orderchaos")


def test_perfect_is_a_built_in_player() -> None:
    assert "perfect" in available_players()


@pytest.mark.slow  # making the player solves the centre game (once a process)
def test_as_chaos_it_falls_back_on_resist_and_says_so() -> None:
    player = make_player("perfect:depth=1", GAME)
    state = GAME.initial_state().apply("X@c3")
    move = player.choose(state, random.Random(0))
    assert move in state.legal_moves()
    assert player.info is not None
    assert player.info.route == "resist (Chaos to move: the strategy is Order's): the search bot"
    assert player.info.summary().startswith("resist (Chaos to move")


@pytest.mark.slow  # making the player solves the centre game (once a process)
def test_where_the_pairing_is_broken_it_falls_back_on_resist() -> None:
    player = make_player("perfect:depth=1", GAME)
    state = GAME.from_position("6/6/6/6/6/XX4 order")  # a1 and b1 unanswered
    player.choose(state, random.Random(0))
    assert player.info is not None and player.info.route.startswith(
        "resist (the pairing is broken)"
    )
    player = make_player("perfect:depth=1,reach=72", GAME)
    near_the_end = GAME.from_position("XOO1XX/1XXXO1/2OOO1/OO3O/OX1OXX/1X1O2 order")  # win in 2
    player.choose(near_the_end, random.Random(0))
    assert player.info is not None
    assert player.info.route.startswith("resist (the pairing is broken): the solver's proven")


@pytest.mark.parametrize("game", ["dispersal", "entropy:size=5"])
def test_a_game_without_a_strategy_gets_resist(game: str) -> None:
    the_game = parse_game_spec(game)
    state = the_game.initial_state()
    while state.is_chance():
        state = state.apply(state.legal_moves()[0])
    player = make_player("perfect:depth=1", the_game)
    assert player.choose(state, random.Random(1)) in state.legal_moves()
    assert player.info is not None
    assert player.info.route.startswith(f"resist ({the_game.name} has no proven strategy)")


@pytest.mark.slow  # making the player solves the centre game (once a process)
def test_it_answers_on_the_rim_and_closes() -> None:
    player = make_player("perfect", GAME)
    # Chaos has just played a1: the answer is O on f6, the other end of the long diagonal.
    rim = GAME.from_position("6/1XXX2/1OO1O1/6/1X4/X5 order")
    assert str(player.choose(rim, random.Random(0))) == "O@f6"
    assert player.info is not None and player.info.route.startswith("perfect: pairing")
    # Four X on b2-e2 and both ends empty: X on an end makes five.
    closing = GAME.from_position("6/6/6/1OOO2/1XXXX1/6 chaos").apply("O@a6")
    move = player.choose(closing, random.Random(0))
    assert closing.apply(move).outcome().winner == "order"  # type: ignore[union-attr]
    assert player.info is not None and player.info.route.startswith("perfect: closing")


# --- whole games (slow: the centre game is solved once a process) ---------------------------------


def play(order: Player, chaos: Player, seed: int) -> tuple[str, int]:
    """Play one game; return the winner and Order's number of moves."""
    rng = random.Random(seed)
    state = GAME.initial_state()
    moves = 0
    while state.outcome() is None:
        if state.to_move == "order":
            moves += 1
            state = state.apply(order.choose(state, rng))
        else:
            state = state.apply(chaos.choose(state, rng))
    outcome = state.outcome()
    assert outcome is not None
    return outcome.winner or "", moves


@pytest.mark.slow
@pytest.mark.parametrize(
    ("chaos", "games"),
    [("random", 30), ("greedy", 10), ("search:depth=2", 4), ("resist:depth=1", 4)],
)
def test_perfect_wins_every_game_as_order(chaos: str, games: int) -> None:
    perfect = make_player("perfect", GAME)
    opponent = make_player(chaos, GAME)
    for seed in range(games):
        winner, moves = play(perfect, opponent, seed)
        assert winner == "order" and moves <= 17, (chaos, seed)
        assert perfect.info is not None and perfect.info.route.startswith("perfect: ")


@pytest.mark.slow
def test_perfect_beats_a_bot_from_a_file() -> None:
    bot = Path(__file__).resolve().parents[2] / "examples" / "custom_bot.py"
    perfect, opponent = make_player("perfect", GAME), make_player(f"{bot}:CentreBot", GAME)
    try:
        for seed in range(2):
            assert play(perfect, opponent, seed)[0] == "order"
    finally:
        opponent.close()


@pytest.mark.slow
def test_perfect_wins_under_the_referee() -> None:
    players = (make_player("perfect", GAME), make_player("greedy", GAME))
    record = Referee(GAME, players, seed=5).play()
    assert record.result is not None and record.result.winner == 1


@pytest.mark.slow
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_perfect_beats_a_chaos_that_plays_anything(data: st.DataObject) -> None:
    perfect = make_player("perfect", GAME)
    state: OrderChaosState = GAME.initial_state()
    moves = 0
    while state.outcome() is None:
        if state.to_move == "order":
            moves += 1
            move = perfect.choose(state, random.Random(0))
            assert perfect.info is not None and perfect.info.route.startswith("perfect: ")
        else:
            move = data.draw(st.sampled_from(state.legal_moves()))
        state = state.apply(move)
    assert state.outcome().winner == "order"  # type: ignore[union-attr]
    assert moves <= 17


@pytest.mark.slow
def test_the_worst_case_is_seventeen_order_moves() -> None:
    """Chaos fills the rim first, each end answered, then plays the centre line the strategy
    takes longest on: Order wins on its 17th move, the bound of the certificate and the
    pairing (7 in the centre and 10 answers; the certificate's tests check the bound); the
    figures' script finds that game (its other figures are the solver's, timed)."""
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "orderchaos_perfect.py"
    spec = importlib.util.spec_from_file_location("orderchaos_perfect", script)
    assert spec is not None and spec.loader is not None
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    game = figures.worst_case_game()
    assert (len(game) + 1) // 2 == 17
    state = GAME.initial_state()
    for move in game:
        assert state.outcome() is None
        state = state.apply(move)
    assert state.outcome() is not None and state.outcome().winner == "order"  # type: ignore[union-attr]


@pytest.mark.slow
def test_on_a_clock_a_centre_search_that_runs_out_of_time_hands_over_to_resist(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Off the solved centre game's tree, whether Order still wins the centre takes seconds to
    search (2.6 s here, the first time a process meets it): on a clock the strategy gets half
    the time left, and then `resist` plays (the player used to take the seconds, whatever its
    clock said). What the search had proven is kept."""
    from abstractgames.solvers import orderchaos

    player = make_player("perfect:depth=1", GAME)
    monkeypatch.setattr(orderchaos, "_CENTRE_SOLVER", orderchaos._CentreSolver())  # not met yet
    state = GAME.from_position("6/1X2OO/3X2/6/6/6 order")
    move = player.choose(state, random.Random(0), time_left=0.02)
    assert move in state.legal_moves()
    assert player.info is not None
    assert player.info.route.startswith("resist (the centre game's search ran out of the time")
    learnt = orderchaos._CENTRE_SOLVER.nodes
    assert learnt > 0
    player.choose(state, random.Random(0))  # no clock: the search goes to its end
    assert player.info.route.startswith("resist (Order does not win the centre game from here)")
