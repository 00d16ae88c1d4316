"""The command line under signals, bad output paths, limits and crashing bots (real processes).

Each test runs ``abstractgames`` in a process of its own, as a user or a supervisor would, and
checks that nothing is lost and nothing is left running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from abstractgames.records import MatchRecord

from .conftest import bad_engine, is_gone, wait_gone

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals and /proc need POSIX")

ABSTRACTGAMES = [sys.executable, "-m", "abstractgames"]


def run(*args: str, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ABSTRACTGAMES, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120
    )


def start(*args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*ABSTRACTGAMES, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )


def wait_for(process: subprocess.Popen[str], text: str, times: int = 1) -> str:
    """Read the process's output until ``text`` was seen ``times`` times."""
    assert process.stdout is not None
    seen = ""
    while seen.count(text) < times:
        char = process.stdout.read(1)
        assert char, f"the process ended before {text!r}: {seen[-300:]!r}"
        seen += char
    return seen


# --- signals --------------------------------------------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_saves_the_game_and_stops_the_engine(tmp_path: Path, signum: int) -> None:
    pidfile, record = tmp_path / "pids", tmp_path / "game.json"
    engine = bad_engine("good", 1, pidfile)
    game = start("play", "orderchaos", "-2", engine, "--record", str(record), "--no-color")
    assert game.stdin is not None
    game.stdin.write("X@a1\n")
    game.stdin.flush()
    wait_for(game, "order (you)>", 2)  # the engine has answered and is still running
    pid = int(pidfile.read_text().split()[0])
    assert not is_gone(pid)
    game.send_signal(signum)
    _, err = game.communicate(timeout=30)
    assert game.returncode == 128 + signum, err
    assert f"game saved to {record}" in err and "Traceback" not in err
    saved = MatchRecord.load(record)
    assert not saved.finished and [m.move for m in saved.games[0].moves][:1] == ["X@a1"]
    assert wait_gone(pid)
    resumed = run("play", "--resume", str(record), "-2", "greedy", stdin="resign\n")
    assert resumed.returncode == 0, resumed.stderr


@pytest.mark.parametrize(
    ("command", "first_line"),
    [(["engine", "orderchaos", "--player", "random"], "agp 1\n"), (["codecup"], "Start\n")],
)
def test_a_signal_stops_a_serving_bot_with_the_signals_status(
    command: list[str], first_line: str
) -> None:
    server = start(*command)
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(first_line)
    server.stdin.flush()
    time.sleep(1.0)  # it has started and waits for the referee's next line
    server.send_signal(signal.SIGTERM)
    _, err = server.communicate(timeout=30)
    assert server.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err


# --- where the results go -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("{tmp}/missing/game.json", "there is no directory"),
        ("", "the file name is empty"),
        ("{tmp}/" + "x" * 300 + ".json", "too long"),
        ("/proc/game.json", "cannot create a file in '/proc'"),
        ("{tmp}", "is a directory"),
    ],
)
def test_an_unwritable_record_fails_before_any_move(
    tmp_path: Path, where: str, message: str
) -> None:
    pidfile = tmp_path / "pids"
    path = where.format(tmp=tmp_path)
    done = run("play", "orderchaos", "-1", "random", "-2", bad_engine("good", 1, pidfile),
               "--record", path)  # fmt: skip
    assert done.returncode == 2, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    assert message in line and "Traceback" not in done.stderr
    assert not pidfile.exists()  # no program was started, no move was played


def test_an_unwritable_working_directory_is_refused_when_no_record_is_given() -> None:
    done = run("play", "orderchaos", "-1", "random", "-2", "random", cwd=Path("/proc"))
    assert done.returncode == 2
    assert "give --record PATH" in done.stderr and "Traceback" not in done.stderr


