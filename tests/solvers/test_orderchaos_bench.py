"""The speed of the Order and Chaos solver and of the certificate checker (pytest-benchmark:
`pytest tests/solvers/test_orderchaos_bench.py --benchmark-enable` measures; by default each
runs once, as a test, with no timed assertion)."""

from __future__ import annotations

from typing import Any

from abstractgames.orderchaos import OrderChaosGame
from abstractgames.solvers.orderchaos import solve
from abstractgames.solvers.verify import Certificate, check_certificate

GAME = OrderChaosGame()
WIN5 = "O3O1/OXX3/1OO1XX/XX1X1X/XO1XOO/3O1O order"  # 16 empty: Order wins in 5


def test_solve_a_win_in_five(benchmark: Any) -> None:
    solution = benchmark(solve, GAME.from_position(WIN5), 18)
    assert solution.moves == 5


def test_check_its_certificate(benchmark: Any) -> None:
    solution = solve(GAME.from_position(WIN5), 18)
    certificate = Certificate("orderchaos", WIN5, "order", 5, solution.strategy())
    report = benchmark(check_certificate, certificate, GAME)
    assert report.longest == 5
