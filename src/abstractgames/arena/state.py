"""The resumable state of a tournament: its finished matches, kept in a file as they finish.

The file is JSON lines. The first line names the game, the seed, the time control (files written
before time controls have none: no clock) and the positions the matches start from (files written
before openings suites have none: the game's start); each further line holds one finished match:
its round, its whole record, and a SHA-256 digest of both as the arena wrote them. Lines are
appended in one write each, so a tournament stopped at any moment (Ctrl-C, a crash, a kill) keeps
every match that finished.

Reading it back trusts nothing: the file must be a regular file, it is read one line at a time
(a line holds at most [`MAX_LINE`][] bytes, so memory does not grow with the file), numbers are
bounded, and every finished match of the schedule must carry its digest and replay through the
rules to the recorded result. Anything else is one [`ArenaError`][] naming the line.

A run holds an advisory lock on its state file (`flock`, on POSIX) from start to end, so a
second run on the same file is refused; elsewhere there is no lock.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, Protocol

from .. import strictjson
from ..protocol import AbstractGamesError, Game
from ..records import MAX_RECORD_SIZE, ClockSettings, MatchRecord
from ..text import counted, excerpt
from .errors import ArenaError
from .report import MatchSummary, MatchTable
from .schedule import ARENA_VERSION, MatchTask, round_seed

__all__ = ["MAX_LINE", "STATE_FORMAT", "ArenaState", "Tournament"]

STATE_FORMAT = "abstractgames-arena-state"
"""The `format` in the first line of a state file."""
DIGEST = "sha256"
"""The digest of each match line, named in the first line (state files without it are older and
are checked by replaying alone)."""
MAX_LINE = MAX_RECORD_SIZE
"""The longest line of a state file, in bytes: a match record at most as large as a record file."""


class Tournament(Protocol):
    """What a state file needs of its tournament (an [`Arena`][])."""

    @property
    def game(self) -> Game:
        """The game."""

    @property
    def seed(self) -> int:
        """The tournament seed."""

    @property
    def clock(self) -> ClockSettings | None:
        """Each player's time per game, or `None`."""

    @property
    def time_loss_forfeits(self) -> bool:
        """Whether running out of time loses the match."""

    @property
    def positions(self) -> tuple[str, ...]:
        """The position strings the matches start from (none: the game's own start)."""

    @property
    def tasks(self) -> Sequence[MatchTask]:
        """Every match of the tournament, in schedule order."""

    def task(self, key: tuple[object, ...]) -> MatchTask | None:
        """The match of the schedule with this [`MatchTask.key`][], if there is one."""


