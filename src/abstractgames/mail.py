"""Correspondence by text: a whole game in one plain-text file, pasted into e-mails and read back.

The text holds header lines (the game, the players, the date, the time control), every move of
every game of the match one to a line with the time it was sent, the diagram of the position
and what is to happen next. Whoever is to move runs `abstractgames mail move FILE MOVE` on the
text they received (the whole e-mail will do: quoting `> `, indentation, re-wrapped lines, text
above and a signature below are passed over), and sends the text it writes. Every command reads
the whole move list through the rules again: a tampered or mistyped line is refused with its
line number.

Chance (the bag's draws in Entropy) is settled so that neither player knows a draw before it is
due and neither can steer it (see [Play by e-mail](../mail.md)): at each draw, the player who
moves next after it (the *committer*) has first sent the hash of a secret value of theirs; the
other player (the *giver*) then sends a value in the clear; the committer, knowing both, makes
the draw and reveals their value with their next move, so that the other side checks the draw.
The draw is `random_move` on a generator seeded with a hash of the game's id and both values.
Each player's secret values come from a key kept in their own data directory, never in the text.

Each player's program also remembers the game ([`Memory`][]): the seats it plays, bound when
the game begins, and every text it sent and received. A text it receives must extend what it
knows by the opponent's actions alone; a rewritten, replayed or forged message, a move made
for its own seat elsewhere, or a changed header is refused, naming the line. The move list
ends with a line that counts it and carries a checksum, so that a damaged e-mail is refused
rather than read as a shorter game.

With the `mail` extra, every line a player writes is signed by their key
(`abstractgames.mail_signatures`): their public key goes into the header of the first message
they send, a `sig:` line follows each of their lines, and `verify_signatures` tells a third
party given only the text who wrote every line.

Nothing here knows a particular game: the chance nodes, the roles, the match of several games
and the rule on time come from the game's own protocol.

Examples:
    >>> from abstractgames import get_game
    >>> game = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON)
    >>> game = game.play("X@c3", when=NOON)
    >>> print(game.render().split("\\n\\n")[1].rsplit(",", 1)[0])
    Game 1: Ann is order, Bob is chaos
    1. order X@c3  2026-01-01 12:00
    End of the list: 1 line
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import hmac
import json
import os
import random
import re
import secrets
from pathlib import Path
from typing import cast

import attrs

from . import mail_signatures as signatures
from .files import data_directory, read_bounded, write_atomic
from .grid import diagram, grid_of
from .protocol import (
    CHANCE,
    AbstractGamesError,
    Game,
    Match,
    MatchError,
    Move,
    State,
    random_move,
)
from .records import MatchRecord, TimeControl, TimeControlError
from .registry import parse_game_spec
from .steps import (
    ActionRefused,
    ChanceDraw,
    Event,
    GameEnded,
    GameStarted,
    MatchInPlay,
    MovePlayed,
    OutOfTime,
    PlayMove,
    Resignation,
)
from .text import excerpt, printable

__all__ = [
    "FORMAT",
    "MAX_TEXT",
    "NOON",
    "Keys",
    "MailError",
    "MailGame",
    "Memory",
    "Received",
    "Replay",
    "TimeControl",
    "Turn",
    "commitment",
    "describe",
    "read_mail",
    "signing_identity",
    "verify_signatures",
]

FORMAT = "abstractgames correspondence game, format 2"
"""The first line of every game text."""
_OLD_FORMAT = re.compile(r"abstractgames correspondence game, format \d+")
MAX_TEXT = 2 * 1024 * 1024
"""The most characters of text read (an e-mail with a whole game is far smaller)."""
NOON = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
"""A fixed time, for examples and tests."""
_TIME = "%Y-%m-%d %H:%M"
_HEX = re.compile(r"[0-9a-f]{32}")
_END = re.compile(r"End of the list: (\d+) lines?, checksum ([0-9a-f]{16})")
_SIG = re.compile(r"sig: ([A-Za-z0-9_-]{43}) ([A-Za-z0-9_-]{43})")
_SIG_TAIL = re.compile(r"[A-Za-z0-9_-]+")
_RANK = re.compile(r"(?P<cells>\S(?: \S)*) <---(?P<rank>\d+)")
_TIME_ALONE = re.compile(r"\d{4}-\d\d-\d\d(?: \d\d:\d\d)?|\d\d:\d\d")
_MAX_NAME = 60
_DAY = dt.timedelta(days=1)
_NO_TIME_LIMIT = TimeControl()


class MailError(AbstractGamesError, ValueError):
    """A game text that cannot be read, breaks the rules, or does not allow what was asked."""


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)


def _time_text(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime(_TIME)


@functools.lru_cache(maxsize=4096)
def _parsed_time(text: str) -> dt.datetime:
    """`text` read as a time; the same times are read with each reading of a game's list."""
    return dt.datetime.strptime(text, _TIME).replace(tzinfo=dt.UTC)


def _read_time(text: str, where: str) -> dt.datetime:
    try:
        return _parsed_time(text)
    except ValueError:
        raise MailError(
            f"{where}: {excerpt(text)!r} is not a time (YYYY-MM-DD HH:MM, UTC)"
        ) from None


# --- the players' keys ----------------------------------------------------------------------------


class Keys:
    """A player's secret keys for the draws of their games, one file a game in their data
    directory (`mail/ID.json`, readable by them alone), made when first needed.

    Args:
        directory: where the keys are kept (default: `mail` in the data directory).
    """

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = data_directory() / "mail" if directory is None else directory

    def _path(self, game_id: str) -> Path:
        return self.directory / f"{game_id}.json"

    def key(self, game_id: str, seat: int, *, make: bool) -> bytes | None:
        """The key of `seat` in the game `game_id` (made if `make`), or `None` if none is kept
        here (another player's machine has it)."""
        path = self._path(game_id)
        try:
            kept: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            kept = {}
        except (OSError, ValueError) as error:
            raise MailError(f"cannot read the keys in {path}: {error}") from None
        if str(seat) in kept:
            return bytes.fromhex(kept[str(seat)])
        if not make:
            return None
        seats = Memory(self.directory).seats(game_id)
        if seats is not None and seat not in seats:
            raise MailError(
                f"this machine plays {_seats_text(seats)} in this game: it makes no key for "
                f"player {seat}, whose draws are made on their own machine"
            )
        kept[str(seat)] = secrets.token_hex(32)
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(kept, indent=2, sort_keys=True) + "\n")
        os.chmod(path, 0o600)
        return bytes.fromhex(kept[str(seat)])


def signing_identity(directory: Path | None = None) -> signatures.Identity | None:
    """This player's key pair for signing (made on first use, kept in `directory`, by default
    `mail` in the data directory), or `None` without the `mail` extra.

    Raises:
        MailError: the key file cannot be read or written.
    """
    if not signatures.available():
        return None
    try:
        return signatures.Identity(directory)
    except (OSError, ValueError) as error:
        raise MailError(f"cannot read or make this player's signing key: {error}") from None


def _value(key: bytes, game_id: str, game_number: int, draw: int) -> str:
    return hmac.new(key, f"{game_id}/{game_number}/{draw}".encode(), hashlib.sha256).hexdigest()[
        :32
    ]


def _given(key: bytes, game_id: str, game_number: int, draw: int, committed: str) -> str:
    """The giver's value for a draw: derived from the commitment it answers, so that the
    giver's program alone can tell later that the commitment was not changed since."""
    text = f"give/{game_id}/{game_number}/{draw}/{committed}"
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()[:32]


def _seats_text(seats: set[int] | frozenset[int]) -> str:
    return "both seats" if len(seats) == 2 else f"player {min(seats)}"


def commitment(game_id: str, game_number: int, draw: int, value: str) -> str:
    """The hash a committer sends first for its `value` of a draw."""
    text = f"commit/{game_id}/{game_number}/{draw}/{value}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _draw(state: State, game_id: str, game_number: int, draw: int, first: str, second: str) -> Move:
    """The chance event both values give: `random_move` on a generator seeded with them."""
    digest = hashlib.sha256(f"draw/{game_id}/{game_number}/{draw}/{first}/{second}".encode())
    return random_move(state, random.Random(int.from_bytes(digest.digest(), "big")))


