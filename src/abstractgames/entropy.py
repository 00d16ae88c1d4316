"""Eric Solomon's Entropy (1977): Chaos places counters drawn at random, Order slides them.

The 7×7 board starts empty and 49 counters, seven of each of seven colours, start in a bag. Each
turn a counter is drawn (an explicit chance event: ``state.to_move == CHANCE``), Chaos places it on
any empty square, then Order slides one counter like a rook or passes. The 49th placement ends the
game at once. Order scores the length of every palindrome of two or more touching counters in every
row and column; a match is two games with the roles swapped (:class:`EntropyMatch`). ``size=5`` is
the original 5×5 Hyle board with five colours of five counters.

A state keeps the board as ints: the colours with 3 bits per square and the occupancy with 8 bits
per line, each also transposed so that files are as easy to read as ranks. Order's and Chaos's
legal moves are concatenations of precomputed tuples indexed by each line's occupancy byte. The
score is kept in the state and updated from the few lines a move changes, by looking each line up
in a table of the scores of all 8**7 possible lines (2 MB, built in about 0.1 s on first use).

Example:
    >>> from abstractgames import get_game
    >>> state = get_game("entropy").initial_state()
    >>> state = state.apply("R").apply("R@d4").apply("d4-d7").apply("R").apply("R@e7")
    >>> state.position(), state.score()
    ('3RR2/7/7/7/7/7/7 order', 2)
"""

from __future__ import annotations

import functools
import operator
import random
import re
from collections.abc import Callable, Iterable
from itertools import chain
from types import MappingProxyType
from typing import Any, cast

import attrs

from .grid import Grid, grid, split_position
from .protocol import (
    CHANCE,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Match,
    MatchError,
    MatchResult,
    Move,
    Outcome,
    State,
    check_int_param,
    check_player,
)

__all__ = [
    "CHAOS",
    "COLOURS",
    "ORDER",
    "PASS",
    "SIZES",
    "Draw",
    "EntropyGame",
    "EntropyMatch",
    "EntropyState",
    "Pass",
    "Placement",
    "Slide",
    "line_score",
    "score_board",
    "score_boards",
    "timeout_move",
]

CHAOS, ORDER = "chaos", "order"
COLOURS = "WKYGRBP"
"""The colour letters in colour order: white, black, yellow, green, red, blue, purple."""
COLOUR_NAMES = {
    "W": "white",
    "K": "black",
    "Y": "yellow",
    "G": "green",
    "R": "red",
    "B": "blue",
    "P": "purple",
}
SIZES = (5, 7)
"""The board sizes: 7 (Solomon's game, the default) and 5 (the original Hyle board)."""
EMPTY = "."
BOARD_FULL = "board full"


# --- moves ----------------------------------------------------------------------------------------


def _check_colour(instance: Any, attribute: Any, value: str) -> None:
    size = getattr(instance, "size", 7)
    if value not in COLOURS[:size] or len(value) != 1:
        raise ValueError(f"colour {value!r} is not one of {' '.join(COLOURS[:size])}")


def _check_square(instance: Any, attribute: Any, value: int) -> None:
    size = instance.size if instance.size in SIZES else 7
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < size * size:
        raise ValueError(
            f"{attribute.name} {value!r} is not a square index of a {size}×{size} board"
        )


def _size_suffix(size: int) -> str:
    return "" if size == 7 else f", size={size}"


@attrs.frozen(slots=True, repr=False)
class Draw(Move):
    """The chance event of drawing a ``colour`` counter from the bag; notation ``R``."""

    colour: str = attrs.field(validator=_check_colour)

    def __str__(self) -> str:
        return self.colour

    def __repr__(self) -> str:
        return f"Draw({self.colour!r})"


@attrs.frozen(slots=True, repr=False)
class Placement(Move):
    """Chaos puts the drawn ``colour`` counter on ``square`` (0 = a1, index order); ``R@d4``."""

    colour: str = attrs.field(validator=_check_colour)
    square: int = attrs.field(validator=_check_square)
    size: int = attrs.field(default=7, kw_only=True, validator=attrs.validators.in_(SIZES))

    def __str__(self) -> str:
        return f"{self.colour}@{grid(self.size, self.size).names[self.square]}"

    def __repr__(self) -> str:
        return f"Placement({str(self)!r}{_size_suffix(self.size)})"


@attrs.frozen(slots=True, repr=False)
class Slide(Move):
    """Order slides the counter on ``origin`` to ``target`` like a rook; notation ``d4-d7``.

    Any two squares make a ``Slide`` value; ``state.apply`` decides whether it is legal.
    """

    origin: int = attrs.field(validator=_check_square)
    target: int = attrs.field(validator=_check_square)
    size: int = attrs.field(default=7, kw_only=True, validator=attrs.validators.in_(SIZES))

    def __str__(self) -> str:
        names = grid(self.size, self.size).names
        return f"{names[self.origin]}-{names[self.target]}"

    def __repr__(self) -> str:
        return f"Slide({str(self)!r}{_size_suffix(self.size)})"