class ArenaState:
    """The finished matches of a tournament, kept in a file as they finish (JSON lines).

    Use [`create`][] for a new tournament and [`resume`][] to continue one; [`close`][]
    (or [`remove`][]) when the run ends, which releases the lock.
    """

    def __init__(
        self, path: Path, fd: int, arena: Tournament, finished: MatchTable, read: int = 0
    ) -> None:
        self.path = path
        self.finished = finished
        """The matches of the schedule read from the file, as [`MatchSummary`][] values."""
        self._arena = arena
        self._fd: int | None = fd
        self._size = os.fstat(fd).st_size
        self._read = read

    @classmethod
    def create(cls, path: str | os.PathLike[str], arena: Tournament) -> ArenaState:
        """Start a new state file for `arena`, and lock it.

        Raises:
            ArenaError: the file exists (it may hold a tournament to resume), or cannot be written.
        """
        target = Path(path)
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(target, flags, 0o666)
        except FileExistsError:
            raise ArenaError(
                f"{target} already holds a tournament: resume it, or delete the file"
            ) from None
        except (OSError, ValueError) as error:
            raise ArenaError(f"cannot write {target}: {_reason(error)}") from None
        header = {
            "digest": DIGEST,
            "format": STATE_FORMAT,
            "version": ARENA_VERSION,
            "game": arena.game.spec,
            "seed": arena.seed,
            "clock": _clock_json(arena.clock),
            "time_loss_forfeits": arena.time_loss_forfeits,
            "positions": list(arena.positions),
        }
        try:
            _lock(fd, target)
            _write_all(fd, _canonical(header) + b"\n")
        except BaseException as error:
            os.close(fd)
            if not isinstance(error, ArenaError):  # ours, and holding no tournament
                with suppress(OSError):
                    os.unlink(target)
            if isinstance(error, OSError):
                raise ArenaError(f"cannot write {target}: {_reason(error)}") from None
            raise
        return cls(target, fd, arena, MatchTable(arena.tasks))

    @classmethod
    def resume(cls, path: str | os.PathLike[str], arena: Tournament) -> ArenaState:
        """Open the state file of `arena` to continue it, lock it, and read back the matches
        that finished, checking each one.

        Matches of the file that are not in `arena`'s schedule (other players, fewer games)
        are kept in the file but not used. A last line cut short (by a crash) is dropped.

        Raises:
            ArenaError: no such file, one of another game, seed or time control, one in use by
                another run, or one that is damaged or was changed: the message names the line.
        """
        target = Path(path)
        flags = os.O_RDWR | os.O_APPEND | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(target, flags)
        except FileNotFoundError:
            raise ArenaError(f"there is no tournament to resume in {target}") from None
        except (OSError, ValueError) as error:
            raise ArenaError(f"cannot open {target}: {_reason(error)}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ArenaError(f"{target} is not an arena state file (not a regular file)")
            _lock(fd, target)
            finished = MatchTable(arena.tasks)
            with open(os.dup(fd), "rb") as handle:
                complete = _Reader(target, arena, finished).read(handle)
            if complete < os.fstat(fd).st_size:  # a line cut short by a crash: drop it
                os.ftruncate(fd, complete)
        except OSError as error:
            os.close(fd)
            raise ArenaError(f"cannot read {target}: {_reason(error)}") from None
        except BaseException:
            os.close(fd)
            raise
        return cls(target, fd, arena, finished, complete)

    def records(self) -> Iterator[tuple[MatchTask, MatchRecord]]:
        """The records of the [`finished`][] matches, read from the file again, in file order.

        Raises:
            ArenaError: the file changed since it was read.
        """
        if self._fd is None:
            raise ArenaError(f"{self.path} is closed")
        reader = _Reader(self.path, self._arena, self.finished)
        with open(os.dup(self._fd), "rb") as handle:
            handle.seek(0)
            yield from reader.records(handle, self._read)

    def add(self, task: MatchTask, record_text: str) -> None:
        """Append a finished match (its record as JSON text).

        Raises:
            ArenaError: the file cannot be written (a disk full); it is left as it was.
        """
        if self._fd is None:
            raise ArenaError(f"{self.path} is closed")
        line = _line(task.round, json.loads(record_text))
        try:
            _write_all(self._fd, line)
        except OSError as error:
            with suppress(OSError):
                os.ftruncate(self._fd, self._size)
            raise ArenaError(
                f"cannot add match {task.number} to {self.path}: {_reason(error)}"
            ) from None
        self._size += len(line)

    def close(self) -> None:
        """Close the file (it stays on disk) and release its lock."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def remove(self) -> None:
        """Delete the file (a tournament that is over), then close it."""
        if self._fd is not None:
            try:
                self.path.unlink(missing_ok=True)
            finally:
                self.close()


# --- writing ------------------------------------------------------------------------------------


def _clock_json(clock: ClockSettings | None) -> dict[str, float] | None:
    return None if clock is None else {"increment": clock.increment, "seconds": clock.seconds}


def _openings(found: object, wanted: list[str]) -> str:
    """How the positions of a state file (`found`) differ from a tournament's, in words: e.g.
    `"a tournament from 3 positions, not from the game's start"`."""

    def where(positions: list[str]) -> str:
        if not positions:
            return "from the game's start"
        return f"from {counted(len(positions), 'position')}"

    if not isinstance(found, list) or not all(isinstance(p, str) for p in found):
        return f"a tournament from {excerpt(found)} (not a list of positions)"
    if len(found) != len(wanted):
        return f"a tournament {where(found)}, not {where(wanted)}"
    number, ours, theirs = next(
        (n, ours, theirs)
        for n, (ours, theirs) in enumerate(zip(wanted, found, strict=True), start=1)
        if ours != theirs
    )
    return f"a tournament whose position {number} is {excerpt(theirs)}, not {excerpt(ours)}"


def _time_control(clock: ClockSettings | None, time_loss_forfeits: bool) -> str:
    """The time control in words, e.g. `"with the clock 60+1"`."""
    words = "without a clock" if clock is None else f"with the clock {clock}"
    return words + (", time loss forfeiting the match" if time_loss_forfeits else "")


def _canonical(data: Any) -> bytes:
    """The bytes the arena writes for `data`: compact JSON, sorted keys, ASCII."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _digest(round_number: Any, record: Any) -> str:
    return hashlib.sha256(_canonical({"record": record, "round": round_number})).hexdigest()


def _line(round_number: int, record: Any) -> bytes:
    """The line of a finished match: its round, its record, and their digest."""
    entry = {"digest": _digest(round_number, record), "record": record, "round": round_number}
    return _canonical(entry) + b"\n"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


if sys.platform != "win32":
    import fcntl

    def _lock(fd: int, path: Path) -> None:
        """Take the run's lock on the state file (released when the file is closed).

        Raises:
            ArenaError: another run holds it.
        """
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ArenaError(
                f"{path} is in use by another arena run (it is locked): wait for that run to "
                "end, or keep this one's results in another file (--state)"
            ) from None
        except OSError as error:
            if error.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
                raise
            # a file system without locks (some network ones): run without

else:

    def _lock(fd: int, path: Path) -> None:
        """No lock where there is no `flock`."""


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)


