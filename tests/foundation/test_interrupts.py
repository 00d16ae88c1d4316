"""SIGTERM and SIGHUP as Ctrl-C (`abstractgames.interrupts`): inside the block, during its
clean-up and after it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals and /proc need POSIX")


def test_signals_inside_and_after_the_block(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import os, signal, sys
        from abstractgames.interrupts import Terminated, exit_status, termination_as_interrupt

        with termination_as_interrupt() as received:
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                signal.pause()  # never reached: the signal raises at once
            except Terminated as stop:
                os.kill(os.getpid(), signal.SIGHUP)  # during clean-up: recorded only
                status = exit_status(stop)
        os.kill(os.getpid(), signal.SIGTERM)  # after the block: ignored
        print(received)
        sys.exit(status)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stdout.strip() == str([int(signal.SIGTERM), int(signal.SIGHUP)])


def test_the_command_line_is_known_by_its_script_or_its_module() -> None:
    from abstractgames.interrupts import is_command_line

    assert is_command_line([], "/usr/local/bin/abstractgames")
    assert is_command_line(["python", "-m", "abstractgames", "play"], "<run_path>")
    assert is_command_line(["python", "-X", "importtime", "-m", "abstractgames"], "")
    assert not is_command_line(["python", "-m", "abstractgames", "worker", "[]", "x"], "")
    assert not is_command_line(["python", "-m", "pytest"], "/usr/bin/pytest")
    assert not is_command_line(["python", "-c", "import abstractgames"], "")


def test_the_pending_interrupt_is_the_innermost_open_blocks() -> None:
    from abstractgames.interrupts import Terminated, pending_interrupt, termination_as_interrupt

    assert pending_interrupt() is None
    with termination_as_interrupt() as outer:
        with termination_as_interrupt():
            pass  # closed with nothing received: the outer block is the open one again
        assert pending_interrupt() is None
        outer.append(signal.SIGTERM)  # what the handler records before it raises
        interrupt = pending_interrupt()
        assert isinstance(interrupt, Terminated) and interrupt.signum == signal.SIGTERM
        outer.clear()
    assert pending_interrupt() is None


def test_an_interrupt_python_drops_is_kept_pending_and_not_printed() -> None:
    # A signal handled inside a weakref callback (as importlib's module locks have) raises
    # where Python prints the exception and drops it.
    script = textwrap.dedent(
        """
        import os, signal, weakref
        from abstractgames.interrupts import pending_interrupt, termination_as_interrupt

        class Thing:
            pass

        def callback(ref):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # the handler runs here, in the callback
                pass

        with termination_as_interrupt():
            thing = Thing()
            ref = weakref.ref(thing, callback)
            del thing
            print(type(pending_interrupt()).__name__)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "KeyboardInterrupt\n"
    assert done.stderr == ""
