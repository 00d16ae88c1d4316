"""Draw docs/images/strength.svg, the bots' ratings, from the arena tables of docs/strength.md.

Run from the repository: ``python docs/images/plot_strength.py`` writes the picture, and
``python docs/images/plot_strength.py --check`` only says whether it is up to date (exit status 1
when not). The picture is plain SVG written by hand, with nothing to install: for each game, the
first arena table of the page, one row per player with its Elo rating as a dot and its 95%
interval as a bar.

The picture on the site is the one the page's figures give:

>>> render(PAGE.read_text(encoding="utf-8")) == OUT.read_text(encoding="utf-8")
True
"""

from __future__ import annotations

import html
import re
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "strength.md"
OUT = HERE / "strength.svg"

TITLES = {"orderchaos": "Order and Chaos", "entropy": "Entropy", "dispersal": "Dispersal Entropy"}
HEADER = re.compile(r"^(\w+): (\d+) players, (\d+) (games|matches) per pair, seed (\d+)$", re.M)
ROW = re.compile(r"^\d+\s+(\S+)\s+\d+\s+\d+\s+\d+\s+\d+\s+[\d.]+%\s+([+-]\d+) ± (\d+)", re.M)

WIDTH, LEFT, RIGHT = 680, 240, 645  # the picture's width; the plot's left and right edges
LOW, HIGH, STEP = -1000, 1000, 250  # the rating axis and its grid
ROW_HEIGHT, TITLE_HEIGHT, GAP = 24, 30, 16


@dataclass(frozen=True)
class Table:
    """One arena table of the page: the game, its heading, and each player's rating."""

    game: str
    heading: str
    ratings: tuple[tuple[str, int, int], ...]  # (player, Elo, half-width of the 95% interval)


def tables(page: str) -> list[Table]:
    """The first arena table of each game on the page, in the page's order."""
    found: dict[str, Table] = {}
    for match in HEADER.finditer(page):
        game, players, games, unit, seed = match.groups()
        if game in found:
            continue
        block = page[match.end() : page.index("```", match.end())]
        ratings = tuple((p, int(elo), int(half)) for p, elo, half in ROW.findall(block))
        assert len(ratings) == int(players), f"{game}: {len(ratings)} ratings, {players} players"
        heading = f"{TITLES.get(game, game)}: {games} {unit} per pair, seed {seed}"
        found[game] = Table(game, heading, ratings)
    return list(found.values())


def x_of(elo: float) -> float:
    """Where a rating goes on the plot."""
    elo = max(LOW, min(HIGH, elo))
    return LEFT + (elo - LOW) / (HIGH - LOW) * (RIGHT - LEFT)


def render(page: str) -> str:
    """The SVG text of the picture for the page's text."""
    found = tables(page)
    rows = sum(len(t.ratings) for t in found)
    height = 40 + len(found) * (TITLE_HEIGHT + GAP) + rows * ROW_HEIGHT + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" '
        'font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-size="13">',
        "<title>Elo ratings of the bots with 95% intervals, from the arena tables</title>",
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
    ]
    top, bottom = 30, height - 30
    for elo in range(LOW, HIGH + 1, STEP):
        x = x_of(elo)
        colour = "#9e9e9e" if elo == 0 else "#e0e0e0"
        out.append(f'<path d="M{x:.1f} {top}V{bottom}" stroke="{colour}" stroke-width="1"/>')
        if elo % 500 == 0:
            label = f"{elo:+d}" if elo else "0"
            out.append(
                f'<text x="{x:.1f}" y="{bottom + 18}" text-anchor="middle" '
                f'fill="#616161">{label}</text>'
            )
    out.append(
        f'<text x="{(LEFT + RIGHT) / 2:.1f}" y="18" text-anchor="middle" fill="#424242">'
        "Elo rating in the round robin (dot) and its 95% interval (bar)</text>"
    )
    y = top + 8
    for table in found:
        y += TITLE_HEIGHT
        out.append(
            f'<text x="10" y="{y - 10}" font-weight="bold" fill="#212121">'
            f"{html.escape(table.heading)}</text>"
        )
        for player, elo, half in table.ratings:
            middle = y + ROW_HEIGHT / 2
            out.append(
                f'<text x="10" y="{middle + 4:.0f}" fill="#212121">{html.escape(player)}</text>'
            )
            out.append(
                f'<text x="{LEFT - 12}" y="{middle + 4:.0f}" text-anchor="end" '
                f'fill="#424242">{elo:+d} ± {half}</text>'
            )
            low, high = x_of(elo - half), x_of(elo + half)
            out.append(
                f'<path d="M{low:.1f} {middle:.0f}H{high:.1f}" stroke="#3f51b5" '
                'stroke-width="4" stroke-opacity="0.45" stroke-linecap="round"/>'
            )
            out.append(f'<circle cx="{x_of(elo):.1f}" cy="{middle:.0f}" r="5" fill="#3f51b5"/>')
            y += ROW_HEIGHT
        y += GAP
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    picture = render(PAGE.read_text(encoding="utf-8"))
    if argv == ["--check"]:
        current = OUT.exists() and OUT.read_text(encoding="utf-8") == picture
        print(f"{OUT.name} is {'up to date' if current else 'out of date: run without --check'}")
        return 0 if current else 1
    if argv:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    OUT.write_text(picture, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
