"""Stopping a run cleanly: SIGTERM and SIGHUP (`kill`, `timeout`, a closed terminal window)
stop it the way Ctrl-C does.

Inside [`termination_as_interrupt`][], the first SIGINT, SIGTERM or SIGHUP raises an exception
where the program is, as Ctrl-C raises `KeyboardInterrupt`: [`Terminated`][] (a
`KeyboardInterrupt`) for SIGTERM and SIGHUP, so every `except KeyboardInterrupt` that saves a
game, kills a program or keeps a tournament's results does it for them too. Signals that arrive
while that clean-up runs are remembered, not raised, so they cannot cut it short. The exit status
of a run stopped so is the shell's convention, 128 + the signal number ([`exit_status`][]).

Python runs a handler between any two bytecodes, in a weakref callback or a `__del__` too (an
import's module locks have such callbacks), where what it raises is dropped; the block keeps
Python from printing it, and a loop that waits (the terminal's prompt, the arena's workers)
asks [`pending_interrupt`][] now and then and raises it again.

Before that, while Python imports the command line, [`quiet_start`][] makes the same signals end
the run at once with that status and no traceback: nothing has begun that needs stopping.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = [
    "EXIT_INTERRUPTED",
    "STOP_SIGNALS",
    "Terminated",
    "exit_status",
    "is_command_line",
    "pending_interrupt",
    "quiet_start",
    "termination_as_interrupt",
]

EXIT_INTERRUPTED = 128 + signal.SIGINT
"""The exit status after Ctrl-C (130)."""

STOP_SIGNALS: tuple[int, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that stop a program as Ctrl-C does (those of SIGINT, SIGTERM and SIGHUP that the
platform has)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program was (see
    [the module][abstractgames.interrupts])."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        """The signal's number."""

    def __str__(self) -> str:
        return f"stopped by {signal.Signals(self.signum).name}"


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """The conventional exit status after `interrupt`: 128 + the signal number."""
    if isinstance(interrupt, Terminated):
        return 128 + interrupt.signum
    return EXIT_INTERRUPTED


@contextmanager
def termination_as_interrupt() -> Iterator[list[int]]:
    """Within the block, the first SIGINT/SIGTERM/SIGHUP raises; later ones are only recorded.

    Yields the list of the signals received, in order. Once one was received, the signals are
    ignored after the block, so the run ends with the status it chose. Outside
    the main thread, or where a signal does not exist, nothing changes.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def handle(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        if len(received) == 1:
            raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(signum)

    def unraisable(unraisable: Any) -> None:
        if received and isinstance(unraisable.exc_value, KeyboardInterrupt):
            return  # raised by `handle` where Python drops it; `pending_interrupt` keeps it
        previous_hook(unraisable)

    previous = {signum: signal.signal(signum, handle) for signum in STOP_SIGNALS}
    previous_hook, sys.unraisablehook = sys.unraisablehook, unraisable
    _open_blocks.append(received)
    try:
        yield received
    finally:
        if sys.unraisablehook is unraisable:
            sys.unraisablehook = previous_hook
        del _open_blocks[next(i for i, b in enumerate(_open_blocks) if b is received)]
        if received:  # stopping already: a late signal must not change how the run ends
            for signum in STOP_SIGNALS:
                # Ignored, not handled: Python resets its handlers to the default as it exits,
                # and a signal then would kill the process rather than let it exit as it chose.
                signal.signal(signum, signal.SIG_IGN)
        else:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


_open_blocks: list[list[int]] = []
"""The signals received by each [`termination_as_interrupt`][] block open now, innermost last."""


def pending_interrupt() -> KeyboardInterrupt | None:
    """The interrupt of the first stop signal the innermost open [`termination_as_interrupt`][]
    block received, if it received one: a loop still running after it lost what the handler
    raised (see [the module][abstractgames.interrupts]) and should raise this."""
    if not _open_blocks or not _open_blocks[-1]:
        return None
    signum = _open_blocks[-1][0]
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def is_command_line(argv: Sequence[str] | None = None, main_file: str | None = None) -> bool:
    """Whether this process is the command line: the `abstractgames` script, or `python -m
    abstractgames` (not its `worker`). `argv` is the interpreter's own command line
    (`sys.orig_argv`) and `main_file` the file of `__main__`, by default this process's."""
    if argv is None:
        argv = getattr(sys, "orig_argv", [])
    if main_file is None:
        main_file = getattr(sys.modules.get("__main__"), "__file__", None) or ""
    name = main_file.replace("\\", "/").rpartition("/")[2]
    if name in ("abstractgames", "abstractgames.exe", "abstractgames-script.py"):
        return True
    words = list(argv)
    for index, word in enumerate(words[:-1]):
        if word == "-m":
            return words[index + 1] == "abstractgames" and words[index + 2 : index + 3] != [
                "worker"
            ]
    return False


def quiet_start() -> None:
    """Until a command handles them ([`termination_as_interrupt`][]), SIGINT, SIGTERM and
    SIGHUP end this process at once: `SystemExit` with the status of [`exit_status`][], so no
    traceback of the import it cut short. For the command line's start only (the package
    calls it first thing when [`is_command_line`][]); a handler someone else set is kept."""
    if threading.current_thread() is not threading.main_thread():
        return
    defaults = (signal.default_int_handler, signal.SIG_DFL, None)
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) in defaults:
            signal.signal(signum, _exit_quietly)


def _exit_quietly(signum: int, frame: FrameType | None) -> None:
    for each in STOP_SIGNALS:  # a second signal must not cut the exit short
        signal.signal(each, signal.SIG_IGN)
    raise SystemExit(128 + signum)
