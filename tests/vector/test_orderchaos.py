"""Order and Chaos in a batch (`abstractgames.vector.orderchaos`): its greedy policy draws from
the moves the scalar greedy player draws from."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import get_game
from abstractgames.registry import evaluation_for
from abstractgames.vector.orderchaos import OrderChaosBatch, greedy_actions
from tests.support.batches import best_moves


@settings(max_examples=10, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**16))
def test_orderchaos_greedy_matches_the_scalar_greedy(seed: int) -> None:
    game = get_game("orderchaos")
    evaluate = evaluation_for(game)
    batch = OrderChaosBatch(6, seed=seed)
    rng = np.random.default_rng(seed)
    while not batch.done.all():
        actions = greedy_actions(batch, rng)
        for lane, state in enumerate(batch.to_states()):
            if state.outcome() is None:
                assert int(actions[lane]) in best_moves(state, evaluate)
        # Mix in random moves so that the positions are not all greedy's own.
        batch.step(np.where(rng.random(6) < 0.5, actions, batch.random_actions()))
