"""Speed measurements (`abstractgames.bench`); the command line's `bench` is in
tests/cli/test_bench.py."""

from __future__ import annotations

from abstractgames.bench import run_vector_benchmarks


def test_vector_benchmark_reports_every_batch_size() -> None:
    table = run_vector_benchmarks(
        ["entropy:size=5"], sizes=(1, 8), games=3, repeats=1, min_seconds=0.01
    )
    row = table["entropy:size=5"]
    assert set(row) == {"scalar", "vector", "bytes_per_lane"}
    assert set(row["vector"]) == {"1", "8"}  # type: ignore[arg-type]
    assert row["bytes_per_lane"] > 0  # type: ignore[operator]
