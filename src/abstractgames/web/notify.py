"""Telling a player of a correspondence game that it is their move: by e-mail, by webhook, or both.

A seat holder may leave an e-mail address and a webhook URL for their seat. After every move the
server hands a [`Notice`][] for the player to move to a [`Notifier`][], which delivers it in a
thread of its own: a slow mail server or a webhook that never answers delays no move, and a
delivery that fails is logged (never with the seat's secret) and dropped, never raised into the
game.

- **E-mail** goes through the SMTP server the operator configures ([`SmtpSettings`][]; `serve
  --smtp HOST:PORT --mail-from ADDRESS`), with STARTTLS and a login if asked for.
- **A webhook** gets an HTTP `POST` of a JSON object: `{"event": "your-move", "game": ID,
  "title": ..., "text": ..., "link": ...}`. Only `http` and `https` URLs are taken, and by default
  none that points at this machine or a private network, so that a client cannot make the server
  send requests to the services behind it; an operator whose players' receivers live there allows
  them ([`Notifier`][]'s `private_webhooks`).

The addresses are checked when a seat holder gives them ([`check_email`][], [`check_webhook`][]):
a bad one is a [`BadRequest`][abstractgames.web.errors.BadRequest] naming what is wrong.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import queue
import re
import smtplib
import socket
import ssl
import threading
import urllib.request
from collections.abc import Callable
from email.message import EmailMessage
from urllib.parse import urlsplit

import attrs

from ..grid import diagram
from ..protocol import State
from ..text import excerpt
from .errors import BadRequest

__all__ = [
    "MAX_ADDRESS",
    "Notice",
    "Notifier",
    "SmtpSettings",
    "check_email",
    "check_webhook",
    "your_move",
]

MAX_ADDRESS = 2000
"""The longest webhook URL or e-mail address a seat may leave."""
_EMAIL = re.compile(r"[^@\s<>,;\"']+@[^@\s<>,;\"']+\.[^@\s<>,;\"']+")
_SEND_TIMEOUT = 10.0
_LOG = logging.getLogger("abstractgames.web.notify")


@attrs.frozen
class SmtpSettings:
    """Where the server sends its e-mail from.

    Attributes:
        host: the SMTP server.
        port: its port (25, or 587 for submission with STARTTLS).
        sender: the `From:` address.
        starttls: whether to upgrade the connection with STARTTLS before sending.
        username: the login, if the server wants one (with `password`).
        password: the login's password.
        timeout: seconds to wait for the server.
    """

    host: str
    port: int
    sender: str
    starttls: bool = False
    username: str | None = None
    password: str | None = attrs.field(default=None, repr=False)
    timeout: float = _SEND_TIMEOUT

    @classmethod
    def parse(cls, address: str, sender: str, **more: object) -> SmtpSettings:
        """`HOST:PORT` (or `HOST`, port 25) and the `From:` address; `more` as the attributes.

        Raises:
            ValueError: a malformed address, port or sender.
        """
        host, colon, port_text = address.strip().rpartition(":")
        if not colon:
            host, port_text = port_text, "25"
        if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ValueError(f"bad SMTP server {excerpt(address)!r}: write HOST:PORT")
        if not _EMAIL.fullmatch(sender.strip()):
            raise ValueError(f"bad sender address {excerpt(sender)!r}: write name@example.org")
        return cls(host.strip("[]"), int(port_text), sender.strip(), **more)  # type: ignore[arg-type]


@attrs.frozen
class Notice:
    """What a player is told: a subject line, the text (the last move and the board) and the
    link to their seat."""

    game: str
    subject: str
    text: str
    link: str
    event: str = "your-move"
    """`"your-move"`, `"game-over"` for the end of the match, or `"sign-in"` (an account's
    one-time sign-in link)."""
    link_label: str = "Your seat"
    """What the e-mail calls the link."""

    def as_json(self) -> dict[str, str]:
        """The webhook's body."""
        return {
            "event": self.event,
            "game": self.game,
            "title": self.subject,
            "text": self.text,
            "link": self.link,
        }


def your_move(game: str, title: str, state: State, last: str | None, link: str) -> Notice:
    """The notice for the player to move in `state`: the game, the last move, the board.

    Examples:
        >>> from abstractgames import get_game
        >>> state = get_game("orderchaos").initial_state().apply("X@c3")
        >>> notice = your_move("k3Jd", "Order and Chaos", state, "X@c3", "https://example.org/s")
        >>> notice.subject
        'Your move in Order and Chaos (k3Jd)'
        >>> print(notice.text.splitlines()[0])
        The last move: X@c3. You play Chaos.
    """
    board = diagram(state) if state.game.board_width else str(state)
    played = f"The last move: {last}. " if last else ""
    role = (state.to_move or "").capitalize()
    return Notice(
        game=game,
        subject=f"Your move in {title} ({game})",
        text=f"{played}You play {role}.\n\n{board}",
        link=link,
    )


def game_over(game: str, title: str, result: str, link: str) -> Notice:
    """The notice to both players that the match is over, and how.

    Examples:
        >>> game_over("k3Jd", "Order and Chaos", "player 2 ran out of time", "https://x/").subject
        'The match is over in Order and Chaos (k3Jd)'
    """
    return Notice(
        game=game,
        subject=f"The match is over in {title} ({game})",
        text=f"The match is over: {result}.",
        link=link,
        event="game-over",
    )


