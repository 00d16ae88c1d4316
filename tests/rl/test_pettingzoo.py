"""The PettingZoo environments: PettingZoo's own checks and ours, for every game and variant.

PettingZoo's `max_cycles_test` does not apply: it makes `mod.parallel_env(max_cycles=...)` and
counts the cycles an environment with a `max_cycles` limit runs. These environments are turn-based
AEC environments of finite games (`is_parallelizable` is false) with no cycle limit, as PettingZoo's
classic board games, which that test skips too.
"""

from __future__ import annotations

import pickle
import random
import warnings
from collections.abc import Iterator
from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from abstractgames import (
    CHANCE,
    IllegalMoveError,
    InvalidMoveError,
    InvalidParameterError,
    UnknownGameError,
    parse_game_spec,
    random_move,
)
from abstractgames.rl.games import InvalidSeedError, UnsupportedGameError
from abstractgames.rl.pettingzoo import env, raw_env
from abstractgames.rl.render import cairosvg_available, rgb_frame, text_frame
from tests.conftest import game_specs
from tests.support.toygame import DiceRace

SPECS = game_specs()
"""Every registered game, and the variants with other parameters."""

KNOWN_WARNINGS = (
    # A dict observation with an action mask, as in PettingZoo's classic games, which api_test
    # lists by name and does not warn about.
    "Observation space for each agent probably should be",
    "Observation is not a NumPy array",
    # The agents are the game's roles ("order", "chaos"), not "player_0".
    "We recommend agents to be named in the format",
)


def make(spec: Any, *args: Any, **kwargs: Any) -> Any:
    return env(spec, *args, **kwargs)


def play(game: Any, seed: int, policy: str = "random") -> Iterator[tuple[str, Any]]:
    """Play one game in `game` (a wrapped env): yields `(agent, last())` at every turn."""
    rng = random.Random(seed)
    game.reset(seed=seed)
    for agent in game.agent_iter():
        last = game.last()
        yield agent, last
        observation, _, terminated, truncated, _ = last
        if terminated or truncated:
            game.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        game.step(int(legal[0]) if policy == "first" else rng.choice(legal.tolist()))


# --- PettingZoo's own tests -----------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_api(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(spec), num_cycles=1000)
    unknown = {str(w.message) for w in caught if not str(w.message).startswith(KNOWN_WARNINGS)}
    assert not unknown
    assert "Passed API test" in capsys.readouterr().out


@pytest.mark.parametrize("spec", SPECS)
def test_seed(spec: str) -> None:
    seed_test(partial(make, spec), num_cycles=1000)


