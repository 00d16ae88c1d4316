"""The Gymnasium vector environment on the batched simulators, with the checks of Gymnasium's
environment checker that apply to vector environments."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from abstractgames import InvalidParameterError
from abstractgames.rl.vector import VectorGameEnv

CASES = [
    ("orderchaos", "order", "greedy"),
    ("orderchaos", "chaos", "random"),
    ("entropy:size=5", "order", "greedy"),
    ("entropy", "chaos", "random"),
    ("dispersal:max_plies=40", "S", "random"),
]


def rollout(env: VectorGameEnv, seed: int, steps: int) -> list[object]:
    observations, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out: list[object] = [observations, info]
    for _ in range(steps):
        mask = info["action_mask"].astype(bool)
        picks = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])
        result = env.step(picks)
        out += list(result)
        info = result[4]
    return out


@pytest.mark.parametrize(("game", "role", "opponent"), CASES)
def test_spaces_determinism_and_autoreset(game: str, role: str, opponent: str) -> None:
    env = VectorGameEnv(game, num_envs=6, role=role, opponent=opponent)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    observations, info = env.reset(seed=3)
    assert env.observation_space.contains(observations)
    assert all(env.single_observation_space.contains(row) for row in observations)
    assert info["action_mask"].dtype == np.int8
    assert info["action_mask"].shape == (6, env.single_action_space.n)
    # The same seed replays the same episodes (check_reset_seed_determinism, check_step_...).
    first, second = rollout(env, 11, 60), rollout(env, 11, 60)
    assert all(data_equivalence(a, b) for a, b in zip(first, second, strict=True))
    # Returned arrays are not reused (check_returned_data_not_reused).
    obs_a, *_ = env.step(env.random_legal_actions().clip(0))
    obs_b, *_ = env.step(env.random_legal_actions().clip(0))
    assert obs_a is not obs_b and not np.shares_memory(obs_a, obs_b)


@pytest.mark.parametrize(("game", "role", "opponent"), CASES)
def test_episodes_end_with_the_agents_return_and_restart(
    game: str, role: str, opponent: str
) -> None:
    env = RecordEpisodeStatistics(VectorGameEnv(game, num_envs=4, role=role, opponent=opponent))
    _, info = env.reset(seed=0)
    inner: VectorGameEnv = env.unwrapped  # type: ignore[assignment]
    ended = 0
    restarted_next = np.zeros(4, bool)
    for _ in range(400):
        actions = inner.random_legal_actions().clip(0)
        _, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        assert (rewards[~terminated] == 0).all()
        if restarted_next.any():  # the step after an end: a fresh game, reward 0
            assert (rewards[restarted_next] == 0).all() and not terminated[restarted_next].any()
        assert (info["action_mask"][~terminated].sum(axis=1) > 0).all()
        ended += int(terminated.sum())
        restarted_next = terminated
        if ended >= 6:
            break
    assert ended >= 6
    assert "episode" in info or ended


def test_the_agent_is_always_to_move() -> None:
    env = VectorGameEnv("entropy:size=5", num_envs=5, role="order", opponent="greedy")
    env.reset(seed=2)
    for _ in range(30):
        batch = env.batch
        live = ~batch.done
        assert (batch.to_move[live] == env.agent).all()
        env.step(env.random_legal_actions().clip(0))


def test_bad_options() -> None:
    with pytest.raises(InvalidParameterError):
        VectorGameEnv("orderchaos", role="nobody")
    with pytest.raises(InvalidParameterError):
        VectorGameEnv("orderchaos", opponent="oracle")
    with pytest.raises(InvalidParameterError, match="greedy"):
        VectorGameEnv("dispersal", num_envs=2, opponent="greedy")