def test_a_record_that_cannot_be_written_at_the_end_goes_to_a_fallback_file(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    record = folder / "game.json"
    game = start("play", "orderchaos", "-2", "greedy", "--record", str(record), "--no-color")
    assert game.stdin is not None
    wait_for(game, "order (you)>")
    folder.rmdir()  # the folder is gone before the game ends (a disk pulled out, say)
    _, err = game.communicate("resign\n", timeout=60)
    assert game.returncode == 74, err
    assert f"cannot write {record}" in err and "the game is saved to" in err
    fallback = Path(err.split("the game is saved to ")[1].split()[0])
    try:
        assert MatchRecord.load(fallback).finished
    finally:
        fallback.unlink()


# --- bad values -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["play", "orderchaos", "-1", "", "-2", "random"], 1, "unknown player ''"),
        (["play", "orderchaos", "-1", "random", "-2", "search:time=nan"], 1, "time=nan"),
        (["play", "orderchaos", "-1", "random", "-2", "search:time=inf"], 1, "time=inf"),
        (["play", "orderchaos", "-1", "random", "-2", "search:time=1e9"], 1, "at most 86400"),
        (["play", "orderchaos", "-1", "random", "-2", "search:depth=99"], 1, "from 1 to 36"),
        (["engine", "--player", "deepblue"], 1, "unknown player 'deepblue'"),
        (["engine", "--player", "search:speed=3"], 1, "has no option 'speed'"),
        (["solve", "dispersal", "S1OSO/O3S/O3O/1O2S/SSS1O O", "--time", "nan"], 2, "not nan"),
        (["solve", "dispersal", "S1OSO/O3S/O3O/1O2S/SSS1O O", "--time", "inf"], 2, "range"),
    ],
)
def test_bad_values_are_one_clear_line(args: list[str], status: int, message: str) -> None:
    done = run(*args)
    assert done.returncode == status, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    assert message in line and "Traceback" not in done.stderr


# --- a bot that crashes ---------------------------------------------------------------------------


def test_a_crashing_bot_leaves_the_game_on_disk(tmp_path: Path) -> None:
    bot = tmp_path / "fragile.py"
    bot.write_text(
        textwrap.dedent(
            """
            from abstractgames.players import Player


            class Fragile(Player):
                def choose(self, state, rng, time_left=None):
                    if len(state.cells().replace(".", "")) >= 4:
                        raise RuntimeError("out of ideas")
                    return state.legal_moves()[0]
            """
        )
    )
    record = tmp_path / "game.json"
    done = run("play", "orderchaos", "-1", f"{bot}:Fragile", "-2", "random", "--seed", "1",
               "--record", str(record))  # fmt: skip
    assert done.returncode == 1
    assert f"player 1 ({bot}:Fragile) failed: RuntimeError: out of ideas (at fragile.py" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr and f"game saved to {record}" in done.stderr
    saved = MatchRecord.load(record)
    assert not saved.finished and len(saved.games[0].moves) == 4
    resumed = run("play", "--resume", str(record), "-1", "random")
    assert resumed.returncode == 0, resumed.stderr
    assert MatchRecord.load(record).finished


# --- text from outside ----------------------------------------------------------------------------


def test_a_crafted_record_cannot_drive_the_terminal(tmp_path: Path) -> None:
    done = run("play", "orderchaos", "-1", "random", "-2", "random", "--seed", "3",
               "--record", str(tmp_path / "game.json"))  # fmt: skip
    assert done.returncode == 0
    data = json.loads((tmp_path / "game.json").read_text())
    hostile = "\x1b]0;pwned\x07\x1b[2J"
    data["players"] = [hostile, "random"]
    data["result"]["reason"] = f"five in a row{hostile}"
    (tmp_path / "crafted.json").write_text(json.dumps(data))
    shown = run("replay", str(tmp_path / "crafted.json"))
    assert shown.returncode == 1 and "is not what the games give" in shown.stderr
    resumed = run("play", "--resume", str(tmp_path / "crafted.json"))
    for output in (shown.stdout, shown.stderr, resumed.stdout, resumed.stderr):
        assert "\x1b" not in output and "\x07" not in output


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
        os.kill(os.getpid(), signal.SIGTERM)  # after the block: recorded, not fatal
        print(received)
        sys.exit(status)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert done.stdout.strip() == str(
        [int(signal.SIGTERM), int(signal.SIGHUP), int(signal.SIGTERM)]
    )


def test_a_failing_player_in_bench_is_one_line() -> None:
    done = run("bench", "orderchaos", "-n", "1", "-r", "1", "-p", "engine:/bin/false")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "player 'engine:/bin/false' failed in" in done.stderr
    assert "exited with status 1" in done.stderr


def test_play_keeps_every_program_log_in_logs_dir(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    engine = bad_engine("stderr", 1, tmp_path / "pids").replace(f",log={tmp_path / 'logs'}", "")
    done = run("play", "orderchaos", "-1", "random", "-2", engine, "--seed", "2",
               "--logs", str(logs))  # fmt: skip
    assert done.returncode == 0, done.stderr
    (log,) = logs.glob("abstractgames-engine-*.log")
    assert log.read_text().strip()
    empty = run("play", "orderchaos", "-1", "random", "-2", "random", "--logs", "")
    assert empty.returncode == 2 and "the directory name is empty" in empty.stderr
