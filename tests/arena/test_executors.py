"""Where matches are played (`abstractgames.arena.executors`): the same results whatever the jobs
or executor, local processes timing each match, and dask: a local cluster, a cluster without
workers, a signal that cancels what has not started, dask not installed."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from abstractgames.arena import Arena, ArenaError, DaskExecutor, MatchDone, ProcessExecutor
from tests.conftest import our_engine, posix_signals
from tests.support.arena import ABSTRACTGAMES, error_line, lines, run, start, wait_lines

# --- the same results whatever the executor -------------------------------------------------------


@pytest.mark.slow
def test_same_seed_same_table_and_json_whatever_jobs(tmp_path: Path) -> None:
    players = ["random", "greedy", our_engine("greedy")]
    outputs = []
    for jobs in ("1", "2"):
        path = tmp_path / f"jobs{jobs}.json"
        code, out, err = run(
            "orderchaos",
            "-p",
            *players,
            "-n",
            "2",
            "--seed",
            "4",
            "-j",
            jobs,
            "--json",
            str(path),
            "--state",
            str(tmp_path / f"state{jobs}.jsonl"),
        )
        assert code == 0, err
        outputs.append((out, path.read_bytes()))
    assert outputs[0] == outputs[1]
    out, raw = outputs[0]
    data = json.loads(raw)
    assert data["format"] == "abstractgames-arena" and data["version"] == 1
    assert (data["game"], data["players"], data["seed"]) == ("orderchaos", players, 4)
    assert data["scheduled"] == data["played"] == len(data["matches"]) == 6
    assert {s["player"] for s in data["standings"]} == set(players)
    assert sum(s["wins"] for s in data["standings"]) == sum(s["losses"] for s in data["standings"])
    assert [m["number"] for m in data["matches"]] == list(range(1, 7))
    assert out.startswith("orderchaos: 3 players, 2 games per pair, seed 4\n")
    assert "Elo (95%)" in out and "mean score" not in out


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_results_as_local_processes(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    args = ["entropy:size=5", "-p", "random", "greedy", "-n", "4", "--seed", "8"]
    code, local, err = run(
        *args,
        "-j",
        "1",
        "--json",
        str(tmp_path / "local.json"),
        "--state",
        str(tmp_path / "local.jsonl"),
    )
    assert code == 0, err
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=None,
    ) as cluster:
        port = cluster.scheduler_address.rsplit(":", 1)[1]
        code, remote, err = run(
            *args,
            "--executor",
            f"dask://127.0.0.1:{port}",
            "--json",
            str(tmp_path / "dask.json"),
            "--state",
            str(tmp_path / "dask.jsonl"),
        )
    assert code == 0, err
    assert remote == local
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert "mean score (95%)" in local and "matches per pair" in local


def test_missing_dask_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "distributed", None)
    code, _, err = run(
        "orderchaos", "-p", "random", "greedy", "-n", "2", "--executor", "dask://h:1"
    )
    assert code == 1
    assert "pip install 'abstractgames[dask]'" in err and err.count("\n") == 1


def test_local_processes_time_each_match_where_it_is_played() -> None:
    arena = Arena("orderchaos", ["random", "greedy"], games=4, seed=1)
    told: list[MatchDone] = []
    executor = ProcessExecutor(2)
    arena.run(executor, on_match=told.append)
    assert executor.slots == 2 and len(told) == 4
    assert all(m.seconds is not None and 0 < m.seconds < 5 for m in told)
    assert all(m.time_left is not None for m in told) and told[-1].time_left == 0.0


@posix_signals
def test_local_processes_stop_on_a_ctrl_c_that_python_dropped() -> None:
    # A Ctrl-C handled inside one of an import's weakref callbacks is dropped by Python: the
    # arena, whose workers never saw it, used to play every match to the end and exit 0.
    from abstractgames.arena.schedule import MatchTask
    from abstractgames.interrupts import termination_as_interrupt

    tasks = [MatchTask(n, n, "orderchaos", ("search:depth=3", "greedy"), n) for n in range(1, 41)]
    started = time.monotonic()
    with termination_as_interrupt() as received:
        received.append(signal.SIGINT)  # what the handler records before it raises
        with pytest.raises(KeyboardInterrupt):
            list(ProcessExecutor(2).results(tasks))
    assert time.monotonic() - started < 15


# --- dask ---------------------------------------------------------------------------------------


@pytest.fixture
def cluster_without_workers() -> Any:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=0, processes=False, host="127.0.0.1", protocol="tcp", dashboard_address=None
    ) as cluster:
        yield cluster


@pytest.mark.slow
@posix_signals
def test_dask_without_workers_says_so_and_gives_up(
    tmp_path: Path, cluster_without_workers: Any
) -> None:
    address = cluster_without_workers.scheduler_address
    port = address.rsplit(":", 1)[1]
    args = ["orderchaos", "-p", "random", "greedy", "-n", "2", "-q", "--dask-wait", "0.5"]
    began = time.monotonic()
    done = subprocess.run(
        [*ABSTRACTGAMES, "arena", *args, "--executor", f"dask://127.0.0.1:{port}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert f"waiting for dask workers at tcp://127.0.0.1:{port}" in done.stderr
    assert "no dask worker joined the scheduler" in error_line(done.stderr)
    assert "within 0.5 s" in done.stderr and time.monotonic() - began < 30
    with pytest.raises(ArenaError, match="a day"):
        DaskExecutor(address, worker_timeout=float("nan"))


@pytest.mark.slow
@posix_signals
def test_a_signal_ends_the_wait_for_a_dask_worker(
    tmp_path: Path, cluster_without_workers: Any
) -> None:
    port = cluster_without_workers.scheduler_address.rsplit(":", 1)[1]
    args = ["orderchaos", "-p", "random", "greedy", "-n", "2", "-q", "--dask-wait", "120"]
    arena = start([*args, "--executor", f"dask://127.0.0.1:{port}"], tmp_path, "wait")
    assert arena.stderr is not None
    assert "waiting for dask workers at" in arena.stderr.readline()
    began = time.monotonic()
    arena.send_signal(signal.SIGTERM)
    _, err = arena.communicate(timeout=60)
    assert arena.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err and time.monotonic() - began < 10


@pytest.mark.slow
@posix_signals
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_dask_stops_on_a_signal_and_leaves_nothing_on_the_cluster(
    tmp_path: Path, signum: int
) -> None:
    distributed = pytest.importorskip("distributed")
    state = tmp_path / "state.jsonl"
    args = ["dispersal", "-p", "random", "greedy", "-n", "300", "-q", "--state", str(state)]
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=None,
    ) as cluster:
        port = cluster.scheduler_address.rsplit(":", 1)[1]
        arena = start([*args, "--executor", f"dask://127.0.0.1:{port}"], tmp_path, "dask")
        wait_lines(state, 4, arena)
        # only a few matches are handed out at a time: the rest cannot run after the signal
        assert len(cluster.scheduler.tasks) <= 8
        arena.send_signal(signum)
        _, err = arena.communicate(timeout=60)
        assert arena.returncode == 128 + signum, err
        assert "the finished games are kept in" in err and "Traceback" not in err
        deadline = time.monotonic() + 15
        while cluster.scheduler.tasks and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not cluster.scheduler.tasks
    kept = len(lines(state)) - 1
    assert 3 <= kept < 300
    code, out, err = run(*args, "-j", "1", "--resume")
    assert code == 0, err
    assert len(lines(state)) == 1 + 300 and "played)" not in out
