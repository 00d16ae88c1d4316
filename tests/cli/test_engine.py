"""`abstractgames engine` and `abstractgames codecup`, serving a bot: errors as one line, and the
exit status of a signal."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from abstractgames import available_players
from tests.conftest import posix_only, posix_signals


@posix_only
def test_engine_command_errors_are_one_line() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "engine", "orderchaos", "--player", "deepblue"],
        capture_output=True,
        text=True,
        input="",
    )
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        "Error: unknown player 'deepblue'; available players: " + ", ".join(available_players())
    ]


# --- signals --------------------------------------------------------------------------------------


ABSTRACTGAMES = [sys.executable, "-m", "abstractgames"]


def start(*args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*ABSTRACTGAMES, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )


@pytest.mark.slow
@posix_signals
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
