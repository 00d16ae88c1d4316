"""`abstractgames list`: the games and players, built in and from plugins, in a table
fitted to the terminal's width (or as JSON)."""

from __future__ import annotations

import json
from typing import Any

import click

from ..protocol import AbstractGamesError
from ..registry import available_games
from ..text import wrap
from .common import _width


@click.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print the listing as JSON.")
@click.option(
    "--load",
    is_flag=True,
    help="Import the plugins' code to show their titles, parameters and options "
    "(otherwise a plugin is listed from its distribution's metadata alone).",
)
def list_command(as_json: bool, load: bool) -> None:
    """List the games and players: built in, and added by installed plugins.

    A plugin's game or player is listed with its distribution from the metadata, its code
    not imported (not loaded); --load imports it to show its title, parameters and options.
    Besides these, a player can be a class in a Python file or module:
    path/to/bot.py:MyBot or package.module:MyBot, with options after a second colon
    (bot.py:MyBot:depth=3), and 'human' is you at the terminal (abstractgames play).
    """
    import attrs

    from ..registry import (
        GameInfo,
        PlayerInfo,
        available_players,
        describe_game,
        describe_player,
        plugin_game,
        plugin_player,
    )

    listing: dict[str, list[dict[str, Any]]] = {"games": [], "players": []}
    for kind, names, describe, from_metadata, info in (
        ("games", available_games(), describe_game, plugin_game, GameInfo),
        ("players", available_players(), describe_player, plugin_player, PlayerInfo),
    ):
        for name in names:
            plugin = None if load else from_metadata(name)
            if plugin is not None:  # its code not imported: what its metadata says
                unknown = dict.fromkeys(attrs.fields_dict(info))
                listing[kind].append({**unknown, **attrs.asdict(plugin), "loaded": False})
                continue
            try:
                listing[kind].append({**attrs.asdict(describe(name)), "loaded": True})
            except AbstractGamesError as error:  # a broken plugin: say so, list the others
                click.echo(f"abstractgames: warning: {error}", err=True)
    games, players = listing["games"], listing["players"]
    if as_json:
        click.echo(json.dumps({"games": games, "players": players}, indent=2, sort_keys=True))
        return

    def options(entry: dict[str, Any], key: str) -> str:
        values = entry[key]
        if not entry["loaded"]:
            return "?"
        if values is None:
            return "NAME:[OPTIONS:]COMMAND"
        return ", ".join(f"{k}={v}" for k, v in values.items()) or "-"

    not_loaded = "(not loaded)"
    width = _width()
    click.echo(wrap("Games (abstractgames play GAME, or GAME:key=value):", width))
    rows = [[g["name"], g["origin"], options(g, "params"), g["title"] or not_loaded] for g in games]
    click.echo(_columns(["name", "from", "parameters", "title"], rows, width))
    click.echo("")
    players_title = "Players (-1/-2 SPEC, --players SPEC ...; SPEC is NAME or NAME:key=value):"
    click.echo(wrap(players_title, width))
    rows = [
        [p["name"], p["origin"], options(p, "options"), p["summary"] or not_loaded] for p in players
    ]
    click.echo(_columns(["name", "from", "options", "what it is"], rows, width))
    click.echo("")
    more = (
        "A class in a file or module is a player too: path/to/bot.py:MyBot[:key=value,...] or "
        "package.module:MyBot[:key=value,...]; 'human' is you at the terminal."
    )
    click.echo(wrap(more, width))
    if not all(entry["loaded"] for entry in [*games, *players]):
        unloaded = (
            "Plugins are listed from their distributions' metadata, their code not imported "
            "(not loaded): abstractgames list --load imports them to show their titles, "
            "parameters and options."
        )
        click.echo(wrap(unloaded, width))


def _columns(header: list[str], rows: list[list[str]], width: int, fixed: int = 1) -> str:
    """A plain table in `width` columns, two spaces between columns: the first `fixed` columns
    as wide as their widest cell, the others sharing the rest of the line, each cell wrapped
    between words within its column. Where they would get too little room, each row is its
    fixed cells on a line, and the others below them, indented, each wrapped to the width."""
    table = [header, *rows]
    widths = [max(len(row[c]) for row in table) for c in range(fixed)]
    natural = [max(len(row[c]) for row in table) for c in range(fixed, len(header))]
    longest = [
        max(len(w) for row in table for w in row[c].split() or [""])
        for c in range(fixed, len(header))
    ]
    room = width - 2 - sum(w + 2 for w in widths) - 2 * (len(natural) - 1)
    least = [min(n, max(w, _FEWEST_COLUMNS)) for n, w in zip(natural, longest, strict=True)]
    shares = _shares(natural, least, room)
    lines = []
    for row in table:
        if shares is None:
            lines.append(wrap("  ".join(row[:fixed]), width, indent="  ", hang=" " * 6).rstrip())
            lines += [wrap(cell, width, indent=" " * 6, hang=" " * 6) for cell in row[fixed:]]
            continue
        cells = [[cell] for cell in row[:fixed]]
        for cell, share in zip(row[fixed:], shares, strict=True):
            cells.append(wrap(cell, share).splitlines() or [""])
        for depth in range(max(len(cell) for cell in cells)):
            parts = [
                (cell[depth] if depth < len(cell) else "").ljust(column)
                for cell, column in zip(cells, [*widths, *shares], strict=True)
            ]
            lines.append(("  " + "  ".join(parts)).rstrip())
    return "\n".join(lines)


def _shares(natural: list[int], least: list[int], room: int) -> list[int] | None:
    """The widths of the columns that share `room`: each its `natural` width if all fit, else
    at least its `least` (its longest word), the rest handed out in proportion to the natural
    widths (the longest text gets the most), none beyond its natural width; `None` when even
    the least do not fit."""
    if sum(natural) <= room:
        return natural
    if sum(least) > room:
        return None
    shares = list(least)
    spare = room - sum(shares)
    while spare > 0:
        growing = [i for i, share in enumerate(shares) if share < natural[i]]
        total = sum(natural[i] for i in growing)
        given = 0
        for i in growing:
            more = min(natural[i] - shares[i], max(1, spare * natural[i] // total), spare - given)
            shares[i] += more
            given += more
        if given == 0:
            break
        spare -= given
    return shares


_FEWEST_COLUMNS = 12
"""The fewest columns a wrapped column of a `list` table gets."""
