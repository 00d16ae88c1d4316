"""The patterns of a line ([`line_pattern`][]: which of its counters are alike, read either way)
and the search's evaluation of a line by its pattern, the [`PatternTable`][] learned from
self-play and kept in `patterns.json` beside this module."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources

from ...entropy import EMPTY, line_code
from .tables import _LANE, _colour_points, _FeatureCache, _packed, _Parts

_SHIFTS = {size: tuple(range(0, 3 * size, 3)) for size in (5, 7)}


def line_pattern(line: str) -> str:
    """The pattern of a rank or file: what its score and prospects depend on.

    A line's score depends only on which of its counters are alike, and it reads the same both
    ways: the pattern names the colours `A`, `B`, … in the order they first appear, `"."` for an
    empty square, and of the line and its reverse keeps the one that comes last in
    alphabetical order. There are 2,152 patterns of 7 squares and 117 of 5.

    Examples:
        >>> line_pattern("..RKR.."), line_pattern("W.YKY.."), line_pattern("..YKY.W")
        ('..ABA..', 'A.BCB..', 'A.BCB..')
    """
    return _pattern(len(line), line_code(line))


def _pattern(size: int, code: int) -> str:
    """[`line_pattern`][] of a line code."""
    cells = [code >> 3 * i & 7 for i in range(size)]
    return _pattern_text(size, _pattern_number(cells))


def _pattern_number(cells: list[int]) -> int:
    """The pattern of a line (its colours by square, 0 for empty) as a number: the pattern's
    letters as the digits 1, 2, … in base 8, `"."` as 0, the first square the most significant
    digit, so that the numbers of two patterns compare as the patterns do."""
    return max(_relabelled(cells)[0], _relabelled(cells[::-1])[0])


def _relabelled(cells: list[int]) -> tuple[int, list[int]]:
    """A line's colours renamed 1, 2, … in the order they first appear, as a number (base 8,
    the first square the most significant digit), and the colours in that order."""
    names = [0] * 8
    colours: list[int] = []
    number = 0
    for colour in cells:
        number <<= 3
        if colour:
            name = names[colour]
            if not name:
                colours.append(colour)
                name = names[colour] = len(colours)
            number |= name
    return number, colours


_PATTERN_CHARACTERS = EMPTY + "ABCDEFG"


def _pattern_text(size: int, number: int) -> str:
    return "".join([_PATTERN_CHARACTERS[number >> 3 * i & 7] for i in reversed(range(size))])


def _pattern_of_text(pattern: str) -> int:
    number = 0
    for character in pattern:
        number = number << 3 | _PATTERN_CHARACTERS.index(character)
    return number


class PatternTable:
    """The search's evaluation of a line, learned from self-play by
    `scripts/train_entropy_patterns.py` (see
    [Entropy bots](../bots-entropy.md#where-the-line-values-come-from)).

    A line is worth its score, plus the growth its pattern ([`line_pattern`][]) showed from a
    position to the end of the training games, plus its open patterns (the points each colour
    would add on each empty square, by the colour's share of the bag) times a weight by the
    number of its empty squares: the line value estimates the line's final score.

    Attributes:
        size: the length of the lines (5 or 7).
        growth: pattern -> how much a line's score grew, on average, to the end of the game,
            beyond what its open patterns say (every pattern of `size` squares).
        potential: by the number of empty squares in a line, the weight of its open patterns.
    """

    __slots__ = ("_by_labels", "_by_number", "growth", "potential", "size")

    def __init__(self, size: int, growth: Mapping[str, float], potential: Sequence[float]) -> None:
        self.size = size
        self.growth = dict(growth)
        self.potential = tuple(potential)
        if len(self.potential) != size + 1:
            raise ValueError(f"a table of {size} squares needs {size + 1} potential weights")
        missing = set(all_patterns(size)) - self.growth.keys()
        if missing:
            raise ValueError(f"the table of {size} squares has no growth for {min(missing)!r}")
        grown = [p for p in all_patterns(size) if EMPTY not in p and self.growth[p]]
        if grown:
            raise ValueError(f"a full line cannot grow, but the table has {grown[0]!r} grow")
        self._by_number = {_pattern_of_text(p): value for p, value in self.growth.items()}
        self._by_labels: dict[int, tuple[float, float, int, list[int]]] = {}

    def __repr__(self) -> str:
        return f"<PatternTable of {len(self.growth)} patterns of {self.size} squares>"

    def _parts(self, features: _FeatureCache, code: int) -> _Parts:
        """The value of the line `code` but for its open patterns (its score and its pattern's
        growth), the weight of its open patterns for its number of empty squares, and the
        points each colour would add to it on its empty squares: the parts of a line value
        that do not depend on the bag. (The search's hot path when a line is new: it skips the
        features cache.)

        They depend only on which squares are alike, so they are worked out once for each
        line with its colours renamed 1, 2, … in the order they first appear: the colours
        absent from the line add the same points, and each colour present adds its name's.
        """
        cells = [code >> shift & 7 for shift in _SHIFTS[self.size]]
        labelled, colours = _relabelled(cells)
        known = self._by_labels.get(labelled)
        if known is None:
            known = self._by_labels[labelled] = self._labelled_parts(features, code, cells, colours)
        growth, weight, packed, more = known
        for colour, extra in zip(colours, more, strict=True):
            packed += extra << _LANE * (colour - 1)
        return growth, weight, packed

    def _labelled_parts(
        self, features: _FeatureCache, code: int, cells: list[int], colours: list[int]
    ) -> tuple[float, float, int, list[int]]:
        """`_parts` of the line `code` (its colours by square: `cells`), whose colours in the
        order they first appear are `colours`, for every line alike: the points of a colour
        absent from the line in every colour's lane, and the points each colour present adds
        beyond that, by its name."""
        size, scores = self.size, features.scores
        empties = [i for i in range(size) if not cells[i]]
        growth = scores[code] + self._by_number[_pattern_number(cells)]
        if not empties:
            return growth, 0.0, 0, [0] * len(colours)
        _, gains = _colour_points(size, scores, code, empties)
        # A line with an empty square lacks a colour (it holds fewer counters than colours).
        absent = min(gains[c - 1] for c in range(1, size + 1) if c not in colours)
        return (
            growth,
            self.potential[len(empties)],
            _packed([absent] * size),
            [gains[c - 1] - absent for c in colours],
        )

    def scaled(self, growth: float, potential: float | None = None) -> PatternTable:
        """This table with its growths multiplied by `growth` and its potential weights by
        `potential` (by default the same factor), each rounded to 3 decimals as the packaged
        file keeps them."""
        weight = growth if potential is None else potential
        return PatternTable(
            self.size,
            {pattern: round(value * growth, 3) for pattern, value in self.growth.items()},
            [round(value * weight, 3) for value in self.potential],
        )

    @classmethod
    def load(cls, size: int) -> PatternTable:
        """The table the search plays with, for lines of `size` squares (from the package)."""
        return _packaged_table(size)


@cache
def all_patterns(size: int) -> tuple[str, ...]:
    """Every [`line_pattern`][] of `size` squares, in alphabetical order.

    Examples:
        >>> len(all_patterns(7)), all_patterns(5)[:3]
        (2152, ('.....', '..A..', '.A...'))
    """
    found: set[int] = set()

    def extend(prefix: list[int], used: int) -> None:
        if len(prefix) == size:
            found.add(_pattern_number(prefix))
            return
        for colour in range(used + 2):
            extend([*prefix, colour], max(used, colour))

    extend([], 0)
    return tuple([_pattern_text(size, number) for number in sorted(found)])


PATTERNS_FILE = "patterns.json"
"""The learned tables, in this package (written by `scripts/train_entropy_patterns.py`)."""


@cache
def _packaged_table(size: int) -> PatternTable:
    data = json.loads(resources.files(__package__).joinpath(PATTERNS_FILE).read_text("utf-8"))
    table = data["tables"].get(str(size))
    if table is None:
        raise ValueError(f"{PATTERNS_FILE} has no table of {size} squares")
    return PatternTable(size, table["growth"], table["potential"])