# --- the text -------------------------------------------------------------------------------------


@attrs.frozen
class Entry:
    """One line of a game's list: a move, a resignation, or a step of a draw.

    `kind` is `"move"`, `"resigns"`, `"commits"`, `"gives"`, `"reveals"` or `"draw"`; `role`
    the role of whoever wrote it (none for a draw); `draw` the number of the draw a step is
    for; `text` the move, the value, the hash or the drawn event.
    """

    game: int
    kind: str
    role: str | None
    text: str
    draw: int = 0
    when: dt.datetime | None = None
    line: int = attrs.field(default=0, eq=False)
    """Where the line was read (0: made here); not part of what the line says."""
    number: int = 0
    """A move's number in its game (1, 2, …), as written."""
    sig: str | None = attrs.field(default=None, eq=False)
    """The signature of the line by its player's key (86 characters of base64url), if signed;
    written on a `sig:` line of its own below it, and compared apart from what the line says."""

    def render(self) -> str:
        when = "" if self.when is None else f"  {_time_text(self.when)}"
        if self.kind == "move":
            return f"{self.number}. {self.role} {self.text}{when}"
        if self.kind == "resigns":
            return f"{self.role} resigns{when}"
        if self.kind == "draw":
            return f"draw {self.draw}: {self.text}"
        return f"{self.role} {self.kind} {self.draw}: {self.text}{when}"

    def summary(self) -> str:
        """What the line says, in a few words for the person who sent it: `3. chaos G@b2`,
        `draw 2: G`, `a commitment to draw 3`, `a value for draw 2`, `the value of draw 2`."""
        if self.kind in ("move", "resigns", "draw"):
            return self.render().split("  ")[0]
        what = {"commits": "a commitment to", "gives": "a value for", "reveals": "the value of"}
        return f"{what[self.kind]} draw {self.draw}"


_ENTRY = re.compile(
    r"(?:(?P<number>\d+)\. (?P<mover>\S+) (?P<move>\S+(?: \S+)*?)"
    r"|(?P<resigner>\S+) resigns"
    r"|draw (?P<drawn>\d+): (?P<event>\S+)"
    r"|(?P<who>\S+) (?P<kind>commits|gives|reveals) (?P<step>\d+): (?P<value>[0-9a-f]{32}))"
    r"(?: (?P<when>\d{4}-\d\d-\d\d \d\d:\d\d))?"
)
_GAME = re.compile(r"Game (\d+): .*")
_GAME_WHOLE = re.compile(r"Game \d+: .+ is \S+, .+ is \S+")
_HEADER = re.compile(
    r"(Game|Id|Player 1|Player 2|Started|Time|Made by|Start|Key player 1|Key player 2): ?(.*)"
)
_HEADERS = ("Game", "Id", "Player 1", "Player 2", "Started", "Time", "Made by")


def _clean(line: str) -> str:
    """A line without its e-mail quoting (`> `, nested or not), spaces around, and with every
    run of spaces (no-break spaces and tabs too) one space: an e-mail program that collapses
    them, or makes them no-break, changes nothing that is read."""
    return " ".join(re.sub(r"^[\s>]*", "", line).split())


def _name(text: str, where: str) -> str:
    name = " ".join(text.split())
    if not name or not text.isprintable() or len(name) > _MAX_NAME:
        raise MailError(
            f"{where}: a player's name is one line of at most {_MAX_NAME} printable characters, "
            f"not {printable(excerpt(text))!r}"
        )
    return name


@attrs.frozen
class Turn:
    """What happens next in a game: who acts, and what they do.

    Attributes:
        seat: the player who acts (1 or 2); `None` when the match is over.
        action: `"move"` (a move of the game), `"commit"`, `"give"` (a step of a draw: the
            command is `mail move FILE draw`), `"reveal"` (a move after a draw that the player
            moving makes from both values, revealing theirs), or `"over"`.
        role: that player's role.
    """

    seat: int | None
    action: str
    role: str | None = None


@attrs.define
class _Draw:
    """The steps of one draw sent so far."""

    committer: int
    commitment: str
    value: str | None = None
    revealed: str | None = None


@attrs.frozen
class Replay:
    """A game's list read through the rules ([`MailGame.replay`][]).

    Attributes:
        match: the match after every line.
        state: the position now.
        turn: what happens next.
        game_number: the game of the match being played (the last one, once over).
        draws: the draws of that game made so far.
        pending: the steps of that game's draws sent so far, by draw.
        record: the match as a game record (`abstractgames replay` checks it).
        spent: each player's time in that game so far.
        since: when the last message was sent (the start, before any).
    """

    match: Match
    state: State
    turn: Turn
    game_number: int
    draws: int  # the draws of the current game made so far
    pending: dict[int, _Draw]  # the current game's draws, by number
    record: MatchRecord
    spent: dict[int, dt.timedelta]  # each seat's time in the current game
    since: dt.datetime  # when the last message was sent (the start, before any)


@attrs.define
class _Progress:
    """Where a replay stands: the position, the game of the match, its draws and moves so far,
    the steps of its draws sent, each seat's time in it."""

    state: State
    number: int = 1
    draws: int = 0
    moves: int = 0
    pending: dict[int, _Draw] = attrs.Factory(dict)
    spent: dict[int, dt.timedelta] = attrs.Factory(lambda: {1: dt.timedelta(), 2: dt.timedelta()})

    def follow(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, MovePlayed):
                self.state = event.after
            elif isinstance(event, GameEnded):
                self.state = event.state
            elif isinstance(event, GameStarted) and event.record.number != self.number:
                self.state, self.number = event.state, event.record.number
                self.draws, self.moves, self.pending = 0, 0, {}
                self.spent = {1: dt.timedelta(), 2: dt.timedelta()}


