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

Nothing here knows a particular game: the chance nodes, the roles, the match of several games
and the rule on time come from the game's own protocol.

Examples:
    >>> from abstractgames import get_game
    >>> game = MailGame.new(get_game("orderchaos"), ("Ann", "Bob"), when=NOON)
    >>> game = game.play("X@c3", when=NOON)
    >>> print(game.render().split("\\n\\n")[1])
    Game 1: Ann is order, Bob is chaos
    1. order X@c3  2026-01-01 12:00
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
import random
import re
import secrets
from pathlib import Path

import attrs

from .files import data_directory, write_atomic
from .grid import diagram
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
from .records import (
    GameEnd,
    GameRecord,
    MatchRecord,
    MoveRecord,
    TimeControl,
    TimeControlError,
)
from .registry import parse_game_spec
from .text import excerpt

__all__ = [
    "FORMAT",
    "MAX_TEXT",
    "NOON",
    "Keys",
    "MailError",
    "MailGame",
    "Replay",
    "TimeControl",
    "Turn",
    "commitment",
    "describe",
]

FORMAT = "abstractgames correspondence game, format 1"
"""The first line of every game text."""
MAX_TEXT = 2 * 1024 * 1024
"""The most characters of text read (an e-mail with a whole game is far smaller)."""
NOON = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)
"""A fixed time, for examples and tests."""
_TIME = "%Y-%m-%d %H:%M"
_HEX = re.compile(r"[0-9a-f]{32}")
_DAY = dt.timedelta(days=1)
_NO_TIME_LIMIT = TimeControl()


class MailError(AbstractGamesError, ValueError):
    """A game text that cannot be read, breaks the rules, or does not allow what was asked."""


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)


def _time_text(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime(_TIME)


def _read_time(text: str, where: str) -> dt.datetime:
    try:
        return dt.datetime.strptime(text, _TIME).replace(tzinfo=dt.UTC)
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
        kept[str(seat)] = secrets.token_hex(32)
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(kept, indent=2, sort_keys=True) + "\n")
        os.chmod(path, 0o600)
        return bytes.fromhex(kept[str(seat)])


def _value(key: bytes, game_id: str, game_number: int, draw: int) -> str:
    return hmac.new(key, f"{game_id}/{game_number}/{draw}".encode(), hashlib.sha256).hexdigest()[
        :32
    ]


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
    r"(?:  (?P<when>\d{4}-\d\d-\d\d \d\d:\d\d))?"
)
_GAME = re.compile(r"Game (\d+): .*")
_HEADER = re.compile(r"([A-Z][a-z]*(?: \d)?): (.*)")


def _clean(line: str) -> str:
    """A line without its e-mail quoting (`> `, nested or not) and spaces around."""
    return re.sub(r"^[\s>]*", "", line).rstrip()


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