@attrs.frozen(slots=True, repr=False)
class Pass(Move):
    """Order leaves the board as it is; notation ``pass``. Use the singleton :data:`PASS`."""

    def __str__(self) -> str:
        return "pass"

    def __repr__(self) -> str:
        return "PASS"


PASS = Pass()
"""Order's pass."""


# --- scoring --------------------------------------------------------------------------------------


def _palindrome_score(line: str) -> int:
    """The score of one line by expanding palindromes around each centre (the slow path)."""
    total = 0
    length = len(line)
    for centre in range(2 * length - 1):
        lo = centre // 2
        hi = lo + centre % 2
        while lo >= 0 and hi < length and line[lo] == line[hi] != EMPTY:
            if hi > lo:
                total += hi - lo + 1
            lo -= 1
            hi += 1
    return total


def line_score(line: str) -> int:
    """Order's score for one row or column, straight from the definition.

    Args:
        line: one character per square, ``"."`` for an empty square and any other character for
            a counter of that colour (e.g. ``"ABBA"``).

    Returns:
        The sum of the lengths of all palindromes of two or more touching counters in the line
        (empty squares break runs), e.g. 6 for ``"ABBA"`` and 15 for ``"ABBBAB"``.
    """
    return _palindrome_score(line)


def _line_table(size: int) -> bytes:
    """The score of every line of ``size`` squares, indexed by the line's code.

    A line's code holds 3 bits per square, square ``i`` at bit ``3 * i``: 0 for empty, ``k + 1``
    for colour ``k``. The table is built in big ints with one byte per code, a whole array per
    operation: ``equal(i, j)`` has a 1 for each code whose squares ``i`` and ``j`` hold one colour,
    and the run from ``i`` to ``j`` is a palindrome where that holds and the run inside it is one
    (or is empty, or is one counter).
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


_OCTAL = str.maketrans({c: str(i + 1) for i, c in enumerate(COLOURS)} | {EMPTY: "0"})
_ONE_HOT = str.maketrans({c: chr(1 << i) for i, c in enumerate(COLOURS)} | {EMPTY: "\0"})
_BOARD_CHARACTERS = COLOURS + EMPTY
_BATCH = 256


@attrs.frozen
class _BitTables:
    """Masks for scoring boards of one size as ints holding one one-hot byte per square.

    A square's byte has bit ``i`` set for colour ``i`` (zero when empty), so ``x & (x >> 8k)`` has a
    nonzero byte exactly where a square and the one ``k`` places on hold the same colour; adding
    0x7F to every byte moves "nonzero" into bit 7. The masks repeat for ``count`` boards side by
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
        """``byte`` on every square whose line (of the given stride) goes on ``k`` more squares."""
        one = bytes(byte if sq // stride % size + k < size else 0 for sq in range(squares))
        return int.from_bytes(one * count, "little")

    directions = tuple(
        (8 * stride, tuple(repeat(0x80, stride, k) for k in range(1, size)))
        for stride in (1, size)  # along ranks, then along files
    )
    return _BitTables(squares, repeat(0x7F), repeat(0x80), directions)


def _board_problem(cells: object, squares: int | None = None) -> str | None:
    """What makes ``cells`` no board (of ``squares`` squares, if given), or ``None``."""
    if not isinstance(cells, str) or cells.strip(_BOARD_CHARACTERS):
        return f"{cells!r} is not a board: use the colour letters {COLOURS} and '.'"
    if len(cells) not in (25, 49):
        return f"a board has 25 or 49 squares, not {len(cells)}"
    if squares is not None and len(cells) != squares:
        return f"boards of {squares} and {len(cells)} squares are mixed; score each size apart"
    return None


def score_board(cells: str) -> int:
    """Order's score for a whole board (full or not), computed afresh.

    Args:
        cells: one character per square in index order (a1, b1, …), 49 or 25 of them: a colour
            letter or ``"."`` for an empty square, as :attr:`EntropyState.board` gives.

    Raises:
        ValueError: ``cells`` is not a board.
    """
    if not isinstance(cells, str) or len(cells) not in (25, 49) or cells.strip(_BOARD_CHARACTERS):
        raise ValueError(_board_problem(cells))
    v = _variant(5 if len(cells) == 25 else 7)
    return v.score(*v.codes(cells))


def score_boards(boards: Iterable[str]) -> list[int]:
    """Order's score for many boards of one size at once (faster than :func:`score_board` each).

    Up to 256 boards are packed side by side into one int and scored together with a few dozen
    bit operations (see ``_BitTables``); each board's total is then read from its part of the
    result.

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
    """The scores of ``count`` boards of ``squares`` squares each, side by side in ``text``."""
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


# --- per-size tables ------------------------------------------------------------------------------


class _Variant:
    """Everything precomputed for one board size: move singletons and move tables."""

    def __init__(self, size: int) -> None:
        n = size
        squares = n * n
        self.size = n
        self.squares = squares
        self.grid: Grid = grid(n, n)
        self.colours = COLOURS[:n]
        self.per_colour = n
        self.colour_index = {c: i for i, c in enumerate(self.colours)}
        self.value = {c: i + 1 for i, c in enumerate(self.colours)}
        self.characters = EMPTY + self.colours  # by value
        self.draws = tuple(Draw(c) for c in self.colours)
        self.placements: dict[str, tuple[Placement, ...]] = {
            c: tuple(Placement(c, sq, size=n) for sq in range(squares)) for c in self.colours
        }
        # Occupancy bitboards keep eight bits per line: by ranks (bit 8 * rank + file) and by
        # files (bit 8 * file + rank), so int.to_bytes gives each line's occupancy as a byte.
        self.bit = tuple(1 << (8 * (sq // n) + sq % n) for sq in range(squares))
        self.tbit = tuple(1 << (8 * (sq % n) + sq // n) for sq in range(squares))
        self.full = sum(self.bit)
        # The board's colours as two ints of 3 bits per square (see _line_table): by index
        # (square i at bit 3 * i, so rank r is the line code at bit 3 * size * r), and transposed
        # (file f's code at bit 3 * size * f).
        self.shift = tuple(3 * sq for sq in range(squares))
        self.tshift = tuple(3 * (n * (sq % n) + sq // n) for sq in range(squares))
        self.rank_at = tuple(3 * n * (sq // n) for sq in range(squares))
        self.file_at = tuple(3 * n * (sq % n) for sq in range(squares))
        self.line_mask = (1 << 3 * n) - 1
        self.line_shifts = tuple(3 * n * r for r in range(n))
        self.line_scores = _line_table(n)
        self.transpose = operator.itemgetter(*(r * n + f for f in range(n) for r in range(n)))
        self.slides: list[list[Slide | None]] = [[None] * squares for _ in range(squares)]
        # path[o][t]: the squares a slide from o to t crosses or lands on; -1 if not a rook line.
        self.path: list[list[int]] = [[-1] * squares for _ in range(squares)]
        for origin in range(squares):
            for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                crossed = 0
                for target in self.grid.ray(origin, df, dr):
                    crossed |= self.bit[target]
                    self.path[origin][target] = crossed
                    self.slides[origin][target] = Slide(origin, target, size=n)
        lines = range(1 << n)
        self.rank_placements: dict[str, tuple[tuple[tuple[Placement, ...], ...], ...]] = {
            c: tuple(
                tuple(
                    tuple(row[r * n + f] for f in range(n) if not bits >> f & 1) for bits in lines
                )
                for r in range(n)
            )
            for c, row in self.placements.items()
        }
        self.rank_slides = tuple(
            tuple(self._line_slides(bits, r * n, 1) for bits in lines) for r in range(n)
        )
        self.file_slides = tuple(
            tuple(self._line_slides(bits, f, n) for bits in lines) for f in range(n)
        )

    def codes(self, cells: str) -> tuple[int, int]:
        """A board's colour codes (see above) from its cells, by index and transposed."""
        digits = cells.translate(_OCTAL)
        return int(digits[::-1], 8), int("".join(self.transpose(digits))[::-1], 8)

    def score(self, code: int, tcode: int) -> int:
        """The score of a board from its colour codes."""
        lines, mask, shifts = self.line_scores, self.line_mask, self.line_shifts
        return sum([lines[code >> s & mask] for s in shifts]) + sum(
            [lines[tcode >> s & mask] for s in shifts]
        )

    def _line_slides(self, bits: int, first: int, stride: int) -> tuple[Slide, ...]:
        """The slides within one line whose occupancy is ``bits``: by origin, then target.

        The line's squares are ``first``, ``first + stride``, …; bit ``i`` of ``bits`` is the
        ``i``-th of them.
        """
        out = []
        for start in range(self.size):
            if not bits >> start & 1:
                continue
            targets = []
            for step in (-1, 1):
                to = start + step
                while 0 <= to < self.size and not bits >> to & 1:
                    targets.append(to)
                    to += step
            for to in sorted(targets):
                slide = self.slides[first + start * stride][first + to * stride]
                assert slide is not None
                out.append(slide)
        return tuple(out)


@functools.cache
def _variant(size: int) -> _Variant:
    return _Variant(size)


@functools.cache
def _game(size: int) -> EntropyGame:
    return EntropyGame(size)


# --- the game -------------------------------------------------------------------------------------

_ASCII = re.ASCII | re.IGNORECASE
_SLIDE_RE = re.compile(r"([a-z][0-9]{1,2})\s*[-\s]?\s*([a-z][0-9]{1,2})", _ASCII)
_PLACE_RE = re.compile(r"([a-z])\s*@?\s*([a-z][0-9]{1,2})", _ASCII)
_SQUARE_RE = re.compile(r"[a-z][0-9]{1,2}", _ASCII)
_COLOUR_RE = re.compile(r"[a-z]", _ASCII)


class EntropyGame(Game):
    """Solomon's Entropy (``get_game("entropy")``); ``size=5`` is the original 5×5 Hyle board.

    Roles in turn order are ``("chaos", "order")``: Chaos places first. A single game has no
    winner (the match decides, see :class:`EntropyMatch`): its :class:`~abstractgames.Outcome` has
    ``winner=None``, ``scores={"order": <final score>, "chaos": 0}`` and reason ``"board full"``.

    Args:
        size: 7 (7×7, colours W K Y G R B P, 7 of each) or 5 (5×5, W K Y G R, 5 of each).

    Raises:
        InvalidParameterError: ``size`` is not 5 or 7.
    """

    name = "entropy"
    roles = (CHAOS, ORDER)

    def __init__(self, size: int = 7) -> None:
        self.size: int = check_int_param("size", size, allowed=SIZES)
        self._variant = _variant(size)
        # N draws, N placements and N - 1 Order turns (none after the last placement).
        self.max_length = 3 * size * size - 1
        self.board_width = size
        self.piece_colours = MappingProxyType({c: COLOUR_NAMES[c] for c in COLOURS[:size]})

    @property
    def params(self) -> dict[str, Any]:
        return {"size": self.size}

    @property
    def colours(self) -> str:
        """The colour letters of this game in colour order, e.g. ``"WKYGRBP"``."""
        return self._variant.colours

    def initial_state(self) -> EntropyState:
        v = self._variant
        bag = (v.per_colour,) * v.size
        return _make(v, 0, 0, 0, 0, bag, CHANCE, None, 0, EMPTY * v.squares)

    def from_position(self, text: str) -> EntropyState:
        """Read ``<ranks> <phase>``, phase ``draw``, ``chaos:<C>``, ``order`` or ``end``.

        Raises:
            InvalidPositionError: what is wrong: the ranks, the phase, too many counters of a
                colour, a drawn colour not in the bag, or a phase the board cannot have.
        """
        v = self._variant
        n = v.size
        example = f"{'/'.join([str(n)] * n)} draw"
        ranks, phase_text = split_position(text, 2, example)
        board = v.grid.parse_ranks(ranks, v.colours)
        phase, _, drawn_text = phase_text.partition(":")
        phase = phase.lower()
        drawn: str | None = None
        if phase == CHAOS and drawn_text:
            drawn = drawn_text.upper()
            if drawn not in v.colours or len(drawn) != 1:
                raise InvalidPositionError(
                    f"phase {phase_text!r}: {drawn_text} is not a colour of this game "
                    f"({' '.join(v.colours)})"
                )
        elif phase not in ("draw", ORDER, "end") or drawn_text:
            raise InvalidPositionError(
                f"phase {phase_text!r} must be 'draw', 'chaos:<colour>' (e.g. 'chaos:R'), "
                "'order' or 'end'"
            )
        bag = []
        for c in v.colours:
            on_board = board.count(c)
            if on_board > v.per_colour:
                raise InvalidPositionError(
                    f"{on_board} {c} counters on the board; there are only {v.per_colour} "
                    f"{COLOUR_NAMES[c]} counters"
                )
            if c == drawn and on_board == v.per_colour:
                raise InvalidPositionError(
                    f"the drawn colour {c} is not in the bag: all {v.per_colour} "
                    f"{COLOUR_NAMES[c]} counters are on the board"
                )
            bag.append(v.per_colour - on_board - (c == drawn))
        count = v.squares - board.count(EMPTY)
        full = count == v.squares
        to_move: str | None
        if phase == "end":
            if not full:
                raise InvalidPositionError(
                    f"phase 'end' with {v.squares - count} empty squares: the game ends only "
                    "when the board is full"
                )
            to_move = None
        elif full:
            raise InvalidPositionError(
                f"phase {phase_text!r} on a full board: the last placement ends the game, so the "
                "phase must be 'end'"
            )
        elif phase == ORDER:
            if count == 0:
                raise InvalidPositionError(
                    "phase 'order' on an empty board: Order moves after a placement, so there is "
                    "at least one counter"
                )
            to_move = ORDER
        elif phase == CHAOS:
            to_move = CHAOS
        else:
            to_move = CHANCE
        occ = tocc = 0
        for sq, c in enumerate(board):
            if c != EMPTY:
                occ |= v.bit[sq]
                tocc |= v.tbit[sq]
        code, tcode = v.codes(board)
        score = v.score(code, tcode)
        return _make(v, code, tcode, occ, tocc, tuple(bag), to_move, drawn, score, board)

    def parse_move(self, text: str, state: State | None = None) -> Move:
        """Read a move, case-insensitively; the canonical forms are what ``str(move)`` gives.

        Accepts ``R`` (a draw), ``R@d4`` or ``Rd4`` (a placement), a plain ``d4`` (a placement of
        the counter drawn in ``state``), ``d4-d7`` or ``d4 d7`` (a slide) and ``pass``.

        Raises:
            InvalidMoveError: the text is no move of this game, or a plain square is given while
                no counter is drawn in ``state``.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"move notation must be a string, not {type(text).__name__}")
        v = self._variant
        body = text.strip()
        if body.lower() == "pass":
            return PASS
        if match := _SLIDE_RE.fullmatch(body):
            origin, target = v.grid.square(match[1]), v.grid.square(match[2])
            slide = v.slides[origin][target]
            return slide if slide is not None else Slide(origin, target, size=v.size)
        if match := _PLACE_RE.fullmatch(body):
            return v.placements[self._colour(match[1], text)][v.grid.square(match[2])]
        if _SQUARE_RE.fullmatch(body):
            square = v.grid.square(body)
            drawn = None
            if isinstance(state, EntropyState) and state.size == v.size:
                drawn = state.drawn
            if drawn is None:
                raise InvalidMoveError(
                    f"cannot read move {text!r}: a plain square needs a drawn counter; write the "
                    "colour too, e.g. 'R@d4'"
                )
            return v.placements[drawn][square]
        if _COLOUR_RE.fullmatch(body):
            return v.draws[v.colour_index[self._colour(body, text)]]
        raise InvalidMoveError(
            f"cannot read move {text!r}: write a draw 'R', a placement 'R@d4', a slide 'd4-d7' "
            "or 'pass'"
        )

    def _colour(self, letter: str, text: str) -> str:
        colour = letter.upper()
        if colour not in self._variant.colours:
            raise InvalidMoveError(
                f"cannot read move {text!r}: {colour} is not a colour of this game "
                f"({' '.join(self._variant.colours)})"
            )
        return colour

    def new_match(self, *, correspondence: bool = False) -> EntropyMatch:
        """Two games with the roles swapped (see :class:`EntropyMatch`)."""
        return EntropyMatch(self.size, correspondence)

    def timeout_move(self, state: State) -> Move:
        """Order passes; Chaos's counter goes on the first empty square (see :func:`timeout_move`).

        Raises:
            IllegalMoveError: ``state`` is a draw, the end, or not a state of this game.
        """
        if not isinstance(state, EntropyState) or state.size != self.size:
            raise IllegalMoveError(f"{state!r} is not a state of {self!r}")
        return timeout_move(state)

    def benchmarks(self, rng: random.Random) -> dict[str, Callable[[], int]]:
        """``{"boards scored": run}``: ``run`` scores 1,000 random full boards with one call."""
        v = self._variant
        counters = list(v.colours * v.per_colour)
        boards = []
        for _ in range(1000):
            rng.shuffle(counters)
            boards.append("".join(counters))

        def run() -> int:
            return len(score_boards(boards))

        return {"boards scored": run}


# --- the state ------------------------------------------------------------------------------------

_set = object.__setattr__
_new = object.__new__
_PHASE_TEXT = {CHANCE: "draw", ORDER: ORDER, None: "end"}


class _StateFields:
    """The slots of :class:`EntropyState`, written only by :func:`_make` (see there)."""

    __slots__ = (
        "_bag",
        "_cells",
        "_code",
        "_drawn",
        "_legal",
        "_occ",
        "_score",
        "_tcode",
        "_to_move",
        "_tocc",
        "_v",
    )
    _v: _Variant
    _code: int  # 3 bits per square by index, transposed in _tcode (see _Variant)
    _tcode: int
    _occ: int  # occupancy, 8 bits per rank, transposed in _tocc (see _Variant)
    _tocc: int
    _bag: tuple[int, ...]
    _to_move: str | None
    _drawn: str | None
    _score: int
    _legal: tuple[Move, ...] | None  # computed when first asked for
    _cells: str | None  # likewise


class EntropyState(_StateFields, State):
    """A position of Entropy: the board, whose turn it is, and the drawn counter if any.

    The bag is derived: each colour's counters minus those on the board minus the drawn one.
    """

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    @property
    def game(self) -> EntropyGame:
        return _game(self._v.size)

    @property
    def to_move(self) -> str | None:
        return self._to_move

    @property
    def size(self) -> int:
        """The board's width and height: 7 or 5."""
        return self._v.size

    @property
    def board(self) -> str:
        """One character per square in index order (a1, b1, …): a colour letter or ``"."``."""
        cells = self._cells
        if cells is None:
            code, characters = self._code, self._v.characters
            cells = "".join([characters[code >> shift & 7] for shift in self._v.shift])
            _set(self, "_cells", cells)
        return cells

    def cells(self) -> str:
        """The same as :attr:`board`."""
        return self.board

    @property
    def drawn(self) -> str | None:
        """The colour Chaos must place now, or ``None`` when no counter is drawn."""
        return self._drawn

    @property
    def placements(self) -> int:
        """How many counters are on the board (one per placement so far)."""
        return self._occ.bit_count()

    def bag(self) -> dict[str, int]:
        """How many counters of each colour are still in the bag, in colour order."""
        return dict(zip(self._v.colours, self._bag, strict=True))

    def score(self) -> int:
        """Order's score for the board as it stands (the final score once the game is over)."""
        return self._score

    def legal_moves(self) -> tuple[Move, ...]:
        """The legal moves in canonical order.

        At a draw: one :class:`Draw` per colour still in the bag, in colour order. Chaos: the
        placements of the drawn colour on every empty square, in square index order. Order:
        :data:`PASS` first, then the slides along ranks (rank 1 first), then the slides along
        files (file a first); within a line by origin square, then target square.
        """
        legal = self._legal
        if legal is None:
            v = self._v
            to_move = self._to_move
            if to_move == ORDER:
                ranks = self._occ.to_bytes(v.size, "little")
                files = self._tocc.to_bytes(v.size, "little")
                legal = (
                    PASS,
                    *chain.from_iterable(map(operator.getitem, v.rank_slides, ranks)),
                    *chain.from_iterable(map(operator.getitem, v.file_slides, files)),
                )
            elif to_move == CHAOS:
                ranks = self._occ.to_bytes(v.size, "little")
                rank_placements = v.rank_placements[cast(str, self._drawn)]
                legal = tuple(chain.from_iterable(map(operator.getitem, rank_placements, ranks)))
            elif to_move == CHANCE:
                legal = tuple([d for d, left in zip(v.draws, self._bag, strict=True) if left])
            else:
                legal = ()
            _set(self, "_legal", legal)
        return legal

    def chance_outcomes(self) -> tuple[tuple[Move, float], ...]:
        """At a draw, each colour still in the bag with probability (its count) / (bag size)."""
        if self._to_move != CHANCE:
            return super().chance_outcomes()
        bag = self._bag
        total = sum(bag)
        draws = self._v.draws
        return tuple([(d, left / total) for d, left in zip(draws, bag, strict=True) if left])

    def apply(self, move: Move | str) -> EntropyState:
        if type(move) is Slide:
            return self._slide(move)
        if type(move) is Placement:
            return self._place(move)
        if type(move) is Draw:
            return self._draw(move)
        if type(move) is Pass:
            if self._to_move != ORDER:
                raise self._wrong_turn(PASS, "only Order passes")
            return _make(
                self._v,
                self._code,
                self._tcode,
                self._occ,
                self._tocc,
                self._bag,
                CHANCE,
                None,
                self._score,
                self._cells,
            )
        if isinstance(move, str):
            return self.apply(self.game.parse_move(move, self))
        raise IllegalMoveError(f"{move!r} is not an Entropy move")

    def _draw(self, move: Draw) -> EntropyState:
        if self._to_move != CHANCE:
            raise self._wrong_turn(move, "a counter is drawn only at the start of a turn")
        v = self._v
        index = v.colour_index.get(move.colour)
        if index is None:
            raise self._illegal(
                move, f"{move.colour} is not a colour of the {self._dimensions()} game"
            )
        bag = self._bag
        if not bag[index]:
            raise self._illegal(
                move,
                f"no {move.colour} counter is left in the bag "
                f"(all {v.per_colour} are on the board)",
            )
        bag = (*bag[:index], bag[index] - 1, *bag[index + 1 :])
        return _make(
            v,
            self._code,
            self._tcode,
            self._occ,
            self._tocc,
            bag,
            CHAOS,
            move.colour,
            self._score,
            self._cells,
        )

    def _place(self, move: Placement) -> EntropyState:
        v = self._v
        if self._to_move != CHAOS:
            raise self._wrong_turn(move, "only Chaos places counters")
        if move.size != v.size:
            raise self._illegal(move, f"the move is for the {move.size}×{move.size} board")
        colour = move.colour
        if colour != self._drawn:
            raise self._illegal(
                move,
                f"the drawn counter is {self._drawn}: Chaos places it but does not choose "
                "its colour",
            )
        square = move.square
        occ = self._occ
        bit = v.bit[square]
        if occ & bit:
            raise self._illegal(move, f"{v.grid.names[square]} is occupied")
        value = v.value[colour]
        old, told = self._code, self._tcode
        code = old + (value << v.shift[square])
        tcode = told + (value << v.tshift[square])
        rank, file = v.rank_at[square], v.file_at[square]
        lines, mask = v.line_scores, v.line_mask
        score = (
            self._score
            + lines[code >> rank & mask]
            - lines[old >> rank & mask]
            + lines[tcode >> file & mask]
            - lines[told >> file & mask]
        )
        occ |= bit
        return _make(
            v,
            code,
            tcode,
            occ,
            self._tocc | v.tbit[square],
            self._bag,
            ORDER if occ != v.full else None,
            None,
            score,
            None,
        )

    def _slide(self, move: Slide) -> EntropyState:
        v = self._v
        if self._to_move != ORDER:
            raise self._wrong_turn(move, "only Order slides counters")
        if move.size != v.size:
            raise self._illegal(move, f"the move is for the {move.size}×{move.size} board")
        origin, target = move.origin, move.target
        occ = self._occ
        path = v.path[origin][target]
        if path < 0 or not occ & v.bit[origin] or occ & path:
            raise self._illegal(move, self._why_not(origin, target))
        old, told = self._code, self._tcode
        value = old >> v.shift[origin] & 7
        code = old + (value << v.shift[target]) - (value << v.shift[origin])
        tcode = told + (value << v.tshift[target]) - (value << v.tshift[origin])
        lines, mask = v.line_scores, v.line_mask
        score = self._score
        rank = v.rank_at[origin]
        if rank == v.rank_at[target]:  # along a rank: that rank and two files change
            file, other = v.file_at[origin], v.file_at[target]
            score += (
                lines[code >> rank & mask]
                - lines[old >> rank & mask]
                + lines[tcode >> file & mask]
                - lines[told >> file & mask]
                + lines[tcode >> other & mask]
                - lines[told >> other & mask]
            )
        else:  # along a file: that file and two ranks change
            file, other = v.file_at[origin], v.rank_at[target]
            score += (
                lines[tcode >> file & mask]
                - lines[told >> file & mask]
                + lines[code >> rank & mask]
                - lines[old >> rank & mask]
                + lines[code >> other & mask]
                - lines[old >> other & mask]
            )
        moved = v.bit[origin] | v.bit[target]
        tmoved = v.tbit[origin] | v.tbit[target]
        return _make(
            v, code, tcode, occ ^ moved, self._tocc ^ tmoved, self._bag, CHANCE, None, score, None
        )

    def _why_not(self, origin: int, target: int) -> str:
        v = self._v
        names = v.grid.names
        if origin == target:
            return "the counter does not move; to pass, write 'pass'"
        path = v.path[origin][target]
        if path < 0:
            return (
                f"{names[origin]} and {names[target]} are not on one rank or file; counters "
                "slide like a rook"
            )
        if not self._occ & v.bit[origin]:
            return f"there is no counter on {names[origin]}"
        if self._occ & v.bit[target]:
            return f"{names[target]} is occupied; a counter must land on an empty square"
        step = 1 if v.rank_at[origin] == v.rank_at[target] else v.size
        step = step if target > origin else -step
        blocker = next(sq for sq in range(origin + step, target, step) if self._occ & v.bit[sq])
        return f"the slide passes over the counter on {names[blocker]}; counters cannot jump"

    def _dimensions(self) -> str:
        return f"{self._v.size}×{self._v.size}"

    def _illegal(self, move: Move, why: str) -> IllegalMoveError:
        return IllegalMoveError(f"illegal move {move} in {self.position()}: {why}")

    def _wrong_turn(self, move: Move, rule: str) -> IllegalMoveError:
        turns: dict[str | None, str] = {
            CHANCE: "a draw from the bag is due",
            CHAOS: f"Chaos must place the drawn {self._drawn}",
            ORDER: "it is Order's turn (slide a counter or pass)",
        }
        turn = turns.get(self._to_move)
        return self._illegal(move, "the game is over" if turn is None else f"{turn}; {rule}")

    def describe(self) -> tuple[str, ...]:
        """The live score, the drawn counter if any, and what is left in the bag."""
        bag = " ".join(f"{c}{k}" for c, k in zip(self._v.colours, self._bag, strict=True))
        drawn = () if self._drawn is None else (f"drawn: {self._drawn}",)
        return (f"score {self._score}", *drawn, f"bag {bag}")

    def outcome(self) -> Outcome | None:
        """``None`` until the board is full, then no winner and the scores (see EntropyGame)."""
        if self._to_move is not None:
            return None
        return Outcome(None, {CHAOS: 0, ORDER: self._score}, BOARD_FULL)

    def position(self) -> str:
        phase = _PHASE_TEXT.get(self._to_move) or f"{CHAOS}:{self._drawn}"
        return f"{self._v.grid.format_ranks(self.board)} {phase}"

    def __str__(self) -> str:
        turns: dict[str | None, str] = {
            CHANCE: "a draw is due",
            CHAOS: f"Chaos to place {self._drawn}",
            ORDER: "Order to move",
            None: "game over",
        }
        turn = turns[self._to_move]
        bag = " ".join(f"{c}{k}" for c, k in zip(self._v.colours, self._bag, strict=True))
        return f"{self._v.grid.render(self.board)}\nscore {self._score}, {turn}; bag {bag}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EntropyState):
            return NotImplemented
        return (
            self._code == other._code
            and self._v is other._v
            and self._to_move == other._to_move
            and self._drawn == other._drawn
        )

    def __hash__(self) -> int:
        return hash((self._code, self._v.size, self._to_move, self._drawn))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self._v.size, self.position()))


