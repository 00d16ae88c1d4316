"""Players: legal, reproducible, non-mutating, named by specs; greedy's tactics."""

from __future__ import annotations

import random

import pytest

from abstractgames import (
    IllegalMoveError,
    available_players,
    get_game,
    make_player,
    register_player,
)
from abstractgames.players import InvalidPlayerError, Player
from abstractgames.registry import _players as registered_players


def test_players_refuse_finished_games() -> None:
    game = get_game("orderchaos")
    over = game.from_position("6/6/6/6/6/XXXXX1 chaos")
    for name in ("random", "greedy"):
        with pytest.raises(IllegalMoveError, match="no move to choose"):
            make_player(name, game).choose(over, random.Random(0))


def test_player_specs() -> None:
    game = get_game("orderchaos")
    assert {"random", "greedy"} <= set(available_players())
    assert make_player("random", game).spec == "random"
    assert make_player(" Greedy ", game).spec == "Greedy"
    with pytest.raises(InvalidPlayerError, match="unknown player 'alphazero'; available players"):
        make_player("alphazero", game)
    with pytest.raises(InvalidPlayerError, match="has no option 'depth'; its options: none"):
        make_player("greedy:depth=3", game)
    with pytest.raises(InvalidPlayerError, match="use key=value"):
        make_player("random:fast", game)


def test_register_your_own_player() -> None:
    class FirstMove(Player):
        def __init__(self, game: object, offset: int = 0) -> None:
            self.offset = offset

        def choose(self, state, rng, time_left=None):  # type: ignore[no-untyped-def]
            return state.legal_moves()[self.offset]

    register_player("first", FirstMove)
    try:
        player = make_player("first:offset=1", get_game("orderchaos"))
        assert str(player.choose(get_game("orderchaos").initial_state(), random.Random())) == "O@a1"
    finally:
        registered_players.pop("first")


def test_greedy_order_and_chaos_tactics() -> None:
    game = get_game("orderchaos")
    greedy = make_player("greedy", game)
    rng = random.Random(0)
    # Order completes five at once (either end of the open four).
    win = game.from_position("6/6/6/6/OO4/1XXXX1 order")
    assert str(greedy.choose(win, rng)) in ("X@a1", "X@f1")
    # Chaos spoils a four that Order would complete next move.
    block = game.from_position("6/6/6/6/O5/XXXX2 chaos")
    assert str(greedy.choose(block, rng)) == "O@e1"


def test_greedy_beats_random_at_order_and_chaos() -> None:
    """A smoke check of strength (the measured figures live in the docs, not in tests)."""
    game = get_game("orderchaos")
    rng = random.Random(11)
    wins = 0
    for _ in range(10):
        state = game.initial_state()
        seats = {"order": make_player("greedy", game), "chaos": make_player("random", game)}
        while state.to_move is not None:
            state = state.apply(seats[state.to_move].choose(state, rng))
        wins += state.outcome().winner == "order"  # type: ignore[union-attr]
    assert wins >= 9
