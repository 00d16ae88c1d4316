"""A program on pipes: started in its own session, read line by line with deadlines, killed whole.

:class:`Process` is the only place that touches the operating system for external programs. It
never blocks without a deadline: reads and writes go through a selector on non-blocking pipes, so a
program that hangs, floods its output or stops reading its input costs at most the time allowed.
The program runs in a new session (its own process group), so :meth:`Process.stop` can kill it
together with everything it started, and it is always waited for, so it leaves no zombie. Its
standard error goes straight to a log file. Programs still running when the interpreter exits are
killed too.

POSIX only (Linux, macOS, the BSDs).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "MAX_LINE",
    "Process",
    "ProcessEnded",
    "ProcessError",
    "ProcessTimeout",
    "describe_status",
]

MAX_LINE = 1 << 16
"""The longest line (in bytes) a program may write; a longer one is a protocol error."""

_POLL = 0.005  # seconds between checks while waiting for a program to exit


class ProcessError(Exception):
    """The program cannot be talked to any more (the message says why, without a subject)."""


class ProcessTimeout(ProcessError):
    """The program did not write a line, or read its input, in time."""


class ProcessEnded(ProcessError):
    """The program closed its output or its input (it exited, most likely)."""


def describe_status(status: int | None) -> str:
    """Words for a return code: ``"exited with status 1"``, ``"was killed by signal SIGSEGV"``."""
    if status is None:
        return "closed its output without exiting"
    if status >= 0:
        return f"exited with status {status}"
    try:
        name = signal.Signals(-status).name
    except ValueError:
        name = str(-status)
    return f"was killed by signal {name}"


_live: set[Process] = set()


@atexit.register
def _kill_all() -> None:
    for process in list(_live):
        process.kill()


class Process:
    """A running program whose standard input and output are pipes and whose errors go to a log.

    Args:
        argv: the program and its arguments (never run through a shell).
        log_path: where the program's standard error is written (appended).
        cwd: the working directory, if not the current one.

    Raises:
        ProcessError: the program could not be started (the message says why).
    """

    def __init__(
        self, argv: Sequence[str], *, log_path: Path, cwd: str | os.PathLike[str] | None = None
    ) -> None:
        if os.name != "posix":
            raise ProcessError("cannot be run: external programs need a POSIX system")
        self.argv = list(argv)
        self.log_path = log_path
        with open(log_path, "ab") as log:
            try:
                self._popen = subprocess.Popen(
                    self.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    cwd=cwd,
                    start_new_session=True,
                    close_fds=True,
                    bufsize=0,
                )
            except OSError as error:
                raise ProcessError(f"could not be started: {error.strerror or error}") from None
        _live.add(self)
        self.pid = self._popen.pid
        assert self._popen.stdin is not None and self._popen.stdout is not None
        self._stdin = self._popen.stdin
        self._stdout = self._popen.stdout
        os.set_blocking(self._stdin.fileno(), False)
        os.set_blocking(self._stdout.fileno(), False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout, selectors.EVENT_READ)
        self._buffer = bytearray()
        self._eof = False
        self.returncode: int | None = None

    @property
    def running(self) -> bool:
        """Whether the program has been started and not yet stopped by :meth:`stop`/:meth:`kill`."""
        return self in _live

    # --- talking ----------------------------------------------------------------------------------

    def send(self, line: str, deadline: float) -> None:
        """Write ``line`` and a newline; wait for room in the pipe until ``deadline`` at most.

        Raises:
            ProcessEnded: the program no longer reads its input.
            ProcessTimeout: the pipe stayed full (the program does not read) until ``deadline``.
        """
        data = memoryview((line + "\n").encode("utf-8"))
        with selectors.DefaultSelector() as writable:
            writable.register(self._stdin, selectors.EVENT_WRITE)
            while data:
                try:
                    written = os.write(self._stdin.fileno(), data)
                except BlockingIOError:
                    written = 0
                except (BrokenPipeError, ValueError, OSError):
                    raise ProcessEnded("stopped reading its input") from None
                data = data[written:]
                if data:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0 or not writable.select(remaining):
                        raise ProcessTimeout("did not read its input")

    def read_line(self, deadline: float) -> str:
        """The next line the program writes (without the line end), waiting until ``deadline``.

        Bytes that are not UTF-8 are replaced (and so show up in messages). A last line without a
        newline before the end of the output counts as a line.

        Raises:
            ProcessTimeout: no whole line came before ``deadline``.
            ProcessEnded: the output ended (the program exited or closed it).
            ProcessError: the program wrote a line longer than :data:`MAX_LINE` bytes.
        """
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if self._eof:
                raise ProcessEnded("closed its output")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ProcessTimeout("did not answer in time")
            if self._selector.select(remaining):
                self._fill()

    def ready_lines(self) -> list[str]:
        """The whole lines the program has written so far and not yet read (never waits)."""
        while not self._eof and self._selector.select(0):
            if not self._fill():
                break
        lines = []
        while (line := self._take_line()) is not None:
            lines.append(line)
        return lines

    @property
    def output_ended(self) -> bool:
        """Whether the program's output has ended (known only after a read found it)."""
        return self._eof and not self._buffer

    def _fill(self) -> bool:
        """Read what the pipe holds into the buffer; ``False`` when nothing came (or at its end)."""
        try:
            data = os.read(self._stdout.fileno(), MAX_LINE)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self._eof = True
            return False
        self._buffer += data
        return True

    def _take_line(self) -> str | None:
        end = self._buffer.find(b"\n")
        if end < 0:
            if len(self._buffer) > MAX_LINE:
                raise ProcessError(f"wrote a line longer than {MAX_LINE} bytes")
            if not (self._eof and self._buffer):
                return None
            end = len(self._buffer)  # the last line, cut off by the end of the output
        raw = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return raw.decode("utf-8", errors="replace").rstrip("\r")

    # --- ending -----------------------------------------------------------------------------------

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the program to exit; then kill what is left of its
        process group and reap it. Returns the exit status, ``None`` if it had to be killed."""
        exited = self._wait_exit(time.monotonic() + timeout)
        self.kill()
        return self.returncode if exited else None

    def stop(self, farewell: str | None = None, grace: float = 1.0) -> int | None:
        """End the program politely: send ``farewell`` (e.g. ``"quit"``), close its input, give it
        ``grace`` seconds to exit, then kill its process group and reap it (always, even on
        Ctrl-C). Returns the exit status, or ``None`` if it had to be killed."""
        if not self.running:
            return self.returncode
        exited = False
        try:
            deadline = time.monotonic() + grace
            if farewell is not None:
                with contextlib.suppress(ProcessError):
                    self.send(farewell, deadline)
            with contextlib.suppress(OSError):
                self._stdin.close()
            exited = self._wait_exit(deadline)
        finally:
            self.kill()
        return self.returncode if exited else None

    def kill(self) -> None:
        """Kill the program and every process in its group at once, reap it, close the pipes."""
        if not self.running:
            return
        try:
            # The group is killed before the leader is reaped: until then its id cannot be reused.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            self.returncode = self._popen.wait()
        finally:
            _live.discard(self)
            self._selector.close()
            for pipe in (self._stdin, self._stdout):
                with contextlib.suppress(OSError):
                    pipe.close()

    def _wait_exit(self, deadline: float) -> bool:
        """Whether the program exited by ``deadline`` (it is not reaped, so its pid stays ours)."""
        while True:
            if self._exited():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(_POLL, remaining))

    def _exited(self) -> bool:
        if hasattr(os, "waitid"):
            flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
            try:
                return os.waitid(os.P_PID, self.pid, flags) is not None
            except ChildProcessError:
                return True
        return self._popen.poll() is not None

    def __repr__(self) -> str:
        state = "running" if self.running else f"ended ({self.returncode})"
        return f"<Process {self.pid} {self.argv[0]!r} {state}>"
