"""Draw docs/images/vector-scaling.svg from the JSON of `abstractgames bench --vector --json`.

Run: abstractgames bench orderchaos entropy entropy:size=5 dispersal --vector --json > bench.json
     python examples/vector/plot_scaling.py bench.json docs/images/vector-scaling.svg

Random games per second against the batch size B, both on log scales: one line per game for the
batched simulator, and a dashed line at the rate of the scalar protocol. Plain SVG, no plotting
library.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")
WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 90, 170, 20, 50


def plot(table: dict[str, dict[str, object]]) -> str:
    sizes = sorted({int(b) for row in table.values() for b in row["vector"]})  # type: ignore[attr-defined]
    rates = [float(r) for row in table.values() for r in row["vector"].values()]  # type: ignore[attr-defined]
    rates += [float(row["scalar"]) for row in table.values()]  # type: ignore[arg-type]
    low = 10 ** math.floor(math.log10(min(rates)))
    high = 10 ** math.ceil(math.log10(max(rates)))
    x_low, x_high = math.log10(sizes[0]), math.log10(sizes[-1])

    def x(size: float) -> float:
        return LEFT + (math.log10(size) - x_low) / (x_high - x_low) * (WIDTH - LEFT - RIGHT)

    def y(rate: float) -> float:
        span = math.log10(high) - math.log10(low)
        return TOP + (math.log10(high) - math.log10(rate)) / span * (HEIGHT - TOP - BOTTOM)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        'font-family="sans-serif" font-size="12">',
        "<title>Random games per second against the batch size</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
    ]
    decade = low
    while decade <= high:
        out.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(decade):.1f}" y2="{y(decade):.1f}" '
            'stroke="#ddd"/>'
        )
        out.append(
            f'<text x="{LEFT - 6}" y="{y(decade) + 4:.1f}" text-anchor="end">{decade:,.0f}</text>'
        )
        decade *= 10
    for size in sizes:
        out.append(
            f'<text x="{x(size):.1f}" y="{HEIGHT - BOTTOM + 18}" text-anchor="middle">{size}</text>'
        )
    out.append(
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 12}" text-anchor="middle">'
        "lanes B (log scale)</text>"
    )
    out.append(
        f'<text transform="translate(18 {(TOP + HEIGHT - BOTTOM) / 2}) rotate(-90)" '
        'text-anchor="middle">random games per second (log scale)</text>'
    )
    for index, (game, row) in enumerate(table.items()):
        colour = COLOURS[index % len(COLOURS)]
        points = sorted((int(b), float(r)) for b, r in row["vector"].items())  # type: ignore[attr-defined]
        path = " ".join(f"{x(b):.1f},{y(r):.1f}" for b, r in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for b, r in points:
            out.append(f'<circle cx="{x(b):.1f}" cy="{y(r):.1f}" r="3" fill="{colour}"/>')
        scalar = y(float(row["scalar"]))  # type: ignore[arg-type]
        out.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{scalar:.1f}" y2="{scalar:.1f}" '
            f'stroke="{colour}" stroke-dasharray="5 4"/>'
        )
        legend = TOP + 16 + 34 * index
        out.append(
            f'<line x1="{WIDTH - RIGHT + 12}" x2="{WIDTH - RIGHT + 32}" y1="{legend}" '
            f'y2="{legend}" stroke="{colour}" stroke-width="2"/>'
        )
        out.append(f'<text x="{WIDTH - RIGHT + 38}" y="{legend + 4}">{game}</text>')
        out.append(
            f'<text x="{WIDTH - RIGHT + 38}" y="{legend + 18}" fill="#555">dashed: scalar</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    source = Path(sys.argv[1])
    target = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("vector-scaling.svg")
    target.write_text(plot(json.loads(source.read_text())), encoding="utf-8")


if __name__ == "__main__":
    main()
