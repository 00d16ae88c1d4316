"""Batched simulation: thousands of games per numpy operation ([Batched simulation](../vector.md)).

A simulator holds `B` independent games (*lanes*) in numpy arrays and plays one integer action
(see [`Game.action_of`][abstractgames.protocol.Game.action_of]) in every lane per
[`step`][abstractgames.vector.BatchSimulator.step]. Chance events are resolved inside `step`
with the simulator's seeded `numpy.random.Generator`, so a lane always rests where a player is
to move, or at the end. This module holds the [`BatchSimulator`][] contract and the generic
helpers and never names a game: each game's simulator lives in `abstractgames.vector.<game>`,
and the registry finds it ([`vector_for`][abstractgames.registry.vector_for]). numpy is needed
(the `vector` extra).

Examples:
    >>> from abstractgames import get_game
    >>> from abstractgames.registry import vector_for
    >>> batch = vector_for(get_game("orderchaos"))(256, seed=1)
    >>> batch.legal_action_mask().shape
    (256, 72)
    >>> steps = play_out(batch)
    >>> bool(batch.done.all())
    True
"""

from __future__ import annotations

import abc
import math
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..protocol import Game, IllegalMoveError, InvalidMoveError, State
from ..text import value_excerpt

__all__ = [
    "Actions",
    "BatchSimulator",
    "Lanes",
    "Mask",
    "SimulatorFactory",
    "as_actions",
    "play_out",
    "uniform_from_mask",
]

Actions = npt.NDArray[np.int64]
"""One integer action per lane (`-1` where a lane has nothing to play)."""
Mask = npt.NDArray[np.bool_]
"""`B` × `num_distinct_actions`: `True` for each legal action of each lane."""
Lanes = npt.NDArray[np.int64] | slice
"""Lanes by index (increasing), or `slice(None)` for every lane (a view instead of a gather)."""


