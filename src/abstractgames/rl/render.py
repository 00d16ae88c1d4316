"""Frames of a position for the environments' `render()`: text, and an RGB picture.

[`text_frame`][] is the text board (`str(state)`) with the side to move (or how the game
ended), the last moves and the state's
[`describe`][abstractgames.protocol.State.describe] lines: the environments' `"ansi"` and
`"human"` modes. [`rgb_frame`][] is the board as an `H×W×3` array of `uint8`: the `"rgb_array"`
mode. It rasterises the picture of [`State.to_svg`][abstractgames.protocol.State.to_svg] with
[CairoSVG](https://cairosvg.org) when that is installed (`pip install cairosvg`; it needs the
Cairo library), and otherwise draws the board itself with numpy from
[`State.cells`][abstractgames.protocol.State.cells]: squares, and each piece as a disc in its
colour (`Game.piece_colours`; a piece without a colour is a ring in a colour of its own),
without letters or coordinates.

Examples:
    >>> from abstractgames import get_game
    >>> state = get_game("orderchaos").initial_state().apply("X@c3")
    >>> print(text_frame(state))
    6 . . . . . .
    5 . . . . . .
    4 . . . . . .
    3 . . X . . .
    2 . . . . . .
    1 . . . . . .
      a b c d e f
    chaos to move
    >>> rgb_frame(state, size=10, backend="numpy").shape
    (64, 64, 3)
"""

from __future__ import annotations

import functools
import importlib
import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..protocol import InvalidParameterError, Move, State
from ..text import value_excerpt

__all__ = [
    "BACKENDS",
    "RENDER_MODES",
    "cairosvg_available",
    "check_render_mode",
    "rgb_frame",
    "text_frame",
]

RENDER_MODES = ("human", "ansi", "rgb_array")
"""The render modes of the environments: text printed, text returned, an RGB array."""

BACKENDS = ("auto", "cairosvg", "numpy")
"""The ways [`rgb_frame`][] draws: `"auto"` is CairoSVG when it works here, else numpy."""

Colour = tuple[int, int, int]

# The disc fills of the colour names pictures use (those of abstractgames.svg.PALETTE, which only
# State.to_svg may use), and a few more CSS names.
_NAMED: Mapping[str, Colour] = {
    "white": (0xFF, 0xFF, 0xFF),
    "yellow": (0xF7, 0xD5, 0x1D),
    "green": (0x6C, 0xC2, 0x4A),
    "red": (0xEF, 0x5B, 0x3A),
    "blue": (0x2D, 0x5F, 0xC8),
    "purple": (0x5A, 0x23, 0x7C),
    "black": (0x1A, 0x1A, 0x1A),
    "orange": (0xF2, 0x8C, 0x28),
    "grey": (0x80, 0x80, 0x80),
    "gray": (0x80, 0x80, 0x80),
    "brown": (0x8B, 0x5A, 0x2B),
    "pink": (0xF4, 0x9A, 0xC1),
}
# Rings for pieces without a colour (Order and Chaos's X and O), picked by the piece's letter.
_RING_COLOURS: tuple[Colour, ...] = (
    (0x1A, 0x1A, 0x1A),
    (0xC8, 0x2D, 0x2D),
    (0x2D, 0x5F, 0xC8),
    (0x2E, 0x8B, 0x3C),
    (0x8E, 0x44, 0xAD),
    (0xD3, 0x7A, 0x0F),
    (0x13, 0x8D, 0x90),
)
_BACKGROUND: Colour = (0xFF, 0xFF, 0xFF)
_BOARD: Colour = (0xEA, 0xDF, 0xC8)
_LINE: Colour = (0x8A, 0x77, 0x57)
_OUTLINE: Colour = (0x1A, 0x1A, 0x1A)


def text_frame(state: State, last: Sequence[Move | str] = ()) -> str:
    """The position as text: the board, who moves (or the result), the last moves, the facts.

    Args:
        state: the position.
        last: the plies that led to it since the viewer last looked (a move, the opponent's
            reply, a chance event...), shown as `last: X@c3 O@d4` (nothing when empty).
    """
    lines = [str(state).rstrip("\n")]
    outcome = state.outcome()
    if outcome is not None:
        result = "a draw" if outcome.winner is None else f"{outcome.winner} wins"
        lines.append(f"game over: {result} ({outcome.reason})")
    else:
        lines.append(f"{state.to_move} to move")
    if last:
        lines.append("last: " + " ".join(map(str, last)))
    lines.extend(state.describe())
    return "\n".join(lines)


