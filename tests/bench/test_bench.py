"""Speed measurements (`abstractgames.bench`); the command line's `bench` is in
tests/cli/test_bench.py."""

from __future__ import annotations

import random

from abstractgames.bench import PHASES, phase_positions, run_benchmarks, run_vector_benchmarks
from abstractgames.registry import parse_game_spec


def test_vector_benchmark_reports_every_batch_size() -> None:
    table = run_vector_benchmarks(
        ["entropy:size=5"], sizes=(1, 8), games=3, repeats=1, min_seconds=0.01
    )
    row = table["entropy:size=5"]
    assert set(row) == {"scalar", "vector", "bytes_per_lane"}
    assert set(row["vector"]) == {"1", "8"}  # type: ignore[arg-type]
    assert row["bytes_per_lane"] > 0  # type: ignore[operator]


def test_a_search_is_measured_by_phase() -> None:
    """A player that reports its nodes gets its nodes per second and depth by phase, before its
    moves per second; a player that does not gets neither."""
    (result,) = run_benchmarks(
        ["entropy:size=5"], games=2, repeats=2, players=["random", "search:depth=1"], positions=3
    )
    units = [m.unit for m in result.measurements]
    assert units[-2:] == ["moves by random", "moves by search:depth=1"]
    phases = [m for m in result.measurements if m.depths]
    assert [m.unit for m in phases] == [
        f"search:depth=1 {phase} (depth 1.0) nodes" for phase in PHASES
    ]
    for m in phases:
        assert len(m.runs) == len(m.depths) == 2
        assert m.to_json()["depth"] == 1.0
        assert m.median > 0


def test_phase_positions_come_from_each_third_of_a_game() -> None:
    game = parse_game_spec("entropy:size=5")
    found = phase_positions(game, 4, random.Random(3))
    assert list(found) == list(PHASES)
    placed = {phase: [s.placements for s in states] for phase, states in found.items()}
    assert all(len(states) == 4 for states in found.values())
    assert max(placed["opening"]) < min(placed["endgame"])
    assert all(not s.is_chance() and not s.is_terminal() for v in found.values() for s in v)
