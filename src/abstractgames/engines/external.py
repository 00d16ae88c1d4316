"""What every external program player shares: the command spec, the process, the failures.

A player spec `engine:COMMAND` or `codecup:COMMAND` names a program; the command is split like
a shell would (`shlex`) but never run through one. Options go between the name and the command,
`engine:timeout=5,grace=1:./bot` (write `engine::CMD` if the command itself starts with
`NAME=` and holds a colon):

- `timeout`: seconds the program has to answer without a clock, and to start up (default 30);
- `grace`: with a clock, seconds past its time left before the program counts as hung (default 2);
- `log`: a directory that keeps the program's error output, one log file per program started
  (by default the logs go to the temporary directory and are deleted at the end, except the log
  of a program that failed: see [`ExternalPlayer.close`][]).

`timeout` is more than 0 and `grace` at least 0, both at most [`MAX_SECONDS`][]; a clock's
time left beyond that counts as [`MAX_SECONDS`][].

A program that crashes, hangs, writes what its protocol does not allow, or plays an illegal move
loses the match: `choose` raises [`PlayerFailed`][] saying what happened, e.g.
`player 2 exited with status 1`, naming the log file when the program wrote to its standard error.
The program's whole process group is killed and reaped whatever happens. Text the program wrote is
escaped and cut ([`excerpt`][]) wherever a message quotes it.

The referee tells a player the whole game through the [`Player`][] hooks (chance events and both
players' moves, also for a game resumed from a record), and the player tells its program the game so
far in its protocol ([`agp`][], [`codecup_entropy`][]).
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from ..files import safe_name
from ..players import InvalidPlayerError, Player, PlayerFailed
from ..protocol import Game, Move, State
from ..specs import parse_options, split_program_argument
from ..text import excerpt, quote
from .process import Process, ProcessEnded, ProcessError, ProcessTimeout, describe_status

__all__ = [
    "DEFAULT_GRACE",
    "DEFAULT_TIMEOUT",
    "MAX_SECONDS",
    "MESSAGE_LIMIT",
    "QUIT_GRACE",
    "EngineFailure",
    "ExternalPlayer",
    "check_running",
    "make_external_player",
    "parse_command",
    "player_options",
    "private_stdio",
    "receive_line",
    "send_line",
    "unread_lines",
    "within_range",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds a program has to answer when no clock runs (and to start up)."""
DEFAULT_GRACE = 2.0
"""With a clock: seconds past its time left before a program that has not answered is hung."""
QUIT_GRACE = 1.0
"""Seconds a program has to exit after `quit` before it is killed."""
MAX_SECONDS = 1e9
"""The longest `timeout` or `grace` (about 31 years), and the most time left a program is told
or waited for."""
MESSAGE_LIMIT = 300
"""The longest message of ours that holds outside text (a rules error about a program's move) that
is passed on; the outside text alone is cut to [`EXCERPT`][abstractgames.text.EXCERPT]."""


def within_range(seconds: float) -> float:
    """`seconds` brought into `[0, MAX_SECONDS]` (NaN counts as 0): a wait that the clock and
    the operating system can take."""
    return min(seconds, MAX_SECONDS) if seconds > 0 else 0.0


def parse_command(kind: str, argument: str) -> tuple[dict[str, str], list[str]]:
    """Split `[OPTIONS:]COMMAND` into `({option: value}, argv)`.

    Raises:
        InvalidPlayerError: no command, unbalanced quotes, or a bad option.
    """
    head, text = split_program_argument(argument)
    options: dict[str, str] = {}
    if head:
        context = f"{kind} options {head.strip()!r}"
        options = parse_options(head, context=context, error=InvalidPlayerError, value=str)
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise InvalidPlayerError(f"cannot read the {kind} command {text!r}: {error}") from None
    if not argv:
        raise InvalidPlayerError(f"give the command to run, e.g. '{kind}:./mybot --fast'")
    return options, argv


def player_options(kind: str, options: dict[str, str]) -> dict[str, Any]:
    """The keyword arguments of [`ExternalPlayer`][] from the options of a spec `kind:...`
    (`timeout`, `grace`, `log`), checked.

    Raises:
        InvalidPlayerError: an option it does not have, or a bad number of seconds.
    """
    unknown = sorted(set(options) - {"timeout", "grace", "log"})
    if unknown:
        raise InvalidPlayerError(
            f"{kind} has no option {', '.join(map(repr, unknown))}; "
            "its options: timeout, grace, log"
        )
    result: dict[str, Any] = {}
    for name in ("timeout", "grace"):
        if name in options:
            try:
                value = float(options[name])
            except ValueError:
                value = math.nan
            result[name] = _seconds(kind, name, value, options[name])
    if options.get("log"):
        result["log_dir"] = options["log"]
    return result


