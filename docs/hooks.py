"""MkDocs hook: board diagrams drawn at build time from markers in the Markdown pages.

A line (outside code blocks, alone on its line, possibly indented) such as

    <!-- board dispersal "S1O1S/O3O/OSSOS/S4/2OOS O" caption="Fig. 2" -->

becomes the picture of that position, drawn by ``State.to_svg``, inline in the page. The first word
is the game (``entropy``, ``entropy:size=5``, ``orderchaos``, ``dispersal``), then comes a position
string in double quotes, or ``row="RBBR"``: one row of pieces without coordinates (its squares are
a1, b1, …). Options, all optional:

- ``highlight=a4,c4``: tint these squares (e.g. the last move);
- ``marks=b1,c1``: outline these squares instead of the position's own marked squares (a winning
  line, isolated pieces in check); ``marks=`` outlines none;
- ``size=30``: the side of a square in pixels (default 40);
- ``caption="text"``: a caption under the picture.

A marker that cannot be drawn stops the build with the page, the line and the reason.

A line ``<!-- games -->`` becomes the table of every game the registry knows where the site is
built (built in, and from any installed plugin), from each game's title, board and docstring.
"""

from __future__ import annotations

import html
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

try:
    import abstractgames  # noqa: F401
except ImportError:  # a checkout whose package is not installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from abstractgames import AbstractGamesError, available_games, get_game, parse_game_spec
from abstractgames.grid import grid
from abstractgames.registry import describe_game
from abstractgames.svg import board_svg

MARKER = re.compile(r"^(?P<indent>\s*)<!--\s*board\s+(?P<args>.*?)\s*-->\s*$")
GAMES_MARKER = re.compile(r"^\s*<!--\s*games\s*-->\s*$")
FENCE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})")
OPTIONS = ("highlight", "marks", "size", "caption")


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """Replace every board marker of a page by its picture."""
    return render_markers(markdown, page.file.src_uri)


def render_markers(markdown: str, where: str = "<page>") -> str:
    """``markdown`` with each board marker outside fenced code replaced by a ``<figure>``."""
    lines = markdown.split("\n")
    fence = ""
    for number, line in enumerate(lines):
        opening = FENCE.match(line)
        if fence:
            if opening and opening["fence"][0] == fence[0] and len(opening["fence"]) >= len(fence):
                fence = ""
            continue
        if opening:
            fence = opening["fence"]
            continue
        if GAMES_MARKER.match(line):
            lines[number] = games_table()
            continue
        marker = MARKER.match(line)
        if marker:
            try:
                figure = diagram(marker["args"])
            except (ValueError, NotImplementedError, AbstractGamesError) as error:
                raise PluginError(f"{where}, line {number + 1}: {line.strip()}: {error}") from None
            lines[number] = "\n".join(marker["indent"] + part for part in figure.split("\n"))
    return "\n".join(lines)


def games_table() -> str:
    """A Markdown table of every game the registry knows (a plugin's too, when installed)."""
    infos = [describe_game(name) for name in available_games()]
    plugins = any(info.origin != "built in" for info in infos)
    header = ["Game", "Name", "Board", "Parameters", "In one line"] + (["From"] if plugins else [])
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for info in infos:
        game = get_game(info.name)
        cells = game.initial_state().cells() if game.board_width else ""
        board = f"{game.board_width}×{len(cells) // game.board_width}" if cells else "-"
        params = ", ".join(f"`{key}={value}`" for key, value in info.params.items()) or "-"
        row = [info.title, f"`{info.name}`", board, params, info.summary]
        rows.append("| " + " | ".join(row + ([info.origin] if plugins else [])) + " |")
    return "\n".join(rows)


def diagram(args: str) -> str:
    """The ``<figure>`` for the text of one marker (what follows ``board``)."""
    words = shlex.split(args)
    if len(words) < 2:
        raise ValueError('write the game and a position, e.g. board orderchaos "6/6/6/6/6/6 order"')
    game = parse_game_spec(words[0])
    options: dict[str, str] = {}
    for word in words[2:]:
        key, equals, value = word.partition("=")
        if not equals or key not in OPTIONS:
            raise ValueError(f"unknown option {word!r}; the options are {', '.join(OPTIONS)}")
        options[key] = value
    size = int(options.get("size", "40"))
    if words[1].startswith("row="):
        row = words[1].removeprefix("row=")
        pieces = set(game.piece_colours)
        if not row or (pieces and not set(row) <= pieces | {"."}):
            raise ValueError(f"row {row!r} must be pieces ({''.join(sorted(pieces))}) and '.'")
        cells, width, coordinates = row, len(row), False
        marks: dict[int, str] = {}
    else:
        state = game.from_position(words[1])
        cells, width, coordinates = state.cells(), game.board_width, True
        marks = state.marked_squares()
    board = grid(width, len(cells) // width)
    if "marks" in options:
        marks = dict.fromkeys(squares(board.square, options["marks"]), "marked")
    highlight = squares(board.square, options.get("highlight", ""))
    picture = board_svg(
        cells,
        width,
        colours=game.piece_colours,
        marks=marks,
        highlight=highlight,
        size=size,
        coordinates=coordinates,
        title=words[1].removeprefix("row="),
    )
    caption = options.get("caption")
    figcaption = f"<figcaption>{html.escape(caption)}</figcaption>\n" if caption else ""
    return f'<figure class="board-diagram">\n{picture}{figcaption}</figure>'


def squares(square: Any, text: str) -> list[int]:
    """Square indices from comma-separated names, e.g. ``"a4,c4"``."""
    return [square(name) for name in text.replace(" ", ",").split(",") if name]
