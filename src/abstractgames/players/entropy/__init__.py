"""How the bots judge and search an Entropy position (see [Entropy bots](../bots-entropy.md)).

**Line values.** A position is worth the sum of the values of its ranks and files, each an
estimate of what the line will score when the board is full. Two evaluations give them:

- the search's, a [`PatternTable`][] learned from self-play by
  `scripts/train_entropy_patterns.py`: the line's score, plus how much lines of its pattern
  ([`line_pattern`][]: which counters are alike, read either way) grew to the end of the
  training games, plus its *open patterns* times a weight by its number of empty squares;
- greedy Order's, hand-set [`Weights`][] ([`HAND_WEIGHTS`][]): the score, plus the open
  patterns, minus each maximal stretch of empty squares (a fragmented board gives Chaos places
  to hide counters) and each hole (a stretch of one square, where Chaos can drop a useless
  colour that Order can hardly move out again), plus what the holes guarantee (`A.A` becomes
  at least `ABA` whatever fills it).

The open patterns of a line are, for each empty square and each colour, the points that colour
would add to the line there, times that colour's share of the bag (a colour that is all on the
board opens no pattern). A full line is worth its score, so on a full board the value is the
score.

**Greedy** ([`evaluate`][], on the position after the mover's move): Order takes the line
values; Chaos takes minus (the score + Order's best immediate slide gain + [`OPEN`][] × the open
patterns of the board, counted with the bag's shares).

**Search** ([`EntropySearch`][]): expectiminimax over the line values by iterative deepening, Order
maximising, Chaos minimising, draws averaged over the bag; alpha-beta at the players' nodes, Star1
and Star2 (probing) at the draws, with bounds from the line values; the best moves found kept by
Zobrist hash for the next iteration; Order's depths after 3 are searched narrow first
([`NARROW_WIDTHS`][]). Order's best reply to each Chaos placement is found incrementally: only the
slides through the placed counter's rank and file change value; and at the last two plies Chaos's
answers to a slide are recounted only on the lines it changes. Under a clock, the time goes mostly
to the middle game ([`phase_weights`][]).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from importlib import resources
from itertools import chain, islice
from operator import getitem
from typing import NamedTuple

from ...entropy import (
    CHAOS,
    EMPTY,
    ORDER,
    PASS,
    EntropyState,
    Placement,
    Slide,
    line_code,
    line_codes,
    line_occupancy,
    size_tables,
)
from ...protocol import Game, IllegalMoveError, Move, State
from ...timing import Deadline, SearchTimeout, phase_budget
from .. import Player, SearchInfo

__all__ = [
    "CHAOS_WIDTH",
    "FIRST_WIDTH",
    "HAND_WEIGHTS",
    "NARROW_WIDTHS",
    "OPEN",
    "ORDER_WIDTH",
    "PATTERNS_FILE",
    "ROOT_WIDTH",
    "EntropySearch",
    "LineEvaluation",
    "PatternTable",
    "Weights",
    "all_patterns",
    "evaluate",
    "line_pattern",
    "line_value",
    "phase_weights",
    "position_value",
]


# What a line value is made of: (score, empty stretches, holes, points guaranteed by the holes,
# for each colour the points it would score summed over the empty squares).
_Features = tuple[int, int, int, int, tuple[int, ...]]
# A line value but for the bag: (the value but for the open patterns, the weight of the open
# patterns, for each colour the points it would add packed in one int by `_packed`), the points
# summed with the colours' shares of the bag.
_Parts = tuple[float, float, int]
# The bits of each colour's number in `_packed`: the points a colour adds to a line, summed over
# its empty squares (at most 63, for `RRR.RRR`), times the counters left (49 at most) stay far
# below 2**20.
_LANE = 20
_LANE_MASK = (1 << _LANE) - 1


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


LineEvaluation = Weights | PatternTable
"""What turns a line into its value: hand-set weights or a learned table."""

OPEN = 0.3
"""Weight of Chaos's open patterns in the greedy evaluation."""
ROOT_WIDTH = 12
"""Root moves searched again at each deeper iteration after the second."""
FIRST_WIDTH = 24
"""Root moves searched at the second iteration (Order's depth 3, Chaos's depth 4), the best by
the first: the best move of the second iteration is almost always among them."""
ORDER_WIDTH = 8
"""Slides tried at an inner Order node (by their one-ply value)."""
CHAOS_WIDTH = 8
"""Squares tried at an inner Chaos node deeper than two plies (by Order's best reply)."""
NARROW_WIDTHS = (2, 4)
"""Order's searches deeper than 3 plies go first this many slides and squares wide at the
inner nodes, then [`ORDER_WIDTH`][] and [`CHAOS_WIDTH`][]: a narrow pass finishes its first
root moves in a fraction of a full pass's time, so a short budget still looks 5 plies ahead
for the likeliest moves, and its best moves lead the next pass."""

_CACHE_LIMIT = 200_000
# The lines a search meets keep changing from game to game (some 25,000 new ones a game at
# 0.025 s a move); the parts of 500,000 take about 150 MB.
_PARTS_LIMIT = 500_000
_INF = float("inf")
# Line values are rounded to a multiple of 1/_GRID. A position's value, a sum of line values, is
# then exact whatever the order of the additions and subtractions that keep it up to date, and
# so are its changes: the values searched at depth 2, the training games' player, do not depend
# on how the search adds them up (see `scripts/train_entropy_patterns.py`).
_GRID = float(1 << 20)
_SHIFTS = {size: tuple(range(0, 3 * size, 3)) for size in (5, 7)}


class _FeatureCache(dict[int, _Features]):
    """Line code -> its features, computed when first asked for."""

    def __init__(self, size: int, scores: bytes) -> None:
        super().__init__()
        self.size = size
        self.scores = scores

    def __missing__(self, code: int) -> _Features:
        if len(self) > _CACHE_LIMIT:
            self.clear()
        found = self[code] = _line_features(self.size, self.scores, code)
        return found


def _line_features(size: int, scores: bytes, code: int) -> _Features:
    now = scores[code]
    empties, segments, holes = _shapes(size)[_occupancy(size, code)]
    if not empties:
        return now, 0, 0, 0, (0,) * size
    after, gains = _colour_points(size, scores, code, empties)
    guarantee = sum([min(after[k]) for k in holes]) - len(holes) * now
    return now, segments, len(holes), guarantee, tuple(gains)


