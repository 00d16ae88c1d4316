"""The greedy player (`abstractgames.players.greedy`): its tactics, and a smoke check of its
strength."""

from __future__ import annotations

import random

from abstractgames import get_game, make_player


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