@attrs.frozen
class MailGame:
    """A game by correspondence as its text holds it (see [the module][abstractgames.mail])."""

    game: Game
    id: str
    players: tuple[str, str]
    started: dt.datetime
    time: TimeControl = _NO_TIME_LIMIT
    start: str | None = None
    entries: tuple[Entry, ...] = ()

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
    ) -> MailGame:
        """A new game (from `start`, else the game's first position). Whoever creates it sends
        nothing for either player: where a draw comes first, its committer commits with
        `play("draw")` on their own machine, so that their key is theirs alone.

        Raises:
            MailError: a start where the game is over, or a name that cannot be written.
        """
        for name in players:
            if not name.strip() or not name.isprintable() or len(name) > 60:
                raise MailError(
                    f"a player's name is one line of at most 60 characters, not {excerpt(name)!r}"
                )
        if start is not None and start.is_terminal():
            raise MailError(f"the game is over in {start.position()}: start from another")
        made = cls(
            game,
            secrets.token_hex(16),
            (players[0].strip(), players[1].strip()),
            when or _now(),
            time,
            None
            if start is None or start.position() == game.initial_state().position()
            else start.position(),
        )
        made.replay(when or _now())
        return made

    @classmethod
    def parse(cls, text: str) -> MailGame:
        """Read a game from its text, or from an e-mail that holds it (quoted, indented, with a
        signature or a reply around it). Where the e-mail holds several copies of the game (a
        reply quoting the one before), the longest is read, and every other copy must be the
        beginning of it.

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
        name = os.fspath(path)
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(MAX_TEXT + 1)
        except OSError as error:
            raise MailError(f"cannot read {name}: {error.strerror or error}") from None
        return cls.parse(text)

    # -- the text ------------------------------------------------------------------------------

    def render(self, now: dt.datetime | None = None) -> str:
        """The game's text: headers, every move, the diagram and what is to happen next."""
        replay = self.replay(now)
        out = [
            FORMAT,
            f"Game: {self.game.spec}",
            f"Id: {self.id}",
            f"Player 1: {self.players[0]}",
            f"Player 2: {self.players[1]}",
            f"Started: {_time_text(self.started)} UTC",
            f"Time: {self.time}",
        ]
        if self.start is not None:
            out.append(f"Start: {self.start}")
        shown = 0
        for entry in self.entries:
            if entry.game != shown:
                shown = entry.game
                out.append("")
                out.append(self._game_line(replay.match, entry.game))
            out.append(entry.render())
        if replay.game_number != shown and replay.turn.action != "over":
            out.append("")
            out.append(self._game_line(replay.match, replay.game_number))
        out.append("")
        out.append(diagram(replay.state))
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

    # -- reading through the rules ---------------------------------------------------------------

    def replay(self, now: dt.datetime | None = None) -> Replay:
        """Read every line through the rules, the draws and the clock (with `now`, the clock
        of the player to act too: past their time, they have lost).

        Raises:
            MailError: naming the first line the rules, the draws or the clock refuse.
        """
        game = self.game
        start = game.initial_state() if self.start is None else game.from_position(self.start)
        match = game.new_match(time_loss_forfeits=True)
        record = MatchRecord(
            game=game.name,
            params=game.params,
            players=self.players,
            seed=0,
            time_loss_forfeits=True,
            games=[GameRecord(number=1, start=start.position())],
        )
        state, number, draws, moves = start, 1, 0, 0
        pending: dict[int, _Draw] = {}
        spent = {1: dt.timedelta(), 2: dt.timedelta()}
        since, last = self.started, 0
        shown: Entry | None = None  # a draw line, checked by the reveal after it
        for entry in self.entries:
            where = f"line {entry.line}" if entry.line else f"{entry.kind} {excerpt(entry.text)}"
            turn = _turn(match, state, pending, draws)
            if turn.action == "over":
                raise MailError(f"{where}: the match is over")
            if entry.game != number:
                raise MailError(f"{where}: this is game {number}, not game {entry.game}")
            if entry.kind == "draw":
                if turn.action != "reveal" or entry.draw != draws + 1:
                    raise MailError(f"{where}: no draw {entry.draw} is due here")
                shown = entry
                continue
            assert entry.role is not None
            seat = _seat(match, entry.role, where)
            if entry.kind in ("move", "gives", "reveals") and seat != turn.seat:
                raise MailError(f"{where}: {_expected(turn)}")
            if entry.when is None:
                raise MailError(f"{where}: the line has no time")
            if seat != last:  # a new message: its sender's time runs from the one before
                if entry.when < since:
                    raise MailError(f"{where}: its time is before the time of the line before")
                wait = entry.when - since
                spent[seat] += wait
                late = self.time.over(wait, spent[seat])
                if late:
                    raise MailError(f"{where}: player {seat} ran out of time ({late})")
                since, last = entry.when, seat
            elif entry.when != since:
                raise MailError(f"{where}: the lines of one message have one time")
            if entry.kind == "resigns":
                record.games[-1].ended_by = GameEnd("resigned", seat, f"player {seat} resigned")
                match = match.resign(seat)
            elif entry.kind == "commits":
                if entry.draw != draws + 1 or entry.draw in pending:
                    raise MailError(f"{where}: draw {draws + 1} is the one to commit to")
                self._check_fresh(pending, entry.text, where)
                pending[entry.draw] = _Draw(seat, entry.text)
            elif entry.kind == "gives":
                if turn.action != "give" or turn.seat != seat or entry.draw != draws + 1:
                    raise MailError(f"{where}: no value is to be given here: {_expected(turn)}")
                self._check_fresh(pending, entry.text, where)
                pending[entry.draw].value = entry.text
            elif entry.kind == "reveals":
                if turn.action != "reveal" or turn.seat != seat or entry.draw != draws + 1:
                    raise MailError(f"{where}: no value is to be revealed here: {_expected(turn)}")
                step = pending[entry.draw]
                if commitment(self.id, number, entry.draw, entry.text) != step.commitment:
                    raise MailError(
                        f"{where}: this is not the value committed to for draw {entry.draw}"
                    )
                assert step.value is not None
                event = _draw(state, self.id, number, entry.draw, entry.text, step.value)
                if shown is not None and shown.text != str(event):
                    raise MailError(
                        f"line {shown.line}: the draw is {event}, not {excerpt(shown.text)} (the "
                        "two values give it)"
                    )
                step.revealed, shown, draws = entry.text, None, draws + 1
                state = state.apply(event)
                record.games[-1].moves.append(MoveRecord(str(event), None))
            else:  # a move
                if turn.seat != seat or turn.action not in ("move", "reveal"):
                    raise MailError(f"{where}: {_expected(turn)}")
                if turn.action == "reveal":
                    raise MailError(f"{where}: draw {draws + 1} is to be revealed first")
                moves += 1
                if entry.number != moves:
                    raise MailError(
                        f"{where}: this is move {moves} of game {number}, not {entry.number}"
                    )
                try:
                    move = game.parse_move(entry.text, state)
                    state = state.apply(move)
                except AbstractGamesError as error:
                    raise MailError(f"{where}: {entry.text} cannot be played: {error}") from None
                record.games[-1].moves.append(MoveRecord(str(move), seat))
                if state.is_terminal():
                    record.games[-1].final = state.position()
                    record.games[-1].outcome = state.outcome()
                    match = match.record_game(state)
                    if match.game_number is not None:  # the next game of the match
                        number = match.game_number
                        state, draws, moves, pending = start, 0, 0, {}
                        spent = {1: dt.timedelta(), 2: dt.timedelta()}
                        record.games.append(GameRecord(number=number, start=start.position()))
        turn = _turn(match, state, pending, draws)
        if now is not None and turn.seat is not None:
            wait = now - since
            late = self.time.over(wait, spent[turn.seat] + wait)
            if late:
                reason = f"player {turn.seat} ran out of time ({late})"
                record.games[-1].ended_by = GameEnd("out of time", turn.seat, reason)
                match = match.lose_on_time(turn.seat)
                turn = Turn(None, "over")
        record.result = match.result()
        return Replay(match, state, turn, number, draws, pending, record, spent, since)

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
    ) -> MailGame:
        """The game after the player whose turn it is acts: `action` is a move, `"draw"` (a
        step of the draw that is due), or `"resign"`. The steps of the draws their move makes
        due are added with it (see [the module][abstractgames.mail]).

        Raises:
            MailError: the move is not legal, it is not a draw's step, time is up, or the game
                is over.
        """
        when = when or _now()
        replay = self.replay(now or when)
        if replay.turn.action == "over":
            raise MailError(f"the match is over: {self.next_line(replay)}")
        return self._act(replay, action, when, keys or Keys())

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
            value = _value(self._key(keys, seat, make=True), self.id, number, draw)
            if turn.action == "give":
                return self._with(Entry(number, "gives", role, value, draw, when))
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
        return attrs.evolve(self, entries=(*self.entries, *entries))

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
        from .players import SeededRandom
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
        finally:
            player.close()


