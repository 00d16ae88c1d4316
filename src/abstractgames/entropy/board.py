"""The board: its sizes, the roles, the colours of the counters, and the code of a line.

A line (a rank, a file, or any run of squares such as a whole board in index order) is coded as
an int with 3 bits per square, square `i` at bit `3 * i`: 0 for an empty square, `k + 1` for
a counter of colour `k` (in [`COLOURS`][] order). The scoring table, the game's states and the
bots all use this code.
"""

from __future__ import annotations

from ..text import excerpt

__all__ = ["CHAOS", "COLOURS", "COLOUR_NAMES", "EMPTY", "ORDER", "SIZES", "line_code"]

CHAOS, ORDER = "chaos", "order"
"""The roles: Chaos places the counters, Order slides them."""

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
"""The name of each colour letter."""
SIZES = (5, 7)
"""The board sizes: 7 (Solomon's game, the default) and 5 (the original Hyle board)."""
EMPTY = "."
"""The character of an empty square."""

_OCTAL = str.maketrans({c: str(i + 1) for i, c in enumerate(COLOURS)} | {EMPTY: "0"})
_CHARACTERS = COLOURS + EMPTY


def line_code(cells: str) -> int:
    """The code of a run of squares: 3 bits per square, the first square lowest (see the module).

    Args:
        cells: a colour letter or `"."` per square, e.g. `"R.R...."`.

    Raises:
        ValueError: `cells` holds another character.

    Examples:
        >>> oct(line_code("WK.R"))
        '0o5021'
    """
    if cells.strip(_CHARACTERS):
        raise ValueError(
            f"{excerpt(repr(cells))} is not a line: use the colour letters {COLOURS} and '.'"
        )
    return int(cells.translate(_OCTAL)[::-1] or "0", 8)
