"""Games between people on different computers, kept in the server's database.

A player creates a game ([`OnlineGames.create`][]) and gets the secret of their seat and that of
the invitation (the other seat), each 192 bits from `secrets`; a game against one of the
server's bots has one secret. What a request may do depends only on the secret it carries:

- the holder of a seat's secret moves, resigns and names themself for that seat, and sees the
  moves they can play when it is their turn;
- anyone else (no secret, or a wrong one) watches: the position, the moves, the clocks and the
  result, never a legal move list, never a secret.

Secrets are kept only as their SHA-256 hashes and compared in constant time.

**The database is the game.** Nothing of a game lives only in a process: each game's row holds
its match record, and every action (a move, a resignation, a flag that fell) is one step of the
match engine every front end uses ([`MatchInPlay`][abstractgames.steps.MatchInPlay]), built from
the stored record and taken on to the next decision nobody has made yet. The step is
committed (the action with its ply, the new record, the result if the match ended) in one
transaction before the action is acknowledged, so a server killed at any moment loses nothing
acknowledged, and any number of server processes on one PostgreSQL database serve the same
games. Each action carries the ply it was made at (the number of actions before it): an action
sent twice (a double click, a retry after a timeout) is played once, and the second gets a
[`Conflict`][abstractgames.web.errors.Conflict] saying the game has moved on.

Time is the referee's too: a live game's clocks (`MINUTES+INCREMENT`) and a correspondence
game's days per move and per game ([`Pace`][]) are checked on every step and, with nobody
connected, by [`OnlineGames.sweep`][], which the server runs every second: a flag that falls is
one more step, and the rules on time are the game's (Entropy's live timeout moves, its
correspondence rule that time loss loses the match, a lost game elsewhere).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import attrs

from ..players import Player, is_human
from ..protocol import AbstractGamesError, Game, Match, Move, State
from ..records import (
    MAX_CLOCK_SECONDS,
    ClockSettings,
    MatchRecord,
    MoveRecord,
    TimeControl,
    TimeControlError,
)
from ..referee import Referee
from ..registry import make_player, parse_game_spec
from ..steps import Action as EngineAction
from ..steps import (
    Automatic,
    Event,
    Forfeit,
    GameEnded,
    GameStarted,
    MatchInPlay,
    MovePlayed,
    MovesTakenBack,
    Notice,
    OutOfTime,
    PlayMove,
    RefereeError,
    Resignation,
    TakeBack,
)
from ..text import excerpt, value_excerpt
from .database import (
    Challenge,
    Database,
    GameFinished,
    GameRow,
    NotYourChallenge,
    StalePly,
    UnknownChallenge,
    UnknownGame,
)
from .errors import BadRequest, Conflict, Forbidden, NotFound
from .matchview import MatchView, PlayerView
from .notify import Notifier, check_email, check_webhook, game_over, your_move
from .seats import bot_spec, seat_specs
from .sessions import GuardedBot
from .vacation import Away, later, paused
from .views import (
    finished_game_view,
    game_plies_view,
    match_roles,
    named_text,
    ply_view,
)

__all__ = [
    "CHALLENGE_HOURS",
    "CLAIM_DAYS",
    "CORRESPONDENCE_CHALLENGE_DAYS",
    "MAX_EXTENSION_DAYS",
    "MAX_NAME",
    "OUTAGE",
    "RESIGN_TRIES",
    "SECRET_BYTES",
    "Action",
    "DamagedGame",
    "MovedOn",
    "OnlineGames",
    "Pace",
    "hash_secret",
]

CHALLENGE_HOURS = 1.0
"""Hours a lobby challenge for a live game (or one without a clock) waits to be accepted."""
CORRESPONDENCE_CHALLENGE_DAYS = 7.0
"""Days a lobby challenge for a correspondence game waits to be accepted."""
SHARED_FOR = 2.0
"""Seconds a game read for one page is shown to the others that ask, unless it changes first
(each change reaches every server process at once; this bounds what a lost notice costs)."""
VIEW_FOR = 0.25
"""Seconds the JSON text of a game as one seat (or a watcher) sees it is sent to the others of
that seat who ask, unless the game changes first (its clocks are as of when it was made)."""
CLAIM_DAYS = 3.0
"""Days a player of a game without a clock may take for a move; after them, their opponent may
claim the match ([`OnlineGames.claim`][])."""
MAX_EXTENSION_DAYS = 30
"""The most days a correspondence player may ask their opponent for at once."""
OUTAGE = 3.0
"""Seconds without a sweep of the clocks (each server sweeps every second) after which the
servers count as down, and the time since, less these seconds, is given back to the players to
move."""
SECRET_BYTES = 24
"""The bytes of randomness in a seat's secret (192 bits; its text is 32 characters)."""
MAX_NAME = 40
"""The longest display name a player may give."""
_LIVE = re.compile(r"(\d{1,4}(?:\.\d{1,2})?)\s*\+\s*(\d{1,4}(?:\.\d{1,2})?)")
_DAY = 86_400.0
_CORRESPONDENCE_CLOCK = ClockSettings(float(MAX_CLOCK_SECONDS), float(MAX_CLOCK_SECONDS))
_OLD_CORRESPONDENCE_CLOCK = ClockSettings(float(MAX_CLOCK_SECONDS), 0.0)
"""What correspondence games stored before had as their clock: a year for all of one's moves."""
_log = logging.getLogger(__name__)


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


class DamagedGame(Conflict):
    """A stored game or challenge whose settings cannot be read: it is left as it is, and the
    server goes on with the others (the operator finds it in the log)."""


class MovedOn(Conflict):
    """Another action was committed between reading a game and writing this one."""


RESIGN_TRIES = 5
"""How many times a resignation sent without a ply is tried again after moves made meanwhile
(a bot's answer, a flag that fell) before it is refused."""


