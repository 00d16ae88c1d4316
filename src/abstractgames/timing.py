"""Time management for searches: how long to think on a move, and the deadline that stops it.

Every search bot and solver of the library spends its time through this module, so that a clock
is shared out the same way by all of them: [`move_budget`][] turns "seconds per move" and the
clock's time left into the seconds to think on this move, and a [`Deadline`][] is what the
search checks as it goes, raising [`SearchTimeout`][] once it has passed. How often a search
checks, and when it stops deepening early, stay each search's own (they are tuned per game).

Examples:
    >>> move_budget(1.0, None)  # no clock: the time per move
    1.0
    >>> move_budget(1.0, 10.0)  # ten seconds left, about twenty moves to go
    0.45
    >>> move_budget(1.0, 10.0, moves_left=3)  # the clock allows more than a second a move
    1.0
    >>> Deadline(None).passed()  # a search without a time limit
    False
    >>> phase_budget(1.0, 10.0, [2.0, 1.0, 1.0])  # a move worth twice each of the two after it
    1.5
    >>> phase_budget(1.0, 2.0, [2.0, 1.0, 1.0])  # half of 90% of the clock
    0.9
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

__all__ = [
    "CLOCK_SHARE",
    "DEFAULT_MOVES_LEFT",
    "NO_DEADLINE",
    "Deadline",
    "SearchTimeout",
    "move_budget",
    "phase_budget",
]

DEFAULT_MOVES_LEFT = 20
"""How many more moves a player is assumed to make when its game cannot say."""
CLOCK_SHARE = 0.9
"""The part of the clock's time left that is shared out over the moves left; the rest is kept
in reserve for what a search cannot foresee (the time it takes to stop, a slow machine)."""


class SearchTimeout(Exception):
    """A search went past its [`Deadline`][] (raised by [`Deadline.check`][])."""


class Deadline:
    """The time after which a search stops, `seconds` from now (`None`: never).

    Args:
        seconds: the time to think, at least 0; `None` for no limit.
        clock: seconds, monotonic (default `time.perf_counter`; tests pass a fake one).

    Attributes:
        start: when the deadline was set, on `clock`.
        at: when it passes, on `clock` (`math.inf` for none).
    """

    __slots__ = ("_clock", "at", "start")

    def __init__(
        self, seconds: float | None, *, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self._clock = clock
        self.start = clock()
        self.at = math.inf if seconds is None else self.start + max(seconds, 0.0)

    @property
    def limited(self) -> bool:
        """Whether the deadline ever passes."""
        return self.at != math.inf

    def passed(self) -> bool:
        """Whether the deadline has passed."""
        return self._clock() > self.at

    def check(self) -> None:
        """Raise [`SearchTimeout`][] if the deadline has passed."""
        if self._clock() > self.at:
            raise SearchTimeout

    def elapsed(self) -> float:
        """Seconds since the deadline was set."""
        return self._clock() - self.start


NO_DEADLINE = Deadline(None)
"""A deadline that never passes, for the parts of a search that must run to the end (a search
that reports its time makes a `Deadline(None)` of its own: this one's `elapsed` counts from the
import)."""


def move_budget(per_move: float, time_left: float | None, moves_left: int | None = None) -> float:
    """Seconds to think on a move: `per_move`, and with a clock no more than its fair share.

    The share is [`CLOCK_SHARE`][] of `time_left` divided among `moves_left`, the moves the
    player is still to make in this game ([`DEFAULT_MOVES_LEFT`][] when not given), so that a
    bot that follows it never runs out of time.

    Args:
        per_move: the bot's own time per move (its `time` option).
        time_left: seconds left on the player's clock, or `None` without a clock.
        moves_left: the moves the player is still to make, if the game can tell.
    """
    if time_left is None:
        return per_move
    moves = DEFAULT_MOVES_LEFT if moves_left is None else max(1, moves_left)
    return max(0.0, min(per_move, CLOCK_SHARE * max(time_left, 0.0) / moves))


def phase_budget(per_move: float, time_left: float | None, weights: Sequence[float]) -> float:
    """Seconds to think on a move when a game's moves are not all worth the same time.

    `weights[0]` is this move's weight and the rest those of the player's moves still to come
    in this game. Without a clock the move gets `per_move`, as from [`move_budget`][]. With a
    clock it gets its weight's part of [`CLOCK_SHARE`][] of `time_left`, and no more than
    `per_move` times its weight over the mean weight of the moves left: a bot that follows it
    spends more on the moves that weigh more and never runs out of time.

    Args:
        per_move: the bot's own time per move (its `time` option).
        time_left: seconds left on the player's clock, or `None` without a clock.
        weights: this move's weight, then those of the player's moves after it (positive).
    """
    if time_left is None:
        return per_move
    if not weights:
        return move_budget(per_move, time_left, 1)
    total = float(sum(weights))
    if total <= 0.0:
        return move_budget(per_move, time_left, len(weights))
    part = weights[0] / total
    cap = per_move * part * len(weights)
    return max(0.0, min(cap, CLOCK_SHARE * max(time_left, 0.0) * part))