def _restore(size: int, position: str) -> EntropyState:
    return _game(size).from_position(position)


def _make(
    v: _Variant,
    code: int,
    tcode: int,
    occ: int,
    tocc: int,
    bag: tuple[int, ...],
    to_move: str | None,
    drawn: str | None,
    score: int,
    cells: str | None,
) -> EntropyState:
    # Filling a plain _StateFields and then making it an EntropyState (same layout) is much
    # faster than object.__setattr__ on each slot, and the state is immutable from then on.
    state = _new(_StateFields)
    state._v = v
    state._code = code
    state._tcode = tcode
    state._occ = occ
    state._tocc = tocc
    state._bag = bag
    state._to_move = to_move
    state._drawn = drawn
    state._score = score
    state._legal = None
    state._cells = cells
    state.__class__ = EntropyState
    return cast(EntropyState, state)


# --- timeouts and the match -----------------------------------------------------------------------


def timeout_move(state: EntropyState) -> Move:
    """The move made for a player whose clock ran out in a live game.

    Order passes; Chaos's drawn counter goes on the first empty square in index order (a1, b1, …).

    Raises:
        IllegalMoveError: at a draw (no player moves there) or when the game is over.
    """
    if state.to_move == ORDER:
        return PASS
    if state.to_move == CHAOS:
        v = state._v
        first_empty = next(sq for sq in range(v.squares) if not state._occ & v.bit[sq])
        return v.placements[cast(str, state.drawn)][first_empty]
    if state.to_move == CHANCE:
        raise IllegalMoveError(
            f"no timeout move in {state.position()}: a draw from the bag is due, no player moves"
        )
    raise IllegalMoveError(f"no timeout move in {state.position()}: the game is over")