@attrs.frozen
class Pace:
    """The time control of an online game: a live clock, days for correspondence, or none.

    Examples:
        >>> Pace.parse("5+3").clock
        ClockSettings(seconds=300.0, increment=3.0)
        >>> str(Pace.parse("3 days a move, at most 30 days a game"))
        '3 days a move, at most 30 days a game'
        >>> Pace.parse("none").timed
        False
    """

    clock: ClockSettings | None = None
    """A live game's clock: `MINUTES+INCREMENT` (seconds), as at the terminal."""
    days: TimeControl | None = None
    """A correspondence game's days per move (and at most per game)."""

    @classmethod
    def parse(cls, text: str) -> Pace:
        """Read `none`, `MINUTES+INCREMENT` or `N days a move[, at most M days a game]`.

        Raises:
            BadRequest: anything else.
        """
        text = " ".join(str(text).split())
        live = _LIVE.fullmatch(text)
        if live is not None:
            minutes, increment = float(live.group(1)), float(live.group(2))
            if not 0 < minutes * 60 <= MAX_CLOCK_SECONDS or increment * 60 > MAX_CLOCK_SECONDS:
                raise BadRequest(f"a clock of {excerpt(text)} minutes is out of range")
            return cls(clock=ClockSettings(minutes * 60, increment))
        try:
            days = TimeControl.parse(text)
        except TimeControlError:
            raise BadRequest(
                f"a time control is 'none', MINUTES+INCREMENT (as 5+3) or 'N days a move' "
                f"(optionally ', at most M days a game'), not {excerpt(text)}"
            ) from None
        return cls(days=days) if days.days_per_move is not None else cls()

    def stored(self) -> dict[str, Any]:
        """The pace as the database keeps it: numbers, never text to be read again."""
        if self.clock is not None:
            return {"clock": [self.clock.seconds, self.clock.increment]}
        if self.days is not None:
            return {"days": [self.days.days_per_move, self.days.days_per_game]}
        return {}

    @classmethod
    def from_stored(cls, value: object) -> Pace:
        """The pace of a stored game or challenge ([`stored`][]; the text of [`parse`][] in those
        stored before it).

        Raises:
            DamagedGame: a value no pace was stored as.
        """
        try:
            if isinstance(value, str):
                return cls.parse(value)
            if isinstance(value, dict) and value == {}:
                return cls()
            if isinstance(value, dict) and len(value) == 1:
                ((kind, numbers),) = value.items()
                if kind == "clock" and isinstance(numbers, list) and len(numbers) == 2:
                    return cls(clock=ClockSettings(*numbers))
                if kind == "days" and isinstance(numbers, list) and len(numbers) == 2:
                    return cls(days=TimeControl(*numbers))
        except (ValueError, TypeError, BadRequest):
            pass
        raise DamagedGame(f"the time control stored as {value_excerpt(value)} cannot be read")

    @property
    def timed(self) -> bool:
        return self.clock is not None or self.days is not None

    @property
    def correspondence(self) -> bool:
        return self.days is not None

    def record_clock(self) -> ClockSettings | None:
        """The clock the referee keeps: the live one, or for correspondence one that times
        each move and never runs out (a year, and a year more after each move: a move takes at
        most a year, the longest days a move there are). The days the players chose are
        checked at every step; there is no other limit."""
        if self.days is not None:
            return _CORRESPONDENCE_CLOCK
        return self.clock

    def new_record(self, game: Game, players: tuple[str, str]) -> MatchRecord:
        """The empty record of a new match of `game` under this time control, with a fresh
        seed from `secrets` (nobody may know the chance draws to come)."""
        return MatchRecord(
            game=game.name,
            params=dict(game.params),
            players=players,
            seed=secrets.randbits(63),
            clock=self.record_clock(),
            time_loss_forfeits=self.correspondence,
        )

    def __str__(self) -> str:
        if self.clock is not None:
            return f"{self.clock.seconds / 60:g}+{self.clock.increment:g}"
        return str(self.days) if self.days is not None else "none"


@attrs.frozen
class Action:
    """What a seat does in one step: `"move"` (with its text), `"resign"`, `"flag"` (its time
    ran out, found by the server), `"bot"` (the server's bot in that seat thinks) or
    `"takeback"` (the game goes back to that seat's previous turn, as both agreed)."""

    seat: int
    kind: str
    move: str = ""


class _Absent(Player):
    """The seat whose player the server does not ask in a step: a person, or a bot that is
    not to move."""

    def __init__(self, spec: str) -> None:
        self.spec = spec

    def choose(self, state: State, rng: Any, time_left: float | None = None) -> Move:
        raise RefereeError("the server asks no player but the bot to move")


class _Step:
    """The stored match advanced by the match engine with one action (or none, to see where it
    stands), up to the next decision of a person or a bot; it keeps what the page shows."""

    def __init__(
        self,
        game: Game,
        text: str,
        start: str | None,
        action: Action | None = None,
        *,
        elapsed: float = 0.0,
        pace: Pace | None = None,
        bot: Player | None = None,
    ) -> None:
        self.game = game
        self.pace = pace or Pace()
        self.record = MatchRecord.loads(text)
        if self.record.clock == _OLD_CORRESPONDENCE_CLOCK and self.pace.correspondence:
            self.record = attrs.evolve(self.record, clock=_CORRESPONDENCE_CLOCK)  # no year's limit
        self.action = action
        self.moved: str | None = None
        self.waiting: tuple[int, State, float | None] | None = None
        self.clocks: list[float | None] = [None, None]
        self.plies: list[dict[str, Any]] = []
        self.finished_games: list[dict[str, Any]] = []
        self.notices: list[str] = []
        self.match: Match = self.record.new_match(game)
        self.state: State = game.initial_state() if start is None else game.from_position(start)
        self.started = False
        try:
            self.engine = MatchInPlay(
                game, self.record, start=None if start is None else game.from_position(start)
            )
        except RefereeError as error:  # a stored record the rules refuse: the store is broken
            raise DamagedGame(f"this game cannot go on: {error}") from None
        self._see(self.engine.opening, told=False)
        if not self.started and self.record.games:
            self._show_finished()
        self._referee: Referee | None = None
        if bot is not None and action is not None:  # the bot follows the game from its start
            seats: list[Player] = [_Absent(spec) for spec in self.record.players]
            seats[action.seat - 1] = bot
            self._referee = Referee(game, (seats[0], seats[1]), failures_forfeit=True)
            self._referee.tell(self.engine, self.engine.opening)
        self._advance()
        if action is not None:
            self._act(action, max(elapsed, 0.0))
            self._advance()
        turn = self.engine.turn()
        if turn is not None:
            self.match, self.clocks = self.engine.match, list(turn.clocks)
            if turn.kind == "player" and turn.player is not None:
                self.waiting = (turn.player, turn.state, turn.time_left)

    def _advance(self) -> None:
        """Make the chance draws and the moves of a player out of time that are due."""
        while (turn := self.engine.turn()) is not None and turn.kind != "player":
            self._step(Automatic())

    def _act(self, action: Action, elapsed: float) -> None:
        turn = self.engine.turn()
        if turn is None:
            return
        if action.kind == "resign":
            self._step(Resignation(action.seat))
        elif action.kind == "takeback":
            self._step(TakeBack(action.seat))
        elif action.kind == "abandoned":
            reason = (
                f"player {action.seat} did not move for {CLAIM_DAYS:g} days: their opponent "
                "claimed the match"
            )
            self._step(Forfeit(action.seat, reason))
        elif action.kind == "bot":
            assert self._referee is not None
            try:
                self._see(self._referee.ask(self.engine, turn))
            except EOFError:  # the server stops: the bot thinks again on restart
                return
        elif turn.kind == "player" and turn.player is not None:
            spent, left = elapsed, turn.time_left
            if action.kind == "flag" or self._over(turn.player, spent):
                self._step(OutOfTime(max(spent, (left or 0.0) + 1.0)))
            else:
                self._step(PlayMove(action.move, spent))

    def _step(self, action: EngineAction) -> None:
        """Take `action` on the match, telling the bot that thinks in this step (if any)."""
        events = self.engine.step(action)
        if self._referee is not None:
            self._referee.tell(self.engine, events)
        self._see(events)

    def _see(self, events: list[Event], *, told: bool = True) -> None:
        """Keep what the page shows of `events` (notices only of this step's own)."""
        for event in events:
            if isinstance(event, GameStarted):
                self.started = True
                self.match, self.state = event.match, event.state
                self.plies = game_plies_view(self.game, event.record)
            elif isinstance(event, MovePlayed):
                entry = event.entry
                self.plies.append(_ply(event.before, entry))
                self.state = event.after
                if entry.player is not None and entry.clock is not None:
                    self.clocks[entry.player - 1] = entry.clock
                action = self.action
                if action is not None and entry.player == action.seat and not entry.auto:
                    self.moved = entry.move
            elif isinstance(event, MovesTakenBack):
                del self.plies[len(self.plies) - event.count :]
                self.state = event.state
            elif isinstance(event, Notice):
                if told:
                    self.notices.append(event.text)
            elif isinstance(event, GameEnded):
                self.match, self.state = event.match, event.state
                roles = _roles(self.game, event.match, event.record.number)
                self.finished_games.append(
                    finished_game_view(event.record, event.state.position(), roles)
                )

    def _show_finished(self) -> None:
        """A match over before this step: its last game's moves and every game's end."""
        match, finals = self.record.replay(self.game)
        for record, state in zip(self.record.games, finals, strict=True):
            roles = _roles(self.game, self.match, record.number)
            self.finished_games.append(finished_game_view(record, state.position(), roles))
            self.plies = game_plies_view(self.game, record)
            self.state = state
        self.match = match

    def _over(self, seat: int, wait: float) -> bool:
        """Whether a correspondence player who took `wait` is past their days."""
        days = self.pace.days
        if days is None:
            return False
        spent = wait + sum(
            entry.seconds or 0.0
            for entry in self.record.games[-1].moves
            if entry.player == seat and not entry.auto
        )
        return bool(days.over(dt.timedelta(seconds=wait), dt.timedelta(seconds=spent)))

    def can_take_back(self, seat: int) -> bool:
        """Whether `seat` has a move of its own in the game being played to take back."""
        if self.record.finished or not self.record.games:
            return False
        moves = self.record.games[-1].moves
        return any(entry.player == seat and not entry.auto for entry in moves)


