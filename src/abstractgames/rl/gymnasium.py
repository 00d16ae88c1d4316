"""Single-agent Gymnasium environments: one role of a game against an opponent of your choice.

Importing this module registers the id `abstractgames/<name>-v0` for every game the registry
knows (built in, registered or from a plugin), so that

```python
import gymnasium
import abstractgames.rl.gymnasium  # noqa: F401  (registers the ids)

env = gymnasium.make("abstractgames/orderchaos-v0", role="order", opponent="greedy")
```

makes an [`AbstractGamesEnv`][]; game parameters pass through (`size=5`). Without the import,
`gymnasium.make("abstractgames.rl.gymnasium:abstractgames/orderchaos-v0")` imports it first.

The agent plays `role`; the opponent (any player spec of [`make_player`][abstractgames.make_player])
plays the other roles, and chance events (Entropy's draws) are drawn inside the environment by
their probabilities. Both use generators seeded from `reset(seed=...)`: a seed replays the
episode. Observations are
[`State.observation_tensor`][abstractgames.protocol.State.observation_tensor] (a
`Box(0, 1, Game.observation_shape, float32)`), actions the game's integer actions
(`Discrete(Game.num_distinct_actions)`) and `info["action_mask"]` (`int8`) marks the legal ones.
The reward is 0 until the end, then [`State.returns`][abstractgames.protocol.State.returns] of the
agent's role. An illegal action ends the episode with the lowest return of the game
(`Game.returns_range[0]`, -1 for the built-in games) and `info["illegal_action"] = True`,
as PettingZoo's classic environments do.
"""

from __future__ import annotations

import random
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..players import Player
from ..protocol import (
    Game,
    IllegalMoveError,
    Move,
    State,
    random_move,
)
from ..registry import available_games, make_player
from . import render
from .games import check_seed, learning_game

__all__ = [
    "AbstractGamesEnv",
    "env_id",
    "register_envs",
]

Observation = npt.NDArray[np.float32]