def _colour_points(
    size: int, scores: bytes, code: int, empties: Sequence[int]
) -> tuple[list[bytes], list[int]]:
    """For each empty square `i` of the line `code`, its scores with each colour there (the
    codes `code + colour * 8**i` for the colours 1 to `size`, a strided slice of the table); and
    for each colour, the points it would add summed over the empty squares."""
    after = [scores[code + (1 << 3 * i) : code + (size + 1 << 3 * i) : 1 << 3 * i] for i in empties]
    count = len(empties) * scores[code]
    return after, [total - count for total in map(sum, zip(*after, strict=True))]


def _packed(numbers: Iterable[int]) -> int:
    """Small non-negative ints in one int, the first in the lowest `_LANE` bits: the product
    of `_packed(gains)` and `_packed(reversed(counts))` holds the sum of `gains[k] * counts[k]`
    in its lane `len(counts) - 1` (`_LineValues`)."""
    return sum([number << _LANE * k for k, number in enumerate(numbers)])


def _occupancy(size: int, code: int) -> int:
    """The occupancy bits of a line code (bit `i` set when square `i` holds a counter)."""
    return sum([1 << i for i in range(size) if code >> 3 * i & 7])


@cache
def _shapes(size: int) -> list[tuple[tuple[int, ...], int, tuple[int, ...]]]:
    """By a line's occupancy: its empty squares, its maximal stretches of empty squares, and
    the positions in the first tuple of the empty squares that are a stretch alone (holes)."""
    out = []
    for occ in range(1 << size):
        empties = tuple(i for i in range(size) if not occ >> i & 1)
        starts = [i for i in empties if i == 0 or occ >> i - 1 & 1]
        alone = tuple(
            k for k, i in enumerate(empties) if i in starts and (i == size - 1 or occ >> i + 1 & 1)
        )
        out.append((empties, len(starts), alone))
    return out


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


# Slides along one line, by origin: (origin's index along the line, the indices it goes to).
_Slides = tuple[tuple[int, tuple[int, ...]], ...]
# By line, then by the line's occupancy: a pair of ints for each slide of _Tables.line_slides.
_PerSlide = list[list[tuple[tuple[int, int], ...]]]


class _Tables:
    """Everything precomputed for one board size: the game's tables and the bots' own.

    Tables indexed by a line's occupancy bits `occ` name squares by their index along the line.
    """

    def __init__(self, size: int) -> None:
        n = size
        game = size_tables(size)
        self.size = n
        self.squares = n * n
        self.scores: bytes = game.line_scores
        self.features = _FeatureCache(n, self.scores)
        self.colour_value = {EMPTY: 0} | game.value
        self.colours = game.colours
        self.placements = game.placements
        self.slides = game.slides
        self.shifts = tuple(3 * i for i in range(n))
        # zobrist[square][colour]: a random key for each counter on each square, the board's
        # hash being the exclusive or of those on it (the bag follows from the board).
        keys = random.Random(f"entropy-zobrist-{n}")
        self.zobrist = [
            [0] + [keys.getrandbits(61) << 3 for _ in range(n)] for _ in range(self.squares)
        ]
        lines = range(1 << n)
        # targets[occ][i]: the empty squares a counter on square i can slide to, nearest first.
        targets = self.targets = game.line_targets
        self.bits = [tuple(i for i in range(n) if occ >> i & 1) for occ in lines]
        self.empty_bits = [tuple(i for i in range(n) if not occ >> i & 1) for occ in lines]
        # line_slides[occ]: all the slides along the line.
        self.line_slides: list[_Slides] = [
            tuple((i, targets[occ][i]) for i in self.bits[occ] if targets[occ][i]) for occ in lines
        ]
        # For each slide of line_slides[occ] along rank k (file k), in order: its origin and
        # target squares.
        self.rank_moves: _PerSlide = []
        self.file_moves: _PerSlide = []
        pairs = [[(i, j) for i, reach in slides for j in reach] for slides in self.line_slides]
        for k in range(n):
            self.rank_moves.append([tuple((k * n + i, k * n + j) for i, j in p) for p in pairs])
            self.file_moves.append([tuple((i * n + k, j * n + k) for i, j in p) for p in pairs])


_TABLES: dict[int, _Tables] = {}


def _tables(size: int) -> _Tables:
    tables = _TABLES.get(size)
    if tables is None:
        tables = _TABLES[size] = _Tables(size)
    return tables


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


def _gain_left(gains: list[tuple[float, int, int]], rs: int, fs: int) -> float:
    """Order's best reply among `gains` (`reply_gains`, best first) that a counter placed on
    rank `rs`, file `fs` leaves alone, or 0 (the pass)."""
    for gain, ranks, files in gains:
        if gain <= 0.0:
            return 0.0
        if not (ranks >> rs & 1 or files >> fs & 1):
            return gain
    return 0.0


class _Replies(NamedTuple):
    """What `_Board.reply_gains` finds on a board, for Order's replies to its placements."""

    gains: list[tuple[float, int, int]]
    across_files: list[list[tuple[int, float, int]]]
    across_ranks: list[list[tuple[int, float, int]]]


