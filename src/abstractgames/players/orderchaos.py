"""How the bots judge an Order and Chaos position.

**Line potential**: every five-square window that holds only one kind of symbol (and empty
squares) could still become Order's line; it is worth ``WEIGHTS[k]`` for its ``k`` symbols. A
window holding both symbols is dead. Order wants the total high, Chaos low; a window with four and
a gap is a threat to win on the next move, so it weighs far more than the rest.
"""

from __future__ import annotations

from ..orderchaos import CHAOS, ORDER, WINDOWS, OrderChaosState
from ..protocol import State

__all__ = ["WEIGHTS", "evaluate", "line_potential"]

WEIGHTS = (0, 1, 4, 20, 400, 0)
"""The worth of a live window by its number of like symbols (0 to 5; five has already won)."""


def line_potential(state: OrderChaosState) -> int:
    """The sum of the weights of all live windows."""
    x, o = state.x, state.o
    total = 0
    for window in WINDOWS:
        xs = (x & window).bit_count()
        os_ = (o & window).bit_count()
        if not os_:
            total += WEIGHTS[xs]
        if not xs:
            total += WEIGHTS[os_]
    return total


def evaluate(state: State, role: str) -> float:
    """Higher is better for ``role``: ±inf once decided, else line potential (negated for Chaos)."""
    assert isinstance(state, OrderChaosState)
    outcome = state.outcome()
    if outcome is not None:
        return float("inf") if outcome.winner == role else float("-inf")
    potential = float(line_potential(state))
    return potential if role == ORDER else -potential if role == CHAOS else 0.0
