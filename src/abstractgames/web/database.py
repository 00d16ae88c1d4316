"""The server's store: games, seats, moves, lobby challenges and the one-person page's match
records in SQLite or PostgreSQL.

Every write is one transaction, and a method returns only after it is committed: a move whose
`Database.add_move` returned survives the process being killed right after. SQLite runs in WAL
mode with `synchronous=FULL`; PostgreSQL is reached through psycopg 3 and may be shared by
several processes. Secrets are never stored, only their `hash_secret`.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import queue
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql as sa_postgresql
from sqlalchemy.dialects import sqlite as sa_sqlite

from ..protocol import AbstractGamesError
from ..ratings import Rating, game_result, update

__all__ = [
    "SCHEMA_VERSION",
    "AccountRow",
    "Challenge",
    "Change",
    "Changes",
    "Database",
    "DatabaseError",
    "EntrantRow",
    "GameFinished",
    "GameRow",
    "MoveRow",
    "NameTaken",
    "NotADatabase",
    "NotYourChallenge",
    "PairingRow",
    "SchemaTooNew",
    "SeatRow",
    "StalePly",
    "TournamentRefused",
    "TournamentRow",
    "UnknownAccount",
    "UnknownChallenge",
    "UnknownGame",
    "UnknownRecord",
    "UnknownTournament",
    "UnsupportedDatabase",
    "hash_secret",
]

CHANNEL = "abstractgames_changes"
"""The PostgreSQL `NOTIFY` channel of changes."""


class DatabaseError(AbstractGamesError):
    """Something the store refuses or cannot do."""


class NotADatabase(DatabaseError, ValueError):
    """The file is not a database (or is corrupt), or the server cannot be reached."""


class SchemaTooNew(DatabaseError, ValueError):
    """The database was written by a newer version of this library."""


class UnsupportedDatabase(DatabaseError, ValueError):
    """A URL of a database other than SQLite and PostgreSQL."""


class UnknownGame(DatabaseError, LookupError):
    """No game by that id."""


class UnknownAccount(DatabaseError, LookupError):
    """No account by that name or id."""


class NameTaken(DatabaseError):
    """An account's name that another account has (as the names are compared)."""


class UnknownRecord(DatabaseError, LookupError):
    """No kept record has that name."""


class UnknownChallenge(DatabaseError, LookupError):
    """No open challenge by that id (it may have been accepted or cancelled)."""


class NotYourChallenge(DatabaseError):
    """A challenge cancelled by someone other than its creator."""


class GameFinished(DatabaseError):
    """A move on a finished game."""


class StalePly(DatabaseError):
    """A move numbered other than the count of moves stored: someone else moved first."""

    def __init__(self, game_id: str, ply: int, current: int) -> None:
        super().__init__(f"game {game_id}: move {ply} is stale, the game is at move {current}")
        self.game_id = game_id
        self.ply = ply
        self.current = current


def hash_secret(secret: str) -> str:
    """The hex sha256 of a seat or challenge secret: what the store keeps instead of it."""
    return hashlib.sha256(secret.encode()).hexdigest()


def _new_id() -> str:
    """A new game's id: 12 URL-safe characters, never starting with `-` (which a command line
    such as `server admin abort ID` would read as an option)."""
    while (new := secrets.token_urlsafe(9)).startswith("-"):
        pass
    return new


@attrs.frozen
class SeatRow:
    """One seat of a game: a secret holder (`secret_hash`) or a bot (`player_spec`)."""

    seat: int
    secret_hash: str | None
    name: str | None
    player_spec: str | None
    webhook_url: str | None
    email: str | None
    last_seen: float | None
    account_id: str | None = None
    """The account the seat is bound to (claimed by a signed-in person), if any."""
    account_blocked: bool = False
    """Whether that account is blocked by the server's operator."""
    digest: bool = False
    """Whether the seat's holder asked for one daily digest e-mail instead of one a move."""


@attrs.frozen
class AccountRow:
    """A person's account: a name reserved on the server (`key`, the name as names are
    compared, is unique), where sign-in links go, and what the operator made of it."""

    id: str
    name: str
    key: str
    email: str | None
    blocked: bool
    operator: bool
    created_at: float


@attrs.frozen
class MoveRow:
    """One stored move: its ply (0 for the first), text, time and the clocks after it."""

    ply: int
    move: str
    made_at: float
    clocks: dict[str, Any] | None


@attrs.frozen
class GameRow:
    """A stored game with its seats and moves in order."""

    id: str
    game_spec: str
    time_control: dict[str, Any] | str
    start_position: str | None
    seats: tuple[SeatRow, ...]
    moves: tuple[MoveRow, ...]
    result: dict[str, Any] | None
    clocks: dict[str, Any] | None
    deadline: float | None
    created_at: float
    updated_at: float
    finished_at: float | None
    record: str | None = None
    """The match record as the referee keeps it (JSON), if the game's owner stores one."""
    rematch: str | None = None
    """The game a rematch of this one started, if one did."""
    offer: dict[str, Any] | None = None
    """An offer a seat made at the current ply (e.g. `{"kind": "takeback", "seat": 1}`)."""
    given_back: float = 0.0
    """Seconds given back to the player to move for the servers' downtime in this turn."""

    @property
    def ply(self) -> int:
        """The number of moves made."""
        return len(self.moves)

    @property
    def finished(self) -> bool:
        """Whether the game has a result."""
        return self.result is not None


@attrs.frozen
class Challenge:
    """An open lobby challenge; `side` is the creator's seat (`None`: chosen on acceptance)."""

    id: str
    game_spec: str
    time_control: dict[str, Any] | str
    side: int | None
    creator_hash: str
    name: str | None
    created_at: float


@attrs.frozen
class Change:
    """Something changed: `kind` `"game"` (game `game_id`, now at `ply`), `"lobby"`, or
    `"all"` (notifications may have been missed: re-read everything)."""

    kind: str
    game_id: str | None = None
    ply: int | None = None


