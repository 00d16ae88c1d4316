"""The players built on a solver (`proven`, `resist`, in `abstractgames.registry.solved`):
their proven moves agree with a plain minimax, and without a proof they are the search bot."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from abstractgames import get_game, make_player, parse_game_spec
from abstractgames.orderchaos import OrderChaosState
from abstractgames.players import InvalidPlayerError
from abstractgames.registry.games import proven_moves_for
from abstractgames.registry.solved import SolverPlayer
from tests.conftest import examples
from tests.solvers.test_orderchaos import fewest, positions

GAME = get_game("orderchaos")


def holds(state: OrderChaosState) -> bool:
    """Whether Chaos has won or holds in `state` (by the plain minimax)."""
    outcome = state.outcome()
    return outcome.winner == "chaos" if outcome is not None else fewest(state) is None


def test_only_games_with_proven_moves_have_them() -> None:
    assert proven_moves_for(GAME) is not None
    assert proven_moves_for(get_game("entropy")) is None
    assert proven_moves_for(get_game("dispersal")) is None


@settings(max_examples=examples(15))
@given(positions(max_empty=8))
def test_proven_plays_the_fastest_win(state: OrderChaosState) -> None:
    player = make_player("proven:depth=1", GAME)
    assert isinstance(player, SolverPlayer)
    move = player.choose(state, random.Random(0))
    expected = fewest(state)
    after = state.apply(move)
    if state.to_move == "chaos":
        if expected is None:  # a hold, played as proven
            assert player.proven is not None and player.proven.winner == "chaos"
            assert holds(after)
        else:  # a loss: left to the search bot
            assert player.proven is None
        return
    if expected is None:  # Order loses whatever it does: the search bot
        assert player.proven is None
        return
    assert player.proven is not None and player.proven.moves == expected
    if expected == 1:
        assert after.outcome() is not None and after.outcome().winner == "order"  # type: ignore[union-attr]
    else:
        assert fewest(after) == expected - 1
    assert player.info is not None and player.info.mate_in == 2 * expected - 1


@settings(max_examples=examples(15))
@given(positions(max_empty=8))
def test_resist_puts_the_loss_off_longest(state: OrderChaosState) -> None:
    player = make_player("resist:depth=1", GAME)
    move = player.choose(state, random.Random(0))
    expected = fewest(state)
    after = state.apply(move)
    if state.to_move == "order" and expected is None:
        assert player.proven is None  # every move loses alike: the search bot plays
        return
    assert player.proven is not None  # every position this small is proven
    if state.to_move == "order":
        assert player.proven.moves == expected
        return
    if expected is None:  # Chaos holds, and keeps holding
        assert holds(after)
        return
    # Order wins in `expected`: no reply of Chaos puts it off longer, and this one does not
    # shorten it.
    assert player.proven.moves == expected
    assert player.info is not None and player.info.mate_in == -2 * expected
    if expected == 0:
        assert after.outcome() is not None
    else:
        assert after.outcome() is None and fewest(after) == expected


def test_far_from_the_end_both_are_the_search_bot() -> None:
    state = GAME.initial_state().apply("X@c3").apply("O@d4")
    for name in ("proven", "resist"):
        player = make_player(f"{name}:depth=2", GAME)
        search = make_player("search:depth=2", GAME)
        assert player.choose(state, random.Random(3)) == search.choose(state, random.Random(3))
        assert player.proven is None
        assert player.info is not None and search.info is not None
        assert (player.info.depth, player.info.nodes) == (search.info.depth, search.info.nodes)


def test_a_tiny_budget_falls_back_to_the_search_bot() -> None:
    state = GAME.from_position("X1O1XX/OO1O2/XX3X/1OXX1O/XO2O1/2O1XX order")  # 15 empty
    player = make_player("resist:depth=1,nodes=1,reach=72", GAME)
    player.choose(state, random.Random(0))
    assert player.proven is None
    generous = make_player("proven:depth=1,nodes=1000000,reach=72", GAME)
    generous.choose(state, random.Random(0))
    assert generous.proven is None  # a hold: Order's every move loses alike; the search bot
    assert generous.info is not None


@pytest.mark.parametrize("game", ["entropy:size=5", "dispersal"])
def test_games_without_proven_moves_get_the_search_bot(game: str) -> None:
    the_game = parse_game_spec(game)
    state = the_game.initial_state()
    while state.is_chance():
        state = state.apply(state.legal_moves()[0])
    for name in ("proven", "resist"):
        player = make_player(f"{name}:depth=1", the_game)
        search = make_player("search:depth=1", the_game)
        assert player.choose(state, random.Random(1)) == search.choose(state, random.Random(1))
        assert player.proven is None


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("proven:nodes=0", "nodes=0 must be a whole number from 1"),
        ("resist:reach=-1", "reach=-1 must be a whole number from 0"),
        ("resist:nodes=1.5", "nodes=1.5 must be a whole number"),
        ("proven:depth=0", "depth=0"),
    ],
)
def test_bad_options(spec: str, message: str) -> None:
    with pytest.raises(InvalidPlayerError, match=message):
        make_player(spec, GAME)
