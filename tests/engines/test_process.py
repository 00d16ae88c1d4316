"""A program on pipes (`abstractgames.engines.process`): lines read with deadlines, a flood
without newlines, waits longer than the OS accepts, the program killed with the referee (even by
SIGKILL) and its helpers that left its session found and killed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from abstractgames import get_game, make_player
from abstractgames.engines.process import Process, ProcessEnded, ProcessError, ProcessTimeout
from abstractgames.referee import Referee
from tests.conftest import (
    assert_reaped,
    hostile_engine,
    killed_afterwards,
    pids,
    wait_for_file,
    wait_gone,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="external programs need POSIX")


# --- the process layer ----------------------------------------------------------------------------


def python_process(code: str, tmp_path: Path) -> Process:
    return Process([sys.executable, "-c", code], log_path=tmp_path / "log")


def test_lines_partial_broken_and_not_utf8(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "out = sys.stdout.buffer\n"
        "out.write(b'one\\r\\ntw'); out.flush(); time.sleep(0.2)\n"
        "out.write(b'o\\n\\xff\\xfe bad\\nlast'); out.flush()\n"
    )
    process = python_process(code, tmp_path)
    deadline = time.monotonic() + 10
    assert process.read_line(deadline) == "one"
    assert process.read_line(deadline) == "two"
    assert process.read_line(deadline) == "\ufffd\ufffd bad"
    assert process.read_line(deadline) == "last"
    with pytest.raises(ProcessEnded):
        process.read_line(deadline)
    assert process.wait(5) == 0
    assert not process.running


def test_reading_and_writing_have_deadlines(tmp_path: Path) -> None:
    process = python_process("import time; time.sleep(60)", tmp_path)
    started = time.monotonic()
    with pytest.raises(ProcessTimeout):
        process.read_line(time.monotonic() + 0.3)
    with pytest.raises(ProcessTimeout):  # it never reads: the pipe fills up
        process.send("x" * 1_000_000, time.monotonic() + 0.3)
    assert time.monotonic() - started < 3
    assert process.stop("quit", grace=0.2) is None  # killed
    assert_reaped(process.pid)


def test_a_flood_without_newlines_is_an_error(tmp_path: Path) -> None:
    process = python_process(
        "import sys; sys.stdout.write('x' * 200000); sys.stdout.flush()", tmp_path
    )
    with pytest.raises(ProcessError, match="longer than"):
        process.read_line(time.monotonic() + 10)
    process.kill()
    assert_reaped(process.pid)


linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's"
)


# --- the program dies with the referee ------------------------------------------------------------

REFEREE = """
import sys, threading
from abstractgames import get_game, make_player
from abstractgames.referee import Referee
game = get_game("orderchaos")
players = (make_player("random", game), make_player(sys.argv[1], game))
play = lambda: Referee(game, players, seed=1).play()
if sys.argv[2] == "thread":
    thread = threading.Thread(target=play)
    thread.start()
    thread.join()
else:
    play()
"""


@linux_only
@pytest.mark.parametrize("where", ["main", "thread"])
def test_the_engine_dies_when_the_referee_is_killed_with_sigkill(
    where: str, tmp_path: Path
) -> None:
    spec = hostile_engine("sleep", tmp_path, options="timeout=60")
    referee = subprocess.Popen([sys.executable, "-c", REFEREE, spec, where])
    with killed_afterwards(tmp_path):
        try:
            wait_for_file(tmp_path / "thinking")
        finally:
            referee.kill()
            referee.wait()
        (engine,) = pids(tmp_path)
        assert wait_gone(engine)


def test_a_program_started_in_a_thread_that_ends_lives_on(tmp_path: Path) -> None:
    """The death signal follows the thread that forked: ours fork in one that lives on."""
    started: list[Process] = []
    echo = "import sys\nfor line in sys.stdin: print(line.strip(), flush=True)"
    thread = threading.Thread(
        target=lambda: started.append(
            Process([sys.executable, "-c", echo], log_path=tmp_path / "log")
        )
    )
    thread.start()
    thread.join()
    (process,) = started
    time.sleep(0.2)
    process.send("still here", time.monotonic() + 10)
    assert process.read_line(time.monotonic() + 10) == "still here"
    assert process.stop(grace=5) == 0
    assert_reaped(process.pid)


# --- helpers in a new session ---------------------------------------------------------------------


@linux_only
@pytest.mark.parametrize("mode", ["daemon", "detach"])
def test_a_helper_in_a_new_session_is_killed_at_the_end_of_the_match(
    mode: str, tmp_path: Path
) -> None:
    """``daemon``: a double fork, gone to init at once, found by its mark in the environment;
    ``detach``: an empty environment, found as the program's child."""
    game = get_game("orderchaos")
    with killed_afterwards(tmp_path):
        engine = make_player(hostile_engine(mode, tmp_path), game)
        record = Referee(game, (make_player("random", game), engine), seed=5).play()
        assert record.finished and record.games[0].ended_by is None
        leader, helper = pids(tmp_path)
        assert_reaped(leader)
        assert wait_gone(helper)


# --- deadlines beyond what the OS accepts ---------------------------------------------------------

DAY = 86_400.0


def test_a_process_waits_beyond_what_epoll_accepts(tmp_path: Path) -> None:
    echo = "import sys\nfor line in sys.stdin: print(line.strip(), flush=True)"
    process = Process([sys.executable, "-c", echo], log_path=tmp_path / "log")
    year = time.monotonic() + 365 * DAY
    process.send("hello", year)
    assert process.read_line(year) == "hello"
    assert process.stop(grace=5) == 0