class BatchSimulator(abc.ABC):
    """`B` independent games of one [`Game`][abstractgames.Game] in arrays, stepped together.

    A game's simulator implements the abstract methods. [`step`][] is shared: it reads the
    actions, finds the lanes that play and checks their actions, then calls the game's kernel,
    the abstract `_step(lanes, actions, chance)`, which only plays them (see
    [Batched simulation](../vector.md#a-new-games-simulator)).

    Attributes:
        game: the game (its parameters included).
        batch_size: `B`, the number of lanes.
        num_actions: `game.num_distinct_actions`.
        rng: the generator of every random choice (chance events, random actions).
        done: `bool[B]`, lanes whose game is over (their actions are ignored).
        to_move: `int8[B]`, the index in `game.roles` of the role to move, `-1` when done.
    """

    game: Game
    batch_size: int
    num_actions: int
    rng: np.random.Generator
    done: npt.NDArray[np.bool_]
    to_move: npt.NDArray[np.int8]

    def __init__(self, game: Game, batch_size: int, seed: int | None = 0) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a whole number of at least 1, not {batch_size!r}")
        self.game = game
        self.batch_size = batch_size
        self.num_actions = game.num_distinct_actions
        self.lanes = np.arange(batch_size, dtype=np.int64)
        self.reset(seed)

    # --- the contract -----------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> None:
        """Start a new game in every lane; a seed (else the current generator) for what follows."""
        if seed is not None or not hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)
        self.reset_lanes(self.lanes)

    @abc.abstractmethod
    def reset_lanes(self, lanes: npt.NDArray[np.int64]) -> None:
        """Start a new game in each lane of `lanes` (indices)."""

    def reset_done(self) -> int:
        """Start a new game in every finished lane (automatic reset); return how many."""
        lanes = np.flatnonzero(self.done)
        if lanes.size:
            self.reset_lanes(lanes)
        return int(lanes.size)

    @abc.abstractmethod
    def legal_action_mask(self) -> Mask:
        """`bool[B, num_actions]`: the legal actions of each lane (none in a finished lane)."""

    def step(
        self,
        actions: npt.ArrayLike,
        *,
        check: bool = True,
        chance: npt.ArrayLike | None = None,
    ) -> None:
        """Play `actions[i]` in lane `i` (finished lanes ignore theirs), then any chance events.

        The steps every game shares are done here: the actions are read as `int64[B]`, the lanes
        that play are found (not done, an action of at least 0) and, with `check`, their actions
        are checked; then the game's kernel, `_step`, plays them.

        Args:
            actions: one integer action per lane; `-1` leaves a live lane as it is (it does
                not play now). Every lane's action, a finished lane's too, must be an integer
                of at least `-1` (an integer-valued float is read as that integer).
            check: raise for an action out of range or illegal in a lane that plays (off:
                faster, and such an action then leaves the lane in an unspecified state).
                What is not an action at all (below `-1`, a fraction, NaN, infinite, a boolean,
                a string) is refused either way.
            chance: for games with chance, one forced outcome per lane (`-1`: draw it with
                the simulator's `rng`); ignored by games without.

        Raises:
            InvalidMoveError: `actions` is not one integer of at least `-1` per lane, or (with
                `check`) an action of a lane that plays is not in `0 .. num_actions - 1`; the
                message names the first such lane and its value.
            IllegalMoveError: (with `check`) an action is outside its lane's legal-action mask
                (the first such lane is named, after any out of range). Both are `ValueError`s,
                and no lane has changed.
        """
        acts = as_actions(actions, self.batch_size)
        lanes: Lanes
        lowest = acts.min()
        if lowest < 0:
            if lowest < -1:
                lane = int(np.argmax(acts < -1))
                raise InvalidMoveError(
                    f"action {int(acts[lane])} in lane {lane} is not an action: actions are "
                    f"0..{self.num_actions - 1}, and -1 skips a lane"
                )
            lanes = np.flatnonzero(~self.done & (acts >= 0))
        elif self.done.any():
            lanes = np.flatnonzero(~self.done)
        else:
            lanes = slice(None)  # every lane plays: views, not gathers
        if check:
            played = acts[lanes]
            ok = played < self.num_actions
            if ok.all():
                ok = self._legal(lanes, played)
            if not ok.all():
                raise self._bad_action(self.lanes[lanes][~ok], acts)
        self._step(lanes, acts, chance)

    @abc.abstractmethod
    def _step(self, lanes: Lanes, actions: Actions, chance: npt.ArrayLike | None) -> None:
        """The game's kernel of [`step`][]: play `actions[lanes]` in `lanes`, then any chance
        events (forced by `chance`, the argument of `step` as given, for the lanes that draw).

        `lanes` are the lanes that play, in increasing order, or `slice(None)` when every lane
        does; they may be none (every lane done or skipping), when the kernel changes no lane.
        `actions` is the whole `int64[B]` array (read only `actions[lanes]`); with `check` the
        actions of `lanes` have been found legal by `_legal`.
        """

    def _legal(self, lanes: Lanes, actions: Actions) -> npt.NDArray[np.bool_]:
        """Whether `actions[k]` (in `0 .. num_actions - 1`) is legal in the `k`-th lane of
        `lanes`: the [`legal_action_mask`][] by default; a game may override it with a cheaper
        test that agrees with the mask."""
        legal: npt.NDArray[np.bool_] = self.legal_action_mask()[self.lanes[lanes], actions]
        return legal

    @abc.abstractmethod
    def random_actions(self) -> Actions:
        """One uniformly random legal action per live lane (`-1` in finished lanes)."""

    def greedy_actions(self, rng: np.random.Generator) -> Actions:
        """The vectorised greedy policy's action in every live lane (`-1` in finished lanes),
        ties drawn with `rng`.

        Raises:
            NotImplementedError: the game has no vectorised greedy policy.
        """
        raise NotImplementedError(f"{self.game.spec} has no vectorised greedy policy")

    @abc.abstractmethod
    def returns(self) -> npt.NDArray[np.float32]:
        """`float32[B, len(game.roles)]`: [`State.returns`][abstractgames.protocol.State.returns] of
        each lane (0 while a game goes on)."""

    @abc.abstractmethod
    def observations(self) -> npt.NDArray[np.float32]:
        """`float32[B, *game.observation_shape]`: each lane's
        [`State.observation`][abstractgames.protocol.State.observation] (both roles see the
        same)."""

    @abc.abstractmethod
    def to_states(self, lanes: Sequence[int] | None = None) -> list[State]:
        """The protocol [`State`][abstractgames.State] of each lane of `lanes` (default: all)."""

    @abc.abstractmethod
    def set_states(self, states: Sequence[State], lanes: Sequence[int] | None = None) -> None:
        """Put `states[k]` in lane `lanes[k]` (default: lanes 0, 1, …); a chance node is
        resolved at once with the simulator's `rng`."""

    def tile(self, states: Sequence[State], copies: int) -> None:
        """Put `copies` copies of `states` in the first `len(states) * copies` lanes: lane `i`
        holds `states[i % len(states)]`. Each state is read once and its lane copied; a chance
        node is drawn afresh in every copy."""
        count = len(states)
        used = count * copies
        if not count or copies < 1 or used > self.batch_size:
            raise ValueError(f"{count} states × {copies} copies do not fit {self.batch_size} lanes")
        self.set_states(states, range(count))
        if copies > 1:
            targets = self.lanes[count:used]
            self.copy_lanes(targets % count, targets)
            self._redraw(targets)

    def copy_lanes(self, sources: npt.NDArray[np.int64], targets: npt.NDArray[np.int64]) -> None:
        """Make lane `targets[k]` a copy of lane `sources[k]` (every per-lane array)."""
        for name, value in vars(self).items():
            if (
                isinstance(value, np.ndarray)
                and value.shape[:1] == (self.batch_size,)
                and name not in self._fixed
            ):
                value[targets] = value[sources]

    _fixed: tuple[str, ...] = ("lanes", "_flat_base")
    """Per-lane arrays that never change (not copied by [`copy_lanes`][])."""

    def _redraw(self, lanes: npt.NDArray[np.int64]) -> None:  # noqa: B027  (games without chance)
        """Draw again the chance events that [`set_states`][] resolved in these lanes (copies)."""

    @property
    @abc.abstractmethod
    def bytes_per_lane(self) -> int:
        """The memory of one lane: the bytes of every per-lane array, divided by `B`."""

    # --- shared helpers ---------------------------------------------------------------------------

    def _lanes(self, lanes: Sequence[int] | None) -> npt.NDArray[np.int64]:
        if lanes is None:
            return self.lanes
        found = np.asarray(lanes, dtype=np.int64).reshape(-1)
        if found.size and (found.min() < 0 or found.max() >= self.batch_size):
            raise IndexError(f"lanes must be in 0..{self.batch_size - 1}")
        return found

    def _array_bytes(self) -> int:
        return sum(
            value.nbytes
            for value in vars(self).values()
            if isinstance(value, np.ndarray) and value.shape[:1] == (self.batch_size,)
        )

    def _bad_action(self, lanes: npt.NDArray[np.int64], actions: Actions) -> IllegalMoveError:
        lane = int(lanes[0])
        action = int(actions[lane])
        if action >= self.num_actions:
            return InvalidMoveError(
                f"action {action} in lane {lane} is not in 0..{self.num_actions - 1} of "
                f"{self.game.spec} (-1 skips a lane)"
            )
        return IllegalMoveError(f"illegal action {action} in lane {lane}")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game.spec} B={self.batch_size}>"


