"""Games between people on different computers, each holding the secret of a seat.

A player creates a game ([`OnlineGames.create`][]) and gets two secrets: their own seat's and
the invitation's (the other seat's), each at least 128 bits from `secrets`. The game's page is
the same for everyone; what a request may do depends only on the secret it carries:

- the holder of a seat's secret moves, resigns and names themself for that seat, and sees the
  moves they can play when it is their turn;
- anyone else (no secret, or a wrong one) watches: the position, the moves, the clocks and the
  result, never a legal move list, never a secret.

Secrets are kept only as their SHA-256 hashes and compared in constant time. Every move carries
the ply it was made at ([`GameSession.plies_made`][abstractgames.web.sessions.GameSession]):
a move sent twice (a double click, a retry after a timeout) is played once, and the second
gets a [`Conflict`][abstractgames.web.errors.Conflict] saying the match has moved on.

The match itself is an ordinary [`GameSession`][abstractgames.web.sessions.GameSession] with
two people at its seats, played by the same referee as `abstractgames play`: clocks, chance,
the games of a match and the record are the referee's.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import threading
from typing import Any

import attrs

from ..players import HUMAN
from ..protocol import Game, State
from ..records import ClockSettings
from ..text import excerpt
from .errors import BadRequest, Forbidden, NotFound
from .sessions import GameSession, Sessions

__all__ = ["MAX_NAME", "SECRET_BYTES", "OnlineGame", "OnlineGames", "Seat", "hash_secret"]

SECRET_BYTES = 24
"""The bytes of randomness in a seat's secret (192 bits; its text is 32 characters)."""
MAX_NAME = 40
"""The longest display name a player may give."""


def hash_secret(secret: str) -> str:
    """The SHA-256 of a seat's secret, in hex: what is kept of it."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def _name(name: str | None) -> str | None:
    """A display name, stripped, or `None` for none.

    Raises:
        BadRequest: too long, or with control characters.
    """
    if name is None or not name.strip():
        return None
    name = " ".join(name.split())
    if len(name) > MAX_NAME or not name.isprintable():
        raise BadRequest(f"a name is at most {MAX_NAME} printable characters, not {excerpt(name)}")
    return name


@attrs.frozen
class Seat:
    """A seat of an online game: its player number, the hash of its secret, and the name its
    holder gave (`None` until they give one)."""

    number: int
    secret_hash: str = attrs.field(repr=False)
    name: str | None = None

    def holds(self, secret: str) -> bool:
        """Whether `secret` is this seat's (in constant time)."""
        return hmac.compare_digest(hash_secret(secret), self.secret_hash)


class OnlineGame:
    """A match between the holders of two seats' secrets."""

    def __init__(self, session: GameSession, seats: tuple[Seat, Seat], creator: int) -> None:
        self.session = session
        self.id = session.id
        self.creator = creator
        """The seat of the player who created the game."""
        self._seats = list(seats)
        self._lock = threading.Lock()

    @property
    def seats(self) -> tuple[Seat, Seat]:
        with self._lock:
            return self._seats[0], self._seats[1]

    def seat_of(self, secret: str | None) -> int | None:
        """The seat whose secret `secret` is, or `None` (a watcher). Both seats are compared,
        so the time taken does not say which one matched."""
        if not secret:
            return None
        found = None
        for seat in self.seats:
            if seat.holds(secret):
                found = seat.number
        return found

    def _holder(self, secret: str | None, what: str) -> int:
        seat = self.seat_of(secret)
        if seat is None:
            raise Forbidden(f"only a player of this game can {what}: this link is a watcher's")
        return seat

    def play(self, secret: str | None, text: str, ply: int) -> str:
        """Play `text` for the seat of `secret`, made at `ply`; return it in canonical notation.

        Raises:
            Forbidden: `secret` holds no seat.
            Conflict: it is not that seat's turn, or the match is past `ply`.
            IllegalMoveError: the move cannot be played.
        """
        seat = self._holder(secret, "move")
        return self.session.play(text, player=seat, ply=ply)

    def resign(self, secret: str | None) -> int:
        """Resign the match for the seat of `secret`; return the seat.

        Raises:
            Forbidden: `secret` holds no seat.
            Conflict: the match is over.
        """
        return self.session.resign(self._holder(secret, "resign"))

    def rename(self, secret: str | None, name: str | None) -> Seat:
        """Give the seat of `secret` the display name `name` (`None` or blank: none).

        Raises:
            Forbidden: `secret` holds no seat.
            BadRequest: a name too long or with control characters.
        """
        number = self._holder(secret, "name a seat")
        with self._lock:
            seat = attrs.evolve(self._seats[number - 1], name=_name(name))
            self._seats[number - 1] = seat
        self.session.changed()
        return seat

    def snapshot(self, secret: str | None = None) -> dict[str, Any]:
        """What the holder of `secret` sees (a watcher without one): the match's snapshot, the
        seats with their names, and `you`, the viewer's seat (`None` for a watcher). Only the
        seat to move is sent its legal moves."""
        seat = self.seat_of(secret)
        view = self.session.snapshot()
        if view["awaiting"] is not None and view["awaiting"] != seat:
            view.update(awaiting=None, legal=[], kinds=[], goal="", can_undo=False)
        view["you"] = seat
        view["saved"] = None  # where the server keeps its files is the operator's business
        view["seats"] = [{"number": s.number, "name": s.name} for s in self.seats]
        for player in view["players"]:
            player["human"] = player["number"] == seat
        return view