@attrs.frozen
class MailGame:
    """A game by correspondence as its text holds it (see [the module][abstractgames.mail]).

    `made_by` is the seat of the machine that made the game (1 or 2; 0: one machine plays
    both, as against a bot): whoever receives it first plays the other seat."""

    game: Game
    id: str
    players: tuple[str, str]
    started: dt.datetime
    time: TimeControl = _NO_TIME_LIMIT
    start: str | None = None
    entries: tuple[Entry, ...] = ()
    made_by: int = 1
    keys: tuple[str | None, str | None] = (None, None)
    """Each player's public key (`ed25519:...`), from the first message they sent, if they
    sign (see `abstractgames.mail_signatures`)."""
    lines: dict[str, int] = attrs.field(factory=dict, eq=False)
    """Where each header was read (none: made here); not part of what the text says."""
    shown: tuple[tuple[int, int, tuple[str, ...]], ...] = attrs.field(default=(), eq=False)
    """The diagram's ranks as read (line, rank, cells), checked against the moves."""
    _replays: dict[dt.datetime | None, Replay] = attrs.field(
        factory=dict, init=False, eq=False, repr=False
    )
    """The replays made so far, by `now` (a game is read, checked and written from one)."""

    # -- making and reading ------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        game: Game,
        players: tuple[str, str],
        *,
        time: TimeControl = _NO_TIME_LIMIT,
        start: State | None = None,
        when: dt.datetime | None = None,
        made_by: int = 1,
        identity: signatures.Identity | None = None,
    ) -> MailGame:
        """A new game (from `start`, else the game's first position), made on the machine of
        player `made_by` (0: one machine plays both seats). Whoever creates it sends nothing
        for either player: where a draw comes first, its committer commits with
        `play("draw")` on their own machine, so that their key is theirs alone. With an
        `identity`, its public key is the maker's seat's (both seats', for `made_by` 0): that
        player signs every line they write.

        Raises:
            MailError: a start where the game is over, or a name that cannot be written.
        """
        names = (_name(players[0], "player 1"), _name(players[1], "player 2"))
        if made_by not in (0, 1, 2):
            raise MailError(f"the game is made by player 1, player 2 or both, not {made_by!r}")
        if start is not None and start.is_terminal():
            raise MailError(f"the game is over in {start.position()}: start from another")
        made = cls(
            game,
            secrets.token_hex(16),
            names,
            when or _now(),
            time,
            None
            if start is None or start.position() == game.initial_state().position()
            else start.position(),
            made_by=made_by,
            keys=(
                None if identity is None or made_by == 2 else identity.public,
                None if identity is None or made_by == 1 else identity.public,
            ),
        )
        made.replay(when or _now())
        return made

    @classmethod
    def parse(cls, text: str) -> MailGame:
        """Read a game from its text, or from an e-mail that holds it (quoted, indented,
        re-wrapped, its spaces collapsed, with a signature or a reply around it). Where the
        e-mail holds several copies of the game (a reply quoting the one before), the longest
        is read, and every other copy must be the beginning of it. Every copy is read to the
        end of its list, whose line count and checksum must agree.

        Raises:
            MailError: naming the line that cannot be read.
        """
        if not isinstance(text, str):
            raise MailError(f"a game text is text, not {type(text).__name__}")
        if len(text) > MAX_TEXT:
            raise MailError(
                f"the text is too long ({len(text):,} characters; at most {MAX_TEXT:,})"
            )
        lines = [_clean(line) for line in text.splitlines()]
        starts = [i for i, line in enumerate(lines) if line == FORMAT]
        if not starts:
            older = next((line for line in lines if _OLD_FORMAT.fullmatch(line)), None)
            if older is not None:
                raise MailError(f"this text is in another format ({older!r}): {FORMAT!r} is read")
            raise MailError(f"no game in this text: it has no line {FORMAT!r}")
        copies = [_parse_copy(lines, first) for first in starts]
        longest = max(copies, key=lambda copy: len(copy.entries))
        for copy in copies:
            if copy.id != longest.id:
                raise MailError("this text holds two different games: send one")
            if copy.entries != longest.entries[: len(copy.entries)]:
                raise MailError("this text holds two copies of the game that differ: send one")
        return longest

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MailGame:
        """Read the game text (or e-mail) in a file; see [`parse`][]."""
        return cls.parse(read_mail(path))

    # -- the text ------------------------------------------------------------------------------

    def header_lines(self) -> list[str]:
        """The header lines, as written."""
        made = "both players" if self.made_by == 0 else f"player {self.made_by}"
        out = [
            f"Game: {self.game.spec}",
            f"Id: {self.id}",
            f"Player 1: {self.players[0]}",
            f"Player 2: {self.players[1]}",
            f"Started: {_time_text(self.started)} UTC",
            f"Time: {self.time}",
            f"Made by: {made}",
        ]
        if self.start is not None:
            out.append(f"Start: {self.start}")
        out += [f"Key player {seat}: {key}" for seat, key in enumerate(self.keys, 1) if key]
        return out

    def checksum(self) -> str:
        """The list's checksum: a hash of the headers and every line, as read, signatures
        included."""
        listed = [
            *self.header_lines(),
            *(f"{e.game} {e.render()}" + (f" sig {e.sig}" if e.sig else "") for e in self.entries),
        ]
        return hashlib.sha256("\n".join(listed).encode()).hexdigest()[:16]

    def signed_message(self, index: int) -> bytes:
        """What the signature of the list's line `index` (0: the first) signs: the game's Id,
        the line's number and what it says, and a hash of the headers (less the keys) and of
        every line before it with its signature; so that a signed line cannot be moved to
        another place, another game or another history."""
        return self.signed_messages(index + 1)[index]

    def signed_messages(self, count: int | None = None) -> list[bytes]:
        """What the signatures of the list's first `count` lines (all by default) sign, each
        as [`signed_message`][] says, the hashes chained in one pass."""
        chain = hashlib.sha256(
            "\n".join(
                ["abstractgames mail"]
                + [line for line in self.header_lines() if not line.startswith("Key player ")]
            ).encode()
        ).digest()
        messages = []
        for index, entry in enumerate(self.entries[:count]):
            shown = f"{entry.game} {entry.render()}"
            text = f"abstractgames mail line\n{self.id}\n{index + 1}\n{shown}\n"
            messages.append(text.encode() + chain.hex().encode())
            chain = hashlib.sha256(chain + f"{shown}\n{entry.sig or ''}".encode()).digest()
        return messages

    def end_line(self) -> str:
        """The line that ends the list: how many lines it has, and its checksum."""
        count = len(self.entries)
        return (
            f"End of the list: {count} line{'' if count == 1 else 's'}, checksum {self.checksum()}"
        )

    def render(self, now: dt.datetime | None = None) -> str:
        """The game's text: headers, every move, the end of the list, the diagram and what is
        to happen next."""
        replay = self.replay(now)
        out = [FORMAT, *self.header_lines()]
        shown = 0
        for entry in self.entries:
            if entry.game != shown:
                shown = entry.game
                out.append("")
                out.append(self._game_line(replay.match, entry.game))
            out.append(entry.render())
            if entry.sig:
                out.append(f"sig: {entry.sig[:43]} {entry.sig[43:]}")
        if replay.game_number != shown and replay.turn.action != "over":
            out.append("")
            out.append(self._game_line(replay.match, replay.game_number))
        out.append(self.end_line())
        out.append("")
        board = diagram(replay.state)
        if replay.turn.action == "over":  # no one is to move in a finished game
            board = board.rsplit("\n\n", 1)[0]
        out.append(board)
        out.append("")
        out.append(self.next_line(replay))
        return "\n".join(out) + "\n"

    def _game_line(self, match: Match, number: int) -> str:
        roles = [match.role_of(seat, number) for seat in (1, 2)]
        return f"Game {number}: {self.players[0]} is {roles[0]}, {self.players[1]} is {roles[1]}"

    def next_line(self, replay: Replay) -> str:
        """The text's last line: `Next: NAME (ROLE) to ...`, or `Result: ...` once over."""
        turn = replay.turn
        if turn.action == "over":
            result = replay.match.result()
            assert result is not None
            if result.winner is None:
                return f"Result: a draw ({result.reason})"
            return f"Result: {self.players[result.winner - 1]} wins ({result.reason})"
        assert turn.seat is not None
        name = self.players[turn.seat - 1]
        who = f"{name} ({turn.role})"
        if turn.action == "move":
            return f"Next: {who} to move"
        if turn.action == "reveal":
            return (
                f"Next: {who} to move, after draw {replay.draws + 1}, which {name}'s program makes "
                "from both values (abstractgames mail show FILE shows it)"
            )
        step = "commit to" if turn.action == "commit" else "give a value for"
        return f"Next: {who} to {step} the next draw (abstractgames mail move FILE draw)"

    def seat_of(self, entry: Entry) -> int | None:
        """The seat that wrote `entry` (none for a draw line, or a role the game lacks)."""
        if entry.role is None:
            return None
        match = self.game.new_match(time_loss_forfeits=True)
        for seat in (1, 2):
            try:
                if match.role_of(seat, entry.game) == entry.role:
                    return seat
            except (MatchError, ValueError, IndexError):
                return None
        return None

    # -- reading through the rules ---------------------------------------------------------------

    def replay(self, now: dt.datetime | None = None) -> Replay:
        """Read every line through the rules, the draws and the clock (with `now`, the clock
        of the player to act too: past their time, they have lost), advancing the match
        engine (`steps.MatchInPlay`) with each move, draw,
        resignation and time loss; the record it builds is the match's. The diagram read with
        the text, if any, must show the position the moves give.

        Raises:
            MailError: naming the first line the rules, the draws, the clock or the diagram
                refuse.
        """
        known = self._replays.get(now)
        if known is None:
            known = self._replays[now] = self._replay(now)
        return known

    def _replay(self, now: dt.datetime | None) -> Replay:
        game = self.game
        start = game.initial_state() if self.start is None else game.from_position(self.start)
        record = MatchRecord(
            game=game.name,
            params=game.params,
            players=self.players,
            seed=0,
            time_loss_forfeits=True,
        )
        engine = MatchInPlay(game, record, start=start)
        now_at = _Progress(start)
        since, last = self.started, 0
        shown: Entry | None = None  # a draw line, checked by the reveal right after it
        for entry in self.entries:
            where = f"line {entry.line}" if entry.line else f"{entry.kind} {excerpt(entry.text)}"
            turn = _turn(engine, now_at)
            if turn.action == "over":
                raise MailError(f"{where}: the match is over")
            if entry.game != now_at.number:
                raise MailError(f"{where}: this is game {now_at.number}, not game {entry.game}")
            if shown is not None and entry.kind != "reveals":
                raise MailError(
                    f"line {shown.line}: a draw line comes right before the value that makes it"
                )
            if entry.kind == "draw":
                if turn.action != "reveal" or entry.draw != now_at.draws + 1:
                    raise MailError(f"{where}: no draw {entry.draw} is due here")
                shown = entry
                continue
            assert entry.role is not None
            seat = _seat(engine.match, entry.role, where)
            if entry.kind in ("move", "gives", "reveals") and seat != turn.seat:
                raise MailError(f"{where}: {_expected(turn)}")
            if entry.when is None:
                raise MailError(f"{where}: the line has no time")
            if seat != last:  # a new message: its sender's time runs from the one before
                if entry.when < since:
                    raise MailError(f"{where}: its time is before the time of the line before")
                wait = entry.when - since
                now_at.spent[seat] += wait
                late = self.time.over(wait, now_at.spent[seat])
                if late:
                    raise MailError(f"{where}: player {seat} ran out of time ({late})")
                since, last = entry.when, seat
            elif entry.when != since:
                raise MailError(f"{where}: the lines of one message have one time")
            if entry.kind == "resigns":
                now_at.follow(engine.step(Resignation(seat)))
            elif entry.kind == "commits":
                if entry.draw != now_at.draws + 1 or entry.draw in now_at.pending:
                    raise MailError(f"{where}: draw {now_at.draws + 1} is the one to commit to")
                self._check_fresh(now_at.pending, entry.text, where)
                now_at.pending[entry.draw] = _Draw(seat, entry.text)
            elif entry.kind == "gives":
                if turn.action != "give" or entry.draw != now_at.draws + 1:
                    raise MailError(f"{where}: no value is to be given here: {_expected(turn)}")
                self._check_fresh(now_at.pending, entry.text, where)
                now_at.pending[entry.draw].value = entry.text
            elif entry.kind == "reveals":
                if turn.action != "reveal" or entry.draw != now_at.draws + 1:
                    raise MailError(f"{where}: no value is to be revealed here: {_expected(turn)}")
                step = now_at.pending[entry.draw]
                number = now_at.number
                if commitment(self.id, number, entry.draw, entry.text) != step.commitment:
                    raise MailError(
                        f"{where}: this is not the value committed to for draw {entry.draw}"
                    )
                assert step.value is not None
                event = _draw(now_at.state, self.id, number, entry.draw, entry.text, step.value)
                if shown is not None and shown.text != str(event):
                    raise MailError(
                        f"line {shown.line}: the draw is {event}, not {excerpt(shown.text)} (the "
                        "two values give it)"
                    )
                step.revealed, shown = entry.text, None
                now_at.draws += 1
                now_at.follow(engine.step(ChanceDraw(str(event))))
            else:  # a move
                if turn.action == "reveal":
                    raise MailError(f"{where}: draw {now_at.draws + 1} is to be revealed first")
                now_at.moves += 1
                if entry.number != now_at.moves:
                    raise MailError(
                        f"{where}: this is move {now_at.moves} of game {now_at.number}, not "
                        f"{entry.number}"
                    )
                try:
                    game.parse_move(entry.text, now_at.state)
                    now_at.follow(engine.step(PlayMove(entry.text)))
                except (AbstractGamesError, ActionRefused) as error:
                    raise MailError(f"{where}: {entry.text} cannot be played: {error}") from None
        if shown is not None:
            raise MailError(
                f"line {shown.line}: a draw line comes right before the value that makes it"
            )
        turn = _turn(engine, now_at)
        if now is not None and turn.seat is not None:
            wait = now - since
            late = self.time.over(wait, now_at.spent[turn.seat] + wait)
            if late:
                reason = f"player {turn.seat} ran out of time ({late})"
                now_at.follow(engine.step(OutOfTime(0.0, reason=reason, player=turn.seat)))
                turn = Turn(None, "over")
        self._check_diagram(now_at.state)
        return Replay(
            engine.match,
            now_at.state,
            turn,
            now_at.number,
            now_at.draws,
            now_at.pending,
            engine.record,
            now_at.spent,
            since,
        )

    def _check_diagram(self, state: State) -> None:
        """The diagram read with the text must show `state`: a changed diagram is refused,
        naming the squares where it differs."""
        if not self.shown:
            return
        board = grid_of(state)
        cells = state.cells()
        ranks = {rank for _, rank, _ in self.shown}
        if ranks != set(range(1, board.height + 1)) or len(self.shown) != board.height:
            raise MailError(
                f"line {self.shown[0][0]}: the diagram does not have each of the board's "
                f"{board.height} ranks once"
            )
        differ = []
        for line, rank, row in self.shown:
            real = cells[(rank - 1) * board.width : rank * board.width]
            if len(row) != board.width:
                raise MailError(
                    f"line {line}: the diagram's rank {rank} is not {board.width} cells"
                )
            differ += [
                (line, board.name((rank - 1) * board.width + file), row[file], real[file])
                for file in range(board.width)
                if row[file] != real[file]
            ]
        if differ:
            squares = ", ".join(
                f"{name} ({shown} shown, {real} played)" for _, name, shown, real in differ
            )
            raise MailError(
                f"line {differ[0][0]}: the diagram is not the position the moves give: {squares}"
            )

    def _check_fresh(self, pending: dict[int, _Draw], text: str, where: str) -> None:
        for step in pending.values():
            if text in (step.commitment, step.value, step.revealed):
                raise MailError(f"{where}: {text} was sent before: a value serves one draw")

    def current(self, *, keys: Keys | None = None, now: dt.datetime | None = None) -> State:
        """The position the player whose turn it is plays from: with a draw of theirs due whose
        values are in, the position after it, if their key is here (on their machine); else the
        position of the text.

        Raises:
            MailError: as [`replay`][].
        """
        replay = self.replay(now)
        if replay.turn.action != "reveal" or replay.turn.seat is None:
            return replay.state
        if (keys or Keys()).key(self.id, replay.turn.seat, make=False) is None:
            return replay.state
        return self._drawn(replay, keys or Keys(), now or _now())[1]

    # -- acting ----------------------------------------------------------------------------------

    def play(
        self,
        action: str | None = None,
        *,
        when: dt.datetime | None = None,
        keys: Keys | None = None,
        now: dt.datetime | None = None,
        identity: signatures.Identity | None = None,
    ) -> MailGame:
        """The game after the player whose turn it is acts: `action` is a move, `"draw"` (a
        step of the draw that is due), or `"resign"`. The steps of the draws their move makes
        due are added with it (see [the module][abstractgames.mail]). With an `identity`, the
        lines are signed by it (see [`sign`][]).

        Raises:
            MailError: the move is not legal, it is not a draw's step, time is up, or the game
                is over; the player's lines are signed and no `identity` signs this one, or
                another key does.
        """
        when = when or _now()
        replay = self.replay(now or when)
        if replay.turn.action == "over":
            raise MailError(f"the match is over: {self.next_line(replay)}")
        assert replay.turn.seat is not None
        played = self._act(replay, action, when, keys or Keys())
        return played.sign(identity, replay.turn.seat, len(self.entries))

    def sign(self, identity: signatures.Identity | None, seat: int, since: int) -> MailGame:
        """The game with the lines of `seat` from the list's line `since` on signed by
        `identity`, its public key written as the seat's if the text has none yet and the
        seat has written no line before (the first message a player sends carries their key);
        else as it is (a player who did not sign from the first goes on unsigned).

        Raises:
            MailError: the seat's lines are signed and there is no `identity`, or it is
                another key than the one the text has for the seat.
        """
        key = self.keys[seat - 1]
        name = f"player {seat} ({self.players[seat - 1]})"
        if identity is None:
            if key is not None:
                raise MailError(
                    f"{name} signs their lines in this game (its text has their key), and this "
                    f"machine cannot sign: {signatures.INSTALL}"
                )
            return self
        if key is None:
            if any(self.seat_of(entry) == seat for entry in self.entries[:since]):
                return self  # their first message went unsigned: the game goes on so
            keys = list(self.keys)
            keys[seat - 1] = identity.public
            signing = attrs.evolve(self, keys=(keys[0], keys[1]))
        elif key != identity.public:
            raise MailError(
                f"{name} signs this game with the key {key}, and this machine's key is "
                f"{identity.public} (in {identity.path}): the key of a game does not change"
            )
        else:
            signing = self
        entries = list(signing.entries)
        for index in range(since, len(entries)):
            if entries[index].role is not None and signing.seat_of(entries[index]) == seat:
                sig = identity.sign(signing.signed_message(index))
                entries[index] = attrs.evolve(entries[index], sig=sig)
                signing = attrs.evolve(signing, entries=tuple(entries))
        return signing

    def _act(self, replay: Replay, action: str | None, when: dt.datetime, keys: Keys) -> MailGame:
        turn = replay.turn
        assert turn.seat is not None and turn.role is not None
        seat, role, number = turn.seat, turn.role, replay.game_number
        word = "" if action is None else action.strip()
        if word.lower() == "resign":
            return self._with(Entry(number, "resigns", role, "", 0, when))
        draw = replay.draws + 1
        if turn.action in ("commit", "give"):
            if word not in ("", "draw"):
                raise MailError(f"no move yet: {_expected(turn)} (mail move FILE draw)")
            key = self._key(keys, seat, make=True)
            if turn.action == "give":
                committed = replay.pending[draw].commitment
                value = _given(key, self.id, number, draw, committed)
                return self._with(Entry(number, "gives", role, value, draw, when))
            value = _value(key, self.id, number, draw)
            secret = commitment(self.id, number, draw, value)
            return self._with(Entry(number, "commits", role, secret, draw, when))
        if word in ("", "draw"):
            raise MailError(f"name the move to play: {_expected(turn)}")
        added, state = self._drawn(replay, keys, when)
        try:
            move = self.game.parse_move(word, state)
            after = state.apply(move)
        except AbstractGamesError as error:
            raise MailError(f"{excerpt(word)} cannot be played: {error}") from None
        moves = sum(e.kind == "move" and e.game == number for e in self.entries)
        added.append(Entry(number, "move", role, str(move), 0, when, number=moves + 1))
        if turn.action == "reveal" and not after.is_terminal():
            # The next draw's commitment now, so that the other side can give its value with
            # its move, before the draw is due: the one who drew is taken to draw next too.
            value = _value(self._key(keys, seat, make=False), self.id, number, draw + 1)
            secret = commitment(self.id, number, draw + 1, value)
            added.append(Entry(number, "commits", role, secret, draw + 1, when))
        moved = self._with(*added)
        more = moved.replay()
        if more.turn.seat == seat and more.turn.action == "give":
            return moved._act(more, "draw", when, keys)  # the value their move makes due
        return moved

    def _with(self, *entries: Entry) -> MailGame:
        return attrs.evolve(self, entries=(*self.entries, *entries), shown=())

    def _key(self, keys: Keys, seat: int, *, make: bool) -> bytes:
        key = keys.key(self.id, seat, make=make)
        if key is None:
            raise MailError(
                f"it is {self.players[seat - 1]}'s turn (player {seat}), and their key for this "
                "game's draws is not on this machine (looked in "
                f"{keys.directory}): it is kept in the data directory of the machine they play on"
            )
        return key

    def _drawn(self, replay: Replay, keys: Keys, when: dt.datetime) -> tuple[list[Entry], State]:
        """For the committer of a draw whose values are in: the lines that make it (the draw
        and the reveal) and the position after it; else none, and the position as it is."""
        if replay.turn.action != "reveal":
            return [], replay.state
        assert replay.turn.seat is not None and replay.turn.role is not None
        number, draw = replay.game_number, replay.draws + 1
        value = _value(self._key(keys, replay.turn.seat, make=False), self.id, number, draw)
        given = replay.pending[draw].value
        assert given is not None
        event = _draw(replay.state, self.id, number, draw, value, given)
        lines = [
            Entry(number, "draw", None, str(event), draw),
            Entry(number, "reveals", replay.turn.role, value, draw, when),
        ]
        return lines, replay.state.apply(event)

    def choose(self, spec: str, *, keys: Keys | None = None, now: dt.datetime | None = None) -> str:
        """What the bot `spec` plays for the player whose turn it is: a move, or `"draw"` for
        a step of a draw (it makes a draw that is due first, as [`play`][] does).

        Raises:
            MailError: the match is over, or the draw's key is not here.
            InvalidPlayerError: a bad spec.
        """
        from .players import PlayerFailed, SeededRandom
        from .registry import make_player

        when = now or _now()
        replay = self.replay(when)
        if replay.turn.action == "over":
            raise MailError(f"the match is over: {self.next_line(replay)}")
        if replay.turn.action in ("commit", "give"):
            return "draw"
        _, state = self._drawn(replay, keys or Keys(), when)
        player = make_player(spec, self.game)
        try:
            rng = SeededRandom(f"{self.id}/{replay.game_number}/{len(self.entries)}")
            return str(player.choose(state, rng, None))
        except PlayerFailed as error:
            raise MailError(f"the bot {excerpt(spec)} failed: {excerpt(error, 300)}") from None
        finally:
            player.close()


