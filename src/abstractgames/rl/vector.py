"""A Gymnasium vector environment on a batched simulator: `num_envs` games of one role against a
vectorised opponent, all stepped by numpy at once (see [Batched simulation](../vector.md)).

The conventions are those of [`AbstractGamesEnv`][abstractgames.rl.gymnasium.AbstractGamesEnv]:
observations are each lane's [`State.observation`][abstractgames.protocol.State.observation] (a
`Box(0, 1, Game.observation_shape, float32)` per environment), actions the game's integer
actions, `info["action_mask"]` (`int8`, `num_envs` × `num_distinct_actions`) marks the legal
ones, and the reward is 0 until the end, then the agent's
[`State.returns`][abstractgames.protocol.State.returns]. Chance events are drawn inside the
simulator.
Finished games restart on the next step (`AutoresetMode.NEXT_STEP`): that step ignores their
actions and returns their first observation with reward 0. An illegal action raises
[`IllegalMoveError`][abstractgames.IllegalMoveError] (a vector environment cannot end one lane's
episode early as a penalty without hiding it from the others), and what is not an action (out of
range, a fraction, NaN, an infinity, a boolean, below `-1`) raises
[`InvalidMoveError`][abstractgames.InvalidMoveError]; both are `ValueError`s naming the
environment's index (its lane in the batch) and the value. `-1` leaves a game as it is for a
step, as in the simulator.

Examples:
    >>> env = VectorGameEnv("orderchaos", num_envs=8, role="chaos", opponent="greedy")
    >>> observations, info = env.reset(seed=1)
    >>> observations.shape, info["action_mask"].shape
    ((8, 4, 6, 6), (8, 72))
    >>> observations, rewards, terminated, truncated, info = env.step(env.random_legal_actions())
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..protocol import Game, IllegalMoveError, InvalidParameterError
from ..registry import vector_for
from ..text import value_excerpt
from ..vector import Actions, BatchSimulator
from .games import UnsupportedGameError, check_seed, learning_game

__all__ = ["MAX_NUM_ENVS", "OPPONENTS", "VectorGameEnv"]

MAX_NUM_ENVS = 1 << 20
"""The most environments one `VectorGameEnv` steps (1,048,576): its arrays fit in memory."""

Policy = Callable[[BatchSimulator, np.random.Generator], Actions]
OPPONENTS: dict[str, Policy] = {
    "random": lambda batch, rng: batch.random_actions(),
    "greedy": lambda batch, rng: batch.greedy_actions(rng),
}
"""The opponents by name: uniformly random legal actions, or the game's vectorised greedy policy
(Order and Chaos, Entropy's score gain)."""


class VectorGameEnv(gymnasium.vector.VectorEnv[Any, Any, Any]):
    """`num_envs` games of `role` against `opponent`, on the game's batched simulator.

    Args:
        game: a name, a spec (`"entropy:size=5"`) or a [`Game`][abstractgames.Game].
        num_envs: the number of games stepped together, from 1 to [`MAX_NUM_ENVS`][].
        role: the agent's role (default: the first).
        opponent: `"random"`, `"greedy"`, or a function `policy(batch, rng) -> actions` giving
            an action for every lane where the opponent is to move.

    Raises:
        UnsupportedGameError: the game has no batched simulator.
        InvalidParameterError: an unknown role or opponent, or `num_envs` not a whole number
            from 1 to [`MAX_NUM_ENVS`][].
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (Gymnasium's class attribute)
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        game: str | Game,
        num_envs: int = 64,
        role: str | None = None,
        opponent: str | Policy = "random",
        **params: Any,
    ) -> None:
        if (
            isinstance(num_envs, bool)
            or not isinstance(num_envs, int)
            or not 1 <= num_envs <= MAX_NUM_ENVS
        ):
            raise InvalidParameterError(
                f"num_envs must be a whole number from 1 to {MAX_NUM_ENVS}, not "
                f"{value_excerpt(num_envs)}"
            )
        self.game = learning_game(game, **params)
        factory = vector_for(self.game)
        if factory is None:
            raise UnsupportedGameError(f"{self.game.spec} has no batched simulator")
        self.role = self.game.check_role(self.game.roles[0] if role is None else role)
        self.agent = self.game.roles.index(self.role)
        if callable(opponent):
            self.opponent: Policy = opponent
        elif opponent in OPPONENTS:
            self.opponent = OPPONENTS[opponent]
        else:
            raise InvalidParameterError(
                f"opponent {value_excerpt(opponent)} must be one of {', '.join(OPPONENTS)} "
                "or a function"
            )
        self.num_envs = num_envs
        self.batch: BatchSimulator = factory(num_envs, seed=None, game=self.game)
        if opponent == "greedy" and (
            type(self.batch).greedy_actions is BatchSimulator.greedy_actions
        ):
            raise InvalidParameterError(f"{self.game.spec} has no vectorised greedy policy")
        self.single_observation_space = spaces.Box(
            0.0, 1.0, self.game.observation_shape, np.float32
        )
        self.single_action_space = spaces.Discrete(self.game.num_distinct_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._opponent_rng = np.random.default_rng()
        self._restart = np.zeros(num_envs, np.bool_)
        self._started = False

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Start a game in every environment; `seed` seeds the simulator and the opponent.

        A list of seeds is accepted for Gymnasium's sake; its first seed seeds the whole batch.

        Raises:
            InvalidSeedError: a seed is not `None` or an integer in `0 .. 2**64 - 1`.
        """
        if isinstance(seed, list):
            seeds = [check_seed(one) for one in seed]
            seed = seeds[0] if seeds else None
        seed = check_seed(seed)
        if seed is not None:
            self._opponent_rng = np.random.default_rng([seed, 1])
        self.batch.reset(seed)
        self._started = True
        self._restart[:] = False
        self._opponent_moves()
        return self.batch.observations(), self._info()

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Play each environment's action, then the opponent's answers.

        Raises:
            IllegalMoveError: the environment was not reset yet, or an illegal action.
            InvalidMoveError: what is not an action.
        """
        if not self._started:
            raise IllegalMoveError("the environment has no position yet: call reset() first")
        batch = self.batch
        if isinstance(actions, np.ndarray) and actions.ndim > 1 and actions.size == self.num_envs:
            actions = actions.reshape(self.num_envs)  # (num_envs, 1), say
        # The lanes to restart are still finished: the batch ignores their actions (and
        # refuses what is not an action at all, in any lane), and they restart after it.
        batch.step(actions)
        restart = self._restart
        if restart.any():
            batch.reset_lanes(np.flatnonzero(restart))
        self._opponent_moves()
        done = batch.done.copy()
        rewards = np.where(done, batch.returns()[:, self.agent], 0.0).astype(np.float64)
        self._restart = done.copy()
        truncated = np.zeros(self.num_envs, np.bool_)
        return batch.observations(), rewards, done, truncated, self._info()

    def random_legal_actions(self) -> Actions:
        """A uniformly random legal action in every environment (`-1` where a game is over)."""
        return self.batch.random_actions()

    def _opponent_moves(self) -> None:
        """Let the opponent move in every lane where it is to move, until the agent is."""
        batch = self.batch
        while True:
            waiting = ~batch.done & (batch.to_move != self.agent)
            if not waiting.any():
                return
            actions = self.opponent(batch, self._opponent_rng)
            batch.step(np.where(waiting, actions, -1))

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.batch.legal_action_mask().astype(np.int8)}