# The current schema, for queries; `_MIGRATIONS` creates it.
_META = sa.MetaData()
_VERSION = sa.Table("schema_version", _META, sa.Column("version", sa.Integer, nullable=False))
_COUNTER = sa.Table(
    "changes",
    _META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("counter", sa.BigInteger, nullable=False),
)
_GAMES = sa.Table(
    "games",
    _META,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game_spec", sa.Text, nullable=False),
    sa.Column("time_control", sa.Text, nullable=False),
    sa.Column("start_position", sa.Text),
    sa.Column("ply", sa.Integer, nullable=False),
    sa.Column("result", sa.Text),
    sa.Column("clocks", sa.Text),
    sa.Column("deadline", sa.Float),
    sa.Column("change_seq", sa.BigInteger, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float),
    sa.Column("record", sa.Text),
    sa.Column("rematch", sa.String(32)),
    sa.Column("offer", sa.Text),
    sa.Column("given_back", sa.Float),
    sa.Column("ratings", sa.Text),
)
_SEATS = sa.Table(
    "seats",
    _META,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("secret_hash", sa.String(64)),
    sa.Column("name", sa.Text),
    sa.Column("player_spec", sa.Text),
    sa.Column("webhook_url", sa.Text),
    sa.Column("email", sa.Text),
    sa.Column("last_seen", sa.Float),
    sa.Column("account_id", sa.String(32)),
    sa.Column("digest", sa.Boolean),
)
_MOVES = sa.Table(
    "moves",
    _META,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
    sa.Column("ply", sa.Integer, nullable=False),
    sa.Column("move", sa.Text, nullable=False),
    sa.Column("made_at", sa.Float, nullable=False),
    sa.Column("clocks", sa.Text),
    sa.UniqueConstraint("game_id", "ply", name="moves_game_ply"),
)
_CHALLENGES = sa.Table(
    "challenges",
    _META,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game_spec", sa.Text, nullable=False),
    sa.Column("time_control", sa.Text, nullable=False),
    sa.Column("side", sa.Integer),
    sa.Column("creator_hash", sa.String(64), nullable=False),
    sa.Column("name", sa.Text),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("account_id", sa.String(32)),
)
_RECORDS = sa.Table(
    "records",
    _META,
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("game_spec", sa.Text, nullable=False),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("finished", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)


_SWEEPS = sa.Table(
    "sweeps",
    _META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("at", sa.Float, nullable=False),
)

_KEYS = sa.Table(
    "server_keys",
    _META,
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("key", sa.String(128), nullable=False),
)

_ACCOUNTS = sa.Table(
    "accounts",
    _META,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("key", sa.String(64), nullable=False, unique=True),
    sa.Column("email", sa.Text),
    sa.Column("recovery_hash", sa.String(64)),
    sa.Column("blocked", sa.Boolean, nullable=False),
    sa.Column("operator", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)
_SIGN_INS = sa.Table(
    "sign_in_tokens",
    _META,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("account_id", sa.String(32), nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)
_SESSIONS = sa.Table(
    "sessions",
    _META,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("account_id", sa.String(32), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
)
_RATINGS = sa.Table(
    "ratings",
    _META,
    sa.Column("account_id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(64), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("deviation", sa.Float, nullable=False),
    sa.Column("volatility", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

_VACATIONS = sa.Table(
    "vacations",
    _META,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("account_id", sa.String(32), nullable=False),
    sa.Column("starts_at", sa.Float, nullable=False),
    sa.Column("ends_at", sa.Float, nullable=False),
)
_ACCOUNT_DIGESTS = sa.Table(
    "account_digests",
    _META,
    sa.Column("account_id", sa.String(32), primary_key=True),
)
_DIGESTS_SENT = sa.Table(
    "digests_sent",
    _META,
    sa.Column("address", sa.String(320), primary_key=True),
    sa.Column("day", sa.String(10), nullable=False),
    sa.Column("sent_at", sa.Float, nullable=False),
)

# Tournaments for people (see `abstractgames.web.club`): each tournament, its entrants, and its
# pairings round by round with the game each was played in.
_TOURNAMENTS = sa.Table(
    "club_tournaments",
    _META,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("game_spec", sa.Text, nullable=False),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("rounds", sa.Integer, nullable=False),
    sa.Column("time_control", sa.Text, nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("creator_id", sa.String(32), nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("max_entrants", sa.Integer, nullable=False),
    sa.Column("starts_at", sa.Float),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float),
)
_ENTRANTS = sa.Table(
    "club_entrants",
    _META,
    sa.Column("tournament_id", sa.String(32), primary_key=True),
    sa.Column("entrant", sa.String(255), primary_key=True),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("account_id", sa.String(32)),
    sa.Column("player_spec", sa.Text),
    sa.Column("joined_at", sa.Float, nullable=False),
)
_PAIRINGS = sa.Table(
    "club_pairings",
    _META,
    sa.Column("tournament_id", sa.String(32), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("board", sa.Integer, primary_key=True),
    sa.Column("first", sa.String(255), nullable=False),
    sa.Column("second", sa.String(255)),
    sa.Column("game_id", sa.String(32)),
    sa.Column("summary", sa.Text),
)


@attrs.frozen
class EntrantRow:
    """One entrant of a tournament: an account (`account_id`) or a server bot (`player_spec`);
    `entrant` is its key in the tournament (`account:ID` or `bot:SPEC`), `number` its place in
    the order of entry."""

    entrant: str
    number: int
    name: str
    account_id: str | None
    player_spec: str | None
    joined_at: float


@attrs.frozen
class PairingRow:
    """One pairing of a round: `first` in seat 1, `second` in seat 2 (`None`: `first` sits out
    the round), the game it is played in once made, and the match's summary once it is over
    (`MatchSummary.to_json`, or `{"aborted": true}`)."""

    round: int
    board: int
    first: str
    second: str | None
    game_id: str | None
    summary: dict[str, Any] | None


@attrs.frozen
class TournamentRow:
    """A stored tournament (`state`: `"signup"`, `"playing"`, `"finished"` or `"cancelled"`;
    `round`: the round under way, 0 before the start)."""

    id: str
    title: str
    game_spec: str
    format: str
    rounds: int
    time_control: dict[str, Any] | str
    rated: bool
    creator_id: str
    creator_name: str
    state: str
    round: int
    max_entrants: int
    starts_at: float | None
    created_at: float
    updated_at: float
    finished_at: float | None
    entrants: tuple[EntrantRow, ...] = ()
    pairings: tuple[PairingRow, ...] = ()


class UnknownTournament(DatabaseError, LookupError):
    """No tournament by that id."""


class TournamentRefused(DatabaseError):
    """A tournament's change that its state refuses (sign-up closed, full, entered twice)."""


_LATER_GAME_COLUMNS = ("record", "rematch", "offer", "given_back", "ratings")
"""Columns of `games` that a later migration adds."""


def _migration_1(conn: sa.Connection) -> None:
    """The first schema."""
    meta = sa.MetaData()
    sa.Table("schema_version", meta, sa.Column("version", sa.Integer, nullable=False))
    sa.Table(
        "changes",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("counter", sa.BigInteger, nullable=False),
    )
    games = sa.Table(
        "games",
        meta,
        *(
            sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
            for c in _GAMES.columns
            if c.name not in _LATER_GAME_COLUMNS
        ),
    )
    sa.Index("games_change_seq", games.c.change_seq)
    seats = sa.Table(
        "seats",
        meta,
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("secret_hash", sa.String(64)),
        sa.Column("name", sa.Text),
        sa.Column("player_spec", sa.Text),
    )
    sa.Index("seats_secret_hash", seats.c.secret_hash)
    sa.Table(
        "moves",
        meta,
        *(sa.Column(c.name, c.type, nullable=c.nullable) for c in _MOVES.columns),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.UniqueConstraint("game_id", "ply", name="moves_game_ply"),
    )
    sa.Table(
        "challenges",
        meta,
        *(
            sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
            for c in _CHALLENGES.columns
            if c.name != "account_id"  # added by migration 8
        ),
    )
    meta.create_all(conn)
    conn.execute(sa.insert(_COUNTER).values(id=1, counter=0))


def _migration_2(conn: sa.Connection) -> None:
    """Seat notification settings and presence; an index for correspondence deadlines."""
    for column in ("webhook_url TEXT", "email TEXT", "last_seen FLOAT"):
        conn.execute(sa.text(f"ALTER TABLE seats ADD COLUMN {column}"))
    sa.Index("games_deadline", _GAMES.c.deadline).create(conn)


def _migration_3(conn: sa.Connection) -> None:
    """Each game's match record (the referee's JSON), written with every move; the rematch a
    finished game led to."""
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN record TEXT"))
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN rematch VARCHAR(32)"))


def _migration_4(conn: sa.Connection) -> None:
    """The match records of the one-person page, kept by name."""
    meta = sa.MetaData()
    records = sa.Table(
        "records",
        meta,
        *(
            sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable)
            for c in _RECORDS.columns
        ),
    )
    sa.Index("records_updated_at", records.c.updated_at)
    meta.create_all(conn)


def _migration_5(conn: sa.Connection) -> None:
    """An offer one seat makes the other (a takeback), open until the game moves on."""
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN offer TEXT"))


def _migration_6(conn: sa.Connection) -> None:
    """The time given back to the player to move for a server's downtime, and when a server
    last swept the clocks."""
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN given_back FLOAT"))
    meta = sa.MetaData()
    sa.Table(
        "sweeps",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    ).create(conn)


def _migration_7(conn: sa.Connection) -> None:
    """The server's own keys (one makes the seat links sent in e-mails), shared by every
    process on the database."""
    meta = sa.MetaData()
    sa.Table(
        "server_keys",
        meta,
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("key", sa.String(128), nullable=False),
    ).create(conn)


def _migration_8(conn: sa.Connection) -> None:
    """Accounts (a reserved name, a recovery code's hash, blocked and operator flags), their
    one-time sign-in tokens and sessions (hashed), the account a seat or a challenge is bound
    to, and the Glicko-2 ratings of accounts per game, with each rated game's changes."""
    conn.execute(sa.text("ALTER TABLE seats ADD COLUMN account_id VARCHAR(32)"))
    conn.execute(sa.text("ALTER TABLE challenges ADD COLUMN account_id VARCHAR(32)"))
    conn.execute(sa.text("ALTER TABLE games ADD COLUMN ratings TEXT"))
    meta = sa.MetaData()
    for table in (_ACCOUNTS, _SIGN_INS, _SESSIONS, _RATINGS):
        table.to_metadata(meta)
    sa.Index("sessions_account_id", meta.tables["sessions"].c.account_id)
    meta.create_all(conn)
    seats = sa.Table("seats", sa.MetaData(), sa.Column("account_id", sa.String(32)))
    sa.Index("seats_account_id", seats.c.account_id).create(conn)


def _migration_vacations_and_digests(conn: sa.Connection) -> None:
    """Correspondence players' vacations (an account's periods whose time their clocks do not
    count), the choice of a daily digest e-mail (a seat's, an account's) and the day each
    address was last sent one."""
    conn.execute(sa.text("ALTER TABLE seats ADD COLUMN digest BOOLEAN"))
    meta = sa.MetaData()
    for table in (_VACATIONS, _ACCOUNT_DIGESTS, _DIGESTS_SENT):
        table.to_metadata(meta)
    sa.Index("vacations_account_id", meta.tables["vacations"].c.account_id)
    meta.create_all(conn)


def _migration_club_tournaments(conn: sa.Connection) -> None:
    """Tournaments for people: each tournament, its entrants and its pairings by round, with
    the game each pairing is played in."""
    meta = sa.MetaData()
    for table in (_TOURNAMENTS, _ENTRANTS, _PAIRINGS):
        table.to_metadata(meta)
    sa.Index("club_tournaments_state", meta.tables["club_tournaments"].c.state)
    sa.Index("club_pairings_game_id", meta.tables["club_pairings"].c.game_id)
    meta.create_all(conn)


_MIGRATIONS: tuple[Callable[[sa.Connection], None], ...] = (
    _migration_1,
    _migration_2,
    _migration_3,
    _migration_4,
    _migration_5,
    _migration_6,
    _migration_7,
    _migration_8,
    _migration_vacations_and_digests,
    _migration_club_tournaments,
)
"""Migration `i` brings the schema from version `i` to `i + 1`."""

SCHEMA_VERSION = len(_MIGRATIONS)
"""The schema version this code writes."""


def _url(url_or_path: str | Path) -> sa.URL:
    text = str(url_or_path)
    if "://" not in text:
        return sa.URL.create("sqlite", database=str(Path(text).resolve()))
    try:
        url = sa.make_url(text)
    except sa_exc.ArgumentError:
        raise UnsupportedDatabase(f"not a database URL: {text!r}") from None
    if url.drivername in ("sqlite", "sqlite+pysqlite"):
        if not url.database or url.database == ":memory:":
            raise UnsupportedDatabase("an SQLite database needs a file: sqlite:///path")
        return url.set(drivername="sqlite")
    if url.drivername in ("postgresql", "postgres", "postgresql+psycopg"):
        return url.set(drivername="postgresql+psycopg")
    raise UnsupportedDatabase(
        f"unsupported database {url.drivername!r}: use a file path, sqlite:/// or postgresql://"
    )


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True)


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _setting(text: str) -> Any:
    """A stored setting: its JSON value, or the text itself if it is not JSON (damaged: the
    reader refuses it, and the rest of the row is still read)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


class _Hub:
    """The in-process subscribers of each SQLite file (several `Database` objects may share one)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[Changes]] = {}

    def add(self, key: str, changes: Changes) -> None:
        with self._lock:
            self._subscribers.setdefault(key, set()).add(changes)

    def remove(self, key: str, changes: Changes) -> None:
        with self._lock:
            self._subscribers.get(key, set()).discard(changes)

    def _targets(self, key: str) -> list[Changes]:
        with self._lock:
            return list(self._subscribers.get(key, ()))

    def publish(self, key: str, change: Change) -> None:
        for target in self._targets(key):
            target._put(change)

    def claim(self, key: str, seq: int) -> None:
        """Counter value `seq` is being taken by this process: its pollers must not report it,
        since its change is published once committed."""
        for target in self._targets(key):
            target._claim(seq)

    def release(self, key: str, seqs: Iterable[int]) -> None:
        """The transaction that took `seqs` rolled back: another process may take them."""
        for target in self._targets(key):
            target._release(seqs)


_HUB = _Hub()


class Changes:
    """A stream of changes (`Change`) from every process using the database, from `Database.listen`.

    On PostgreSQL, a thread LISTENs on its own connection (reconnecting, then reporting a
    `"all"` change, if the connection drops). On SQLite, changes made in this process arrive at
    once and, when `poll` is set, a thread reads the database's change counter every `poll`
    seconds to see other processes' changes. A change may be reported more than once.
    """

    def __init__(self, database: Database, poll: float | None) -> None:
        self._database = database
        self._queue: queue.Queue[Change | None] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._own: set[int] = set()
        """The counter's values taken by this process's writes, reported at once when committed."""
        self._own_lock = threading.Lock()
        if database.dialect == "postgresql":
            self._thread = threading.Thread(target=self._listen, daemon=True, name="db-listen")
        else:
            _HUB.add(database._key, self)
            self._ready.set()
            if poll is not None:
                self._seq = database._counter()
                self._thread = threading.Thread(
                    target=self._poll, args=(poll,), daemon=True, name="db-poll"
                )
        if self._thread is not None:
            self._thread.start()
        self._ready.wait(10)

    def _put(self, change: Change) -> None:
        self._queue.put(change)

    def _claim(self, seq: int) -> None:
        with self._own_lock:
            self._own.add(seq)

    def _release(self, seqs: Iterable[int]) -> None:
        with self._own_lock:
            self._own.difference_update(seqs)

    def get(self, timeout: float | None = None) -> Change | None:
        """The next change, or `None` after `timeout` seconds (or once closed)."""
        if self._stop.is_set() and self._queue.empty():
            return None
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def __iter__(self) -> Iterator[Change]:
        while (change := self.get()) is not None:
            yield change

    def close(self) -> None:
        """Stop listening; an iteration in progress ends."""
        if self._stop.is_set():
            return
        self._stop.set()
        _HUB.remove(self._database._key, self)
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> Changes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _poll(self, interval: float) -> None:
        while not self._stop.wait(interval):
            with contextlib.suppress(sa_exc.SQLAlchemyError):
                seq = self._database._counter()
                if seq != self._seq:
                    with self._own_lock:
                        own = set(self._own)
                        self._own = {s for s in self._own if s > seq}
                    for game_id, ply, changed in self._database._changed_since(self._seq):
                        if changed <= seq and changed not in own:  # another process's
                            self._put(Change("game", game_id, ply))
                    if all(s in own for s in range(self._seq + 1, seq + 1)):
                        self._seq = seq
                        continue
                    self._put(Change("lobby"))
                    self._seq = seq

    def _listen(self) -> None:
        import psycopg

        conninfo = self._database._url.set(drivername="postgresql").render_as_string(
            hide_password=False
        )
        dropped = False
        while not self._stop.is_set():
            try:
                with psycopg.connect(conninfo, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._ready.set()
                    if dropped:
                        self._put(Change("all"))
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=0.2):
                            self._put(Change(**json.loads(note.payload)))
            except psycopg.Error:
                dropped = True
                self._stop.wait(0.5)
        self._ready.set()


class Database:
    """An open store; use `Database.open`. Thread-safe: the server calls it from a thread pool."""

    def __init__(self, engine: sa.Engine, url: sa.URL) -> None:
        self._engine = engine
        self._url = url
        self.dialect: str = engine.dialect.name
        """`"sqlite"` or `"postgresql"`."""
        self._key = str(url.database) if self.dialect == "sqlite" else ""
        self._local = threading.local()  # the counter values each thread's last write took

    @classmethod
    def open(cls, url_or_path: str | Path, *, target: int | None = None) -> Database:
        """Open (creating or migrating to version `target`, by default the latest) a database:
        a file path, `sqlite:///path` or `postgresql://user@host:port/db`."""
        url = _url(url_or_path)
        if url.drivername == "sqlite":
            engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
            sa.event.listen(engine, "connect", _sqlite_connect)
            sa.event.listen(engine, "begin", _sqlite_begin)
        else:
            try:
                import psycopg  # noqa: F401
            except ImportError:
                raise UnsupportedDatabase(
                    "PostgreSQL needs psycopg: pip install 'abstractgames[postgresql]'"
                ) from None
            engine = sa.create_engine(  # a connection for each of the app's threads
                url, pool_pre_ping=True, pool_size=16, max_overflow=8
            )
        database = cls(engine, url)
        try:
            database._migrate(SCHEMA_VERSION if target is None else target)
        except sa_exc.DBAPIError as error:
            engine.dispose()
            raise NotADatabase(f"cannot use {_shown(url)}: {error.orig}") from None
        except BaseException:
            engine.dispose()
            raise
        return database

    @property
    def shown(self) -> str:
        """The database's address for people, without a password."""
        return _shown(self._url)

    def close(self) -> None:
        """Close every connection."""
        self._engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def version(self) -> int:
        """The schema version of the database."""
        with self._engine.connect() as conn:
            return self._version(conn)

    def _version(self, conn: sa.Connection) -> int:
        if not sa.inspect(conn).has_table("schema_version"):
            return 0
        return int(conn.execute(sa.select(sa.func.max(_VERSION.c.version))).scalar() or 0)

    def _migrate(self, target: int) -> None:
        if not 0 <= target <= SCHEMA_VERSION:
            raise ValueError(f"no schema version {target}")
        with self._write() as conn:
            if self.dialect == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(7413)"))
            version = self._version(conn)
            if version > SCHEMA_VERSION:
                raise SchemaTooNew(
                    f"{_shown(self._url)} has schema version {version}; this abstractgames"
                    f" knows up to {SCHEMA_VERSION}: upgrade it"
                )
            for migration in _MIGRATIONS[version:target]:
                migration(conn)
            if target > version:
                conn.execute(sa.delete(_VERSION))
                conn.execute(sa.insert(_VERSION).values(version=target))

    @contextlib.contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        bumped = self._local.bumped = []
        conn = self._engine.connect().execution_options(sqlite_immediate=True)
        with conn, conn.begin():
            try:
                yield conn
            except BaseException:  # released before the rollback lets another writer take them
                _HUB.release(self._key, bumped)
                raise

    def _bump(self, conn: sa.Connection) -> int:
        conn.execute(sa.update(_COUNTER).values(counter=_COUNTER.c.counter + 1))
        seq = int(conn.execute(sa.select(_COUNTER.c.counter)).scalar_one())
        if self.dialect == "sqlite":  # claimed before the commit makes it visible to pollers
            _HUB.claim(self._key, seq)
            self._local.bumped.append(seq)
        return seq

    def _notify(self, conn: sa.Connection, change: Change) -> None:
        if self.dialect == "postgresql":
            payload = json.dumps(attrs.asdict(change))
            conn.execute(sa.select(sa.func.pg_notify(CHANNEL, payload)))

    def _published(self, change: Change) -> None:
        if self.dialect == "sqlite":
            _HUB.publish(self._key, change)

    def _counter(self) -> int:
        with self._engine.connect() as conn:
            return int(conn.execute(sa.select(_COUNTER.c.counter)).scalar_one())

    def _changed_since(self, seq: int) -> list[tuple[str, int, int]]:
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(_GAMES.c.id, _GAMES.c.ply, _GAMES.c.change_seq).where(
                    _GAMES.c.change_seq > seq
                )
            )
            return [(row.id, row.ply, row.change_seq) for row in rows]

    # Records of the one-person page

    def save_record(
        self, name: str, record: str, *, game_spec: str, finished: bool, now: float
    ) -> None:
        """Keep the match record `record` (JSON) under `name`, replacing what was kept there.

        Raises:
            DatabaseError: it could not be written (the database is unreachable or full).
        """
        values = {"record": record, "game_spec": game_spec, "finished": finished}
        try:
            with self._write() as conn:
                updated = conn.execute(
                    sa.update(_RECORDS)
                    .where(_RECORDS.c.name == name)
                    .values(**values, updated_at=now)
                )
                if updated.rowcount == 0:
                    conn.execute(
                        sa.insert(_RECORDS).values(
                            name=name, **values, created_at=now, updated_at=now
                        )
                    )
        except sa_exc.SQLAlchemyError as error:
            reason = getattr(error, "orig", None) or error
            raise DatabaseError(
                f"cannot keep the record {name} in {self.shown}: {reason}"
            ) from None

    def record(self, name: str) -> str:
        """The record kept under `name`; `UnknownRecord` if there is none."""
        with self._engine.connect() as conn:
            text = conn.execute(
                sa.select(_RECORDS.c.record).where(_RECORDS.c.name == name)
            ).scalar()
        if text is None:
            raise UnknownRecord(f"no record {name!r}")
        return str(text)

    def records(self, limit: int) -> list[tuple[str, float]]:
        """The names of the `limit` records updated last, with when, the latest first."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(_RECORDS.c.name, _RECORDS.c.updated_at)
                .order_by(_RECORDS.c.updated_at.desc(), _RECORDS.c.name.desc())
                .limit(limit)
            )
            return [(row.name, row.updated_at) for row in rows]

    def has_record(self, name: str) -> bool:
        """Whether a record is kept under `name`."""
        with self._engine.connect() as conn:
            found = conn.execute(sa.select(_RECORDS.c.name).where(_RECORDS.c.name == name))
            return found.first() is not None

    # Games

    def create_game(
        self,
        game_spec: str,
        time_control: dict[str, Any] | str,
        seats: Sequence[tuple[str | None, ...]],
        start_position: str | None,
        created_at: float,
        *,
        deadline: float | None = None,
        record: str | None = None,
    ) -> str:
        """Store a new game and return its id. Each seat is `(secret_hash, name)`,
        `(secret_hash, name, player_spec)` or `(secret_hash, name, player_spec, account_id)`
        (bound to that account); a bot's or a local player's hash is `None`;
        `record` is the match record so far, if the caller keeps one."""
        with self._write() as conn:
            game_id = self._insert_game(
                conn, game_spec, time_control, seats, start_position, created_at, deadline, record
            )
        self._published(Change("game", game_id, 0))
        return game_id

    def _insert_game(
        self,
        conn: sa.Connection,
        game_spec: str,
        time_control: dict[str, Any] | str,
        seats: Sequence[tuple[str | None, ...]],
        start_position: str | None,
        created_at: float,
        deadline: float | None,
        record: str | None = None,
    ) -> str:
        game_id = _new_id()
        while conn.execute(sa.select(_GAMES.c.id).where(_GAMES.c.id == game_id)).first():
            game_id = _new_id()
        conn.execute(
            sa.insert(_GAMES).values(
                id=game_id,
                game_spec=game_spec,
                time_control=_dumps(time_control),
                start_position=start_position,
                ply=0,
                deadline=deadline,
                change_seq=self._bump(conn),
                created_at=created_at,
                updated_at=created_at,
                **({} if record is None else {"record": record}),
            )
        )
        bound = any(len(seat) > 3 and seat[3] is not None for seat in seats)
        conn.execute(
            sa.insert(_SEATS),
            [
                {
                    "game_id": game_id,
                    "seat": index,
                    "secret_hash": seat[0],
                    "name": seat[1],
                    "player_spec": seat[2] if len(seat) > 2 else None,
                    **({"account_id": seat[3] if len(seat) > 3 else None} if bound else {}),
                }
                for index, seat in enumerate(seats)
            ],
        )
        self._notify(conn, Change("game", game_id, 0))
        return game_id

    def add_move(
        self,
        game_id: str,
        ply: int,
        move_text: str,
        made_at: float,
        clocks: dict[str, Any] | None = None,
        *,
        deadline: float | None = None,
        record: str | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        """Store move `ply` (the count of moves stored so far) once committed, with the clocks
        after it and the game's new correspondence `deadline`; raise `StalePly` if another
        move `ply` got there first, `GameFinished` if the game is over.

        `record` replaces the stored match record and `result`, if given, finishes the game,
        both in the same transaction as the move."""
        values: dict[str, Any] = {}
        if record is not None:
            values["record"] = record
        if result is not None:
            values.update(result=_dumps(result), finished_at=made_at)
            deadline = None
        try:
            with self._write() as conn:
                updated = conn.execute(
                    sa.update(_GAMES)
                    .where(_GAMES.c.id == game_id, _GAMES.c.ply == ply, _GAMES.c.result.is_(None))
                    .values(
                        ply=ply + 1,
                        clocks=_dumps(clocks),
                        deadline=deadline,
                        updated_at=made_at,
                        change_seq=self._bump(conn),
                        offer=None,
                        given_back=None,
                        **values,
                    )
                )
                if updated.rowcount != 1:
                    raise self._refusal(conn, game_id, ply)
                conn.execute(
                    sa.insert(_MOVES).values(
                        game_id=game_id,
                        ply=ply,
                        move=move_text,
                        made_at=made_at,
                        clocks=_dumps(clocks),
                    )
                )
                if result is not None:
                    self._rate(conn, game_id, result, made_at)
                self._notify(conn, Change("game", game_id, ply + 1))
        except sa_exc.IntegrityError:
            with self._engine.connect() as conn:
                raise self._refusal(conn, game_id, ply) from None
        self._published(Change("game", game_id, ply + 1))

    def server_key(self, name: str) -> bytes:
        """The server's key `name` (32 random bytes), made the first time it is asked for; the
        same for every process on this database."""
        for _ in range(2):  # a second time if another process made it at the same moment
            with contextlib.suppress(sa_exc.IntegrityError), self._write() as conn:
                found = conn.execute(sa.select(_KEYS.c.key).where(_KEYS.c.name == name)).scalar()
                if found is None:
                    found = secrets.token_hex(32)
                    conn.execute(sa.insert(_KEYS).values(name=name, key=found))
                return bytes.fromhex(found)
        raise DatabaseError(f"the server key {name!r} could not be made")

    def ping(self) -> None:
        """Ask the database something.

        Raises:
            DatabaseError: it does not answer.
        """
        try:
            with self._engine.connect() as conn:
                conn.execute(sa.select(sa.literal(1)))
        except sa_exc.SQLAlchemyError as error:
            raise DatabaseError(f"the database does not answer ({type(error).__name__})") from None

    def swept(self, now: float, outage: float) -> float:
        """Note that a server swept the clocks at `now`. If none had for more than `outage`
        seconds, no server was running the games: that time, less `outage`, is given back to
        the player to move in every unfinished game with a deadline (their turn starts that
        much later, their deadline moves as far); return it (0 when none is)."""
        with self._write() as conn:
            last = conn.execute(
                sa.select(_SWEEPS.c.at).where(_SWEEPS.c.id == 1).with_for_update()
            ).scalar()
            if last is None:
                conn.execute(sa.insert(_SWEEPS).values(id=1, at=now))
                return 0.0
            if now <= last:
                return 0.0
            conn.execute(sa.update(_SWEEPS).where(_SWEEPS.c.id == 1).values(at=now))
            down = now - last - outage
            if down <= 0:
                return 0.0
            waiting = sa.and_(_GAMES.c.result.is_(None), _GAMES.c.deadline.is_not(None))
            conn.execute(
                sa.update(_GAMES)
                .where(waiting)
                .values(
                    deadline=_GAMES.c.deadline + down,
                    given_back=sa.func.coalesce(_GAMES.c.given_back, 0.0) + down,
                    change_seq=self._bump(conn),
                )
            )
            self._notify(conn, Change("all"))
        self._published(Change("all"))
        return float(down)

    def _refusal(self, conn: sa.Connection, game_id: str, ply: int) -> DatabaseError:
        row = conn.execute(
            sa.select(_GAMES.c.ply, _GAMES.c.result).where(_GAMES.c.id == game_id)
        ).first()
        if row is None:
            return UnknownGame(f"no game {game_id}")
        if row.result is not None:
            return GameFinished(f"game {game_id} is finished")
        return StalePly(game_id, ply, row.ply)

    def create_rematch(
        self,
        game_id: str,
        seats: Sequence[tuple[str | None, ...]],
        created_at: float,
        *,
        deadline: float | None = None,
        record: str | None = None,
    ) -> str:
        """Start the rematch of finished game `game_id` (its spec, time control and start) with
        `seats`, once: return the new game's id, or the rematch a request got to first."""
        with self._write() as conn:
            row = conn.execute(  # locked: of two rematches asked at once, one is made
                sa.select(_GAMES).where(_GAMES.c.id == game_id).with_for_update()
            ).first()
            if row is None:
                raise UnknownGame(f"no game {game_id}")
            if row.rematch is not None:
                return str(row.rematch)
            accounts = {  # each player's account follows their secret to the other seat
                (r.secret_hash, r.player_spec): r.account_id
                for r in conn.execute(sa.select(_SEATS).where(_SEATS.c.game_id == game_id))
                if r.account_id is not None
            }
            seats = [
                (*seat[:3], accounts.get((seat[0], seat[2] if len(seat) > 2 else None)))
                if seat[0] is not None
                else seat
                for seat in seats
            ]
            new_id = self._insert_game(
                conn,
                row.game_spec,
                _setting(row.time_control),
                seats,
                row.start_position,
                created_at,
                deadline,
                record,
            )
            conn.execute(
                sa.update(_GAMES)
                .where(_GAMES.c.id == game_id)
                .values(rematch=new_id, change_seq=self._bump(conn))
            )
            self._notify(conn, Change("game", game_id, row.ply))
        self._published(Change("game", new_id, 0))
        self._published(Change("game", game_id, row.ply))
        return new_id

    def extend(self, game_id: str, ply: int, seconds: float) -> None:
        """Give the player to move at `ply` `seconds` more (their turn starts that much later,
        their deadline moves as far) and close the open offer, if the game is at `ply` and not
        over: `StalePly` or `GameFinished` otherwise."""
        with self._write() as conn:
            updated = conn.execute(
                sa.update(_GAMES)
                .where(_GAMES.c.id == game_id, _GAMES.c.ply == ply, _GAMES.c.result.is_(None))
                .values(
                    given_back=sa.func.coalesce(_GAMES.c.given_back, 0.0) + seconds,
                    deadline=_GAMES.c.deadline + seconds,
                    offer=None,
                    change_seq=self._bump(conn),
                )
            )
            if updated.rowcount != 1:
                raise self._refusal(conn, game_id, ply)
            self._notify(conn, Change("game", game_id, ply))
        self._published(Change("game", game_id, ply))

    def set_offer(self, game_id: str, ply: int, offer: dict[str, Any] | None) -> None:
        """Make (or, with `None`, withdraw) the game's open offer, if the game is at `ply` and
        not over: `StalePly` or `GameFinished` otherwise. The next move clears it."""
        with self._write() as conn:
            updated = conn.execute(
                sa.update(_GAMES)
                .where(_GAMES.c.id == game_id, _GAMES.c.ply == ply, _GAMES.c.result.is_(None))
                .values(offer=_dumps(offer), change_seq=self._bump(conn))
            )
            if updated.rowcount != 1:
                raise self._refusal(conn, game_id, ply)
            self._notify(conn, Change("game", game_id, ply))
        self._published(Change("game", game_id, ply))

    def finish_game(self, game_id: str, result: dict[str, Any], finished_at: float) -> None:
        """Record the result of a game (again: the later result replaces the earlier)."""
        with self._write() as conn:
            updated = conn.execute(
                sa.update(_GAMES)
                .where(_GAMES.c.id == game_id)
                .values(
                    result=_dumps(result),
                    finished_at=finished_at,
                    updated_at=finished_at,
                    deadline=None,
                    change_seq=self._bump(conn),
                )
                .returning(_GAMES.c.ply)
            )
            ply = updated.scalar()
            if ply is None:
                raise UnknownGame(f"no game {game_id}")
            self._notify(conn, Change("game", game_id, ply))
        self._published(Change("game", game_id, ply))

    def set_deadline(self, game_id: str, deadline: float | None) -> None:
        """Set (or clear) the time by which the side to move must move."""
        with self._write() as conn:
            updated = conn.execute(
                sa.update(_GAMES).where(_GAMES.c.id == game_id).values(deadline=deadline)
            )
            if updated.rowcount != 1:
                raise UnknownGame(f"no game {game_id}")

    def game(self, game_id: str) -> GameRow:
        """The game with that id; `UnknownGame` if there is none."""
        with self._engine.connect() as conn:
            found = self._games(conn, _GAMES.c.id == game_id)
        if not found:
            raise UnknownGame(f"no game {game_id}")
        return found[0]

    def games_for_seats(self, secret_hashes: Iterable[str]) -> list[GameRow]:
        """The games with a seat held by one of these secret hashes, newest first."""
        hashes = list(secret_hashes)
        if not hashes:
            return []
        ids = sa.select(_SEATS.c.game_id).where(_SEATS.c.secret_hash.in_(hashes))
        with self._engine.connect() as conn:
            return self._games(conn, _GAMES.c.id.in_(ids))

    def unfinished_games(self) -> list[GameRow]:
        """Every game without a result, newest first."""
        with self._engine.connect() as conn:
            return self._games(conn, _GAMES.c.result.is_(None))

    def quiet_bot_games(self, before: float) -> list[GameRow]:
        """The unfinished games with a bot's seat, no deadline running (a bot's turn has none)
        and nothing done since `before`: where a bot may have been left thinking by a server
        that went away."""
        with self._engine.connect() as conn:
            bots = sa.select(_SEATS.c.game_id).where(_SEATS.c.player_spec.is_not(None))
            return self._games(
                conn,
                sa.and_(
                    _GAMES.c.result.is_(None),
                    _GAMES.c.deadline.is_(None),
                    _GAMES.c.updated_at < before,
                    _GAMES.c.id.in_(bots),
                ),
            )

    def games_due(self, now: float) -> list[GameRow]:
        """The unfinished games whose deadline is `now` or earlier, earliest deadline first."""
        with self._engine.connect() as conn:
            due = self._games(conn, sa.and_(_GAMES.c.result.is_(None), _GAMES.c.deadline <= now))
        return sorted(due, key=lambda game: game.deadline or 0.0)

    def _games(self, conn: sa.Connection, where: sa.ColumnElement[bool]) -> list[GameRow]:
        rows = conn.execute(
            sa.select(_GAMES).where(where).order_by(_GAMES.c.created_at.desc(), _GAMES.c.id)
        ).all()
        if not rows:
            return []
        ids = [row.id for row in rows]
        seats: dict[str, list[SeatRow]] = {game_id: [] for game_id in ids}
        for seat in conn.execute(
            sa.select(_SEATS, _ACCOUNTS.c.blocked)
            .select_from(_SEATS.outerjoin(_ACCOUNTS, _ACCOUNTS.c.id == _SEATS.c.account_id))
            .where(_SEATS.c.game_id.in_(ids))
            .order_by(_SEATS.c.seat)
        ):
            seats[seat.game_id].append(
                SeatRow(
                    seat.seat,
                    seat.secret_hash,
                    seat.name,
                    seat.player_spec,
                    seat.webhook_url,
                    seat.email,
                    seat.last_seen,
                    seat.account_id,
                    bool(seat.blocked),
                    bool(seat.digest),
                )
            )
        moves: dict[str, list[MoveRow]] = {game_id: [] for game_id in ids}
        for move in conn.execute(
            sa.select(_MOVES).where(_MOVES.c.game_id.in_(ids)).order_by(_MOVES.c.ply)
        ):
            moves[move.game_id].append(
                MoveRow(move.ply, move.move, move.made_at, _loads(move.clocks))
            )
        return [
            GameRow(
                id=row.id,
                game_spec=row.game_spec,
                time_control=_setting(row.time_control),
                start_position=row.start_position,
                seats=tuple(seats[row.id]),
                moves=tuple(moves[row.id]),
                result=_loads(row.result),
                clocks=_loads(row.clocks),
                deadline=row.deadline,
                created_at=row.created_at,
                updated_at=row.updated_at,
                finished_at=row.finished_at,
                record=row.record,
                rematch=row.rematch,
                offer=_loads(row.offer),
                given_back=row.given_back or 0.0,
            )
            for row in rows
        ]

    # Seats

    def seat_for(self, game_id: str, secret: str) -> int | None:
        """The seat of game `game_id` that `secret` holds, or `None`."""
        wanted = hash_secret(secret)
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(_SEATS.c.seat, _SEATS.c.secret_hash).where(_SEATS.c.game_id == game_id)
            ).all()
        found = None
        for row in rows:
            if row.secret_hash is not None and hmac.compare_digest(row.secret_hash, wanted):
                found = row.seat
        return found

    def set_notifications(
        self, game_id: str, seat: int, *, webhook_url: str | None, email: str | None
    ) -> None:
        """Set where the holder of a seat is told it is their move (`None`: nowhere)."""
        self._update_seat(game_id, seat, webhook_url=webhook_url, email=email)

    def rename_seat(self, game_id: str, seat: int, name: str | None) -> None:
        """Give a seat's holder a display name (`None`: none); watchers are told."""
        with self._write() as conn:
            updated = conn.execute(
                sa.update(_SEATS)
                .where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
                .values(name=name)
            )
            if updated.rowcount != 1:
                raise UnknownGame(f"no seat {seat} in game {game_id}")
            ply = conn.execute(
                sa.update(_GAMES)
                .where(_GAMES.c.id == game_id)
                .values(change_seq=self._bump(conn))
                .returning(_GAMES.c.ply)
            ).scalar_one()
            self._notify(conn, Change("game", game_id, ply))
        self._published(Change("game", game_id, ply))

    def touch_seat(self, game_id: str, seat: int, now: float) -> None:
        """Record that the holder of a seat was seen at `now`."""
        self._update_seat(game_id, seat, last_seen=now)

    def _update_seat(self, game_id: str, seat: int, **values: Any) -> None:
        with self._write() as conn:
            updated = conn.execute(
                sa.update(_SEATS)
                .where(_SEATS.c.game_id == game_id, _SEATS.c.seat == seat)
                .values(**values)
            )
            if updated.rowcount != 1:
                raise UnknownGame(f"no seat {seat} in game {game_id}")

    # Lobby

    def create_challenge(
        self,
        game_spec: str,
        time_control: dict[str, Any] | str,
        side: int | None,
        creator_hash: str,
        name: str | None,
        created_at: float,
    ) -> str:
        """Open a lobby challenge and return its id; `side` is the creator's seat."""
        challenge_id = _new_id()
        with self._write() as conn:
            conn.execute(
                sa.insert(_CHALLENGES).values(
                    id=challenge_id,
                    game_spec=game_spec,
                    time_control=_dumps(time_control),
                    side=side,
                    creator_hash=creator_hash,
                    name=name,
                    created_at=created_at,
                )
            )
            self._bump(conn)
            self._notify(conn, Change("lobby"))
        self._published(Change("lobby"))
        return challenge_id

    def challenges(self) -> list[Challenge]:
        """The open challenges, oldest first."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(_CHALLENGES).order_by(_CHALLENGES.c.created_at, _CHALLENGES.c.id)
            ).all()
        return [
            Challenge(
                row.id,
                row.game_spec,
                _setting(row.time_control),
                row.side,
                row.creator_hash,
                row.name,
                row.created_at,
            )
            for row in rows
        ]

    def cancel_challenge(self, challenge_id: str, creator_hash: str) -> None:
        """Withdraw a challenge; only its creator may."""
        with self._write() as conn:
            row = conn.execute(
                sa.select(_CHALLENGES.c.creator_hash).where(_CHALLENGES.c.id == challenge_id)
            ).first()
            if row is None:
                raise UnknownChallenge(f"no open challenge {challenge_id}")
            if not hmac.compare_digest(row.creator_hash, creator_hash):
                raise NotYourChallenge(f"challenge {challenge_id} is someone else's")
            conn.execute(sa.delete(_CHALLENGES).where(_CHALLENGES.c.id == challenge_id))
            self._bump(conn)
            self._notify(conn, Change("lobby"))
        self._published(Change("lobby"))

    def expire_challenges(self, ids: Sequence[str]) -> None:
        """Take the challenges `ids` (past their time) out of the lobby."""
        if not ids:
            return
        with self._write() as conn:
            conn.execute(sa.delete(_CHALLENGES).where(_CHALLENGES.c.id.in_(list(ids))))
            self._bump(conn)
            self._notify(conn, Change("lobby"))
        self._published(Change("lobby"))

    def accept_challenge(
        self,
        challenge_id: str,
        acceptor_hash: str,
        name: str | None,
        accepted_at: float,
        *,
        start_position: str | None = None,
        deadline: float | None = None,
        record: Callable[[int], str] | None = None,
    ) -> str:
        """Turn a challenge into a game and return the game's id; of several acceptors exactly
        one wins, the others get `UnknownChallenge`. `record(creator_seat)` (seats 0 and 1)
        gives the new game's match record. The creator's seat is bound to the account the
        challenge was made from, if any ([`bind_challenge`][])."""
        with self._write() as conn:
            row = conn.execute(
                sa.delete(_CHALLENGES)
                .where(_CHALLENGES.c.id == challenge_id)
                .returning(*_CHALLENGES.c)
            ).first()
            if row is None:
                raise UnknownChallenge(f"no open challenge {challenge_id}")
            side = row.side if row.side is not None else secrets.randbelow(2)
            creator = (row.creator_hash, row.name, None, row.account_id)
            acceptor = (acceptor_hash, name)
            seats = [creator, acceptor] if side == 0 else [acceptor, creator]
            game_id = self._insert_game(
                conn,
                row.game_spec,
                _setting(row.time_control),
                seats,
                start_position,
                accepted_at,
                deadline,
                None if record is None else record(side),
            )
            self._notify(conn, Change("lobby"))
        self._published(Change("lobby"))
        self._published(Change("game", game_id, 0))
        return game_id

    # Accounts

    def create_account(
        self,
        name: str,
        key: str,
        *,
        email: str | None,
        recovery_hash: str | None,
        now: float,
        blocked: bool = False,
        operator: bool = False,
    ) -> AccountRow:
        """A new account `name`; `NameTaken` if an account's `key` (the name as names are
        compared) is `key` already."""
        account = AccountRow(_new_id(), name, key, email, blocked, operator, now)
        try:
            with self._write() as conn:
                if conn.execute(sa.select(_ACCOUNTS.c.id).where(_ACCOUNTS.c.key == key)).first():
                    raise NameTaken(f"the name {name} is taken")
                conn.execute(
                    sa.insert(_ACCOUNTS).values(
                        **attrs.asdict(account), recovery_hash=recovery_hash
                    )
                )
        except sa_exc.IntegrityError:  # made by another process at the same moment
            raise NameTaken(f"the name {name} is taken") from None
        return account

    def account(self, *, key: str | None = None, account_id: str | None = None) -> AccountRow:
        """The account whose name's key is `key` (or whose id is `account_id`);
        `UnknownAccount` if there is none."""
        where = _ACCOUNTS.c.key == key if key is not None else _ACCOUNTS.c.id == account_id
        with self._engine.connect() as conn:
            row = conn.execute(sa.select(_ACCOUNTS).where(where)).first()
        if row is None:
            raise UnknownAccount(f"no account {key if key is not None else account_id}")
        return _account(row)

    def accounts(self, limit: int = 1000) -> list[AccountRow]:
        """The accounts, the newest first."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(_ACCOUNTS).order_by(_ACCOUNTS.c.created_at.desc()).limit(limit)
            )
            return [_account(row) for row in rows]

    def recovery_hash(self, account_id: str) -> str | None:
        """The hash of the account's recovery code, if it has one."""
        with self._engine.connect() as conn:
            found = conn.execute(
                sa.select(_ACCOUNTS.c.recovery_hash).where(_ACCOUNTS.c.id == account_id)
            ).scalar()
        return None if found is None else str(found)

    def set_account(self, account_id: str, **values: Any) -> None:
        """Change an account's `email`, `recovery_hash`, `blocked` or `operator`. Blocking one
        ends its sessions and tells the games it has seats in."""
        unknown = set(values) - {"email", "recovery_hash", "blocked", "operator"}
        if unknown:
            raise ValueError(f"not an account's setting: {sorted(unknown)}")
        with self._write() as conn:
            updated = conn.execute(
                sa.update(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id).values(**values)
            )
            if updated.rowcount != 1:
                raise UnknownAccount(f"no account {account_id}")
            touched: list[tuple[str, int]] = []
            if "blocked" in values:
                if values["blocked"]:
                    conn.execute(sa.delete(_SESSIONS).where(_SESSIONS.c.account_id == account_id))
                touched = self._touch_account_games(conn, account_id)
        self._published_games(touched)

    def rename_account(self, account_id: str, name: str, key: str) -> None:
        """Call an account `name` (its key `key`), and its seats too; `NameTaken` if another
        account's key is `key`."""
        try:
            with self._write() as conn:
                other = conn.execute(
                    sa.select(_ACCOUNTS.c.id).where(
                        _ACCOUNTS.c.key == key, _ACCOUNTS.c.id != account_id
                    )
                ).first()
                if other is not None:
                    raise NameTaken(f"the name {name} is taken")
                updated = conn.execute(
                    sa.update(_ACCOUNTS)
                    .where(_ACCOUNTS.c.id == account_id)
                    .values(name=name, key=key)
                )
                if updated.rowcount != 1:
                    raise UnknownAccount(f"no account {account_id}")
                conn.execute(
                    sa.update(_SEATS).where(_SEATS.c.account_id == account_id).values(name=name)
                )
                touched = self._touch_account_games(conn, account_id)
        except sa_exc.IntegrityError:
            raise NameTaken(f"the name {name} is taken") from None
        self._published_games(touched)

    def merge_accounts(self, source_id: str, target_id: str) -> int:
        """Move every seat of account `source_id` to `target_id` (named as it is), keep for
        each game the rating of the two that has more games behind it, and delete
        `source_id`; return how many seats moved."""
        if source_id == target_id:
            raise ValueError("an account is merged into another one")
        with self._write() as conn:
            target = conn.execute(sa.select(_ACCOUNTS).where(_ACCOUNTS.c.id == target_id)).first()
            if target is None:
                raise UnknownAccount(f"no account {target_id}")
            touched = self._touch_account_games(conn, source_id)
            moved = conn.execute(
                sa.update(_SEATS)
                .where(_SEATS.c.account_id == source_id)
                .values(account_id=target_id, name=target.name)
            ).rowcount
            conn.execute(
                sa.update(_CHALLENGES)
                .where(_CHALLENGES.c.account_id == source_id)
                .values(account_id=target_id, name=target.name)
            )
            theirs = {
                r.game: r
                for r in conn.execute(sa.select(_RATINGS).where(_RATINGS.c.account_id == target_id))
            }
            for row in conn.execute(
                sa.select(_RATINGS).where(_RATINGS.c.account_id == source_id)
            ).all():
                kept = theirs.get(row.game)
                if kept is None or kept.games < row.games:
                    conn.execute(
                        sa.delete(_RATINGS).where(
                            _RATINGS.c.account_id == target_id, _RATINGS.c.game == row.game
                        )
                    )
                    conn.execute(
                        sa.update(_RATINGS)
                        .where(_RATINGS.c.account_id == source_id, _RATINGS.c.game == row.game)
                        .values(account_id=target_id)
                    )
            for table in (_RATINGS, _SESSIONS, _SIGN_INS):
                conn.execute(sa.delete(table).where(table.c.account_id == source_id))
            conn.execute(sa.delete(_ACCOUNTS).where(_ACCOUNTS.c.id == source_id))
        self._published_games(touched)
        return int(moved)

    def add_sign_in_token(self, token_hash: str, account_id: str, expires_at: float) -> None:
        """Keep a one-time sign-in token's hash until `expires_at` (the expired go meanwhile)."""
        with self._write() as conn:
            conn.execute(sa.delete(_SIGN_INS).where(_SIGN_INS.c.expires_at < expires_at - 86_400))
            conn.execute(
                sa.insert(_SIGN_INS).values(
                    token_hash=token_hash, account_id=account_id, expires_at=expires_at
                )
            )

    def use_sign_in_token(self, token_hash: str, now: float) -> AccountRow | None:
        """The account of a sign-in token that is not expired, once: the token is gone after."""
        with self._write() as conn:
            row = conn.execute(
                sa.delete(_SIGN_INS)
                .where(_SIGN_INS.c.token_hash == token_hash)
                .returning(_SIGN_INS.c.account_id, _SIGN_INS.c.expires_at)
            ).first()
            if row is None or row.expires_at < now:
                return None
            found = conn.execute(
                sa.select(_ACCOUNTS).where(_ACCOUNTS.c.id == row.account_id)
            ).first()
        return None if found is None else _account(found)

    def add_session(self, token_hash: str, account_id: str, now: float, expires_at: float) -> None:
        """Keep a session's token hash, signed in as `account_id` until `expires_at`."""
        with self._write() as conn:
            conn.execute(sa.delete(_SESSIONS).where(_SESSIONS.c.expires_at < now))
            conn.execute(
                sa.insert(_SESSIONS).values(
                    token_hash=token_hash,
                    account_id=account_id,
                    created_at=now,
                    expires_at=expires_at,
                )
            )

    def session(self, token_hash: str, now: float) -> AccountRow | None:
        """The account a session's token signs in, unless it expired or the account is
        blocked."""
        with self._engine.connect() as conn:
            row = conn.execute(
                sa.select(_ACCOUNTS)
                .join(_SESSIONS, _SESSIONS.c.account_id == _ACCOUNTS.c.id)
                .where(
                    _SESSIONS.c.token_hash == token_hash,
                    _SESSIONS.c.expires_at > now,
                    sa.not_(_ACCOUNTS.c.blocked),
                )
            ).first()
        return None if row is None else _account(row)

    def end_session(self, token_hash: str) -> None:
        """Forget a session (signing out)."""
        with self._write() as conn:
            conn.execute(sa.delete(_SESSIONS).where(_SESSIONS.c.token_hash == token_hash))

    def bind_seats(self, account_id: str, secret_hashes: Iterable[str], name: str) -> list[str]:
        """Bind to an account the seats these secret hashes hold that are bound to no other
        account, naming them `name`; return the games whose seats it holds now."""
        hashes = list(secret_hashes)
        if not hashes:
            return []
        with self._write() as conn:
            free = sa.and_(
                _SEATS.c.secret_hash.in_(hashes),
                sa.or_(_SEATS.c.account_id.is_(None), _SEATS.c.account_id == account_id),
            )
            games = sorted(
                {r.game_id for r in conn.execute(sa.select(_SEATS.c.game_id).where(free))}
            )
            conn.execute(sa.update(_SEATS).where(free).values(account_id=account_id, name=name))
            touched = self._touch(conn, games)
        self._published_games(touched)
        return games

    def bind_challenge(self, challenge_id: str, account_id: str, name: str) -> None:
        """Bind an open challenge to the account that made it: its creator's seat will be."""
        with self._write() as conn:
            conn.execute(
                sa.update(_CHALLENGES)
                .where(_CHALLENGES.c.id == challenge_id)
                .values(account_id=account_id, name=name)
            )

    def account_games(
        self, account_id: str, *, finished: bool | None = None, limit: int = 200
    ) -> list[GameRow]:
        """The games with a seat bound to the account (only the finished ones, or only the
        others, if asked), the newest first."""
        ids = sa.select(_SEATS.c.game_id).where(_SEATS.c.account_id == account_id)
        where: sa.ColumnElement[bool] = _GAMES.c.id.in_(ids)
        if finished is not None:
            done = _GAMES.c.result.is_not(None)
            where = sa.and_(where, done if finished else sa.not_(done))
        with self._engine.connect() as conn:
            latest = (
                sa.select(_GAMES.c.id)
                .where(where)
                .order_by(_GAMES.c.updated_at.desc())
                .limit(limit)
            )
            chosen = [row.id for row in conn.execute(latest)]
            return self._games(conn, _GAMES.c.id.in_(chosen)) if chosen else []

    def recent_games(self, limit: int = 100) -> list[GameRow]:
        """The games changed last, the latest first."""
        with self._engine.connect() as conn:
            latest = sa.select(_GAMES.c.id).order_by(_GAMES.c.updated_at.desc()).limit(limit)
            chosen = [row.id for row in conn.execute(latest)]
            found = self._games(conn, _GAMES.c.id.in_(chosen)) if chosen else []
        return sorted(found, key=lambda g: -g.updated_at)

    def game_ratings(self, game_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """What rating each seat had before and after each of these games that was rated."""
        if not game_ids:
            return {}
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(_GAMES.c.id, _GAMES.c.ratings).where(
                    _GAMES.c.id.in_(list(game_ids)), _GAMES.c.ratings.is_not(None)
                )
            )
            return {row.id: _loads(row.ratings) for row in rows}

    def ratings(self, account_id: str) -> list[dict[str, Any]]:
        """The account's rating in each game it was rated in: `{"game", "rating",
        "deviation", "volatility", "games", "updated"}`, by game."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(_RATINGS)
                .where(_RATINGS.c.account_id == account_id)
                .order_by(_RATINGS.c.game)
            )
            return [
                {
                    "game": row.game,
                    "rating": row.rating,
                    "deviation": row.deviation,
                    "volatility": row.volatility,
                    "games": row.games,
                    "updated": row.updated_at,
                }
                for row in rows
            ]

    def delete_game(self, game_id: str) -> None:
        """Delete a game, its seats and moves (a rematch of it, or it of another, is
        forgotten); `UnknownGame` if there is none."""
        with self._write() as conn:
            found = conn.execute(sa.select(_GAMES.c.id).where(_GAMES.c.id == game_id)).first()
            if found is None:
                raise UnknownGame(f"no game {game_id}")
            conn.execute(sa.update(_GAMES).where(_GAMES.c.rematch == game_id).values(rematch=None))
            conn.execute(sa.delete(_MOVES).where(_MOVES.c.game_id == game_id))
            conn.execute(sa.delete(_SEATS).where(_SEATS.c.game_id == game_id))
            conn.execute(sa.delete(_GAMES).where(_GAMES.c.id == game_id))
            self._bump(conn)
            self._notify(conn, Change("all"))
        self._published(Change("all"))

    def _rate(self, conn: sa.Connection, game_id: str, result: dict[str, Any], now: float) -> None:
        """Update the Glicko-2 ratings of the two accounts of a game that just finished (each
        game a rating period), in the transaction that finishes it; a game with a bot, or with
        a seat bound to no account, or both to one, is not rated."""
        seats = conn.execute(
            sa.select(_SEATS.c.seat, _SEATS.c.account_id, _SEATS.c.player_spec)
            .where(_SEATS.c.game_id == game_id)
            .order_by(_SEATS.c.seat)
        ).all()
        if len(seats) != 2 or any(s.account_id is None or s.player_spec for s in seats):
            return
        if seats[0].account_id == seats[1].account_id:
            return
        if self._unrated(conn, game_id):  # a game of a tournament that is not rated
            return
        winner = result.get("winner")
        if winner not in (1, 2, None):
            return
        spec = conn.execute(sa.select(_GAMES.c.game_spec).where(_GAMES.c.id == game_id)).scalar()
        game = str(spec or "").partition(":")[0][:64]
        accounts = sorted(s.account_id for s in seats)  # locked in one order: no deadlock
        insert = sa_postgresql.insert if self.dialect == "postgresql" else sa_sqlite.insert
        before: dict[str, tuple[Rating, int]] = {}
        for account_id in accounts:
            conn.execute(
                insert(_RATINGS)
                .values(
                    account_id=account_id,
                    game=game,
                    rating=Rating().rating,
                    deviation=Rating().deviation,
                    volatility=Rating().volatility,
                    games=0,
                    updated_at=now,
                )
                .on_conflict_do_nothing()
            )
            row = conn.execute(
                sa.select(_RATINGS)
                .where(_RATINGS.c.account_id == account_id, _RATINGS.c.game == game)
                .with_for_update()
            ).one()
            before[account_id] = (Rating(row.rating, row.deviation, row.volatility), row.games)
        changes = {}
        for seat in seats:
            mine, count = before[seat.account_id]
            theirs = before[seats[1 - seat.seat].account_id][0]
            after = update(mine, [(theirs, game_result(winner, seat.seat + 1))])
            conn.execute(
                sa.update(_RATINGS)
                .where(_RATINGS.c.account_id == seat.account_id, _RATINGS.c.game == game)
                .values(
                    rating=after.rating,
                    deviation=after.deviation,
                    volatility=after.volatility,
                    games=count + 1,
                    updated_at=now,
                )
            )
            changes[str(seat.seat + 1)] = {
                "game": game,
                "before": round(mine.rating, 1),
                "after": round(after.rating, 1),
            }
        conn.execute(
            sa.update(_GAMES).where(_GAMES.c.id == game_id).values(ratings=_dumps(changes))
        )

    def _touch_account_games(self, conn: sa.Connection, account_id: str) -> list[tuple[str, int]]:
        games = conn.execute(
            sa.select(_SEATS.c.game_id).where(_SEATS.c.account_id == account_id)
        ).all()
        return self._touch(conn, sorted({row.game_id for row in games}))

    def _touch(self, conn: sa.Connection, game_ids: Sequence[str]) -> list[tuple[str, int]]:
        """Say that these games changed (their pages read them again)."""
        touched = []
        for game_id in game_ids:
            ply = conn.execute(
                sa.update(_GAMES)
                .where(_GAMES.c.id == game_id)
                .values(change_seq=self._bump(conn))
                .returning(_GAMES.c.ply)
            ).scalar()
            if ply is not None:
                self._notify(conn, Change("game", game_id, ply))
                touched.append((game_id, ply))
        return touched

    def _published_games(self, touched: Sequence[tuple[str, int]]) -> None:
        for game_id, ply in touched:
            self._published(Change("game", game_id, ply))

    # Vacations and digests (see `abstractgames.web.vacation` and `abstractgames.web.digest`)

    def vacations(self, account_id: str) -> list[tuple[float, float]]:
        """The account's vacations, `(starts_at, ends_at)`, the earliest first."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(_VACATIONS.c.starts_at, _VACATIONS.c.ends_at)
                .where(_VACATIONS.c.account_id == account_id)
                .order_by(_VACATIONS.c.starts_at)
            )
            return [(row.starts_at, row.ends_at) for row in rows]

    def add_vacation(
        self,
        account_id: str,
        starts_at: float,
        ends_at: float,
        check: Callable[[list[tuple[float, float]]], None],
    ) -> None:
        """Add a vacation to the account, once `check(its vacations so far)` returns (it raises
        to refuse), in one transaction: two requests at once are checked one after the other."""
        with self._write() as conn:
            # SQLite's write lock is the whole file's; PostgreSQL's, the account's row
            locked = conn.execute(
                sa.select(_ACCOUNTS.c.id).where(_ACCOUNTS.c.id == account_id).with_for_update()
            ).first()
            if locked is None:
                raise UnknownAccount(f"no account {account_id}")
            taken = conn.execute(
                sa.select(_VACATIONS.c.starts_at, _VACATIONS.c.ends_at)
                .where(_VACATIONS.c.account_id == account_id)
                .order_by(_VACATIONS.c.starts_at)
            )
            check([(row.starts_at, row.ends_at) for row in taken])
            conn.execute(
                sa.insert(_VACATIONS).values(
                    id=_new_id(), account_id=account_id, starts_at=starts_at, ends_at=ends_at
                )
            )
            touched = self._touch_account_games(conn, account_id)
        self._published_games(touched)

    def end_vacation(self, account_id: str, now: float) -> bool:
        """End the account's vacation under way at `now`, now; return whether one was."""
        with self._write() as conn:
            ended = conn.execute(
                sa.update(_VACATIONS)
                .where(
                    _VACATIONS.c.account_id == account_id,
                    _VACATIONS.c.starts_at <= now,
                    _VACATIONS.c.ends_at > now,
                )
                .values(ends_at=now)
            ).rowcount
            touched = self._touch_account_games(conn, account_id) if ended else []
        self._published_games(touched)
        return bool(ended)

    def move_deadline(self, game_id: str, ply: int, deadline: float | None) -> None:
        """Set the deadline of the player to move at `ply` (a vacation began or ended): only if
        the game is still at `ply` and not over (`StalePly`, `GameFinished` otherwise)."""
        with self._write() as conn:
            updated = conn.execute(
                sa.update(_GAMES)
                .where(_GAMES.c.id == game_id, _GAMES.c.ply == ply, _GAMES.c.result.is_(None))
                .values(deadline=deadline, change_seq=self._bump(conn))
            )
            if updated.rowcount != 1:
                raise self._refusal(conn, game_id, ply)
            self._notify(conn, Change("game", game_id, ply))
        self._published(Change("game", game_id, ply))

    def set_seat_digest(self, game_id: str, seat: int, digest: bool) -> None:
        """Whether the holder of a seat wants a daily digest instead of an e-mail a move."""
        self._update_seat(game_id, seat, digest=digest)

    def set_account_digest(self, account_id: str, digest: bool) -> None:
        """Whether an account wants a daily digest of the games where it is its move."""
        with self._write() as conn:
            conn.execute(
                sa.delete(_ACCOUNT_DIGESTS).where(_ACCOUNT_DIGESTS.c.account_id == account_id)
            )
            if digest:
                conn.execute(sa.insert(_ACCOUNT_DIGESTS).values(account_id=account_id))

    def account_digest(self, account_id: str) -> bool:
        """Whether the account asked for a daily digest."""
        with self._engine.connect() as conn:
            found = conn.execute(
                sa.select(_ACCOUNT_DIGESTS.c.account_id).where(
                    _ACCOUNT_DIGESTS.c.account_id == account_id
                )
            ).first()
        return found is not None

    def digest_seats(self) -> list[tuple[str, GameRow, int]]:
        """Who may be sent a digest: `(address, game, seat)` for each seat of an unfinished
        game that asked for one with an e-mail address, and each seat bound to an account that
        did (not blocked, with an address)."""
        wanting = sa.select(_ACCOUNT_DIGESTS.c.account_id)
        with self._engine.connect() as conn:
            addresses = {
                row.id: row.email
                for row in conn.execute(
                    sa.select(_ACCOUNTS.c.id, _ACCOUNTS.c.email).where(
                        _ACCOUNTS.c.id.in_(wanting),
                        _ACCOUNTS.c.email.is_not(None),
                        sa.not_(_ACCOUNTS.c.blocked),
                    )
                )
            }
            seats = sa.select(_SEATS.c.game_id).where(
                sa.or_(
                    sa.and_(_SEATS.c.digest.is_(True), _SEATS.c.email.is_not(None)),
                    _SEATS.c.account_id.in_(list(addresses)),
                )
            )
            games = self._games(conn, sa.and_(_GAMES.c.result.is_(None), _GAMES.c.id.in_(seats)))
        found = []
        for game in games:
            for seat in game.seats:
                if seat.digest and seat.email:
                    found.append((seat.email, game, seat.seat + 1))
                elif seat.account_id in addresses:
                    found.append((addresses[seat.account_id], game, seat.seat + 1))
        return found

    def claim_digest(self, address: str, day: str, now: float) -> bool:
        """Claim the digest of `address` for `day` (its UTC date): true once per address and
        day, whichever process asks first; the others (and the same one again) get false."""
        try:
            with self._write() as conn:
                last = conn.execute(
                    sa.select(_DIGESTS_SENT.c.day)
                    .where(_DIGESTS_SENT.c.address == address)
                    .with_for_update()
                ).first()
                if last is not None and last.day >= day:
                    return False
                if last is None:
                    conn.execute(
                        sa.insert(_DIGESTS_SENT).values(address=address, day=day, sent_at=now)
                    )
                else:
                    conn.execute(
                        sa.update(_DIGESTS_SENT)
                        .where(_DIGESTS_SENT.c.address == address, _DIGESTS_SENT.c.day < day)
                        .values(day=day, sent_at=now)
                    )
        except sa_exc.IntegrityError:  # another process inserted it at the same moment
            return False
        return True

    # Tournaments for people (see `abstractgames.web.club`); every change is a lobby change

    def _lobby_changed(self, conn: sa.Connection) -> None:
        self._bump(conn)
        self._notify(conn, Change("lobby"))

    def create_tournament(
        self,
        *,
        title: str,
        game_spec: str,
        format: str,
        rounds: int,
        time_control: dict[str, Any],
        rated: bool,
        creator_id: str,
        max_entrants: int,
        starts_at: float | None,
        now: float,
        most_open: int,
    ) -> str:
        """A new tournament open for sign-up; `TournamentRefused` if its creator has
        `most_open` open for sign-up already."""
        tournament_id = _new_id()
        with self._write() as conn:
            conn.execute(  # one creator's tournaments are counted one request after the other
                sa.select(_ACCOUNTS.c.id).where(_ACCOUNTS.c.id == creator_id).with_for_update()
            )
            open_now = conn.execute(
                sa.select(sa.func.count())
                .select_from(_TOURNAMENTS)
                .where(_TOURNAMENTS.c.creator_id == creator_id, _TOURNAMENTS.c.state == "signup")
            ).scalar_one()
            if open_now >= most_open:
                raise TournamentRefused(
                    f"you have {open_now} tournaments open for sign-up: start or cancel one first"
                )
            conn.execute(
                sa.insert(_TOURNAMENTS).values(
                    id=tournament_id,
                    title=title,
                    game_spec=game_spec,
                    format=format,
                    rounds=rounds,
                    time_control=_dumps(time_control),
                    rated=rated,
                    creator_id=creator_id,
                    state="signup",
                    round=0,
                    max_entrants=max_entrants,
                    starts_at=starts_at,
                    created_at=now,
                    updated_at=now,
                )
            )
            self._lobby_changed(conn)
        self._published(Change("lobby"))
        return tournament_id

    def tournament(self, tournament_id: str) -> TournamentRow:
        """The tournament with its entrants and pairings; `UnknownTournament` if none."""
        with self._engine.connect() as conn:
            found = self._tournaments(conn, _TOURNAMENTS.c.id == tournament_id, pairings=True)
        if not found:
            raise UnknownTournament(f"no tournament {tournament_id}")
        return found[0]

    def tournaments(self, *, finished: int = 10, limit: int = 100) -> list[TournamentRow]:
        """The tournaments open for sign-up or under way (at most `limit`), then the last
        `finished` finished, with their entrants (not their pairings), newest first."""
        with self._engine.connect() as conn:
            going = self._tournaments(
                conn, _TOURNAMENTS.c.state.in_(["signup", "playing"]), limit=limit
            )
            done = self._tournaments(conn, _TOURNAMENTS.c.state == "finished", limit=finished)
        return going + done

    def tournaments_due(self, now: float) -> list[str]:
        """The tournaments under way, and those whose sign-up ended by `now`."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(_TOURNAMENTS.c.id).where(
                    sa.or_(
                        _TOURNAMENTS.c.state == "playing",
                        sa.and_(_TOURNAMENTS.c.state == "signup", _TOURNAMENTS.c.starts_at <= now),
                    )
                )
            )
            return [row.id for row in rows]

    def tournament_of_game(self, game_id: str) -> str | None:
        """The tournament a game was paired in, if any."""
        with self._engine.connect() as conn:
            found = conn.execute(
                sa.select(_PAIRINGS.c.tournament_id).where(_PAIRINGS.c.game_id == game_id)
            ).scalar()
        return None if found is None else str(found)

    def _tournaments(
        self,
        conn: sa.Connection,
        where: sa.ColumnElement[bool],
        *,
        pairings: bool = False,
        limit: int = 100,
    ) -> list[TournamentRow]:
        rows = conn.execute(
            sa.select(_TOURNAMENTS, _ACCOUNTS.c.name.label("creator_name"))
            .select_from(
                _TOURNAMENTS.outerjoin(_ACCOUNTS, _ACCOUNTS.c.id == _TOURNAMENTS.c.creator_id)
            )
            .where(where)
            .order_by(_TOURNAMENTS.c.created_at.desc(), _TOURNAMENTS.c.id)
            .limit(limit)
        ).all()
        ids = [row.id for row in rows]
        entrants: dict[str, list[EntrantRow]] = {i: [] for i in ids}
        paired: dict[str, list[PairingRow]] = {i: [] for i in ids}
        if ids:
            for e in conn.execute(
                sa.select(_ENTRANTS)
                .where(_ENTRANTS.c.tournament_id.in_(ids))
                .order_by(_ENTRANTS.c.number)
            ):
                entrants[e.tournament_id].append(
                    EntrantRow(
                        e.entrant, e.number, e.name, e.account_id, e.player_spec, e.joined_at
                    )
                )
        if ids and pairings:
            for p in conn.execute(
                sa.select(_PAIRINGS)
                .where(_PAIRINGS.c.tournament_id.in_(ids))
                .order_by(_PAIRINGS.c.round, _PAIRINGS.c.board)
            ):
                paired[p.tournament_id].append(
                    PairingRow(p.round, p.board, p.first, p.second, p.game_id, _loads(p.summary))
                )
        return [
            TournamentRow(
                row.id,
                row.title,
                row.game_spec,
                row.format,
                row.rounds,
                _setting(row.time_control),
                bool(row.rated),
                row.creator_id,
                row.creator_name or "?",
                row.state,
                row.round,
                row.max_entrants,
                row.starts_at,
                row.created_at,
                row.updated_at,
                row.finished_at,
                tuple(entrants[row.id]),
                tuple(paired[row.id]),
            )
            for row in rows
        ]

    def _locked_tournament(self, conn: sa.Connection, tournament_id: str) -> Any:
        row = conn.execute(
            sa.select(_TOURNAMENTS).where(_TOURNAMENTS.c.id == tournament_id).with_for_update()
        ).first()
        if row is None:
            raise UnknownTournament(f"no tournament {tournament_id}")
        return row

    def add_entrant(
        self,
        tournament_id: str,
        entrant: str,
        *,
        name: str,
        account_id: str | None,
        player_spec: str | None,
        now: float,
    ) -> None:
        """Enter `entrant` in a tournament open for sign-up; `TournamentRefused` if it is not
        open, is full, or has the entrant already."""
        with self._write() as conn:
            row = self._locked_tournament(conn, tournament_id)
            if row.state != "signup":
                raise TournamentRefused("the sign-up of this tournament is over")
            taken = conn.execute(
                sa.select(_ENTRANTS.c.entrant, _ENTRANTS.c.number).where(
                    _ENTRANTS.c.tournament_id == tournament_id
                )
            ).all()
            if any(t.entrant == entrant for t in taken):
                raise TournamentRefused(f"{name} is entered already")
            if len(taken) >= row.max_entrants:
                raise TournamentRefused(f"the tournament is full ({row.max_entrants} players)")
            conn.execute(
                sa.insert(_ENTRANTS).values(
                    tournament_id=tournament_id,
                    entrant=entrant,
                    number=max((t.number for t in taken), default=0) + 1,
                    name=name,
                    account_id=account_id,
                    player_spec=player_spec,
                    joined_at=now,
                )
            )
            conn.execute(
                sa.update(_TOURNAMENTS)
                .where(_TOURNAMENTS.c.id == tournament_id)
                .values(updated_at=now)
            )
            self._lobby_changed(conn)
        self._published(Change("lobby"))

    def remove_entrant(self, tournament_id: str, entrant: str, now: float) -> None:
        """Take `entrant` out of a tournament before its start; `TournamentRefused` after it
        or if it was not entered."""
        with self._write() as conn:
            row = self._locked_tournament(conn, tournament_id)
            if row.state != "signup":
                raise TournamentRefused("the tournament has begun: nobody leaves it now")
            removed = conn.execute(
                sa.delete(_ENTRANTS).where(
                    _ENTRANTS.c.tournament_id == tournament_id, _ENTRANTS.c.entrant == entrant
                )
            ).rowcount
            if not removed:
                raise TournamentRefused("not entered in this tournament")
            conn.execute(
                sa.update(_TOURNAMENTS)
                .where(_TOURNAMENTS.c.id == tournament_id)
                .values(updated_at=now)
            )
            self._lobby_changed(conn)
        self._published(Change("lobby"))

    def start_round(
        self,
        tournament_id: str,
        round_number: int,
        pairs: Sequence[tuple[str, str | None]],
        now: float,
        *,
        rounds: int | None = None,
    ) -> bool:
        """Pair round `round_number` (the first starts the tournament, `rounds` its number of
        rounds): only if the tournament is at the round before (and open for sign-up, for the
        first); return whether this call did it (another process may have)."""
        with self._write() as conn:
            row = self._locked_tournament(conn, tournament_id)
            wanted = "signup" if round_number == 1 else "playing"
            if row.state != wanted or row.round != round_number - 1:
                return False
            values: dict[str, Any] = {"round": round_number, "state": "playing", "updated_at": now}
            if rounds is not None:
                values["rounds"] = rounds
            conn.execute(
                sa.update(_TOURNAMENTS).where(_TOURNAMENTS.c.id == tournament_id).values(**values)
            )
            if pairs:
                conn.execute(
                    sa.insert(_PAIRINGS),
                    [
                        {
                            "tournament_id": tournament_id,
                            "round": round_number,
                            "board": board,
                            "first": first,
                            "second": second,
                        }
                        for board, (first, second) in enumerate(pairs, start=1)
                    ],
                )
            self._lobby_changed(conn)
        self._published(Change("lobby"))
        return True

    def set_pairing_game(
        self, tournament_id: str, round_number: int, board: int, game_id: str
    ) -> bool:
        """Say that a pairing is played in `game_id`, unless it has a game already (made by
        another process): return whether it is this one."""
        with self._write() as conn:
            done = conn.execute(
                sa.update(_PAIRINGS)
                .where(
                    _PAIRINGS.c.tournament_id == tournament_id,
                    _PAIRINGS.c.round == round_number,
                    _PAIRINGS.c.board == board,
                    _PAIRINGS.c.game_id.is_(None),
                )
                .values(game_id=game_id)
            ).rowcount
            if done:
                self._lobby_changed(conn)
        if done:
            self._published(Change("lobby"))
        return bool(done)

    def set_pairing_summary(
        self, tournament_id: str, round_number: int, board: int, summary: dict[str, Any]
    ) -> None:
        """Keep the summary of a pairing's finished match."""
        with self._write() as conn:
            conn.execute(
                sa.update(_PAIRINGS)
                .where(
                    _PAIRINGS.c.tournament_id == tournament_id,
                    _PAIRINGS.c.round == round_number,
                    _PAIRINGS.c.board == board,
                )
                .values(summary=_dumps(summary))
            )
            self._lobby_changed(conn)
        self._published(Change("lobby"))

    def end_tournament(
        self, tournament_id: str, now: float, *, state: str = "finished", round_number: int = -1
    ) -> bool:
        """Finish a tournament at its last round `round_number`, or cancel it (`state`
        `"cancelled"`, at any round); return whether this call did."""
        with self._write() as conn:
            row = self._locked_tournament(conn, tournament_id)
            if row.state not in ("signup", "playing"):
                return False
            if state == "finished" and (row.state != "playing" or row.round != round_number):
                return False
            conn.execute(
                sa.update(_TOURNAMENTS)
                .where(_TOURNAMENTS.c.id == tournament_id)
                .values(state=state, updated_at=now, finished_at=now)
            )
            self._lobby_changed(conn)
        self._published(Change("lobby"))
        return True

    def _unrated(self, conn: sa.Connection, game_id: str) -> bool:
        """Whether a game was paired in a tournament that is not rated."""
        found = conn.execute(
            sa.select(_TOURNAMENTS.c.rated)
            .select_from(
                _PAIRINGS.join(_TOURNAMENTS, _TOURNAMENTS.c.id == _PAIRINGS.c.tournament_id)
            )
            .where(_PAIRINGS.c.game_id == game_id)
        ).first()
        return found is not None and not found.rated

    # Changes

    def listen(self, *, poll: float | None = None) -> Changes:
        """Start receiving changes (see `Changes`; `poll` matters on SQLite only); close it."""
        return Changes(self, poll)


def _account(row: Any) -> AccountRow:
    return AccountRow(
        row.id,
        row.name,
        row.key,
        row.email,
        bool(row.blocked),
        bool(row.operator),
        row.created_at,
    )


def _shown(url: sa.URL) -> str:
    return str(url.database) if url.drivername == "sqlite" else url.render_as_string()


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # Transactions are begun by `_sqlite_begin`, not by the sqlite3 module.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA busy_timeout = 30000")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _sqlite_begin(conn: sa.Connection) -> None:
    # A writer takes the write lock at BEGIN, so it never fails to upgrade a read lock later.
    immediate = conn.get_execution_options().get("sqlite_immediate", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