def _seat(match: Match, role: str, where: str) -> int:
    try:
        return match.player_of(role)
    except MatchError:
        raise MailError(f"{where}: {excerpt(role)!r} is not a role of this game") from None


def _turn(engine: MatchInPlay, now_at: _Progress) -> Turn:
    """Who acts next, from the engine's turn: at a chance draw the steps of its draw, in order
    (`"reveal"`: the committer has both values, draws and moves)."""
    turn = engine.turn()
    if turn is None:
        return Turn(None, "over")
    match, state = engine.match, turn.state
    if turn.kind != "chance":
        assert turn.player is not None and turn.role is not None
        return Turn(turn.player, "move", turn.role)
    after = state.apply(state.chance_outcomes()[0][0])
    role = after.to_move
    assert role is not None and role != CHANCE
    committer = match.player_of(role)
    step = now_at.pending.get(now_at.draws + 1)
    if step is None or step.committer != committer:  # a commitment by another is no use
        return Turn(committer, "commit", role)
    if step.value is None:
        giver = 3 - committer
        return Turn(giver, "give", match.role_of(giver))
    return Turn(committer, "reveal", role)


def _expected(turn: Turn) -> str:
    if turn.action == "over":
        return "the match is over"
    if turn.action in ("commit", "give"):
        return f"player {turn.seat} ({turn.role}) is to {turn.action} for the next draw first"
    return f"player {turn.seat} ({turn.role}) is to move"


