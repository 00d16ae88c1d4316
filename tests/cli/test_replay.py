"""`abstractgames replay`: a record checked against the rules, a tampered one refused, and every
position walked with `--step`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from abstractgames.cli import main
from abstractgames.records import MatchRecord


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.output


def test_replay_rejects_a_tampered_record(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, _ = run(
        "play", "orderchaos", "-1", "random", "-2", "random", "--seed", "1", "--record", str(path)
    )
    assert code == 0
    data = json.loads(path.read_text())
    data["games"][0]["moves"][1]["move"] = data["games"][0]["moves"][0]["move"]
    path.write_text(json.dumps(data))
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "replay", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: game 1, move 2")
    path.write_text(path.read_text()[:50])
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "replay", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 1 and "not valid JSON" in out.stderr


def test_replay_step_walks_every_position(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    run("play", "orderchaos", "-1", "greedy", "-2", "random", "--seed", "1", "--record", str(path))
    plies = len(MatchRecord.load(path).games[0].moves)
    code, out = run("replay", str(path), "--step", "--no-color")
    assert code == 0
    assert out.count("    a  b  c  d  e  f") == plies + 1