def _ply(before: State, entry: MoveRecord) -> dict[str, Any]:
    return ply_view(before, entry, None if entry.player is None else before.to_move)


def _roles(game: Game, match: Match, number: int | None) -> list[str]:
    roles = match_roles(game, match)
    if number is None or not 0 < number <= len(roles):
        return []
    return roles[number - 1]


@attrs.frozen
class _Current:
    """A game as it stands: its stored row and the step that replayed it."""

    row: GameRow
    step: _Step
    pace: Pace

    @property
    def turn_began(self) -> float:
        """When the player to move began their turn (the last action, or the game's start),
        later by the time the servers were down since."""
        began = self.row.moves[-1].made_at if self.row.moves else self.row.created_at
        return began + self.row.given_back


class _Shared:
    """Values made once for all who ask for the same key at the same version within `lifetime`
    seconds: who asks while one is being made waits for it (a change of a game wakes all its
    pages at once, and they would all read it)."""

    def __init__(self, lifetime: float, size: int) -> None:
        self.lifetime = lifetime
        self.size = size
        self._lock = threading.Lock()
        self._made: OrderedDict[Any, tuple[Any, float, Any]] = OrderedDict()
        self._making: dict[Any, tuple[Any, Future[Any]]] = {}

    def peek(self, key: Any, version: Any) -> Any | None:
        """The value made for `key` at `version` a moment ago, or `None`."""
        with self._lock:
            made = self._made.get(key)
        if made is None or made[0] != version or time.monotonic() - made[1] >= self.lifetime:
            return None
        return made[2]

    def get(self, key: Any, version: Any, make: Callable[[], Any], still: Callable[[], Any]) -> Any:
        """The value for `key` at `version`: made a moment ago, being made, or made now by
        `make()`; kept only if `still()` is `version` once it is made."""
        found = self.peek(key, version)
        if found is not None:
            return found
        with self._lock:
            making = self._making.get(key)
            if making is not None and making[0] == version:
                future, mine = making[1], False
            else:
                future, mine = Future(), True
                self._making[key] = (version, future)
        if not mine:
            return future.result()
        try:
            value = make()
        except BaseException as error:
            future.set_exception(error)
            raise
        finally:
            with self._lock:
                if self._making.get(key, (None, None))[1] is future:
                    del self._making[key]
        future.set_result(value)
        if still() == version:
            with self._lock:
                self._made[key] = (version, time.monotonic(), value)
                self._made.move_to_end(key)
                while len(self._made) > self.size:
                    self._made.popitem(last=False)
        return value

    def forget(self) -> None:
        with self._lock:
            self._made.clear()


