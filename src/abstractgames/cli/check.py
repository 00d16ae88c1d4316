"""`abstractgames check`: the conformance kit run on a game and on players in it."""

from __future__ import annotations

import sys

import click

from ..registry import parse_game_spec
from .common import _many_positions, _position_options, _user_errors


@click.command()
@click.argument("game")
@click.option(
    "--player",
    "-p",
    "players",
    multiple=True,
    metavar="SPEC",
    help="Also check this player in GAME (repeatable), e.g. mybot.py:MyBot.",
)
@click.option(
    "--examples",
    "-n",
    default=100,
    show_default=True,
    type=click.IntRange(min=1),
    help="Hypothesis examples per property.",
)
@_position_options(many=True)
def check(
    game: str,
    players: tuple[str, ...],
    examples: int,
    positions: tuple[str, ...],
    position_file: str | None,
    side: str | None,
) -> None:
    """Run the conformance kit on GAME (and on each --player in it): every property of the
    game protocol, and of a player, on positions hypothesis draws from random games.

    With --position (repeatable) or --position-file, the random games start from those
    positions (a puzzle your bot should handle, say) rather than from the game's start.

    Needs hypothesis (pip install hypothesis). Exits with status 1 if a property fails.
    """
    try:
        from ..testing import conformance_properties, player_properties
    except ImportError as error:
        raise click.ClickException(
            f"the conformance kit needs hypothesis ({error}): pip install hypothesis"
        ) from None
    with _user_errors():
        the_game = parse_game_spec(game)
        starts = _many_positions(the_game, positions, position_file, side)
        kit = conformance_properties(the_game, max_examples=examples, starts=starts)
        suites = [(f"game {the_game.spec}", kit)]
        for spec in players:
            properties = player_properties(spec, the_game, max_examples=examples, starts=starts)
            suites.append((f"player {spec}", properties))
    failed = 0
    for title, properties in suites:
        click.echo(title)
        for name, prop in properties.items():
            try:
                prop()
            except Exception as error:  # a failing property of outside code: report, go on
                failed += 1
                notes = "".join(f"\n      {note}" for note in getattr(error, "__notes__", []))
                reason = str(error).strip() or type(error).__name__
                click.echo(f"  FAIL {name}: {reason}{notes}")
            else:
                click.echo(f"  ok   {name}")
    if failed:
        click.echo(f"{failed} {'property' if failed == 1 else 'properties'} failed", err=True)
        sys.exit(1)