def check_email(address: str) -> str:
    """`address` stripped, if it looks like one e-mail address (no header can be slipped in).

    Raises:
        BadRequest: it does not.
    """
    address = address.strip()
    if len(address) > 254 or not _EMAIL.fullmatch(address):
        raise BadRequest(f"{excerpt(address)!r} is not an e-mail address (name@example.org)")
    return address


def check_webhook(url: str) -> str:
    """`url` stripped, if it is an `http` or `https` URL with a host.

    Whether its host is a private one is checked at each delivery ([`Notifier`][]), since a
    name can point somewhere else later.

    Raises:
        BadRequest: it is not.
    """
    url = url.strip()
    if len(url) > MAX_ADDRESS:
        raise BadRequest(f"a webhook URL is at most {MAX_ADDRESS:,} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise BadRequest(f"bad webhook URL {excerpt(url)!r}: {error}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadRequest(f"bad webhook URL {excerpt(url)!r}: write http(s)://HOST/PATH")
    if any(c in url for c in "\r\n\t ") or port == 0:
        raise BadRequest(f"bad webhook URL {excerpt(url)!r}")
    return url


def _private(host: str, port: int) -> str | None:
    """The address `host` resolves to if any is loopback, private, link-local or reserved."""
    try:
        found = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except OSError as error:
        raise OSError(f"cannot resolve {host}: {error}") from None
    for *_, address in found:
        ip = ipaddress.ip_address(address[0])
        if not ip.is_global:
            return str(ip)
    return None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A webhook is delivered where it was given, never where an answer redirects it to."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class Notifier:
    """Delivers notices by e-mail and webhook, in a thread of its own, one at a time.

    Args:
        smtp: the mail server, or `None` (e-mail addresses are then not offered).
        private_webhooks: deliver webhooks to loopback and private addresses too.
        timeout: seconds a webhook may take.
        on_failure: called with a line for each delivery that failed (default: the log).
    """

    def __init__(
        self,
        smtp: SmtpSettings | None = None,
        *,
        private_webhooks: bool = False,
        timeout: float = _SEND_TIMEOUT,
        on_failure: Callable[[str], None] | None = None,
    ) -> None:
        self.smtp = smtp
        self.private_webhooks = private_webhooks
        self.timeout = timeout
        self.on_failure = on_failure or _LOG.warning
        self._queue: queue.Queue[tuple[Notice, str | None, str | None] | None] = queue.Queue()
        self._opener = urllib.request.build_opener(_NoRedirects)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def sends_email(self) -> bool:
        """Whether e-mail can be sent (an SMTP server is configured)."""
        return self.smtp is not None

    def notify(self, notice: Notice, email: str | None = None, webhook: str | None = None) -> None:
        """Deliver `notice` to `email` and `webhook` (either may be `None`) soon."""
        if email is None and webhook is None:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._deliver_all, name="abstractgames-notify", daemon=True
                )
                self._thread.start()
        self._queue.put((notice, email, webhook))

    def close(self, wait: float = 5.0) -> None:
        """Deliver what is queued (for up to `wait` seconds), then stop."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join(wait)

    def _deliver_all(self) -> None:
        while (item := self._queue.get()) is not None:
            notice, email, webhook = item
            if email is not None:
                self._attempt("e-mail", notice, self.send_email, email)
            if webhook is not None:
                self._attempt("webhook", notice, self.send_webhook, webhook)

    def _attempt(
        self, what: str, notice: Notice, send: Callable[[Notice, str], None], to: str
    ) -> None:
        try:
            send(notice, to)
        except Exception as error:  # a delivery never ends the thread or reaches the game
            self.on_failure(f"the {what} for game {notice.game} was not delivered: {error}")

    def send_email(self, notice: Notice, address: str) -> None:
        """Send `notice` to `address` now (in the calling thread).

        Raises:
            OSError: no SMTP server is configured, or it refused or could not be reached.
        """
        smtp = self.smtp
        if smtp is None:
            raise OSError("no SMTP server is configured (serve --smtp HOST:PORT)")
        message = EmailMessage()
        message["From"] = smtp.sender
        message["To"] = address
        message["Subject"] = notice.subject
        message.set_content(f"{notice.text}\n\n{notice.link_label}: {notice.link}\n")
        with smtplib.SMTP(smtp.host, smtp.port, timeout=smtp.timeout) as server:
            if smtp.starttls:
                server.starttls(context=ssl.create_default_context())
            if smtp.username is not None:
                server.login(smtp.username, smtp.password or "")
            server.send_message(message)

    def send_webhook(self, notice: Notice, url: str) -> None:
        """POST `notice` to `url` now (in the calling thread).

        Raises:
            OSError: the URL points at a private address (where not allowed), or the request
                failed or was not answered with a 2xx status.
        """
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if not self.private_webhooks:
            private = _private(host, port)
            if private is not None:
                raise OSError(f"{host} is a private address ({private}): not allowed here")
        body = json.dumps(notice.as_json()).encode()
        request = urllib.request.Request(
            url,
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "User-Agent": "abstractgames"},
        )
        with self._opener.open(request, timeout=self.timeout) as answer:
            if not 200 <= answer.status < 300:
                raise OSError(f"the webhook answered {answer.status}")
