"""`abstractgames solve`: the answer, the defaults, the progress lines, the time limit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from abstractgames import State, get_game
from abstractgames import registry as registry_module
from abstractgames.cli import main
from abstractgames.solvers import SolverEntry


def run_cli(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.output


def test_solve_dispersal_from_the_command_line() -> None:
    code, out = run_cli("solve", "dispersal", "S1O1O/O1SOS/S4/OOSSO/S4", "S")
    assert code == 0, out
    assert out.strip() == "S wins in 1 move: d2-e1"
    code, out = run_cli("solve", "dispersal", "SSSSS/S3S/5/O3O/OOOOO", "O", "--moves", "2")
    assert code == 0, out
    assert "no forced win for O within 2 moves" in out
    code, out = run_cli("solve", "entropy", "7/7/7/7/7/7/7", "draw")
    assert code == 1 and "there is no solver for 'entropy' (solvers: dispersal, orderchaos)" in out
    code, out = run_cli("solve", "orderchaos", "6/6/6/6/6/XXXX2", "order", "-q")
    assert code == 0 and out == "Order wins in 1 move: X@e1\n"
    code, out = run_cli("solve", "dispersal", "SOSOS/1S3/O1O1O/2S2/SOSO1", "X")
    assert code == 1 and "Error:" in out


# --- the deepening: defaults, progress, the time limit --------------------------------------------


GAME = get_game("dispersal")
PUZZLE = "S1OSO/O3S/O3O/1O2S/SSS1O O"  # the dispersal page's "O to play and win"
START = GAME.initial_state().position()
PROGRESS = re.compile(r"no forced win for O within (\d+) moves? \([\d,]+ positions?, \d+\.\d s\)")


def run(*args: str) -> Result:
    result = CliRunner().invoke(main, ["solve", *args])
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result


def depths(stderr: str) -> list[int]:
    """The numbers of moves ruled out, from the progress lines (every line must be one)."""
    found = []
    for line in stderr.splitlines():
        match = PROGRESS.fullmatch(line)
        assert match is not None, line
        found.append(int(match.group(1)))
    return found


@pytest.mark.slow
def test_the_defaults_find_the_puzzle_and_show_the_depths() -> None:
    result = run("dispersal", *PUZZLE.split())
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("O wins in 6 moves: a4-c4 pass b2-a2 ")
    assert result.stdout.count("\n") == 1
    assert depths(result.stderr) == [1, 2, 3, 4, 5]


def test_the_defaults_are_ten_moves_and_a_minute() -> None:
    solve = main.get_command(
        main.make_context("abstractgames", [], resilient_parsing=True), "solve"
    )
    assert solve is not None
    params = {p.name: p for p in solve.params}
    assert params["max_moves"].default == 10
    assert params["time_limit"].default == 60.0


def test_quiet_prints_the_answer_only() -> None:
    result = run("dispersal", PUZZLE, "--moves", "3", "-q")
    assert result.exit_code == 0, result.output
    assert result.stdout == "no forced win for O within 3 moves\n"
    assert result.stderr == ""


def test_the_cap_ends_the_deepening_without_repeating_the_answer() -> None:
    result = run("dispersal", START, "--moves", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout == "no forced win for O within 3 moves\n"
    assert depths(result.stderr) == [1, 2]


def test_the_time_limit_stops_the_deepening_and_says_how_far_it_got() -> None:
    result = run("dispersal", START, "--time", "0.3")
    assert result.exit_code == 0, result.output
    reached = depths(result.stderr)
    assert reached == list(range(1, len(reached) + 1)) and 1 <= len(reached) < 10
    last = reached[-1]
    plural = "" if last == 1 else "s"
    assert result.stdout == (
        f"no forced win for O within {last} move{plural}; undecided within 10: "
        f"the time limit stopped the search at {last + 1}\n"
    )


@pytest.mark.parametrize(("value", "message"), [("0", "range"), ("nan", "not nan")])
def test_the_time_is_still_checked(value: str, message: str) -> None:
    result = run("dispersal", PUZZLE, "--time", value)
    assert result.exit_code == 2 and message in result.output


def test_a_solver_without_progress_still_works(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []

    def plain(state: State, max_moves: int, time_limit: float | None) -> str:
        calls.append((state.position(), max_moves, time_limit))
        return "nothing to report"

    # A bare function, as a plugin gives it: an entry that declares no options.
    monkeypatch.setattr(registry_module, "solver_entry_for", lambda game: SolverEntry(plain))
    result = run("dispersal", PUZZLE)
    assert result.exit_code == 0, result.output
    assert result.output == "nothing to report\n"
    assert calls == [(PUZZLE, 10, 60.0)]
    result = run("dispersal", PUZZLE, "--memory", "10")
    assert result.exit_code == 2 and "the solver of dispersal has no --memory" in result.output
    result = run("dispersal", PUZZLE, "--certificate", "never.cert")
    assert result.exit_code == 1, result.output
    assert "the solver of dispersal writes no certificates" in result.output


# --- the solver's files: checked up front, read within bounds -------------------------------------

HOLD = "X1O1XX/OO1O2/XX3X/1OXX1O/XO2O1/2O1XX order"  # Order and Chaos: Chaos holds (0.6 s)


def solve_in_child(*args: str, memory: int = 2 << 30) -> subprocess.CompletedProcess[str]:
    """`abstractgames solve ARGS` in a child process with `memory` bytes of address space at
    most, within 60 seconds (a file read whole, or a hang, fails the test, not the machine)."""

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "abstractgames", "solve", *args],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit if sys.platform == "linux" else None,
        check=False,
    )


@pytest.mark.parametrize("where", ["missing", "proc"])
def test_a_checkpoint_that_cannot_be_written_is_refused_before_the_search(
    where: str, tmp_path: Path
) -> None:
    if where == "proc":
        if not Path("/proc/self").is_dir():
            pytest.skip("no /proc here")
        path = "/proc/abstractgames-work.ckpt"  # no new file can be made there, even by root
    else:
        path = str(tmp_path / "missing" / "work.ckpt")
    started = time.monotonic()
    # The empty board is not solved in 2 s: the run fails at once, or at its end, or at a save.
    result = run("orderchaos", "6/6/6/6/6/6", "order", "--time", "2", "--checkpoint", path)
    assert result.exit_code == 2, result.output
    assert time.monotonic() - started < 1.5
    assert f"cannot write the checkpoint to {path!r}" in result.output
    assert "Traceback" not in result.output


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_checkpoint_that_is_dev_zero_is_refused_unread() -> None:
    result = solve_in_child("orderchaos", HOLD, "--checkpoint", "/dev/zero")
    assert result.returncode == 2, result.stderr[-2000:]
    assert "cannot write the checkpoint to '/dev/zero': a character device, not a regular file" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr


def test_a_checkpoint_that_is_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    from tests.support.hostile_files import without_blocking

    fifo = tmp_path / "work.ckpt"
    os.mkfifo(fifo)
    result = without_blocking(lambda: run("orderchaos", HOLD, "--checkpoint", str(fifo)), fifo)
    assert result.exit_code == 2, result.output
    assert "a FIFO (named pipe), not a regular file" in result.output


@pytest.mark.slow
def test_a_checkpoint_that_is_a_compression_bomb_is_refused_quickly(tmp_path: Path) -> None:
    from tests.support.hostile_files import zlib_bomb

    path = tmp_path / "work.ckpt"
    root = HOLD.encode()
    header = b"AGOCCKPT" + (2).to_bytes(2, "little") + len(root).to_bytes(2, "little") + root
    path.write_bytes(header + zlib_bomb())  # four gigabytes of zeroed entries, in 4 MB
    started = time.monotonic()
    result = solve_in_child("orderchaos", HOLD, "--checkpoint", str(path), memory=1 << 30)
    assert time.monotonic() - started < 30
    assert result.returncode == 1, result.stderr[-2000:]
    assert f"Error: checkpoint {str(path)!r} holds more than the " in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_zeroed_checkpoint_is_an_error_not_a_crash(tmp_path: Path) -> None:
    import zlib

    path = tmp_path / "work.ckpt"
    assert run("orderchaos", HOLD, "-q", "--checkpoint", str(path)).exit_code == 0
    data = path.read_bytes()
    length = int.from_bytes(data[10:12], "little")
    body = zlib.decompress(data[12 + length :])
    zeroed = b"".join(body[i : i + 9] + bytes(11) for i in range(0, len(body), 20))
    path.write_bytes(data[: 12 + length] + zlib.compress(zeroed))
    result = run("orderchaos", HOLD, "-q", "--checkpoint", str(path))
    assert result.exit_code == 1, result.output
    assert f"Error: checkpoint {str(path)!r} is damaged: entry 0 " in result.output


@pytest.mark.parametrize("value", ["inf", "1e400", "-inf", "nan", "1e12"])
def test_the_memory_is_a_finite_sane_number(value: str) -> None:
    result = run("orderchaos", HOLD, "--memory", value)
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--memory'" in result.output
    assert "Traceback" not in result.output
