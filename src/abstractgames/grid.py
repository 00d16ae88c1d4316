"""Square names, rays and the FEN-like rank notation shared by all games on a rectangular board.

Squares are ints: `index = (rank - 1) * width + file`, so `a1` is 0 and the top-right square is
the last. See [Notation and rulings](../notation.md) for the notation. [`grid_of`][] gives the
[`Grid`][] of a game or a state, to go from square names to indices and back:

Examples:
    >>> from abstractgames import get_game
    >>> squares = grid_of(get_game("orderchaos"))
    >>> squares.square("c3"), squares.name(14)
    (14, 'c3')
    >>> squares.move_squares("X@c3"), squares.move_squares("pass")
    ((14,), ())
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache

from .protocol import Game, InvalidMoveError, InvalidPositionError, Move, State
from .text import excerpt, value_excerpt

__all__ = [
    "FILES",
    "QUEEN_DIRECTIONS",
    "ROOK_DIRECTIONS",
    "Grid",
    "grid",
    "grid_of",
    "split_position",
]

FILES = "abcdefghijklmnopqrstuvwxyz"
"""The file letters, `a` first."""
_SQUARE_NAME = re.compile(r"(?<![A-Za-z0-9])[a-z][1-9][0-9]*(?![A-Za-z0-9])")
_LONG = 100
"""A rank text longer than this is refused without counting its squares."""

ROOK_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""`(files, ranks)` steps along a rank or a file."""
QUEEN_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
"""`(files, ranks)` steps along a rank, a file or a diagonal."""