class _Board:
    """A mutable copy of a position for search: line codes, occupancy and the bag.

    `rc[r]` / `fc[f]`: the code of rank `r` / file `f` (the game's line codes: 3 bits a
    square, 0 empty); `ro` / `fo`: their occupancy bits; `lr` / `lf`: their line values;
    `value`: the sum.
    """

    def __init__(self, state: EntropyState, evaluation: LineEvaluation | None = None) -> None:
        tables = _tables(state.size)
        n = tables.size
        self.tables = tables
        self.n = n
        self.bag = list(state.bag().values())
        self.lv: _LineValues | bytes = (
            tables.scores
            if evaluation is None
            else _line_values(tables.features, evaluation, self.bag)
        )
        self.rc, self.fc = line_codes(state)
        ranks, files = line_occupancy(state)
        self.ro = list(ranks)
        self.fo = list(files)
        shifts = tables.shifts
        self.cells = [code >> shift & 7 for code in self.rc for shift in shifts]
        self.lr = [self.lv[code] for code in self.rc]
        self.lf = [self.lv[code] for code in self.fc]
        self.value = sum(self.lr) + sum(self.lf)
        self.empties = self.cells.count(0)
        keys = tables.zobrist
        self.hash = 0
        for square, colour in enumerate(self.cells):
            if colour:
                self.hash ^= keys[square][colour]

    # -- making and unmaking moves --------------------------------------------------------------

    def place(self, square: int, colour: int) -> None:
        n = self.n
        r, f = divmod(square, n)
        lv = self.lv
        self.cells[square] = colour
        self.hash ^= self.tables.zobrist[square][colour]
        self.rc[r] += colour << 3 * f
        self.fc[f] += colour << 3 * r
        self.ro[r] |= 1 << f
        self.fo[f] |= 1 << r
        old = self.lr[r] + self.lf[f]
        self.lr[r] = lv[self.rc[r]]
        self.lf[f] = lv[self.fc[f]]
        self.value += self.lr[r] + self.lf[f] - old
        self.empties -= 1

    def remove(self, square: int) -> None:
        n = self.n
        r, f = divmod(square, n)
        lv = self.lv
        colour = self.cells[square]
        self.cells[square] = 0
        self.hash ^= self.tables.zobrist[square][colour]
        self.rc[r] -= colour << 3 * f
        self.fc[f] -= colour << 3 * r
        self.ro[r] ^= 1 << f
        self.fo[f] ^= 1 << r
        old = self.lr[r] + self.lf[f]
        self.lr[r] = lv[self.rc[r]]
        self.lf[f] = lv[self.fc[f]]
        self.value += self.lr[r] + self.lf[f] - old
        self.empties += 1

    def slide(self, origin: int, target: int) -> None:
        colour = self.cells[origin]
        self.remove(origin)
        self.place(target, colour)

    # -- Order's slides, valued -------------------------------------------------------------------

    def slide_gains(self, ranks: Iterable[_Slides], files: Iterable[_Slides]) -> list[float]:
        """The value change of each slide given, those along the ranks first.

        The `k`-th item of `ranks` (of `files`) holds slides along rank (file) `k`, by
        origin: `(origin's index along the line, the indices it goes to)`. Every value the
        search gives a slide comes from here. A slide changes three lines: its own, and the two
        across it at its origin and at its target.
        """
        lv = self.lv
        gains: list[float] = []
        append = gains.append
        for codes, values, across, across_values, work in (
            (self.rc, self.lr, self.fc, self.lf, ranks),
            (self.fc, self.lf, self.rc, self.lr, files),
        ):
            for k, slides in enumerate(work):
                if not slides:
                    continue
                code = codes[k]
                value = values[k]
                at = 3 * k
                for i, reach in slides:
                    colour = code >> 3 * i & 7
                    without = code - (colour << 3 * i)
                    moved = colour << at  # the counter in the lines across
                    loss = lv[across[i] - moved] - across_values[i] - value
                    for j in reach:
                        append(
                            lv[without + (colour << 3 * j)]
                            + loss
                            + lv[across[j] + moved]
                            - across_values[j]
                        )
        return gains

    def all_slide_gains(self) -> list[float]:
        """The value change of every slide, in the order of `each_slide`."""
        line_slides = self.tables.line_slides
        return self.slide_gains(
            map(line_slides.__getitem__, self.ro), map(line_slides.__getitem__, self.fo)
        )

    def each_slide(self, by_rank: _PerSlide, by_file: _PerSlide) -> Iterator[tuple[int, int]]:
        """A pair per slide from tables by line and occupancy: along the ranks, then the files."""
        return chain(
            chain.from_iterable(map(getitem, by_rank, self.ro)),
            chain.from_iterable(map(getitem, by_file, self.fo)),
        )

    def order_slides(self) -> list[tuple[int, int]]:
        """Order's moves as `(origin, target)`: the pass `(-1, -1)`, then counter by counter
        (in square order) its slides along its rank and then along its file, nearest first.

        The search shuffles this list at its root, so its order decides how a seed breaks ties.
        """
        n, ro, fo = self.n, self.ro, self.fo
        targets, bits = self.tables.targets, self.tables.bits
        out = [(-1, -1)]
        for r in range(n):
            rank_targets = targets[ro[r]]
            base = r * n
            for f in bits[ro[r]]:
                square = base + f
                out += [(square, base + f2) for f2 in rank_targets[f]]
                out += [(square, r2 * n + f) for r2 in targets[fo[f]][r]]
        return out

    def order_moves(self) -> list[tuple[float, int, int]]:
        """`(value change, origin, target)` for the pass (`-1, -1`) and every slide."""
        moves = self.each_slide(self.tables.rank_moves, self.tables.file_moves)
        out: list[tuple[float, int, int]] = [(0.0, -1, -1)]
        out += [
            (gain, origin, target)
            for gain, (origin, target) in zip(self.all_slide_gains(), moves, strict=True)
        ]
        return out

    def best_order_gain(self) -> float:
        """The largest value change among Order's moves (0 for the pass)."""
        gains = self.all_slide_gains()
        best = max(gains) if gains else 0.0
        return best if best > 0.0 else 0.0

    def reply_gains(self) -> _Replies:
        """Every slide's value change, for valuing Order's best reply to a placement
        (`reply_value`): `(value change, ranks, files)` best first, and the slides across each
        line.

        `ranks` and `files` are bit masks of the lines a slide changes: a placement on none of
        them leaves the slide and its value change as they are. A placement on an empty square
        changes a slide that leaves or lands on the square's rank or file (not along it) only
        through that line's value: `across_files[f]` holds `(rank, rest, change)` for each
        slide along a rank that leaves or lands on file `f`, `rest` being its value change but
        for file `f`'s, and `change` what it adds to file `f`'s code; for a counter that
        leaves, `rest` is that of its best slide along the rank. `across_ranks[r]` holds the
        same, `(file, rest, change)`, for the slides along the files.
        """
        n = self.n
        lv = self.lv
        line_slides = self.tables.line_slides
        gains: list[tuple[float, int, int]] = []
        append = gains.append
        across_files: list[list[tuple[int, float, int]]] = [[] for _ in range(n)]
        across_ranks: list[list[tuple[int, float, int]]] = [[] for _ in range(n)]
        for codes, values, across, across_values, occupancy, onto, along_ranks in (
            (self.rc, self.lr, self.fc, self.lf, self.ro, across_files, True),
            (self.fc, self.lf, self.rc, self.lr, self.fo, across_ranks, False),
        ):
            for k, occ in enumerate(occupancy):
                slides = line_slides[occ]
                if not slides:
                    continue
                code = codes[k]
                value = values[k]
                at = 3 * k
                line_bit = 1 << k
                for i, reach in slides:
                    colour = code >> 3 * i & 7
                    without = code - (colour << 3 * i)
                    moved = colour << at
                    leave = lv[across[i] - moved] - across_values[i]
                    loss = leave - value
                    best = -_INF
                    for j in reach:
                        rest = lv[without + (colour << 3 * j)] + loss
                        gain = rest + lv[across[j] + moved] - across_values[j]
                        if along_ranks:
                            append((gain, line_bit, 1 << i | 1 << j))
                        else:
                            append((gain, 1 << i | 1 << j, line_bit))
                        if gain > best:
                            best = gain
                        onto[j].append((k, rest, moved))
                    onto[i].append((k, best - leave, -moved))
        gains.sort(reverse=True)
        return _Replies(gains, across_files, across_ranks)

    def reply_value(
        self, square: int, colour: int, kept: float, replies: _Replies, stop: float = _INF
    ) -> float:
        """The value after `colour` is placed on the empty `square` and Order's best reply;
        `kept` is the best value change among the slides the placement leaves alone
        (`_gain_left`, 0 for the pass) and `replies` the board's `reply_gains`. As soon as a
        slide makes the value reach `stop`, that value is returned (a value `>= stop` may
        stand for more). The board is left as it was.

        Only the slides that leave or land on the placed counter's rank or file change value:
        those along that rank and file are valued afresh, as in `slide_gains`, and first (the
        likeliest to gain from the counter placed where they cross); those across them from
        `replies`, with only that rank's or file's value counted again. Only the two lines'
        codes and values are changed for it, and put back: the rest of the board (its squares,
        hash, value) never sees the counter.
        """
        r, f = divmod(square, self.n)
        rc, fc, ro, fo, lr, lf = self.rc, self.fc, self.ro, self.fo, self.lr, self.lf
        lv = self.lv
        rank_code, file_code, rank_value, file_value = rc[r], fc[f], lr[r], lf[f]
        rank = rc[r] = rank_code + (colour << 3 * f)
        file = fc[f] = file_code + (colour << 3 * r)
        new_rank_value = lr[r] = lv[rank]
        new_file_value = lf[f] = lv[file]
        value = self.value + (new_rank_value + new_file_value - (rank_value + file_value))
        ro[r] ^= 1 << f
        fo[f] ^= 1 << r
        try:
            if self.empties == 1:
                return value
            stop -= value
            best = kept
            if best >= stop:
                return value + best
            line_slides = self.tables.line_slides
            for code, line_value, across, across_values, shift, slides in (
                (rank, new_rank_value, fc, lf, 3 * r, line_slides[ro[r]]),
                (file, new_file_value, rc, lr, 3 * f, line_slides[fo[f]]),
            ):
                for i, reach in slides:
                    counter = code >> 3 * i & 7
                    without = code - (counter << 3 * i)
                    moved = counter << shift
                    loss = lv[across[i] - moved] - across_values[i] - line_value
                    for j in reach:
                        gain = lv[without + (counter << 3 * j)] + loss + lv[across[j] + moved]
                        gain -= across_values[j]
                        if gain > best:
                            best = gain
                            if best >= stop:
                                return value + best
            for code, line_value, skip, work in (
                (file, new_file_value, r, replies.across_files[f]),
                (rank, new_rank_value, f, replies.across_ranks[r]),
            ):
                for k, rest, change in work:
                    if k != skip:
                        gain = rest + lv[code + change] - line_value
                        if gain > best:
                            best = gain
                            if best >= stop:
                                return value + best
            return value + best
        finally:
            rc[r], fc[f], lr[r], lf[f] = rank_code, file_code, rank_value, file_value
            ro[r] ^= 1 << f
            fo[f] ^= 1 << r

    def replies(self, colour: int, moves: list[tuple[float, int]]) -> list[tuple[float, int]]:
        """`(value after Order's best reply, square)` for `colour` on each square, best first.

        `moves` are Chaos's `(value change, square)`. Order's best reply is the best of the
        slides the placement leaves alone (from `reply_gains`) and of the slides through
        the placed counter's rank and file. A square whose bound (its value with the first
        kind of reply only) is no better for Chaos than the best found so far is not searched
        further: its bound stands for its value, and the first value is exact.
        """
        n = self.n
        replies = self.reply_gains()
        gains = replies.gains
        bounds = []
        value = self.value
        for change, square in moves:
            kept = _gain_left(gains, *divmod(square, n))
            bounds.append((value + change + kept, kept, square))
        bounds.sort()
        out = []
        lowest = float("inf")
        for bound, kept, square in bounds:
            if bound >= lowest:
                out.append((bound, square))
                continue
            found = self.reply_value(square, colour, kept, replies, lowest)
            if found < lowest:
                lowest = found
            out.append((found, square))
        out.sort()
        return out

    def chaos_moves(self, colour: int) -> list[tuple[float, int]]:
        """`(value change, square)` for every empty square, placing `colour` there."""
        n = self.n
        rc, fc, ro, lr, lf = self.rc, self.fc, self.ro, self.lr, self.lf
        lv = self.lv
        empty_bits = self.tables.empty_bits
        out: list[tuple[float, int]] = []
        append = out.append
        for r in range(n):
            row_value = lr[r]
            rcode = rc[r]
            shift_r = 3 * r
            base = r * n
            for f in empty_bits[ro[r]]:
                append(
                    (
                        lv[rcode + (colour << 3 * f)]
                        - row_value
                        + lv[fc[f] + (colour << shift_r)]
                        - lf[f],
                        base + f,
                    )
                )
        return out

    def least_placement(self, colour: int) -> float:
        """The least value change of placing `colour` on an empty square."""
        n = self.n
        rc, fc, ro, lr, lf = self.rc, self.fc, self.ro, self.lr, self.lf
        lv = self.lv
        empty_bits = self.tables.empty_bits
        least = _INF
        for r in range(n):
            rcode = rc[r]
            row_value = lr[r]
            shift_r = 3 * r
            for f in empty_bits[ro[r]]:
                change = lv[rcode + (colour << 3 * f)] - row_value + lv[fc[f] + (colour << shift_r)]
                change -= lf[f]
                if change < least:
                    least = change
        return least

    def open_patterns(self) -> float:
        """Sum over empty squares and colours in the bag of (score there) × (share of the bag)."""
        n = self.n
        scores = self.tables.scores
        rc, fc, ro = self.rc, self.fc, self.ro
        total = sum(self.bag)
        if not total:
            return 0.0
        weights = [(k + 1, left) for k, left in enumerate(self.bag) if left]
        found = 0
        for r in range(n):
            rcode = rc[r]
            row_score = scores[rcode]
            shift_r = 3 * r
            for f in self.tables.empty_bits[ro[r]]:
                fcode = fc[f]
                file_score = scores[fcode]
                shift_f = 3 * f
                for colour, left in weights:
                    gain = (
                        scores[rcode + (colour << shift_f)]
                        - row_score
                        + scores[fcode + (colour << shift_r)]
                        - file_score
                    )
                    found += gain * left
        return found / total


