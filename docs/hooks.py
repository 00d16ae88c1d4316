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

A line ``<!-- cli -->`` becomes the reference of the command line, made from click's own objects
(so that it reads as ``--help`` does): for ``abstractgames`` and each of its commands, the help
text, the usage line and a table of the options with their values, defaults and ranges.
"""

from __future__ import annotations

import enum
import html
import inspect
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import click
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
CLI_MARKER = re.compile(r"^\s*<!--\s*cli\s*-->\s*$")
FENCE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})")
OPTIONS = ("highlight", "marks", "size", "caption")


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """Replace every board marker of a page by its picture."""
    return render_markers(markdown, page.file.src_uri)


def on_page_content(html_text: str, page: Any, **kwargs: Any) -> str:
    """Keep short hyphenated code whole, and let long code in tables break at the ends of its
    parts (see :func:`unbroken_names` and :func:`breakable_code`)."""
    return breakable_code(unbroken_names(html_text))


_SHORT_HYPHENATED = re.compile(
    r"(?<!<pre>)(?<!</span>)<code>(?=[^<]*-)([^<\s]{1,32}|[^<\n]{1,16})</code>"
)


def unbroken_names(html_text: str) -> str:
    """``html_text`` with each short inline code that holds a hyphen (``--no-save``, ``d4-d7``,
    ``--jobs 1``: at most 32 characters without a space, or 16 with) marked ``nowrap``, so that
    a line never ends inside it."""
    return _SHORT_HYPHENATED.sub(r'<code class="nowrap">\1</code>', html_text)


_TABLE_CELL = re.compile(r"<td\b[^>]*>.*?</td>", re.DOTALL)
_PLAIN_CODE = re.compile(r"<code>([^<]{16,})</code>")
_PART_END = re.compile(r"(?<=[_./=,])(?=[^_./=,])|(?<=::)(?=[^:])")


def breakable_code(html_text: str) -> str:
    """``html_text`` with a ``<wbr>`` after each ``_ . / = , ::`` of long code in table cells.

    A name such as ``cli/test_play.py::test_a_signal_saves_the_game`` may then wrap at the
    end of a part instead of letting its column take the width of the whole name, or breaking
    it anywhere; copying the code copies no extra character.
    """

    def cell(match: re.Match[str]) -> str:
        return _PLAIN_CODE.sub(
            lambda code: f"<code>{_PART_END.sub('<wbr>', code[1])}</code>", match[0]
        )

    return _TABLE_CELL.sub(cell, html_text)


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
        if CLI_MARKER.match(line):
            lines[number] = cli_reference()
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


# --- the command line reference ---------------------------------------------------------------

CLI_ORDER = ("play", "replay", "show", "list", "solve", "arena", "engine", "codecup", "bench")
"""The commands in the order of the reference (any other one follows, by name)."""

UNSET_NAMES = ("UNSET", "_missing")
"""Names of click's sentinel for "no default" (click 8.2 and later: ``click.core.UNSET``)."""

_EMBEDDED_DEFAULT = re.compile(r"\s*\[default: (?P<default>[^\[\]]*)\]$")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|#])")


def cli_reference(command: click.Command | None = None, name: str = "abstractgames") -> str:
    """The Markdown reference of ``command`` (the ``abstractgames`` group) and its commands."""
    if command is None:
        from abstractgames.cli import main

        command = main
    context = command.make_context(name, [], resilient_parsing=True)
    return "\n\n".join(command_sections(command, context))


def command_sections(command: click.Command, context: click.Context) -> list[str]:
    """The sections of ``command`` and, for a group, of each of its commands, nested groups'
    commands included (``abstractgames mail new``)."""
    sections = [command_section(command, context)]
    if isinstance(command, click.Group):
        for sub_name, sub in subcommands(command, context):
            sub_context = sub.make_context(sub_name, [], parent=context, resilient_parsing=True)
            sections += command_sections(sub, sub_context)
    return sections


def subcommands(group: click.Group, context: click.Context) -> list[tuple[str, click.Command]]:
    """The group's visible commands: those of :data:`CLI_ORDER` in its order, then the others."""
    names = group.list_commands(context)
    ordered = [n for n in CLI_ORDER if n in names] + sorted(n for n in names if n not in CLI_ORDER)
    found = [(n, group.get_command(context, n)) for n in ordered]
    return [(n, c) for n, c in found if c is not None and not c.hidden]


def command_section(command: click.Command, context: click.Context) -> str:
    """A heading, the help text, the usage line and the options of one command."""
    path = context.command_path
    usage = " ".join([path, *command.collect_usage_pieces(context)])
    parts = [f"## {path} {{ #{slug(path)} }}", "", help_markdown(command.help or ""), ""]
    parts += ["```text", usage, "```", ""]
    rows = option_rows(command, context)
    if rows:
        parts += ["| Option | Value | Default | Description |", "|---|---|---|---|", *rows, ""]
    if isinstance(command, click.Group):
        parts += ["| Command | Description |", "|---|---|"]
        for sub_name, sub in subcommands(command, context):
            link = f"[`{sub_name}`](#{slug(f'{path} {sub_name}')})"
            parts.append(f"| {link} | {help_text(sub.get_short_help_str(limit=300))} |")
    return "\n".join(parts).rstrip("\n")


def slug(path: str) -> str:
    """The anchor of a command's section: ``abstractgames play`` is ``abstractgames-play``."""
    return "-".join(path.split())


