"""Entropy in a batch (`abstractgames.vector.entropy`): its score-gain policy draws from the
moves the scalar greedy player draws from."""

from __future__ import annotations

import numpy as np
import pytest

from abstractgames import State, get_game
from abstractgames.vector.entropy import EntropyBatch, score_gain_actions
from tests.support.batches import best_moves


def order_score(state: State, role: str) -> float:
    score = float(state.score())  # type: ignore[attr-defined]
    return score if role == "order" else -score


@pytest.mark.parametrize("size", [7, 5])
def test_entropy_score_gain_greedy_matches_the_scalar_greedy(size: int) -> None:
    game = get_game("entropy", size=size)
    batch = EntropyBatch(4, seed=size, game=game)  # type: ignore[arg-type]
    rng = np.random.default_rng(size)
    while not batch.done.all():
        actions = score_gain_actions(batch, rng)
        for lane, state in enumerate(batch.to_states()):
            if state.outcome() is None:
                assert int(actions[lane]) in best_moves(state, order_score)
        batch.step(np.where(rng.random(4) < 0.5, actions, batch.random_actions()))
