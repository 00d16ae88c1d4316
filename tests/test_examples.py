"""Every script in examples/ runs, and the tiny engine plays through the referee."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from abstractgames import get_game, make_player
from abstractgames.records import MatchRecord
from abstractgames.referee import Referee

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,  # an engine example sees the end of input and quits
        cwd=EXAMPLES_DIR,
    )
    assert out.returncode == 0, out.stderr


def test_the_tiny_engine_plays_a_whole_game() -> None:
    game = get_game("orderchaos")
    command = shlex.join([sys.executable, str(EXAMPLES_DIR / "tiny_engine.py")])
    engine = make_player(f"engine:timeout=10:{command}", game)
    record = Referee(game, (engine, make_player("random", game)), seed=4).play()
    assert record.result is not None
    assert "illegal" not in record.result.reason and "sent" not in record.result.reason
    MatchRecord.loads(record.dumps()).replay()
