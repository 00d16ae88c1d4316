"""Running `abstractgames arena` in this process or in processes of its own, and finding every
process a run started (by a mark in its environment)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from click.testing import CliRunner

from abstractgames.cli import main
from tests.conftest import BAD_ENGINE, command, is_gone

ABSTRACTGAMES = [sys.executable, "-m", "abstractgames"]
MARK = "ABSTRACTGAMES_TEST_RUN"


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``abstractgames arena ARGS`` in this process: the exit code, stdout and stderr."""
    result = CliRunner().invoke(main, ["arena", *args], env=env)
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
