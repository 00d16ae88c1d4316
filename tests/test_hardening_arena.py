"""`abstractgames arena` under signals, on a dask cluster without workers, with bad output paths,
hostile state files, a second run on the same state, and long tournaments (memory).

Signals are sent to real processes, and every process a run started is looked for afterwards by
a mark in its environment: none may be left.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import resource
import secrets
import signal
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames.arena import Arena, ArenaError, ArenaState, DaskExecutor, MatchTask, play_match
from abstractgames.arena import executors as executors_module
from abstractgames.arena import report as report_module
from abstractgames.arena import tournament as tournament_module
from abstractgames.arena.executors import Executor, Results
from abstractgames.cli import main
from abstractgames.protocol import AbstractGamesError

from .conftest import BAD_ENGINE, command, examples, is_gone

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals and /proc need POSIX")

ABSTRACTGAMES = [sys.executable, "-m", "abstractgames"]
MARK = "ABSTRACTGAMES_TEST_RUN"


def run(*args: str) -> tuple[int, str, str]:
    """``abstractgames arena ARGS`` in this process."""
    result = CliRunner().invoke(main, ["arena", *args])
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), repr(result.exception)
    return result.exit_code, result.stdout, result.stderr


def error_line(err: str) -> str:
    (line,) = [line for line in err.splitlines() if line.startswith("Error")]
    assert "Traceback" not in err
    return line


def slow_engine(tmp_path: Path, delay: float = 0.4) -> str:
    """An engine that thinks ``delay`` seconds over its first move of every match."""
    program = command(sys.executable, BAD_ENGINE, "--mode", "slow", "--delay", delay, "--at", 1)
    return f"engine:timeout=10,log={tmp_path / 'logs'}:{program}"


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def wait_lines(path: Path, count: int, process: subprocess.Popen[str] | None = None) -> None:
    """Wait until ``path`` has ``count`` lines (a header and finished matches)."""
    deadline = time.monotonic() + 60
    while not (path.exists() and len(lines(path)) >= count):
        assert time.monotonic() < deadline, f"{path} did not reach {count} lines"
        assert process is None or process.poll() is None, process.communicate()
        time.sleep(0.02)


def marked(token: str) -> list[int]:
    """The live processes whose environment carries ``token`` (a run and all it started)."""
    found = []
    needle = f"{MARK}={token}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if needle in environment and not is_gone(int(entry.name)):
            found.append(int(entry.name))
    return found


def none_left(token: str, seconds: float = 15.0) -> list[int]:
    """The processes of the run still there after ``seconds`` (an empty list, we hope)."""
    deadline = time.monotonic() + seconds
    while (left := marked(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def start(args: Sequence[str], cwd: Path, token: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*ABSTRACTGAMES, "arena", *args],
        cwd=cwd,
        env=dict(os.environ, **{MARK: token}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


# --- SIGTERM and SIGHUP -------------------------------------------------------------------------


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


# --- dask ---------------------------------------------------------------------------------------


@pytest.fixture
def cluster_without_workers() -> Any:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=0, processes=False, host="127.0.0.1", protocol="tcp", dashboard_address=None
    ) as cluster:
        yield cluster


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


# --- where the results go -----------------------------------------------------------------------


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


# --- reading a state file -----------------------------------------------------------------------


def limited(maximum: int) -> None:
    """In the child: at most ``maximum`` bytes of memory, so a bug cannot take the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (maximum, maximum))


def resume_in_a_process(state: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    args = ["orderchaos", "-p", "random", "greedy", "-n", "2", "-q", "-j", "1"]
    return subprocess.run(
        [*ABSTRACTGAMES, "arena", *args, "--resume", "--state", str(state)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: limited(1 << 30),
    )


HEADER = '{"digest":"sha256","format":"abstractgames-arena-state","game":"orderchaos","seed":0,"version":1}\n'  # noqa: E501


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("zero", "is not an arena state file (not a regular file)"),
        ("fifo", "is not an arena state file (not a regular file)"),
        ("huge", "line 2: longer than 16,777,216 bytes"),
    ],
)
def test_a_state_file_that_never_ends_is_refused_at_once(
    tmp_path: Path, kind: str, message: str
) -> None:
    state = tmp_path / "state.jsonl"
    if kind == "zero":
        state.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(state)
    else:
        with open(state, "w") as handle:
            handle.write(HEADER)
            handle.truncate(1 << 30)  # a gigabyte of NULs, without a newline
    done = resume_in_a_process(state, tmp_path)
    assert done.returncode == 1, done.stderr
    assert message in error_line(done.stderr)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "line 2: JSON nested too deeply"),
        ('{"round": ' + "7" * 5000 + "}", "line 2: an integer of 5,000 digits"),
        ('{"round": 1e999}', "line 2: a number too large to use"),
        ('{"round": NaN}', "line 2: NaN, which JSON does not allow"),
        ("\xff\xfe", "line 2: not valid JSON"),
    ],
)
def test_hostile_json_in_a_state_file_is_one_error_line(
    tmp_path: Path, line: str, message: str
) -> None:
    state = tmp_path / "state.jsonl"
    state.write_text(HEADER + line + "\n")
    args = ["orderchaos", "-p", "random", "greedy", "-n", "2", "-q", "-j", "1"]
    code, _, err = run(*args, "--resume", "--state", str(state))
    assert code == 1
    assert message in error_line(err)


