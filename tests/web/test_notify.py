"""Notifications of correspondence games (`abstractgames.web.notify`): e-mail to a real SMTP server
run here (aiosmtpd), webhooks to a real HTTP server run here, and every refusal."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from abstractgames import get_game
from abstractgames.web.errors import BadRequest
from abstractgames.web.notify import (
    Notifier,
    SmtpSettings,
    check_email,
    check_webhook,
    your_move,
)

aiosmtpd = pytest.importorskip("aiosmtpd.controller", reason="aiosmtpd is not installed")


class Inbox:
    """What the local SMTP server received."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        from email import message_from_bytes
        from email.policy import default

        self.messages.append(
            (envelope.rcpt_tos, message_from_bytes(envelope.content, policy=default))
        )
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[SmtpSettings, Inbox]]:
    import socket

    with socket.socket() as probe:  # a free port (the controller checks the one it is given)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    inbox = Inbox()
    controller = aiosmtpd.Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield SmtpSettings("127.0.0.1", port, "games@example.org"), inbox
    finally:
        controller.stop()


class Receiver(BaseHTTPRequestHandler):
    received: list[dict[str, Any]]
    status = 204

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        self.server.received.append(  # type: ignore[attr-defined]
            {"body": json.loads(self.rfile.read(length)), "type": self.headers["Content-Type"]}
        )
        self.send_response(self.server.status)  # type: ignore[attr-defined]
        if self.server.status == 302:  # type: ignore[attr-defined]
            self.send_header("Location", "http://127.0.0.1:9/elsewhere")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def webhook() -> Iterator[Any]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    server.received = []  # type: ignore[attr-defined]
    server.status = 204  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def notice_for_a_game() -> Any:
    state = get_game("orderchaos").initial_state().apply("X@c3")
    return your_move("k3Jd", "Order and Chaos", state, "X@c3", "http://example.org/#/seat/s3cr3t")


def wait_until(condition: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_the_player_to_move_gets_an_email_with_the_move_and_the_board(smtp: Any) -> None:
    settings, inbox = smtp
    notifier = Notifier(settings)
    notifier.notify(notice_for_a_game(), email="ann@example.org")
    wait_until(lambda: inbox.messages)
    notifier.close()
    recipients, message = inbox.messages[0]
    assert recipients == ["ann@example.org"]
    assert message["Subject"] == "Your move in Order and Chaos (k3Jd)"
    assert message["From"] == "games@example.org"
    body = message.get_content()
    assert body.startswith("The last move: X@c3. You play Chaos.")
    assert "chaos to move" in body.lower() and "<---6" in body  # the board as a text diagram
    assert "Your seat: http://example.org/#/seat/s3cr3t" in body


def test_a_webhook_gets_the_notice_as_json(webhook: Any) -> None:
    notifier = Notifier(private_webhooks=True)
    url = f"http://127.0.0.1:{webhook.server_address[1]}/hook"
    notifier.notify(notice_for_a_game(), webhook=url)
    wait_until(lambda: webhook.received)
    notifier.close()
    got = webhook.received[0]
    assert got["type"] == "application/json"
    assert got["body"]["event"] == "your-move" and got["body"]["game"] == "k3Jd"
    assert got["body"]["link"].endswith("s3cr3t") and "X@c3" in got["body"]["text"]


def test_a_webhook_to_this_machine_is_refused_unless_the_operator_allows_it(
    webhook: Any,
) -> None:
    failures: list[str] = []
    notifier = Notifier(on_failure=failures.append)
    url = f"http://127.0.0.1:{webhook.server_address[1]}/hook"
    with pytest.raises(OSError, match="private address"):
        notifier.send_webhook(notice_for_a_game(), url)
    notifier.notify(notice_for_a_game(), webhook=url)
    wait_until(lambda: failures)
    notifier.close()
    assert webhook.received == [] and "private address (127.0.0.1)" in failures[0]


@pytest.mark.parametrize("status", [302, 500])
def test_a_webhook_that_fails_or_redirects_is_a_logged_failure(webhook: Any, status: int) -> None:
    webhook.status = status
    failures: list[str] = []
    notifier = Notifier(private_webhooks=True, on_failure=failures.append)
    url = f"http://127.0.0.1:{webhook.server_address[1]}/hook"
    notifier.notify(notice_for_a_game(), webhook=url)
    notifier.notify(notice_for_a_game(), webhook="http://127.0.0.1:9/nobody-listens")
    wait_until(lambda: len(failures) == 2)
    notifier.close()
    assert len(webhook.received) == 1  # a redirect is not followed
    assert all("for game k3Jd was not delivered" in failure for failure in failures)


def test_an_unreachable_mail_server_is_a_logged_failure_and_the_next_notice_goes_out(
    smtp: Any,
) -> None:
    settings, inbox = smtp
    failures: list[str] = []
    nowhere = Notifier(
        SmtpSettings("127.0.0.1", 9, "games@example.org"), on_failure=failures.append
    )
    nowhere.notify(notice_for_a_game(), email="ann@example.org")
    wait_until(lambda: failures)
    nowhere.close()
    assert "e-mail for game k3Jd was not delivered" in failures[0]
    notifier = Notifier(settings, on_failure=failures.append)
    notifier.notify(notice_for_a_game(), email="ann@example.org", webhook="ftp://x/")
    notifier.notify(notice_for_a_game(), email="bob@example.org")
    wait_until(lambda: len(inbox.messages) == 2)
    notifier.close()
    assert [m[0] for m in inbox.messages] == [["ann@example.org"], ["bob@example.org"]]


def test_no_mail_server_configured_says_so() -> None:
    notifier = Notifier()
    assert not notifier.sends_email
    with pytest.raises(OSError, match="no SMTP server"):
        notifier.send_email(notice_for_a_game(), "ann@example.org")


@pytest.mark.parametrize(
    "address",
    ["", "ann", "ann@example", "ann@example.org\r\nBcc: eve@example.org", "a b@example.org",
     "<ann@example.org>", "x" * 250 + "@example.org"],
)  # fmt: skip
def test_a_bad_email_address_is_refused(address: str) -> None:
    with pytest.raises(BadRequest, match="is not an e-mail address"):
        check_email(address)
    assert check_email("  ann.b+games@example.org ") == "ann.b+games@example.org"


@pytest.mark.parametrize(
    "url",
    ["", "example.org/hook", "ftp://example.org/", "http:///path", "http://exa mple.org/",
     "http://example.org:99999/", "javascript:alert(1)", "http://" + "x" * 2000 + ".org/"],
)  # fmt: skip
def test_a_bad_webhook_url_is_refused(url: str) -> None:
    with pytest.raises(BadRequest, match="webhook URL"):
        check_webhook(url)
    assert check_webhook(" https://hooks.example.org/a?b=c ") == "https://hooks.example.org/a?b=c"


@pytest.mark.parametrize(
    ("address", "error"),
    [("mail.example.org:x", "bad SMTP server"), (":25", "bad SMTP server"),
     ("mail.example.org:70000", "bad SMTP server")],
)  # fmt: skip
def test_smtp_settings_are_checked(address: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        SmtpSettings.parse(address, "games@example.org")
    with pytest.raises(ValueError, match="bad sender"):
        SmtpSettings.parse("mail.example.org:587", "games")
    settings = SmtpSettings.parse("mail.example.org:587", "games@example.org", starttls=True)
    assert (settings.host, settings.port, settings.starttls) == ("mail.example.org", 587, True)
    assert SmtpSettings.parse("mail.example.org", "games@example.org").port == 25
    assert "password" not in repr(SmtpSettings("h", 1, "a@b.c", password="hunter2"))
