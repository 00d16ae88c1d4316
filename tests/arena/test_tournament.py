"""A tournament run (`abstractgames.arena.tournament`): each finished match told with its record,
its time and the time left, a stop event between matches and during one, records that cannot be
written, and memory that does not grow with the number of games."""

from __future__ import annotations

import errno
import json
import os
import re
import threading
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

import pytest

from abstractgames import arena as arena_module
from abstractgames.arena import (
    Arena,
    ArenaError,
    ArenaState,
    MatchDone,
    MatchTask,
    ProcessExecutor,
    SerialExecutor,
    TimeLeft,
    format_duration,
    play_match,
)
from abstractgames.arena import tournament as tournament_module
from abstractgames.arena.executors import Executor, Results, TimedResults
from abstractgames.arena.tournament import FakeClock
from abstractgames.records import MatchRecord
from tests.conftest import posix_signals
from tests.support.arena import error_line, lines, run
from tests.support.bots import SLOW_BOT, with_proc

# --- each finished match --------------------------------------------------------------------------


def test_each_finished_match_comes_with_its_record_and_the_results_so_far(tmp_path: Path) -> None:
    arena = Arena("orderchaos", ["random", "greedy", "search:depth=1"], games=2, seed=6)
    told: list[tuple[MatchDone, arena_module.ArenaReport]] = []
    final = arena.run(records=tmp_path, on_match=lambda done: told.append((done, done.report())))
    assert [done.match.number for done, _ in told] == list(range(1, 7))
    for done, report in told:
        assert done.record == tmp_path / arena.record_name(arena.tasks[done.match.number - 1])
        result = MatchRecord.load(done.record).result
        assert result is not None and result.winner == done.match.winner
        assert done.match == final.matches[done.match.number - 1]
        assert len(report.matches) == done.done
        assert sum(s.games for s in report.standings) == 2 * done.done
    assert told[-1][1] == final and told[-1][1].format_table() == final.format_table()
    plain = arena.run(on_match=lambda done: told.append((done, done.report())))
    assert plain == final and told[-1][0].record is None
    with pytest.raises(ArenaError, match="does not come from a tournament"):
        MatchDone(final.matches[0], ("a", "b"), None, 1, 6, None).report()


# --- stopping from another thread ----------------------------------------------------------------


