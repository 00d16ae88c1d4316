"""Time management: the share of the clock a search takes, and deadlines."""

from __future__ import annotations

import math

import pytest

from abstractgames.timing import (
    CLOCK_SHARE,
    DEFAULT_MOVES_LEFT,
    NO_DEADLINE,
    Deadline,
    SearchTimeout,
    move_budget,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_without_a_clock_a_search_takes_its_time_per_move() -> None:
    assert move_budget(1.5, None) == 1.5
    assert move_budget(1.5, None, moves_left=1) == 1.5


def test_with_a_clock_a_search_takes_at_most_its_share() -> None:
    assert move_budget(10.0, 100.0) == pytest.approx(CLOCK_SHARE * 100.0 / DEFAULT_MOVES_LEFT)
    assert move_budget(10.0, 100.0, moves_left=50) == pytest.approx(CLOCK_SHARE * 2.0)
    assert move_budget(0.1, 100.0, moves_left=2) == 0.1
    assert move_budget(1.0, 1.0, moves_left=0) == pytest.approx(CLOCK_SHARE)  # the last move
    assert move_budget(1.0, -3.0) == 0.0  # a clock already past zero


def test_shares_never_add_up_to_more_than_the_clock() -> None:
    left = 60.0
    for moves in range(30, 0, -1):
        left -= move_budget(5.0, left, moves_left=moves)
    assert left > 0


def test_a_deadline_passes_after_its_seconds() -> None:
    clock = Clock()
    deadline = Deadline(2.0, clock=clock)
    assert deadline.limited and not deadline.passed() and deadline.elapsed() == 0
    deadline.check()
    clock.now += 2.0
    assert not deadline.passed()
    clock.now += 0.001
    assert deadline.passed() and deadline.elapsed() == pytest.approx(2.001)
    with pytest.raises(SearchTimeout):
        deadline.check()
    assert Deadline(-1.0, clock=clock).at == clock.now  # no time at all: passed at once


def test_no_deadline_never_passes() -> None:
    assert not NO_DEADLINE.limited and NO_DEADLINE.at == math.inf
    NO_DEADLINE.check()
    assert not Deadline(None).passed()
