"""What the Entropy bots work out once for each board size: `_Tables` (the game's line scores,
placements and slides, the slides along a line by its occupancy, the Zobrist keys) and the
features of a line (`_FeatureCache`: its score, its shape, the points each colour would add on
its empty squares), which both line evaluations read (see
[the package][abstractgames.players.entropy])."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import cache

from ...entropy import EMPTY, size_tables

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


_CACHE_LIMIT = 200_000


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