class SimulatorFactory(Protocol):
    """What a game's `vector` slot of its [`GameEntry`][abstractgames.registry.GameEntry] is
    (usually the simulator's class): `make(batch_size, seed=..., game=game)` makes a
    [`BatchSimulator`][] of `batch_size` lanes of `game` (its parameters included), its
    generator seeded with `seed` (`None`: from the operating system)."""

    def __call__(
        self, batch_size: int, /, seed: int | None = ..., game: Any = ...
    ) -> BatchSimulator: ...


_INT64 = np.dtype(np.int64)
_INT64_LIMIT = 2**63


def as_actions(actions: npt.ArrayLike, batch_size: int) -> Actions:
    """`actions` as `int64[batch_size]`, one integer per lane, without changing any value.

    An `int64` array of the right shape is returned as it is (no copy); other integer arrays
    and integer-valued floats (`2.0`) are converted. Nothing is rounded or truncated: a float
    with a fraction (`1.9`), NaN, an infinity, a boolean, a string or any other object is
    refused, naming the first lane that holds one. The values are not checked against the
    game's actions here ([`BatchSimulator.step`][] does that).

    Raises:
        InvalidMoveError: not one integer per lane (a `ValueError`).

    Examples:
        >>> as_actions([3, -1, 2.0], 3)
        array([ 3, -1,  2])
        >>> as_actions([3, 1.9, 0], 3)
        Traceback (most recent call last):
        ...
        abstractgames.protocol.InvalidMoveError: action 1.9 in lane 1 is not an integer
    """
    if isinstance(actions, np.ndarray):
        found = actions
    else:
        try:
            found = np.asarray(actions)
        except (ValueError, TypeError, OverflowError):
            raise InvalidMoveError(
                f"actions must be one integer per lane ({batch_size} lanes), not "
                f"{value_excerpt(actions)}"
            ) from None
    if found.shape != (batch_size,):
        raise InvalidMoveError(f"actions must have shape ({batch_size},), not {found.shape}")
    if found.dtype == _INT64 and (found is actions or not _has_bool(actions)):
        return found
    if found is not actions:
        # A sequence that numpy did not read as int64 ([3, "x"] as strings, [2**63, 0] as
        # floats): look at the values given, to keep each one and name its lane.
        given = np.empty(batch_size, dtype=object)
        try:
            given[:] = list(actions)  # type: ignore[arg-type]  # a sequence, of batch_size
            found = given
        except (TypeError, ValueError):
            pass
    return _integers(found)


