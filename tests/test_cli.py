"""The command line: help, bench, and one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames import available_games
from abstractgames.cli import main


def test_help_and_version() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "bench" in result.output
    result = runner.invoke(main, ["--version"])
    assert result.exit_code == 0 and "abstractgames" in result.output


def test_python_dash_m() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert "Usage" in out.stdout


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


def test_list_shows_games_and_players() -> None:
    result = CliRunner().invoke(main, ["list"])
    assert result.exit_code == 0, result.output
    for name in available_games():
        assert f"\n  {name} " in result.output
    assert re.search(r"\n  search +time=1\.0, depth=None +built in", result.output)
    assert "path/to/bot.py:MyBot" in result.output
    listing = json.loads(CliRunner().invoke(main, ["list", "--json"]).output)
    assert [g["name"] for g in listing["games"]] == list(available_games())
    assert {p["name"]: p["origin"] for p in listing["players"]}["greedy"] == "built in"


def test_check_runs_the_conformance_kits(tmp_path: Path) -> None:
    bot = tmp_path / "bad_bot.py"
    bot.write_text(
        "from abstractgames.players import Player\n\n\n"
        "class Stubborn(Player):\n"
        "    def choose(self, state, rng, time_left=None):\n"
        "        return state.legal_moves()[0]  # even where there is no move to choose\n"
    )
    result = CliRunner().invoke(main, ["check", "dispersal", "-n", "5", "-p", "random"])
    assert result.exit_code == 0, result.output
    assert "  ok   position_round_trip" in result.output
    assert "  ok   refuses_chance_nodes" in result.output
    result = CliRunner().invoke(main, ["check", "orderchaos", "-n", "5", "-p", f"{bot}:Stubborn"])
    assert result.exit_code == 1
    assert "  ok   plays_only_legal_moves" in result.output
    assert "  FAIL refuses_finished_games: " in result.output
    result = CliRunner().invoke(main, ["check", "orderchaos", "-p", "nobody"])
    assert result.exit_code == 1 and "unknown player 'nobody'" in result.output


@pytest.mark.parametrize("command", ["play", "bench", "engine", "codecup", "arena"])
@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("2x", "'2x' is not a valid integer"),
        (str(2**64), f"{2**64} is out of range: a seed is below 2**64"),
    ],
)
def test_every_seed_option_refuses_the_same_bad_seeds(
    command: str, seed: str, message: str
) -> None:
    result = CliRunner().invoke(main, [command, "--seed", seed])
    assert result.exit_code == 2
    assert f"Invalid value for '--seed': {message}" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["play", "bench", "engine", "codecup", "arena"])
def test_seed_help_reads_integer_without_the_range(command: str) -> None:
    help_text = CliRunner().invoke(main, [command, "--help"]).output
    assert "--seed INTEGER " in help_text
    assert "18446744073709551615" not in help_text


@pytest.mark.parametrize(
    "args",
    [
        ["play", "orderchaos", "-1", "mc", "-2", "random", "--no-save"],
        ["bench", "orderchaos", "--vector", "-n", "2", "-r", "1"],
    ],
)
def test_batched_simulation_without_numpy_says_what_to_install(args: list[str]) -> None:
    hide_numpy = (
        "import sys; sys.modules['numpy'] = None; from abstractgames.cli import main; "
        f"main({args!r})"
    )
    done = subprocess.run(
        [sys.executable, "-c", hide_numpy], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "Error: the batched simulator of 'orderchaos' needs numpy: "
        "pip install 'abstractgames[vector]'"
    )
