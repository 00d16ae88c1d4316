"""PettingZoo AEC environments of the games, in the manner of PettingZoo's classic environments.

[`env`][] makes one, wrapped as `pettingzoo.classic` wraps its games; [`raw_env`][] is the
environment alone. The agents are the game's roles (`"order"`, `"chaos"`). Each observation is a
dict: `"observation"`,
[`State.observation_tensor`][abstractgames.protocol.State.observation_tensor] of the agent
(`float32` in `[0, 1]`, of `Game.observation_shape`), and `"action_mask"`, an `int8` array of
`Game.num_distinct_actions` with 1 for each legal action of the agent to move (all 0 for the
other agents). Actions are the game's integer actions (`Discrete`).

Rewards come only at the end: each agent gets its
[`State.returns`][abstractgames.protocol.State.returns] (Order and Chaos and dispersal Entropy: 1
for a win, -1 for a loss, 0 for a draw; Entropy: Order's score on a scale from 0 to 1, and its
negative for Chaos). Chance events (Entropy's draws) are resolved inside
the environment, by their probabilities, with a `random.Random` seeded by `reset(seed=...)`, so a
seed replays the game; no agent is ever asked at a chance node.

An illegal action, in [`env`][], ends the game at once: the offender gets the lowest return of the
game (`Game.returns_range[0]`, -1 for the built-in games), the others 0, and every agent's
termination and truncation are both true (PettingZoo's `TerminateIllegalWrapper`). A
[`raw_env`][] raises [`IllegalMoveError`][abstractgames.IllegalMoveError] instead.

Examples:
    >>> from abstractgames.rl.pettingzoo import env
    >>> game = env("entropy", size=5)
    >>> game.reset(seed=42)
    >>> for agent in game.agent_iter():
    ...     observation, reward, terminated, truncated, info = game.last()
    ...     if terminated or truncated:
    ...         action = None
    ...     else:
    ...         action = game.action_space(agent).sample(observation["action_mask"])
    ...     game.step(action)
    >>> game.unwrapped.game_state.is_terminal()
    True
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..protocol import Game, IllegalMoveError, InvalidParameterError, Move, State, random_move
from ..text import value_excerpt
from . import render
from .games import action_mask, check_seed, learning_game

__all__ = ["env", "raw_env"]


def env(game: str | Game, render_mode: str | None = None, **params: Any) -> AECEnv:
    """The AEC environment of a game, wrapped as PettingZoo's classic environments are.

    The wrappers end the game on an illegal action (`TerminateIllegalWrapper`), assert that
    actions are in the action space (`AssertOutOfBoundsWrapper`) and that the methods are called
    in order (`OrderEnforcingWrapper`, which here also refuses a step once every agent is done,
    with an [`IllegalMoveError`][abstractgames.IllegalMoveError]).

    Args:
        game: a game name, a spec such as `"entropy:size=5"`, or a [`Game`][abstractgames.Game].
        render_mode: `None`, `"human"` (prints the board after every step), `"ansi"` or
            `"rgb_array"` (what `render()` returns).
        **params: the game's parameters, e.g. `size=5` or `max_plies=100`.

    Raises:
        UnknownGameError: no such game.
        InvalidParameterError: a bad game parameter or render mode.
        UnsupportedGameError: a game without integer actions or observations.
    """
    inner = raw_env(game, render_mode=render_mode, **params)
    illegal = inner.game.returns_range[0]
    wrapped: AECEnv = wrappers.TerminateIllegalWrapper(inner, illegal_reward=illegal)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return _OrderEnforcing(wrapped)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's `OrderEnforcingWrapper`, except that a step once every agent is done is
    refused ([`IllegalMoveError`][abstractgames.IllegalMoveError], as the raw environment
    refuses it) instead of only warned of and dropped."""

    def step(self, action: Any) -> None:
        if self._has_reset and not self.agents:
            self.unwrapped.last()  # raises: the game is over, call reset()
        super().step(action)


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]  # PettingZoo's name
    """The AEC environment of a game, without wrappers (see [`env`][] for the arguments).

    Attributes:
        game: the game played.
        metadata: `"name"` is `<game>_v0`; not parallelizable; the render modes.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (PettingZoo's class attribute)
        "name": "abstractgames_v0",
        "is_parallelizable": False,
        "render_modes": list(render.RENDER_MODES),
        "render_fps": 2,
    }

    def __init__(self, game: str | Game, render_mode: str | None = None, **params: Any) -> None:
        EzPickle.__init__(self, game, render_mode, **params)
        super().__init__()
        self.game: Game = learning_game(game, **params)
        self.render_mode = render.check_render_mode(render_mode)
        self.metadata = {**raw_env.metadata, "name": f"{self.game.name}_v0"}
        self.possible_agents: list[str] = list(self.game.roles)
        self.agents: list[str] = []
        observation = spaces.Box(0.0, 1.0, self.game.observation_shape, np.float32)
        count = self.game.num_distinct_actions
        self.observation_spaces = {
            agent: spaces.Dict(
                {"observation": observation, "action_mask": spaces.Box(0, 1, (count,), np.int8)}
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(count) for agent in self.possible_agents}
        self._rng: random.Random | None = None
        self._state: State | None = None
        self._last: list[Move] = []

    @property
    def game_state(self) -> State:
        """The current position: never a chance node before the end.

        Raises:
            IllegalMoveError: the environment was not reset yet.
        """
        if self._state is None:
            raise IllegalMoveError("the environment has no position yet: call reset() first")
        return self._state

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of `agent`.

        Raises:
            InvalidParameterError: `agent` is not one of `possible_agents`.
        """
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown(agent) from None

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of `agent`.

        Raises:
            InvalidParameterError: `agent` is not one of `possible_agents`.
        """
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown(agent) from None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; `seed` seeds the chance events of this and the following games
        (without one, the first reset seeds them from the operating system).

        Raises:
            InvalidSeedError: `seed` is not `None` or an integer in `0 .. 2**64 - 1`.
        """
        seed = check_seed(seed)
        if seed is not None or self._rng is None:
            self._rng = random.Random(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._last = []
        self._enter(self.game.initial_state())
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """The observation of `agent` (any of `possible_agents`, also after its game is over).

        Raises:
            IllegalMoveError: the environment was not reset yet.
            InvalidParameterError: `agent` is not one of `possible_agents`.
        """
        state = self.game_state
        if agent not in self.possible_agents:
            raise self._unknown(agent)
        if agent == self.agent_selection:
            mask = action_mask(state)
        else:
            mask = np.zeros(self.game.num_distinct_actions, np.int8)
        return {"observation": state.observation_tensor(agent), "action_mask": mask}

    def step(self, action: Any) -> None:
        """Play `action` for the agent to move (`None` for an agent whose game is over).

        Raises:
            IllegalMoveError: an illegal action (the wrapped [`env`][] ends the game instead),
                or the environment was not reset, or every agent has stepped after the end
                (call `reset()`).
            InvalidMoveError: not an integer in the action space.
            ValueError: an action other than `None` for an agent whose game is over
                (PettingZoo's own rule).
        """
        agent = self._selected()
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        move = self.game.move_of(action, state)
        after = state.apply(move)
        self._last = [move]
        self._cumulative_rewards[agent] = 0.0
        self._enter(after)
        if self.render_mode == "human":
            self.render()

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, npt.NDArray[Any]] | None, float, bool, bool, dict[str, Any]]:
        """The observation, cumulative reward, termination, truncation and information of the
        agent to move (`agent_selection`), as PettingZoo's `AECEnv.last`.

        Raises:
            IllegalMoveError: the environment was not reset yet, or every agent has stepped
                after the end (call `reset()`).
        """
        agent = self._selected()
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The frame of the render mode (`None` for `"human"`, which prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        if self.render_mode == "rgb_array":
            return render.rgb_frame(self.game_state)
        text = render.text_frame(self.game_state, self._last)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        """Nothing to release (no window is opened)."""

    def _selected(self) -> str:
        """`agent_selection`, if it can step: the environment was reset and its game is not
        over for every agent yet."""
        if self._state is None:
            raise IllegalMoveError("the environment has no position yet: call reset() first")
        agent = self.agent_selection
        if agent not in self.terminations:  # every agent has stepped with None after the end
            outcome = self._state.outcome()
            raise IllegalMoveError(
                f"the game is over ({outcome.reason if outcome else 'ended'}) and every agent "
                "has stepped with None since: call reset() to start another"
            )
        return agent

    def _unknown(self, agent: object) -> InvalidParameterError:
        return InvalidParameterError(
            f"{value_excerpt(agent)} is not an agent of {self.game.spec}; the agents are "
            + ", ".join(self.possible_agents)
        )

    def _enter(self, state: State) -> None:
        """Make `state` current after drawing its chance events; score it if the game is over."""
        assert self._rng is not None
        while state.is_chance():
            move = random_move(state, self._rng)
            state = state.apply(move)
            self._last.append(move)
        self._state = state
        if state.to_move is None:
            returns = state.returns()
            self.rewards = {agent: float(returns[agent]) for agent in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        else:
            self.agent_selection = state.to_move
