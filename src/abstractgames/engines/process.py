"""A program on pipes: started in its own session, read line by line with deadlines, killed whole.

[`Process`][] is the only place that touches the operating system for external programs. It
never blocks without a deadline: reads and writes go through a selector on non-blocking pipes, so a
program that hangs, floods its output or stops reading its input costs at most the time allowed
(each wait is capped and repeated, so a deadline may lie years ahead). The program runs in a new
session (its own process group), so [`Process.stop`][] can kill it together with everything it
started, and it is always waited for, so it leaves no zombie. Its standard error goes straight to a
log file. Programs still running when the interpreter exits are killed too.

On Linux, two more guards:

- the program dies with the referee, even when the referee is killed with SIGKILL: the child sets
  `PR_SET_PDEATHSIG` before exec;
- helpers that left the program's process group (`setsid`) are found and killed with it: every
  process that still carries the program's mark in its environment (the variable
  [`MARK_VARIABLE`][], inherited by whatever it starts), and every process seen descending from
  the program, by walking `/proc`.

POSIX only (Linux, macOS, the BSDs); elsewhere than Linux the process group alone is killed.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import queue
import secrets
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import NamedTuple

__all__ = [
    "MARK_VARIABLE",
    "MAX_LINE",
    "Process",
    "ProcessEnded",
    "ProcessError",
    "ProcessTimeout",
    "describe_status",
]

MAX_LINE = 1 << 16
"""The longest line (in bytes) a program may write; a longer one is a protocol error."""

MARK_VARIABLE = "ABSTRACTGAMES_PROGRAM"
"""The environment variable that marks a program and everything it starts: a space-separated list
of tokens, one for each program of ours it descends from (a referee in a program adds its own)."""

_POLL = 0.005  # seconds between checks while waiting for a program to exit
_MAX_WAIT = 3600.0  # the longest single wait; epoll refuses more than 2**31 ms (24.8 days)
_RESCAN = 0.5  # seconds between two walks of /proc while a program runs
_SWEEPS = 10  # rounds of killing marked processes, for a program that keeps starting more


class ProcessError(Exception):
    """The program cannot be talked to any more (the message says why, without a subject)."""


class ProcessTimeout(ProcessError):
    """The program did not write a line, or read its input, in time."""


class ProcessEnded(ProcessError):
    """The program closed its output or its input (it exited, most likely)."""


def describe_status(status: int | None) -> str:
    """Words for a return code: `"exited with status 1"`, `"was killed by signal SIGSEGV"`."""
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


# --- dying with the referee (Linux) ---------------------------------------------------------------

_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


_prctl = _load_prctl()
_Job = tuple[Callable[[], "subprocess.Popen[bytes]"], "Future[subprocess.Popen[bytes]]"]
_spawner: tuple[int, queue.SimpleQueue[_Job]] | None = None  # (the process it serves, its jobs)
_spawner_lock = threading.Lock()


def _die_with(parent: int) -> Callable[[], None] | None:
    """What the child runs between fork and exec so that it gets SIGKILL when `parent` dies.

    `preexec_fn` runs Python in the forked child, which is unsafe in a process with threads if
    the code needs a lock another thread held at the fork; this one only calls a C function that
    was looked up beforehand and `getppid`, which take no lock. The parent may die before
    `prctl` runs, and then no signal would come: the child checks that its parent is still
    `parent` after arming the signal, and kills itself if not.
    """
    prctl = _prctl
    if prctl is None:
        return None
    arguments = (_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    kill = int(signal.SIGKILL)

    def arm() -> None:
        prctl(*arguments)
        if os.getppid() != parent:
            os.kill(os.getpid(), kill)

    return arm


def _spawn(start: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """`start()` in a thread that lives as long as the process.

    The death signal is sent when the *thread* that forked the program ends, not the process: a
    program started in a short-lived thread would be killed with it. The main thread lives as long
    as the process; other threads hand the fork to a daemon thread kept for that (a daemon, so
    that it is not stopped at the interpreter's exit before the threads still playing).
    """
    global _spawner
    if _prctl is None or threading.current_thread() is threading.main_thread():
        return start()
    with _spawner_lock:
        if _spawner is None or _spawner[0] != os.getpid():  # none yet, or a fork of the process
            jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
            threading.Thread(
                target=_serve, args=(jobs,), name="abstractgames-spawner", daemon=True
            ).start()
            _spawner = (os.getpid(), jobs)
        future: Future[subprocess.Popen[bytes]] = Future()
        _spawner[1].put((start, future))
    return future.result()


def _serve(jobs: queue.SimpleQueue[_Job]) -> None:
    while True:
        start, future = jobs.get()
        try:
            future.set_result(start())
        except BaseException as error:  # handed to the thread that asked
            future.set_exception(error)


# --- finding what a program started (Linux) -------------------------------------------------------


class _Seen(NamedTuple):
    """A process as `/proc/PID/stat` shows it."""

    state: str
    parent: int
    group: int
    start: int  # the start time, in clock ticks since boot: with the pid, names one process


def _stat(pid: int) -> _Seen | None:
    """What `/proc` says of `pid`; `None` if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    fields = data.rpartition(b")")[2].split()
    try:
        state = fields[0].decode("ascii", "replace")
        return _Seen(state, int(fields[1]), int(fields[2]), int(fields[19]))
    except (IndexError, ValueError):
        return None


def _processes() -> dict[int, _Seen]:
    """Every process this user can see that has not died; empty without `/proc`."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    table = {}
    for name in names:
        if name.isdigit() and (seen := _stat(int(name))) is not None and seen.state not in "ZX":
            table[int(name)] = seen
    return table


def _descendants(roots: Iterable[int], table: dict[int, _Seen]) -> dict[int, int]:
    """Every process of `table` below `roots` by parent ids: pid -> start time."""
    children: dict[int, list[int]] = {}
    for pid, seen in table.items():
        children.setdefault(seen.parent, []).append(pid)
    found: dict[int, int] = {}
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found[child] = table[child].start
                todo.append(child)
    return found


def _is_marked(pid: int, token: bytes) -> bool:
    """Whether the environment `pid` started with holds `token`."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return token in handle.read()
    except OSError:
        return False


def _kill_exact(pid: int, start: int) -> None:
    """SIGKILL `pid` if it is still the process that began at `start` (its id not reused)."""
    handle = None
    if hasattr(os, "pidfd_open"):
        try:
            handle = os.pidfd_open(pid)
        except ProcessLookupError:
            return
        except OSError:
            handle = None
    try:
        seen = _stat(pid)
        if seen is None or seen.start != start:
            return
        with contextlib.suppress(OSError):
            if handle is not None:
                signal.pidfd_send_signal(handle, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
    finally:
        if handle is not None:
            os.close(handle)


# --- the process ----------------------------------------------------------------------------------


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
        self._token = f"{os.getpid()}-{secrets.token_hex(12)}"
        self._known: dict[int, int] = {}  # descendants seen so far: pid -> start time
        self._scanned = time.monotonic()
        self.returncode: int | None = None
        environment = dict(os.environ)
        marks = environment.get(MARK_VARIABLE, "").split()
        environment[MARK_VARIABLE] = " ".join([*marks, self._token])
        with open(log_path, "ab") as log:

            def start() -> subprocess.Popen[bytes]:
                return subprocess.Popen(
                    self.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    cwd=cwd,
                    env=environment,
                    start_new_session=True,
                    close_fds=True,
                    bufsize=0,
                    preexec_fn=_die_with(os.getpid()),
                )

            try:
                self._popen = _spawn(start)
            except OSError as error:
                raise ProcessError(f"could not be started: {error.strerror or error}") from None
        _live.add(self)
        try:
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
        except BaseException:  # Ctrl-C right after the start: no one else could stop it
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._popen.pid, signal.SIGKILL)
            self._popen.wait()
            _live.discard(self)
            raise

    @property
    def running(self) -> bool:
        """Whether the program has been started and not yet stopped by [`stop`][]/[`kill`][]."""
        return self in _live

    # --- talking ----------------------------------------------------------------------------------

    def send(self, line: str, deadline: float) -> None:
        """Write `line` and a newline; wait for room in the pipe until `deadline` at most.

        Raises:
            ProcessEnded: the program no longer reads its input.
            ProcessTimeout: the pipe stayed full (the program does not read) until `deadline`.
        """
        self._track()
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
                    if not remaining > 0:
                        raise ProcessTimeout("did not read its input")
                    writable.select(min(remaining, _MAX_WAIT))

    def read_line(self, deadline: float) -> str:
        """The next line the program writes (without the line end), waiting until `deadline`.

        Bytes that are not UTF-8 are replaced (and so show up in messages). A last line without a
        newline before the end of the output counts as a line.

        Raises:
            ProcessTimeout: no whole line came before `deadline`.
            ProcessEnded: the output ended (the program exited or closed it).
            ProcessError: the program wrote a line longer than [`MAX_LINE`][] bytes.
        """
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if self._eof:
                raise ProcessEnded("closed its output")
            remaining = deadline - time.monotonic()
            if not remaining > 0:
                raise ProcessTimeout("did not answer in time")
            if self._selector.select(min(remaining, _MAX_WAIT)):
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
        """Read what the pipe holds into the buffer; `False` when nothing came (or at its end)."""
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
        """Wait up to `timeout` seconds for the program to exit; then kill what is left of its
        process group and reap it. Returns the exit status, `None` if it had to be killed."""
        exited = self._wait_exit(time.monotonic() + timeout)
        self.kill()
        return self.returncode if exited else None

    def stop(self, farewell: str | None = None, grace: float = 1.0) -> int | None:
        """End the program politely: send `farewell` (e.g. `"quit"`), close its input, give it
        `grace` seconds to exit, then kill its process group and reap it (always, even on
        Ctrl-C). Returns the exit status, or `None` if it had to be killed."""
        if not self.running:
            return self.returncode
        exited = False
        try:
            self._remember(_processes())  # its children, before it exits and leaves them to init
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
        """Kill the program, every process in its group and every helper of it that can be found
        (see [the module][abstractgames.engines.process]), reap it, close the pipes."""
        if not self.running:
            return
        try:
            table = _processes()
            self._remember(table)  # before the group dies: its children still hang from it
            # The group is killed before the leader is reaped: until then its id cannot be reused.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            self._kill_helpers(table)
            self.returncode = self._popen.wait()
            _live.discard(
                self
            )  # not before: cut short by a second Ctrl-C, it is done again at exit
        finally:
            self._selector.close()
            for pipe in (self._stdin, self._stdout):
                with contextlib.suppress(OSError):
                    pipe.close()

    def _track(self) -> None:
        """`_remember`, at most every `_RESCAN` seconds."""
        if time.monotonic() - self._scanned >= _RESCAN:
            self._remember(_processes())

    def _remember(self, table: dict[int, _Seen]) -> None:
        """Remember the processes of `table` descending from the program (or from one seen
        before), so that a helper is known even after its parent exits and it passes to init."""
        self._scanned = time.monotonic()
        known = {
            pid: start
            for pid, start in self._known.items()
            if pid in table and table[pid].start == start
        }
        known.update(_descendants([self.pid, *known], table))
        self._known = known

    def _kill_helpers(self, table: dict[int, _Seen]) -> None:
        """SIGKILL every process of `table` out of the program's group that is a known
        descendant or carries the program's mark; look again until no new one is found."""
        token = self._token.encode()
        done: set[tuple[int, int]] = set()
        for _ in range(_SWEEPS):
            targets = {
                (pid, seen.start)
                for pid, seen in table.items()
                if seen.group != self.pid  # the group itself was killed at once
                and pid != os.getpid()
                and (self._known.get(pid) == seen.start or _is_marked(pid, token))
            } - done
            if not targets:
                return
            for pid, start in targets:
                _kill_exact(pid, start)
            done |= targets
            table = _processes()

    def _wait_exit(self, deadline: float) -> bool:
        """Whether the program exited by `deadline` (it is not reaped, so its pid stays ours)."""
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