@pytest.fixture(scope="module")
def finished_state(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The state file of a finished tournament of four matches."""
    path = tmp_path_factory.mktemp("state") / "state.jsonl"
    args = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1", "--seed", "5"]
    code, _, err = run(*args, "--state", str(path))
    assert code == 0, err
    return path.read_bytes()


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def edited(data: bytes, number: int, change: Any, *, sign: bool) -> bytes:
    """``data`` with the match of line ``number`` changed, and its digest made again if
    ``sign`` (as someone who read the documentation would)."""
    rows = data.decode().splitlines(keepends=True)
    entry = json.loads(rows[number - 1])
    change(entry["record"])
    if sign:
        signed = canonical({"record": entry["record"], "round": entry["round"]})
        entry["digest"] = hashlib.sha256(signed.encode()).hexdigest()
    rows[number - 1] = canonical(entry) + "\n"
    return "".join(rows).encode()


def other_winner(record: dict[str, Any]) -> None:
    record["result"]["winner"] = 3 - record["result"]["winner"]


@pytest.mark.parametrize(
    ("sign", "message"),
    [
        (False, "line 3: the match was changed after the arena wrote it"),
        (True, "line 3: match 2 breaks the rules: the recorded result"),
    ],
)
def test_an_edited_winner_is_refused_naming_the_line(
    tmp_path: Path, finished_state: bytes, sign: bool, message: str
) -> None:
    state = tmp_path / "state.jsonl"
    state.write_bytes(edited(finished_state, 3, other_winner, sign=sign))
    args = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1", "--seed", "5"]
    code, _, err = run(*args, "--resume", "--state", str(state))
    assert code == 1 and message in error_line(err)
    rows = finished_state.splitlines(keepends=True)
    state.write_bytes(finished_state + rows[2])
    code, _, err = run(*args, "--resume", "--state", str(state))
    assert code == 1 and "line 6: match 2 is in the file twice" in error_line(err)


def test_a_second_run_on_a_locked_state_file_is_refused(
    tmp_path: Path, finished_state: bytes
) -> None:
    state = tmp_path / "state.jsonl"
    state.write_bytes(finished_state)
    args = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1", "--seed", "5"]
    with open(state, "rb") as other_run:
        fcntl.flock(other_run, fcntl.LOCK_EX)
        code, _, err = run(*args, "--resume", "--state", str(state))
        assert code == 1
        assert f"{state} is in use by another arena run" in error_line(err)
    code, _, err = run(*args, "--resume", "--state", str(state))
    assert code == 0, err


def mutations() -> st.SearchStrategy[tuple[str, Any]]:
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**40), max_value=10**40),
        st.floats(allow_nan=False),
        st.text(max_size=20),
    )
    plausible = st.one_of(  # values a record holds: moves, squares, players, scores
        st.integers(-2, 60), st.none(), st.booleans(), st.text("abcdefOX@-123456 ", max_size=6)
    )
    json_values = st.recursive(
        leaf,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=6,
    )
    return st.one_of(
        st.tuples(st.just("truncate"), st.floats(0, 1)),
        st.tuples(st.just("flip"), st.tuples(st.floats(0, 1), st.integers(0, 255))),
        st.tuples(st.just("insert"), st.tuples(st.floats(0, 1), st.binary(max_size=30))),
        st.tuples(st.just("nest"), st.integers(1, 3000)),
        st.tuples(st.just("number"), st.integers(1, 6000)),
        st.tuples(st.just("value"), st.tuples(st.integers(1, 4), st.floats(0, 1), json_values)),
        st.tuples(st.just("leaf"), st.tuples(st.integers(1, 4), st.floats(0, 1), plausible)),
    )


def mutate(data: bytes, how: str, what: Any) -> bytes:
    if how == "truncate":
        return data[: int(what * len(data))]
    if how == "flip":
        at, byte = what
        position = min(int(at * len(data)), len(data) - 1)
        return data[:position] + bytes([byte]) + data[position + 1 :]
    if how == "insert":
        at, extra = what
        position = int(at * len(data))
        return data[:position] + extra + data[position:]
    if how == "nest":
        return data + b"[" * what + b"]" * what + b"\n"
    if how == "number":
        return data + b'{"round":' + b"9" * what + b"}\n"
    number, at, value = what

    def replace(record: dict[str, Any]) -> None:
        paths: list[tuple[Any, Any]] = []

        def walk(node: Any) -> None:
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, child in items:
                if how == "value" or not isinstance(child, dict | list):
                    paths.append((node, key))
                if isinstance(child, dict | list):
                    walk(child)

        walk(record)
        node, key = paths[min(int(at * len(paths)), len(paths) - 1)]
        node[key] = value

    return edited(data, number + 1, replace, sign=True)


@settings(max_examples=examples(150))
@given(mutation=mutations())
def test_fuzzed_state_files_give_our_errors_only(
    tmp_path_factory: pytest.TempPathFactory, finished_state: bytes, mutation: tuple[str, Any]
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "state.jsonl"
    path.write_bytes(mutate(finished_state, *mutation))
    arena = Arena("orderchaos", ["random", "greedy"], games=4, seed=5)
    try:
        state = ArenaState.resume(path, arena)
    except (ArenaError, AbstractGamesError):
        return
    state.close()


# --- memory -------------------------------------------------------------------------------------


class Replayed(Executor):
    """Plays every match with one recorded result, at once (what the arena keeps is measured)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        for task in tasks:
            yield task, self.text


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

    growth = peak(3_000) - peak(300)  # keeping the records took 7 kB a game
    assert growth < 300_000, f"{growth:,} bytes more for 2,700 more games"