@pytest.mark.parametrize("spec", SPECS)
def test_render(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(partial(make, spec))
    assert "to move" in capsys.readouterr().out  # the "human" mode prints the board


def test_the_environments_are_not_parallel() -> None:
    """Why PettingZoo's max_cycles_test does not apply (see the module's docstring)."""
    metadata = make("orderchaos").metadata
    assert metadata["is_parallelizable"] is False and metadata["name"] == "orderchaos_v0"
    assert set(metadata["render_modes"]) == {"human", "ansi", "rgb_array"}


# --- what the environment shows -------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_observations_and_masks_are_the_protocols(spec: str) -> None:
    game = make(spec)
    turns = 0
    for agent, (observation, _, terminated, _, _) in play(game, seed=3):
        state = game.unwrapped.game_state
        assert state.to_move != CHANCE  # no agent is ever asked at a chance node
        assert np.array_equal(observation["observation"], state.observation_tensor(agent))
        for other in game.possible_agents:
            seen = game.observe(other)
            assert seen["observation"].dtype == np.float32
            assert np.array_equal(seen["observation"], state.observation_tensor(other))
            mask = seen["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (state.game.num_distinct_actions,)
            if other == agent and not terminated:
                assert np.flatnonzero(mask).tolist() == list(state.legal_actions())
            else:
                assert not mask.any()
        if not terminated:
            assert agent == state.to_move
            turns += 1
    assert turns > 0


@pytest.mark.parametrize("spec", SPECS)
def test_rewards_come_at_the_end_and_are_the_returns(spec: str) -> None:
    game = make(spec)
    finals = {}
    for agent, (_, reward, terminated, truncated, _) in play(game, seed=5):
        if terminated:
            finals[agent] = reward
        else:
            assert reward == 0 and not truncated
    state = game.unwrapped.game_state
    assert state.is_terminal()
    assert finals == state.returns()
    assert sum(finals.values()) == pytest.approx(0)


@pytest.mark.parametrize("spec", SPECS)
def test_a_seed_replays_the_game_and_its_draws(spec: str) -> None:
    def positions(seed: int) -> list[str]:
        game = make(spec)
        return [game.unwrapped.game_state.position() for _ in play(game, seed, "first")]

    assert positions(11) == positions(11)
    if parse_game_spec(spec).max_chance_outcomes:
        assert positions(11) != positions(12)  # the same moves, other draws


@pytest.mark.parametrize("spec", [s for s in SPECS if parse_game_spec(s).max_chance_outcomes])
def test_chance_is_drawn_as_random_move_draws_it(spec: str) -> None:
    """The draws follow the chance probabilities: they are `random_move`'s with the seed."""
    game = make(spec)
    draws = set()
    for seed in range(30):
        game.reset(seed=seed)
        expected, rng = parse_game_spec(spec).initial_state(), random.Random(seed)
        while expected.is_chance():
            expected = expected.apply(random_move(expected, rng))
        assert game.unwrapped.game_state == expected
        draws.add(expected.position())
    assert len(draws) > 1


def test_without_a_seed_reset_goes_on_with_the_generator() -> None:
    game = make("entropy:size=5")
    game.reset(seed=1)
    first = game.unwrapped.game_state
    starts = set()
    for _ in range(20):
        game.reset()
        starts.add(game.unwrapped.game_state.position())
    game.reset(seed=1)
    assert game.unwrapped.game_state == first
    assert len(starts) > 1


# --- illegal actions and errors -------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_an_illegal_action_ends_the_game_with_a_loss(spec: str) -> None:
    game = make(spec)
    game.reset(seed=2)
    observation, *_ = game.last()
    game.step(
        int(np.flatnonzero(observation["action_mask"])[0])
    )  # every action may be legal at first
    offender = game.agent_selection
    observation, *_ = game.last()
    action = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        game.step(action)
    assert all(game.terminations.values()) and all(game.truncations.values())
    worst = parse_game_spec(spec).returns_range[0]
    assert game.rewards == {a: worst if a == offender else 0 for a in game.possible_agents}
    assert game._cumulative_rewards[offender] == worst
    for _ in game.agent_iter():
        game.step(None)
    assert game.agents == []


def test_the_raw_environment_raises_our_errors() -> None:
    game = raw_env("orderchaos")
    game.reset(seed=0)
    game.step(0)
    with pytest.raises(IllegalMoveError, match="occupied"):
        game.step(0)
    with pytest.raises(InvalidMoveError, match="integer"):
        game.step("X@a1")
    with pytest.raises(InvalidMoveError, match=r"not in 0\.\.71"):
        game.step(72)
    game.step(np.int64(3))  # any integer type
    assert game.unwrapped.game_state.position() == "6/6/6/6/6/XO4 order"


def test_a_state_before_reset_is_an_error() -> None:
    with pytest.raises(IllegalMoveError, match="reset"):
        raw_env("orderchaos").game_state  # noqa: B018


@pytest.mark.parametrize(
    ("args", "params", "error", "message"),
    [
        (("nosuchgame",), {}, UnknownGameError, "unknown game 'nosuchgame'; available games"),
        (("entropy",), {"size": 6}, InvalidParameterError, "size=6"),
        (("entropy",), {"colours": 3}, InvalidParameterError, "no parameter 'colours'"),
        (("entropy:size=5",), {"size": 5}, InvalidParameterError, "given twice"),
        (("entropy:size",), {}, InvalidParameterError, "size"),
        ((3,), {}, UnknownGameError, "a game is a name"),
        (("orderchaos", "3d"), {}, InvalidParameterError, "render_mode"),
        ((DiceRace(),), {}, UnsupportedGameError, "dicerace has no integer actions"),
        ((parse_game_spec("orderchaos"),), {"size": 5}, InvalidParameterError, "by its name"),
    ],
)
def test_bad_games_and_parameters_are_our_errors(
    args: tuple[Any, ...], params: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        make(*args, **params)


def test_a_game_is_given_by_name_spec_or_game() -> None:
    by_spec = make("entropy:size=5").unwrapped.game
    assert by_spec == make("entropy", size=5).unwrapped.game == parse_game_spec("entropy:size=5")
    assert make(by_spec).unwrapped.game is by_spec
    assert make("Dispersal", max_plies=100).unwrapped.game.params == {"max_plies": 100}


# --- rendering ------------------------------------------------------------------------------------


def test_ansi_is_the_text_board_with_who_moves_and_the_last_moves() -> None:
    game = make("entropy:size=5", render_mode="ansi")
    game.reset(seed=4)
    state = game.unwrapped.game_state
    text = game.render()
    assert text.startswith(str(state).rstrip("\n"))
    assert "chaos to move" in text and text.split("\n")[-1] in state.describe()
    assert text == text_frame(state, game.unwrapped._last)
    draw = text.split("last: ")[1].split("\n")[0]
    assert parse_game_spec("entropy:size=5").initial_state().apply(draw)  # the draw was legal


def test_human_mode_prints_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    game = make("orderchaos", render_mode="human")
    game.reset(seed=0)
    game.step(0)
    assert game.render() is None
    printed = capsys.readouterr().out
    assert printed.count("order to move") == 1 and printed.count("last: X@a1") == 2


def test_render_without_a_mode_warns_and_returns_nothing() -> None:
    game = make("orderchaos")
    game.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert game.render() is None
    assert any("render_mode" in str(w.message) for w in caught)


@pytest.mark.parametrize("spec", SPECS)
def test_the_numpy_picture_shows_the_pieces(spec: str) -> None:
    state = parse_game_spec(spec).initial_state()
    rng = random.Random(1)
    before = rgb_frame(state, size=12, backend="numpy")
    while state.cells() == parse_game_spec(spec).initial_state().cells():
        state = state.apply(random_move(state, rng))
    after = rgb_frame(state, size=12, backend="numpy")
    width = state.game.board_width
    height = len(state.cells()) // width
    assert after.dtype == np.uint8 and after.shape == (12 * height + 6, 12 * width + 6, 3)
    assert before.shape == after.shape and not np.array_equal(before, after)


def test_the_numpy_picture_tells_pieces_apart() -> None:
    """X and O have no colour: rings in two colours; a coloured piece is a disc of its colour."""
    x = parse_game_spec("orderchaos").from_position("X5/6/6/6/6/6 chaos")
    o = parse_game_spec("orderchaos").from_position("O5/6/6/6/6/6 chaos")
    frame_x, frame_o = (rgb_frame(s, size=20, backend="numpy") for s in (x, o))
    assert not np.array_equal(frame_x, frame_o)
    entropy = parse_game_spec("entropy:size=5").from_position("R4/5/5/5/5 order")  # R on a5
    square = rgb_frame(entropy, size=20, backend="numpy")[5:25, 5:25]  # the top left
    assert (square == (0xEF, 0x5B, 0x3A)).all(axis=2).any()  # the red of the pictures


def test_bad_picture_arguments() -> None:
    state = parse_game_spec("orderchaos").initial_state()
    with pytest.raises(ValueError, match="backend"):
        rgb_frame(state, backend="pygame")
    with pytest.raises(ValueError, match="size"):
        rgb_frame(state, size=0)


@pytest.mark.skipif(not cairosvg_available(), reason="CairoSVG is not installed here")
def test_the_cairosvg_picture_is_the_svg() -> None:
    state = parse_game_spec("entropy:size=5").from_position("R4/5/5/5/5 order")
    frame = rgb_frame(state, size=20, backend="cairosvg")
    assert frame.dtype == np.uint8 and frame.shape == (112, 112, 3)  # the SVG's 560 units
    assert np.array_equal(frame, rgb_frame(state, size=20))  # "auto" uses it here


def test_the_raw_environment_pickles() -> None:
    game = raw_env("entropy", size=5, render_mode="ansi")
    copy = pickle.loads(pickle.dumps(game))
    assert copy.game == game.game and copy.render_mode == "ansi"


# --- misuse: our errors, never AttributeError or KeyError -----------------------------------------

BAD_SEEDS = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=2**64),
    st.floats(),
    st.text(max_size=3),
    st.booleans(),
    st.binary(max_size=2),
    st.just(np.float64(3.0)),
)
"""What `reset(seed=...)` refuses: a seed is None or an integer from 0 to 2**64 - 1."""


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=BAD_SEEDS)
def test_a_seed_is_none_or_an_integer_from_0_below_2_to_the_64(seed: object) -> None:
    game = raw_env("orderchaos")
    with pytest.raises(InvalidSeedError, match=r"^a seed is None or an integer from 0 to 2\*\*64"):
        game.reset(seed=seed)  # type: ignore[arg-type]
    with pytest.raises(InvalidSeedError):
        env("orderchaos").reset(seed=seed)  # type: ignore[arg-type]


