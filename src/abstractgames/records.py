"""Game records: a JSON file per match, written atomically, with stable output, checked on load.

A record holds the game and its parameters, the players' specs, the seed, the clock, and every
game of the match with its full move list in canonical notation (chance events included), per-move
clock times when a clock was used, how each game ended, and the match result. The same seed and
bots give a byte-identical file (times are only recorded with a clock).

[`MatchRecord.replay`][] re-validates a record through the rules: every move must be legal and
every recorded position and result must be what the rules give.

Reading is bounded: a record file is a regular file of at most [`MAX_RECORD_SIZE`][] bytes
(16 MiB, far more than any match needs), and every number in it is checked (finite, in range), so
that a file that is not a record, or a hostile one, gives one [`RecordError`][], never a hang,
another error or unbounded memory. A record written is always valid JSON.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import math
import os
import re
from collections.abc import Sequence
from typing import Any

import attrs

from . import strictjson
from .files import FileTooLargeError, NotRegularFileError, read_bounded, write_atomic
from .protocol import (
    AbstractGamesError,
    Game,
    Match,
    MatchError,
    MatchResult,
    Outcome,
    SingleGameMatch,
    State,
    UnknownGameError,
)
from .registry import get_game, outside_code
from .text import counted, excerpt, value_excerpt

__all__ = [
    "LATEST_SEARCHED",
    "MAX_CLOCK_SECONDS",
    "MAX_RECORD_SIZE",
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "SEED_LIMIT",
    "CannotResume",
    "ClockSettings",
    "GameEnd",
    "GameRecord",
    "MatchRecord",
    "MoveRecord",
    "RecordError",
    "ResumePlan",
    "ResumeRefusal",
    "TimeControl",
    "TimeControlError",
    "latest_unfinished",
]

RECORD_FORMAT = "abstractgames-record"
"""The `format` field of every record file."""
RECORD_VERSION = 2
"""The version written; version 1 (where `time_loss_forfeits` was `correspondence`) is read."""
MAX_RECORD_SIZE = 16 * 1024 * 1024
"""The largest record [`MatchRecord.load`][] reads, in bytes: 16 MiB ([`MatchRecord.loads`][]:
characters). A record takes well under 100 bytes a move."""
MAX_CLOCK_SECONDS = 365 * 86_400
"""The most time a clock gives each player for a game, and the largest increment: a year, in
seconds."""
SEED_LIMIT = 2**64
"""A seed is an integer whose absolute value is below this (any 64-bit seed, signed or not)."""
_MAX_NAME = 100
"""The longest game name, parameter name or text parameter value in a record."""


class RecordError(AbstractGamesError, ValueError):
    """A record that cannot be read, or that the rules contradict."""


class ResumeRefusal(enum.Enum):
    """Why the match of a record cannot be continued as asked ([`CannotResume`][])."""

    FINISHED = "finished"
    """The match is decided already."""
    OTHER_GAME = "other game"
    """The record is of another game than the one asked for."""
    OUTSIDE_CODE = "outside code"
    """A player runs code from outside the library and was named only by the record."""


class CannotResume(RecordError):
    """The match of a record cannot be continued as asked ([`MatchRecord.resume_plan`][]).

    Attributes:
        refusal: which rule refuses it.
        seat: the player (1 or 2) to name again, for
            [`ResumeRefusal.OUTSIDE_CODE`][abstractgames.records.ResumeRefusal.OUTSIDE_CODE].
    """

    def __init__(self, message: str, refusal: ResumeRefusal, seat: int | None = None) -> None:
        super().__init__(message)
        self.refusal = refusal
        self.seat = seat


def _quoted(text: object) -> str:
    """A bounded excerpt of outside text in single quotes, for a message."""
    return f"'{excerpt(text)}'"


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_clock(instance: object, attribute: attrs.Attribute[float], value: object) -> None:
    """A clock's time (more than 0) or increment (at least 0), at most a year; never NaN."""
    increment = attribute.name == "increment"
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (value >= 0 if increment else value > 0)
        or not value <= MAX_CLOCK_SECONDS
    ):
        least = "at least 0" if increment else "more than 0"
        raise ValueError(
            f"the clock's {attribute.name} must be a number of seconds {least} and at most "
            f"{MAX_CLOCK_SECONDS} (a year), not {value_excerpt(value)}"
        )


