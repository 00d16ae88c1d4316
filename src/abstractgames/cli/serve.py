"""`abstractgames serve`: the web app and game server (the `web` extra)."""

from __future__ import annotations

import sys

import click

from ..text import printable
from .common import _interrupted


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on: this machine only by default; 0.0.0.0 serves every network "
    "(with a warning).",
)
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="The port to listen on (0: a free one, printed).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in your web browser.")
@click.option(
    "--no-save",
    is_flag=True,
    help="Keep no record of the page's games (they go to the database otherwise; the data "
    "directory, where 'play' keeps its records, is set by ABSTRACTGAMES_DATA).",
)
@click.option(
    "--allow-programs",
    is_flag=True,
    help="Let the page start engines and bots from files also when serving beyond this machine "
    "(on 127.0.0.1 it always may; either way only with the page's token).",
)
@click.option(
    "--public",
    is_flag=True,
    help="A game server for others: no token (each game's seats are guarded by their links' "
    "secrets), no programs started; put it behind a reverse proxy with TLS.",
)
@click.option(
    "--database",
    metavar="PATH|URL",
    help="Where the games are kept, the page's and those between people: a SQLite file "
    "(default: games.db in your data directory) or postgresql://USER@HOST/DB, shared by "
    "several servers.",
)
@click.option(
    "--smtp",
    metavar="HOST:PORT",
    help="The mail server for correspondence notices (with --mail-from).",
)
@click.option("--mail-from", metavar="ADDRESS", help="The From: address of notices.")
@click.option(
    "--no-rate-limits",
    is_flag=True,
    help="Do not limit each client address's new games and moves (behind a reverse proxy "
    "that limits per address itself, where every client is the proxy).",
)
@click.option(
    "--base-url",
    metavar="URL",
    help="The server's address as players reach it (https://games.example.org), for the "
    "links in notices.",
)
@click.option(
    "--forwarded-allow-ips",
    metavar="ADDRESSES",
    help="The addresses of your reverse proxies (comma-separated), whose X-Forwarded-For "
    "header names each client for the rate limits; from anyone else it is ignored.",
)
@click.option(
    "--vacation-days",
    default=15,
    show_default=True,
    type=click.IntRange(0, 366),
    help="The vacation days a year each account may take, during which its correspondence "
    "clocks stop (0: none).",
)
@click.option(
    "--digest-hour",
    default=7,
    show_default=True,
    type=click.IntRange(0, 23),
    help="The hour (UTC) from which the daily digest e-mails go out (with --smtp).",
)
def serve(
    host: str,
    port: int,
    open_browser: bool,
    no_save: bool,
    allow_programs: bool,
    public: bool,
    database: str | None,
    smtp: str | None,
    mail_from: str | None,
    base_url: str | None,
    no_rate_limits: bool,
    forwarded_allow_ips: str | None,
    vacation_days: int,
    digest_hour: int,
) -> None:
    """Play, watch and replay in your web browser: a local web app (pip install
    'abstractgames[web]').

    Play any game against any player spec (or a second person at the same screen) by clicking
    on the board or typing moves; watch bots play a match or a tournament live; replay any
    game record. The games are kept in a database (games.db in your data directory, or
    --database), each as the same record 'play --record' writes, rewritten after every move;
    Replay lists them with the records 'play' keeps, and downloads any as a file. Ctrl-C (or
    SIGTERM) stops the server and keeps the games in progress.

    The address printed (and opened by --open) carries a secret token, new at each start:
    without it the server answers nothing, so no other program or person on this machine can
    use it.

    Two people on two computers play each other by link (the page's Online section): a game's
    creator gets a link for their seat and one to send the opponent; a third lets anyone watch.
    Those games, live or by correspondence, and the lobby's challenges are kept in the same
    database, so that a server restarted, or killed, loses no move it acknowledged.
    """
    try:
        from ..web import ServeError
        from ..web import serve as run_server
        from ..web.notify import SmtpSettings
    except ImportError as error:
        raise click.ClickException(
            f"the web interface needs the web extra ({error}): pip install 'abstractgames[web]'"
        ) from None
    from ..files import data_directory, games_directory

    if (smtp is None) != (mail_from is None):
        raise click.UsageError("--smtp and --mail-from go together")
    if public and allow_programs:
        raise click.UsageError("a --public server starts no programs: drop --allow-programs")
    mail = None
    if smtp is not None and mail_from is not None:
        try:
            mail = SmtpSettings.parse(smtp, mail_from, starttls=smtp.endswith(":587"))
        except ValueError as error:
            raise click.BadParameter(printable(error), param_hint="--smtp") from None
    if database is None and not no_save:
        home = data_directory()
        try:
            home.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise click.ClickException(f"cannot make {printable(home)}: {error}") from None
        database = str(home / "games.db")
    try:
        run_server(
            host,
            port,
            open_browser=open_browser,
            save_dir=None if no_save else games_directory(),
            allow_programs=True if allow_programs else None,
            database=database,
            public=public,
            smtp=mail,
            base_url=base_url,
            rate_limits=not no_rate_limits,
            forwarded_allow_ips=forwarded_allow_ips,
            vacation_days=vacation_days,
            digest_hour=digest_hour,
        )
    except ServeError as error:
        raise click.ClickException(printable(error)) from None
    except KeyboardInterrupt:
        sys.exit(_interrupted())
