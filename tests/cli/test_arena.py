"""`abstractgames arena`: one-line errors, what it prints and writes (a line per match, the
progress bar, names, records, results, time controls, the programs' logs), where results go, and
Ctrl-C, SIGTERM and SIGHUP with the finished matches kept and no process left."""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from abstractgames import arena as arena_module
from abstractgames.arena import Arena, ArenaError, MatchTask
from abstractgames.arena import executors as executors_module
from abstractgames.arena import report as report_module
from abstractgames.cli import EXIT_INTERRUPTED
from abstractgames.records import ClockSettings, MatchRecord
from tests.conftest import BAD_ENGINE, command, posix_only, posix_signals
from tests.support.arena import error_line, lines, none_left, run, slow_engine, start, wait_lines


def bad_engine(tmp_path: Path, *args: object) -> str:
    logs = tmp_path / "logs"
    return f"engine:log={logs}:" + command(sys.executable, BAD_ENGINE, *args)


# --- one-line errors, what a tournament writes, the progress bar ----------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["orderchaos", "-p", "random", "-p", "nobody"], "unknown player 'nobody'"),
        (["orderchaos", "-p", "random", "-p", "greedy:depth=2"], "has no option 'depth'"),
        (["orderchaos", "-p", "random", "-p", "engine:"], "give the command to run"),
        (["orderchaos", "-p", "random", "-p", "random"], "'random' is given twice"),
        (["orderchaos", "-p", "random"], "at least two players"),
        (["orderchaos", "-p", "random", "greedy", "-n", "0"], "positive even number"),
        (["orderchaos", "-p", "random", "greedy", "-n", "3"], "positive even number"),
        (["chess", "-p", "random", "greedy"], "unknown game 'chess'"),
        (["orderchaos", "-p", "random", "greedy", "--executor", "mpi"], "unknown executor"),
        (
            ["orderchaos", "-p", "random", "greedy", "--executor", "dask://h:1", "-j", "2"],
            "jobs are for local processes",
        ),
    ],
)
def test_bad_arguments_are_one_line_errors(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(*args)
    assert code != 0 and out == ""
    assert err.startswith("Error: ") and message in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


@posix_only
def test_a_crashing_engine_loses_its_matches_with_reasons_and_the_rest_go_on(
    tmp_path: Path,
) -> None:
    crasher = bad_engine(tmp_path, "--mode", "crash", "--at", "2")
    path = tmp_path / "results.json"
    code, out, err = run(
        "orderchaos",
        "-p",
        "random",
        "greedy",
        crasher,
        "-n",
        "2",
        "-j",
        "2",
        "--json",
        str(path),
        "--state",
        str(tmp_path / "state.jsonl"),
    )
    assert code == 0, err
    data = json.loads(path.read_text())
    assert data["played"] == 6
    for match in data["matches"]:
        if crasher in match["players"]:
            seat = match["players"].index(crasher) + 1
            assert match["winner"] == 3 - seat
            assert match["ended_by"] == {"event": "forfeit", "player": seat}
            assert f"player {seat} exited with status 1" in match["reason"]
        else:
            assert match["ended_by"] is None and match["winner"] in (1, 2)
    crashed = next(s for s in data["standings"] if s["player"] == crasher)
    assert (crashed["losses"], crashed["forfeits"], crashed["wins"]) == (4, 4, 0)
    assert data["standings"][-1]["player"] == crasher
    short = "engine:" + crasher.partition(":")[2].partition(":")[2]  # without log=
    assert data["standings"][-1]["name"] == short and crasher not in out
    assert f"{short}: 4 games, e.g. match 3: player 2 exited with status 1" in out


def test_records_on_request(tmp_path: Path) -> None:
    records = tmp_path / "records"
    code, _, err = run(
        "dispersal",
        "-p",
        "random",
        "greedy",
        "-n",
        "2",
        "-j",
        "1",
        "--records",
        str(records),
        "--json",
        str(tmp_path / "r.json"),
        "--state",
        str(tmp_path / "s.jsonl"),
    )
    assert code == 0, err
    files = sorted(records.iterdir())
    assert [f.name for f in files] == ["00001-random-vs-greedy.json", "00002-greedy-vs-random.json"]
    matches = json.loads((tmp_path / "r.json").read_text())["matches"]
    for file, match in zip(files, matches, strict=True):
        record = MatchRecord.load(file)
        record.replay()
        assert list(record.players) == match["players"] and record.seed == match["seed"]
        assert record.result is not None and record.result.winner == match["winner"]


def test_progress_bar_only_on_a_terminal_and_not_when_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1"]
    code, out, err = run(*args)
    assert code == 0 and err == ""
    terminal = {"FORCE_COLOR": "1", "TERM": "xterm", "COLUMNS": "120"}
    code, out_tty, err = run(*args, env=terminal)
    assert code == 0 and out_tty == out
    assert "games" in err and "4/4" in err and "/s" in err
    code, _, err = run(*args, "--quiet", env=terminal)
    assert code == 0 and err == ""


# --- interruption and resumption ----------------------------------------------------------------


def test_ctrl_c_keeps_the_finished_matches_and_resume_finishes_the_same_tournament(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["dispersal", "-p", "random", "greedy", "-n", "6", "--seed", "2", "-j", "1"]
    code, expected, _ = run(*args, "--json", "expected.json")
    assert code == 0
    assert list(tmp_path.iterdir()) == [tmp_path / "expected.json"]  # the state file is gone

    real_play = arena_module.play_match
    calls = []

    def interrupted_at_the_third(task: MatchTask) -> str:
        calls.append(task.number)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_play(task)

    # -j 1: the serial executor calls the play_match of its own module
    monkeypatch.setattr(executors_module, "play_match", interrupted_at_the_third)
    code, out, err = run(*args)
    state = tmp_path / "abstractgames-arena-dispersal-2.jsonl"
    assert code == EXIT_INTERRUPTED and out == ""
    assert f"interrupted: the finished games are kept in {state.name}" in err
    lines = state.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["format"] == "abstractgames-arena-state"

    code, _, err = run(*args)
    assert code == 1 and "already holds a tournament: resume it, or delete the file" in err

    monkeypatch.setattr(executors_module, "play_match", real_play)
    calls.clear()
    with open(state, "a") as handle:  # a line cut short by a crash is dropped
        handle.write('{"round": 2, "rec')
    code, out, err = run(*args, "--resume", "--json", "resumed.json")
    assert code == 0, err
    assert out == expected
    assert (tmp_path / "resumed.json").read_bytes() == (tmp_path / "expected.json").read_bytes()
    assert not state.exists()


@pytest.mark.slow
@posix_only
def test_a_real_ctrl_c_stops_the_worker_processes_and_keeps_what_finished(tmp_path: Path) -> None:
    slow = bad_engine(tmp_path, "--mode", "slow", "--delay", "0.5", "--at", "1")
    args = ["orderchaos", "-p", "random", slow, "-n", "4", "--seed", "3", "--quiet"]
    process = subprocess.Popen(
        [sys.executable, "-m", "abstractgames", "arena", *args, "-j", "2"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    state = tmp_path / "abstractgames-arena-orderchaos-3.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if state.exists() and len(state.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == EXIT_INTERRUPTED, err
    assert "interrupted: the finished games are kept" in err and "Traceback" not in err
    kept = len(state.read_text().splitlines()) - 1
    assert 1 <= kept < 4
    code, resumed, err = run(*args, "-j", "1", "--resume", "--state", str(state))
    assert code == 0, err
    code, straight, err = run(*args, "-j", "2", "--state", str(tmp_path / "straight.jsonl"))
    assert code == 0, err
    assert resumed == straight


def engine(mode: str = "good", at: int = 1, options: str = "timeout=5") -> str:
    """The test engine (Order and Chaos), misbehaving as asked (see its docstring)."""
    return f"engine:{options}:" + command(sys.executable, BAD_ENGINE, "--mode", mode, "--at", at)


# --- a line per match, the progress bar, the players' names ---------------------------------------


def test_verbose_prints_one_line_per_finished_match(tmp_path: Path) -> None:
    args = ["orderchaos", "-p", "random", "search:depth=1,name=deep", "-n", "4", "-j", "1"]
    code, out, err = run(*args, "-v", "--state", str(tmp_path / "s.jsonl"))
    assert code == 0, err
    lines = err.splitlines()
    assert len(lines) == 4
    for number, line in enumerate(lines, start=1):
        players = "random vs deep" if number % 2 else "deep vs random"
        pattern = rf"match {number}/4: {players}: (deep won|random won|drawn) \(.+\), [\d.]+ s"
        assert re.fullmatch(pattern, line), line
    assert "deep" in out and "search:depth=1" not in out
    code, _, quiet = run(*args, "--state", str(tmp_path / "t.jsonl"))
    assert code == 0 and quiet == ""


def test_the_progress_bar_shows_the_arenas_time_left(tmp_path: Path) -> None:
    terminal = {"FORCE_COLOR": "1", "TERM": "xterm", "COLUMNS": "160"}
    args = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1", "-v"]
    code, _, err = run(*args, "--state", str(tmp_path / "s.jsonl"), env=terminal)
    assert code == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err)
    assert "4/4" in text and "0:00:00 left" in text
    assert "match 4/4: greedy vs random" in text


def test_names_in_tables_and_file_names_full_specs_in_the_json(tmp_path: Path) -> None:
    specs = ["random:name=a", "greedy:name=a", "search:depth=1"]
    code, out, err = run(
        "orderchaos",
        "-p",
        *specs,
        "-n",
        "2",
        "-j",
        "1",
        "--records",
        str(tmp_path / "records"),
        "--json",
        str(tmp_path / "r.json"),
        "--state",
        str(tmp_path / "s.jsonl"),
    )
    assert code == 0, err
    assert "a#1 vs a#2" in out and "a#1 vs search:depth=1" in out
    assert "Players of the same name:\n  a#1: random:name=a\n  a#2: greedy:name=a\n" in out
    files = sorted(path.name for path in (tmp_path / "records").iterdir())
    assert files[:2] == ["00001-a_1-vs-a_2.json", "00002-a_2-vs-a_1.json"]
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["players"] == specs and data["names"] == ["a#1", "a#2", "search:depth=1"]
    assert {(s["player"], s["name"]) for s in data["standings"]} == set(
        zip(specs, data["names"], strict=True)
    )
    assert data["pairs"][0]["players"] == specs[:2] and data["pairs"][0]["names"] == ["a#1", "a#2"]
    assert data["matches"][0]["players"] == specs[:2]
    record = MatchRecord.load(tmp_path / "records" / files[0])
    assert record.players == tuple(specs[:2])  # the spec as given: the key of the state file


# --- time controls --------------------------------------------------------------------------------


def test_a_clock_reaches_every_match_and_its_records(tmp_path: Path) -> None:
    records = tmp_path / "records"
    code, out, err = run(
        "orderchaos",
        "-p",
        "random",
        "greedy",
        "-n",
        "2",
        "-j",
        "2",
        "--clock",
        "30+0.5",
        "--correspondence",
        "--records",
        str(records),
        "--json",
        str(tmp_path / "r.json"),
        "--state",
        str(tmp_path / "s.jsonl"),
    )
    assert code == 0, err
    assert out.startswith("orderchaos: 2 players, 2 games per pair, seed 0, clock 30+0.5, ")
    for path in sorted(records.iterdir()):
        record = MatchRecord.load(path)
        assert record.clock == ClockSettings(30, 0.5) and record.time_loss_forfeits
        moves = [move for game in record.games for move in game.moves if move.player]
        assert moves and all(move.seconds is not None and move.clock is not None for move in moves)
        assert all(0 <= (move.seconds or 0) <= (move.clock or 0) <= 39 for move in moves)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["clock"] == {"seconds": 30.0, "increment": 0.5} and data["time_loss_forfeits"]


def test_a_bad_clock_is_refused_before_anything_is_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run("orderchaos", "-p", "random", "greedy", "--clock", "fast")
    assert code == 2 and "bad clock 'fast'" in err and list(tmp_path.iterdir()) == []
    with pytest.raises(ArenaError, match="bad clock"):
        Arena("orderchaos", ["random", "greedy"], games=2, clock="nan")


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory of the test's own, for this process and the ones it starts."""
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setenv("TMPDIR", str(directory))
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    return directory


def logs_in(directory: Path) -> list[Path]:
    return sorted(directory.glob("abstractgames-*.log"))


@posix_only
def test_logs_of_programs_that_played_well_are_not_left_behind(
    temporary: Path, tmp_path: Path
) -> None:
    chatty = engine("stderr")
    code, _, err = run(
        "orderchaos", "-p", "random", chatty, "-n", "4", "-j", "2", "--state", str(tmp_path / "s")
    )
    assert code == 0, err
    assert logs_in(temporary) == []


@posix_only
def test_the_log_of_a_program_that_failed_is_kept_and_named(
    temporary: Path, tmp_path: Path
) -> None:
    crasher = engine("crash", at=2)
    path = tmp_path / "r.json"
    code, _, err = run(
        "orderchaos",
        "-p",
        "random",
        engine("stderr"),
        crasher,
        "-n",
        "2",
        "-j",
        "1",
        "--json",
        str(path),
        "--state",
        str(tmp_path / "s"),
    )
    assert code == 0, err
    failed = [m for m in json.loads(path.read_text())["matches"] if m["ended_by"]]
    assert len(failed) == 4  # the crasher's matches, and only those
    named = [Path(m["reason"].rpartition("; its error output is in ")[2]) for m in failed]
    assert sorted(named) == logs_in(temporary)
    assert all("ValueError: oops" in log.read_text() for log in named)


@posix_only
def test_logs_keeps_every_log(temporary: Path, tmp_path: Path) -> None:
    logs, own = tmp_path / "logs", tmp_path / "own"
    code, _, err = run(
        "orderchaos",
        "-p",
        engine("stderr", options="name=chatty"),
        engine("stderr", options=f"log={own},name=own"),
        "random",
        "-n",
        "2",
        "-j",
        "1",
        "--logs",
        str(logs),
        "--state",
        str(tmp_path / "s"),
    )
    assert code == 0, err
    assert logs_in(temporary) == []
    # a program plays each of its matches: 4 for each, one of them against the other
    assert len(logs_in(logs)) == 4 and len(logs_in(own)) == 4
    assert all("thinking about move 1" in log.read_text() for log in logs_in(logs) + logs_in(own))


def test_a_logs_directory_that_cannot_be_written_is_refused_at_once(tmp_path: Path) -> None:
    code, _, err = run(
        "orderchaos",
        "-p",
        "random",
        "greedy",
        "--logs",
        "/proc/logs",
        "--state",
        str(tmp_path / "s"),
    )
    assert code == 2 and "cannot keep the logs in '/proc/logs'" in err
    assert not (tmp_path / "s").exists()


# --- SIGTERM and SIGHUP -------------------------------------------------------------------------


@pytest.mark.slow
@posix_signals
def test_sigterm_keeps_the_finished_matches_and_leaves_no_process(tmp_path: Path) -> None:
    """`kill PID` during a run on two worker processes, with a program among the players."""
    state = tmp_path / "state.jsonl"
    args = ["orderchaos", "-p", "random", slow_engine(tmp_path), "-n", "8", "--seed", "3", "-q"]
    token = secrets.token_hex(8)
    arena = start([*args, "-j", "2", "--state", str(state)], tmp_path, token)
    wait_lines(state, 2, arena)
    code, _, err = run(*args, "--resume", "--state", str(state))  # a second run on the file
    assert code == 1 and "is in use by another arena run" in error_line(err)
    arena.send_signal(signal.SIGTERM)
    _, err = arena.communicate(timeout=60)
    assert arena.returncode == 128 + signal.SIGTERM, err
    assert f"interrupted by SIGTERM: the finished games are kept in {state}" in err
    assert "Traceback" not in err
    assert none_left(token) == []  # workers, programs, the resource tracker
    kept = len(lines(state)) - 1
    assert 1 <= kept < 8
    code, out, err = run(*args, "-j", "1", "--resume", "--state", str(state))
    assert code == 0, err
    assert len(lines(state)) == 1 + 8 and "played)" not in out


@pytest.mark.slow
@posix_signals
def test_a_hangup_of_the_whole_group_and_more_signals_during_clean_up(tmp_path: Path) -> None:
    """A closed terminal (SIGHUP to every process of the group), then an impatient supervisor
    (SIGTERM, SIGHUP again) while the run stops its workers, whose programs ignore ``quit`` (they
    are killed a second later)."""
    state = tmp_path / "state.jsonl"
    stubborn = f"engine:log={tmp_path / 'logs'}:" + command(
        sys.executable, BAD_ENGINE, "--mode", "noquit"
    )
    args = ["orderchaos", "-p", "random", stubborn, "-n", "8", "-q", "-j", "2"]
    token = secrets.token_hex(8)
    arena = start([*args, "--state", str(state)], tmp_path, token)
    wait_lines(state, 2, arena)
    for signum in (signal.SIGHUP, signal.SIGTERM, signal.SIGHUP):
        os.killpg(arena.pid, signum)
        time.sleep(0.005)  # well within the clean-up (after it, the default action would kill)
    _, err = arena.communicate(timeout=60)
    assert arena.returncode == 128 + signal.SIGHUP, err
    assert "interrupted by SIGHUP: the finished games are kept" in err and "Traceback" not in err
    assert none_left(token) == []
    assert len(lines(state)) >= 2


# --- where the results go -----------------------------------------------------------------------


@posix_signals
@pytest.mark.parametrize(
    ("option", "where", "message"),
    [
        ("--json", "{tmp}/missing/results.json", "there is no directory"),
        ("--json", "", "the file name is empty"),
        ("--json", "{tmp}/" + "x" * 300 + ".json", "too long"),
        ("--json", "/proc/results.json", "cannot create a file in '/proc'"),
        ("--records", "/proc/records", "cannot write the records in '/proc/records'"),
        ("--records", "", "the directory name is empty"),
        ("--state", "{tmp}/missing/state.jsonl", "there is no directory"),
        ("--state", "/proc/state.jsonl", "cannot create a file in '/proc'"),
        (None, "/proc", "give --state FILE"),
    ],
)
def test_where_results_go_is_checked_before_any_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str | None, where: str, message: str
) -> None:
    played: list[int] = []
    monkeypatch.setattr(executors_module, "play_match", lambda task: played.append(task.number))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(Path(where) if option is None else work)
    extra = [] if option is None else [option, where.format(tmp=tmp_path)]
    code, out, err = run("orderchaos", "-p", "random", "greedy", "-n", "2", "-j", "1", *extra)
    assert code == 2 and out == ""
    assert message in error_line(err)
    assert played == [] and list(work.iterdir()) == []


@posix_signals
def test_results_that_cannot_be_written_at_the_end_keep_the_tournament(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1", "--json", "r.json"]

    def disk_full(self: object, path: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report_module.ArenaReport, "save", disk_full)
    code, table, err = run(*args)
    state = tmp_path / "abstractgames-arena-orderchaos-0.jsonl"
    assert code == 1 and "greedy" in table
    line = error_line(err)
    assert "cannot write the results to 'r.json': No space left on device" in line
    assert f"kept in {state.name}: the same command with --resume shows them" in line
    assert len(lines(state)) == 1 + 4
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    code, again, err = run(*args, "--resume")
    assert code == 0, err
    assert again == table and not state.exists()
    assert json.loads((tmp_path / "r.json").read_text())["played"] == 4
