"""The ``abstractgames`` command line.

Errors the user can fix (a bad game name, position, flag) end with one line on stderr and a
non-zero exit status, never a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from . import __version__
from .protocol import AbstractGamesError, available_games


@contextmanager
def _user_errors() -> Iterator[None]:
    try:
        yield
    except AbstractGamesError as error:
        raise click.ClickException(str(error)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="abstractgames")
def main() -> None:
    """Play, referee and measure Entropy, Order and Chaos, and dispersal Entropy."""


@main.command()
@click.argument("games", nargs=-1, metavar="[GAME]...")
@click.option(
    "--games",
    "-n",
    "count",
    default=2000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Random games per repeat.",
)
@click.option(
    "--repeats",
    "-r",
    default=5,
    show_default=True,
    type=click.IntRange(min=1),
    help="Repeats of each measurement; the median is reported.",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the random games.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def bench(games: tuple[str, ...], count: int, repeats: int, seed: int, as_json: bool) -> None:
    """Measure random games per second (and each game's extras) through the public protocol.

    GAME is a game name or NAME:key=value (e.g. entropy:size=5); default: every game.
    Figures are medians over the repeats, on one core.
    """
    from .bench import run_benchmarks

    specs = games or available_games()
    with _user_errors():
        results = run_benchmarks(specs, games=count, repeats=repeats, seed=seed)
    if as_json:
        payload: Any = {
            "games_per_repeat": count,
            "repeats": repeats,
            "seed": seed,
            "python": sys.version.split()[0],
            "results": [r.to_json() for r in results],
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    for result in results:
        for m in result.measurements:
            runs = ", ".join(f"{r:,.0f}" for r in m.runs)
            click.echo(f"{result.game:<16} {m.median:>12,.0f} {m.unit}/s  (median of {runs})")