def _seat(match: Match, role: str, where: str) -> int:
    try:
        return match.player_of(role)
    except MatchError:
        raise MailError(f"{where}: {excerpt(role)!r} is not a role of this game") from None


def _turn(match: Match, state: State, pending: dict[int, _Draw], draws: int) -> Turn:
    """Who acts next: at a chance node the steps of its draw, in order (`"reveal"`: the
    committer has both values, draws and moves)."""
    if match.is_over() or state.is_terminal():
        return Turn(None, "over")
    if state.to_move != CHANCE:
        role = state.to_move
        assert role is not None
        return Turn(match.player_of(role), "move", role)
    after = state.apply(state.chance_outcomes()[0][0])
    role = after.to_move
    assert role is not None and role != CHANCE
    committer = match.player_of(role)
    step = pending.get(draws + 1)
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
    """The game of the copy that begins at `lines[first]`."""
    headers: dict[str, str] = {}
    index = first + 1
    while index < len(lines) and lines[index]:
        found = _HEADER.fullmatch(lines[index])
        if found is None:
            raise MailError(f"line {index + 1}: {excerpt(lines[index])!r} is not a header line")
        headers[found.group(1)] = found.group(2).strip()
        index += 1
    for name in ("Game", "Id", "Player 1", "Player 2", "Started", "Time"):
        if name not in headers:
            raise MailError(f"line {first + 1}: the game has no {name!r} line")
    where = f"line {first + 1}"
    try:
        game = parse_game_spec(headers["Game"])
    except AbstractGamesError as error:
        raise MailError(f"{where}: {error}") from None
    if not _HEX.fullmatch(headers["Id"]):
        raise MailError(f"{where}: the Id is not 32 hexadecimal digits")
    started = _read_time(headers["Started"].removesuffix(" UTC"), where)
    entries: list[Entry] = []
    number = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        game_line = _GAME.fullmatch(line)
        if game_line is not None:
            number = int(game_line.group(1))
            continue
        if number == 0:
            break
        found = _ENTRY.fullmatch(line)
        if found is None and index < len(lines):  # a line an e-mail program wrapped in two
            joined = _ENTRY.fullmatch(f"{line} {lines[index]}")
            if joined is not None:
                found, index = joined, index + 1
        if found is None:
            break  # the diagram, or whatever the e-mail has below the game
        entries.append(_entry(found, number, index))
    start = headers.get("Start")
    made = MailGame(
        game,
        headers["Id"],
        (headers["Player 1"], headers["Player 2"]),
        started,
        _time_control(headers["Time"]),
        start,
        tuple(entries),
    )
    if start is not None:
        try:
            game.from_position(start)
        except AbstractGamesError as error:
            raise MailError(f"{where}: bad Start: {error}") from None
    return made


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
        f"{names[1]}, started {_time_text(game.started)} UTC, time control: {game.time}",
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
