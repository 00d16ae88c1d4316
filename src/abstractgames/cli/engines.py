"""`abstractgames engine` and `codecup`: a bot served to another program on stdin and stdout,
over the engine protocol or as a CodeCup 2023 Entropy program, sandboxed first if it comes from
outside."""

from __future__ import annotations

import sys

import click

from ..interrupts import EXIT_INTERRUPTED
from ..protocol import AbstractGamesError
from ..registry import parse_game_spec
from .common import _interrupted, _seed_option, _user_errors


def _confine_outside_code(spec: str) -> None:
    """Sandbox this process (for good) if `spec` is a bot from a file or module, or a plugin's
    player, which would run in it (`isolated:` starts a worker of its own, which is
    sandboxed)."""
    from ..registry import OutsideCode, PlayerSpec, outside_code
    from ..registry.isolation import ISOLATED
    from ..registry.players import runs_apart
    from ..registry.sandbox import SandboxError, confine

    try:
        parsed: PlayerSpec | None = PlayerSpec.parse(spec)
    except AbstractGamesError:
        parsed = None  # refused with its message when the player is made
    if parsed is not None and parsed.name == ISOLATED:
        return
    plugin = parsed is not None and runs_apart(parsed)
    if not plugin and outside_code(spec) is not OutsideCode.PYTHON:
        return
    try:
        confine()
    except SandboxError as error:
        raise click.ClickException(f"cannot sandbox the bot: {error.strerror or error}") from None


@click.command()
@click.argument("game", required=False, metavar="[GAME]")
@click.option(
    "--player",
    "-p",
    "player_spec",
    default="greedy",
    show_default=True,
    help="The bot that chooses the moves: random, greedy, search:time=1.5, mybot.py:MyBot, ...",
)
@_seed_option("Seed of the moves the referee asks for without a seed.")
def engine(game: str | None, player_spec: str, seed: int | None) -> None:
    """Be an engine: a bot playing over the engine protocol on stdin and stdout.

    The referee names the game (GAME, if given, is the only one accepted). Seat it with
    'abstractgames play GAME -2 "engine:abstractgames engine --player random"'. A bot from a
    file or module is sandboxed as the worker of 'play' is (on Linux: no signal, trace or
    process beyond this one; memory and CPU limits) before it is loaded.
    """
    import random

    from ..engines.agp import serve
    from ..engines.external import private_stdio
    from ..registry import check_player_spec, make_in_process

    with _user_errors():
        _confine_outside_code(player_spec)
        the_game = None if game is None else parse_game_spec(game)
        if the_game is not None:
            make_in_process(player_spec, the_game).close()  # reject a bad spec before serving
        else:
            check_player_spec(player_spec)  # what can be checked without a game
        rng = random.Random(seed)
        try:
            with private_stdio() as (lines, output):  # the bot's print goes to stderr
                code = serve(
                    lambda game: make_in_process(player_spec, game),
                    lines,
                    output,
                    read_game=parse_game_spec,
                    name=f"abstractgames {player_spec}",
                    game=the_game,
                    rng=rng,
                )
            sys.exit(code)
        except KeyboardInterrupt:
            sys.exit(_interrupted())
        except BrokenPipeError:
            sys.exit(EXIT_INTERRUPTED)


@click.command()
@click.option(
    "--player",
    "-p",
    "player_spec",
    default="greedy",
    show_default=True,
    help="The bot that chooses the moves: random, greedy, search:time=1.5, mybot.py:MyBot, ...",
)
@_seed_option("Seed of the bot's random choices.")
@click.option(
    "--clock",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="The program's thinking time for the whole game (the contest's clock): each move's "
    "share is told to the bot, more in the middle game.",
)
def codecup(player_spec: str, seed: int | None, clock: float | None) -> None:
    """Be a CodeCup 2023 Entropy program: one game of 7x7 Entropy on stdin and stdout.

    It plays Chaos when the first line is 'Start', else Order, and exits on 'Quit'.

    Seat it with 'abstractgames play entropy -2 "codecup:abstractgames codecup"', or run it under
    the CodeCup's own referee. A bot from a file or module is sandboxed as for 'engine'.
    """
    import random

    from ..engines.codecup_entropy import serve_codecup
    from ..engines.external import private_stdio
    from ..registry import make_in_process

    with _user_errors():
        _confine_outside_code(player_spec)
        rng = random.Random(seed)
        try:
            make = lambda game: make_in_process(player_spec, game)  # noqa: E731
            with private_stdio() as (lines, output):  # the bot's print goes to stderr
                code = serve_codecup(make, lines, output, rng=rng, clock=clock)
            sys.exit(code)
        except KeyboardInterrupt:
            sys.exit(_interrupted())
        except BrokenPipeError:
            sys.exit(EXIT_INTERRUPTED)