# Matched on the stripped text: no two runs of spaces meet, so no input makes it backtrack long.
_CLOCK_RE = re.compile(r"(\d+(?:\.\d+)?)(?:\s*\+\s*(\d+(?:\.\d+)?))?")


@attrs.frozen
class ClockSettings:
    """Each player's time for a game, in seconds, plus an increment added after each move.

    The time is more than 0 and the increment at least 0, each at most [`MAX_CLOCK_SECONDS`][]
    (a year); other values (NaN and infinities included) raise `ValueError`.
    """

    seconds: float = attrs.field(validator=_check_clock)
    increment: float = attrs.field(default=0.0, validator=_check_clock)

    @classmethod
    def parse(cls, text: str) -> ClockSettings:
        """Read `SECONDS` or `SECONDS+INCREMENT`, e.g. `"300+2"`, each at most a year.

        Raises:
            ValueError: saying what is wrong.
        """
        match = _CLOCK_RE.fullmatch(text.strip())
        if match is None or float(match.group(1)) <= 0:
            raise ValueError(
                f"bad clock {_quoted(text)}: write SECONDS or SECONDS+INCREMENT, e.g. 300 or 300+2"
            )
        seconds, increment = float(match.group(1)), float(match.group(2) or 0)
        if max(seconds, increment) > MAX_CLOCK_SECONDS:
            raise ValueError(
                f"bad clock {_quoted(text)}: the time for a game and the increment are at most "
                f"{MAX_CLOCK_SECONDS} seconds (a year) each"
            )
        return cls(seconds, increment)

    def __str__(self) -> str:
        def number(value: float) -> str:
            return f"{value:g}"

        text = number(self.seconds)
        return f"{text}+{number(self.increment)}" if self.increment else text


class TimeControlError(AbstractGamesError, ValueError):
    """A correspondence time control that cannot be read."""


_DAY = dt.timedelta(days=1)


_DAYS = r"(\d{1,4}(?:\.\d{1,2})?)"
"""Days in a time control: at most four digits, and two decimals (what `str` writes back)."""


def _check_days(instance: object, attribute: attrs.Attribute[float | None], value: object) -> None:
    """Days of a time control: `None`, or hundredths of a day from 0.01 up to its limit, so
    that the text [`TimeControl`][] writes reads back as the same value."""
    limit = 365 if attribute.name == "days_per_move" else 3650
    if value is None:
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (0.01 <= value <= limit and round(value, 2) == value)
    ):
        raise TimeControlError(
            f"{attribute.name.replace('_', ' ')} must be a number of days from 0.01 to {limit} "
            f"in hundredths, not {value_excerpt(value)}"
        )


