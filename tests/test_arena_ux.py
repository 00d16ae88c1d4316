"""`abstractgames arena` keeps the user informed: the time left pair by pair, a line per match,
players' short names, time controls, and the external programs' logs kept only when useful."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames.arena import (
    Arena,
    ArenaError,
    MatchDone,
    MatchTask,
    ProcessExecutor,
    TimeLeft,
    format_duration,
    play_match,
    player_spec,
    short_name,
    short_names,
)
from abstractgames.arena.executors import Executor, Results, TimedResults
from abstractgames.arena.tournament import FakeClock
from abstractgames.cli import main
from abstractgames.players import InvalidPlayerError
from abstractgames.records import ClockSettings, MatchRecord
from abstractgames.registry import with_logs

from .conftest import BAD_ENGINE, command

posix_only = pytest.mark.skipif(os.name != "posix", reason="external programs need POSIX")


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["arena", *args], env=env)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), repr(result.exception)
    return result.exit_code, result.stdout, result.stderr


def engine(mode: str = "good", at: int = 1, options: str = "timeout=5") -> str:
    """The test engine (Order and Chaos), misbehaving as asked (see its docstring)."""
    return f"engine:{options}:" + command(sys.executable, BAD_ENGINE, "--mode", mode, "--at", at)


# --- the time left --------------------------------------------------------------------------------


def schedule_of(rounds: int) -> list[str]:
    """The pairs of a two-pair schedule in order: each round, both seats of each pair."""
    return ["quick", "quick", "slow", "slow"] * rounds


TIMES = {"quick": 0.2, "slow": 45.0}


def test_the_time_left_follows_each_pair_not_the_average_rate() -> None:
    """A quick pair and a slow one, 20 matches each: the estimate is the true time left from
    the moment each pair has played, where a rate over the last matches is far off."""
    clock = FakeClock()
    pairs = schedule_of(10)
    left = TimeLeft({"quick": 20, "slow": 20}, clock=clock)
    assert left.seconds() is None
    for index, pair in enumerate(pairs):
        clock.now += TIMES[pair]
        left.finished(pair, TIMES[pair])
        true = sum(TIMES[p] for p in pairs[index + 1 :])
        estimate = left.seconds()
        if index >= 2:  # both pairs seen
            assert estimate == pytest.approx(true)
        else:  # the slow pair not yet: no guess from the quick one ("8 seconds left")
            assert estimate is None
    assert left.seconds() == 0.0


def test_the_time_left_counts_down_between_matches_and_is_shared_among_slots() -> None:
    clock = FakeClock()
    left = TimeLeft({"a": 11, "b": 3}, slots=4, clock=clock)
    left.finished("a", 10.0)
    left.finished("b", 2.0)
    assert left.seconds() == pytest.approx((10 * 10 + 2 * 2) / 4)
    clock.now += 20
    assert left.seconds() == pytest.approx(26 - 20)
    clock.now += 100
    assert left.seconds() == 0.0  # never below zero
    left.slots = 100  # more slots than matches: the slowest match left still takes its time
    left.finished("b", 2.0)
    assert left.seconds() == pytest.approx(10.0)


def test_the_time_per_match_is_a_median_of_recent_matches() -> None:
    left = TimeLeft({"p": 1000}, clock=FakeClock())
    for seconds in (1.0, 1.2, 500.0, 0.9, 1.1):  # one match that hung does not count much
        left.finished("p", seconds)
    assert left.per_match("p") == pytest.approx(1.1)
    for _ in range(200):  # the pair got slower (a clock running down): recent matches count
        left.finished("p", 3.0)
    assert left.per_match("p") == 3.0
    left.finished("p", None)  # a match whose time is not known changes nothing but the count
    left.finished("p", float("nan"))
    assert left.per_match("p") == 3.0 and left.remaining["p"] == 1000 - 5 - 200 - 2


def test_durations_are_written_for_people() -> None:
    assert format_duration(0) == "0:00:00" and format_duration(899.2) == "0:15:00"
    assert format_duration(90_061) == "25:01:01"
    assert format_duration(0.25, short=True) == "0.25 s"
    assert format_duration(12.34, short=True) == "12.3 s"
    assert format_duration(3599, short=True) == "59 min 59 s"


class Timed(Executor):
    """Plays the matches in this process and says each took ``seconds[pair]``."""

    def __init__(self, seconds: dict[tuple[str, str], float]) -> None:
        self.seconds = seconds
        self.slots = 2

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        for task in tasks:
            yield task, play_match(task)

    def timed_results(self, tasks: Sequence[MatchTask]) -> TimedResults:
        for task, text in self.results(tasks):
            yield task, text, self.seconds[tuple(sorted(task.players))]  # type: ignore[index]


def test_each_finished_match_is_told_with_its_time_and_the_time_left() -> None:
    arena = Arena("orderchaos", ["random", "greedy", "search:depth=1,name=deep"], games=4, seed=3)
    seconds = {
        ("greedy", "random"): 1.0,
        ("random", "search:depth=1,name=deep"): 10.0,
        ("greedy", "search:depth=1,name=deep"): 20.0,
    }
    told: list[MatchDone] = []
    progress: list[tuple[int, int]] = []
    arena.run(Timed(seconds), on_match=told.append, on_progress=lambda *a: progress.append(a))
    assert [(m.match.number, m.done, m.total) for m in told] == [(n, n, 12) for n in range(1, 13)]
    assert progress == [(n, 12) for n in range(13)]
    assert [m.seconds for m in told] == [1.0, 1.0, 10.0, 10.0, 20.0, 20.0] * 2
    assert [m.names for m in told[:6:2]] == [
        ("random", "greedy"),
        ("random", "deep"),
        ("greedy", "deep"),
    ]
    # none until the third pair has played; then, on 2 slots: after match 5, 2 matches of 1 s,
    # 2 of 10 s and 3 of 20 s are left: 41 s; after match 11 the last match takes its 20 s
    lefts = [m.time_left for m in told]
    assert lefts[:4] == [None] * 4
    assert lefts[4:] == pytest.approx([41, 31, 30.5, 30, 25, 20, 20, 0], abs=0.2)
    line = told[2].line()
    assert re.fullmatch(
        r"match 3/12: random vs deep: (deep won|drawn|random won) \(.+\), 10\.0 s", line
    )


def test_local_processes_time_each_match_where_it_is_played() -> None:
    arena = Arena("orderchaos", ["random", "greedy"], games=4, seed=1)
    told: list[MatchDone] = []
    executor = ProcessExecutor(2)
    arena.run(executor, on_match=told.append)
    assert executor.slots == 2 and len(told) == 4
    assert all(m.seconds is not None and 0 < m.seconds < 5 for m in told)
    assert all(m.time_left is not None for m in told) and told[-1].time_left == 0.0


# --- the command line: a line per match, the progress bar -----------------------------------------


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


# --- short names ----------------------------------------------------------------------------------


def test_short_names_drop_a_programs_options_or_take_the_name_option() -> None:
    assert short_name("random") == "random"
    assert short_name("search:depth=2") == "search:depth=2"
    assert short_name("search:depth=2,name=deep") == "deep"
    assert short_name("engine:timeout=5,log=/tmp/x:./mybot --v2") == "engine:./mybot --v2"
    assert short_name("engine:name=v2,log=/tmp/x:./mybot --v2") == "v2"
    assert short_name("codecup:grace=1:./prog") == "codecup:./prog"
    assert short_name("engine::A=1:./prog") == "engine:A=1:./prog"
    assert short_name("examples/custom_bot.py:CentreBot:name=centre") == "centre"
    assert player_spec("search:depth=2,name=deep") == "search:depth=2"
    assert player_spec("search:name=deep") == "search"
    assert player_spec("engine:name=v2:./mybot") == "engine:./mybot"
    assert player_spec("engine:name=v2:A=1:./mybot") == "engine::A=1:./mybot"
    assert player_spec("engine:timeout=5,name=v2:./mybot", "logs") == (
        "engine:timeout=5,log=logs:./mybot"
    )
    bot = "examples/custom_bot.py:CentreBot"
    assert player_spec(f"{bot}:name=c") == bot


def test_name_clashes_are_settled_the_same_way_every_time() -> None:
    # the same program with other options: called by their whole specs
    assert short_names(["engine:timeout=5:./bot", "engine:timeout=9:./bot", "random"]) == (
        "engine:timeout=5:./bot",
        "engine:timeout=9:./bot",
        "random",
    )
    # names given twice, or a name that is another player's: numbered in the order given
    assert short_names(["random:name=a", "greedy:name=a", "search:name=b"]) == ("a#1", "a#2", "b")
    assert short_names(["greedy", "random:name=greedy"]) == ("greedy#1", "greedy#2")
    assert short_names(["random:name=x", "greedy:name=x", "search:name=x#1"]) == (
        "x#2",
        "x#3",
        "x#1",
    )
    specs = ["engine:./bot", "engine:grace=1:./bot", "random:name=engine:./bot"]
    names = short_names(specs)
    assert len(set(names)) == 3 and names == short_names(specs)


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


def test_a_bot_may_play_itself_under_another_name() -> None:
    arena = Arena("orderchaos", ["random", "random:name=twin"], games=2, seed=1)
    report = arena.run()
    assert report.names == ("random", "twin") and report.complete
    assert MatchRecord.loads(play_match(arena.tasks[0])).players == ("random", "random:name=twin")


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


def test_resume_refuses_another_time_control(tmp_path: Path) -> None:
    state = tmp_path / "s.jsonl"
    base = ["orderchaos", "-p", "random", "greedy", "-n", "2", "-j", "1", "--state", str(state)]
    code, expected, err = run(*base, "--clock", "60")
    assert code == 0, err
    header = json.loads(state.read_text().splitlines()[0])
    assert header["clock"] == {"seconds": 60.0, "increment": 0.0}
    assert header["time_loss_forfeits"] is False
    for other, words in [
        ([], "without a clock"),
        (["--clock", "60+1"], "with the clock 60+1"),
        (["--clock", "60", "--correspondence"], "with the clock 60, time loss forfeiting"),
    ]:
        code, out, err = run(*base, "--resume", *other)
        assert code == 1 and out == ""
        assert f"holds a tournament played with the clock 60, not {words}" in err
    code, out, err = run(*base, "--resume", "--clock", "60.0")
    assert code == 0 and out == expected


def test_a_state_file_from_before_time_controls_has_no_clock(tmp_path: Path) -> None:
    state = tmp_path / "s.jsonl"
    base = ["orderchaos", "-p", "random", "greedy", "-n", "2", "-j", "1", "--state", str(state)]
    code, expected, _ = run(*base)
    assert code == 0
    lines = state.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    assert header["clock"] is None
    del header["clock"], header["time_loss_forfeits"]
    state.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    assert run(*base, "--resume") == (0, expected, "")
    code, _, err = run(*base, "--resume", "--clock", "5")
    assert code == 1 and "played without a clock, not with the clock 5" in err


def test_a_bad_clock_is_refused_before_anything_is_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run("orderchaos", "-p", "random", "greedy", "--clock", "fast")
    assert code == 2 and "bad clock 'fast'" in err and list(tmp_path.iterdir()) == []
    with pytest.raises(ArenaError, match="bad clock"):
        Arena("orderchaos", ["random", "greedy"], games=2, clock="nan")


# --- the programs' logs ---------------------------------------------------------------------------


def test_with_logs_gives_a_program_a_log_directory() -> None:
    assert with_logs("engine:./bot --fast", "/var/logs") == "engine:log=/var/logs:./bot --fast"
    assert with_logs("ENGINE:grace=1:./bot", "d") == "engine:grace=1,log=d:./bot"
    assert with_logs("engine::A=1:./bot", "d") == "engine:log=d:A=1:./bot"
    assert with_logs("engine:log=mine:./bot", "d") == "engine:log=mine:./bot"
    for spec in ("random", "search:depth=2", "mybot.py:Bot", "engine", "engine:", "nonsense:x"):
        assert with_logs(spec, "d") == spec
    with pytest.raises(InvalidPlayerError, match="comma or a colon"):
        with_logs("engine:./bot", "C:/logs")


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
