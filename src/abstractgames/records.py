"""Game records: a JSON file per match, written atomically, with stable output, checked on load.

A record holds the game and its parameters, the players' specs, the seed, the clock, and every
game of the match with its full move list in canonical notation (chance events included), per-move
clock times when a clock was used, how each game ended, and the match result. The same seed and
bots give a byte-identical file (times are only recorded with a clock).

:meth:`MatchRecord.replay` re-validates a record through the rules: every move must be legal and
every recorded position and result must be what the rules give.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import attrs

from .files import write_atomic
from .protocol import (
    AbstractGamesError,
    Game,
    Match,
    MatchError,
    MatchResult,
    Outcome,
    SingleGameMatch,
    State,
)
from .registry import get_game

__all__ = [
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "ClockSettings",
    "GameEnd",
    "GameRecord",
    "MatchRecord",
    "MoveRecord",
    "RecordError",
]

RECORD_FORMAT = "abstractgames-record"
RECORD_VERSION = 2
"""The version written; version 1 (where ``time_loss_forfeits`` was ``correspondence``) is read."""


class RecordError(AbstractGamesError, ValueError):
    """A record that cannot be read, or that the rules contradict."""


_CLOCK_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:\+\s*(\d+(?:\.\d+)?))?\s*$")


@attrs.frozen
class ClockSettings:
    """Each player's time for a game, in seconds, plus an increment added after each move."""

    seconds: float
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> ClockSettings:
        """Read ``SECONDS`` or ``SECONDS+INCREMENT``, e.g. ``"300+2"``."""
        match = _CLOCK_RE.match(text)
        if match is None or float(match.group(1)) <= 0:
            raise ValueError(
                f"bad clock {text!r}: write SECONDS or SECONDS+INCREMENT, e.g. 300 or 300+2"
            )
        return cls(float(match.group(1)), float(match.group(2) or 0))

    def __str__(self) -> str:
        def number(value: float) -> str:
            return f"{value:g}"

        text = number(self.seconds)
        return f"{text}+{number(self.increment)}" if self.increment else text


@attrs.frozen
class MoveRecord:
    """One ply: the move's notation, who made it (``None`` for chance), and clock details.

    ``seconds`` is the time the player took and ``clock`` what was left after it (with a clock);
    ``auto`` marks a move made for a player out of time.
    """

    move: str
    player: int | None
    seconds: float | None = None
    clock: float | None = None
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

    ``event`` is ``"resigned"``, ``"out of time"`` or ``"forfeit"`` (e.g. an external program that
    crashed or played an illegal move); ``reason`` says it in words.
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
    """One game of a match; ``final``/``outcome`` are set when the rules ended it, ``ended_by``
    when a player lost the match during it (see :class:`GameEnd`)."""

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


