"""The `abstractgames` command line.

Errors the user can fix (a bad game name, position, flag) end with one line on stderr and a
non-zero exit status, never a traceback.

The group `main` is here, and each command is in a module of this package with what it alone
needs: `listing` (`list`), `bench`, `play` (`play`, `replay`, `show`), `engines` (`engine`,
`codecup`), `arena`, `check`, `solve` (`solve`, `verify`), `serve`, `admin` (`server admin
...`) and `mail`; `common` holds what more than one of them shares.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from ..interrupts import EXIT_INTERRUPTED, exit_status, termination_as_interrupt
from .common import EXIT_SAVED_ELSEWHERE, _Fitted, _say

__all__ = ["EXIT_INTERRUPTED", "EXIT_SAVED_ELSEWHERE", "main"]


COMMANDS = {
    "arena": "arena:arena",
    "bench": "bench:bench",
    "check": "check:check",
    "codecup": "engines:codecup",
    "engine": "engines:engine",
    "list": "listing:list_command",
    "mail": "mail:mail",
    "play": "play:play",
    "replay": "play:replay",
    "serve": "serve:serve",
    "server": "admin:server",
    "show": "play:show",
    "solve": "solve:solve",
    "verify": "solve:verify",
}
"""Each command by name, as `"module:attribute"` in this package: a command's module is imported
only when it runs (or when the help lists every command), so that a command does not pay for
what the others import."""


class _Main(click.Group):
    """The command group: SIGTERM and SIGHUP stop every command the way Ctrl-C does; commands
    are loaded from `COMMANDS` on first use."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # The command's module is imported here, before `invoke` handles the stop signals: a
        # Ctrl-C while it loads ends the run at once, as one during the library's import does.
        name = next((arg for arg in args if not arg.startswith("-")), None)
        if name is not None:
            self.get_command(ctx, name)
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, _, attribute = COMMANDS[cmd_name].partition(":")
            command = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)

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


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """`--version`: the installed version (read only when asked: reading it takes 20 ms)."""
    if value and not ctx.resilient_parsing:
        from .. import __version__

        click.echo(f"abstractgames, version {__version__}")
        ctx.exit()


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def main() -> None:
    """Play, referee and measure Entropy, Order and Chaos, and dispersal Entropy."""
    import warnings

    warnings.showwarning = _show_warning
