"""Order's score: palindromes in lines, a table of every line's score, and whole boards.

A line scores the lengths of all its palindromes of two or more touching counters; a board scores
the sum over its ranks and files. [`line_scores`][] tabulates all `8**size` lines by their
code (see [`abstractgames.entropy.board`][]), which is how the game keeps its score up to date
and how the bots value lines. [`score_boards`][] scores many boards at once with bit operations.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import attrs

from ..text import value_excerpt
from .board import COLOURS, EMPTY, line_code

__all__ = ["line_score", "line_scores", "score_board", "score_boards", "scoring_squares"]


def _palindrome_spans(line: str) -> list[tuple[int, int]]:
    """The first and last index of every palindrome of two or more touching counters."""
    spans = []
    length = len(line)
    for centre in range(2 * length - 1):
        lo = centre // 2
        hi = lo + centre % 2
        while lo >= 0 and hi < length and line[lo] == line[hi] != EMPTY:
            if hi > lo:
                spans.append((lo, hi))
            lo -= 1
            hi += 1
    return spans


def scoring_squares(cells: str, size: int) -> frozenset[int]:
    """The squares (by index, a1 = 0, b1 = 1, …) that lie in a scoring palindrome of their rank
    or their file: what a picture of the board marks.

    Examples:
        >>> sorted(scoring_squares("AB.BA" + "A...." + "....." * 3, 5))
        [0, 5]
    """
    found: set[int] = set()
    for rank in range(size):
        for lo, hi in _palindrome_spans(cells[rank * size : (rank + 1) * size]):
            found.update(range(rank * size + lo, rank * size + hi + 1))
    for file in range(size):
        for lo, hi in _palindrome_spans(cells[file::size]):
            found.update(file + size * i for i in range(lo, hi + 1))
    return frozenset(found)


def line_score(line: str) -> int:
    """Order's score for one row or column, straight from the definition.

    Args:
        line: one character per square, `"."` for an empty square and any other character for
            a counter of that colour (e.g. `"ABBA"`).

    Returns:
        The sum of the lengths of all palindromes of two or more touching counters in the line
        (empty squares break runs), e.g. 6 for `"ABBA"` and 15 for `"ABBBAB"`.
    """
    return sum(hi - lo + 1 for lo, hi in _palindrome_spans(line))


@functools.cache
def line_scores(size: int) -> bytes:
    """The score of every line of `size` squares, indexed by the line's code.

    A line's code holds 3 bits per square, square `i` at bit `3 * i`: 0 for empty, `k + 1` for
    colour `k` (see [`line_code`][]). The table has `8**size` entries (2 MB for 7 squares, built in
    about 0.1 s on first use, then shared).

    Examples:
        >>> from abstractgames.entropy.board import line_code
        >>> line_scores(7)[line_code("RBBR...")]
        6
    """
    return _line_table(size)


def _line_table(size: int) -> bytes:
    """The table of [`line_scores`][], built in big ints with one byte per code.

    A whole array is one operation: `equal(i, j)` has a 1 for each code whose squares `i` and
    `j` hold one colour, and the run from `i` to `j` is a palindrome where that holds and
    the run inside it is one (or is empty, or is one counter).
    """
    count = 8**size

    def equal(i: int, j: int) -> int:
        zeros, ones = b"\0" * 8**i, b"\1" * 8**i
        inner = 8 ** (j - i - 1)
        by_j = [b"\0" * 8**j] + [(zeros * k + ones + zeros * (7 - k)) * inner for k in range(1, 8)]
        return int.from_bytes(b"".join(by_j) * 8 ** (size - 1 - j), "little")

    def occupied(i: int) -> int:
        return int.from_bytes((b"\0" * 8**i + b"\1" * (7 * 8**i)) * 8 ** (size - 1 - i), "little")

    total = 0
    for centre in range(2 * size - 1):  # a square, or the gap after one
        lo, hi = centre // 2, centre // 2 + centre % 2
        found = occupied(lo) if lo == hi else -1  # the middle so far: one counter, or none
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        while lo >= 0 and hi < size:
            found &= equal(lo, hi)
            total += (hi - lo + 1) * found  # at most 77 per byte: no carries between bytes
            lo, hi = lo - 1, hi + 1
    return total.to_bytes(count, "little")


_ONE_HOT = str.maketrans({c: chr(1 << i) for i, c in enumerate(COLOURS)} | {EMPTY: "\0"})
_BOARD_CHARACTERS = COLOURS + EMPTY
_BATCH = 256


@attrs.frozen
class _BitTables:
    """Masks for scoring boards of one size as ints holding one one-hot byte per square.

    A square's byte has bit `i` set for colour `i` (zero when empty), so `x & (x >> 8k)` has a
    nonzero byte exactly where a square and the one `k` places on hold the same colour; adding
    0x7F to every byte moves "nonzero" into bit 7. The masks repeat for `count` boards side by
    side.
    """

    squares: int
    low7: int  # 0x7F in every byte
    occupied: int  # 0x80 in every byte
    # (step in bits between neighbours, masks of the squares with a partner k = 1, 2, … steps on)
    directions: tuple[tuple[int, tuple[int, ...]], ...]


@functools.cache
def _bit_tables(squares: int, count: int = 1) -> _BitTables:
    size = {25: 5, 49: 7}[squares]

    def repeat(byte: int, stride: int = 1, k: int = 0) -> int:
        """`byte` on every square whose line (of the given stride) goes on `k` more squares."""
        one = bytes(byte if sq // stride % size + k < size else 0 for sq in range(squares))
        return int.from_bytes(one * count, "little")

    directions = tuple(
        (8 * stride, tuple(repeat(0x80, stride, k) for k in range(1, size)))
        for stride in (1, size)  # along ranks, then along files
    )
    return _BitTables(squares, repeat(0x7F), repeat(0x80), directions)


def _board_problem(cells: object, squares: int | None = None) -> str | None:
    """What makes `cells` no board (of `squares` squares, if given), or `None`."""
    if not isinstance(cells, str) or cells.strip(_BOARD_CHARACTERS):
        return f"{value_excerpt(cells)} is not a board: use the colour letters {COLOURS} and '.'"
    if len(cells) not in (25, 49):
        return f"a board has 25 or 49 squares, not {len(cells)}"
    if squares is not None and len(cells) != squares:
        return f"boards of {squares} and {len(cells)} squares are mixed; score each size apart"
    return None


def score_board(cells: str) -> int:
    """Order's score for a whole board (full or not), computed afresh.

    Args:
        cells: one character per square in index order (a1, b1, …), 49 or 25 of them: a colour
            letter or `"."` for an empty square, as [`EntropyState.board`][] gives.

    Raises:
        ValueError: `cells` is not a board.
    """
    if not isinstance(cells, str) or len(cells) not in (25, 49) or cells.strip(_BOARD_CHARACTERS):
        raise ValueError(_board_problem(cells))
    size = 5 if len(cells) == 25 else 7
    scores = line_scores(size)
    ranks = (cells[first : first + size] for first in range(0, size * size, size))
    files = (cells[first::size] for first in range(size))
    return sum(scores[line_code(line)] for line in (*ranks, *files))


def score_boards(boards: Iterable[str]) -> list[int]:
    """Order's score for many boards of one size at once (faster than [`score_board`][] each).

    Up to 256 boards are packed side by side into one int and scored together with a few dozen bit
    operations; each board's total is then read from its part of the result.

    Raises:
        ValueError: an item is not a board, or the boards differ in size.
    """
    items = list(boards)
    if not items:
        return []
    squares = len(items[0]) if isinstance(items[0], str) else 0
    scores: list[int] = []
    for first in range(0, len(items), _BATCH):
        chunk = items[first : first + _BATCH]
        try:
            text = "".join(chunk)
        except TypeError:
            text = ""
        if (
            squares not in (25, 49)
            or len(text) != squares * len(chunk)
            or text.strip(_BOARD_CHARACTERS)
        ):
            for cells in chunk:
                if problem := _board_problem(cells, squares):
                    raise ValueError(problem)
        scores += _score_packed(text, squares, len(chunk))
    return scores


def _score_packed(text: str, squares: int, count: int) -> list[int]:
    """The scores of `count` boards of `squares` squares each, side by side in `text`."""
    # Masks for more boards than there are do no harm: they only meet zero bytes.
    tables = _bit_tables(squares, 1 if count == 1 else _BATCH)
    x = int.from_bytes(text.translate(_ONE_HOT).encode("latin-1"), "little")
    low7 = tables.low7
    occupied = (x + low7) & tables.occupied
    weighted = 0  # per square: the sum of the lengths of the palindromes starting there
    for step, masks in tables.directions:
        shorter, previous = 0, occupied
        shift, length = step, 2
        for mask in masks:
            ends = ((x & (x >> shift)) + low7) & mask
            found = ends if length == 2 else ends & (shorter >> step)
            weighted += (found >> 7) * length  # at most 2 × (2 + … + 7) = 54 per byte
            shorter, previous = previous, found
            shift += step
            length += 1
    data = weighted.to_bytes(squares * count, "little")
    return list(map(sum, map(data.__getitem__, _slices(squares, count))))


@functools.cache
def _slices(squares: int, count: int) -> tuple[slice, ...]:
    return tuple(slice(i, i + squares) for i in range(0, squares * count, squares))
