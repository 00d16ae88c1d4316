"""`abstractgames server admin ...`: the operator's tools on a game server's database (the `web`
extra), the same actions as the moderation page (`abstractgames.web.moderation`).

They work on the database a server runs on, while it runs: each is one transaction, and every
server process on that database hears of it (an aborted game stops on every page at once).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from ..protocol import AbstractGamesError
from ..text import printable

_DATABASE_HELP = (
    "The server's database: a SQLite file (default: games.db in your data directory) or "
    "postgresql://USER@HOST/DB, as 'serve --database' takes it."
)


@click.group()
def server() -> None:
    """The game server's operator tools ('abstractgames serve --public' runs the server)."""


@server.group()
def admin() -> None:
    """List, abort or delete games, expire challenges, and rename, block, merge or export
    accounts, on the database of a game server (running or not: a running server sees each
    change at once)."""


def _database_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--database", metavar="PATH|URL", help=_DATABASE_HELP)(command)


@contextmanager
def _tools(database: str | None) -> Iterator[Any]:
    """The operator's tools on `database`; every refusal as one line, never a traceback."""
    try:
        from ..web.database import Database
        from ..web.moderation import Moderation
    except ImportError as error:
        raise click.ClickException(
            f"the game server needs the web extra ({error}): pip install 'abstractgames[web]'"
        ) from None
    if database is None:
        from ..files import data_directory

        database = str(data_directory() / "games.db")
    try:
        store = Database.open(database)
    except AbstractGamesError as error:
        raise click.ClickException(printable(error)) from None
    try:
        yield Moderation(store)
    except AbstractGamesError as error:
        raise click.ClickException(printable(error)) from None
    finally:
        store.close()


def _when(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return dt.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M")


@admin.command()
@_database_option
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 100_000))
def games(database: str | None, limit: int) -> None:
    """The games changed last: id, game, status, ply, the seats, when."""
    with _tools(database) as tools:
        for game in tools.games(limit):
            seats = " vs ".join(
                printable(s["bot"] or s["name"] or "?")
                + (f" [{s['account']}]" if s["account"] else "")
                for s in game["seats"]
            )
            click.echo(
                f"{game['id']}  {printable(game['game'])}  {game['status']}  ply {game['ply']}  "
                f"{seats}  {_when(game['updated'])}"
            )


@admin.command()
@_database_option
def accounts(database: str | None) -> None:
    """The accounts: name, e-mail, blocked, operator, since when."""
    with _tools(database) as tools:
        for account in tools.accounts():
            flags = [f for f in ("blocked", "operator") if account[f]]
            click.echo(
                f"{account['name']}  {account['email'] or '-'}  {' '.join(flags) or '-'}  "
                f"{_when(account['created'])}"
            )


@admin.command()
@_database_option
@click.argument("game")
def abort(database: str | None, game: str) -> None:
    """End an unfinished GAME without a winner (not rated)."""
    with _tools(database) as tools:
        tools.abort(game)
    click.echo(f"game {game} aborted")


@admin.command()
@_database_option
@click.argument("game")
@click.option("--yes", is_flag=True, help="Do not ask first.")
def delete(database: str | None, game: str, yes: bool) -> None:
    """Delete GAME, its seats and moves, for good."""
    if not yes:
        click.confirm(f"delete game {game} for good?", abort=True)
    with _tools(database) as tools:
        tools.delete(game)
    click.echo(f"game {game} deleted")


@admin.command("expire-challenges")
@_database_option
@click.option("--all", "everything", is_flag=True, help="Every open challenge, not only the old.")
def expire_challenges(database: str | None, everything: bool) -> None:
    """Take the challenges past their time (or, with --all, every one) out of the lobby."""
    with _tools(database) as tools:
        count = tools.expire_challenges(everything=everything)
    click.echo(f"{count} challenge{'' if count == 1 else 's'} taken out of the lobby")


@admin.command()
@_database_option
@click.argument("old")
@click.argument("new")
def rename(database: str | None, old: str, new: str) -> None:
    """Call account OLD NEW (its seats too)."""
    with _tools(database) as tools:
        tools.rename(old, new)
    click.echo(f"{printable(old)} is {printable(new)} now")


@admin.command()
@_database_option
@click.argument("name")
def block(database: str | None, name: str) -> None:
    """Block account NAME (its sessions end, it cannot sign in, its seats no longer open for
    it); a name no account has is reserved, blocked."""
    with _tools(database) as tools:
        tools.block(name)
    click.echo(f"{printable(name)} is blocked")


@admin.command()
@_database_option
@click.argument("name")
def unblock(database: str | None, name: str) -> None:
    """Let account NAME sign in again."""
    with _tools(database) as tools:
        tools.unblock(name)
    click.echo(f"{printable(name)} is no longer blocked")


@admin.command()
@_database_option
@click.argument("source", metavar="FROM")
@click.argument("target", metavar="INTO")
def merge(database: str | None, source: str, target: str) -> None:
    """Move account FROM's seats into account INTO (each game's rating: the one of more games)
    and delete FROM."""
    with _tools(database) as tools:
        moved = tools.merge(source, target)
    click.echo(f"{printable(source)} merged into {printable(target)} ({moved} seats)")


@admin.command()
@_database_option
@click.argument("name")
@click.option("--output", "-o", metavar="FILE", help="Write it to FILE (default: standard output).")
def export(database: str | None, name: str, output: str | None) -> None:
    """Everything the server keeps of account NAME, as JSON (its games, moves, ratings)."""
    with _tools(database) as tools:
        data = tools.export(name)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    from ..files import write_atomic

    try:
        write_atomic(output, text)
    except OSError as error:
        raise click.ClickException(f"cannot write {printable(output)}: {error}") from None


@admin.command("make-operator")
@_database_option
@click.argument("name")
@click.option("--revoke", is_flag=True, help="Take the moderation page away instead.")
def make_operator(database: str | None, name: str, revoke: bool) -> None:
    """Give account NAME the moderation page (its operator's flag)."""
    with _tools(database) as tools:
        tools.make_operator(name, not revoke)
    click.echo(f"{printable(name)} is {'no longer ' if revoke else ''}an operator")
