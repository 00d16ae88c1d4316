"""The Gymnasium vector environment on the batched simulators, with the checks of Gymnasium's
environment checker that apply to vector environments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import IllegalMoveError, InvalidMoveError, InvalidParameterError
from abstractgames.rl.games import InvalidSeedError
from abstractgames.rl.vector import VectorGameEnv
from abstractgames.text import value_excerpt

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


# --- what is not an action, and seeds -------------------------------------------------------------


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    bad=st.one_of(
        st.floats().filter(lambda x: not (math.isfinite(x) and x.is_integer())),
        st.integers(max_value=-2),
        st.integers(min_value=72),
        st.text(max_size=2),
    ),
    lane=st.integers(0, 3),
)
def test_actions_that_are_not_actions_are_refused_naming_the_environment(
    bad: object, lane: int
) -> None:
    """1.9 was played as 1, NaN and -2 as "no move": each is now an `InvalidMoveError` naming
    the environment's index (its lane) and the value, and no game has changed."""
    env = VectorGameEnv("orderchaos", num_envs=4, role="order")
    env.reset(seed=lane)
    before = [state.position() for state in env.batch.to_states()]
    actions: list[object] = [int(a) for a in env.random_legal_actions()]
    actions[lane] = bad
    with pytest.raises(InvalidMoveError, match=rf"^action .* in lane {lane} ") as raised:
        env.step(actions)
    assert value_excerpt(bad) in str(raised.value)
    assert [state.position() for state in env.batch.to_states()] == before
    env.step(env.random_legal_actions())  # and the games go on


def test_illegal_skipped_and_restarting_environments() -> None:
    env = VectorGameEnv("orderchaos", num_envs=3, role="order")
    env.reset(seed=0)
    env.step([0, 0, 0])
    legal = env.random_legal_actions()
    with pytest.raises(IllegalMoveError, match=r"^illegal action 0 in lane 1$"):  # occupied
        env.step([legal[0], 0, legal[2]])
    with pytest.raises(InvalidMoveError, match=r"^action True in lane 0 is not an integer$"):
        env.step(np.array([True, True, True]))  # booleans are not integers
    before = env.batch.to_states()[1].position()
    legal = env.random_legal_actions()
    env.step(np.array([[legal[0]], [-1], [legal[2]]], np.float64))  # (num_envs, 1); -1 skips
    assert env.batch.to_states()[1].position() == before
    # A finished game ignores the action of the step that restarts it, but not a NaN.
    while not env.batch.done.any():
        env.step(env.random_legal_actions())
    done = int(np.flatnonzero(env.batch.done)[0])
    actions = env.random_legal_actions().clip(0)
    actions[done] = 500
    with pytest.raises(InvalidMoveError, match=rf"in lane {done} is not an integer"):
        env.step(np.where(np.arange(3) == done, np.nan, actions))
    _, rewards, terminated, _, _ = env.step(actions)
    assert rewards[done] == 0 and not terminated[done]


@pytest.mark.parametrize("seed", [-1, 1.5, "x", True, 2**64, [3, -1]], ids=repr)
def test_a_seed_is_none_or_an_integer_from_0_below_2_to_the_64(seed: object) -> None:
    env = VectorGameEnv("orderchaos", num_envs=2)
    with pytest.raises(InvalidSeedError, match=r"^a seed is None or an integer from 0 to 2\*\*64"):
        env.reset(seed=seed)  # type: ignore[arg-type]
    first, _ = env.reset(seed=np.int64(3))  # type: ignore[arg-type]
    again, _ = env.reset(seed=3)
    assert np.array_equal(first, again)


def test_a_step_before_reset_is_refused() -> None:
    env = VectorGameEnv("orderchaos", num_envs=2)
    with pytest.raises(IllegalMoveError, match=r"call reset\(\) first"):
        env.step(np.zeros(2, np.int64))
    env.reset(seed=1)
    env.step(env.random_legal_actions())  # then it steps


@pytest.mark.parametrize("count", [0, -1, 10**12, 2.5, True, "8", None])
def test_a_number_of_environments_out_of_range_is_our_own_error(count: object) -> None:
    with pytest.raises(InvalidParameterError, match="num_envs"):
        VectorGameEnv("orderchaos", num_envs=count)  # type: ignore[arg-type]
