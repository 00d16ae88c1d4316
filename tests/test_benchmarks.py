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


def test_the_baseline_summary_is_the_strength_pages_row(tmp_path: Path) -> None:
    """`entropy_baseline.py --summary` reads arenas' JSON results: match points and the Order
    scores of both sides, whichever seat each match gave the baseline."""
    spec = "engine:name=baseline:baseline/venv/bin/abstractgames engine --player search:time=0.1"
    results = {
        "game": "entropy",
        "names": ["search:time=0.1", "baseline"],
        "players": ["search:time=0.1", spec],
        "matches": [
            {"players": ["search:time=0.1", spec], "scores": [90, 80], "winner": 1},
            {"players": [spec, "search:time=0.1"], "scores": [85, 75], "winner": 1},
            {"players": ["search:time=0.1", spec], "scores": [80, 80], "winner": None},
        ],
    }
    path = tmp_path / "4402.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "entropy_baseline.py"), "--summary", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "search:time=0.1 against baseline: 3 matches, match points 50.0% (1-1-1); "
        "Order 81.7 ± 19.0; Chaos concedes 81.7 ± 7.2; paired +0.0 ± 24.8"
    )
