"""The daily digest: one e-mail a day listing the correspondence games where it is one's move,
instead of an e-mail a move.

Who gets one: a seat whose holder gave an e-mail address and chose the digest
(`POST /api/online/ID/notifications` with `"digest": true`; that seat is then sent no e-mail
a move), and an account that chose it (`POST /api/account/digest`) and gave an address: its
bound seats are listed, wherever they were claimed. Only when the server sends mail (`serve
--smtp`).

When: the server's sweep thread looks every minute; from [`DIGEST_HOUR`][] (UTC) on, each
address with at least one game waiting for its move is sent one e-mail that day (UTC), and
no more. The day is claimed in the database, in a transaction, before the e-mail goes: with
several server processes on one database, one of them sends it. An e-mail that fails is not
sent again that day (at most one a day, rather than at least one).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from .database import Database, GameRow
from .notify import Notice, Notifier
from .online import Pace

if TYPE_CHECKING:
    from .online import OnlineGames

__all__ = ["DIGEST_HOUR", "MAX_LISTED", "Digests"]

DIGEST_HOUR = 7
"""The hour of the day (UTC) from which the day's digests are sent."""
MAX_LISTED = 50
"""The most games one digest lists (it says how many more there are)."""
_log = logging.getLogger(__name__)


class Digests:
    """The daily digests of a server.

    Args:
        database: the store.
        games: the online games (who is to move, the links).
        notifier: what sends e-mail (`None`, or one without SMTP: no digest is sent).
        hour: the hour (UTC) from which each day's digests go.
        clock: the time now (the games' clock by default).
    """

    def __init__(
        self,
        database: Database,
        games: OnlineGames,
        notifier: Notifier | None,
        *,
        hour: int = DIGEST_HOUR,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if not 0 <= hour <= 23:
            raise ValueError(f"the digest's hour is 0 to 23 (UTC), not {hour}")
        self.database = database
        self.games = games
        self.notifier = notifier
        self.hour = hour
        self.clock = clock or games.clock

    def send_due(self) -> int:
        """Send the digests due now (none before the day's hour, one a day per address);
        return how many were sent."""
        if self.notifier is None or not self.notifier.sends_email:
            return 0
        now = self.clock()
        today = dt.datetime.fromtimestamp(now, dt.UTC)
        if today.hour < self.hour:
            return 0
        waiting: dict[str, list[tuple[GameRow, int, bool]]] = defaultdict(list)
        for address, row, seat in self.database.digest_seats():
            if self._your_move(row, seat):
                holder = row.seats[seat - 1]
                waiting[address].append((row, seat, bool(holder.digest and holder.email)))
        sent = 0
        day = today.date().isoformat()
        for address, games in sorted(waiting.items()):
            if not self.database.claim_digest(address, day, now):
                continue  # sent today already, by this process or another
            self.notifier.notify(self._notice(games, day), email=address)
            sent += 1
        return sent

    def _your_move(self, row: GameRow, seat: int) -> bool:
        try:
            if not Pace.from_stored(row.time_control).correspondence:
                return False
            return bool(self.games.game_line(row, seat)["your_move"])
        except Exception as error:  # a damaged game stops no digest
            _log.debug("game %s left out of the digests: %s", row.id, error)
            return False

    def _notice(self, games: list[tuple[GameRow, int, bool]], day: str) -> Notice:
        lines = []
        for row, seat, by_seat in games[:MAX_LISTED]:
            line = self.games.game_line(row, seat)
            # a seat's own address gets its seat's link; an account's, the game's page (the
            # seat opens there for whoever signs in)
            link = (
                self.games.seat_link(row.id, self.games.mail_token(row.id, seat))
                if by_seat
                else self.games.link(row.id)
            )
            deadline = ""
            if row.deadline is not None:
                when = dt.datetime.fromtimestamp(row.deadline, dt.UTC)
                deadline = f", by {when:%Y-%m-%d %H:%M} UTC"
            lines.append(f"- {line['title']} against {line['opponent'] or 'someone'}{deadline}")
            lines.append(f"  {link}")
        if len(games) > MAX_LISTED:
            lines.append(f"... and {len(games) - MAX_LISTED} more")
        count = len(games)
        subject = f"Your move in {count} game{'s' if count != 1 else ''} ({day})"
        text = "It is your move in:\n\n" + "\n".join(lines)
        return Notice(
            game="digest",
            subject=subject,
            text=text,
            link=f"{self.games.base_url}/#/online",
            event="digest",
            link_label="Your games",
        )