@attrs.frozen
class EntropyMatch(Match):
    """A match of two games with the roles swapped; immutable, each event returns a new match.

    Player 1 is Chaos in game 1 and Order in game 2; player 2 the other way round. Each player's
    Order score is compared after both games: the higher wins, equal scores draw. A resignation
    ends the whole match at once, and so does running out of time in a correspondence match (in a
    live match a player out of time keeps playing by :func:`timeout_move` instead). The result's
    ``scores`` are player 1's and player 2's Order scores (``None`` for a game not played).

    Attributes:
        size: the board size of both games.
        correspondence: whether running out of time loses the match.
        order_scores: Order's final score of each finished game, in game order.
        forfeited: the player who lost the whole match at once (resigned, out of time in a
            correspondence match, …) and why, if any.

    Example:
        >>> match = EntropyMatch()
        >>> match.role_of(1), match.player_of("order")
        ('chaos', 2)
    """

    size: int = attrs.field(default=7, validator=attrs.validators.in_(SIZES))
    correspondence: bool = False
    order_scores: tuple[int, ...] = ()
    forfeited: tuple[int, str] | None = None

    @property
    def game(self) -> EntropyGame:
        """The game both games of the match are played in."""
        return _game(self.size)

    @property
    def game_number(self) -> int | None:
        """1 or 2: the game being played, or ``None`` when the match is over."""
        return None if self.is_over() else len(self.order_scores) + 1

    def role_of(self, player: int, game_number: int | None = None) -> str:
        """The role (``"chaos"`` or ``"order"``) of ``player`` in a game (default: the current one).

        Raises:
            MatchError: no such player or game, or the match is over and no game is given.
        """
        number = self._number(game_number)
        return CHAOS if (check_player(player) == 1) == (number == 1) else ORDER

    def order_score_of(self, player: int) -> int | None:
        """The Order score of ``player`` (game 2 for player 1, game 1 for player 2), if played."""
        index = 1 if check_player(player) == 1 else 0
        return self.order_scores[index] if index < len(self.order_scores) else None

    def record_game(self, final: State) -> EntropyMatch:
        """The match after the current game ended in ``final`` (a finished state of this size).

        Raises:
            MatchError: the match is over, or ``final`` is not a finished game of this size.
        """
        if self.is_over():
            raise MatchError("the match is over; no further game can be recorded")
        if not isinstance(final, EntropyState) or final.size != self.size:
            raise MatchError(f"{final!r} is not a state of {self.game!r}")
        if not final.is_terminal():
            raise MatchError(f"game {self.game_number} is not over in {final.position()}")
        return attrs.evolve(self, order_scores=(*self.order_scores, final.score()))

    def is_over(self) -> bool:
        """Whether both games are finished, or a player resigned or lost on time."""
        return len(self.order_scores) == 2 or self.forfeited is not None

    def forfeit(self, player: int, reason: str) -> EntropyMatch:
        """The match after ``player`` lost it at once for ``reason``: the other player wins.

        Raises:
            MatchError: the match is already over, or there is no such player.
        """
        self._check_going_on()
        return attrs.evolve(self, forfeited=(check_player(player), reason))

    def lose_on_time(self, player: int) -> EntropyMatch:
        """The match after ``player`` ran out of time in a correspondence match: they lose it.

        Raises:
            MatchError: a live match (there timeout moves are played instead), the match is
                already over, or there is no such player.
        """
        if not self.correspondence:
            raise MatchError(
                "in a live match a player out of time keeps playing by timeout moves; only a "
                "correspondence match is lost on time"
            )
        return self.forfeit(player, f"player {player} ran out of time")

    def result(self) -> MatchResult | None:
        """``None`` while the match goes on, else its winner, reason and Order scores."""
        scores = (self.order_score_of(1), self.order_score_of(2))
        if self.forfeited is not None:
            loser, reason = self.forfeited
            return MatchResult(3 - loser, reason, scores)
        if len(self.order_scores) < 2:
            return None
        one, two = self.order_scores[1], self.order_scores[0]
        if one == two:
            return MatchResult(None, f"both players scored {one} as Order", scores)
        winner, loser = (1, 2) if one > two else (2, 1)
        high, low = max(one, two), min(one, two)
        return MatchResult(
            winner, f"player {winner} scored {high} as Order, player {loser} scored {low}", scores
        )

    def _number(self, game_number: int | None) -> int:
        if game_number is None:
            if self.game_number is None:
                raise MatchError("the match is over; name the game (1 or 2)")
            return self.game_number
        if game_number not in (1, 2) or isinstance(game_number, bool):
            raise MatchError(f"a match has games 1 and 2, not {game_number!r}")
        return game_number

    def _check_going_on(self) -> None:
        if self.is_over():
            raise MatchError("the match is already over")