def spawned_workers() -> list[int]:
    """The processes this one started with multiprocessing's spawn that still run (from /proc):
    the arena's local workers."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command_line = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        state, parent = stat.rpartition(")")[2].split()[:2]
        if int(parent) == os.getpid() and state not in "ZX" and b"spawn_main" in command_line:
            found.append(int(entry.name))
    return found


def is_gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def test_a_stop_event_ends_the_tournament_between_matches_and_resume_finishes_it(
    tmp_path: Path,
) -> None:
    players = ["random", "greedy", "search:depth=1"]
    straight = Arena("orderchaos", players, games=2, seed=9).run()
    arena = Arena("orderchaos", players, games=2, seed=9)
    path = tmp_path / "state.jsonl"
    stop = threading.Event()

    def stop_after_the_second(done: MatchDone) -> None:
        if done.done == 2:
            stop.set()

    state = ArenaState.create(path, arena)
    try:
        report = arena.run(SerialExecutor(), state=state, on_match=stop_after_the_second, stop=stop)
    finally:
        state.close()
    assert not report.complete and [m.number for m in report.matches] == [1, 2]
    assert len(path.read_text().splitlines()) == 1 + 2
    assert (
        report.standings
        == arena.report(
            {t.key: MatchRecord.loads(play_match(t)) for t in arena.tasks[:2]}
        ).standings
    )
    # set before the run: nothing is played, whatever the executor
    for executor in (SerialExecutor(), ProcessExecutor(2)):
        assert not Arena("orderchaos", players, games=2, seed=9).run(executor, stop=stop).matches
    state = ArenaState.resume(path, arena)
    try:
        resumed = arena.run(SerialExecutor(), state=state, stop=threading.Event())
    finally:
        state.close()
    assert resumed.complete and resumed.dumps() == straight.dumps()


@with_proc
def test_a_stop_event_interrupts_the_workers_match_at_once_and_keeps_the_finished_ones(
    tmp_path: Path,
) -> None:
    """The stop the web app uses: set from another thread while a bot thinks in a worker
    process, the match is interrupted as Ctrl-C interrupts it, at once; the match that finished
    is in the state file, and no worker process is left."""
    bot = tmp_path / "slowbot.py"
    bot.write_text(SLOW_BOT)
    thinking = tmp_path / "thinking.pid"
    arena = Arena("orderchaos", ["random", f"inprocess:{bot}:Slow"], games=4, seed=1)
    path = tmp_path / "state.jsonl"
    stop = threading.Event()
    stopped_at: list[float] = []
    during: list[list[int]] = []

    def stop_while_it_thinks() -> None:
        deadline = time.monotonic() + 60
        while not thinking.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        during.append(spawned_workers())
        stopped_at.append(time.monotonic())
        stop.set()

    stopper = threading.Thread(target=stop_while_it_thinks)
    stopper.start()
    told: list[MatchDone] = []
    state = ArenaState.create(path, arena)
    try:
        report = arena.run(
            ProcessExecutor(1),
            state=state,
            records=tmp_path / "records",
            on_match=told.append,
            stop=stop,
        )
    finally:
        state.close()
        stop.set()
        stopper.join()
    took = time.monotonic() - stopped_at[0]
    assert took < 5, f"the stopped tournament took {took:.1f} s to end"
    pid = int(thinking.read_text())
    assert during == [[pid]]  # the bot thought in the one worker
    assert is_gone(pid) and spawned_workers() == []
    assert not report.complete and [m.number for m in report.matches] == [1]
    assert [done.match.number for done in told] == [1]
    assert told[0].record is not None and told[0].record.parent == tmp_path / "records"
    assert len(path.read_text().splitlines()) == 1 + 1
    assert [p.name for p in (tmp_path / "records").iterdir()] == [told[0].record.name]


def test_arena_errors_from_the_library() -> None:
    with pytest.raises(ArenaError, match="even"):
        Arena("orderchaos", ["random", "greedy"], games=1)
    with pytest.raises(ArenaError, match="jobs"):
        arena_module.make_executor("local", 0)
    assert isinstance(arena_module.make_executor("local", 1), arena_module.SerialExecutor)
    executor = arena_module.make_executor("dask://127.0.0.1:8786")
    assert isinstance(executor, arena_module.DaskExecutor)
    assert executor.address == "tcp://127.0.0.1:8786"


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


# --- a record that cannot be written --------------------------------------------------------------


@posix_signals
def test_a_record_that_cannot_be_written_stops_the_run_and_keeps_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tournament_module.write_atomic
    written: list[object] = []

    def full_after_two(path: object, data: str) -> None:
        if len(written) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(path)
        real(path, data)  # type: ignore[arg-type]

    monkeypatch.setattr(tournament_module, "write_atomic", full_after_two)
    state = tmp_path / "state.jsonl"
    args = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1", "--state", str(state)]
    code, _, err = run(*args, "--records", str(tmp_path / "records"))
    assert code == 1
    line = error_line(err)
    assert "cannot write the record of match 3" in line and "No space left" in line
    assert f"kept in {state}: --resume continues" in line
    assert len(lines(state)) == 1 + 3


# --- memory -------------------------------------------------------------------------------------


class Replayed(Executor):
    """Plays every match with one recorded result, at once (what the arena keeps is measured)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        for task in tasks:
            yield task, self.text


@pytest.mark.slow
@posix_signals
def test_memory_does_not_grow_with_the_number_of_games() -> None:
    small = Arena("orderchaos", ["random", "greedy"], games=2, seed=1)
    text = play_match(small.tasks[0])

    def peak(games: int) -> int:
        arena = Arena("orderchaos", ["random", "greedy"], games=games, seed=1)
        tracemalloc.start()
        try:
            report = arena.run(Replayed(text))
            highest = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert report.complete
        assert report.dumps() == (
            json.dumps(report.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        )
        return highest

    growth = peak(1_500) - peak(150)  # keeping the records took 7 kB a game (9 MB here)
    assert growth < 300_000, f"{growth:,} bytes more for 1,350 more games"
