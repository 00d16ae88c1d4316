"""The scripts of benchmarks/ run: the speed of the game-AI adapters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (no wheel here?): pip install '.[rl]'"
)


def test_the_adapter_benchmark_runs() -> None:
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "adapters.py"
    done = subprocess.run(
        [sys.executable, str(script), "--json", "--games", "2", "--repeats", "1", "orderchaos"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    assert [r["path"] for r in results] == [
        "protocol moves",
        "protocol actions",
        "pettingzoo",
        "openspiel",
        "openspiel C++ mnk",
    ]
    assert all(r["moves_per_second"] > 0 for r in results)