class Grid:
    """The geometry of a `width` × `height` board; use [`grid_of`][] or [`grid`][] to get a
    shared instance.

    Attributes:
        width: squares per rank.
        height: ranks.
        size: squares in all.
        names: the name of every square in index order (`"a1"`, `"b1"`, …).
    """

    __slots__ = ("_index", "height", "names", "size", "width")

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.size = width * height
        self.names: tuple[str, ...] = tuple(
            f"{FILES[i % width]}{i // width + 1}" for i in range(self.size)
        )
        self._index = {name: i for i, name in enumerate(self.names)}

    def square(self, text: str) -> int:
        """The index of a square name such as `"c3"` (case-insensitive).

        Raises:
            InvalidMoveError: the text names no square of this board.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"a square name is text, not {value_excerpt(text)}")
        index = self._index.get(text.strip().lower())
        if index is None:
            last = self.names[-1]
            raise InvalidMoveError(
                f"'{excerpt(text)}' is not a square of this board (a1 to {last})"
            )
        return index

    def name(self, square: int) -> str:
        """The name of a square index, e.g. `"c3"`.

        Raises:
            ValueError: the index is not on the board.
        """
        if isinstance(square, bool) or not isinstance(square, int) or not 0 <= square < self.size:
            raise ValueError(
                f"square {value_excerpt(square)} is not on this board (0 to {self.size - 1})"
            )
        return self.names[square]

    def move_squares(self, move: Move | str) -> tuple[int, ...]:
        """The squares a move's notation names, in order: the target of a drop (`X@c3`), the
        source and target of a slide (`a4-c4`), none for a pass.

        Raises:
            InvalidMoveError: the notation names a square that is not on this board.
        """
        return tuple(self.square(name) for name in _SQUARE_NAME.findall(str(move)))

    def file(self, square: int) -> int:
        """The file of a square, 0 for file `a`."""
        return square % self.width

    def rank(self, square: int) -> int:
        """The rank of a square, 0 for rank `1`."""
        return square // self.width

    def step(self, square: int, df: int, dr: int) -> int | None:
        """The square `df` files and `dr` ranks away, or `None` off the board."""
        f, r = square % self.width + df, square // self.width + dr
        if 0 <= f < self.width and 0 <= r < self.height:
            return r * self.width + f
        return None

    def ray(self, square: int, df: int, dr: int) -> tuple[int, ...]:
        """The squares from `square` (excluded) in one direction up to the edge."""
        out = []
        nxt = self.step(square, df, dr)
        while nxt is not None:
            out.append(nxt)
            nxt = self.step(nxt, df, dr)
        return tuple(out)

    def neighbours(self, square: int) -> tuple[int, ...]:
        """The up to eight squares touching `square` orthogonally or diagonally."""
        return tuple(
            n for df, dr in QUEEN_DIRECTIONS if (n := self.step(square, df, dr)) is not None
        )

    def mask(self, squares: Iterable[int]) -> int:
        """A bitboard with the given squares set."""
        bits = 0
        for sq in squares:
            bits |= 1 << sq
        return bits

    def format_ranks(self, cells: Sequence[str]) -> str:
        """Rank notation (top rank first, `/` between ranks, digits for empty squares).

        `cells` holds one character per square in index order, `"."` for empty.
        """
        ranks = []
        for r in range(self.height - 1, -1, -1):
            text, empty = [], 0
            for c in cells[r * self.width : (r + 1) * self.width]:
                if c == ".":
                    empty += 1
                    continue
                if empty:
                    text.append(str(empty))
                    empty = 0
                text.append(c)
            if empty:
                text.append(str(empty))
            ranks.append("".join(text))
        return "/".join(ranks)

    def parse_ranks(self, text: str, pieces: str) -> str:
        """Read rank notation into one character per square in index order, `"."` for empty.

        Raises:
            InvalidPositionError: with what is wrong (rank count, rank width, a bad character).
        """
        if len(text) >= self.size + self.height:  # longer than any ranks: not split up unchecked
            self._check_long_ranks(text)
        ranks = text.split("/")
        if len(ranks) != self.height:
            raise self._rank_count(text, len(ranks))
        rows: list[str] = []
        for offset, rank_text in enumerate(ranks):
            rank_number = self.height - offset
            row: list[str] = []
            previous_digit = False
            for ch in rank_text:
                if ch.isdigit() and ch.isascii():
                    if previous_digit:
                        raise InvalidPositionError(
                            f"rank {rank_number} '{excerpt(rank_text)}': two digits in a row"
                        )
                    if ch == "0":
                        raise InvalidPositionError(
                            f"rank {rank_number} '{excerpt(rank_text)}': digit 0"
                        )
                    row.extend("." * int(ch))
                    previous_digit = True
                elif ch in pieces:
                    row.append(ch)
                    previous_digit = False
                else:
                    raise InvalidPositionError(
                        f"rank {rank_number} '{excerpt(rank_text)}': unknown character "
                        f"'{excerpt(ch)}' "
                        f"(pieces are {', '.join(pieces)}; digits count empty squares)"
                    )
            if len(row) != self.width:
                raise InvalidPositionError(
                    f"rank {rank_number} '{excerpt(rank_text)}' has {len(row)} squares, not "
                    f"{self.width}"
                )
            rows.append("".join(row))
        return "".join(reversed(rows))

    def _rank_count(self, text: str, count: int) -> InvalidPositionError:
        return InvalidPositionError(
            f"{count:,} ranks in '{excerpt(text)}'; this board has {self.height} "
            f"({self.width}x{self.height}), separated by '/'"
        )

    def _check_long_ranks(self, text: str) -> None:
        """Refuse a ranks text with too many ranks, or a rank of more than `_LONG`
        characters (each is a square at least), without reading it all."""
        count = text.count("/") + 1
        if count != self.height:
            raise self._rank_count(text, count)
        for offset, rank_text in enumerate(text.split("/")):
            if len(rank_text) > _LONG:
                raise InvalidPositionError(
                    f"rank {self.height - offset} '{excerpt(rank_text)}' has more than "
                    f"{self.width} squares ({len(rank_text):,} characters)"
                )

    def render(self, cells: Sequence[str]) -> str:
        """A plain-text diagram with coordinates, top rank first."""
        lines = []
        for r in range(self.height - 1, -1, -1):
            row = cells[r * self.width : (r + 1) * self.width]
            lines.append(f"{r + 1} " + " ".join(row))
        lines.append("  " + " ".join(FILES[: self.width]))
        return "\n".join(lines)


@cache
def grid(width: int, height: int) -> Grid:
    """The shared [`Grid`][] for a board size."""
    return Grid(width, height)


def grid_of(board: Game | State) -> Grid:
    """The [`Grid`][] of a game's board, or of the board of a state's game.

    Raises:
        NotImplementedError: the game has no board (no `board_width` or no `cells()`).
    """
    game = board.game if isinstance(board, State) else board
    if game.board_width <= 0:
        raise NotImplementedError(f"{type(game).__name__} has no board_width")
    state = board if isinstance(board, State) else game.initial_state()
    return grid(game.board_width, len(state.cells()) // game.board_width)


def split_position(text: object, fields: int, example: str) -> list[str]:
    """Split a position string into its whitespace-separated fields, checking their number."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position must be a string, not {type(text).__name__}")
    parts = text.split(maxsplit=fields)  # a huge text is not split up
    if len(parts) != fields:
        count = str(len(parts))
        if len(parts) > fields:
            count = str(len(text.split())) if len(text) <= 10_000 else f"more than {fields}"
        raise InvalidPositionError(
            f"position '{excerpt(text)}' has {count} fields, expected {fields} (e.g. {example!r})"
        )
    return parts