class OnlineGames:
    """Every online game of a server, in its database.

    Args:
        database: where the games are kept.
        notifier: tells correspondence players it is their move (`None`: nobody is told).
        base_url: the server's address as players reach it, for the links in notices.
        bot_timeout: seconds a bot without a clock has for a move before it forfeits.
        clock: the time now, in seconds since the epoch (tests pass a fake one).
    """

    def __init__(
        self,
        database: Database,
        *,
        notifier: Notifier | None = None,
        base_url: str = "",
        bot_timeout: float = 300.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.database = database
        self.notifier = notifier
        self.base_url = base_url.rstrip("/")
        self.bot_timeout = bot_timeout
        self.clock = clock
        self.stop = threading.Event()
        self._bots = ThreadPoolExecutor(max_workers=2, thread_name_prefix="abstractgames-bot")
        self._thinking: set[str] = set()
        self._cache: OrderedDict[str, _Current] = OrderedDict()
        self._damaged_games: dict[str, str] = {}
        self._mail_key: bytes | None = None
        self._account_key: bytes | None = None
        self._rows = _Shared(SHARED_FOR, 1024)
        """Each game as its pages see it."""
        self._texts = _Shared(VIEW_FOR, 4096)
        """The JSON text of each game as each seat (or a watcher) sees it."""
        self._changes: dict[str, int] = {}
        self._generation = 0
        self._lock = threading.Lock()
        self.on_finished: list[Callable[[str], None]] = []
        """Called with a game's id when a step of this process ends its match (a tournament
        pairs its next round); an exception is logged."""

    def close(self) -> None:
        """Stop the bots' thinking (their games stay where they are) and the notifier."""
        self.stop.set()
        self._bots.shutdown(wait=True, cancel_futures=True)
        if self.notifier is not None:
            self.notifier.close()

    # Creating games

    def create(
        self,
        game: Game,
        *,
        seat: int | None = None,
        pace: Pace | None = None,
        name: str | None = None,
        start: State | None = None,
        opponent: str | None = None,
    ) -> tuple[str, str, str | None]:
        """A new game; return its id, the creator's secret and the invitation's (`None` when
        `opponent`, a built-in or registered bot's spec, takes the other seat).

        `seat` is the creator's (1 or 2; `None`: drawn). The clock of the player to move runs
        from the start.

        Raises:
            BadRequest: a seat other than 1 or 2, a bad name, a bot that is not one.
            Forbidden: a bot spec that would run a program or a file.
        """
        if seat is None:
            seat = 1 + secrets.randbelow(2)
        if seat not in (1, 2):
            raise BadRequest(f"the seat is 1 or 2, not {excerpt(seat)}")
        pace = pace or Pace()
        if opponent is not None:
            opponent = self.check_bot(opponent, game)
        mine = secrets.token_urlsafe(SECRET_BYTES)
        theirs = None if opponent is not None else secrets.token_urlsafe(SECRET_BYTES)
        holders: dict[int, tuple[str | None, str | None, str | None]] = {
            seat: (hash_secret(mine), _name(name), None),
            3 - seat: (
                None if theirs is None else hash_secret(theirs),
                opponent,
                opponent,
            ),
        }
        record = pace.new_record(game, seat_specs((holders[1][2], holders[2][2])))
        where = None if start is None else start.position()
        now = self.clock()
        step = _Step(game, record.dumps(), where, pace=pace)
        game_id = self.database.create_game(
            game.spec,
            pace.stored(),
            [holders[1], holders[2]],
            where,
            now,
            deadline=self._deadline(step, pace, now),
            record=step.record.dumps(),
        )
        self._after(game_id, step)
        return game_id, mine, theirs

    def create_paired(
        self, game: Game, pace: Pace, seats: Sequence[tuple[str, str | None, str | None]]
    ) -> str:
        """A new game between two players paired by the server (a tournament's), none of whom
        holds a secret: each seat is `(name, account_id, bot_spec)`, a person's bound to their
        account (it opens for them through [`account_token`][]), a bot's played here. Return
        its id."""
        holders = [
            (None, spec, spec, None)
            if spec is not None
            else (hash_secret(secrets.token_urlsafe(SECRET_BYTES)), name, None, account_id)
            for name, account_id, spec in seats
        ]
        record = pace.new_record(game, seat_specs((holders[0][2], holders[1][2])))
        now = self.clock()
        step = _Step(game, record.dumps(), None, pace=pace)
        game_id = self.database.create_game(
            game.spec,
            pace.stored(),
            holders,
            None,
            now,
            deadline=self._deadline(step, pace, now),
            record=step.record.dumps(),
        )
        self._after(game_id, step)
        return game_id

    def check_bot(self, spec: str, game: Game) -> str:
        """A bot's spec as the server seats it.

        Raises:
            Forbidden: the spec runs a program, a file or a module.
            BadRequest: it is a person or no player at all.
        """
        return bot_spec(
            spec,
            game,
            refuse="the server plays only its own bots",
            person="a bot is needed here, not a person",
            most_seconds=self.bot_timeout,
        )

    # The lobby

    def challenge(
        self,
        game: Game,
        *,
        pace: Pace | None = None,
        seat: int | None = None,
        name: str | None = None,
    ) -> tuple[str, str]:
        """Open a challenge anyone may accept; return its id and the creator's secret (their
        seat's once it is accepted: [`games_of`][] finds the game).

        Raises:
            BadRequest: a bad name.
        """
        secret = secrets.token_urlsafe(SECRET_BYTES)
        challenge_id = self.database.create_challenge(
            game.spec,
            (pace or Pace()).stored(),
            None if seat is None else seat - 1,
            hash_secret(secret),
            _name(name),
            self.clock(),
        )
        return challenge_id, secret

    def open_challenges(self) -> list[tuple[Challenge, Pace]]:
        """The challenges in the lobby, oldest first, each with its pace: those not past their
        time ([`CHALLENGE_HOURS`][], [`CORRESPONDENCE_CHALLENGE_DAYS`][]) and readable."""
        now = self.clock()
        found = []
        for challenge in self.database.challenges():
            try:
                pace = Pace.from_stored(challenge.time_control)
            except DamagedGame:
                continue  # nobody could accept it
            if now < _expiry(challenge, pace):
                found.append((challenge, pace))
        return found

    def expire_challenges(self) -> int:
        """Take the challenges past their time out of the lobby; return how many."""
        now = self.clock()
        expired = []
        for challenge in self.database.challenges():
            try:
                pace = Pace.from_stored(challenge.time_control)
            except DamagedGame:
                continue
            if now >= _expiry(challenge, pace):
                expired.append(challenge.id)
        self.database.expire_challenges(expired)
        return len(expired)

    def accept(self, challenge_id: str, name: str | None = None) -> tuple[str, str]:
        """Accept a challenge: the game starts; return its id and the acceptor's secret.

        Raises:
            UnknownChallenge: it is gone (accepted by someone else, withdrawn, or past its
                time).
        """
        found = {c.id: (c, p) for c, p in self.open_challenges()}.get(challenge_id)
        if found is None:
            raise UnknownChallenge(f"no open challenge {challenge_id}")
        game = parse_game_spec(found[0].game_spec)
        pace = found[1]
        record = pace.new_record(game, seat_specs((None, None)))
        now = self.clock()
        step = _Step(game, record.dumps(), None, pace=pace)
        secret = secrets.token_urlsafe(SECRET_BYTES)
        game_id = self.database.accept_challenge(
            challenge_id,
            hash_secret(secret),
            _name(name),
            now,
            deadline=self._deadline(step, pace, now),
            record=lambda _side: step.record.dumps(),
        )
        return game_id, secret

    def withdraw(self, challenge_id: str, secret: str) -> None:
        """Withdraw a challenge (its creator only).

        Raises:
            NotFound: no such challenge; Forbidden: another's.
        """
        try:
            self.database.cancel_challenge(challenge_id, hash_secret(secret))
        except UnknownChallenge:
            raise NotFound("no such challenge (it was accepted or withdrawn)") from None
        except NotYourChallenge:
            raise Forbidden("only the player who made a challenge can withdraw it") from None

    # Acting

    def play(self, game_id: str, secret: str | None, text: str, ply: int) -> str:
        """Play `text` for the seat of `secret`, made at `ply`; return it in canonical notation
        once it is committed.

        Raises:
            NotFound: no such game.
            Forbidden: `secret` holds no seat.
            Conflict: the game is over, it is not that seat's turn, or it is past `ply`.
            IllegalMoveError: the move cannot be played.
        """
        current = self._shared(game_id)  # as the pages see it; the commit checks the ply
        if current.row.ply != ply or current.row.finished:
            current = self._current(game_id)  # read again before saying it moved on
        seat = self._holder(current.row, secret, "move")
        self._check_ply(current, ply)
        waiting = current.step.waiting
        if waiting is None or waiting[0] != seat:
            raise Conflict("it is not your turn")
        parsed = current.step.game.parse_move(text, waiting[1])
        waiting[1].apply(parsed)  # an illegal move is refused here, not forfeited by the referee
        move = str(parsed)
        now = self.clock()
        self._commit(current, Action(seat, "move", move), self._spent(current, seat, now), now)
        return move

    def resign(self, game_id: str, secret: str | None, ply: int | None = None) -> int:
        """Resign the match for the seat of `secret` (at any time, the opponent's turn too);
        return the seat.

        Raises:
            NotFound, Forbidden: as for [`play`][]; Conflict: the match is over.
        """
        tries = RESIGN_TRIES
        while True:
            current = self._current(game_id)
            seat = self._holder(current.row, secret, "resign")
            if ply is not None:
                self._check_ply(current, ply)
            elif current.row.finished:
                raise Conflict("the match is over")
            now = self.clock()
            try:
                self._commit(current, Action(seat, "resign"), now - current.turn_began, now)
            except MovedOn:
                tries -= 1
                if ply is not None or not tries:
                    raise
                continue
            return seat

    def ask_takeback(self, game_id: str, secret: str | None, ply: int) -> bool:
        """Ask, for the seat of `secret` at `ply`, to take back its last move (and the reply to
        it, if any): the game goes back to that seat's previous turn, clocks included, once the
        opponent agrees; a server's bot agrees at once. Return whether it was taken back now.

        Raises:
            NotFound, Forbidden: as for [`play`][]; Conflict: the game is past `ply` or over,
            the seat has no move of its own in this game, or an offer is open.
        """
        current = self._current(game_id)
        seat = self._holder(current.row, secret, "ask to take a move back")
        self._check_ply(current, ply)
        if not current.step.can_take_back(seat):
            raise Conflict("you have no move of your own in this game to take back")
        offer = current.row.offer
        if offer is not None:
            if offer.get("seat") == seat:
                raise Conflict("you asked already: your opponent has not answered yet")
            raise Conflict("your opponent asks to take a move back: answer them first")
        if current.row.seats[2 - seat].player_spec is not None:  # the server's bot agrees
            now = self.clock()
            self._commit(current, Action(seat, "takeback"), now - current.turn_began, now)
            return True
        try:
            self.database.set_offer(game_id, ply, {"kind": "takeback", "seat": seat})
        except (StalePly, GameFinished):
            raise Conflict("the game moved on before this was asked: look again") from None
        finally:
            self.changed(game_id)
        return False

    def answer_takeback(self, game_id: str, secret: str | None, ply: int, accept: bool) -> None:
        """Agree to (or refuse) the opponent's open request to take back a move, for the seat
        of `secret` at `ply`; the seat that asked may withdraw it (`accept` false).

        Raises:
            NotFound, Forbidden: as for [`play`][]; Conflict: the game is past `ply` or over,
            or there is no such request.
        """
        current = self._current(game_id)
        seat = self._holder(current.row, secret, "answer a takeback")
        self._check_ply(current, ply)
        offer = current.row.offer
        if offer is None or offer.get("kind") != "takeback":
            raise Conflict("nobody asks to take a move back now")
        asker = int(offer["seat"])
        if asker == seat and accept:
            raise Conflict("your opponent answers your own request")
        if not accept:
            try:
                self.database.set_offer(game_id, ply, None)
            except (StalePly, GameFinished):
                raise Conflict("the game moved on before this was answered") from None
            finally:
                self.changed(game_id)
            return
        now = self.clock()
        self._commit(current, Action(asker, "takeback"), now - current.turn_began, now)

    def claim(self, game_id: str, secret: str | None, ply: int) -> None:
        """Claim the match for the seat of `secret`: in a game without a clock, once the
        opponent to move has not moved for [`CLAIM_DAYS`][] days, they lose it by forfeit.

        Raises:
            NotFound, Forbidden: as for [`play`][]; Conflict: the game is past `ply` or over,
            it has a clock (the clock decides), it is this seat's own turn, or too soon.
        """
        current = self._current(game_id)
        seat = self._holder(current.row, secret, "claim the match")
        self._check_ply(current, ply)
        if current.pace.timed:
            raise Conflict("this game has a clock: a player who does not move loses on time")
        waiting = current.step.waiting
        if waiting is None or waiting[0] == seat:
            raise Conflict("you claim the match only while your opponent is to move")
        now = self.clock()
        allowed = _claimable_from(current, self._away(current.row, waiting[0]))
        if now < allowed:
            wait = (allowed - now) / 3600
            raise Conflict(
                f"your opponent has {CLAIM_DAYS:g} days to move: you may claim the match in "
                f"{wait:.1f} hours"
            )
        self._commit(current, Action(waiting[0], "abandoned"), now - current.turn_began, now)

    def ask_extension(self, game_id: str, secret: str | None, ply: int, days: int) -> None:
        """Ask the opponent, for the seat of `secret` to move in a correspondence game, for
        `days` more for this move (1 to [`MAX_EXTENSION_DAYS`][]).

        Raises:
            NotFound, Forbidden: as for [`play`][]; Conflict: not a correspondence game, not
            this seat's turn, past `ply`, or an offer is open; BadRequest: days out of range.
        """
        current = self._current(game_id)
        seat = self._holder(current.row, secret, "ask for more days")
        self._check_ply(current, ply)
        if not current.pace.correspondence:
            raise Conflict("more days are for correspondence games")
        waiting = current.step.waiting
        if waiting is None or waiting[0] != seat:
            raise Conflict("you ask for more days on your own turn")
        if not 1 <= days <= MAX_EXTENSION_DAYS:
            raise BadRequest(f"ask for 1 to {MAX_EXTENSION_DAYS} days, not {days}")
        if current.row.offer is not None:
            raise Conflict("an offer is open: it is answered first")
        try:
            self.database.set_offer(game_id, ply, {"kind": "extension", "seat": seat, "days": days})
        except (StalePly, GameFinished):
            raise Conflict("the game moved on before this was asked: look again") from None
        finally:
            self.changed(game_id)

    def answer_extension(self, game_id: str, secret: str | None, ply: int, accept: bool) -> None:
        """Give (or refuse) the days the opponent asked for; the seat that asked may withdraw
        (`accept` false).

        Raises:
            NotFound, Forbidden: as for [`play`][]; Conflict: past `ply`, over, or no such
            request.
        """
        current = self._current(game_id)
        seat = self._holder(current.row, secret, "answer a request for more days")
        self._check_ply(current, ply)
        offer = current.row.offer
        if offer is None or offer.get("kind") != "extension":
            raise Conflict("nobody asks for more days now")
        if int(offer["seat"]) == seat and accept:
            raise Conflict("your opponent answers your own request")
        try:
            if accept:
                self.database.extend(game_id, ply, int(offer["days"]) * _DAY)
            else:
                self.database.set_offer(game_id, ply, None)
        except (StalePly, GameFinished):
            raise Conflict("the game moved on before this was answered") from None
        finally:
            self.changed(game_id)

    def rename(self, game_id: str, secret: str | None, name: str | None) -> str | None:
        """Give the seat of `secret` the display name `name` (`None` or blank: none).

        Raises:
            NotFound, Forbidden: as for [`play`][]; BadRequest: a bad name.
        """
        row = self._row(game_id)
        seat = self._holder(row, secret, "name a seat")
        name = _name(name)
        self.database.rename_seat(game_id, seat - 1, name)
        self.changed(game_id)
        return name

    def rematch(self, game_id: str, secret: str | None) -> str:
        """The rematch of a finished game, sides swapped, the same settings and the same
        secrets (each player's link opens their seat in it); started once, by either player.

        Raises:
            NotFound, Forbidden: as for [`play`][]; Conflict: the match is not over.
        """
        current = self._current(game_id)
        row = current.row
        self._holder(row, secret, "ask for a rematch")
        if not row.finished:
            raise Conflict("a rematch comes once the match is over")
        if row.rematch is not None:
            return row.rematch
        game = current.step.game
        first, second = row.seats
        seats = [
            (s.secret_hash, s.name, s.player_spec) for s in (second, first)
        ]  # the sides swapped
        players = seat_specs((second.player_spec or None, first.player_spec or None))
        record = current.pace.new_record(game, players)
        now = self.clock()
        step = _Step(game, record.dumps(), row.start_position, pace=current.pace)
        new_id = self.database.create_rematch(
            game_id,
            seats,
            now,
            deadline=self._deadline(step, current.pace, now),
            record=step.record.dumps(),
        )
        self.changed(game_id)
        self._after(new_id, step)
        return new_id

    def set_notifications(
        self,
        game_id: str,
        secret: str | None,
        *,
        email: str | None,
        webhook: str | None,
        digest: bool = False,
    ) -> None:
        """Where the holder of a seat is told it is their move in a correspondence game (by
        e-mail, a message a move or, with `digest`, one a day: see
        [`abstractgames.web.digest`][]).

        Raises:
            NotFound, Forbidden: as for [`play`][]; BadRequest: a bad address, or e-mail on a
            server that sends none.
        """
        row = self._row(game_id)
        seat = self._holder(row, secret, "set notifications")
        email = check_email(email) if email else None
        webhook = check_webhook(webhook) if webhook else None
        if email and (self.notifier is None or not self.notifier.sends_email):
            raise BadRequest("this server sends no e-mail (its operator gave no SMTP server)")
        if webhook and self.notifier is None:
            raise BadRequest("this server sends no notifications")
        self.database.set_notifications(game_id, seat - 1, webhook_url=webhook, email=email)
        self.database.set_seat_digest(game_id, seat - 1, bool(digest and email))
        self.changed(game_id)

    def give_back_downtime(self) -> float:
        """Say that a server runs the games now; if none did for more than [`OUTAGE`][]
        seconds, give the time since back to the player to move in every game (nobody could
        move while no server ran), and return it. Each server calls this before every
        [`sweep`][], once a second."""
        given = self.database.swept(self.clock(), OUTAGE)
        if given:
            self.changed(None)
            _log.warning("no server ran the games for %.1f s: given back to the players", given)
        return given

    def sweep(self) -> int:
        """Let the flags fall of every player whose time is up; return how many fell."""
        fallen = 0
        now = self.clock()
        for row in self.database.games_due(now):
            try:
                current = self._replayed(row)
                waiting = current.step.waiting
                if waiting is None:
                    continue
                spent = self._spent(current, waiting[0], now)
                if spent < now - current.turn_began and not current.step._over(waiting[0], spent):
                    self._reschedule(current)  # on vacation meanwhile: not out of time yet
                    continue
                self._commit(current, Action(waiting[0], "flag"), spent, now)
                fallen += 1
            except DamagedGame as error:
                self._damaged(row.id, error)
            except (Conflict, StalePly, GameFinished):
                continue  # another process (or a move) got there first
            except (AbstractGamesError, ValueError, TypeError, KeyError) as error:
                self._damaged(row.id, error)  # a row no game can be read from stops no other flag
        return fallen

    def resume_bots(self) -> None:
        """Start the bots whose turn it is (after a restart); a game that cannot be read is
        left as it is, as [`sweep`][] leaves it."""
        for row in self.database.unfinished_games():
            if any(seat.player_spec for seat in row.seats):
                try:
                    self._after(row.id, self._replayed(row).step)
                except DamagedGame as error:
                    self._damaged(row.id, error)
                except Conflict:
                    continue
                except (AbstractGamesError, ValueError, TypeError, KeyError) as error:
                    self._damaged(row.id, error)

    def take_over_bots(self) -> int:
        """Start the bots whose turn has gone on for longer than a bot may think (plus
        [`OUTAGE`][]): the server that was running them went away. Return how many."""
        started = 0
        for row in self.database.quiet_bot_games(self.clock() - self.bot_timeout - OUTAGE):
            try:
                step = self._replayed(row).step
            except DamagedGame as error:
                self._damaged(row.id, error)
                continue
            except Conflict:
                continue
            waiting = step.waiting
            if waiting is not None and not is_human(step.record.players[waiting[0] - 1]):
                with self._lock:
                    if row.id in self._thinking:
                        continue
                self._after(row.id, step)
                started += 1
        return started

    @property
    def damaged(self) -> dict[str, str]:
        """The games this process found it cannot read, by id: what is wrong with each."""
        with self._lock:
            return dict(self._damaged_games)

    def _damaged(self, game_id: str, error: Exception) -> None:
        """Set aside a stored game that cannot be read, and tell the operator once."""
        with self._lock:
            if game_id in self._damaged_games:
                return
            self._damaged_games[game_id] = str(error) or type(error).__name__
        _log.error("game %s is damaged and left as it is: %s", game_id, error)

    # Seeing

    def seat_of(self, game_id: str, secret: str | None) -> int | None:
        """The seat (1 or 2) whose secret `secret` is in this game, or `None`.

        Raises:
            NotFound: no such game.
        """
        return self._seat(self._row(game_id), secret)

    def snapshot(self, game_id: str, secret: str | None = None) -> dict[str, Any]:
        """What the holder of `secret` sees of a game (a watcher without one): the match as the
        page draws it, the seats' names, `you` (the viewer's seat or `None`), and the
        correspondence `deadline`. Only the seat to move is sent its legal moves.

        Raises:
            NotFound: no such game.
        """
        current = self._shared(game_id)
        seat = self._seat(current.row, secret)
        return self._view(current, seat)

    def snapshot_text(self, game_id: str, secret: str | None = None) -> str:
        """[`snapshot`][] as the JSON text a page is sent, made once for every page of the
        same seat (or of watchers) that asks within [`VIEW_FOR`][] seconds of each other and
        before the game changes.

        Raises:
            NotFound: no such game.
        """
        version = self._version(game_id)
        current = self._shared(game_id)
        seat = self._seat(current.row, secret)

        def make() -> str:
            view = self._view(current, seat)
            return json.dumps(view, ensure_ascii=False, separators=(",", ":"))

        text: str = self._texts.get((game_id, seat), version, make, lambda: self._version(game_id))
        return text

    def cached_snapshot_text(self, game_id: str, secret: str | None = None) -> str | None:
        """The text [`snapshot_text`][] made for this seat a moment ago, if it still holds;
        `None` otherwise (nothing is read: this may be called on the event loop)."""
        version = self._version(game_id)
        current = self._rows.peek(game_id, version)
        if current is None:
            return None
        found: str | None = self._texts.peek((game_id, self._seat(current.row, secret)), version)
        return found

    def _version(self, game_id: str) -> tuple[int, int]:
        with self._lock:
            return (self._generation, self._changes.get(game_id, 0))

    def changed(self, game_id: str | None) -> None:
        """Game `game_id` changed (`None`: any may have): what [`snapshot`][] shares of it is
        read again. The server calls this for every change it hears of; this object for its
        own."""
        with self._lock:
            if game_id is None:
                self._generation += 1
            else:
                self._changes[game_id] = self._changes.get(game_id, 0) + 1
                if len(self._changes) > 4096:
                    self._changes.clear()
                    self._generation += 1

    def _shared(self, game_id: str) -> _Current:
        """The game as it stands, read once for every page that asks within [`SHARED_FOR`][]
        seconds of each other and before it changes (a change tells everyone at once)."""
        version = self._version(game_id)
        current: _Current = self._rows.get(
            game_id, version, lambda: self._current(game_id), lambda: self._version(game_id)
        )
        return current

    def games_of(self, secrets_held: Iterable[str]) -> list[dict[str, Any]]:
        """A line for each game one of `secrets_held` has a seat in, those where it is that
        seat's turn first: `{"id", "seat", "game", "title", "status", "your_move", "opponent",
        "updated", "index"}`, `index` saying which of `secrets_held` holds the seat."""
        given = list(secrets_held)
        held = {hash_secret(s): i for i, s in enumerate(given) if isinstance(s, str) and s}
        found = []
        for row in self.database.games_for_seats(list(held)):
            for seat in row.seats:
                if seat.secret_hash not in held:
                    continue
                found.append(
                    {**self.game_line(row, seat.seat + 1), "index": held[seat.secret_hash]}
                )
        return sorted(found, key=lambda line: (not line["your_move"], -line["updated"]))

    def game_line(self, row: GameRow, number: int) -> dict[str, Any]:
        """What a list of one's games says of game `row` for seat `number`: `{"id", "seat",
        "game", "title", "status", "your_move", "opponent", "updated"}`."""
        waiting = None if row.finished else self._replayed(row).step.waiting
        other = row.seats[2 - number]
        return {
            "id": row.id,
            "seat": number,
            "game": row.game_spec,
            "title": _title(row.game_spec),
            "status": "finished" if row.finished else "playing",
            "your_move": waiting is not None and waiting[0] == number,
            "opponent": other.name or other.player_spec,
            "updated": row.updated_at,
        }

    # Inside

    def _row(self, game_id: str) -> GameRow:
        try:
            return self.database.game(game_id)
        except UnknownGame:
            raise NotFound("no such game here") from None

    def _current(self, game_id: str) -> _Current:
        return self._replayed(self._row(game_id))

    def _replayed(self, row: GameRow) -> _Current:
        """The game of `row` replayed (once per stored record, then from the cache)."""
        with self._lock:
            cached = self._cache.get(row.id)
            if cached is not None and cached.row.record == row.record:
                self._cache.move_to_end(row.id)
                return attrs.evolve(cached, row=row)
        if row.record is None:
            raise DamagedGame("this game was stored without its record and cannot be played here")
        game = parse_game_spec(row.game_spec)
        pace = Pace.from_stored(row.time_control)
        current = _Current(row, _Step(game, row.record, row.start_position, pace=pace), pace)
        with self._lock:
            self._cache[row.id] = current
            while len(self._cache) > 512:
                self._cache.popitem(last=False)
        return current

    def link(self, game_id: str) -> str:
        """The address of a game's page (a watcher's, or the seat a browser holds)."""
        return f"{self.base_url}/#/online/{game_id}"

    def seat_link(self, game_id: str, secret: str) -> str:
        """The address that opens the seat `secret` holds, in any browser."""
        return f"{self.base_url}/#/seat/{game_id}/{secret}"

    def mail_token(self, game_id: str, seat: int) -> str:
        """The secret of the seat link sent to seat `seat` by e-mail: made from a key of the
        server's, so that the server, which keeps no seat's secret, can send one; it holds the
        seat while the seat has an e-mail address for notices."""
        if self._mail_key is None:
            self._mail_key = self.database.server_key("mail-links")
        digest = hmac.new(self._mail_key, f"{game_id}:{seat}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:SECRET_BYTES]).decode()

    def account_token(self, game_id: str, seat: int, account_id: str) -> str:
        """The secret that opens seat `seat` for the account it is bound to, on any device the
        account signs in on: made from a key of the server's, as [`mail_token`][] is; it holds
        the seat while the seat is bound to that account and the account is not blocked."""
        if self._account_key is None:
            self._account_key = self.database.server_key("account-seats")
        text = f"{game_id}:{seat}:{account_id}".encode()
        digest = hmac.new(self._account_key, text, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:SECRET_BYTES]).decode()

    def _seat(self, row: GameRow, secret: str | None) -> int | None:
        """The seat `secret` holds in the game of `row`: its own secret, the secret of the
        seat link its holder was sent by e-mail, or its account's ([`account_token`][])."""
        seat = _seat_of(row, secret)
        if seat is not None or not secret or not isinstance(secret, str):
            return seat
        for holder in row.seats:
            if holder.email and hmac.compare_digest(
                self.mail_token(row.id, holder.seat + 1), secret
            ):
                return holder.seat + 1
            if (
                holder.account_id
                and not holder.account_blocked
                and hmac.compare_digest(
                    self.account_token(row.id, holder.seat + 1, holder.account_id), secret
                )
            ):
                return holder.seat + 1
        return None

    def _holder(self, row: GameRow, secret: str | None, what: str) -> int:
        seat = self._seat(row, secret)
        if seat is None:
            raise Forbidden(f"only a player of this game can {what}: this link is a watcher's")
        return seat

    def _check_ply(self, current: _Current, ply: int) -> None:
        if current.row.finished:
            raise Conflict("the match is over")
        if ply != current.row.ply:
            raise Conflict(
                f"this was sent at ply {ply}, but the game is at ply {current.row.ply}: "
                "it has moved on"
            )

    def _commit(self, current: _Current, action: Action, elapsed: float, now: float) -> None:
        """Play `action` on the stored game and commit it; a stale ply is a `Conflict`."""
        row = current.row
        bot = None
        if action.kind == "bot":
            spec = row.seats[action.seat - 1].player_spec or ""
            bot = GuardedBot(
                make_player(spec, current.step.game), action.seat, self.stop, self.bot_timeout
            )
        try:
            step = _Step(
                current.step.game,
                row.record or "",
                row.start_position,
                action,
                elapsed=elapsed,
                pace=current.pace,
                bot=bot,
            )
        finally:
            if bot is not None:
                bot.close()
        if action.kind == "bot":
            if self.stop.is_set():
                return  # the server stopped while the bot thought: it thinks again on restart
            now = self.clock()
        text = action.move if action.kind == "move" else action.kind
        if action.kind == "bot":
            text = step.moved or "bot"
        if action.kind == "takeback":  # the clocks as the record left them, not as they ran
            step = _Step(step.game, step.record.dumps(), row.start_position, pace=current.pace)
        result = None
        if step.record.finished:
            outcome = step.record.result
            assert outcome is not None
            result = {
                "winner": outcome.winner,
                "reason": outcome.reason,
                "scores": list(outcome.scores),
            }
        try:
            self.database.add_move(
                row.id,
                row.ply,
                text,
                now,
                clocks={"clocks": step.clocks, "seat": action.seat},
                deadline=self._deadline(step, current.pace, now, row),
                record=_with_names(step.record, row).dumps(),
                result=result,
            )
        except StalePly:
            raise MovedOn("the game moved on before this was played: look again") from None
        except GameFinished:
            raise Conflict("the match is over") from None
        finally:
            self.changed(row.id)
        self._after(row.id, step)

    def _deadline(
        self, step: _Step, pace: Pace, now: float, row: GameRow | None = None
    ) -> float | None:
        """When the flag of the player to move, whose turn began at `now`, falls (`None`:
        never, or a bot's turn); in a correspondence game, later by their vacations (those of
        the account the seat of `row` is bound to)."""
        waiting = step.waiting
        if waiting is None or not pace.timed or step.record.finished:
            return None
        seat, _, left = waiting
        if not is_human(step.record.players[seat - 1]):
            return None
        days = pace.days
        if days is None:
            return None if left is None else now + left
        limits = []
        if days.days_per_move is not None:
            limits.append(days.days_per_move * _DAY)
        if days.days_per_game is not None:
            used = sum(
                entry.seconds or 0.0
                for entry in step.record.games[-1].moves
                if entry.player == seat and not entry.auto
            )
            limits.append(days.days_per_game * _DAY - used)
        if not limits:
            return None
        away = self._away(row, seat) if row is not None else []
        return later(away, now, max(min(limits), 0.0))

    # Vacations (see abstractgames.web.vacation)

    def _away(self, row: GameRow, seat: int) -> Away:
        """The vacations of the account seat `seat` of `row` is bound to (none for a live game:
        a vacation stops correspondence clocks, and the claim in a game without one)."""
        account = row.seats[seat - 1].account_id
        if account is None or (isinstance(row.time_control, dict) and "clock" in row.time_control):
            return []
        return self.database.vacations(account)

    def _spent(self, current: _Current, seat: int, now: float) -> float:
        """The time seat `seat` has taken for this turn by `now`, less its vacations."""
        began = current.turn_began
        return now - began - paused(self._away(current.row, seat), began, now)

    def _reschedule(self, current: _Current) -> None:
        """Set the deadline of the player to move again, from their turn's start and their
        vacations (one began or ended)."""
        row, step = current.row, current.step
        deadline = self._deadline(step, current.pace, current.turn_began, row)
        if deadline == row.deadline:
            return
        try:
            self.database.move_deadline(row.id, row.ply, deadline)
        except (StalePly, GameFinished):
            pass  # moved on meanwhile: the move set its deadline
        finally:
            self.changed(row.id)

    def reschedule(self, account_id: str) -> None:
        """Set again the deadlines of the account's unfinished games where it is its move (its
        vacation began or ended)."""
        for row in self.database.account_games(account_id, finished=False):
            try:
                current = self._replayed(row)
            except (DamagedGame, AbstractGamesError, ValueError, TypeError, KeyError):
                continue
            waiting = current.step.waiting
            if waiting is not None and row.seats[waiting[0] - 1].account_id == account_id:
                if current.pace.correspondence:
                    self._reschedule(current)
                else:
                    self.changed(row.id)

    def _after(self, game_id: str, step: _Step) -> None:
        """After a step: start the bot whose turn it is, or tell the person to move."""
        waiting = step.waiting
        if step.record.finished:
            self._notify_end(game_id, step)
            for hook in list(self.on_finished):
                try:
                    hook(game_id)
                except Exception:  # the game is over whatever a hook does
                    _log.exception("after game %s ended", game_id)
            return
        if waiting is None or self.stop.is_set():
            return
        seat = waiting[0]
        if not is_human(step.record.players[seat - 1]):
            with self._lock:
                if game_id in self._thinking:
                    return
                self._thinking.add(game_id)
            self._bots.submit(self._bot_move, game_id, seat)
            return
        self._notify(game_id, step, seat)

    def _bot_move(self, game_id: str, seat: int) -> None:
        try:
            current = self._current(game_id)
            waiting = current.step.waiting
            if waiting is None or waiting[0] != seat or current.row.finished:
                return
            with self._lock:
                self._thinking.discard(game_id)  # the step may start the bot again (a new game)
            self._commit(current, Action(seat, "bot"), 0.0, self.clock())
        except (Conflict, NotFound):
            pass
        except Exception:  # a bot's failure is its forfeit; this is the server's own
            _log.exception("the bot of game %s could not move", game_id)
        finally:
            with self._lock:
                self._thinking.discard(game_id)

    def _notify(self, game_id: str, step: _Step, seat: int) -> None:
        if self.notifier is None or step.waiting is None or not step.pace.correspondence:
            return
        try:
            row = self.database.game(game_id)
        except UnknownGame:
            return
        holder = row.seats[seat - 1]
        if not (holder.email or holder.webhook_url) or not _correspondence(row):
            return
        last = next((p["move"] for p in reversed(step.plies) if p["player"] is not None), None)
        notice = your_move(
            game_id, step.game.title or step.game.name, step.waiting[1], last, self.link(game_id)
        )
        if holder.email and not holder.digest:  # the e-mail's link opens the seat anywhere
            token = self.mail_token(game_id, seat)
            seat_link = self.seat_link(game_id, token)
            self.notifier.notify(attrs.evolve(notice, link=seat_link), email=holder.email)
        self.notifier.notify(notice, webhook=holder.webhook_url)

    def _notify_end(self, game_id: str, step: _Step) -> None:
        result = step.record.result
        if self.notifier is None or result is None or not step.pace.correspondence:
            return
        try:
            row = self.database.game(game_id)
        except UnknownGame:
            return
        if not _correspondence(row):
            return
        title = step.game.title or step.game.name
        notice = game_over(game_id, title, result.reason, self.link(game_id))
        for holder in row.seats:
            if holder.email or holder.webhook_url:
                self.notifier.notify(notice, email=holder.email, webhook=holder.webhook_url)

    def _view(self, current: _Current, seat: int | None) -> dict[str, Any]:
        step, row, game = current.step, current.row, current.step.game
        record = step.record
        waiting = step.waiting
        now = self.clock()
        mine = waiting is not None and waiting[0] == seat and not row.finished
        thinking = waiting[0] if waiting is not None and not row.finished else None
        clocks = None
        if current.pace.clock is not None:
            clocks = list(step.clocks)
            if waiting is not None and clocks[waiting[0] - 1] is not None and not row.finished:
                left = clocks[waiting[0] - 1]
                assert left is not None
                clocks[waiting[0] - 1] = max(left - (now - current.turn_began), 0.0)
        away: Away = []
        if waiting is not None and not row.finished and current.pace.clock is None:
            away = self._away(row, waiting[0])
        number = step.match.game_number
        shown_number = number if number is not None else len(record.games)
        names = _names(row)
        status, error = "finished" if row.finished else "playing", None
        if row.finished and record.result is None:  # ended outside the rules: the operator
            status, error = "failed", str((row.result or {}).get("reason") or "it was ended")
        return MatchView(
            id=row.id,
            version=row.ply,
            status=status,
            error=error,
            game=game,
            state=step.state,
            match=step.match,
            players=[
                PlayerView(holder.player_spec or holder.name or f"player {n}", n == seat)
                for n, holder in enumerate(row.seats, start=1)
            ],
            roles=_roles(game, step.match, shown_number),
            game_number=shown_number,
            games_in_match=len(match_roles(game)) if not record.single else 1,
            ply=row.ply,
            plies=step.plies,
            finished_games=step.finished_games,
            thinking=thinking,
            awaiting=seat if mine else None,
            moving=None if waiting is None else waiting[1],
            clock=current.pace.clock,
            clocks=clocks,
            running=thinking if clocks is not None else None,
            result=record.result,
            names=names,
            seed=None,  # the chance draws to come are nobody's business
            single=record.single,
            start=row.start_position,
            notices=[
                named_text(
                    f"player {n} ran out of time: their moves are made for them for the rest of "
                    "this game",
                    names,
                )
                for n in sorted({p["player"] for p in step.plies if p["auto"]})
            ],
            server={
                "online": True,
                "time_control": str(current.pace),
                "correspondence": current.pace.correspondence,
                "deadline": row.deadline,
                "seats": [
                    {"number": s.seat + 1, "name": s.name, "bot": s.player_spec} for s in row.seats
                ],
                "you": seat,
                "rematch": row.rematch,
                "claimable_from": _claimable_from(current, away)
                if not current.pace.timed and waiting is not None and not row.finished
                else None,
                "offer": row.offer if not row.finished else None,
                "away_until": next((end for start, end in away if start <= now < end), None),
                "can_take_back": seat is not None
                and row.offer is None
                and not row.finished
                and step.can_take_back(seat),
            },
        ).to_json()

    def record_of(self, game_id: str) -> MatchRecord:
        """The match record of a game (what `abstractgames replay` reads).

        Raises:
            NotFound: no such game.
        """
        current = self._current(game_id)
        return _with_names(current.step.record, current.row)


def _with_names(record: MatchRecord, row: GameRow) -> MatchRecord:
    """`record` carrying the names the seats of `row` go by (a bot's is its spec)."""
    return attrs.evolve(record, names=(row.seats[0].name, row.seats[1].name))


def _names(row: GameRow) -> tuple[str | None, str | None]:
    """What the seats of `row` are called: a person's name, a bot's spec."""
    first, second = row.seats
    return (first.name or first.player_spec, second.name or second.player_spec)


def _seat_of(row: GameRow, secret: str | None) -> int | None:
    """The seat (1 or 2) whose secret is `secret`; both seats are compared, so the time taken
    does not say which one matched."""
    if not secret or not isinstance(secret, str):
        return None
    wanted = hash_secret(secret)
    found = None
    for seat in row.seats:
        if seat.secret_hash is not None and hmac.compare_digest(seat.secret_hash, wanted):
            found = seat.seat + 1
    return found


def _expiry(challenge: Challenge, pace: Pace) -> float:
    """When a challenge leaves the lobby unaccepted."""
    wait = CORRESPONDENCE_CHALLENGE_DAYS * _DAY if pace.correspondence else CHALLENGE_HOURS * 3600
    return challenge.created_at + wait


def _claimable_from(current: _Current, away: Away = ()) -> float:
    """When the opponent of the player to move may claim a game without a clock (later by the
    vacations `away` of the player to move)."""
    return later(away, current.turn_began, CLAIM_DAYS * _DAY)


def _correspondence(row: GameRow) -> bool:
    """Whether the game of `row` is played by correspondence (days a move)."""
    try:
        return Pace.from_stored(row.time_control).correspondence
    except DamagedGame:
        return False


def _title(spec: str) -> str:
    try:
        game = parse_game_spec(spec)
    except AbstractGamesError:
        return spec
    return game.title or game.name