@attrs.define
class MatchRecord:
    """A whole match; ``result`` stays ``None`` until the match is decided."""

    game: str
    params: dict[str, Any]
    players: tuple[str, str]
    seed: int
    clock: ClockSettings | None = None
    time_loss_forfeits: bool = False
    single: bool = False
    games: list[GameRecord] = attrs.Factory(list)
    result: MatchResult | None = None

    @property
    def finished(self) -> bool:
        return self.result is not None

    def make_game(self, game: Game | None = None) -> Game:
        """The game this record is of (no program named in the record is ever started).

        Given ``game`` (a game not found by name, say), it is checked against the record's
        name and parameters and returned.
        """
        if game is not None:
            if game.name != self.game or game.params != self.params:
                raise RecordError(f"this is a record of {self.game} {self.params}, not of {game!r}")
            return game
        try:
            return get_game(self.game, **self.params)
        except AbstractGamesError as error:
            raise RecordError(f"record of an unknown game: {error}") from None

    def new_match(self, game: Game | None = None) -> Match:
        """The match this record is of, before any game (``game``: as for :meth:`make_game`)."""
        game = self.make_game(game)
        if self.single:
            return SingleGameMatch(game)
        return game.new_match(time_loss_forfeits=self.time_loss_forfeits)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "game": self.game,
            "params": dict(self.params),
            "players": list(self.players),
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
        """The record as JSON text with sorted keys (stable: same match, same bytes)."""
        return json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the record atomically: the file is either the old one or the whole new one."""
        write_atomic(path, self.dumps())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MatchRecord:
        """Read a record file (see :meth:`loads`)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise RecordError(f"cannot read record {str(path)!r}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise RecordError(f"record {str(path)!r} is not UTF-8 text") from None
        return cls.loads(text)

    @classmethod
    def loads(cls, text: str) -> MatchRecord:
        """Read record JSON; raise :class:`RecordError` saying what is wrong."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(
                f"record is not valid JSON ({error.msg} at line {error.lineno})"
            ) from None
        return _from_json(data)

    def replay(self, game: Game | None = None) -> tuple[Match, list[State]]:
        """Check every game against the rules; return the match after its finished games, and
        the last position of each game.

        ``game`` is the game the record is of, when it cannot be found by name (as for
        :meth:`make_game`).

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


def _describe(result: MatchResult | None) -> str:
    if result is None:
        return "no result yet"
    winner = "a draw" if result.winner is None else f"player {result.winner} wins"
    return f"{winner}: {result.reason}"


def _replay_move(game: Game, match: Match, state: State, entry: MoveRecord, where: str) -> State:
    if state.is_terminal():
        raise RecordError(f"{where} ({entry.move}): the game is already over")
    if state.is_chance():
        if entry.player is not None:
            raise RecordError(f"{where} ({entry.move}): a chance event is due, not a player's move")
    else:
        role = state.to_move
        assert role is not None
        expected = match.player_of(role)
        if entry.player != expected:
            raise RecordError(
                f"{where} ({entry.move}): {role} is player {expected}, not {entry.player}"
            )
        if entry.auto and str(game.timeout_move(state)) != entry.move:
            raise RecordError(f"{where} ({entry.move}): not the move made for a player out of time")
    try:
        return state.apply(entry.move)
    except AbstractGamesError as error:
        raise RecordError(f"{where} ({entry.move}): {error}") from None


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
                f"{where}: the recorded final position {record.final!r} is not the one the moves "
                f"reach ({state.position()!r})"
            )
        if record.outcome is not None and record.outcome != state.outcome():
            raise RecordError(
                f"{where}: the recorded outcome {record.outcome!r} is not the rules' "
                f"{state.outcome()!r}"
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


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _from_json(data: Any) -> MatchRecord:
    where = "record"
    if _field(data, "format", str, where) != RECORD_FORMAT:
        raise RecordError(f"not an abstractgames record (format {data['format']!r})")
    version = _field(data, "version", int, where)
    if version not in (1, RECORD_VERSION):
        raise RecordError(
            f"record format version {version} is not supported (this is version {RECORD_VERSION})"
        )
    players = _field(data, "players", list, where)
    if len(players) != 2 or not all(isinstance(p, str) for p in players):
        raise RecordError("record: 'players' must be two player specs")
    clock_data = _field(data, "clock", (dict, type(None)), where)
    clock = None
    if clock_data is not None:
        seconds = _field(clock_data, "seconds", (int, float), "record clock")
        increment = _field(clock_data, "increment", (int, float), "record clock")
        clock = ClockSettings(float(seconds), float(increment))
    record = MatchRecord(
        game=_field(data, "game", str, where),
        params=_field(data, "params", dict, where),
        players=(players[0], players[1]),
        seed=_field(data, "seed", int, where),
        clock=clock,
        time_loss_forfeits=_field(
            data, "correspondence" if version == 1 else "time_loss_forfeits", bool, where
        ),
        single=_field(data, "single", bool, where),
    )
    for index, game_data in enumerate(_field(data, "games", list, where), start=1):
        record.games.append(_game_from_json(game_data, f"record game {index}"))
    result = _field(data, "result", (dict, type(None)), where)
    if result is not None:
        winner = _field(result, "winner", (int, type(None)), "record result")
        scores = _field(result, "scores", list, "record result")
        if len(scores) != 2 or not all(s is None or _number(s) for s in scores):
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
            raise RecordError(f"{at}: player must be 1, 2 or null (chance), not {player!r}")
        optional = {k: move_data.get(k) for k in ("seconds", "clock")}
        for key, value in optional.items():
            if value is not None and not _number(value):
                raise RecordError(f"{at}: {key!r} must be a number")
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
        if not all(_number(v) for v in scores.values()):
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
            raise RecordError(f"{where}: unknown end event {event!r} by player {player!r}")
        record.ended_by = GameEnd(event, player, reason)
    return record
