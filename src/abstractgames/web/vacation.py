"""Vacations of correspondence players: days a year an account may take, during which the clocks
of its correspondence games do not run.

A signed-in player starts a vacation now, for a whole number of days
([`Vacations.start`][]), and may end it sooner ([`Vacations.end`][]). While it lasts:

- in each correspondence game where it is their move, their time does not run: the deadline
  moves back by the vacation's length, the server's sweep does not flag them, and a move they
  make all the same counts only the time outside the vacation;
- in a game without a clock, their opponent's claim of the match waits as long.

The server's operator sets the allowance ([`VACATION_DAYS`][] by default; `serve
--vacation-days N`, 0 for none). Days are counted per calendar year (UTC): each day of a
vacation, begun or whole, counts to the year it begins in, and a vacation that would take a year
past its allowance is refused whole. A vacation ended early counts the days it began.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .database import AccountRow, Database
from .errors import BadRequest, Conflict

if TYPE_CHECKING:
    from .online import OnlineGames

__all__ = ["MAX_VACATION_DAYS", "VACATION_DAYS", "Vacations", "days_by_year", "later", "paused"]

VACATION_DAYS = 15
"""The vacation days a year each account has by default."""
MAX_VACATION_DAYS = 366
"""The most days a year a server may give (and a vacation may last)."""
DAY = 86_400.0

Away = Sequence[tuple[float, float]]
"""Vacations: `(starts_at, ends_at)` in seconds since the epoch."""


def paused(away: Away, since: float, until: float) -> float:
    """The seconds of `since`..`until` that fall in one of the vacations `away`.

    Examples:
        >>> paused([(10.0, 20.0), (30.0, 35.0)], 15.0, 32.0)
        7.0
    """
    total = 0.0
    reached = since
    for start, end in sorted(away):
        start, end = max(start, reached), min(end, until)
        if end > start:
            total += end - start
            reached = end
    return total


def later(away: Away, since: float, seconds: float) -> float:
    """When `seconds` outside the vacations `away` will have passed from `since`.

    Examples:
        >>> later([(10.0, 20.0)], 5.0, 10.0)
        25.0
        >>> later([(0.0, 100.0)], 50.0, 1.0)
        101.0
    """
    now, left = since, max(seconds, 0.0)
    for start, end in sorted(away):
        if end <= now:
            continue
        if start > now:
            if start - now >= left:
                return now + left
            left -= start - now
        now = end
    return now + left


def days_by_year(starts_at: float, ends_at: float) -> Counter[int]:
    """The days of a vacation counted to each calendar year (UTC): each day, begun or whole,
    to the year it begins in.

    Examples:
        >>> start = dt.datetime(2030, 12, 30, 12, tzinfo=dt.timezone.utc).timestamp()
        >>> sorted(days_by_year(start, start + 3 * DAY).items())
        [(2030, 2), (2031, 1)]
        >>> sorted(days_by_year(start, start + 1.5 * DAY).items())
        [(2030, 2)]
    """
    days = max(math.ceil((ends_at - starts_at) / DAY - 1e-9), 0)
    counted: Counter[int] = Counter()
    for day in range(days):
        counted[dt.datetime.fromtimestamp(starts_at + day * DAY, dt.UTC).year] += 1
    return counted


def _used(vacations: Iterable[tuple[float, float]]) -> Counter[int]:
    used: Counter[int] = Counter()
    for start, end in vacations:
        used.update(days_by_year(start, end))
    return used


class Vacations:
    """The vacations of a server's accounts.

    Args:
        database: the store.
        games: the online games, whose deadlines a vacation moves.
        days: the days a year each account may take (0: none).
        clock: the time now (the games' clock by default).
    """

    def __init__(
        self,
        database: Database,
        games: OnlineGames,
        *,
        days: int = VACATION_DAYS,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if not 0 <= days <= MAX_VACATION_DAYS:
            raise ValueError(f"vacation days are 0 to {MAX_VACATION_DAYS} a year, not {days}")
        self.database = database
        self.games = games
        self.days = days
        self.clock = clock or games.clock

    def status(self, account: AccountRow) -> dict[str, Any]:
        """`{"days_per_year", "used", "left", "until"}`: the allowance, the days used this
        year (UTC), those left, and when the vacation under way ends (`None`: none is)."""
        now = self.clock()
        taken = self.database.vacations(account.id)
        year = dt.datetime.fromtimestamp(now, dt.UTC).year
        used = _used(taken)[year]
        until = next((end for start, end in taken if start <= now < end), None)
        return {
            "days_per_year": self.days,
            "used": used,
            "left": max(self.days - used, 0),
            "until": until,
        }

    def start(self, account: AccountRow, days: int) -> dict[str, Any]:
        """Start a vacation of `days` days now; return the [`status`][].

        Raises:
            BadRequest: days out of range, or none given on this server.
            Conflict: on vacation already, or past the year's allowance.
        """
        if self.days == 0:
            raise BadRequest("this server gives no vacation days")
        if not 1 <= days <= self.days:
            raise BadRequest(f"a vacation is 1 to {self.days} days, not {days}")
        now = self.clock()
        ends_at = now + days * DAY

        def check(taken: list[tuple[float, float]]) -> None:
            for start, end in taken:
                if start <= now < end:
                    shown = dt.datetime.fromtimestamp(end, dt.UTC)
                    raise Conflict(f"you are on vacation until {shown:%Y-%m-%d %H:%M} UTC")
            used = _used(taken)
            for year, count in sorted(days_by_year(now, ends_at).items()):
                if used[year] + count > self.days:
                    left = max(self.days - used[year], 0)
                    raise Conflict(
                        f"{days} days of vacation would take {used[year] + count} of {year}'s "
                        f"{self.days}: {left} left that year"
                    )

        self.database.add_vacation(account.id, now, ends_at, check)
        self.games.reschedule(account.id)
        return self.status(account)

    def end(self, account: AccountRow) -> dict[str, Any]:
        """End the vacation under way now; return the [`status`][].

        Raises:
            Conflict: none is under way.
        """
        if not self.database.end_vacation(account.id, self.clock()):
            raise Conflict("you are not on vacation")
        self.games.reschedule(account.id)
        return self.status(account)