def rgb_frame(state: State, *, size: int = 40, backend: str = "auto") -> npt.NDArray[np.uint8]:
    """The board as an `H×W×3` array of `uint8` (rows from the top of the picture).

    Args:
        state: the position (its game needs a board:
            [`State.cells`][abstractgames.protocol.State.cells] and `Game.board_width`).
        size: the side of a square in pixels.
        backend: `"cairosvg"` rasterises [`State.to_svg`][abstractgames.protocol.State.to_svg] (with
            coordinates and letters), `"numpy"` draws squares and discs, `"auto"` (the default)
            is CairoSVG if [`cairosvg_available`][] else numpy. The two differ in size: with
            CairoSVG the picture has the SVG's margins.

    Raises:
        ValueError: an unknown backend, or a size below 1.
        ImportError: `backend="cairosvg"` without a working CairoSVG.
        NotImplementedError: the game has no board.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be a positive number of pixels, not {size!r}")
    if backend == "cairosvg" or (backend == "auto" and cairosvg_available()):
        return _rasterise(state.to_svg(size=size))
    return _draw(state, size)


@functools.cache
def cairosvg_available() -> bool:
    """Whether CairoSVG is installed and can draw here (it needs the Cairo C library)."""
    try:
        _rasterise('<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>')
    except (ImportError, OSError):
        return False
    return True


def _rasterise(svg: str) -> npt.NDArray[np.uint8]:
    try:
        cairosvg: Any = importlib.import_module("cairosvg")
        image_module: Any = importlib.import_module("PIL.Image")
    except OSError as error:  # cairocffi is installed, the Cairo library is not
        raise ImportError(f"CairoSVG cannot draw here: {error}") from error
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"))
    with image_module.open(io.BytesIO(png)) as image:
        rgba = np.asarray(image.convert("RGBA"), dtype=np.float32)
    alpha = rgba[..., 3:] / 255.0  # paint on white where the picture is transparent
    rgb = rgba[..., :3] * alpha + 255.0 * (1.0 - alpha)
    return np.ascontiguousarray(np.rint(rgb), dtype=np.uint8)


def _draw(state: State, size: int) -> npt.NDArray[np.uint8]:
    game = state.game
    width = game.board_width
    cells = state.cells()
    if width <= 0:
        raise NotImplementedError(f"{game.spec} has no board to draw (board_width is 0)")
    height = -(-len(cells) // width)
    margin = max(1, size // 4)
    frame = np.empty((height * size + 2 * margin, width * size + 2 * margin, 3), np.uint8)
    frame[:] = _BACKGROUND
    board = frame[margin : margin + height * size, margin : margin + width * size]
    board[:] = _BOARD
    line = max(1, size // 20)
    for k in range(width + 1):  # the grid, the frame included
        x = min(k * size, width * size - line)
        board[:, x : x + line] = _LINE
    for k in range(height + 1):
        y = min(k * size, height * size - line)
        board[y : y + line, :] = _LINE
    colours = game.piece_colours
    for square, piece in enumerate(cells):
        if piece == ".":
            continue
        rank, file = divmod(square, width)
        top, left = (height - 1 - rank) * size, file * size
        colour = colours.get(piece)
        paint, fill = _piece_paint(piece, colour)
        tile = board[top : top + size, left : left + size]
        disc, rim, ring = _masks(size)
        if colour is None:
            tile[ring] = paint
        else:
            tile[disc] = fill
            tile[rim] = _OUTLINE
    return frame


def _piece_paint(piece: str, colour: str | None) -> tuple[Colour, Colour]:
    """(ring colour, disc fill) of a piece."""
    ring = _RING_COLOURS[ord(piece) % len(_RING_COLOURS)]
    if colour is None:
        return ring, ring
    return ring, _parse_colour(colour, ring)


def _parse_colour(colour: str, default: Colour) -> Colour:
    named = _NAMED.get(colour.lower())
    if named is not None:
        return named
    text = colour.strip()
    if len(text) == 7 and text.startswith("#"):
        try:
            return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))
        except ValueError:
            pass
    return default


@functools.cache
def _masks(
    size: int,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Masks of one square: a disc's inside, its outline, and a ring."""
    centre = (size - 1) / 2
    y, x = np.mgrid[0:size, 0:size]
    distance = np.hypot(x - centre, y - centre)
    radius = 0.4 * size
    rim = max(1.0, size / 25)
    ring = max(1.5, size / 8)
    inside = distance <= radius
    outline = inside & (distance > radius - rim)
    return inside & ~outline, outline, inside & (distance > radius - ring)


def check_render_mode(render_mode: str | None) -> str | None:
    """`render_mode` if it is one of [`RENDER_MODES`][] or `None`, else raise
    [`InvalidParameterError`][abstractgames.protocol.InvalidParameterError]."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise InvalidParameterError(
            f"render_mode must be one of {', '.join(RENDER_MODES)} or None, not "
            f"{value_excerpt(render_mode)}"
        )
    return render_mode
