"""Running the web app: uvicorn on a socket of our own, a clean stop on Ctrl-C, SIGTERM and SIGHUP.

A stop, however it comes, ends every match in progress with its record saved (the referee keeps
the moves so far; `abstractgames play --resume FILE` continues it at a terminal) and stops every
external program and tournament, before the process ends.
"""

from __future__ import annotations

import asyncio
import ipaddress
import signal
import socket
import sys
import threading
import warnings
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import uvicorn

from ..protocol import AbstractGamesError
from .app import WebApp, create_app

__all__ = ["ServeError", "is_loopback", "serve"]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
"""The names a request may give as its Host when the server listens on a loopback address."""


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


def _url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else "[::1]" if host == "::" else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


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
) -> list[Path]:
    """Serve the web app until Ctrl-C, SIGTERM or SIGHUP; return the records of the matches
    that were still being played (saved in `save_dir`).

    Args:
        host: the address to listen on; anything but a loopback address gives a warning.
        port: the port (0: a free one, printed).
        open_browser: open the page in the default browser once the server is up.
        save_dir: where the records of matches are kept (`None`: nowhere).
        allow_programs: whether the page may start external programs and bots from files
            (default: only when listening on a loopback address).
        bot_timeout: seconds a bot without a clock has for a move before it forfeits.
        out: where the address and the stop are told (default: standard error).
        on_ready: called with the page's address once the server listens.
        stop: setting this event stops the server as Ctrl-C does (to serve from a thread).

    Raises:
        ServeError: the server cannot listen there.
    """
    out = sys.stderr if out is None else out
    local = is_loopback(host)
    if not local:
        warnings.warn(
            f"serving on {host}: anyone who can reach this machine can play here and read the "
            "games; programs and bots from files are refused unless --allow-programs is given",
            stacklevel=2,
        )
    if allow_programs is None:
        allow_programs = local
    sock = _listen(host, port)
    port = sock.getsockname()[1]
    url = _url(host, port)
    hosts = [*LOOPBACK_NAMES, host.strip("[]").lower()] if local else None
    app = create_app(
        save_dir=save_dir, allow_programs=allow_programs, bot_timeout=bot_timeout, hosts=hosts
    )
    web: WebApp = app.state.web
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        ws="auto",
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)

    def ready() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if server.started:
            print(f"abstractgames: serving on {url} (Ctrl-C stops)", file=out, flush=True)
            if on_ready is not None:
                on_ready(url)
            if open_browser:
                webbrowser.open(url)

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
        if saved:
            where = saved[0].parent
            print(
                f"abstractgames: {len(saved)} game{'s' if len(saved) != 1 else ''} in progress "
                f"saved in {where}; 'abstractgames play --resume FILE' continues one",
                file=out,
                flush=True,
            )
    if hangup is not None and hangup in getattr(server, "_captured_signals", ()):
        signal.raise_signal(hangup)  # the hang-up ends the run as it would have without us
    return saved