def test_numpy_integers_and_the_largest_seed_are_seeds() -> None:
    def draws(seed: object) -> list[str]:
        game = raw_env("entropy", size=5)
        game.reset(seed=seed)  # type: ignore[arg-type]
        return [game.game_state.position()]

    assert draws(np.int64(5)) == draws(np.uint8(5)) == draws(5)
    draws(2**64 - 1)
    assert isinstance(InvalidSeedError("x"), InvalidParameterError)


def test_misuse_of_the_raw_environment_is_our_error() -> None:
    """Stepping or asking `last()` before `reset()`, naming an agent the game does not have,
    and stepping after every agent has left the finished game: our errors, each saying what to
    do, where PettingZoo's `AECEnv` raised `AttributeError` or `KeyError`."""
    game = raw_env("orderchaos")
    for call in (lambda: game.step(0), game.last, lambda: game.observe("order")):
        with pytest.raises(IllegalMoveError, match=r"call reset\(\) first"):
            call()
    game.reset(seed=0)
    for call in (game.action_space, game.observation_space, game.observe):
        with pytest.raises(InvalidParameterError, match="'nobody' is not an agent of orderchaos"):
            call("nobody")
    with pytest.raises(InvalidParameterError, match=r"^\[1\] is not an agent"):
        game.action_space([1])  # type: ignore[arg-type]  # not even hashable
    with pytest.raises(InvalidParameterError, match=r"^\[1\] is not an agent"):
        game.observe([1])  # type: ignore[arg-type]
    for _agent in game.agent_iter():
        observation, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            with pytest.raises(ValueError, match="only valid action is None"):  # PettingZoo's
                game.step(0)
            game.step(None)
        else:
            game.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert game.agents == []
    for call in (lambda: game.step(None), lambda: game.step(0), game.last):
        with pytest.raises(IllegalMoveError, match=r"game is over .* call reset\(\)"):
            call()
    assert game.observe("order")["action_mask"].sum() == 0  # observing stays possible
    game.reset(seed=1)
    assert game.last()[2] is False


@pytest.mark.parametrize("spec", ["orderchaos", "entropy:size=5"])
def test_the_api_test_passes_after_the_checks(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """PettingZoo's `api_test` on the unwrapped environment too, with its own misuse checks."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(raw_env(spec), num_cycles=200)
    assert "Passed API test" in capsys.readouterr().out


def test_the_wrapped_env_refuses_a_step_after_the_end() -> None:
    """PettingZoo's order wrapper only warns of a step once every agent is done; ours refuses
    it, as the raw environment does."""
    game = env("orderchaos")
    game.reset(seed=1)
    for _ in game.agent_iter():
        observation, _, terminated, truncated, _ = game.last()
        assert observation is not None
        done = terminated or truncated
        game.step(None if done else int(np.flatnonzero(observation["action_mask"])[0]))
    assert game.agents == []
    with pytest.raises(IllegalMoveError, match=r"call reset\(\) to start another"):
        game.step(0)
    game.reset(seed=2)
    assert game.agents  # a new game steps again