# --- reading ------------------------------------------------------------------------------------


def _json(line: bytes) -> Any:
    """One line of JSON, bounded: small integers, finite numbers, no deep nesting.

    Raises:
        ArenaError: saying what is wrong (without the line number).
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise ArenaError("not UTF-8 text") from None
    try:
        return strictjson.loads(text)
    except strictjson.JSONError as error:
        raise ArenaError(str(error)) from None


class _Reader:
    """Reads a state file one line at a time and checks every finished match in it."""

    def __init__(self, path: Path, arena: Tournament, finished: MatchTable) -> None:
        self.path = path
        self.arena = arena
        self.finished = finished
        self.digests = True

    def read(self, handle: Any) -> int:
        """Read and check the whole file into `finished`; the size of its whole lines."""
        header_line = handle.readline(MAX_LINE + 1)
        if not header_line.endswith(b"\n"):
            raise ArenaError(f"{self.path} is not an arena state file")
        self._header(header_line)
        complete = len(header_line)
        number = 1
        while line := handle.readline(MAX_LINE + 1):
            number += 1
            if not line.endswith(b"\n"):
                if len(line) > MAX_LINE:
                    raise self._error(number, f"longer than {MAX_LINE:,} bytes")
                break  # the last line, cut short
            self._match(line, number)
            complete += len(line)
        return complete

    def records(self, handle: Any, size: int) -> Iterator[tuple[MatchTask, MatchRecord]]:
        """The records of the `finished` matches in the first `size` bytes, again."""
        header_line = handle.readline(MAX_LINE + 1)
        self._header(header_line)
        position, number = len(header_line), 1
        while position < size and (line := handle.readline(MAX_LINE + 1)):
            number += 1
            position += len(line)
            round_number, record = self._entry(line, number)
            task = self.arena.task((round_number, *record.players))
            if task is not None and self.finished.has(task.number):
                yield task, record

    def _error(self, number: int, what: str) -> ArenaError:
        return ArenaError(f"{self.path}, line {number}: {what}")

    def _header(self, line: bytes) -> None:
        try:
            header = _json(line)
        except ArenaError:
            header = None
        if not isinstance(header, dict) or header.get("format") != STATE_FORMAT:
            raise ArenaError(f"{self.path} is not an arena state file")
        if header.get("version") != ARENA_VERSION:
            raise ArenaError(
                f"{self.path} was written by another version of the arena (version "
                f"{excerpt(header.get('version'))}, not {ARENA_VERSION})"
            )
        game, seed = header.get("game"), header.get("seed")
        if game != self.arena.game.spec or seed != self.arena.seed:
            raise ArenaError(
                f"{self.path} holds the tournament of {excerpt(game)} with seed {excerpt(seed)}, "
                f"not of {self.arena.game.spec} with seed {self.arena.seed}"
            )
        clock, forfeits = self._header_clock(header)
        wanted = (self.arena.clock, self.arena.time_loss_forfeits)
        if (clock, forfeits) != wanted:
            raise ArenaError(
                f"{self.path} holds a tournament played {_time_control(clock, forfeits)}, not "
                f"{_time_control(*wanted)}: resume it with the same --clock and --correspondence"
            )
        positions = header.get("positions", [])  # none in files written before openings
        if positions != list(self.arena.positions):
            raise ArenaError(
                f"{self.path} holds {_openings(positions, list(self.arena.positions))}: resume "
                "it with the same positions, in the same order"
            )
        digest = header.get("digest")
        if digest not in (None, DIGEST):
            raise ArenaError(f"{self.path}: unknown digest {excerpt(digest)}")
        self.digests = digest == DIGEST

    def _header_clock(self, header: dict[str, Any]) -> tuple[ClockSettings | None, bool]:
        """The time control of a header (none in files written before time controls)."""
        data, forfeits = header.get("clock"), header.get("time_loss_forfeits", False)
        try:
            if not isinstance(forfeits, bool):
                raise ValueError("time_loss_forfeits is not true or false")
            if data is None:
                return None, forfeits
            if not isinstance(data, dict) or set(data) != {"increment", "seconds"}:
                raise ValueError("not a clock")
            return ClockSettings(data["seconds"], data["increment"]), forfeits
        except ValueError as error:
            raise ArenaError(f"{self.path}, line 1: bad time control ({error})") from None

    def _entry(self, line: bytes, number: int) -> tuple[int, MatchRecord]:
        """The round and the record of a line, its digest checked."""
        try:
            entry = _json(line)
            if not isinstance(entry, dict) or set(entry) - {"digest", "record", "round"}:
                raise ArenaError("not a finished match")
            round_number, data = entry.get("round"), entry.get("record")
            signed = "digest" in entry or self.digests
            if signed and entry.get("digest") != _digest(round_number, data):
                raise ArenaError(
                    "the match was changed after the arena wrote it (its digest does not match)"
                )
            if isinstance(round_number, bool) or not isinstance(round_number, int):
                raise ArenaError("not a finished match (no round)")
            return round_number, MatchRecord.loads(json.dumps(data))
        except RecursionError:
            raise self._error(number, "JSON nested too deeply") from None
        except AbstractGamesError as error:
            raise self._error(number, str(error)) from None
        except Exception as error:  # a record reader's own bug on a crafted line: still one line
            raise self._error(number, f"not a match record ({_what(error)})") from None

    def _match(self, line: bytes, number: int) -> None:
        """Check the finished match of a line; keep it if the schedule has it."""
        round_number, record = self._entry(line, number)
        game, seed = self.arena.game, self.arena.seed
        try:
            same_game = record.make_game() == game
        except AbstractGamesError:
            same_game = False
        if (
            not same_game
            or not record.finished
            or record.seed != round_seed(seed, round_number)
            or (record.clock, record.time_loss_forfeits, record.single)
            != (self.arena.clock, self.arena.time_loss_forfeits, False)
        ):
            raise self._error(number, "not a finished match of this tournament")
        task = self.arena.task((round_number, *record.players))
        if task is None:
            return  # another schedule's match: kept in the file, not used
        start = game.initial_state().position() if task.start is None else task.start
        if any(game_record.start != start for game_record in record.games):
            raise self._error(
                number, f"match {task.number} did not start from its position ({start})"
            )
        if self.finished.has(task.number):
            raise self._error(number, f"match {task.number} is in the file twice")
        try:
            record.replay(game)
        except AbstractGamesError as error:
            raise self._error(number, f"match {task.number} breaks the rules: {error}") from None
        except Exception as error:  # a game's own bug on a crafted record: still one line
            raise self._error(
                number, f"match {task.number} cannot be replayed ({_what(error)})"
            ) from None
        self.finished.add(MatchSummary.from_record(task, record))


def _what(error: BaseException) -> str:
    return f"{type(error).__name__}: {excerpt(error)}"
