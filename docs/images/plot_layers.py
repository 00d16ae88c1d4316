"""Draw docs/images/layers.svg, the layers of the library, from the table of docs/architecture.md.

Run from the repository: ``python docs/images/plot_layers.py`` writes the picture, and
``python docs/images/plot_layers.py --check`` only says whether it is up to date (exit status 1
when not). Each layer of the page's table is a band, the command line at the top, its modules
in boxes in the table's order, wrapped onto more lines where they do not fit.

The picture on the site is the one the page's table gives:

>>> render(PAGE.read_text(encoding="utf-8")) == OUT.read_text(encoding="utf-8")
True
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "architecture.md"
OUT = HERE / "layers.svg"

WIDTH = 980
LEFT = 190
"""Where the first box of a band starts (the layer's name is to its left)."""
BOX_HEIGHT = 28
LINE = 36
"""The height of one line of boxes."""
GAP = 10
PAD = 9
FILLS = ["#e8eaf6", "#e3f2fd", "#e0f7fa", "#e8f5e9", "#fff8e1", "#f3e5f5", "#fce4ec", "#fbe9e7"]
FOUNDATION_FILL = "#eceff1"
ROW = re.compile(r"^\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|")


def layers(page: str) -> list[tuple[str, list[str]]]:
    """The page's layers from the bottom up, each with its modules as the table names them."""
    found: list[tuple[str, list[str]]] = []
    table = page.split("## The layers and their modules", 1)[1]
    for line in table.splitlines():
        match = ROW.match(line)
        if match is None or match.group(1) in ("layer", "---"):
            if found and not line.startswith("|"):
                break
            continue
        layer, modules = match.group(1).strip(), re.findall(r"`([^`]+)`", match.group(2))
        if layer:
            found.append((layer, []))
        found[-1][1].extend(modules)
    return found


def _box_width(name: str) -> float:
    return round(7.9 * len(name) + 16)


def _label(name: str) -> str:
    return "abstractgames (package)" if name == "abstractgames" else name


def render(page: str) -> str:
    """The SVG text of the picture of `page`'s layers."""
    bands = []
    for layer, modules in reversed(layers(page)):
        lines: list[list[tuple[str, float]]] = [[]]
        x = LEFT
        for module in map(_label, modules):
            width = _box_width(module)
            if x + width > WIDTH - 90 and lines[-1]:
                lines.append([])
                x = LEFT
            lines[-1].append((module, x))
            x += width + PAD
        bands.append((layer, lines))
    height = 36 + sum(len(lines) * LINE + 10 + 20 for _, lines in bands)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" aria-labelledby="t">',
        '<title id="t">The layers of abstractgames: each depends only on the layers below '
        "it</title>",
        '<style>text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,'
        "sans-serif;fill:#212121}.layer{font-size:14px;font-weight:600}.mod{font-size:13px;"
        "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}.note{font-size:12px;"
        "fill:#455a64}</style>",
        '<text x="10" y="20" class="note">each layer depends only on the layers below it</text>',
    ]
    y = 36
    for index, (layer, lines) in enumerate(bands):
        band = len(lines) * LINE + 10
        fill = FOUNDATION_FILL if index == len(bands) - 1 else FILLS[index % len(FILLS)]
        out.append(
            f'<rect x="10" y="{y}" width="{WIDTH - 20}" height="{band}" rx="8" fill="{fill}" '
            'stroke="#90a4ae"/>'
        )
        out.append(f'<text x="24" y="{y + 28}" class="layer">{html.escape(layer)}</text>')
        for row, boxes in enumerate(lines):
            top = y + 9 + row * LINE
            for module, x in boxes:
                out.append(
                    f'<rect x="{x}" y="{top}" width="{_box_width(module)}" height="{BOX_HEIGHT}" '
                    'rx="5" fill="#ffffff" stroke="#b0bec5"/>'
                )
                out.append(
                    f'<text x="{x + 8}" y="{top + 19}" class="mod">{html.escape(module)}</text>'
                )
        y += band
        if index < len(bands) - 1:
            out.append(
                f'<line x1="910" y1="{y + 2}" x2="910" y2="{y + 12}" stroke="#546e7a" '
                'stroke-width="2"/>'
            )
            out.append(f'<polygon points="904,{y + 11} 916,{y + 11} 910,{y + 19}" fill="#546e7a"/>')
        y += 20
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    picture = render(PAGE.read_text(encoding="utf-8"))
    if "--check" in argv:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != picture:
            print(f"{OUT} is out of date: run python {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(picture, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
