"""Draw docs/images/orderchaos-pairs.svg: the Order and Chaos board with its centre 4×4 tinted
and the ten lines of four through the centre drawn from end to end, each rim square lettered
with its line (both ends of a line carry the same letter).

Run from the repository: ``python docs/images/plot_orderchaos_pairs.py`` writes the picture,
``--check`` only says whether it is up to date (exit status 1 when not). The lines and their
ends come from the independent checker's geometry, derived from the board itself; the board is
drawn by `abstractgames.svg.board_svg`, and the lines are laid over it.

>>> render() == OUT.read_text(encoding="utf-8")
True
"""

from __future__ import annotations

import sys
from pathlib import Path

from abstractgames import get_game
from abstractgames.solvers.orderchaos_certificate import board_geometry
from abstractgames.svg import board_svg

OUT = Path(__file__).resolve().parent / "orderchaos-pairs.svg"
SIZE = 100
"""The side of a square in the picture's own units (board_svg's viewBox at size 40)."""
LEFT, TOP = 50, 10
"""Where board_svg puts the board's top-left corner (it leaves room for the coordinates)."""
COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def centre_of(square: int, width: int, height: int) -> tuple[float, float]:
    file, rank = square % width, square // width
    return LEFT + SIZE * (file + 0.5), TOP + SIZE * (height - rank - 0.5)


def render() -> str:
    geometry = board_geometry(get_game("orderchaos"))
    board = geometry.grid
    cells = ["."] * board.size
    for letter, (a, b) in zip("ABCDEFGHIJ", geometry.ends, strict=True):
        cells[a] = cells[b] = letter
    svg = board_svg(
        "".join(cells),
        board.width,
        highlight=geometry.centre,
        title="The ten lines of four through the centre, each rim square lettered by its line",
    )
    lines = ['<g class="pairs" stroke-width="8" stroke-linecap="round" opacity="0.55">']
    for colour, (a, b) in zip(COLOURS, geometry.ends, strict=True):
        (x1, y1), (x2, y2) = (centre_of(sq, board.width, board.height) for sq in (a, b))
        # From the middle of one end square to the other's, stopping short of the letters.
        dx, dy = (x2 - x1), (y2 - y1)
        length = (dx * dx + dy * dy) ** 0.5
        ux, uy = dx / length * 40, dy / length * 40
        lines.append(
            f'<line x1="{x1 + ux:.0f}" y1="{y1 + uy:.0f}" x2="{x2 - ux:.0f}" '
            f'y2="{y2 - uy:.0f}" stroke="{colour}"/>'
        )
    lines.append("</g>")
    return svg.replace("</svg>", "\n".join(lines) + "\n</svg>")


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is out of date: run python {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
