"""The Gymnasium environments: Gymnasium's checker and ours, for every game, variant and role."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from abstractgames import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidParameterError,
    Move,
    State,
    UnknownGameError,
    available_games,
    parse_game_spec,
)
from abstractgames.players import InvalidPlayerError, Player, RandomPlayer
from abstractgames.rl.games import InvalidSeedError
from abstractgames.rl.gymnasium import AbstractGamesEnv, env_id, register_envs
from abstractgames.specs import parse_options, split_spec
from tests.conftest import game_specs

SPECS = game_specs()
"""Every registered game, and the variants with other parameters."""
CASES = [(spec, role) for spec in SPECS for role in parse_game_spec(spec).roles]
"""Every game and variant with each of its roles."""


def make(spec: str, **kwargs: Any) -> Any:
    """`gymnasium.make` of the game `spec` (a name with options)."""
    name, options = split_spec(spec)
    return gymnasium.make(env_id(name), **parse_options(options), **kwargs)


def episode(env: Any, seed: int | None, policy: str = "random") -> Iterator[tuple[Any, ...]]:
    """Play one episode, yielding `(observation, reward, terminated, truncated, info)` after
    `reset` (reward 0) and after every step."""
    rng = random.Random(seed)
    observation, info = env.reset(seed=seed)
    yield observation, 0.0, False, False, info
    terminated = False
    while not terminated:
        legal = np.flatnonzero(info["action_mask"])
        action = int(legal[0]) if policy == "first" else rng.choice(legal.tolist())
        observation, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        yield observation, reward, terminated, truncated, info


# --- Gymnasium's checker --------------------------------------------------------------------------


@pytest.mark.parametrize(("spec", "role"), CASES)
def test_check_env(spec: str, role: str, capsys: pytest.CaptureFixture[str]) -> None:
    made = make(spec, role=role)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(made.unwrapped)  # with a spec, it tries every render mode too
    assert [str(w.message) for w in caught] == []
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "(?s).*is different from the unwrapped version")
        check_env(made)
    assert "to move" in capsys.readouterr().out  # the "human" render mode printed


def test_every_game_has_an_id() -> None:
    for name in available_games():
        assert env_id(name) in gymnasium.registry
    assert register_envs() == ()  # all there already


def test_the_module_can_be_named_in_the_id() -> None:
    made = gymnasium.make("abstractgames.rl.gymnasium:abstractgames/orderchaos-v0")
    assert isinstance(made.unwrapped, AbstractGamesEnv)


def test_parameters_role_and_opponent_pass_through_make() -> None:
    made = gymnasium.make("abstractgames/entropy-v0", size=5, role="chaos", opponent="greedy")
    env = made.unwrapped
    assert env.game == parse_game_spec("entropy:size=5") and env.role == "chaos"
    assert env.opponent.spec == "greedy"
    assert env.observation_space == gymnasium.spaces.Box(0, 1, (18, 5, 5), np.float32)
    assert env.action_space == gymnasium.spaces.Discrete(env.game.num_distinct_actions)


# --- what the environment shows -------------------------------------------------------------------


@pytest.mark.parametrize(("spec", "role"), CASES)
def test_observations_masks_and_rewards_are_the_protocols(spec: str, role: str) -> None:
    env = make(spec, role=role).unwrapped
    steps = 0
    for observation, reward, terminated, _, info in episode(env, seed=7):
        state = env.game_state
        assert np.array_equal(observation, state.observation_tensor(role))
        assert info["action_mask"].dtype == np.int8
        if terminated:
            assert reward == state.returns()[role] and not info["action_mask"].any()
        else:
            assert state.to_move == role  # the opponent and chance have played up to the agent
            assert np.flatnonzero(info["action_mask"]).tolist() == list(state.legal_actions())
            assert reward == 0
        steps += 1
    assert env.game_state.is_terminal() and steps > 1


@pytest.mark.parametrize("spec", SPECS)
def test_a_seed_replays_the_episode(spec: str) -> None:
    """The opponent's choices and the draws come from generators seeded by `reset`."""

    def positions(seed: int | None, env: Any = None) -> list[str]:
        env = env or make(spec, role=parse_game_spec(spec).roles[-1]).unwrapped
        return [env.game_state.position() for _ in episode(env, seed, "first")]

    assert positions(5) == positions(5)
    assert positions(5) != positions(6)
    env = make(spec).unwrapped
    first, second = positions(8, env), positions(None, env)  # reset() goes on from the seed
    assert positions(8, env) == first and positions(None, env) == second


def test_the_opponent_moves_first_when_the_agent_plays_second() -> None:
    env = make("orderchaos", role="chaos").unwrapped
    observation, info = env.reset(seed=0)
    assert env.game_state.position().count("X") + env.game_state.position().count("O") == 1
    assert observation[3].sum() == 0  # plane 4: Order to move, all zeros
    assert info["action_mask"].sum() == 70


