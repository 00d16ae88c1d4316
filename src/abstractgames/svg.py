"""Board pictures as standalone SVG: pure drawing from a board's cells, for any rectangular board.

[`board_svg`][] draws one character per square (`"."` empty) with coordinates, each piece as a disc
in its colour with its letter on top (or as a bare letter when it has no colour), marked squares
outlined and highlighted squares tinted. The fills of the named colours differ in lightness and
every letter contrasts with its disc, so pictures also read in greyscale. The same input always
gives the same text. States draw themselves with
[`State.to_svg`][abstractgames.protocol.State.to_svg].

Examples:
    >>> picture = board_svg("R.B.", 2, colours={"R": "red", "B": "blue"}, marks={0: "line"})
    >>> picture.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    True
    >>> picture.count('class="piece"'), picture.count('class="mark"')
    (2, 1)
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Mapping
from types import MappingProxyType

__all__ = ["PALETTE", "board_svg"]

PALETTE: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "white": ("#ffffff", "#000000"),
        "yellow": ("#f7d51d", "#000000"),
        "green": ("#6cc24a", "#000000"),
        "red": ("#ef5b3a", "#000000"),
        "blue": ("#2d5fc8", "#ffffff"),
        "purple": ("#5a237c", "#ffffff"),
        "black": ("#1a1a1a", "#ffffff"),
    }
)
"""Colour name → (disc fill, letter colour). The lightness falls from white to black in this order,
so the colours stay apart in greyscale; each letter contrasts with its fill 4.5:1 or more."""

FILES = "abcdefghijklmnopqrstuvwxyz"

# Geometry in viewBox units: a square is 100; the coordinates take a margin at the left and bottom.
# The page's board (web/static/board.js) draws with these and the colours below, under the same
# names without the underscore (tests/web/test_api.py compares them).
_SQUARE = 100
_EDGE = 10
_COORDINATE_MARGIN = 50
_RADIUS = 40
_DISC_FONT = 44
_LETTER_FONT = 72
_COORDINATE_FONT = 30
_BASELINE = 0.35  # how far below the centre of a line of capitals its baseline lies, per font size
_GRID_WIDTH = 2
_FRAME_WIDTH = 4
_DISC_STROKE_WIDTH = 3
_HALO_WIDTH = 4
_MARK_INSET = 7
_MARK_WIDTH = 6

_BACKGROUND = "#ffffff"
_BOARD_FILL = "#eadfc8"
_LINE = "#8a7757"
_COORDINATE_INK = "#4d4d4d"
_OUTLINE = "#1a1a1a"
_HIGHLIGHT_FILL = "#9fc3e6"
_MARK_STROKE = "#d41c1c"
_HALO = "#ffffff"
_HEX = re.compile(r"#[0-9a-fA-F]{6}")
_SQUARE_NAME = re.compile(r"([a-z])([1-9][0-9]{0,5})")
_EMPTY: Mapping[int, str] = MappingProxyType({})
_NO_COLOURS: Mapping[str, str] = MappingProxyType({})


def board_svg(
    cells: str,
    width: int,
    *,
    colours: Mapping[str, str] = _NO_COLOURS,
    marks: Mapping[int, str] | Mapping[str, str] | Mapping[int | str, str] = _EMPTY,
    highlight: Collection[int | str] = (),
    size: int = 40,
    coordinates: bool = True,
    title: str | None = None,
) -> str:
    """Draw a board as a standalone SVG document.

    Args:
        cells: one character per square in index order (a1, b1, …, then rank 2), `"."` for an
            empty square; any other printable character is a piece.
        width: squares per rank (1 to 26); `len(cells)` must be a multiple of it.
        colours: piece letter → colour name, a key of [`PALETTE`][] or `#rrggbb` (other CSS
            colour names are used as they are); a piece without a colour is drawn as a letter.
        marks: square → a short reason (e.g. `"line"`): the square gets a red outline. A square
            is its index (`a1` is 0, then along the rank) or its name (`"c3"`).
        highlight: squares (indices or names) to tint, e.g. the squares of the last move.
        size: the side of one square in pixels (the picture scales: it has a `viewBox`).
        coordinates: draw the file letters under the board and the rank numbers at its left.
        title: a text for the picture's `<title>` (shown as a tooltip), e.g. the position.

    Returns:
        The SVG text, one element per line; the same arguments always give the same text.

    Raises:
        ValueError: the cells do not fill whole ranks of `width`, a square index is off the
            board, a piece character is not printable, or `size` is not positive.
    """
    if not isinstance(width, int) or not 1 <= width <= len(FILES):
        raise ValueError(f"width must be 1 to {len(FILES)} squares, not {width!r}")
    if not cells or len(cells) % width:
        raise ValueError(f"{len(cells)} cells do not fill whole ranks of {width} squares")
    bad = sorted({c for c in cells if not c.isprintable() or c.isspace()})
    if bad:
        raise ValueError(f"cells hold characters that cannot be drawn: {bad!r}")
    if not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be a positive number of pixels, not {size!r}")
    height = len(cells) // width
    marked = {_square(square, width, len(cells)): reason for square, reason in marks.items()}
    tinted = {_square(square, width, len(cells)) for square in highlight}

    left = _COORDINATE_MARGIN if coordinates else _EDGE
    bottom = _COORDINATE_MARGIN if coordinates else _EDGE
    view_width = left + width * _SQUARE + _EDGE
    view_height = _EDGE + height * _SQUARE + bottom
    board_width, board_height = width * _SQUARE, height * _SQUARE

    def corner(square: int) -> tuple[int, int]:
        """The top-left corner of a square (rank 1 at the bottom)."""
        return left + square % width * _SQUARE, _EDGE + (height - 1 - square // width) * _SQUARE

    def name(square: int) -> str:
        return f"{FILES[square % width]}{square // width + 1}"

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {view_width} {view_height}" '
        f'width="{_pixels(view_width, size)}" height="{_pixels(view_height, size)}" role="img" '
        'font-family="DejaVu Sans, Verdana, Arial, sans-serif">'
    ]
    if title is not None:
        out.append(f"<title>{_text(title)}</title>")
    out.append(
        f'<rect class="background" width="{view_width}" height="{view_height}" '
        f'fill="{_BACKGROUND}"/>'
    )
    out.append(
        f'<rect class="board" x="{left}" y="{_EDGE}" width="{board_width}" '
        f'height="{board_height}" fill="{_BOARD_FILL}"/>'
    )
    for square in sorted(tinted):
        x, y = corner(square)
        out.append(
            f'<rect class="highlight" data-square="{name(square)}" x="{x}" y="{y}" '
            f'width="{_SQUARE}" height="{_SQUARE}" fill="{_HIGHLIGHT_FILL}"/>'
        )
    lines = [f"M{left + f * _SQUARE} {_EDGE}v{board_height}" for f in range(1, width)]
    lines += [f"M{left} {_EDGE + r * _SQUARE}h{board_width}" for r in range(1, height)]
    if lines:
        out.append(
            f'<path class="grid" d="{"".join(lines)}" stroke="{_LINE}" '
            f'stroke-width="{_GRID_WIDTH}" fill="none"/>'
        )
    out.append(
        f'<rect class="frame" x="{left}" y="{_EDGE}" width="{board_width}" '
        f'height="{board_height}" fill="none" stroke="{_LINE}" stroke-width="{_FRAME_WIDTH}"/>'
    )
    if coordinates:
        out.append(
            f'<g class="coordinates" fill="{_COORDINATE_INK}" font-size="{_COORDINATE_FONT}" '
            'text-anchor="middle">'
        )
        base = _EDGE + board_height + _COORDINATE_MARGIN // 2 + _baseline(_COORDINATE_FONT)
        for f in range(width):
            x = left + f * _SQUARE + _SQUARE // 2
            out.append(f'<text x="{x}" y="{base}">{FILES[f]}</text>')
        for r in range(height):
            y = _EDGE + (height - 1 - r) * _SQUARE + _SQUARE // 2 + _baseline(_COORDINATE_FONT)
            out.append(f'<text x="{_COORDINATE_MARGIN // 2}" y="{y}">{r + 1}</text>')
        out.append("</g>")
    for square, piece in enumerate(cells):
        if piece == ".":
            continue
        x, y = corner(square)
        cx, cy = x + _SQUARE // 2, y + _SQUARE // 2
        out.append(
            f'<g class="piece" data-square="{name(square)}" data-piece="{_text(piece)}" '
            'font-weight="bold" text-anchor="middle">'
        )
        colour = colours.get(piece)
        if colour is None:
            out.append(
                f'<text x="{cx}" y="{cy + _baseline(_LETTER_FONT)}" fill="{_OUTLINE}" '
                f'font-size="{_LETTER_FONT}">{_text(piece)}</text>'
            )
        else:
            fill, ink, halo = _paint(colour)
            out.append(
                f'<circle cx="{cx}" cy="{cy}" r="{_RADIUS}" fill="{_text(fill)}" '
                f'stroke="{_OUTLINE}" stroke-width="{_DISC_STROKE_WIDTH}"/>'
            )
            out.append(
                f'<text x="{cx}" y="{cy + _baseline(_DISC_FONT)}" fill="{ink}" '
                f'font-size="{_DISC_FONT}"{halo}>{_text(piece)}</text>'
            )
        out.append("</g>")
    inner = _SQUARE - 2 * _MARK_INSET
    for square in sorted(marked):
        x, y = corner(square)
        reason = str(marked[square])
        out.append(
            f'<rect class="mark" data-square="{name(square)}" data-reason="{_text(reason)}" '
            f'x="{x + _MARK_INSET}" y="{y + _MARK_INSET}" width="{inner}" height="{inner}" '
            f'fill="none" stroke="{_MARK_STROKE}" stroke-width="{_MARK_WIDTH}">'
            f"<title>{name(square)}: {_text(reason)}</title></rect>"
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _square(square: object, width: int, count: int) -> int:
    """The index of a square given by index or by name on a board of `count` squares."""
    if isinstance(square, str):
        name = _SQUARE_NAME.fullmatch(square.strip().lower())
        if name is not None and FILES.index(name[1]) < width:
            index = (int(name[2]) - 1) * width + FILES.index(name[1])
            if index < count:
                return index
    elif isinstance(square, int) and not isinstance(square, bool) and 0 <= square < count:
        return square
    try:
        shown = repr(square)
    except ValueError:  # an int too long to print
        shown = "a huge number"
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    last = f"{FILES[(count - 1) % width]}{(count - 1) // width + 1}"
    raise ValueError(f"square {shown} is not on the board (a1 to {last}, or 0 to {count - 1})")


def _paint(colour: str) -> tuple[str, str, str]:
    """The disc fill, the letter colour and any extra letter attributes for a colour name."""
    known = PALETTE.get(colour.lower())
    if known is not None:
        return known[0], known[1], ""
    if _HEX.fullmatch(colour):
        channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
        light = 0.299 * channels[0] + 0.587 * channels[1] + 0.114 * channels[2] > 140
        return colour.lower(), "#000000" if light else "#ffffff", ""
    # A colour of unknown lightness: a black letter with a white rim reads on any fill.
    return colour, "#000000", f' stroke="{_HALO}" stroke-width="{_HALO_WIDTH}" paint-order="stroke"'


def _baseline(font_size: int) -> int:
    """How far below the centre of a line of capitals its baseline lies."""
    return round(_BASELINE * font_size)


def _pixels(units: int, size: int) -> int:
    return round(units * size / _SQUARE)


def _text(value: str) -> str:
    return html.escape(value, quote=True)