def _parse_copy(lines: list[str], first: int) -> MailGame:
    """The game of the copy that begins at `lines[first]`, read to the end of its list."""
    headers: dict[str, str] = {}
    at: dict[str, int] = {}
    index = first + 1
    last: str | None = None
    while index < len(lines) and lines[index]:
        line = lines[index]
        found = _HEADER.fullmatch(line)
        if found is not None and found.group(1) not in headers:
            last = found.group(1)
            headers[last], at[last] = found.group(2).strip(), index + 1
        elif last is not None and found is None:  # a header an e-mail program wrapped
            headers[last] = f"{headers[last]} {line}"
        else:
            raise MailError(f"line {index + 1}: {excerpt(line)!r} is not a header line")
        index += 1
    for name in _HEADERS:
        if name not in headers:
            raise MailError(f"line {first + 1}: the game has no {name!r} line")
    where = f"line {first + 1}"
    try:
        game = parse_game_spec(headers["Game"])
    except AbstractGamesError as error:
        raise MailError(f"line {at['Game']}: {error}") from None
    if not _HEX.fullmatch(headers["Id"]):
        raise MailError(f"line {at['Id']}: the Id is not 32 hexadecimal digits")
    players = (
        _name(headers["Player 1"], f"line {at['Player 1']}"),
        _name(headers["Player 2"], f"line {at['Player 2']}"),
    )
    started = _read_time(headers["Started"].removesuffix(" UTC"), f"line {at['Started']}")
    made = {"player 1": 1, "player 2": 2, "both players": 0}.get(headers["Made by"])
    if made is None:
        raise MailError(
            f"line {at['Made by']}: 'Made by' is player 1, player 2 or both players, not "
            f"{excerpt(headers['Made by'])!r}"
        )
    keys: list[str | None] = []
    for seat in (1, 2):
        key = headers.get(f"Key player {seat}")
        if key is not None and not signatures.is_public_key(key.strip()):
            raise MailError(
                f"line {at[f'Key player {seat}']}: player {seat}'s key is not a public key "
                "('ed25519:' and 43 characters of base64url)"
            )
        keys.append(None if key is None else key.strip())
    entries: list[Entry] = []
    number = 0
    after_entry = False  # whether the line before was a line of the list (a signature's place)
    while True:
        if index >= len(lines):
            raise MailError(
                f"{where}: the list has no end line ('End of the list: N lines, checksum ...'): "
                "the e-mail is cut short or damaged, and a shorter game is not read"
            )
        line = lines[index]
        index += 1
        if not line:
            continue
        end = _END.fullmatch(line)
        if end is None and line.startswith("End of the list"):  # wrapped
            joined = line
            for extra in range(index, min(index + 3, len(lines))):
                joined = f"{joined} {lines[extra]}"
                end = _END.fullmatch(joined)
                if end is not None:
                    index = extra + 1
                    break
        if end is not None:
            break
        if line.startswith("sig:"):
            read, joined = index, line
            for extra in range(index, min(index + 3, len(lines))):
                if _SIG.fullmatch(joined) or not _SIG_TAIL.fullmatch(lines[extra]):
                    break
                joined, index = f"{joined} {lines[extra]}", extra + 1  # a wrapped signature
            found_sig = _SIG.fullmatch(joined)
            if found_sig is None:
                raise MailError(f"line {read}: {excerpt(line)!r} cannot be read as a signature")
            signed = entries[-1] if entries and after_entry else None
            if signed is None or signed.role is None or signed.sig is not None:
                raise MailError(f"line {read}: a signature that follows no line a player wrote")
            entries[-1] = attrs.evolve(signed, sig=found_sig.group(1) + found_sig.group(2))
            after_entry = False
            continue
        after_entry = False
        game_line = _GAME.fullmatch(line)
        if game_line is not None:
            number = int(game_line.group(1))
            text = line
            while (  # a game line an e-mail program wrapped
                not _GAME_WHOLE.fullmatch(text)
                and index < len(lines)
                and lines[index]
                and not _is_line(lines[index])
            ):
                text, index = f"{text} {lines[index]}", index + 1
            continue
        if number == 0:
            raise MailError(f"line {index}: {excerpt(line)!r} comes before the first 'Game' line")
        found = _ENTRY.fullmatch(line)
        read = index
        if found is None or (found.group("when") is None and found.group("drawn") is None):
            joined = line  # a line an e-mail program wrapped, perhaps just before its time
            for extra in range(index, min(index + 3, len(lines))):
                if not lines[extra] or _is_line(lines[extra]):
                    break
                joined = f"{joined} {lines[extra]}"
                again = _ENTRY.fullmatch(joined)
                if again is not None and (again.group("when") or again.group("drawn")):
                    found, index = again, extra + 1
                    break
        if found is None:
            raise MailError(f"line {read}: {excerpt(line)!r} cannot be read as a line of the list")
        entries.append(_entry(found, number, read))
        after_entry = True
    start = headers.get("Start")
    made_game = MailGame(
        game,
        headers["Id"],
        players,
        started,
        _time_control(headers["Time"]),
        start,
        tuple(entries),
        made,
        (keys[0], keys[1]),
        at,
        _diagram_lines(lines, index),
    )
    count, checksum = int(end.group(1)), end.group(2)
    if count != len(entries) or checksum != made_game.checksum():
        try:  # the first line the rules refuse is likely the damaged one
            attrs.evolve(made_game, shown=()).replay()
        except MailError as error:
            raise MailError(f"{error} (and the list's checksum does not match)") from None
        what = (
            f"it has {len(entries)} lines, not the {count} its end line counts"
            if count != len(entries)
            else "its checksum is not the one its end line carries"
        )
        raise MailError(
            f"line {index}: the list is damaged or was changed by hand: {what} (the text is "
            "refused rather than read otherwise than it was written)"
        )
    if start is not None:
        try:
            game.from_position(start)
        except AbstractGamesError as error:
            raise MailError(f"line {at['Start']}: bad Start: {error}") from None
    _check_signed_lines(made_game)
    return made_game


