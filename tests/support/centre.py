"""The empty board's centre certificate, made once a test process (solving the centre game takes
some seconds, so the tests that need it are marked slow and share it)."""

from __future__ import annotations

from functools import cache

from abstractgames.orderchaos import OrderChaosGame
from abstractgames.solvers import Solution
from abstractgames.solvers.orderchaos import solve

GAME = OrderChaosGame()


@cache
def root_solution() -> Solution:
    solution = solve(GAME.initial_state(), 18)
    assert solution.route == "pairing" and solution.certificate is not None
    return solution


@cache
def root_certificate() -> bytes:
    """The bytes of `solve orderchaos "6/6/6/6/6/6 order" --certificate`."""
    certificate = root_solution().certificate
    assert certificate is not None
    return certificate()