class OnlineGames:
    """Every online game of a server, by id.

    Args:
        sessions: where the matches are played.
        rng: draws the creator's seat when they leave it to chance.
    """

    def __init__(self, sessions: Sessions, rng: random.Random | None = None) -> None:
        self.sessions = sessions
        self.rng = rng or random.Random(secrets.randbits(64))
        self._games: dict[str, OnlineGame] = {}
        self._lock = threading.Lock()

    def create(
        self,
        game: Game,
        *,
        seat: int | None = None,
        clock: ClockSettings | None = None,
        name: str | None = None,
        start: State | None = None,
    ) -> tuple[OnlineGame, str, str]:
        """A new game between two people; return it, the creator's secret and the invitation's.

        `seat` is the creator's (1 or 2; `None`: drawn). The match starts at once: the clock of
        the player to move runs from the start (as at a board).

        Raises:
            BadRequest: a seat other than 1 or 2, or a bad name.
            Conflict: the server plays as many matches as it may.
        """
        if seat is None:
            with self._lock:
                seat = self.rng.choice((1, 2))
        if seat not in (1, 2):
            raise BadRequest(f"the seat is 1 or 2, not {excerpt(seat)}")
        mine, theirs = secrets.token_urlsafe(SECRET_BYTES), secrets.token_urlsafe(SECRET_BYTES)
        holders = {seat: (mine, _name(name)), 3 - seat: (theirs, None)}
        seats = (
            Seat(1, hash_secret(holders[1][0]), holders[1][1]),
            Seat(2, hash_secret(holders[2][0]), holders[2][1]),
        )
        session = self.sessions.create(game, (HUMAN, HUMAN), clock=clock, start=start)
        online = OnlineGame(session, seats, creator=seat)
        with self._lock:
            self._games[online.id] = online
        return online, mine, theirs

    def get(self, game_id: str) -> OnlineGame:
        """The online game with this id.

        Raises:
            NotFound: there is none.
        """
        with self._lock:
            found = self._games.get(game_id)
        if found is None:
            raise NotFound("no such game here")
        return found

    def games_of(self, secrets_held: list[str]) -> list[dict[str, Any]]:
        """A line for each game one of `secrets_held` has a seat in, those where it is that
        seat's turn first: `{"id", "seat", "title", "status", "your_move"}`."""
        with self._lock:
            games = list(self._games.values())
        found = []
        for online in games:
            for secret in secrets_held:
                seat = online.seat_of(secret)
                if seat is None:
                    continue
                view = online.session.snapshot()
                found.append(
                    {
                        "id": online.id,
                        "seat": seat,
                        "title": view["game"]["title"],
                        "status": view["status"],
                        "your_move": view["awaiting"] == seat,
                    }
                )
        return sorted(found, key=lambda line: not line["your_move"])
