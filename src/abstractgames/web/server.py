"""Running the web app: uvicorn on a socket of our own, a clean stop on Ctrl-C, SIGTERM and SIGHUP.

A stop, however it comes, ends every match in progress with its record saved (the referee keeps
the moves so far; `abstractgames play --resume FILE` continues it at a terminal) and stops every
external program and tournament, before the process ends.

The page's address carries the server's secret token (`?token=...`, new at each start; see
[`TokenGate`][abstractgames.web.app.TokenGate]). What a client may hold is bounded: a request's
head and body must arrive within [`REQUEST_TIMEOUT`][] seconds (uvicorn has no such timeout of
its own: [`BoundedH11Protocol`][] adds it), an idle connection is closed after
[`KEEP_ALIVE`][] seconds, a head is at most [`MAX_HEAD`][] bytes, a WebSocket message from the
page at most [`MAX_WS_MESSAGE`][] bytes, and at most [`MAX_CONNECTIONS`][] connections and
requests are served at once (more are answered 503).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import ipaddress
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import warnings
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import uvicorn
from uvicorn.protocols.http import h11_impl
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..protocol import AbstractGamesError
from ..text import counted
from .app import WebApp, create_app, new_token
from .database import Database, DatabaseError
from .digest import DIGEST_HOUR
from .notify import Notifier, SmtpSettings
from .online import OnlineGames
from .online_api import UNLIMITED, OnlineServer
from .vacation import VACATION_DAYS

__all__ = [
    "KEEP_ALIVE",
    "MAX_CONNECTIONS",
    "MAX_HEAD",
    "MAX_WS_MESSAGE",
    "PING_INTERVAL",
    "PUBLIC_BOT_SECONDS",
    "REQUEST_TIMEOUT",
    "BoundedH11Protocol",
    "ServeError",
    "is_loopback",
    "serve",
]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
"""The names a request may give as its Host when the server listens on a loopback address."""


REQUEST_TIMEOUT = 30.0
"""Seconds a client has to send a whole request (its head and its body), from the moment it
connects or its last answer was sent; then the connection is closed."""
KEEP_ALIVE = 5
"""Seconds an idle connection is kept open for the next request (uvicorn's `timeout_keep_alive`)."""
MAX_HEAD = 16 * 1024
"""The largest request head (request line and headers), in bytes (h11's incomplete event size);
a larger one is answered 400."""
PING_INTERVAL = 20.0
"""Seconds between the pings the server sends on each WebSocket; a socket whose other end does
not answer one within as many seconds again is closed (a page gone without a word)."""
MAX_WS_MESSAGE = 64 * 1024
"""The largest message read from a WebSocket (the page sends none)."""
PUBLIC_BOT_SECONDS = 10.0
"""The most seconds a server's bot thinks for a move on a public server (one that asks for
more is refused when its game is made; one that overruns it loses by forfeit), so that no
game's bot holds the bots' threads from the others for long."""
MAX_CONNECTIONS = 4096
"""The most connections and requests served at once (uvicorn's `limit_concurrency`), open
pages (each holds a WebSocket) included; one more request is answered 503. The server raises
its limit of open files to fit them, as far as the system allows (`ulimit -Hn`)."""


class _BoundedConnection(h11_impl.h11.Connection):  # type: ignore[misc, name-defined]
    """h11's server side, refusing a request whose head is over its size however it arrives
    (h11 bounds only a head still incomplete: one sent whole, or behind another, passed)."""

    def __init__(self, max_head: int) -> None:
        super().__init__(h11_impl.h11.SERVER, max_incomplete_event_size=max_head)  # type: ignore[attr-defined]
        self.max_head = max_head

    def next_event(self) -> object:
        event = super().next_event()
        if isinstance(event, h11_impl.h11.Request):  # type: ignore[attr-defined]
            size = (
                len(event.method)
                + len(event.target)
                + sum(len(name) + len(value) + 4 for name, value in event.headers.raw_items())
            )
            if size > self.max_head:
                raise h11_impl.h11.RemoteProtocolError(  # type: ignore[attr-defined]
                    "request head too large", error_status_hint=431
                )
        return event


class BoundedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol (h11), with a time limit on receiving each request.

    uvicorn closes a connection left idle after an answer, but not one that sends a request's
    head or body a byte at a time, or that connects and sends nothing: each of those would hold
    a socket for ever. Here a timer starts when the connection is made and again after each
    answer; if the whole request has not arrived when it fires, the connection is closed (a
    request the app was reading then ends as a client that went away). A connection upgraded
    to a WebSocket leaves this protocol, and its timer, behind.
    """

    request_timeout = REQUEST_TIMEOUT
    _incomplete = (  # the states of h11 (reached through uvicorn, its only user here)
        h11_impl.h11.IDLE,  # type: ignore[attr-defined]
        h11_impl.h11.SEND_BODY,  # type: ignore[attr-defined]
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _BoundedConnection(self.config.h11_max_incomplete_event_size or MAX_HEAD)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._receiving: asyncio.TimerHandle | None = None
        self._start_receiving()

    def _start_receiving(self) -> None:
        if self._receiving is not None:
            self._receiving.cancel()
        self._receiving = self.loop.call_later(self.request_timeout, self._too_slow)

    def _too_slow(self) -> None:
        self._receiving = None
        if self.transport.is_closing():
            return
        if self.conn.their_state in self._incomplete:  # not all of it yet
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._receiving is not None and self.conn.their_state not in self._incomplete:
            self._receiving.cancel()  # the whole request is in
            self._receiving = None

    def handle_websocket_upgrade(self, event: h11_impl.h11.Request) -> None:  # type: ignore[name-defined]
        """The connection becomes a WebSocket: this protocol's timer ends with it (h11 never
        sees the rest of an upgraded request, so the timer would close a healthy socket)."""
        if self._receiving is not None:
            self._receiving.cancel()
            self._receiving = None
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._start_receiving()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._receiving is not None:
            self._receiving.cancel()
            self._receiving = None
        super().connection_lost(exc)


def _protocol(timeout: float) -> type[BoundedH11Protocol]:
    return type("BoundedH11Protocol", (BoundedH11Protocol,), {"request_timeout": timeout})


class ServeError(AbstractGamesError):
    """The server cannot start, e.g. the port is taken."""


def is_loopback(host: str) -> bool:
    """Whether `host` is an address of this machine only (`127.0.0.1`, `::1`, `localhost`)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _enough_files(wanted: int) -> None:
    """Raise this process's limit of open files to `wanted`, or as near as the system lets."""
    try:
        import resource
    except ImportError:  # not on this platform
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ceiling = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < ceiling:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (ceiling, hard))


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port` (port 0: a free port)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise ServeError(f"cannot listen on {host}: {error.strerror or error}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise ServeError(
            f"cannot listen on {host} port {port}: {error.strerror or error}"
        ) from None
    sock.set_inheritable(True)
    return sock


def _opener(url: str) -> Path:
    """A file (private: in a new 0700 directory, itself 0600) whose page goes on to `url`: the
    browser is given this file rather than the address with the token, which would be on its
    command line for every user of the machine to read (in `ps`), as notebook servers do."""
    directory = Path(tempfile.mkdtemp(prefix="abstractgames-web-open-"))
    path = directory / "open.html"
    shown = html.escape(url, quote=True)
    page = (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="0;url={shown}"><title>abstractgames</title>'
        f'</head><body><p><a href="{shown}">Open abstractgames</a></p></body></html>\n'
    )
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(page)
    return path


def _url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else "[::1]" if host == "::" else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def _online(
    database: str | Path,
    smtp: SmtpSettings | None,
    private_webhooks: bool,
    base_url: str,
    bot_timeout: float,
    rate_limits: bool = True,
    vacation_days: int = VACATION_DAYS,
    digest_hour: int = DIGEST_HOUR,
) -> OnlineServer:
    """The game server's games on `database`.

    Raises:
        ServeError: the database cannot be opened.
    """
    try:
        store = Database.open(database)
    except DatabaseError as error:
        raise ServeError(str(error)) from None
    notifier = Notifier(smtp, private_webhooks=private_webhooks)
    games = OnlineGames(store, notifier=notifier, base_url=base_url, bot_timeout=bot_timeout)
    return OnlineServer(
        store,
        games,
        limits=None if rate_limits else UNLIMITED,
        vacation_days=vacation_days,
        digest_hour=digest_hour,
    )


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    open_browser: bool = False,
    save_dir: Path | None = None,
    allow_programs: bool | None = None,
    bot_timeout: float = 300.0,
    out: TextIO | None = None,
    on_ready: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
    token: str | None = None,
    request_timeout: float = REQUEST_TIMEOUT,
    database: str | Path | None = None,
    public: bool = False,
    smtp: SmtpSettings | None = None,
    private_webhooks: bool = False,
    base_url: str | None = None,
    rate_limits: bool = True,
    forwarded_allow_ips: str | None = None,
    ping_interval: float = PING_INTERVAL,
    vacation_days: int = VACATION_DAYS,
    digest_hour: int = DIGEST_HOUR,
) -> list[str]:
    """Serve the web app until Ctrl-C, SIGTERM or SIGHUP; return the records of the matches
    that were still being played (kept in the database, or in `save_dir` without one).

    Args:
        host: the address to listen on; anything but a loopback address gives a warning.
        port: the port (0: a free one, printed).
        open_browser: open the page in the default browser once the server is up (through a
            private file that goes on to the address, so that the token is on no command line).
        save_dir: the record files the Replay list shows, where the page's matches are kept
            when there is no `database` (`None`: the page keeps no record, even in `database`).
        allow_programs: whether the page may start external programs and bots from files
            (default: only when listening on a loopback address).
        bot_timeout: seconds a bot without a clock has for a move before it forfeits (at most
            [`PUBLIC_BOT_SECONDS`][] on a public server).
        out: where the address and the stop are told (default: standard error).
        on_ready: called with the page's address (with its `?token=`) once the server listens.
        stop: setting this event stops the server as Ctrl-C does (to serve from a thread).
        token: the secret every request must carry (default: a new one at each start); the
            address printed and opened carries it.
        request_timeout: seconds a client has to send a whole request (see
            [`BoundedH11Protocol`][]).
        database: the game server's store: a SQLite file or a `postgresql://` URL, which also
            keeps the page's own matches (`None`: no games between people by link).
        public: serve others: no token, seat secrets guard the games, no program started.
        smtp: where e-mail notices go out (`None`: none are sent).
        private_webhooks: let webhooks reach this machine and private networks.
        base_url: the server's address as players reach it, for the links in notices.
        rate_limits: limit each client address's games and moves (see
            [`DEFAULT_LIMITS`][abstractgames.web.online_api.DEFAULT_LIMITS]); off behind a
            proxy that limits per address itself.
        forwarded_allow_ips: the addresses of the operator's reverse proxies (comma-separated,
            `*` for any), whose `X-Forwarded-For` header names the client; from anyone else the
            header is ignored (`None`: no proxy, ignored from everyone), so no client can pass
            for many.
        ping_interval: seconds between the pings on each WebSocket (see [`PING_INTERVAL`][]).
        vacation_days: the vacation days a year each account has for its correspondence
            games (see [`abstractgames.web.vacation`][]).
        digest_hour: the hour (UTC) from which the daily digest e-mails go (see
            [`abstractgames.web.digest`][]).

    Raises:
        ServeError: the server cannot listen there.
    """
    out = sys.stderr if out is None else out
    local = is_loopback(host)
    if not local and not public:
        warnings.warn(
            f"serving on {host}: the page's address and its token travel unencrypted, so "
            "anyone who can see the traffic can play here and read the games; programs and "
            "bots from files are refused unless --allow-programs is given",
            stacklevel=2,
        )
    if allow_programs is None:
        allow_programs = local and not public
    if public:
        bot_timeout = min(bot_timeout, PUBLIC_BOT_SECONDS)
    _enough_files(MAX_CONNECTIONS + 256)
    sock = _listen(host, port)
    port = sock.getsockname()[1]
    token = new_token() if token is None else token
    url = _url(host, port) if public else f"{_url(host, port)}?token={token}"
    hosts = [*LOOPBACK_NAMES, host.strip("[]").lower()] if local and not public else None
    online = None
    try:
        if database is not None:
            online = _online(
                database,
                smtp,
                private_webhooks,
                base_url or _url(host, port),
                bot_timeout,
                rate_limits,
                vacation_days,
                digest_hour,
            )
        app = create_app(
            save_dir=save_dir,
            allow_programs=allow_programs and not public,
            bot_timeout=bot_timeout,
            hosts=hosts,
            token=token,
            online=online,
            public=public,
            database=None if online is None or save_dir is None else online.database,
        )
    except BaseException:
        sock.close()
        if online is not None:
            online.close()
        raise
    web: WebApp = app.state.web
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        http=_protocol(request_timeout),
        ws="auto",
        ws_max_size=MAX_WS_MESSAGE,
        ws_per_message_deflate=False,  # a snapshot is small; compressing each costs the CPU
        ws_ping_interval=ping_interval,
        ws_ping_timeout=ping_interval,
        timeout_keep_alive=KEEP_ALIVE,
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips,
        h11_max_incomplete_event_size=MAX_HEAD,
        limit_concurrency=MAX_CONNECTIONS,
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)

    opened: list[Path] = []  # the directories of the files given to the browser

    def ready() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if server.started:
            print(f"abstractgames: serving on {url} (Ctrl-C stops)", file=out, flush=True)
            if open_browser:
                opener = _opener(url)
                opened.append(opener.parent)
                webbrowser.open(opener.as_uri())
            if on_ready is not None:
                on_ready(url)

    threading.Thread(target=ready, name="abstractgames-web-ready", daemon=True).start()
    if stop is not None:

        def stopper() -> None:
            stop.wait()
            server.should_exit = True

        threading.Thread(target=stopper, name="abstractgames-web-stop", daemon=True).start()
    hangup = getattr(signal, "SIGHUP", None)
    previous = None
    if hangup is not None and threading.current_thread() is threading.main_thread():
        previous = signal.signal(hangup, server.handle_exit)
    try:
        asyncio.run(server.serve(sockets=[sock]))
    finally:
        if hangup is not None and previous is not None:
            signal.signal(hangup, previous)
        sock.close()
        saved = web.shutdown()
        if online is not None:
            online.database.close()
        for directory in opened:
            shutil.rmtree(directory, ignore_errors=True)
        if saved:
            print(
                f"abstractgames: {counted(len(saved), 'game')} in progress kept in "
                f"{web.saved.where()}; the page's Replay list continues them",
                file=out,
                flush=True,
            )
    if hangup is not None and hangup in getattr(server, "_captured_signals", ()):
        signal.raise_signal(hangup)  # the hang-up ends the run as it would have without us
    return saved
