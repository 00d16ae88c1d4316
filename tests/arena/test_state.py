"""The resumable state file of a tournament (`abstractgames.arena.state`): what resuming checks
(the tournament, its time control, a file from before time controls), files that never end,
hostile JSON, edited and fuzzed matches, and a file locked by another run."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import resource
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames.arena import Arena, ArenaError, ArenaState
from abstractgames.protocol import AbstractGamesError
from tests.conftest import examples, posix_signals
from tests.support.arena import ABSTRACTGAMES, error_line, run

# --- what resuming checks -------------------------------------------------------------------------


def test_resume_checks_the_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.jsonl"
    base = ["orderchaos", "-p", "random", "greedy", "-n", "2", "-j", "1", "--state", str(state)]
    code, _, err = run(*base, "--resume")
    assert code == 1 and "there is no tournament to resume in" in err
    code, first, _ = run(*base, "--seed", "5")
    assert code == 0 and state.exists()  # kept: it was named
    code, _, err = run(*base, "--seed", "6", "--resume")
    assert code == 1 and "holds the tournament of orderchaos with seed 5" in err
    code, again, _ = run(*base, "--seed", "5", "--resume")
    assert code == 0 and again == first
    # more games: the matches played are reused, only the new ones are played
    more = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1", "--state", str(state)]
    code, _, err = run(*more, "--seed", "5", "--resume")
    assert code == 0, err
    assert len(state.read_text().splitlines()) == 1 + 4
    state.write_text("not json\n")
    code, _, err = run(*base, "--seed", "5", "--resume")
    assert code == 1 and "is not an arena state file" in err


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


@posix_signals
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


@posix_signals
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


@posix_signals
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


@posix_signals
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


@posix_signals
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
