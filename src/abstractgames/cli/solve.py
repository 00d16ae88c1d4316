"""`abstractgames solve` and `verify`: a forced win found by a game's solver, its certificate
written, and a certificate checked by the rules alone."""

from __future__ import annotations

import os
from typing import Any

import click

from ..protocol import Game
from ..registry import parse_game_spec
from ..solvers import Solution, SolverEntry
from ..text import printable
from .common import _check_output, _position_text, _say, _side_option, _user_errors, _writable

MAX_SOLVE_TIME = 7 * 86_400.0
"""The longest time `solve --time` accepts (a week)."""
MAX_SOLVE_MEMORY = 1_000_000.0
"""The most memory `solve --memory` accepts, in MB (a terabyte)."""


def _finite(value: float | None) -> float | None:
    """`value`, refusing NaN (which every comparison lets through, click's ranges too)."""
    if value is not None and value != value:
        raise click.BadParameter("must be a number, not nan")
    return value


@click.command()
@click.argument("game")
@click.argument("position", nargs=-1, required=True)
@_side_option
@click.option(
    "--moves",
    "-n",
    "max_moves",
    default=10,
    show_default=True,
    type=click.IntRange(min=1),
    help="Look for a win within this many own moves at most.",
)
@click.option(
    "--time",
    "time_limit",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=0, max=MAX_SOLVE_TIME, min_open=True),
    callback=lambda ctx, param, value: _finite(value),
    help="Stop after this many seconds (at most a week) and say how far the search got.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print the answer only, not the progress.")
@click.option(
    "--memory",
    type=click.FloatRange(min=0, max=MAX_SOLVE_MEMORY, min_open=True),
    callback=lambda ctx, param, value: _finite(value),
    help="Bound the solver's transposition table to about this many MB (solvers that have one; "
    "at most a million).",
)
@click.option(
    "--checkpoint",
    type=click.Path(dir_okay=False),
    callback=lambda ctx, param, value: _writable(value, "the checkpoint"),
    help="Save the solver's work to this file now and then and when stopped, and resume from "
    "it if it exists (solvers that can). Checked before the search starts.",
)
@click.option(
    "--certificate",
    type=click.Path(dir_okay=False),
    help="Write a certificate of the result to this file, for 'abstractgames verify' "
    "(solvers that can).",
)
def solve(
    game: str,
    position: tuple[str, ...],
    side: str | None,
    max_moves: int,
    time_limit: float | None,
    quiet: bool,
    memory: float | None,
    checkpoint: str | None,
    certificate: str | None,
) -> None:
    """Find a forced win for the side to move in POSITION, or show that none exists.

    The search deepens one own move at a time until it finds a win (the fastest there is), rules
    one out within --moves, or runs out of --time. Each number of moves ruled out is printed to
    stderr as it goes; the answer is one line on stdout. The games with a solver say so in their
    documentation; e.g.
    abstractgames solve dispersal S1OSO/O3S/O3O/1O2S/SSS1O O

    POSITION is a position string or a text diagram (quoted, on several lines), or '-' to read
    either from standard input.
    """
    from ..grid import read_position
    from ..registry import solver_entry_for

    with _user_errors():
        the_game = parse_game_spec(game)
        solver = solver_entry_for(the_game)  # the solver, with the options it declares
        state = read_position(the_game, _position_text(position), side)
        options: dict[str, Any] = {}
        if solver.progress and not quiet:
            options["progress"] = lambda step: click.echo(str(step), err=True)
        for name, value in (("memory", memory), ("checkpoint", checkpoint)):
            if value is not None:
                if name not in solver.options:
                    raise click.UsageError(f"the solver of {the_game.spec} has no --{name}")
                options[name] = value
        _check_output(certificate, "the certificate")
        try:
            solution = solver(state, max_moves, time_limit, **options)
        except ValueError as error:
            raise click.ClickException(str(error)) from None
    answer = str(solution)
    click.echo(answer)
    # A plugin's solver written before the Solution contract may answer with anything whose
    # str() is its line: the line is all it says.
    known = solution if isinstance(solution, Solution) else None
    if known is not None and known.route is not None and not quiet and "route" not in answer:
        _say(f"route: {known.route}")
    if certificate is not None:
        _write_certificate(the_game, solver, known, certificate)


def _write_certificate(
    the_game: Game, solver: SolverEntry, solution: Solution | None, path: str
) -> None:
    """Write the certificate of `solution` (which must prove a result) to `path`."""
    from ..files import write_atomic
    from ..solvers.verify import Certificate, write_certificate

    if not solver.certificates or solution is None:
        raise click.ClickException(f"the solver of {the_game.spec} writes no certificates")
    if solution.certificate is not None:  # a certificate in its game's own format
        try:
            data = solution.certificate()
        except ValueError as error:
            raise click.ClickException(str(error)) from None
        write_atomic(path, data)
        _say(f"certificate: {len(data):,} bytes in {path}")
        return
    if solution.winner is None:
        raise click.ClickException("no certificate: the solution proves no result")
    if solution.strategy is None:
        raise click.ClickException(f"no certificate: the solver of {the_game.spec} gives none here")
    strategy = solution.strategy()
    cert = Certificate(the_game.spec, solution.position, solution.winner, solution.moves, strategy)
    size = write_certificate(path, cert)
    _say(f"certificate: {len(cert.strategy):,} positions, {size:,} bytes in {path}")


def _certificate_head(path: str) -> bytes:
    """The first bytes of a regular file (never waiting on a FIFO), or none."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return b""
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        with open(os.open(path, flags), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return b""
            return handle.read(64)
    except (OSError, ValueError):
        return b""  # the reader of the generic format says what is wrong


@click.command()
@click.argument("certificate", type=click.Path(dir_okay=False))
def verify(certificate: str) -> None:
    """Check CERTIFICATE, written by 'solve --certificate', with nothing but the game's rules.

    Every line the certificate allows is played out: the winner's moves from the certificate,
    every reply of the other side. A certificate in a game's own format is checked by that
    game's checker (Order and Chaos's centre certificates, from the pairing route: the board's
    geometry, the centre strategy against every reply, the closing lemma). Prints what was
    proven and how many positions were checked; exits with status 1, saying where, if the proof
    fails.
    """
    from ..registry import certificate_checker_for
    from ..solvers.verify import check_certificate, read_certificate

    with _user_errors():
        special = certificate_checker_for(_certificate_head(certificate))
        if special is not None:  # a format of a game's own, such as a centre certificate
            game, checker = special
            try:
                report = checker.verify_file(certificate, game)
            except OSError as error:
                raise click.ClickException(
                    f"cannot read {printable(certificate)!r}: {error.strerror or error}"
                ) from None
            click.echo(str(report))
            return
        try:
            cert = read_certificate(certificate)
        except OSError as error:
            raise click.ClickException(
                f"cannot read {printable(certificate)!r}: {error.strerror or error}"
            ) from None
        report = check_certificate(cert, parse_game_spec(cert.game))
    click.echo(str(report))
