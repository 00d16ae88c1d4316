"""The `abstractgames` command line.

Errors the user can fix (a bad game name, position, flag) end with one line on stderr and a
non-zero exit status, never a traceback.

The group `main` is here, and each command is in a module of this package with what it alone
needs: `listing` (`list`), `bench`, `play` (`play`, `replay`, `show`), `engines` (`engine`,
`codecup`), `arena`, `check`, `solve` (`solve`, `verify`), `serve`, `admin` (`server admin
...`) and `mail`; `common` holds what more than one of them shares.
"""

from __future__ import annotations

from typing import Any

import click

from .. import __version__
from ..interrupts import EXIT_INTERRUPTED, exit_status, termination_as_interrupt
from . import admin, arena, bench, check, engines, listing, mail, play, serve, solve
from .common import EXIT_SAVED_ELSEWHERE, _Fitted, _say

__all__ = ["EXIT_INTERRUPTED", "EXIT_SAVED_ELSEWHERE", "main"]


class _Main(click.Group):
    """The command group: SIGTERM and SIGHUP stop every command the way Ctrl-C does."""

    def invoke(self, ctx: click.Context) -> Any:
        with termination_as_interrupt() as received:
            ctx.meta["abstractgames.signals"] = received
            try:
                return super().invoke(ctx)
            except click.ClickException as error:  # "Error: ..." fitted to the terminal
                raise _Fitted(error) from None
            except KeyboardInterrupt as interrupt:  # not handled by the command: nothing to keep
                _say(f"\ninterrupted ({interrupt})" if str(interrupt) else "\ninterrupted")
                ctx.exit(exit_status(interrupt))


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Warnings as one line on stderr, without the source line Python shows by default."""
    click.echo(f"abstractgames: warning: {message}", err=True)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="abstractgames")
def main() -> None:
    """Play, referee and measure Entropy, Order and Chaos, and dispersal Entropy."""
    import warnings

    warnings.showwarning = _show_warning


main.add_command(listing.list_command)
main.add_command(bench.bench)
main.add_command(play.play)
main.add_command(play.replay)
main.add_command(play.show)
main.add_command(engines.engine)
main.add_command(engines.codecup)
main.add_command(arena.arena)
main.add_command(check.check)
main.add_command(solve.solve)
main.add_command(solve.verify)
main.add_command(serve.serve)
main.add_command(admin.server)
main.add_command(mail.mail)
