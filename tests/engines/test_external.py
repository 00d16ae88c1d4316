"""What every program player shares (`abstractgames.engines.external`): the command spec and
its times, failures as forfeits with their reasons, the logs, a program stopped and reaped however
the match ends, and text from a program escaped and bounded."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from abstractgames import get_game, make_player
from abstractgames.engines.agp import EnginePlayer
from abstractgames.engines.external import ExternalPlayer
from abstractgames.interrupts import termination_as_interrupt
from abstractgames.players import InvalidPlayerError
from abstractgames.records import ClockSettings, MatchRecord
from abstractgames.referee import Referee
from tests.conftest import (
    Interrupting,
    assert_reaped,
    bad_engine,
    command,
    hostile_engine,
    is_safe,
    killed_afterwards,
    pids,
    wait_for_file,
    wait_gone,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="external programs need POSIX")


# --- misbehaving engines --------------------------------------------------------------------------

FAILURES = [
    ("crash", 1, r"^player 2 exited with status 1; its error output is in .*\.log$"),
    ("crash", 3, r"^player 2 exited with status 1; its error output is in .*\.log$"),
    ("sleep", 2, r"^player 2 did not answer within 1\.0 s$"),
    ("spawn", 1, r"^player 2 did not answer within 1\.0 s$"),
    ("garbage", 2, r'^player 2 sent "hello world" where "move \.\.\." was expected$'),
    ("illegal", 2, r'^illegal move "[XO]@\w\d" by player 2: .* is occupied$'),
    ("extra", 1, r'^player 2 sent "move O@f6" when no answer was expected$'),
    ("exit", 2, r"^player 2 exited with status 0$"),
]


@pytest.mark.parametrize(
    ("mode", "at", "reason"),
    # a program that hangs loses at its timeout, a second later
    [
        pytest.param(*case, marks=pytest.mark.slow) if case[0] in ("sleep", "spawn") else case
        for case in FAILURES
    ],
    ids=[f"{mode}-at-{at}" for mode, at, _ in FAILURES],
)
def test_a_misbehaving_engine_loses_the_match(
    mode: str, at: int, reason: str, tmp_path: Path
) -> None:
    game = get_game("orderchaos")
    pidfile = tmp_path / "pids"
    engine = make_player(bad_engine(mode, at, pidfile), game)
    assert isinstance(engine, ExternalPlayer)
    started = time.monotonic()
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    elapsed = time.monotonic() - started
    assert record.result is not None and record.result.winner == 1
    assert re.match(reason, record.result.reason), record.result.reason
    assert record.games[-1].ended_by is not None
    assert record.games[-1].ended_by.event == "forfeit"
    assert elapsed < 1.0 + 3.0  # the timeout, plus room for a busy machine
    pids = [int(p) for p in pidfile.read_text().split()]
    assert_reaped(pids[0])
    assert all(wait_gone(pid) for pid in pids[1:])  # 'spawn': the child it started is killed too
    assert MatchRecord.loads(record.dumps()).replay()[0].result() == record.result
    if mode == "crash":
        log = Path(record.result.reason.rpartition(" is in ")[2])
        assert log.parent == tmp_path / "logs"
        assert "ValueError: oops" in log.read_text()


def test_an_engine_writing_to_stderr_plays_on_and_its_log_is_kept(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    engine = make_player(bad_engine("stderr", 1, tmp_path / "pids", timeout=5), game)
    assert isinstance(engine, ExternalPlayer)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.result is not None and record.result.reason == "five in a row"
    assert record.games[0].ended_by is None
    (log,) = engine.logs
    assert log.parent == tmp_path / "logs"
    assert "thinking about move 1: blah" in log.read_text()


@pytest.mark.slow
def test_an_engine_that_ignores_quit_is_killed(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    pidfile = tmp_path / "pids"
    engine = make_player(bad_engine("noquit", 1, pidfile), game)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.result is not None and record.result.reason == "five in a row"
    assert_reaped(int(pidfile.read_text().split()[0]))


def test_a_program_that_cannot_start(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    script = tmp_path / "bot"
    script.write_text("#!/nonexistent/interpreter\n")
    script.chmod(0o755)
    record = Referee(game, (make_player("random", game), make_player(f"engine:{script}", game)))
    result = record.play().result
    assert result is not None and result.winner == 1
    assert result.reason.startswith("player 2 could not be started: ")


def test_interrupting_the_referee_stops_the_engine(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    pidfile = tmp_path / "pids"
    engine = make_player(bad_engine("good", 1, pidfile), game)
    record = Referee(game, (Interrupting(), engine), seed=1).play()
    assert not record.finished
    assert_reaped(int(pidfile.read_text().split()[0]))


# --- player specs ---------------------------------------------------------------------------------


def test_engine_specs() -> None:
    game = get_game("orderchaos")
    python = sys.executable
    player = make_player(f"engine:timeout=2.5,grace=0:{python} -c 'print(1)'", game)
    assert isinstance(player, EnginePlayer)
    assert player.argv == [python, "-c", "print(1)"]
    assert (player.timeout, player.grace) == (2.5, 0.0)
    assert player.spec == f"engine:timeout=2.5,grace=0:{python} -c 'print(1)'"
    raw = make_player(f"engine::{python} x=1:y", game)
    assert isinstance(raw, EnginePlayer) and raw.argv == [python, "x=1:y"]
    upper = make_player(f"ENGINE:{python}", game)
    assert isinstance(upper, EnginePlayer) and upper.argv == [python]
    for spec, message in [
        ("engine", "give the command to run"),
        ("engine:", "give the command to run"),
        ("engine:timeout=3:", "give the command to run"),
        ("engine:/no/such/bot --fast", "cannot run '/no/such/bot': no such program"),
        ("engine:no-such-bot-anywhere", "no such program"),
        (f"engine:'{python}", "cannot read the engine command"),
        (f"engine:speed=3:{python}", "engine has no option 'speed'"),
        (f"engine:timeout=0:{python}", "timeout=0 must be a positive number"),
        (f"engine:grace=-1:{python}", "grace=-1 must be a non-negative number"),
        (f"engine:timeout=abc:{python}", "timeout=abc must be a positive number"),
    ]:
        with pytest.raises(InvalidPlayerError, match=message):
            make_player(spec, game)


# --- a signal while a program thinks --------------------------------------------------------------


@pytest.mark.slow
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
        wait_for_file(tmp_path / "thinking")
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


# --- deadlines beyond what the OS accepts, and out of range ---------------------------------------

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


# --- text from programs ---------------------------------------------------------------------------

HOSTILE_CASES = [
    ("hostile-error", r"player 2 reported an error: \x1b]0;pwned\x07\x1b[2JAAA"),
    ("hostile-refusal", r"player 2 does not play orderchaos: \x1b]0;pwned\x07\x1b[2JAAA"),
    ("hostile-line", r'player 2 sent "\x1b]0;pwned\x07\x1b[2JAAA'),
    ("hostile-move", r'illegal move "\x1b]0;pwned\x07\x1b[2JAAA'),
]


@pytest.mark.parametrize(
    ("mode", "start"),
    # hostile-error floods 10 MB of lines after its error
    [
        pytest.param(*case, marks=pytest.mark.slow) if case[0] == "hostile-error" else case
        for case in HOSTILE_CASES
    ],
    ids=[m for m, _ in HOSTILE_CASES],
)
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