def _check_signed_lines(game: MailGame) -> None:
    """Every line of a player whose key the text has is signed, and none of another: a
    player who signs signs every line they write (the signatures themselves are checked by
    [`verify_signatures`][], which needs the `mail` extra)."""
    for entry in game.entries:
        seat = game.seat_of(entry)
        if seat is None:
            continue
        key = game.keys[seat - 1]
        name = f"player {seat} ({game.players[seat - 1]})"
        if key is not None and entry.sig is None:
            raise MailError(
                f"line {entry.line}: {entry.summary()!r} is not signed, and {name} signs every "
                "line they write (the text has their key): a line without its signature is "
                "refused"
            )
        if key is None and entry.sig is not None:
            raise MailError(
                f"line {entry.line}: {entry.summary()!r} is signed, and the text has no key for "
                f"{name}"
            )


def verify_signatures(game: MailGame, *, known: int = 0) -> list[tuple[Entry, int | None]]:
    """Check the signature of every line of the list against its player's key (a line of a
    player without a key in the text is unsigned); each line with the seat that signed it
    (`None`: unsigned, or a draw line, which the reveal below it makes). The first `known`
    lines are taken as checked: a copy of the game checked before has them, signatures and
    keys the same.

    Raises:
        MailError: naming the first line whose signature is not its player's, or is missing.
        SignaturesUnavailable: without the `mail` extra.
    """
    _check_signed_lines(game)
    found: list[tuple[Entry, int | None]] = []
    messages = game.signed_messages()
    for index, entry in enumerate(game.entries):
        seat = game.seat_of(entry)
        key = None if seat is None else game.keys[seat - 1]
        if seat is None or key is None or entry.sig is None:
            found.append((entry, None))
            continue
        if index >= known and not signatures.verify(key, messages[index], entry.sig):
            name = f"player {seat} ({game.players[seat - 1]})"
            raise MailError(
                f"line {entry.line}: {entry.summary()!r} does not carry {name}'s signature of "
                "it, at this place in this game (a line forged, changed, moved or signed by "
                "another key is refused)"
            )
        found.append((entry, seat))
    return found


def _is_line(line: str) -> bool:
    """Whether `line` is a line of the list on its own (not the tail of one wrapped)."""
    return bool(
        _ENTRY.fullmatch(line)
        or _GAME.fullmatch(line)
        or _END.fullmatch(line)
        or line.startswith("sig:")
    )


def _diagram_lines(lines: list[str], index: int) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """The ranks of the diagram below the list (line, rank, cells), up to the `Next:` or
    `Result:` line."""
    ranks = []
    for at in range(index, len(lines)):
        line = lines[at]
        if line.startswith(("Next: ", "Result: ", FORMAT)):
            break
        found = _RANK.fullmatch(line)
        if found is not None:
            ranks.append((at + 1, int(found.group("rank")), tuple(found.group("cells").split())))
    return tuple(ranks)


def _time_control(text: str) -> TimeControl:
    try:
        return TimeControl.parse(text)
    except TimeControlError as error:
        raise MailError(str(error)) from None


