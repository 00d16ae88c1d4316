"""`abstractgames bench`: text and JSON, players on fixed positions, the batched simulators, and
errors as one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames import available_games
from abstractgames.cli import main
from tests.conftest import posix_signals


def test_bench_text_and_json() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["bench", "orderchaos", "-n", "20", "-r", "2"])
    assert result.exit_code == 0, result.output
    assert "random games/s" in result.output
    result = runner.invoke(main, ["bench", "orderchaos", "-n", "20", "-r", "3", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["repeats"] == 3
    (entry,) = payload["results"]
    assert entry["game"] == "orderchaos"
    games = entry["measurements"][0]
    assert games["unit"] == "random games"
    assert len(games["runs"]) == 3
    assert sorted(games["runs"])[1] == games["median"]


def test_bench_unknown_game_is_one_line_error() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "bench", "chess"], capture_output=True, text=True
    )
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        f"Error: unknown game 'chess'; available games: {', '.join(available_games())}"
    ]


def test_bench_bad_flags() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["bench", "orderchaos", "-n", "0"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    result = runner.invoke(main, ["bench", "orderchaos:size=3"])
    assert result.exit_code == 1
    assert "has no parameter 'size'" in result.output


def test_bench_measures_players_on_fixed_positions() -> None:
    runner = CliRunner()
    args = ["bench", "dispersal", "-n", "5", "-r", "2", "-p", "random", "-p", "search:depth=1"]
    result = runner.invoke(main, [*args, "--positions", "4", "--json"])
    assert result.exit_code == 0, result.output
    units = [m["unit"] for m in json.loads(result.output)["results"][0]["measurements"]]
    assert units[-2:] == ["moves by random", "moves by search:depth=1"]
    result = runner.invoke(main, ["bench", "dispersal", "-n", "5", "-p", "deepblue"])
    assert result.exit_code == 1 and "unknown player 'deepblue'" in result.output


@pytest.mark.slow
def test_bench_vector_json_on_the_command_line() -> None:
    result = CliRunner().invoke(
        main, ["bench", "orderchaos", "--vector", "--json", "-n", "5", "-r", "1"]
    )
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)
    assert set(table) == {"orderchaos"}
    assert set(table["orderchaos"]["vector"]) == {"1", "64", "1024", "4096"}


# --- in a process of its own ----------------------------------------------------------------------


ABSTRACTGAMES = [sys.executable, "-m", "abstractgames"]


def run(*args: str, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ABSTRACTGAMES, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120
    )


@posix_signals
def test_a_failing_player_in_bench_is_one_line() -> None:
    done = run("bench", "orderchaos", "-n", "1", "-r", "1", "-p", "engine:/bin/false")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "player 'engine:/bin/false' failed in" in done.stderr
    assert "exited with status 1" in done.stderr