class AbstractGamesEnv(gymnasium.Env[Observation, np.int64]):
    """One role of a game against an opponent, as a Gymnasium environment.

    Args:
        game: a game name, a spec such as `"entropy:size=5"`, or a [`Game`][abstractgames.Game].
        role: the role the agent plays (default: the game's first role).
        opponent: a player spec for [`make_player`][abstractgames.make_player] (`"random"`,
            `"greedy"`, `"search:depth=1"`, ...) or a [`Player`][abstractgames.players.Player];
            it plays every other role.
        render_mode: `None`, `"human"` (prints the board after every step), `"ansi"`
            (`render()` returns the text) or `"rgb_array"` (`render()` returns a picture, see
            [`rgb_frame`][abstractgames.rl.render.rgb_frame]).
        **params: the game's parameters, e.g. `size=5`.

    Raises:
        UnknownGameError: no such game.
        InvalidParameterError: a bad game parameter, a role the game does not have, or an
            unknown render mode.
        InvalidPlayerError: an opponent spec that names no player.
        UnsupportedGameError: a game without integer actions or observations.

    Examples:
        >>> env = AbstractGamesEnv("orderchaos", role="chaos", opponent="random")
        >>> observation, info = env.reset(seed=1)
        >>> observation.shape, int(info["action_mask"].sum())  # Order has played once
        ((4, 6, 6), 70)
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (Gymnasium's class attribute)
        "render_modes": list(render.RENDER_MODES),
        "render_fps": 2,
    }

    def __init__(
        self,
        game: str | Game,
        *,
        role: str | None = None,
        opponent: str | Player = "random",
        render_mode: str | None = None,
        **params: Any,
    ) -> None:
        self.game: Game = learning_game(game, **params)
        """The game played."""
        self.role: str = self.game.roles[0] if role is None else self.game.check_role(role)
        """The role the agent plays."""
        self.render_mode = render.check_render_mode(render_mode)
        self.opponent: Player = (
            opponent if isinstance(opponent, Player) else make_player(opponent, self.game)
        )
        """The player of the other roles."""
        self.observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape, np.float32)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions)
        self._state: State | None = None
        self._over = True
        self._legal: tuple[int, ...] = ()
        self._last: list[Move] = []
        self._chance = random.Random(0)
        self._opponent_rng = random.Random(0)

    @property
    def game_state(self) -> State:
        """The current position (after `reset()`).

        Raises:
            IllegalMoveError: the environment was not reset yet.
        """
        if self._state is None:
            raise IllegalMoveError("the environment has no position yet: call reset() first")
        return self._state

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start an episode; `seed` seeds the chance events and the opponent of this and the
        following episodes.

        Raises:
            InvalidSeedError: `seed` is not `None` or an integer in `0 .. 2**64 - 1`.
        """
        super().reset(seed=check_seed(seed))
        chance_seed, opponent_seed = (int(x) for x in self.np_random.integers(0, 2**63, size=2))
        self._chance = random.Random(chance_seed)
        self._opponent_rng = random.Random(opponent_seed)
        start = self.game.initial_state()
        self._last = []
        seat = 2 if self.game.roles.index(self.role) == 0 else 1
        self.opponent.game_started(seat, 1, start)
        self._state = self._advance(start)
        self._over = self._state.to_move is None
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play `action` for the agent, then the opponent's moves and chance events up to the
        agent's next turn or the end of the game.

        Raises:
            InvalidMoveError: `action` is not an integer in `0 .. num_distinct_actions - 1`.
            IllegalMoveError: the episode is over (call `reset()`), or was never started.
        """
        state = self.game_state
        if self._over:
            raise IllegalMoveError("the episode is over: call reset() to start another")
        number = self.game.check_action(action, state)
        self._over = True
        if number not in self._legal:
            self._legal = ()
            self.opponent.game_ended(state)
            info = self._info()
            info["illegal_action"] = True
            return self._observe(), self.game.returns_range[0], True, False, info
        self._last = []
        state = self._play(state, self.game.move_of(number, state))
        self._state = state = self._advance(state)
        self._over = state.to_move is None
        if self.render_mode == "human":
            self.render()
        reward = state.returns()[self.role] if self._over else 0.0
        return self._observe(), reward, self._over, False, self._info()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        """The frame of the render mode (`None` for `"human"`, which prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        state = self.game_state
        if self.render_mode == "rgb_array":
            return render.rgb_frame(state)
        text = render.text_frame(state, self._last)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        """Close the opponent (an external program, for instance); closing twice is fine."""
        self.opponent.close()

    def _advance(self, state: State) -> State:
        """Chance events and the opponent's moves until the agent moves or the game ends."""
        while state.to_move is not None and state.to_move != self.role:
            if state.is_chance():
                move = random_move(state, self._chance)
            else:
                move = self.opponent.choose(state, self._opponent_rng, None)
            state = self._play(state, move)
        if state.to_move is None:
            self._legal = ()
            self.opponent.game_ended(state)
        else:
            self._legal = state.legal_actions()
        return state

    def _play(self, state: State, move: Move) -> State:
        state = state.apply(move)
        self._last.append(move)
        self.opponent.move_played(move, state)
        return state

    def _observe(self) -> Observation:
        observation: Observation = self.game_state.observation_tensor(self.role)
        return observation

    def _info(self) -> dict[str, Any]:
        mask = np.zeros(self.game.num_distinct_actions, np.int8)
        mask[list(self._legal)] = 1
        return {"action_mask": mask}


def env_id(name: str) -> str:
    """The Gymnasium id of the game `name`: `"abstractgames/<name>-v0"`."""
    return f"abstractgames/{name}-v0"


def register_envs() -> tuple[str, ...]:
    """Register `abstractgames/<name>-v0` for every game the registry knows that is not
    registered yet (importing this module does it; call it again after registering a game).

    Returns:
        The ids registered by this call.
    """
    added = []
    for name in available_games():
        identifier = env_id(name)
        if identifier not in gymnasium.registry:
            gymnasium.register(
                id=identifier,
                entry_point="abstractgames.rl.gymnasium:AbstractGamesEnv",
                kwargs={"game": name},
            )
            added.append(identifier)
    return tuple(added)


register_envs()