def _entry(found: re.Match[str], number: int, line: int) -> Entry:
    when = None
    if found.group("when"):
        when = _read_time(found.group("when"), f"line {line}")
    if found.group("number"):
        return Entry(
            number,
            "move",
            found.group("mover"),
            found.group("move"),
            0,
            when,
            line,
            int(found.group("number")),
        )
    if found.group("resigner"):
        return Entry(number, "resigns", found.group("resigner"), "", 0, when, line)
    if found.group("drawn"):
        return Entry(
            number, "draw", None, found.group("event"), int(found.group("drawn")), None, line
        )
    return Entry(
        number,
        found.group("kind"),
        found.group("who"),
        found.group("value"),
        int(found.group("step")),
        when,
        line,
    )


def read_mail(path: str | os.PathLike[str]) -> str:
    """The text of the file at `path` (a regular file: a FIFO, a device or a directory is
    refused, never waited on), read up to a bound.

    Raises:
        MailError: the file cannot be read, is not a regular file, or is too large.
    """
    name = printable(os.fspath(path))
    try:
        data = read_bounded(path, 4 * MAX_TEXT)
    except OSError as error:
        raise MailError(f"cannot read {name}: {error.strerror or error}") from None
    return data.decode("utf-8", errors="replace")


# --- what each player's program remembers ---------------------------------------------------------


@attrs.frozen
class Received:
    """What [`Memory.check`][] found of a text: the seats this machine plays, whether it sees
    the game for the first time, and whether the text holds anything new."""

    seats: frozenset[int]
    first: bool
    new: bool


def _history_problem(kept: object) -> str | None:
    """What is wrong with a game's history as read from its file, or `None`."""
    if not isinstance(kept, dict):
        return "it is not an object"
    seats = kept.get("seats")
    if not isinstance(seats, list) or not seats or any(seat not in (1, 2) for seat in seats):
        return "its seats are not 1 or 2"
    if not isinstance(kept.get("known"), str):
        return "it holds no game"
    texts = kept.get("texts", [])
    if not isinstance(texts, list) or not all(
        isinstance(t, dict) and isinstance(t.get("kind"), str) and isinstance(t.get("text"), str)
        for t in texts
    ):
        return "its texts are not texts"
    told = kept.get("told", [])
    if not isinstance(told, list) or not all(isinstance(note, str) for note in told):
        return "its notes are not text"
    return None


class Memory:
    """What a player's program remembers of their games by correspondence, one file a game in
    their data directory (`mail/ID.history.json`, beside the keys): the seats it plays (bound when
    the game begins: made here, or first received), the game as last sent or received, and
    every text it sent and received (the evidence), written atomically.

    Args:
        directory: where it is kept (default: `mail` in the data directory).
    """

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = data_directory() / "mail" if directory is None else directory
        self._read: dict[str, MailGame] = {}  # the games kept, by their text (read once)

    def _game(self, text: str) -> MailGame:
        game = self._read.get(text)
        if game is None:
            game = self._read[text] = MailGame.parse(text)
        return game

    def _path(self, game_id: str) -> Path:
        return self.directory / f"{game_id}.history.json"

    def kept(self, game_id: str) -> dict[str, object] | None:
        """What is kept of the game `game_id`, or `None`."""
        path = self._path(game_id)
        if not path.exists():
            return None
        try:
            kept = json.loads(read_bounded(path, 512 * MAX_TEXT))
        except (OSError, ValueError) as error:
            raise MailError(f"cannot read this game's history in {path}: {error}") from None
        problem = _history_problem(kept)
        if problem is not None:
            raise MailError(f"this game's history in {path} is damaged: {problem}")
        return cast(dict[str, object], kept)

    def seats(self, game_id: str) -> frozenset[int] | None:
        """The seats this machine plays in the game `game_id`, or `None` if it has none."""
        kept = self.kept(game_id)
        if kept is None:
            return None
        seats = kept.get("seats")
        assert isinstance(seats, list)
        return frozenset(int(seat) for seat in seats)

    def known(self, game_id: str) -> MailGame | None:
        """The game as this machine last sent or received it."""
        kept = self.kept(game_id)
        if kept is None:
            return None
        text = kept.get("known")
        assert isinstance(text, str)
        return self._game(text)

    def texts(self, game_id: str) -> list[dict[str, str]]:
        """Every text kept of the game, in order: `{"kind": "made" | "received" | "sent",
        "text": ...}`."""
        kept = self.kept(game_id) or {}
        texts = kept.get("texts", [])
        assert isinstance(texts, list)
        return texts

    def keep(self, game: MailGame, text: str, kind: str, seats: frozenset[int]) -> None:
        """Keep `text` (a text `kind`: `"made"`, `"received"` or `"sent"`) and, unless it is
        shorter, the game it holds as the one this machine knows."""
        kept = self.kept(game.id)  # read once: the file holds every text, and grows each move
        known = None if kept is None else self._game(cast(str, kept["known"]))
        texts = [] if kept is None else cast(list[dict[str, str]], kept.get("texts", []))
        texts.append({"kind": kind, "text": text})
        latest = game if known is None or len(game.entries) >= len(known.entries) else known
        record = {
            "id": game.id,
            "seats": sorted(seats),
            "known": latest.render(),
            "texts": texts,
            "told": [] if kept is None else kept.get("told", []),
        }
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self._path(game.id)
        write_atomic(path, json.dumps(record, indent=1) + "\n")
        os.chmod(path, 0o600)

    def check(self, game: MailGame, *, answering: bool = True) -> Received:
        """Whether `game`, just received, extends what this machine knows of it by the
        opponent's actions alone; for a game it has not seen, when `answering` it, the seat it
        will play (the other than the one of the machine that made it), which none of the
        lines may be for. Only when `answering` is this machine's own last message refused.

        Raises:
            MailError: what differs, by line: a rewritten line, an older message, a line for
                this machine's seat that it did not make, a changed header, another game.
        """
        known = self.known(game.id)
        if known is None:
            self._same_game_elsewhere(game)
            if not answering:
                return Received(frozenset({1, 2}), True, True)
            if game.made_by == 0:
                raise MailError(
                    "this game was made for one machine to play both seats ('Made by: both "
                    "players'): this machine has not played it and takes no seat in it"
                )
            seat = 3 - game.made_by
            self._none_for(game, frozenset({seat}), game.entries, first=True)
            if game.keys[seat - 1] is not None:
                raise MailError(
                    f"{self._key_line(game, seat)}the text has a key for player {seat} "
                    f"({game.players[seat - 1]}), the seat this machine takes in this game, and "
                    "this machine did not send it: a key for its seat made elsewhere is refused"
                )
            self._verify(game)
            return Received(frozenset({seat}), True, bool(game.entries))
        seats = self.seats(game.id)
        assert seats is not None
        for name, mine, theirs in (
            ("game", known.game.spec, game.game.spec),
            ("players", known.players, game.players),
            ("start time", known.started, game.started),
            ("time control", str(known.time), str(game.time)),
            ("start position", known.start, game.start),
            ("maker", known.made_by, game.made_by),
        ):
            if mine != theirs:
                line = {"game": "Game", "players": "Player 1", "start time": "Started"}.get(
                    name, {"time control": "Time", "maker": "Made by"}.get(name, "Start")
                )
                where = f"line {game.lines[line]}: " if line in game.lines else ""
                raise MailError(
                    f"{where}the {name} of this text ({_shown(theirs)}) is not this game's "
                    f"({_shown(mine)}, as it began): a changed header is refused"
                )
        for old, new in zip(known.entries, game.entries, strict=False):
            if old != new:
                raise MailError(
                    f"line {new.line}: {new.render()!r} differs from this machine's copy of the "
                    f"game, which has {old.render()!r} there: a changed line is refused"
                )
        self._same_signatures(known, game, seats)
        if len(game.entries) < len(known.entries):
            raise MailError(self._older(game, seats))
        added = game.entries[len(known.entries) :]
        self._none_for(game, seats, added, first=False)
        self._check_given(game, seats)
        self._verify(game, known)
        return Received(seats, False, bool(added))

    @staticmethod
    def _key_line(game: MailGame, seat: int) -> str:
        line = game.lines.get(f"Key player {seat}")
        return "" if line is None else f"line {line}: "

    def _same_signatures(self, known: MailGame, game: MailGame, seats: frozenset[int]) -> None:
        """Each key this machine knows is the text's, none is added for its own seats, and
        each line it knows carries the signature it had."""
        for seat in (1, 2):
            mine, theirs = known.keys[seat - 1], game.keys[seat - 1]
            name = f"player {seat} ({game.players[seat - 1]})"
            if mine is not None and theirs is None:
                raise MailError(
                    f"the text has no key for {name}, whose lines in this game are signed: a "
                    "text whose signatures were taken off is refused"
                )
            if mine is not None and mine != theirs:
                raise MailError(
                    f"{self._key_line(game, seat)}{name}'s key in this text ({theirs}) is not "
                    f"the one this game has had since their first message ({mine}): a changed "
                    "key is refused"
                )
            if mine is None and theirs is not None and seat in seats:
                raise MailError(
                    f"{self._key_line(game, seat)}the text has a key for {name}, this machine's "
                    "seat, and this machine did not send it: a key for its seat made elsewhere "
                    "is refused"
                )
        for old, new in zip(known.entries, game.entries, strict=False):
            if old.sig is not None and new.sig is None:
                raise MailError(
                    f"line {new.line}: {new.summary()!r} has lost its signature (this machine's "
                    "copy of the game has it signed): a text whose signatures were taken off is "
                    "refused"
                )
            if old.sig != new.sig:
                raise MailError(
                    f"line {new.line}: the signature of {new.summary()!r} is not the one this "
                    "machine's copy of the game has: a changed signature is refused"
                )

    @staticmethod
    def _verify(game: MailGame, known: MailGame | None = None) -> None:
        """Every signature in the text checked, where the `mail` extra is installed (but those
        of the lines of `known`, this machine's copy, which the text was found to repeat)."""
        if signatures.available():
            verify_signatures(game, known=0 if known is None else len(known.entries))

    def tell_once(self, game_id: str, note: str) -> bool:
        """Whether `note` about the game `game_id` is new to this machine (it is remembered as
        told: a note is said once a game)."""
        kept = self.kept(game_id)
        if kept is None:
            return True
        told = kept.setdefault("told", [])
        assert isinstance(told, list)
        if note in told:
            return False
        told.append(note)
        path = self._path(game_id)
        write_atomic(path, json.dumps(kept, indent=1) + "\n")
        os.chmod(path, 0o600)
        return True

    def _older(self, game: MailGame, seats: frozenset[int]) -> str:
        if not game.entries:
            return "this is the game as it began, already answered: nothing in it is new"
        last = _last_action(game.entries)
        when = "" if last.when is None else f" of {_time_text(last.when)}"
        if game.seat_of(last) in seats:
            return f"this is your own message{when}: it was sent before, and nothing in it is new"
        return f"this is the opponent's message{when}, already answered: nothing in it is new"

    def _none_for(
        self, game: MailGame, seats: frozenset[int], entries: tuple[Entry, ...], *, first: bool
    ) -> None:
        """No line of `entries` is for one of `seats` (this machine's)."""
        for entry in entries:
            seat = game.seat_of(entry)
            if seat is None or seat not in seats:
                continue
            written = entry.render().split("  ")[0]
            name = f"player {seat} ({game.players[seat - 1]})"
            if first:
                raise MailError(
                    f"line {entry.line}: {written!r} is for {name}, the seat this machine "
                    "takes in this game, and this machine did not make it (this machine has not "
                    "played this game): a line for its seat made elsewhere is refused"
                )
            raise MailError(
                f"line {entry.line}: {written!r} is for {name}, this machine's seat in this "
                "game, and this machine did not make it: a line for its seat made elsewhere "
                "is refused"
            )

    def _check_given(self, game: MailGame, seats: frozenset[int]) -> None:
        """Each value this machine gave answers the commitment the text has for its draw."""
        keys = Keys(self.directory)
        committed: dict[tuple[int, int], Entry] = {}
        for entry in game.entries:
            if entry.kind == "commits":
                committed[(entry.game, entry.draw)] = entry
            seat = game.seat_of(entry)
            if entry.kind != "gives" or seat not in seats:
                continue
            key = keys.key(game.id, seat, make=False) if seat is not None else None
            answered = committed.get((entry.game, entry.draw))
            if key is None or answered is None:
                continue
            if _given(key, game.id, entry.game, entry.draw, answered.text) != entry.text:
                raise MailError(
                    f"line {answered.line}: this machine's value for draw {entry.draw} answered "
                    "another commitment: the commitment was changed since"
                )

    def _same_game_elsewhere(self, game: MailGame) -> None:
        """A game this machine has not seen that is one it has under another Id."""
        if not self.directory.is_dir():
            return
        for path in sorted(self.directory.glob("*.history.json"))[:1000]:
            other_id = path.name.removesuffix(".history.json")
            other = self.known(other_id)
            if other is None or other.id == game.id:
                continue
            if (other.game.spec, other.players, other.started) == (
                game.game.spec,
                game.players,
                game.started,
            ):
                where = f"line {game.lines['Id']}: " if "Id" in game.lines else ""
                raise MailError(
                    f"{where}the Id of this text ({game.id}) is not the Id of this machine's "
                    f"game between {other.players[0]} and {other.players[1]} started "
                    f"{_time_text(other.started)} UTC ({other.id}): a changed Id is refused"
                )


