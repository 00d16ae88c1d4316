"""External programs under hostile conditions: a referee killed outright, helpers that leave the
process group, deadlines beyond what the OS accepts, and text that would drive the terminal."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from abstractgames import get_game, make_player
from abstractgames.engines.agp import EnginePlayer, format_go
from abstractgames.engines.external import ExternalPlayer
from abstractgames.engines.process import Process
from abstractgames.interrupts import termination_as_interrupt
from abstractgames.players import InvalidPlayerError
from abstractgames.records import ClockSettings, MatchRecord
from abstractgames.referee import Referee

from .conftest import BAD_ENGINE, assert_reaped, command, is_gone, wait_gone

pytestmark = pytest.mark.skipif(os.name != "posix", reason="external programs need POSIX")
linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and /proc are Linux's"
)


def hostile_engine(mode: str, tmp_path: Path, *, at: int = 1, options: str = "timeout=5") -> str:
    """The spec of the misbehaving engine (see tests/engines/bad_engine.py), telling when it
    thinks; its pids go to ``tmp_path / "pids"``."""
    args = ["--mode", mode, "--at", at, "--pidfile", tmp_path / "pids"]
    args += ["--thinking", tmp_path / "thinking"]
    logs = f"log={tmp_path / 'logs'}"
    return f"engine:{options},{logs}:" + command(sys.executable, BAD_ENGINE, *args)


def pids(tmp_path: Path) -> list[int]:
    return [int(line) for line in (tmp_path / "pids").read_text().split()]


def wait_for(path: Path, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


@contextlib.contextmanager
def killed_afterwards(tmp_path: Path) -> Iterator[None]:
    """Whatever the test, no process named in the pid file outlives it."""
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            for pid in pids(tmp_path):
                if not is_gone(pid):
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)


def is_safe(text: str) -> bool:
    return text.isprintable() and "\x1b" not in text


# --- item 1: the program dies with the referee ------------------------------------------------

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
            wait_for(tmp_path / "thinking")
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


@pytest.mark.parametrize("kind", ["engine", "codecup"])
def test_sigterm_while_a_program_thinks_kills_and_reaps_it(kind: str, tmp_path: Path) -> None:
    """``Terminated`` raised in the middle of ``choose`` goes through the player and the referee,
    and the program and the child in its group are gone when ``play`` returns."""
    if kind == "engine":
        game = get_game("orderchaos")
        spec = hostile_engine("spawn", tmp_path, options="timeout=60")
    else:
        game = get_game("entropy")
        spec = "codecup:timeout=60:" + command(sys.executable, "-c", HANGING_CODECUP, tmp_path)
    engine = make_player(spec, game)

    def terminate() -> None:
        wait_for(tmp_path / "thinking")
        time.sleep(0.1)
        os.kill(os.getpid(), signal.SIGTERM)

    sender = threading.Thread(target=terminate)
    with killed_afterwards(tmp_path):
        sender.start()
        with termination_as_interrupt() as received:
            record = Referee(game, (make_player("random", game), engine), seed=1).play()
        sender.join()
        assert received == [signal.SIGTERM]
        assert not record.finished
        leader, child = pids(tmp_path)
        assert_reaped(leader)
        assert wait_gone(child)


HANGING_CODECUP = """
import os, subprocess, sys, time
from pathlib import Path
folder = Path(sys.argv[1])
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
(folder / "pids").write_text(f"{os.getpid()}\\n{child.pid}\\n")
sys.stdin.readline()
(folder / "thinking").touch()
time.sleep(600)
"""


# --- item 2: helpers in a new session -------------------------------------------------------------


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


# --- item 9: deadlines beyond what the OS accepts, and out of range -------------------------------

DAY = 86_400.0


@pytest.mark.parametrize(
    ("clock", "options"),
    [
        (ClockSettings(30 * DAY), "grace=2"),
        (ClockSettings(365 * DAY), "grace=1000000000"),
        (None, "timeout=3000000"),
    ],
    ids=["30-day-clock", "1-year-clock", "timeout-35-days"],
)
def test_long_deadlines_play_to_the_end(
    clock: ClockSettings | None, options: str, tmp_path: Path
) -> None:
    game = get_game("orderchaos")
    engine = make_player(hostile_engine("good", tmp_path, options=options), game)
    record = Referee(game, (make_player("random", game), engine), seed=5, clock=clock).play()
    assert record.finished and record.result is not None
    assert record.games[0].ended_by is None, record.result.reason
    assert_reaped(pids(tmp_path)[0])


def test_a_process_waits_beyond_what_epoll_accepts(tmp_path: Path) -> None:
    echo = "import sys\nfor line in sys.stdin: print(line.strip(), flush=True)"
    process = Process([sys.executable, "-c", echo], log_path=tmp_path / "log")
    year = time.monotonic() + 365 * DAY
    process.send("hello", year)
    assert process.read_line(year) == "hello"
    assert process.stop(grace=5) == 0


def test_go_tells_times_within_the_range() -> None:
    assert format_go(1e300, math.inf, None) == "go time 1000000000 timeout 1000000000"
    assert format_go(math.nan, 5, None) == "go time 0 timeout 5"


OUT_OF_RANGE = [
    "timeout=nan",
    "timeout=inf",
    "timeout=-inf",
    "timeout=1e400",
    "timeout=1e10",
    "timeout=-1",
    "timeout=0",
    "timeout=" + "9" * 10_000,
    "grace=nan",
    "grace=inf",
    "grace=1e400",
    "grace=2e9",
    "grace=-0.5",
]


@pytest.mark.parametrize("option", OUT_OF_RANGE, ids=[o[:20] for o in OUT_OF_RANGE])
def test_timeout_and_grace_out_of_range_are_refused(option: str) -> None:
    game = get_game("orderchaos")
    with pytest.raises(InvalidPlayerError) as caught:
        make_player(f"engine:{option}:{sys.executable}", game)
    message = str(caught.value)
    assert "number of seconds, at most 1000000000" in message
    assert len(message) < 200 and is_safe(message)


def test_the_constructor_checks_its_times_too() -> None:
    game = get_game("orderchaos")
    for keywords in ({"timeout": math.nan}, {"timeout": 1e12}, {"grace": math.inf}):
        with pytest.raises(InvalidPlayerError, match="at most 1000000000"):
            EnginePlayer(game, [sys.executable], **keywords)


# --- items 11 and 12: text from programs ----------------------------------------------------------

HOSTILE_CASES = [
    ("hostile-error", r"player 2 reported an error: \x1b]0;pwned\x07\x1b[2JAAA"),
    ("hostile-refusal", r"player 2 does not play orderchaos: \x1b]0;pwned\x07\x1b[2JAAA"),
    ("hostile-line", r'player 2 sent "\x1b]0;pwned\x07\x1b[2JAAA'),
    ("hostile-move", r'illegal move "\x1b]0;pwned\x07\x1b[2JAAA'),
]


@pytest.mark.parametrize(("mode", "start"), HOSTILE_CASES, ids=[m for m, _ in HOSTILE_CASES])
def test_program_text_is_escaped_and_bounded(mode: str, start: str, tmp_path: Path) -> None:
    game = get_game("orderchaos")
    engine = make_player(hostile_engine(mode, tmp_path), game)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.result is not None and record.result.winner == 1
    reason = record.result.reason
    assert reason.startswith(start), reason
    assert is_safe(reason) and len(reason) <= 500
    saved = record.dumps()
    assert len(saved) < 10_000
    assert json.loads(saved)["games"][-1]["ended_by"]["reason"] == reason
    assert MatchRecord.loads(saved).replay()[0].result() == record.result
    assert_reaped(pids(tmp_path)[0])


def test_the_engine_name_is_escaped_and_bounded(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    engine = make_player(hostile_engine("hostile-name", tmp_path), game)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.finished
    assert isinstance(engine, EnginePlayer) and engine.engine_name is not None
    assert engine.engine_name.startswith(r"\x1b]0;pwned\x07")
    assert is_safe(engine.engine_name) and len(engine.engine_name) <= 100


HOSTILE_CODECUP = """
import sys
sys.stdin.readline()
print("\\x1b]0;pwned\\x07\\x1b[2J" + "A" * 60000, flush=True)
sys.stdin.readline()
"""


def test_a_codecup_programs_move_is_escaped_and_bounded(tmp_path: Path) -> None:
    game = get_game("entropy")
    program = make_player("codecup:" + command(sys.executable, "-c", HOSTILE_CODECUP), game)
    assert isinstance(program, ExternalPlayer)
    record = Referee(game, (program, make_player("random", game)), seed=1).play()
    assert record.result is not None and record.result.winner == 2
    reason = record.result.reason
    assert reason.startswith(r'illegal move "\x1b]0;pwned\x07\x1b[2JAAA'), reason
    assert is_safe(reason) and len(reason) <= 500
