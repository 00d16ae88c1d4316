"""`abstractgames bench`: speed measurements of the games, players and batched simulators."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..registry import available_games, parse_game_spec
from .common import _seed_option, _user_errors


@click.command()
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
@_seed_option("Seed of the random games.", default=0)
@click.option(
    "--player",
    "-p",
    "players",
    multiple=True,
    metavar="SPEC",
    help="Also measure this player's moves per second (repeatable), e.g. search:depth=2.",
)
@click.option(
    "--positions",
    default=50,
    show_default=True,
    type=click.IntRange(min=1),
    help="Positions each --player moves in, from seeded random games.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option(
    "--vector",
    is_flag=True,
    help="Random games per second of the batched simulators (B = 1, 64, 1024, 4096) and of the "
    "scalar protocol; --json prints {GAME: {scalar, vector, bytes_per_lane}}.",
)
def bench(
    games: tuple[str, ...],
    count: int,
    repeats: int,
    seed: int,
    players: tuple[str, ...],
    positions: int,
    as_json: bool,
    vector: bool,
) -> None:
    """Measure random games per second (and each game's extras) through the public protocol.

    GAME is a game name or NAME:key=value (e.g. entropy:size=5); default: every game.
    With --player, also the moves per second of players on fixed positions (a bot at a fixed
    depth does the same work on every machine). Figures are medians over the repeats, on one core.
    """
    from ..bench import run_benchmarks

    specs = games or available_games()
    if vector:  # --- begin bench --vector (batched simulators)
        from ..bench import run_vector_benchmarks
        from ..registry import vector_for

        with _user_errors():
            if not games:
                specs = tuple(n for n in specs if vector_for(parse_game_spec(n)) is not None)
            table = run_vector_benchmarks(specs, games=count, repeats=repeats, seed=seed)
        if as_json:
            click.echo(json.dumps(table, indent=2, sort_keys=True))
            return
        for spec, row in table.items():
            scalar = float(row["scalar"])  # type: ignore[arg-type]
            rates: dict[str, float] = row["vector"]  # type: ignore[assignment]
            click.echo(f"{spec:<20} scalar {scalar:>10,.0f} games/s")
            for size, rate in rates.items():
                click.echo(f"{'':<20} B={size:<5} {rate:>10,.0f} games/s  ({rate / scalar:,.1f}×)")
            click.echo(f"{'':<20} {row['bytes_per_lane']} bytes per lane")
        return  # --- end bench --vector
    with _user_errors():
        results = run_benchmarks(
            specs, games=count, repeats=repeats, seed=seed, players=players, positions=positions
        )
    if as_json:
        payload: Any = {
            "games_per_repeat": count,
            "repeats": repeats,
            "seed": seed,
            "players": list(players),
            "positions": positions,
            "python": sys.version.split()[0],
            "results": [r.to_json() for r in results],
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    for result in results:
        for m in result.measurements:
            runs = ", ".join(f"{r:,.0f}" for r in m.runs)
            click.echo(f"{result.game:<16} {m.median:>12,.0f} {m.unit}/s  (median of {runs})")