# --- the greedy player's evaluation ---------------------------------------------------------------


def position_value(state: EntropyState, evaluation: LineEvaluation | None = None) -> float:
    """The sum of the line values of all ranks and files: the search's static evaluation (with
    the search's table, [`PatternTable.load`][], unless `evaluation` is given).

    It is the live score plus what the lines look set to score (see
    [the module][abstractgames.players.entropy]), with the bag of `state`, and equals the score on
    a full board.
    """
    return float(_Board(state, evaluation or PatternTable.load(state.size)).value)


def evaluate(state: State, role: str) -> float:
    """Higher is better for `role`; greedy calls it on the state after the mover's move.

    A finished game is worth its final score to Order and minus that to Chaos. Otherwise Order
    gets [`position_value`][] (the score plus the compactness terms), and Chaos gets minus
    (the score + Order's best slide gain on this board + `OPEN` × the open patterns); see
    [the module][abstractgames.players.entropy].
    """
    if not isinstance(state, EntropyState):
        raise TypeError(f"{state!r} is not an Entropy state")
    outcome = state.outcome()
    if outcome is not None:
        final = float(outcome.scores[ORDER])
        return final if role == ORDER else -final
    if role == ORDER:
        return position_value(state, HAND_WEIGHTS)
    board = _Board(state)
    threat = board.best_order_gain() if state.to_move == ORDER else 0.0
    return -(state.score() + threat + OPEN * board.open_patterns())