def _has_bool(actions: Any) -> bool:
    """Whether a sequence holds a boolean, which numpy reads as 0 or 1 among integers."""
    try:
        return any(isinstance(action, bool | np.bool_) for action in actions)
    except TypeError:
        return False


def _integers(found: npt.NDArray[Any]) -> Actions:
    """A one-dimensional array of another dtype than `int64` as `int64`, every value kept."""
    kind = found.dtype.kind
    if kind == "i" or (kind == "u" and found.dtype.itemsize < 8):
        return found.astype(np.int64)
    if kind == "u":
        bad = found >= _INT64_LIMIT
    elif kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~(np.trunc(found) == found) | ~(np.abs(found) < _INT64_LIMIT)
    elif kind == "O":
        values = [_whole(value) for value in found]
        bad = np.array(
            [value is None or not -_INT64_LIMIT <= value < _INT64_LIMIT for value in values],
            dtype=np.bool_,
        )
        if not bad.any():
            return np.array(values, dtype=np.int64)
    else:  # booleans, strings, complex numbers, dates...
        bad = np.ones(found.shape, np.bool_)
    if bad.any():
        lane = int(np.argmax(bad))
        value = found[lane]
        value = value.item() if isinstance(value, np.generic) else value
        reason = "is not an integer" if _whole(value) is None else "is out of range"
        raise InvalidMoveError(f"action {value_excerpt(value)} in lane {lane} {reason}")
    converted: Actions = found.astype(np.int64)
    return converted


def _whole(value: object) -> int | None:
    """`value` as an `int` if it is an integer (a Python or numpy one, not a boolean) or a
    float with an integer value, else `None`."""
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def uniform_from_mask(mask: Mask, rng: np.random.Generator) -> Actions:
    """A uniformly random `True` column of each row of `mask` (`-1` for a row without one)."""
    counts = mask.sum(axis=1)
    picks = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    ranks = np.cumsum(mask, axis=1)
    chosen: Actions = np.argmax(ranks > picks[:, None], axis=1).astype(np.int64)
    chosen[counts == 0] = -1
    return chosen


def play_out(simulator: BatchSimulator, max_steps: int | None = None, policy: Any = None) -> int:
    """Step every lane with random actions (or `policy(simulator) -> actions`) until all are
    done, without resetting; return the steps taken (at most `max_steps`)."""
    steps = 0
    while not simulator.done.all() and (max_steps is None or steps < max_steps):
        actions = simulator.random_actions() if policy is None else policy(simulator)
        simulator.step(actions, check=False)
        steps += 1
    return steps