def help_markdown(text: str) -> str:
    """A command's help as ``--help`` shows it (up to a form feed), as Markdown paragraphs.

    A paragraph marked ``\\b`` keeps its line breaks, as in click; the others are one paragraph.
    """
    text = inspect.cleandoc(text).partition("\f")[0]
    paragraphs = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        lines = paragraph.split("\n")
        if lines[0].strip() == "\b":
            paragraphs.append("  \n".join(help_text(line) for line in lines[1:]))
        else:
            paragraphs.append(help_text(" ".join(line.strip() for line in lines)))
    return "\n\n".join(paragraphs)


_LITERAL = re.compile(r"(?<![\w'])'([^'\s][^']*)'(?![\w'])|(?<![\w-])(--[a-z][a-z0-9-]*)")


def help_text(text: str) -> str:
    """Help text as Markdown: what it quotes (``'abstractgames list'``) and the options it names
    (``--seed``) as code, the rest as it is (see :func:`markdown_text`)."""
    parts, end = [], 0
    for match in _LITERAL.finditer(text):
        parts += [markdown_text(text[end : match.start()]), code(match[1] or match[2])]
        end = match.end()
    return "".join([*parts, markdown_text(text[end:])])


def markdown_text(text: str) -> str:
    """``text`` shown as it is: HTML and Markdown markup escaped (a table's ``|`` too)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def code(text: str) -> str:
    """``text`` as a Markdown code span (whatever backticks it holds)."""
    fence = "`"
    while fence in text:
        fence += "`"
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def option_rows(command: click.Command, context: click.Context) -> list[str]:
    """A table row per option that ``--help`` lists: names, value, default, description."""
    rows = []
    for param in command.get_params(context):
        if not isinstance(param, click.Option):
            continue
        record = param.get_help_record(context)
        if record is None:  # hidden
            continue
        spec, _ = record
        description = param.help or ""
        default = shown_default(param, context)
        embedded = _EMBEDDED_DEFAULT.search(description)
        if embedded:  # a default written in the help text itself, e.g. "[default: human]"
            description = description[: embedded.start()]
            default = default or embedded["default"]
        if param.required:
            default = "required" if default is None else f"{default} (required)"
        names, value = split_spec(spec, param, context)
        cells = [names, value, default_cell(default), help_text(" ".join(description.split()))]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def default_cell(default: str | None) -> str:
    """A default as code (a value such as ``20`` or ``greedy``), or as words (a sentence)."""
    if default is None:
        return ""
    return markdown_text(default) if " " in default else html_code(default)


def split_spec(spec: str, param: click.Option, context: click.Context) -> tuple[str, str]:
    """The names cell and the value cell of an option's row, from its help spec.

    Each name is on a line of its own and never broken; a range (``x>=1``) may break before a
    ``<=`` only.
    """
    metavar = "" if param.is_flag or param.count else option_metavar(param, context)
    names = spec.replace(f" {metavar}", "") if metavar else spec
    value = code(metavar) if metavar else "flag" if param.is_flag else "count"
    choices = getattr(param.type, "choices", None)
    if choices:
        value += "<br>one of " + ", ".join(code(str(choice)) for choice in choices)
    describe_range = getattr(param.type, "_describe_range", None)
    if describe_range is not None and not (param.count and getattr(param.type, "min", 0) == 0):
        parts = [html.escape(part) for part in re.split(r"(?=<)", describe_range())]
        value += f"<br><code>{'<wbr>'.join(parts)}</code>"
    spellings = [name.strip() for name in re.split(r", | / |; ", names)]
    joint = ", " if len(", ".join(spellings)) <= 16 else "<br>"
    return joint.join(html_code(name) for name in spellings), value


def html_code(text: str) -> str:
    """``text`` as inline code that is never broken across lines."""
    return f'<code class="nowrap">{html.escape(text)}</code>'


def option_metavar(param: click.Option, context: click.Context) -> str:
    """The option's metavar as ``--help`` writes it (click 8.2 takes the context, 8.1 not)."""
    try:
        return str(param.make_metavar(context))  # type: ignore[call-arg,unused-ignore]
    except TypeError:
        return str(param.make_metavar())  # type: ignore[call-arg,unused-ignore]


def is_unset(value: object) -> bool:
    """Whether ``value`` is click's "no value" sentinel (``UNSET`` in click 8.2 and later)."""
    for name in UNSET_NAMES:
        sentinel = getattr(click.core, name, None)
        if sentinel is not None and value is sentinel:
            return True
    return type(value).__name__ == "Sentinel"


def shown_default(param: click.Option, context: click.Context) -> str | None:
    """The default ``--help`` shows for ``param`` (``None`` when it shows none), as click does it.

    The default comes from ``Parameter.get_default`` (not called), click's ``UNSET`` and ``None``
    meaning none; ``show_default`` (the option's, else the context's) decides whether it is shown,
    and a text ``show_default`` is shown in parentheses instead.
    """
    resilient, context.resilient_parsing = context.resilient_parsing, True
    try:
        value = param.get_default(context, call=False)
    finally:
        context.resilient_parsing = resilient
    show = param.show_default if param.show_default is not None else context.show_default
    if isinstance(show, str):
        return f"({show})"
    if not show or value is None or is_unset(value):
        return None
    if isinstance(value, list | tuple):
        text = ", ".join(str(item) for item in value)
    elif isinstance(value, enum.Enum):
        text = value.name
    elif inspect.isfunction(value):
        text = "(dynamic)"
    elif param.is_bool_flag and param.secondary_opts:
        text = unprefixed((param.opts if value else param.secondary_opts)[0])
    elif param.is_bool_flag and not param.secondary_opts and not value:
        text = ""
    elif value == "":
        text = '""'
    else:
        text = str(value)
    return text or None


def unprefixed(option: str) -> str:
    """An option's name without its prefix: ``--shout`` is ``shout`` (as click shows a flag)."""
    first = option[:1]
    if first.isalnum():
        return option
    return option[2:] if option[1:2] == first else option[1:]