def _seconds(kind: str, name: str, value: float, text: object) -> float:
    """`value` if it is a valid `timeout`/`grace`; `text` is what the user wrote.

    Raises:
        InvalidPlayerError: NaN, infinite, out of range.
    """
    positive = name == "timeout"
    if not ((value > 0 if positive else value >= 0) and value <= MAX_SECONDS):
        need = "a positive" if positive else "a non-negative"
        raise InvalidPlayerError(
            f"{kind} option {name}={excerpt(text)} must be {need} number of seconds, "
            f"at most {MAX_SECONDS:.0f}"
        )
    return value


def _check_program(kind: str, program: str) -> None:
    if os.sep in program or (os.altsep and os.altsep in program):
        found = os.path.isfile(program) and os.access(program, os.X_OK)
    else:
        found = shutil.which(program) is not None
    if not found:
        raise InvalidPlayerError(f"{kind}: cannot run {program!r}: no such program")


class EngineFailure(Exception):
    """An external program crashed, hung or broke its protocol.

    `str()` says what it did, without a subject, e.g. `"exited with status 1"`, so that the
    caller can put `"player 2"` in front.
    """


# --- talking to a program: every protocol's client uses these -------------------------------------


def send_line(process: Process, line: str, timeout: float) -> None:
    """Write `line` to the program, which must read it within `timeout` seconds.

    Raises:
        EngineFailure: the program has ended, or did not read its input in time (it is killed).
    """
    try:
        process.send(line, time.monotonic() + timeout)
    except ProcessEnded:
        raise EngineFailure(describe_status(process.wait(2.0))) from None
    except ProcessError:
        process.kill()
        raise EngineFailure(f"did not read its input within {timeout:.1f} s") from None


def receive_line(process: Process, deadline: float, limit: float, asked: str = "") -> str:
    """The program's next line, which it must write by `deadline` (`time.monotonic`).

    `limit` is the time it was given and `asked` what it was asked, for the message: `did not
    answer 'isready' within 5.0 s` (`did not answer within 5.0 s` without `asked`).

    Raises:
        EngineFailure: the program did not answer in time (it is killed), ended, or wrote what
            cannot be read as a line (too long, say; it is killed).
    """
    try:
        return process.read_line(deadline)
    except ProcessTimeout:
        process.kill()
        what = f" {quote(asked)}" if asked else ""
        raise EngineFailure(f"did not answer{what} within {limit:.1f} s") from None
    except ProcessEnded:
        raise EngineFailure(describe_status(process.wait(2.0))) from None
    except ProcessError as error:
        process.kill()
        raise EngineFailure(str(error)) from None


def unread_lines(process: Process) -> list[str]:
    """The lines the program wrote that were not read yet (without waiting).

    Raises:
        EngineFailure: what it wrote cannot be read as lines.
    """
    try:
        return process.ready_lines()
    except ProcessError as error:
        raise EngineFailure(str(error)) from None


def check_running(process: Process) -> None:
    """Fail if the program has closed its output (it exited, or is about to).

    Raises:
        EngineFailure: how it ended.
    """
    if process.output_ended:
        raise EngineFailure(describe_status(process.wait(2.0)))


# --- the program's side: a protocol on standard input and output ---------------------------------