def _last_action(entries: tuple[Entry, ...]) -> Entry:
    return next(entry for entry in reversed(entries) if entry.role is not None)


def _shown(value: object) -> str:
    if isinstance(value, tuple):
        return " and ".join(str(part) for part in value)
    if isinstance(value, dt.datetime):
        return f"{_time_text(value)} UTC"
    return "none" if value is None else str(value)


def _duration(span: dt.timedelta) -> str:
    """`2 days 3 hours`, `5 hours 10 minutes`, `4 minutes`."""
    minutes = max(int(span.total_seconds() // 60), 0)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    shown = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in parts if n][:2]
    return " ".join(shown) or "no time"


def describe(game: MailGame, replay: Replay, now: dt.datetime | None = None) -> str:
    """What `mail check` says of a game read through the rules: the players, the moves and
    draws checked, each side's time in the game being played, and what is next (or the
    result)."""
    now = now or _now()
    names = game.players
    moves = sum(entry.kind == "move" for entry in game.entries)
    draws = sum(entry.kind == "reveals" for entry in game.entries)
    checked = f"{moves} move{'' if moves == 1 else 's'}"
    if draws:
        checked += f" and {draws} draw{'' if draws == 1 else 's'}"
    lines = [
        f"{game.game.title or game.game.name} ({game.game.spec}) by e-mail: {names[0]} against "
        f"{names[1]}",
        f"started {_time_text(game.started)} UTC, time control: {game.time}",
        f"{checked} checked: every one follows the rules",
        f"game {replay.game_number}: {names[0]} has had {_duration(replay.spent[1])}, "
        f"{names[1]} {_duration(replay.spent[2])}",
    ]
    if replay.turn.seat is None:
        result = replay.match.result()
        assert result is not None
        winner = "a draw" if result.winner is None else f"{names[result.winner - 1]} wins"
        lines.append(f"Result: {winner} ({result.reason})")
        return "\n".join(lines)
    wait = now - replay.since
    lines.append(game.next_line(replay))
    left = []
    time = game.time
    if time.days_per_move is not None:
        left.append(f"{_duration(time.days_per_move * _DAY - wait)} for this move")
    if time.days_per_game is not None:
        spent = replay.spent[replay.turn.seat] + wait
        left.append(f"{_duration(time.days_per_game * _DAY - spent)} in this game")
    since = f"waiting since {_time_text(replay.since)} UTC ({_duration(wait)})"
    lines.append(since + (f"; left: {', '.join(left)}" if left else ""))
    return "\n".join(lines)