# --- the search -----------------------------------------------------------------------------------


class _Search:
    """One move's expectiminimax search over a `_Board`, within a deadline (a search that runs
    out of time leaves the board half-changed: it is thrown away).

    Order's and Chaos's nodes are searched alpha-beta: Order's node `order_node(depth, beta)`
    stops as soon as a slide reaches `beta`, the least value Chaos has found so far at the node
    above. The last two plies, an Order node whose slides lead to draws and Chaos's one-ply
    answer to each, are `order_frontier`: there the values of Chaos's placements come from the
    board above, recounted only on the three lines a slide changes, and the bounds they give
    (Star1 at the chance node) cut the slides that cannot beat the best one found.
    """

    def __init__(
        self,
        board: _Board,
        deadline: Deadline,
        order_width: int = ORDER_WIDTH,
        chaos_width: int = CHAOS_WIDTH,
    ) -> None:
        self.board = board
        self.deadline = deadline
        self.order_width = order_width
        self.chaos_width = chaos_width
        self.cut = False  # whether a leaf was cut by depth (not a finished game)
        self.nodes = 0  # the positions where Order or Chaos is to move that were valued
        n = board.n
        self.square_bits = [(1 << (sq // n), 1 << (sq % n)) for sq in range(n * n)]
        # The transposition table: by board hash (the bag follows from the board), the bounds
        # `(low, high)` found for a chance node of the frontier.
        self.table: dict[int, tuple[float, float]] = {}
        # Best moves found, by board hash (and colour, for Chaos): tried first when the node is
        # searched again, at the next iteration or through another order of moves.
        self.killers: dict[int, int] = {}
        self.best_slides: dict[int, tuple[int, int]] = {}

    def order_node(self, depth: int, beta: float = _INF) -> float:
        """Order to move on a board that is not full; a value `>= beta` may stand for more."""
        board = self.board
        if depth <= 1:
            self.nodes += 1
            self.cut = True
            return board.value + board.best_order_gain()
        if depth == 2:
            return self.order_frontier(beta)
        self.nodes += 1
        self.deadline.check()
        moves = board.order_moves()
        moves.sort(reverse=True)
        tried = [(origin, target) for _, origin, target in moves[: self.order_width]]
        key = board.hash
        first = self.best_slides.get(key)
        if first is not None and first in tried and first != tried[0]:
            tried.remove(first)
            tried.insert(0, first)
        best = -_INF
        found = tried[0]
        for origin, target in tried:
            if origin >= 0:
                board.slide(origin, target)
                value = self.chance_node(depth - 1, best, beta)
                board.slide(target, origin)
            else:
                value = self.chance_node(depth - 1, best, beta)
            if value > best:
                best = value
                found = (origin, target)
                if best >= beta:
                    break
        self.best_slides[key] = found
        return best

    def order_frontier(self, beta: float = _INF) -> float:
        """`order_node(2)`: Order's best slide, each followed by a draw and Chaos's placement
        that lowers the value most (no reply after it).

        The placements' value changes on this board are listed once per colour, least first;
        after a slide, those on squares off the three lines the slide changes are the same, so
        the least of them bounds Chaos's answer from above, and only the squares on the changed
        lines are recounted. A slide whose bound (summed over the bag) is no better than the
        best slide so far is not recounted.
        """
        board = self.board
        self.nodes += 1
        self.cut = True
        self.deadline.check()
        moves = board.order_moves()
        moves.sort(reverse=True)
        n = board.n
        bag = board.bag
        total = sum(bag)
        lv = board.lv
        rc, fc, ro, fo, lr, lf = board.rc, board.fc, board.ro, board.fo, board.lr, board.lf
        empty_bits = board.tables.empty_bits
        # For each colour in the bag: (colour, its share, its placements' (change, rank bit,
        # file bit), least change first).
        colours = []
        for index, left in enumerate(bag):
            if not left:
                continue
            colour = index + 1
            changes: list[tuple[float, int, int]] = []
            append = changes.append
            for r in range(n):
                row_value = lr[r]
                rcode = rc[r]
                shift_r = 3 * r
                rbit = 1 << r
                for f in empty_bits[ro[r]]:
                    append(
                        (
                            lv[rcode + (colour << 3 * f)]
                            - row_value
                            + lv[fc[f] + (colour << shift_r)]
                            - lf[f],
                            rbit,
                            1 << f,
                        )
                    )
            changes.sort()
            colours.append((colour, left / total, changes))
        count = len(colours)
        base = board.value
        best = -_INF
        for gain, origin, target in moves[: self.order_width]:
            self.nodes += count
            if origin < 0:
                value = base + sum([share * changes[0][0] for _, share, changes in colours])
                if value > best:
                    best = value
                    if best >= beta:
                        break
                continue
            r0, f0 = divmod(origin, n)
            r1, f1 = divmod(target, n)
            if r0 == r1:
                ranks, files = 1 << r0, 1 << f0 | 1 << f1
            else:
                ranks, files = 1 << r0 | 1 << r1, 1 << f0
            # Chaos's best answer off the changed lines: an upper bound for each colour.
            bounds = []
            bound = base + gain
            for _, share, changes in colours:
                least = _INF
                for change, rbit, fbit in changes:
                    if not (rbit & ranks or fbit & files):
                        least = change
                        break
                bounds.append(least)
                bound += share * least
            if bound <= best:
                continue
            board.slide(origin, target)
            # The empty squares of the changed lines, as (rank, file), each once.
            if r0 == r1:
                cells = [(r0, f) for f in empty_bits[ro[r0]]]
                cells += [(r, f0) for r in empty_bits[fo[f0]] if r != r0]
                cells += [(r, f1) for r in empty_bits[fo[f1]] if r != r0]
            else:
                cells = [(r, f0) for r in empty_bits[fo[f0]]]
                cells += [(r0, f) for f in empty_bits[ro[r0]] if f != f0]
                cells += [(r1, f) for f in empty_bits[ro[r1]] if f != f0]
            value = board.value
            for (colour, share, _), least in zip(colours, bounds, strict=True):
                for r, f in cells:
                    change = (
                        lv[rc[r] + (colour << 3 * f)]
                        - lr[r]
                        + lv[fc[f] + (colour << 3 * r)]
                        - lf[f]
                    )
                    if change < least:
                        least = change
                value += share * least
            board.slide(target, origin)
            if value > best:
                best = value
                if best >= beta:
                    break
        return best

    def chance_node(self, depth: int, alpha: float = -_INF, beta: float = _INF) -> float:
        """A draw is due (the board is not full); a value `<= alpha` may stand for less, one
        `>= beta` for more."""
        if depth == 2 and self.board.empties > 1:
            return self.chance_frontier(alpha, beta)
        bag = self.board.bag
        if alpha == -_INF or depth < 3 or self.board.empties <= 1:
            total = 0.0
            count = 0
            for index, left in enumerate(bag):
                if left:
                    bag[index] = left - 1
                    total += left * self.chaos_node(index + 1, depth)
                    bag[index] = left
                    count += left
            return total / count
        return self.chance_probed(depth, alpha)

    def chance_probed(self, depth: int, alpha: float) -> float:
        """`chance_node(depth)`, `depth >= 3`, below an Order node that has `alpha` already:
        Star2's probing. Each colour's first square (Chaos's likeliest best) is searched first,
        likeliest colours first; its value bounds the colour's from above, and once the bounds
        summed over the bag are `<= alpha` the node is no better than `alpha` and ends there.
        Otherwise each colour is searched in full, the bound tightening as it goes."""
        board = self.board
        bag = board.bag
        count = sum(bag)
        probes = []
        high = 0.0
        for index, left in sorted(enumerate(bag), key=lambda item: -item[1]):
            if not left:
                continue
            colour = index + 1
            bag[index] = left - 1
            self.nodes += 1
            self.deadline.check()
            squares = self.chaos_squares(colour)
            board.place(squares[0], colour)
            value = self.order_node(depth - 1)
            board.remove(squares[0])
            bag[index] = left
            probes.append((index, left, squares, value))
            high += left * value
        if high <= alpha * count:
            return high / count
        for index, left, squares, value in probes:
            colour = index + 1
            bag[index] = left - 1
            best = self.chaos_rest(colour, squares, depth, value)
            bag[index] = left
            high += left * (best - value)
            if high <= alpha * count:
                break
        return high / count

    def chaos_squares(self, colour: int) -> list[int]:
        """The squares an inner Chaos node searches, likeliest best first: by Order's best reply
        (`_Board.replies`), the best found before (the killer) first."""
        board = self.board
        replies = board.replies(colour, board.chaos_moves(colour))
        squares = [square for _, square in replies[: self.chaos_width]]
        killer = self.killers.get(board.hash ^ colour)
        if killer is not None and killer in squares and killer != squares[0]:
            squares.remove(killer)
            squares.insert(0, killer)
        return squares

    def chaos_rest(self, colour: int, squares: list[int], depth: int, best: float) -> float:
        """The least value over `squares[1:]`, `best` being the first one's."""
        board = self.board
        key = board.hash ^ colour
        found = squares[0]
        for square in squares[1:]:
            board.place(square, colour)
            value = self.order_node(depth - 1, best)
            board.remove(square)
            if value < best:
                best = value
                found = square
        self.killers[key] = found
        return best

    def chance_frontier(self, alpha: float, beta: float) -> float:
        """`chance_node(2)`: for each colour drawn, Chaos's placement after which Order's best
        slide leaves the least value, searched Star2-style.

        Order's best slide after a placement is at least the best of the slides the placement
        leaves alone (the same for every colour, found once), which gives each square a lower
        bound; the square with the least bound, searched first for every colour (the probe),
        gives each colour an upper bound. The bounds summed over the bag (Star1) end the node
        as soon as its value is known to be `<= alpha` or `>= beta`; otherwise the colours are
        searched in full, likeliest first, each square only while its bound is below the least
        value found for the colour.
        """
        board = self.board
        known = self.table.get(board.hash)
        if known is not None:
            low, high = known
            if high <= alpha or low == high:
                return high
            if low >= beta:
                return low
        low, high = self._chance_frontier(alpha, beta)
        self.table[board.hash] = (low, high)
        return high if high <= alpha or low == high else low if low >= beta else high

    def _chance_frontier(self, alpha: float, beta: float) -> tuple[float, float]:
        """`chance_frontier`'s bounds: `(low, high)`, equal once the value is exact."""
        board = self.board
        n = board.n
        replies = board.reply_gains()
        gains = replies.gains
        value = board.value
        lv = board.lv
        rc, fc, ro, lr, lf = board.rc, board.fc, board.ro, board.lr, board.lf
        # Each empty square: (its rank's code, its file's code, their shifts and values, the
        # best reply it leaves alone, the square).
        cells = []
        for r in range(n):
            rcode, rvalue, shift_r = rc[r], lr[r], 3 * r
            cells += [
                (rcode, fc[f], 3 * f, shift_r, rvalue, lf[f], _gain_left(gains, r, f), r * n + f)
                for f in board.tables.empty_bits[ro[r]]
            ]
        lists = []
        bag = board.bag
        total = sum(bag)
        for index, left in sorted(enumerate(bag), key=lambda item: -item[1]):
            if not left:
                continue
            colour = index + 1
            # The same sums as `_Board.chaos_moves`'s, in the same order.
            bounds = [
                (
                    value
                    + (lv[rcode + (colour << sf)] - rv + lv[fcode + (colour << sr)] - fv)
                    + least,
                    least,
                    square,
                )
                for rcode, fcode, sf, sr, rv, fv, least, square in cells
            ]
            lists.append((colour, left / total, bounds))
        self.nodes += len(lists)
        self.cut = True
        self.deadline.check()
        # The probes: each colour's first square, exactly.
        lows = []
        highs = []
        for colour, _share, bounds in lists:
            first = min(bounds)
            lows.append(first[0])
            highs.append(board.reply_value(first[2], colour, first[1], replies))
        low = sum([share * x for (_, share, _), x in zip(lists, lows, strict=True)])
        high = sum([share * x for (_, share, _), x in zip(lists, highs, strict=True)])
        if high <= alpha or low >= beta:
            return low, high
        for k, (colour, share, bounds) in enumerate(lists):
            lowest = highs[k]
            bounds.sort()
            for bound, least, square in bounds[1:]:
                if bound >= lowest:
                    break
                found = board.reply_value(square, colour, least, replies, lowest)
                if found < lowest:
                    lowest = found
            low += share * (lowest - lows[k])
            high += share * (lowest - highs[k])
            if high <= alpha or low >= beta:
                return low, high
        return high, high

    def chaos_node(self, colour: int, depth: int) -> float:
        """Chaos must place `colour`."""
        board = self.board
        self.nodes += 1
        if board.empties == 1:
            return board.value + board.chaos_moves(colour)[0][0]
        if depth <= 1:
            self.cut = True
            return board.value + board.least_placement(colour)
        self.deadline.check()
        if depth == 2:
            self.cut = True
            return board.replies(colour, board.chaos_moves(colour))[0][0]
        squares = self.chaos_squares(colour)
        board.place(squares[0], colour)
        first = self.order_node(depth - 1)
        board.remove(squares[0])
        return self.chaos_rest(colour, squares, depth, first)

    # -- the roots ------------------------------------------------------------------------------

    def order_root(
        self,
        moves: list[tuple[int, int]],
        depth: int,
        indices: Iterable[int],
        found: list[tuple[float, int]] | None = None,
    ) -> list[tuple[float, int]]:
        """Append `(value, index)` to `found` for each `moves[index]`, `depth` plies.

        Each slide after the first is searched against the best value found so far: a value
        at or below it may stand for less (it only says the slide is no better).
        """
        board = self.board
        out = [] if found is None else found
        best = -_INF
        for index in indices:
            self.nodes += 1
            origin, target = moves[index]
            if origin >= 0:
                board.slide(origin, target)
            if depth <= 1:
                value = board.value
                self.cut = True
            else:
                value = self.chance_node(depth - 1, best)
            if origin >= 0:
                board.slide(target, origin)
            if value > best:
                best = value
            out.append((value, index))
        return out

    def order_first(self, moves: list[tuple[int, int]]) -> list[tuple[float, int]]:
        """`order_root(moves, 1, …)` over all the moves: each slide's value from the value
        changes of `_Board.order_moves`, without making it."""
        board = self.board
        base = board.value
        gains = {(origin, target): gain for gain, origin, target in board.order_moves()}
        self.nodes += len(moves)
        self.cut = True
        return [(base + gains[move], index) for index, move in enumerate(moves)]

    def chaos_second(
        self,
        squares: list[int],
        colour: int,
        indices: Iterable[int],
        found: list[tuple[float, int]],
    ) -> list[tuple[float, int]]:
        """`chaos_root(squares, colour, 2, indices, found)`, from `_Board.replies`: Order's best
        reply to each placement found incrementally (a value at or above the least may stand
        for more, as in `chaos_root`)."""
        board = self.board
        keep = list(indices)
        self.deadline.check()
        changes = {square: change for change, square in board.chaos_moves(colour)}
        replies = board.replies(colour, [(changes[squares[i]], squares[i]) for i in keep])
        values = {square: value for value, square in replies}
        self.nodes += 2 * len(keep)
        if board.empties > 1:
            self.cut = True
        found += [(values[squares[index]], index) for index in keep]
        return found

    def chaos_root(
        self,
        squares: list[int],
        colour: int,
        depth: int,
        indices: Iterable[int],
        found: list[tuple[float, int]] | None = None,
    ) -> list[tuple[float, int]]:
        """Append `(value, index)` to `found` for `colour` on each `squares[index]`.

        Each square after the first is searched against the least value found so far: a value
        at or above it may stand for more (it only says the square is no better).
        """
        board = self.board
        out = [] if found is None else found
        best = _INF
        for index in indices:
            self.nodes += 1
            square = squares[index]
            board.place(square, colour)
            if board.empties == 0:
                value = board.value
            elif depth <= 1:
                value = board.value
                self.cut = True
            else:
                value = self.order_node(depth - 1, best)
            board.remove(square)
            if value < best:
                best = value
            out.append((value, index))
        return out


def phase_weights(size: int) -> tuple[float, ...]:
    """How much of a clock each move of a game deserves, by the counters on the board before it
    (`size`² of them, averaging 1): the first few placements, which every search values about
    the same, and the last ones, whose trees are small enough to search to the end, get less;
    the middle game, where the search's depth pays, gets more.

    Examples:
        >>> weights = phase_weights(7)
        >>> round(sum(weights) / len(weights), 6), weights[0] < weights[24] > weights[46]
        (1.0, True)
    """
    squares = size * size
    raw = []
    for placed in range(squares):
        empties = squares - placed
        if placed < squares // 8:
            raw.append(0.5)
        elif empties <= squares // 8:
            raw.append(0.4)
        elif empties <= squares // 4:
            raw.append(1.0)
        else:
            raw.append(1.4)
    mean = sum(raw) / squares
    return tuple(w / mean for w in raw)


def _depths(first: int, limit: int | None) -> list[int]:
    """The iterations after depth 1: `first`, `first + 2`, … below `limit`, then `limit`.

    Examples:
        >>> _depths(3, 6), _depths(2, None)[:3], _depths(2, 1)
        ([3, 5, 6], [2, 4, 6], [])
    """
    if limit is None:
        return list(range(first, 200, 2))
    if limit <= 1:
        return []
    return [*range(first, limit, 2), limit]


class EntropySearch(Player):
    """Expectimax search for either role of Entropy (the `search` player).

    Args:
        game: the Entropy game (7×7 or 5×5).
        time: seconds to think per move; with a clock, at most its share of the time left over
            the player's remaining moves ([`move_budget`][abstractgames.timing.move_budget]).
        depth: search exactly this many plies (Order's and Chaos's moves; draws are expanded in
            full and do not count) instead, with no time limit: deterministic for a given
            `rng` seed.
        root_width: root moves searched at each iteration after the second.
        first_width: root moves searched at the second iteration.
        narrow_widths: the inner widths of Order's narrow passes before each depth after 3
            (none: every iteration at `order_width` and `chaos_width`).
        order_width: slides tried at an inner Order node.
        chaos_width: squares tried at an inner Chaos node.
        evaluation: what values the lines at the leaves (default: the learned table of the
            game's size, [`PatternTable.load`][]).
    """

    def __init__(
        self,
        game: Game,
        time: float = 1.0,
        depth: int | None = None,
        root_width: int = ROOT_WIDTH,
        order_width: int = ORDER_WIDTH,
        chaos_width: int = CHAOS_WIDTH,
        evaluation: LineEvaluation | None = None,
        first_width: int = FIRST_WIDTH,
        narrow_widths: Sequence[int] = NARROW_WIDTHS,
    ) -> None:
        self.game = game
        self.time = time
        self.depth = depth
        self.root_width = root_width
        self.first_width = first_width
        self.narrow_widths = tuple(narrow_widths)
        self.order_width = order_width
        self.chaos_width = chaos_width
        self.evaluation = evaluation
        self.spec = f"search:depth={depth}" if depth is not None else f"search:time={time}"

    def budget(self, state: EntropyState, time_left: float | None) -> float:
        """Seconds to spend on a move in `state`: `time`, and under a clock the share of the
        time left that [`phase_weights`][] gives this move among the player's moves left in
        the game ([`phase_budget`][abstractgames.timing.phase_budget])."""
        # Order moves after every placement but the last; Chaos places once per empty square.
        weights = phase_weights(state.size)
        return phase_budget(self.time, time_left, weights[state.placements :])

    def iterations(self, first: int) -> list[tuple[int, int, int]]:
        """The iterations after the first (depth 1), as `(depth, order_width, chaos_width)`,
        `first` being 3 for Order and 2 for Chaos: the depths 3, 5, … and 2, 4, …, those that
        end on Order's reply. Order searches each depth after 3 at its narrow widths
        ([`NARROW_WIDTHS`][] unless told) first, then at its own widths.

        Examples:
            >>> from abstractgames.entropy import EntropyGame
            >>> EntropySearch(EntropyGame(), depth=5).iterations(3)
            [(3, 8, 8), (5, 2, 2), (5, 4, 4), (5, 8, 8)]
            >>> EntropySearch(EntropyGame(), depth=4).iterations(2)
            [(2, 8, 8), (4, 8, 8)]
        """
        full = (self.order_width, self.chaos_width)
        out = []
        for depth in _depths(first, self.depth):
            if first == 3 and depth > first:
                for width in self.narrow_widths:
                    narrow = (min(width, full[0]), min(width, full[1]))
                    if narrow != full and (depth, *narrow) not in out:
                        out.append((depth, *narrow))
            out.append((depth, *full))
        return out

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if not isinstance(state, EntropyState) or state.to_move not in (ORDER, CHAOS):
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        deadline = Deadline(None if self.depth is not None else self.budget(state, time_left))
        order = state.to_move == ORDER
        evaluation = self.evaluation or PatternTable.load(state.size)
        board = _Board(state, evaluation)
        search = _Search(board, deadline, self.order_width, self.chaos_width)
        tables = board.tables
        colour = 0
        if order:
            moves = board.order_slides()
            rng.shuffle(moves)
            valued = search.order_first(moves)
            first = 3
        else:
            colour = tables.colour_value[str(state.drawn)]
            squares = [sq for _, sq in board.chaos_moves(colour)]
            rng.shuffle(squares)
            valued = search.chaos_root(squares, colour, 1, range(len(squares)))
            first = 2
        values = {index: value for value, index in valued}
        ranked = _rank(valued, order)
        reached = 1
        narrow = False
        for depth, search.order_width, search.chaos_width in self.iterations(first):
            # A search that reached the end of every line it followed is exact, unless it
            # followed only the likeliest few moves.
            if not search.cut and not narrow:
                break
            narrow = search.order_width < self.order_width or search.chaos_width < self.chaos_width
            search.cut = False
            keep = ranked[: self.first_width if reached == 1 else self.root_width]
            found: list[tuple[float, int]] = []
            try:
                if order:
                    search.order_root(moves, depth, keep, found)
                elif depth == 2:
                    search.chaos_second(squares, colour, keep, found)
                else:
                    search.chaos_root(squares, colour, depth, keep, found)
            except SearchTimeout:
                if not found:
                    break
            reached = depth
            values.update((index, value) for value, index in found)
            better = _rank(found, order)
            ranked = better + [i for i in ranked if i not in set(better)]
            if len(found) < len(keep):
                break
        best = ranked[0]
        value = values[best]  # Order's expected score and shape terms
        self.info = SearchInfo(
            reached, value if order else -value, search.nodes, deadline.elapsed()
        )
        if order:
            origin, target = moves[best]
            if origin < 0:
                return PASS
            slide = tables.slides[origin][target]
            assert isinstance(slide, Slide)
            return slide
        placement: Placement = tables.placements[str(state.drawn)][squares[best]]
        return placement


def _rank(values: list[tuple[float, int]], highest_first: bool) -> list[int]:
    """The indices sorted best first; equal values keep their (shuffled) order."""
    key: Callable[[tuple[float, int]], float] = (
        (lambda item: -item[0]) if highest_first else (lambda item: item[0])
    )
    return [index for _, index in sorted(values, key=key)]