@contextlib.contextmanager
def private_stdio() -> Iterator[tuple[TextIO, TextIO]]:
    """This process's standard input and output, kept for a protocol and out of reach of the
    code it serves.

    Yields `(lines, output)`: the protocol's input (text, bytes that are not UTF-8 replaced) and
    output (written through at once). Meanwhile file descriptor 0 reads `/dev/null` and 1 writes
    to standard error, and so do `sys.stdin` and `sys.stdout`: a bot's `print` (or a program it
    starts) writes to standard error, never into the protocol, and `input()` reads nothing. The
    protocol's own descriptors are not inherited by the processes started meanwhile. Both are
    put back at the end.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    protocol_in, protocol_out = os.dup(0), os.dup(1)  # not inheritable
    saved = sys.stdin, sys.stdout
    nothing = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(nothing, 0)
        os.dup2(2, 1)
    finally:
        os.close(nothing)
    lines = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(protocol_in, "rb")), encoding="utf-8", errors="replace"
    )
    output = io.TextIOWrapper(
        io.FileIO(protocol_out, "wb"), encoding="utf-8", errors="replace", write_through=True
    )
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (closed below)
    sys.stdout = sys.stderr
    try:
        yield lines, output
    finally:
        with contextlib.suppress(OSError, ValueError):
            output.flush()
        sys.stdin.close()
        sys.stdin, sys.stdout = saved
        os.dup2(protocol_in, 0)
        os.dup2(protocol_out, 1)
        with contextlib.suppress(OSError, ValueError):
            lines.close()
        with contextlib.suppress(OSError, ValueError):
            output.close()


# --- the players ----------------------------------------------------------------------------------


class ExternalPlayer(Player):
    """A player whose moves come from a program; subclasses speak its protocol.

    The game so far comes from the [`Player`][] hooks, which the referee calls.

    Args:
        game: the game.
        argv: the program and its arguments.
        timeout: seconds the program has to answer without a clock (and to start).
        grace: with a clock, seconds past the time left before the program counts as hung.
        log_dir: a directory that keeps every error-output log (default: the temporary
            directory, where only the logs of programs that failed are kept).

    Raises:
        InvalidPlayerError: `timeout` or `grace` NaN, infinite or out of range.

    Attributes:
        seat: the player's number (1 or 2) in the match, from
            [`game_started`][abstractgames.players.Player.game_started]; `None` before, and
            messages then name "the engine program" instead of "player 2".
        states: the positions of the current game, its start first.
        moves: the moves of the current game (chance events included); `states[i + 1]` is
            `states[i]` after `moves[i]`.
        logs: the log file of every program started so far ([`close`][] deletes some).
    """

    kind = "external"

    def __init__(
        self,
        game: Game,
        argv: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        grace: float = DEFAULT_GRACE,
        log_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.game = game
        self.argv = list(argv)
        self.timeout = _seconds(self.kind, "timeout", timeout, timeout)
        self.grace = _seconds(self.kind, "grace", grace, grace)
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.seat: int | None = None
        self.states: list[State] = []
        self.moves: list[Move] = []
        self.logs: list[Path] = []
        self._failed_logs: set[Path] = set()

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        self.seat = seat
        self._restart(start)

    def move_played(self, move: Move, state: State) -> None:
        self.moves.append(move)
        self.states.append(state)

    def moves_taken_back(self, state: State) -> None:
        for index in range(len(self.states) - 2, -1, -1):
            if self.states[index] == state:
                del self.states[index + 1 :], self.moves[index:]
                return
        self._restart(state)

    def _restart(self, start: State) -> None:
        """Begin a new history at `start`."""
        self.states, self.moves = [start], []

    def limit(self, time_left: float | None) -> float:
        """Seconds to wait for a move: the time left plus the grace (at most [`MAX_SECONDS`][]),
        or the timeout."""
        if time_left is None:
            return self.timeout
        return min(within_range(time_left) + self.grace, MAX_SECONDS)

    def _start(self) -> Process:
        label = safe_name(Path(self.argv[0]).name, default="program")
        directory = self.log_dir or Path(tempfile.gettempdir())
        try:
            directory.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(
                prefix=f"abstractgames-{self.kind}-{label}-", suffix=".log", dir=directory
            )
        except OSError as error:
            raise PlayerFailed(
                f"{self._who()} could not be started: cannot write its log in "
                f"{str(directory)!r}: {error.strerror or error}"
            ) from None
        os.close(handle)
        log = Path(name)
        self.logs.append(log)
        try:
            return Process(self.argv, log_path=log)
        except ProcessError as error:
            raise PlayerFailed(f"{self._who()} {error}") from None

    def _who(self) -> str:
        return f"the {self.kind} program" if self.seat is None else f"player {self.seat}"

    def _failure(self, message: str) -> PlayerFailed:
        """Stop the program; the failure to raise, naming the log if the program wrote to it."""
        self._stop_program()
        log = self.logs[-1] if self.logs else None
        with contextlib.suppress(OSError):
            if log is not None and log.stat().st_size > 0:
                message += f"; its error output is in {log}"
        if log is not None:
            self._failed_logs.add(log)
        return PlayerFailed(message)

    def _failed(self, what: str) -> PlayerFailed:
        return self._failure(f"{self._who()} {what}")

    def _illegal(self, text: str, why: str) -> PlayerFailed:
        reason = excerpt(why, MESSAGE_LIMIT)  # a rules error may quote the whole move
        return self._failure(f"illegal move {quote(text)} by {self._who()}: {reason}")

    def _stop_program(self) -> None:
        """Make the program quit (or kill it); nothing if none runs."""

    def close(self) -> None:
        """Tell the program to quit, kill it if it does not, and delete the logs not kept.

        An empty log is always deleted. In a `log_dir` every other log is kept; in the temporary
        directory only the log of a program that failed (the [`PlayerFailed`][] reason names it), so
        that a long tournament leaves no pile of logs behind.
        """
        self._stop_program()
        for log in self.logs:
            with contextlib.suppress(OSError):
                kept = self.log_dir is not None or log in self._failed_logs
                if not kept or log.stat().st_size == 0:
                    log.unlink()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {shlex.join(self.argv)!r}>"


def make_external_player(
    kind: str, cls: type[ExternalPlayer], game: Game, argument: str
) -> ExternalPlayer:
    """`cls(game, argv, **options)` from the text after `kind:` (`[OPTIONS:]COMMAND`).

    Raises:
        InvalidPlayerError: a bad option or command, or a program that is not there.
    """
    options, argv = parse_command(kind, argument)
    keywords = player_options(kind, options)
    _check_program(kind, argv[0])
    return cls(game, argv, **keywords)