class Recorder(Player):
    """A random player that records what it is told."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        return rng.choice(state.legal_moves())

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        self.events.append(("started", seat))

    def move_played(self, move: Move, state: State) -> None:
        self.events.append(("played", str(move)))

    def game_ended(self, state: State) -> None:
        self.events.append(("ended", state.position()))

    def close(self) -> None:
        self.events.append(("closed", None))


@pytest.mark.parametrize(("role", "seat"), [("order", 1), ("chaos", 2)])  # Chaos starts
def test_the_opponent_is_told_the_game_as_by_the_referee(role: str, seat: int) -> None:
    recorder = Recorder()
    env = AbstractGamesEnv("entropy", size=5, role=role, opponent=recorder)
    list(episode(env, seed=3))
    env.close()
    final = env.game_state
    played = [text for event, text in recorder.events if event == "played"]
    replayed = env.game.initial_state()
    for text in played:
        replayed = replayed.apply(text)  # every ply, chance events included, in order
    assert replayed == final
    assert recorder.events[0] == ("started", seat)
    assert recorder.events[-2:] == [("ended", final.position()), ("closed", None)]


def test_a_player_object_is_an_opponent() -> None:
    game = parse_game_spec("orderchaos")
    env = AbstractGamesEnv(game, opponent=RandomPlayer(game))
    assert [step[2] for step in episode(env, seed=1)][-1] is True


@pytest.mark.parametrize("spec", SPECS)
def test_sampled_actions_never_raise(spec: str) -> None:
    """Any action of the action space, legal or not, is a step: illegal ones end the episode."""
    env = make(spec).unwrapped
    env.action_space.seed(0)
    ends = set()
    for seed in range(5):
        env.reset(seed=seed)
        terminated = False
        while not terminated:
            _, _, terminated, _, info = env.step(env.action_space.sample())
        ends.add(info.get("illegal_action", False))
    assert True in ends


@pytest.mark.parametrize(("spec", "role"), CASES)
def test_an_illegal_action_ends_the_episode_with_the_worst_return(spec: str, role: str) -> None:
    env = make(spec, role=role).unwrapped
    _, info = env.reset(seed=1)
    if info["action_mask"].all():
        _, _, _, _, info = env.step(0)
    before = env.game_state
    action = int(np.flatnonzero(info["action_mask"] == 0)[0])
    observation, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (env.game.returns_range[0], True, False)
    assert info["illegal_action"] is True and not info["action_mask"].any()
    assert env.game_state is before and np.array_equal(observation, before.observation_tensor(role))
    with pytest.raises(IllegalMoveError, match="reset"):
        env.step(action)
    env.reset(seed=1)
    assert env.game_state.to_move == role


# --- errors ---------------------------------------------------------------------------------------


def test_bad_arguments_are_our_errors() -> None:
    with pytest.raises(InvalidParameterError, match="'south' is not a role of orderchaos"):
        gymnasium.make("abstractgames/orderchaos-v0", role="south")
    with pytest.raises(InvalidPlayerError, match="unknown player 'nobody'"):
        gymnasium.make("abstractgames/orderchaos-v0", opponent="nobody")
    with pytest.raises(InvalidPlayerError, match="no option 'speed'"):
        gymnasium.make("abstractgames/orderchaos-v0", opponent="random:speed=3")
    with pytest.raises(InvalidParameterError, match="no parameter 'size'"):
        gymnasium.make("abstractgames/orderchaos-v0", size=5)
    with pytest.raises(InvalidParameterError, match="size=4"):
        gymnasium.make("abstractgames/entropy-v0", size=4)
    with pytest.raises(UnknownGameError, match="unknown game 'chess'"):
        AbstractGamesEnv("chess")
    with pytest.raises(InvalidParameterError, match="render_mode"):
        AbstractGamesEnv("orderchaos", render_mode="window")


def test_steps_out_of_order_and_actions_of_the_wrong_kind_are_errors() -> None:
    env = AbstractGamesEnv("orderchaos")
    with pytest.raises(IllegalMoveError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(InvalidMoveError, match="integer"):
        env.step("X@a1")
    with pytest.raises(InvalidMoveError, match="not in"):
        env.step(72)
    env.step(np.int32(0))  # any integer type
    assert env.game_state.cells()[0] == "X"


def test_render_modes() -> None:
    env = AbstractGamesEnv("orderchaos", render_mode="ansi", opponent="random")
    env.reset(seed=2)
    env.step(0)
    text = env.render()
    assert text.startswith(str(env.game_state).rstrip("\n"))
    assert "order to move" in text and "last: X@a1 " in text  # the agent's move, then the reply
    env = AbstractGamesEnv("orderchaos", render_mode="rgb_array")
    env.reset(seed=2)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


@pytest.mark.parametrize("seed", [-1, 1.5, "x", True, 2**64, np.float64(3.0), b"\x01"], ids=repr)
def test_a_seed_is_none_or_an_integer_from_0_below_2_to_the_64(seed: object) -> None:
    """As the PettingZoo and vector environments: Gymnasium itself took `True` and 2**70."""
    env = AbstractGamesEnv("orderchaos")
    with pytest.raises(InvalidSeedError, match=r"^a seed is None or an integer from 0 to 2\*\*64"):
        env.reset(seed=seed)  # type: ignore[arg-type]


def test_numpy_integer_seeds_are_seeds() -> None:
    first = AbstractGamesEnv("entropy", size=5).reset(seed=np.int64(4))[0]
    assert np.array_equal(first, AbstractGamesEnv("entropy", size=5).reset(seed=4)[0])
    AbstractGamesEnv("orderchaos").reset(seed=2**64 - 1)


@pytest.mark.parametrize(
    "action", [1.9, 2.0, float("nan"), float("inf"), -1, -2, True, None, 2**64], ids=repr
)
def test_what_is_not_an_action_is_refused_and_changes_nothing(action: object) -> None:
    """No rounding, no skip: the single environment has no `-1` (that is the vector one's)."""
    env = AbstractGamesEnv("orderchaos")
    env.reset(seed=0)
    before = env.game_state
    with pytest.raises(InvalidMoveError, match=r"integer|not in 0\.\.71"):
        env.step(action)  # type: ignore[arg-type]
    assert env.game_state is before
    env.step(0)  # and the episode goes on
