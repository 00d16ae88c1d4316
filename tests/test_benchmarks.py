"""The scripts of benchmarks/ run: the speed of the game-AI adapters and of Entropy's search."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_the_adapter_benchmark_runs() -> None:
    pytest.importorskip("numpy")
    pytest.importorskip(
        "pyspiel", reason="OpenSpiel is not installed (no wheel here?): pip install '.[rl]'"
    )
    script = BENCHMARKS / "adapters.py"
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


def test_the_entropy_search_benchmark_compares_two_versions() -> None:
    """Against a copy of the same source, both versions search alike: the same digest."""
    source = Path(__file__).resolve().parent.parent / "src"
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "entropy_order_search.py"),
            "--games",
            "1",
            "--positions",
            "1",
            "--rounds",
            "1",
            "--against",
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    this, against = (line for line in lines if "digest" in line)
    assert this.split("digest ")[1] == against.split("digest ")[1]
    assert "this / against, by round: median" in lines[-1]
    assert lines[0].startswith("Order's positions: 1;")