@attrs.frozen
class TimeControl:
    """Days a player has for each move, and at most for all their moves of one game.

    Days are counted in hundredths (about a quarter of an hour), from 0.01 up to a year a move
    and ten years a game, so that the text of a time control reads back as the same one.

    Examples:
        >>> TimeControl.parse("3 days a move, at most 30 days a game")
        TimeControl(days_per_move=3.0, days_per_game=30.0)
        >>> str(TimeControl(2))
        '2 days a move'
    """

    days_per_move: float | None = attrs.field(default=None, validator=_check_days)
    days_per_game: float | None = attrs.field(default=None, validator=_check_days)

    def __attrs_post_init__(self) -> None:
        if self.days_per_game is not None and (
            self.days_per_move is None or self.days_per_game < self.days_per_move
        ):
            raise TimeControlError(
                "a game's days need days a move, and are no fewer than a move's: "
                f"{self.days_per_move} a move, {self.days_per_game} a game"
            )

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read `none`, `N days a move` or `N days a move, at most M days a game`.

        Raises:
            TimeControlError: anything else, or days out of range.
        """
        text = " ".join(text.split()).lower()
        if text in ("", "none"):
            return cls()
        found = re.fullmatch(rf"{_DAYS} days? a move(?:, at most {_DAYS} days? a game)?", text)
        if found is None:
            raise TimeControlError(
                f"bad time control {excerpt(text)!r}: write 'none', 'N days a move' or "
                "'N days a move, at most M days a game' (N and M in days, with at most two "
                "decimals)"
            )
        move, game = float(found.group(1)), found.group(2)
        total = None if game is None else float(game)
        if not 0 < move <= 365 or (total is not None and not move <= total <= 3650):
            raise TimeControlError(
                f"bad time control {excerpt(text)!r}: from 0.01 day to a year a move, and a "
                "game's time no less than a move's (at most ten years)"
            )
        return cls(move, total)

    def over(self, wait: dt.timedelta, spent: dt.timedelta) -> str:
        """Why a player who took `wait` for a move, and `spent` in all this game, is out of
        time (`""` if they are not)."""
        if self.days_per_move is not None and wait > self.days_per_move * _DAY:
            return f"more than {self.days_per_move:g} days for a move"
        if self.days_per_game is not None and spent > self.days_per_game * _DAY:
            return f"more than {self.days_per_game:g} days in this game"
        return ""

    def __str__(self) -> str:
        if self.days_per_move is None:
            return "none"
        text = f"{self.days_per_move:g} day{'' if self.days_per_move == 1 else 's'} a move"
        if self.days_per_game is not None:
            text += f", at most {self.days_per_game:g} days a game"
        return text


def _check_time(instance: object, attribute: attrs.Attribute[float | None], value: object) -> None:
    """A time in a move's record: `None`, or a finite number of seconds, at least 0."""
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf
    ):
        raise ValueError(
            f"{attribute.name} must be a finite number of seconds, at least 0, not "
            f"{value_excerpt(value)}"
        )


@attrs.frozen
class MoveRecord:
    """One ply: the move's notation, who made it (`None` for chance), and clock details.

    `seconds` is the time the player took and `clock` what was left after it (with a clock),
    each a finite number of seconds, at least 0; `auto` marks a move made for a player out of
    time.
    """

    move: str
    player: int | None
    seconds: float | None = attrs.field(default=None, validator=_check_time)
    clock: float | None = attrs.field(default=None, validator=_check_time)
    auto: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"move": self.move, "player": self.player}
        if self.seconds is not None:
            data["seconds"] = round(self.seconds, 3)
        if self.clock is not None:
            data["clock"] = round(self.clock, 3)
        if self.auto:
            data["auto"] = True
        return data


END_EVENTS = ("resigned", "out of time", "forfeit")


@attrs.frozen
class GameEnd:
    """A player lost the match during this game, outside the rules of the game.

    `event` is `"resigned"`, `"out of time"` or `"forfeit"` (e.g. an external program that
    crashed or played an illegal move); `reason` says it in words.
    """

    event: str = attrs.field(validator=attrs.validators.in_(END_EVENTS))
    player: int = attrs.field(validator=attrs.validators.in_((1, 2)))
    reason: str

    def apply(self, match: Match) -> Match:
        """The match after this event."""
        if self.event == "resigned":
            return match.resign(self.player)
        if self.event == "out of time":
            return match.lose_on_time(self.player)
        return match.forfeit(self.player, self.reason)


