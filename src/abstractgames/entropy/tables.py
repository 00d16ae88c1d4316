"""Everything precomputed for one board size, shared by the game's states and by the bots.

[`size_tables`][] gives one [`SizeTables`][] per size: the move singletons, the bit layouts of
a state's board ints, the line-score table and the per-line move tables from which a state's
legal moves are concatenated.
"""

from __future__ import annotations

import functools
import operator

from ..grid import Grid, grid
from .board import COLOURS, EMPTY, line_code
from .moves import Draw, Placement, Slide
from .scoring import line_scores

__all__ = ["SizeTables", "size_tables"]


class SizeTables:
    """Everything precomputed for one board size (make it with [`size_tables`][]).

    A state keeps its board as ints: the colours as line codes (3 bits per square, see
    [`abstractgames.entropy.board`][]) of the whole board by index and transposed, and the
    occupancy with 8 bits per line by ranks and by files, so that `int.to_bytes` gives each
    line's occupancy as a byte and files are as easy to read as ranks.

    Attributes:
        size: the board's width and height (5 or 7).
        squares: `size * size`.
        grid: the board's square names and geometry.
        colours: the colour letters of this size, in colour order.
        per_colour: how many counters of each colour there are (`size`).
        colour_index: colour letter -> its index in `colours`.
        value: colour letter -> its 3-bit value in line codes (its index + 1).
        characters: the character of each 3-bit value: `"."`, then the colours.
        draws: the [`Draw`][] of each colour, in colour order.
        placements: colour letter -> the [`Placement`][] on each square.
        slides: `slides[origin][target]`: the [`Slide`][] between two squares of one rank or file,
            else `None`.
        path: `path[origin][target]`: the occupancy bits (by ranks) of the squares a slide
            crosses or lands on, or -1 if the squares are not on one rank or file.
        bit: each square's occupancy bit by ranks (bit `8 * rank + file`).
        tbit: each square's occupancy bit by files (bit `8 * file + rank`).
        full: the occupancy of a full board, by ranks.
        shift: where each square's 3 bits are in the code by index (`3 * square`).
        tshift: where each square's 3 bits are in the transposed code.
        rank_at: where the code of each square's rank starts in the code by index.
        file_at: where the code of each square's file starts in the transposed code.
        line_mask: the bits of one line's code: `code >> rank_at[square] & line_mask` is the
            code of the square's rank.
        line_shifts: where each line's code starts in a board code, line 1 (rank 1, file a) first.
        line_scores: the score of every line by its code (see
            [`line_scores`][abstractgames.entropy.scoring.line_scores]).
        line_targets: `line_targets[occupancy][i]`: the squares of a line (by their index
            along it) that a counter on its `i`-th square can slide to when the line's
            occupancy bits are `occupancy`; nearest first, those before `i` then those after.
        rank_placements: colour -> rank -> rank occupancy -> the placements on its empty squares.
        rank_slides: rank -> rank occupancy -> the slides along it (by origin, then target).
        file_slides: file -> file occupancy -> the slides along it (by origin, then target).
    """

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
        self.bit = tuple(1 << (8 * (sq // n) + sq % n) for sq in range(squares))
        self.tbit = tuple(1 << (8 * (sq % n) + sq // n) for sq in range(squares))
        self.full = sum(self.bit)
        # Rank r is the line code at bit 3 * size * r of the code by index, file f at bit
        # 3 * size * f of the transposed code.
        self.shift = tuple(3 * sq for sq in range(squares))
        self.tshift = tuple(3 * (n * (sq % n) + sq // n) for sq in range(squares))
        self.rank_at = tuple(3 * n * (sq // n) for sq in range(squares))
        self.file_at = tuple(3 * n * (sq % n) for sq in range(squares))
        self.line_mask = (1 << 3 * n) - 1
        self.line_shifts = tuple(3 * n * r for r in range(n))
        self.line_scores = line_scores(n)
        self._transpose = operator.itemgetter(*(r * n + f for f in range(n) for r in range(n)))
        self.slides: list[list[Slide | None]] = [[None] * squares for _ in range(squares)]
        self.path: list[list[int]] = [[-1] * squares for _ in range(squares)]
        for origin in range(squares):
            for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                crossed = 0
                for target in self.grid.ray(origin, df, dr):
                    crossed |= self.bit[target]
                    self.path[origin][target] = crossed
                    self.slides[origin][target] = Slide(origin, target, size=n)
        lines = range(1 << n)
        self.line_targets = tuple(tuple(self._targets(bits, i) for i in range(n)) for bits in lines)
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
        """The colour codes of a board by index and transposed, from its cells (as `board`)."""
        return line_code(cells), line_code("".join(self._transpose(cells)))

    def score(self, code: int, tcode: int) -> int:
        """The score of a board from its colour codes."""
        lines, mask, shifts = self.line_scores, self.line_mask, self.line_shifts
        return sum([lines[code >> s & mask] for s in shifts]) + sum(
            [lines[tcode >> s & mask] for s in shifts]
        )

    def _targets(self, bits: int, start: int) -> tuple[int, ...]:
        """The squares a counter on square `start` of a line with occupancy `bits` reaches."""
        found = []
        for step in (-1, 1):
            to = start + step
            while 0 <= to < self.size and not bits >> to & 1:
                found.append(to)
                to += step
        return tuple(found)

    def _line_slides(self, bits: int, first: int, stride: int) -> tuple[Slide, ...]:
        """The slides within one line whose occupancy is `bits`: by origin, then target.

        The line's squares are `first`, `first + stride`, …; bit `i` of `bits` is the
        `i`-th of them.
        """
        out = []
        for start in range(self.size):
            if not bits >> start & 1:
                continue
            for to in sorted(self.line_targets[bits][start]):
                slide = self.slides[first + start * stride][first + to * stride]
                assert slide is not None
                out.append(slide)
        return tuple(out)


@functools.cache
def size_tables(size: int) -> SizeTables:
    """The tables of the `size` × `size` board (5 or 7), built once and shared."""
    return SizeTables(size)
