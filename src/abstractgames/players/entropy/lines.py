"""Line values: what a rank or file is worth ([`line_value`][]) by one of the two evaluations,
hand-set [`Weights`][] or a learned [`PatternTable`][], and the values of an evaluation for a
bag, kept for the positions of a search (they share the root's bag)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import NamedTuple

from ...entropy import line_code
from .patterns import PatternTable
from .tables import _CACHE_LIMIT, _LANE, _LANE_MASK, _FeatureCache, _packed, _Parts, _tables


class Weights(NamedTuple):
    """Hand-set weights of the shape terms of a line (see
    [the module][abstractgames.players.entropy]): greedy Order's evaluation."""

    potential: float
    """Weight of the open patterns: the points each colour would score on each empty square,
    weighted by that colour's share of the bag."""
    segment: float
    """Cost of each maximal stretch of empty squares."""
    hole: float
    """Extra cost of a stretch of one empty square."""
    guarantee: float
    """Weight of the points a hole guarantees (the least any colour scores there)."""

    def _parts(self, features: _FeatureCache, code: int) -> _Parts:
        """The value of the line `code` but for its open patterns, their weight, and the points
        each colour would add to it."""
        score, segments, holes, guarantee, gains = features[code]
        static = score - self.segment * segments - self.hole * holes + self.guarantee * guarantee
        return static, self.potential, _packed(gains)


HAND_WEIGHTS = Weights(potential=0.6, segment=0.5, hole=0.5, guarantee=0.5)
"""The hand-set weights of greedy Order's [`evaluate`][]."""


LineEvaluation = Weights | PatternTable
"""What turns a line into its value: hand-set weights or a learned table."""


# The lines a search meets keep changing from game to game (some 25,000 new ones a game at
# 0.025 s a move); the parts of 500,000 take about 150 MB.
_PARTS_LIMIT = 500_000


# Line values are rounded to a multiple of 1/_GRID. A position's value, a sum of line values, is
# then exact whatever the order of the additions and subtractions that keep it up to date, and
# so are its changes: the values searched at depth 2, the training games' player, do not depend
# on how the search adds them up (see `scripts/train_entropy_patterns.py`).
_GRID = float(1 << 20)


class _StaticParts(dict[int, _Parts]):
    """Line code -> (its value but for the open patterns, the weighted points each colour would
    add), for one evaluation: what a line value keeps from one bag to the next."""

    def __init__(self, features: _FeatureCache, evaluation: LineEvaluation) -> None:
        super().__init__()
        self.features = features
        self.evaluation = evaluation

    def __missing__(self, code: int) -> _Parts:
        if len(self) >= _PARTS_LIMIT:
            # The oldest half goes: the lines of the games played lately stay.
            for old in list(islice(self, _PARTS_LIMIT // 2)):
                del self[old]
        found = self[code] = self.evaluation._parts(self.features, code)
        return found


_STATIC: dict[tuple[int, LineEvaluation], _StaticParts] = {}


class _LineValues(dict[int, float]):
    """Line code -> line value for one evaluation and bag, computed when first asked for."""

    def __init__(
        self, features: _FeatureCache, evaluation: LineEvaluation, bag: tuple[int, ...]
    ) -> None:
        super().__init__()
        self.features = features
        self.evaluation = evaluation
        key = (features.size, evaluation)
        static = _STATIC.get(key)
        if static is None or static.features is not features:
            if len(_STATIC) > 8:
                _STATIC.clear()
            static = _STATIC[key] = _StaticParts(features, evaluation)
        self.static = static
        # A line's open patterns weigh each colour's points by the colour's share of the bag:
        # summed over the colours as ints (`_packed`), then divided by the bag's total.
        total = sum(bag)
        self.counts = _packed(reversed(bag))
        self.shift = _LANE * (len(bag) - 1)
        self.total = total if total else 1

    def __missing__(self, code: int) -> float:
        if len(self) > _CACHE_LIMIT:
            self.clear()
        static, weight, gains = self.static[code]
        raw = static + weight * ((gains * self.counts >> self.shift) & _LANE_MASK) / self.total
        value = round(raw * _GRID) / _GRID
        self[code] = value
        return value


_VALUES: dict[tuple[int, LineEvaluation, tuple[int, ...]], _LineValues] = {}


def _line_values(
    features: _FeatureCache, evaluation: LineEvaluation, bag: Iterable[int]
) -> _LineValues:
    """The line values of `evaluation` for the bag, kept for the positions to come (a search's
    positions share the root's bag)."""
    counts = tuple(bag)
    key = (features.size, evaluation, counts)
    values = _VALUES.get(key)
    if values is None or values.features is not features:
        if len(_VALUES) >= 4:
            del _VALUES[next(iter(_VALUES))]
        values = _VALUES[key] = _LineValues(features, evaluation, counts)
    return values


def line_value(
    line: str, evaluation: LineEvaluation | None = None, bag: dict[str, int] | None = None
) -> float:
    """The value of one rank or file: its score plus what it looks set to score (see the
    module).

    Args:
        line: 5 or 7 characters, a colour letter or `"."` each (e.g. `"R.R...."`).
        evaluation: the search's table ([`PatternTable.load`][]) unless given.
        bag: the counters left of each colour (default: the same number of each).
    """
    tables = _tables(len(line))
    counts = [1] * tables.size if bag is None else [bag.get(c, 0) for c in tables.colours]
    evaluation = evaluation or PatternTable.load(tables.size)
    return _line_values(tables.features, evaluation, counts)[line_code(line)]