@attrs.define
class GameRecord:
    """One game of a match; `final`/`outcome` are set when the rules ended it, `ended_by`
    when a player lost the match during it (see [`GameEnd`][])."""

    number: int
    start: str
    moves: list[MoveRecord] = attrs.Factory(list)
    final: str | None = None
    outcome: Outcome | None = None
    ended_by: GameEnd | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "start": self.start,
            "moves": [m.to_json() for m in self.moves],
            "final": self.final,
            "outcome": None if self.outcome is None else _outcome_json(self.outcome),
            "ended_by": None
            if self.ended_by is None
            else {
                "event": self.ended_by.event,
                "player": self.ended_by.player,
                "reason": self.ended_by.reason,
            },
        }


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {"winner": outcome.winner, "scores": dict(outcome.scores), "reason": outcome.reason}


def _check_seed(instance: object, attribute: attrs.Attribute[int], value: object) -> None:
    """A seed: an integer of absolute value below [`SEED_LIMIT`][]."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not -SEED_LIMIT < value < SEED_LIMIT
    ):
        raise RecordError(
            f"the seed must be an integer between -2**64 and 2**64, not {value_excerpt(value)}"
        )


@attrs.frozen
class ResumePlan:
    """What to play to continue the unfinished match of a record
    ([`MatchRecord.resume_plan`][]): the record's own settings and the players to seat.

    Attributes:
        record: the record to continue, its `players` the specs below.
        game: the game it is of.
        players: the specs of player 1 and player 2 ([`HUMAN`][abstractgames.players.HUMAN]
            for a person, whom the front end seats).
        seed: the match seed.
        clock: each player's time per game, or `None`.
        time_loss_forfeits: whether running out of time loses the match.
        single: whether one game is played where the match has more.
    """

    record: MatchRecord
    game: Game
    players: tuple[str, str]
    seed: int
    clock: ClockSettings | None
    time_loss_forfeits: bool
    single: bool


@attrs.define
class MatchRecord:
    """A whole match; `result` stays `None` until the match is decided.

    The seed is an integer of absolute value below [`SEED_LIMIT`][] (2**64); another raises
    [`RecordError`][].
    """

    game: str
    params: dict[str, Any]
    players: tuple[str, str]
    seed: int = attrs.field(validator=_check_seed)
    clock: ClockSettings | None = None
    time_loss_forfeits: bool = False
    single: bool = False
    games: list[GameRecord] = attrs.Factory(list)
    result: MatchResult | None = None
    names: tuple[str | None, str | None] = (None, None)
    """The players' names as people know them (a game server's seats), where they have any;
    written only when there is one."""

    @property
    def finished(self) -> bool:
        return self.result is not None

    def who(self, seat: int) -> str:
        """Seat `seat` (1 or 2) as people call it: its name, else its player spec."""
        return self.names[seat - 1] or self.players[seat - 1]

    def make_game(self, game: Game | None = None) -> Game:
        """The game this record is of (no program named in the record is ever started).

        Given `game` (a game not found by name, say), it is checked against the record's
        name and parameters and returned.
        """
        if game is not None:
            if game.name != self.game or game.params != self.params:
                raise RecordError(
                    f"this is a record of {excerpt(f'{self.game} {self.params}', 120)}, "
                    f"not of {excerpt(repr(game), 120)}"
                )
            return game
        try:
            return get_game(self.game, **self.params)
        except UnknownGameError as error:
            raise RecordError(f"record of an unknown game: {error}") from None
        except AbstractGamesError as error:
            raise RecordError(f"record of {self.game} with a bad parameter: {error}") from None

    def resume_plan(
        self, players: Sequence[str | None] = (None, None), game: Game | None = None
    ) -> ResumePlan:
        """How to continue this record's unfinished match, the one way every front end does.

        The record's settings (seed, clock, single game, time-loss rule) are the match's: a
        request cannot change them. `players` replace the recorded specs where they are not
        `None`; a recorded player that runs code from outside the library (a program, a file, a
        module) is only started when named again, never from the record alone. `game`, if
        given, must be the record's. The record is checked through the rules first.

        Raises:
            CannotResume: the match is finished, is of another game, or a program, file or
                module is named only in the record (the message says which, and `seat` whom
                to name).
            RecordError: the record breaks the rules.
        """
        if self.finished:
            raise CannotResume("the match is already finished", ResumeRefusal.FINISHED)
        made = self.make_game()
        if game is not None and game != made:
            raise CannotResume(
                f"it is a record of {excerpt(made.spec)}, not of {excerpt(game.spec)}",
                ResumeRefusal.OTHER_GAME,
            )
        self.replay(made)
        chosen: list[str] = []
        for seat, (recorded, given) in enumerate(zip(self.players, players, strict=True), 1):
            what = None if given is not None else outside_code(recorded)
            if what is not None:
                raise CannotResume(
                    f"player {seat} in this record is {what.value} ({excerpt(recorded)}): "
                    "programs, files and modules are only started from a spec you give",
                    ResumeRefusal.OUTSIDE_CODE,
                    seat,
                )
            chosen.append(recorded if given is None else given)
        specs = (chosen[0], chosen[1])
        return ResumePlan(
            record=attrs.evolve(self, players=specs),
            game=made,
            players=specs,
            seed=self.seed,
            clock=self.clock,
            time_loss_forfeits=self.time_loss_forfeits,
            single=self.single,
        )

    def new_match(self, game: Game | None = None) -> Match:
        """The match this record is of, before any game (`game`: as for [`make_game`][])."""
        game = self.make_game(game)
        if self.single:
            return SingleGameMatch(game)
        return game.new_match(time_loss_forfeits=self.time_loss_forfeits)

    def to_json(self) -> dict[str, Any]:
        names = {"names": list(self.names)} if any(self.names) else {}
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "game": self.game,
            "params": dict(self.params),
            "players": list(self.players),
            **names,
            "seed": self.seed,
            "clock": None
            if self.clock is None
            else {"seconds": self.clock.seconds, "increment": self.clock.increment},
            "time_loss_forfeits": self.time_loss_forfeits,
            "single": self.single,
            "games": [g.to_json() for g in self.games],
            "result": None
            if self.result is None
            else {
                "winner": self.result.winner,
                "reason": self.result.reason,
                "scores": list(self.result.scores),
            },
        }

    def dumps(self) -> str:
        """The record as JSON text with sorted keys (stable: same match, same bytes).

        Raises:
            RecordError: a number is NaN or infinite (a game's score, say): JSON has no such
                numbers, so such a record is never written.
        """
        try:
            return json.dumps(self.to_json(), indent=2, sort_keys=True, allow_nan=False) + "\n"
        except ValueError as error:
            raise RecordError(f"the record cannot be written as JSON: {error}") from None

    def summary(self) -> str:
        """The match in a line for people choosing one to continue, e.g. `"orderchaos: human
        against greedy, game 1 after 4 moves"`."""
        played = self.games[-1] if self.games else None
        moves = 0 if played is None else sum(m.player is not None for m in played.moves)
        where = "not begun"
        if played is not None:
            where = f"game {played.number} after {counted(moves, 'move')}"
        title = self.game + "".join(f":{k}={v}" for k, v in sorted(self.params.items()))
        return f"{title}: {self.who(1)} against {self.who(2)}, {where}"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the record atomically: the file is either the old one or the whole new one."""
        write_atomic(path, self.dumps())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MatchRecord:
        """Read a record file: a regular file of UTF-8 JSON, at most [`MAX_RECORD_SIZE`][]
        bytes (16 MiB); see [`loads`][].

        A FIFO, a device or a directory is refused without reading from it, and no more than the
        limit is ever read.

        Raises:
            RecordError: saying what is wrong, naming the file.
        """
        name = _quoted(os.fspath(path))
        data = _read_bounded(path, name)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise RecordError(
                f"record {name} is not UTF-8 text (at byte {error.start + 1:,})"
            ) from None
        return cls.loads(text)

    @classmethod
    def loads(cls, text: str) -> MatchRecord:
        """Read record JSON of at most [`MAX_RECORD_SIZE`][] characters.

        Raises:
            RecordError: saying what is wrong (and no other error, whatever the text).
        """
        if not isinstance(text, str):
            raise RecordError(f"a record is JSON text, not {type(text).__name__}")
        if len(text) > MAX_RECORD_SIZE:
            raise RecordError(
                f"record too large ({len(text):,} characters): a record is at most "
                f"{MAX_RECORD_SIZE:,}"
            )
        try:
            data = strictjson.loads(text)
        except strictjson.JSONError as error:
            raise RecordError(f"record: {error}") from None
        try:
            return _from_json(data)
        except RecursionError:  # a value nested deeper than a record's own fields
            raise RecordError("record is not valid: its JSON is nested too deeply") from None

    def replay(self, game: Game | None = None) -> tuple[Match, list[State]]:
        """Check every game against the rules; return the match after its finished games, and
        the last position of each game.

        `game` is the game the record is of, when it cannot be found by name (as for
        [`make_game`][]).

        Raises:
            RecordError: naming the game, move number and reason of the first inconsistency.
        """
        match = self.new_match(game)
        game = match.game
        finals: list[State] = []
        for index, game_record in enumerate(self.games, start=1):
            where = f"game {index}"
            if game_record.number != index or match.game_number != index:
                raise RecordError(f"{where}: the match has no game {game_record.number} here")
            try:
                state = game.from_position(game_record.start)
            except AbstractGamesError as error:
                raise RecordError(f"{where}: bad start position: {error}") from None
            for ply, entry in enumerate(game_record.moves, start=1):
                state = _replay_move(game, match, state, entry, f"{where}, move {ply}")
            finals.append(state)
            match = _close_game(match, game_record, state, where)
        if self.result is not None:
            if match.result() != self.result:
                raise RecordError(
                    f"the recorded result ({_describe(self.result)}) is not what the games give "
                    f"({_describe(match.result())})"
                )
        elif match.is_over():
            raise RecordError("the match is over but the record has no result")
        return match, finals


def _read_bounded(path: str | os.PathLike[str], name: str) -> bytes:
    """The bytes of the regular file at `path`, if there are at most [`MAX_RECORD_SIZE`][]
    (read as every file we are given is, by `files.read_bounded`)."""
    try:
        return read_bounded(path, MAX_RECORD_SIZE)
    except NotRegularFileError:
        raise RecordError(f"cannot read record {name}: it is not a regular file") from None
    except FileTooLargeError as error:
        size = f"more than {MAX_RECORD_SIZE:,}" if error.size is None else f"{error.size:,}"
        raise RecordError(_too_large(name, size)) from None
    except OSError as error:
        raise RecordError(f"cannot read record {name}: {error.strerror or error}") from None


def _too_large(name: str, size: str) -> str:
    return (
        f"record {name} is too large ({size} bytes): a record is at most {MAX_RECORD_SIZE:,} bytes"
    )


def _describe(result: MatchResult | None) -> str:
    if result is None:
        return "no result yet"
    winner = "a draw" if result.winner is None else f"player {result.winner} wins"
    return f"{winner}: {excerpt(result.reason)}"


def _replay_move(game: Game, match: Match, state: State, entry: MoveRecord, at: str) -> State:
    where = f"{at} ({excerpt(entry.move)})"
    if state.is_terminal():
        raise RecordError(f"{where}: the game is already over")
    if state.is_chance():
        if entry.player is not None:
            raise RecordError(f"{where}: a chance event is due, not a player's move")
    else:
        role = state.to_move
        assert role is not None
        expected = match.player_of(role)
        if entry.player != expected:
            raise RecordError(f"{where}: {role} is player {expected}, not {entry.player}")
        if entry.auto and str(game.timeout_move(state)) != entry.move:
            raise RecordError(f"{where}: not the move made for a player out of time")
    try:
        return state.apply(entry.move)
    except AbstractGamesError as error:
        raise RecordError(f"{where}: {error}") from None


def _close_game(match: Match, record: GameRecord, state: State, where: str) -> Match:
    try:
        if record.ended_by is not None:
            if state.is_terminal():
                raise RecordError(f"{where}: {record.ended_by.event} after the game was over")
            return record.ended_by.apply(match)
        if not state.is_terminal():
            if record.final is not None or record.outcome is not None:
                raise RecordError(f"{where}: the moves stop before the recorded end")
            return match  # the game in progress
        if record.final is not None and record.final != state.position():
            raise RecordError(
                f"{where}: the recorded final position {_quoted(record.final)} is not the one "
                f"the moves reach ({_quoted(state.position())})"
            )
        if record.outcome is not None and record.outcome != state.outcome():
            raise RecordError(
                f"{where}: the recorded outcome {excerpt(repr(record.outcome), 150)} is not the "
                f"rules' {excerpt(repr(state.outcome()), 150)}"
            )
        return match.record_game(state)
    except MatchError as error:
        raise RecordError(f"{where}: {error}") from None


# --- reading JSON -----------------------------------------------------------------------------


def _field(data: Any, key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(data, dict):
        raise RecordError(f"{where} must be a JSON object")
    if key not in data:
        raise RecordError(f"{where} has no {key!r}")
    value = data[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
        raise RecordError(f"{where}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _name(value: str, what: str) -> str:
    """A game's or a parameter's name: short, printable text."""
    if not value or len(value) > _MAX_NAME or not value.isprintable():
        raise RecordError(f"record: {_quoted(value)} is not a {what}")
    return value


def _params(data: dict[str, Any]) -> dict[str, Any]:
    """Game parameters: names with numbers, true/false or short texts, as in a game spec."""
    for key, value in data.items():
        if not key.isidentifier() or len(key) > _MAX_NAME:
            raise RecordError(f"record: {_quoted(key)} is not a parameter name")
        if not isinstance(value, int | float | str) or (
            isinstance(value, str) and len(value) > _MAX_NAME
        ):
            raise RecordError(
                f"record: parameter {key} must be a number, true, false or a short text"
            )
    return data


def _from_json(data: Any) -> MatchRecord:
    where = "record"
    if (name := _field(data, "format", str, where)) != RECORD_FORMAT:
        raise RecordError(f"not an abstractgames record (format {_quoted(name)})")
    version = _field(data, "version", int, where)
    if version not in (1, RECORD_VERSION):
        raise RecordError(
            f"record format version {version} is not supported (this is version {RECORD_VERSION})"
        )
    players = _field(data, "players", list, where)
    if len(players) != 2 or not all(isinstance(p, str) for p in players):
        raise RecordError("record: 'players' must be two player specs")
    names = data.get("names", [None, None])
    if not (
        isinstance(names, list)
        and len(names) == 2
        and all(
            n is None or (isinstance(n, str) and 0 < len(n) <= _MAX_NAME and n.isprintable())
            for n in names
        )
    ):
        raise RecordError(
            f"record: 'names' must be two names (printable, at most {_MAX_NAME} characters) "
            "or nulls"
        )
    clock_data = _field(data, "clock", (dict, type(None)), where)
    clock = None
    if clock_data is not None:
        seconds = _field(clock_data, "seconds", (int, float), "record clock")
        increment = _field(clock_data, "increment", (int, float), "record clock")
        try:
            clock = ClockSettings(seconds, increment)
        except ValueError as error:
            raise RecordError(f"record clock: {error}") from None
    record = MatchRecord(
        game=_name(_field(data, "game", str, where), "game name"),
        params=_params(_field(data, "params", dict, where)),
        players=(players[0], players[1]),
        seed=_field(data, "seed", int, where),
        clock=clock,
        time_loss_forfeits=_field(
            data, "correspondence" if version == 1 else "time_loss_forfeits", bool, where
        ),
        single=_field(data, "single", bool, where),
        names=(names[0], names[1]),
    )
    for index, game_data in enumerate(_field(data, "games", list, where), start=1):
        record.games.append(_game_from_json(game_data, f"record game {index}"))
    result = _field(data, "result", (dict, type(None)), where)
    if result is not None:
        winner = _field(result, "winner", (int, type(None)), "record result")
        if winner not in (None, 1, 2):
            raise RecordError(f"record result: the winner must be 1, 2 or null, not {winner}")
        scores = _field(result, "scores", list, "record result")
        if len(scores) != 2 or not all(s is None or _is_number(s) for s in scores):
            raise RecordError("record result: 'scores' must be two numbers or nulls")
        record.result = MatchResult(
            winner, _field(result, "reason", str, "record result"), (scores[0], scores[1])
        )
    return record


def _game_from_json(data: Any, where: str) -> GameRecord:
    record = GameRecord(
        number=_field(data, "number", int, where),
        start=_field(data, "start", str, where),
        final=_field(data, "final", (str, type(None)), where),
    )
    for ply, move_data in enumerate(_field(data, "moves", list, where), start=1):
        at = f"{where} move {ply}"
        player = _field(move_data, "player", (int, type(None)), at)
        if player not in (None, 1, 2):
            raise RecordError(f"{at}: player must be 1, 2 or null (chance), not {player}")
        optional = {k: move_data.get(k) for k in ("seconds", "clock")}
        for key, value in optional.items():
            if value is not None and not (_is_number(value) and value >= 0):
                raise RecordError(f"{at}: {key!r} must be a number of seconds, at least 0")
        auto = move_data.get("auto", False)
        if not isinstance(auto, bool):
            raise RecordError(f"{at}: 'auto' must be true or false")
        record.moves.append(
            MoveRecord(
                _field(move_data, "move", str, at),
                player,
                optional["seconds"],
                optional["clock"],
                auto,
            )
        )
    outcome = _field(data, "outcome", (dict, type(None)), where)
    if outcome is not None:
        scores = _field(outcome, "scores", dict, f"{where} outcome")
        if not all(_is_number(v) for v in scores.values()):
            raise RecordError(f"{where} outcome: scores must be numbers")
        record.outcome = Outcome(
            _field(outcome, "winner", (str, type(None)), f"{where} outcome"),
            scores,
            _field(outcome, "reason", str, f"{where} outcome"),
        )
    ended = _field(data, "ended_by", (dict, type(None)), where)
    if ended is not None:
        event = _field(ended, "event", str, f"{where} ended_by")
        player = _field(ended, "player", int, f"{where} ended_by")
        reason = _field(ended, "reason", str, f"{where} ended_by")
        if event not in END_EVENTS or player not in (1, 2):
            raise RecordError(
                f"{where}: unknown end event {_quoted(event)} by player {value_excerpt(player)}"
            )
        record.ended_by = GameEnd(event, player, reason)
    return record


LATEST_SEARCHED = 200
"""How many of the newest files [`latest_unfinished`][] reads at most."""


def latest_unfinished(directory: str | os.PathLike[str]) -> tuple[str, MatchRecord] | None:
    """The newest record file (by modification time) in `directory` whose match is unfinished,
    with its record, or `None`; files that are not records are passed over, and only the
    [`LATEST_SEARCHED`][] newest `.json` files are read."""
    try:
        entries = [entry for entry in os.scandir(directory) if entry.name.endswith(".json")]
    except OSError:
        return None
    timed = []
    for entry in entries:
        try:
            if entry.is_file(follow_symlinks=False):
                timed.append((entry.stat().st_mtime, entry.path))
        except OSError:
            continue
    for _, path in sorted(timed, reverse=True)[:LATEST_SEARCHED]:
        try:
            record = MatchRecord.load(path)
        except RecordError:
            continue
        if not record.finished:
            return path, record
    return None
