"""Two people in two browsers (two independent Chromium contexts) play by link on a `serve
--public` server, one closes their browser and comes back mid-game, a third context watches;
then the lobby. Screenshots go to ABSTRACTGAMES_SCREENSHOTS if it is set (the docs' pictures)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="the test extra is not installed")

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from abstractgames.web.errors import TooMany
from abstractgames.web.online_api import DEFAULT_LIMITS, RateLimits
from tests.web.test_online_server import public_server

SERVER_SAID: dict[str, list[str]] = {}
"""What each server started here printed (its stderr), by address."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[str]:
    data = tmp_path_factory.mktemp("online")
    with public_server(data, str(data / "games.db")) as (process, url):
        SERVER_SAID[url] = process.said
        yield url


def snapshot(url: str, game_id: str, secret: str | None = None) -> Any:
    request = urllib.request.Request(f"{url}/api/online/{game_id}")
    if secret:
        request.add_header("X-Seat", secret)
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.loads(answer.read())


def stalled(page: Any, site: str, view: Any, move: str) -> str:
    """What a page that did not get its move played shows, awaits and the server said."""
    shown = page.evaluate(
        "() => { const i = document.querySelector('.move-text');"
        " return {value: i.value, disabled: i.disabled, placeholder: i.placeholder,"
        " focus: document.activeElement.className,"
        " message: document.querySelector('.message').textContent}; }"
    )
    return (
        f"{move} at ply {view['ply']} (game {view['game_number']}) not played: the page shows "
        f"{shown}, awaits {sorted(page.pending)}, raised {page.errors}; the server said "
        f"{SERVER_SAID[site][-5:]}"
    )


def person(browser: Any) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 860})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    pending: set[str] = set()  # the requests under way, to say which one a stalled test awaits
    page.on("request", lambda r: pending.add(f"{r.method} {r.url}"))
    page.on("requestfinished", lambda r: pending.discard(f"{r.method} {r.url}"))
    page.on("requestfailed", lambda r: pending.discard(f"{r.method} {r.url}"))
    page.pending = pending
    return context, page


def create_by_link(
    browser: Any,
    site: str,
    game: str,
    *,
    name: str = "",
    size: str = "",
    time_control: str = "",
) -> tuple[Any, Any, str]:
    """A person who creates a game by link from the Online form, as player 1: their browser
    context, their page and the game's id."""
    context, page = person(browser)
    page.goto(f"{site}/#/online")
    page.select_option(".online-game", game)
    if size:
        page.fill("#param-size", size)
    if time_control:
        page.fill(".online-time", time_control)
    if name:
        page.fill(".online-name", name)
    page.select_option(".online-seat", "1")
    page.click(".create-online")
    page.wait_for_selector(".invitation-link")
    return context, page, page.url.rsplit("/", 1)[-1]


def within_the_rate_limit(limits: RateLimits, seat: int) -> None:
    """Wait until the server lets `seat` move again: no faster than its rate limit of moves
    (`limits`, the server's own bucket with a little less room, for the time a move takes to
    reach it), which a fast machine would otherwise pass in a long match and be refused."""
    while True:
        try:
            limits.take(str(seat), "move")
            return
        except TooMany:
            time.sleep(0.02)


def held_secret(page: Any, game_id: str) -> str:
    seats = page.evaluate("() => JSON.parse(localStorage.getItem('abstractgames.seats') || '{}')")
    return str(seats[game_id]["secret"])


def test_two_people_play_order_and_chaos_by_link_and_a_watcher_follows(
    browser: Any,
    site: str,
    shots: Path,
) -> None:
    ann_context, ann, game_id = create_by_link(browser, site, "orderchaos", name="Ann")
    invitation = ann.input_value(".invitation-link")
    watch = ann.input_value(".watch-link")
    assert "#/seat/" in invitation and held_secret(ann, game_id) not in invitation
    ann.screenshot(path=str(shots / "online-created.png"))

    bob_context, bob = person(browser)
    bob.goto(invitation)
    bob.wait_for_function(
        "() => location.hash.startsWith('#/online/')"
    )  # the secret left the address
    bob.click(".seat-settings summary")
    bob.fill(".seat-name", "Bob")
    bob.click(".seat-name-button")
    ann.wait_for_function("() => document.querySelector('.cards').textContent.includes('Bob')")
    watcher_context, watcher = person(browser)
    watcher.goto(watch)
    secrets = {1: held_secret(ann, game_id), 2: held_secret(bob, game_id)}
    pages = {1: ann, 2: bob}
    reopened = False
    for _ in range(40):
        view = snapshot(site, game_id)
        if view["status"] == "finished":
            break
        seat = view["thinking"]
        mine = snapshot(site, game_id, secrets[seat])
        move = mine["legal"][len(mine["legal"]) // 2]["move"]
        page = pages[seat]
        page.wait_for_function(
            "() => !document.querySelector('.move-text').disabled", timeout=10_000
        )
        page.fill(".move-text", move)
        page.press(".move-text", "Enter")
        ply = view["ply"] + 1
        if ply == 4:  # the watcher's network drops for two moves, then it catches up
            watcher_context.set_offline(True)
        elif ply == 6:
            watcher_context.set_offline(False)
        screens = (ann, bob) if 4 <= ply < 6 else (ann, bob, watcher)
        if ply == 5:  # the watcher is cut off indeed
            time.sleep(0.5)
            assert move not in watcher.text_content(".move-list")
        for other in screens:  # each shows the move (how fast: benchmarks/server_load.py)
            other.wait_for_function(
                f"() => document.querySelector('.move-list').textContent.includes('{move}')"
                " || !document.querySelector('.banner').hidden",
                timeout=20_000,
            )
        if ply == 10 and not reopened:  # Bob closes his browser and comes back with his link
            bob_context.close()
            bob_context, bob = person(browser)
            bob.goto(invitation)
            bob.wait_for_function(
                f"() => document.querySelector('.move-list').textContent.includes('{move}')"
            )
            pages[2] = bob
            reopened = True
    assert view["status"] == "finished" or snapshot(site, game_id)["status"] == "finished"
    for page in (ann, bob, watcher):
        page.wait_for_selector(".banner:not([hidden])", timeout=10_000)
    assert watcher.locator(".move-text").is_hidden() or watcher.locator(".move-text").is_disabled()
    ann.screenshot(path=str(shots / "online-finished.png"))
    bob.click(".rematch-button")  # Bob asks for a rematch; Ann is offered it and takes it
    bob.wait_for_function(f"() => !location.hash.endsWith('{game_id}')")
    rematch = bob.url.rsplit("/", 1)[-1]
    ann.wait_for_selector(".rematch-button:has-text('Play the rematch')")
    ann.click(".rematch-button")
    ann.wait_for_function(f"() => location.hash.endsWith('{rematch}')")
    assert snapshot(site, rematch, held_secret(ann, rematch))["you"] == 2  # the sides swapped
    watcher.click(".replay-online")  # replayed on the server
    watcher.wait_for_selector(".move-list li")  # the replay's moves, once its record is read
    watcher.screenshot(path=str(shots / "online-watcher.png"))
    for page in (ann, bob, watcher):
        assert not page.errors, page.errors
    for context in (ann_context, bob_context, watcher_context):
        context.close()


def test_the_lobby_in_two_browsers(browser: Any, site: str, shots: Path) -> None:
    cy_context, cy = person(browser)
    cy.goto(f"{site}/#/online")
    cy.select_option(".online-game", "entropy")
    cy.fill(".online-name", "Cy")
    cy.fill(".online-time", "3 days a move")
    cy.click(".challenge-button")
    cy.wait_for_selector(".lobby .withdraw")
    di_context, di = person(browser)
    di.goto(f"{site}/#/online")
    di.wait_for_selector(".lobby .accept")
    di.screenshot(path=str(shots / "online-lobby.png"))
    di.click(".lobby .accept")
    di.wait_for_function("() => location.hash.startsWith('#/online/') && location.hash.length > 10")
    game_id = di.url.rsplit("/", 1)[-1]
    cy.wait_for_function(  # the game opens on Cy's page by itself, as the lobby said
        f"() => location.hash === '#/online/{game_id}'", timeout=10_000
    )
    cy.wait_for_selector(".cards")
    cy.wait_for_function(
        "() => document.querySelector('.time-control').textContent.includes('must move by')"
    )
    assert "3 days a move" in cy.inner_text(".time-control")
    deadline = time.monotonic() + 10
    while snapshot(site, game_id, held_secret(cy, game_id))["you"] is None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert cy.locator(".lobby .withdraw").count() == 0
    for page in (cy, di):
        assert not page.errors, page.errors
    cy_context.close()
    di_context.close()


@pytest.mark.parametrize(
    ("game", "time_control", "games", "restart_at"),
    [
        ("entropy", "30+5", {1, 2}, 20),
        ("dispersal", "3 days a move, at most 30 days a game", {1}, None),
    ],
)
def test_a_match_to_its_end_in_two_browsers(
    browser: Any,
    request: pytest.FixtureRequest,
    game: str,
    time_control: str,
    games: set[int],
    restart_at: int | None,
) -> None:
    """A live Entropy match (two games of 5x5), its server stopped for seven seconds at ply 20
    and started again, without either clock losing the time; a dispersal game by
    correspondence."""
    server = None if restart_at is None else request.getfixturevalue("restartable")
    site = request.getfixturevalue("site") if server is None else server.url
    size = "5" if game == "entropy" else ""
    ann_context, ann, game_id = create_by_link(
        browser, site, game, size=size, time_control=time_control
    )
    bob_context, bob = person(browser)
    bob.goto(ann.input_value(".invitation-link"))
    bob.wait_for_function("() => location.hash.startsWith('#/online/')")
    secrets = {1: held_secret(ann, game_id), 2: held_secret(bob, game_id)}
    pages = {1: ann, 2: bob}
    if "days" in time_control:  # the deadline of the player to move, on both screens
        bob.wait_for_function(
            "() => document.querySelector('.online-links').textContent.includes('must move by')"
        )
        assert "you must move by" in ann.text_content(".online-links")
    games_seen = set()
    seat = 1
    rate, burst = DEFAULT_LIMITS["move"]
    limits = RateLimits({"move": (rate, burst - 2)}, time.monotonic)
    limited = server is None  # the restartable server has no limits
    for _ in range(250):  # two games of 5x5 Entropy: 25 draws and placements, 25 slides each
        view = snapshot(site, game_id, secrets[seat])
        if view["status"] == "finished":
            break
        if server is not None and view["ply"] == restart_at:
            before, running = view["clocks"], view["running"]
            server.stop()
            time.sleep(7)  # no server: nobody can move, so no clock may run (more than the 6
            # a clock may lose below: the 3 s before time is given back, and the restart)
            server.start()
            after = snapshot(site, game_id)["clocks"]
            assert before[running - 1] - after[running - 1] < 6, (before, after)
            assert after[2 - running] == pytest.approx(before[2 - running], abs=0.01)
            server = None  # once
            continue
        if view["awaiting"] is None:  # the other seat is to move
            seat = view["thinking"]
            view = snapshot(site, game_id, secrets[seat])
        games_seen.add(view["game_number"])
        move = view["legal"][0]["move"]
        page = pages[seat]
        shows = f"document.querySelector('.game-view').dataset.version === '{view['ply']}'"
        page.wait_for_function(  # the page shows this ply (not the seat's turn before)
            f"() => {shows} && !document.querySelector('.move-text').disabled", timeout=10_000
        )
        if limited:
            within_the_rate_limit(limits, seat)
        page.fill(".move-text", move)  # typed into the move box, which has the focus,
        page.keyboard.press("Enter")  # and sent with Enter
        try:  # the page is answered and shows the game moved on
            page.wait_for_function(f"() => !({shows})", timeout=10_000)
        except PlaywrightTimeout:
            pytest.fail(stalled(page, site, view, move))
        seat = 3 - seat  # most often the other seat moves next (not after a game's last move)
    final = snapshot(site, game_id)
    assert final["status"] == "finished" and games_seen == games
    assert final["game"]["spec"] == (game + ":size=5" if size else game)  # 5x5, both
    assert len(final["finished_games"]) == len(games)
    for page in (ann, bob):
        page.wait_for_selector(".banner:not([hidden])", timeout=10_000)
        if game == "entropy":
            assert page.locator(".tally").is_visible()
        assert not page.errors, page.errors
    ann_context.close()
    bob_context.close()


def test_a_move_taken_back_by_agreement_in_two_browsers(
    browser: Any,
    site: str,
    shots: Path,
) -> None:
    ann_context, ann, game_id = create_by_link(browser, site, "orderchaos")
    bob_context, bob = person(browser)
    bob.goto(ann.input_value(".invitation-link"))
    watcher_context, watcher = person(browser)
    watcher.goto(f"{site}/#/online/{game_id}")
    for page, move, ply in ((ann, "X@a1", 0), (bob, "O@b2", 1)):
        page.wait_for_function(
            f"() => document.querySelector('.game-view').dataset.version === '{ply}'"
            " && !document.querySelector('.move-text').disabled"
        )
        page.fill(".move-text", move)
        page.press(".move-text", "Enter")
    ann.wait_for_function("() => document.querySelector('.game-view').dataset.version === '2'")
    assert "X@a1" in ann.text_content(".move-list")
    assert (
        ann.inner_text(".undo-button") == "Take back"
        and watcher.locator(".undo-button").is_hidden()
    )
    ann.click(".undo-button")  # Ann asks; Bob declines
    ann.wait_for_selector(".offer .withdraw-takeback")
    bob.wait_for_selector(".offer .decline-takeback")
    watcher.wait_for_function("() => document.querySelector('.offer').textContent.includes('asks')")
    bob.screenshot(path=str(shots / "online-takeback.png"))
    assert ann.locator(".undo-button").is_disabled()  # one request at a time
    bob.click(".offer .decline-takeback")
    ann.wait_for_selector(".offer", state="hidden")
    assert snapshot(site, game_id)["ply"] == 2
    ann.click(".undo-button")  # asked again, and accepted
    bob.click(".offer .accept-takeback")
    for page in (ann, bob, watcher):
        page.wait_for_function(
            "() => !document.querySelector('.move-list').textContent.includes('X@a1')"
        )
    ann.wait_for_function("() => !document.querySelector('.move-text').disabled")
    view = snapshot(site, game_id)
    assert view["plies"] == [] and view["thinking"] == 1 and view["offer"] is None
    for page in (ann, bob, watcher):
        assert not page.errors, page.errors
    for context in (ann_context, bob_context, watcher_context):
        context.close()


class RestartableServer:
    """`abstractgames serve --public` on a port of its own, stopped and started again there;
    without rate limits (its tests play fast matches; the limits have their own tests)."""

    def __init__(self, data: Path) -> None:
        with socket.socket() as probe:  # a port of our own, for the server to come back on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.env = {**os.environ, "ABSTRACTGAMES_DATA": str(data), "PYTHONUNBUFFERED": "1"}
        self.command = [sys.executable, "-m", "abstractgames", "serve", "--public"]
        self.command += ["--port", str(port), "--database", str(data / "games.db")]
        self.command += ["--no-rate-limits"]
        self.url = f"http://127.0.0.1:{port}"
        self.process = self._start()

    def _start(self) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            self.command,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stderr is not None
        while "serving on" not in (line := process.stderr.readline()):
            assert line, "the server did not start"
        threading.Thread(target=process.stderr.read, daemon=True).start()  # never a full pipe
        return process

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)

    def start(self) -> None:
        self.process = self._start()


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[RestartableServer]:
    server = RestartableServer(tmp_path)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.slow
def test_a_page_goes_back_to_its_socket_after_the_server_restarts(
    browser: Any,
    restartable: RestartableServer,
) -> None:
    url = restartable.url
    made = json.loads(
        urllib.request.urlopen(
            urllib.request.Request(
                f"{url}/api/online",
                data=json.dumps({"game": "orderchaos", "seat": 1}).encode(),
                headers={"Content-Type": "application/json", "Origin": url},
            ),
            timeout=20,
        ).read()
    )
    game_id, ann = made["id"], made["secret"]
    context, page = person(browser)
    sockets: list[Any] = []
    page.on("websocket", lambda ws: sockets.append(ws))
    page.goto(f"{url}/#/online/{game_id}")
    page.wait_for_selector(".connection[data-mode='live']")
    restartable.stop()
    page.wait_for_selector(".connection[data-mode='polling']")  # the page says so
    page.wait_for_timeout(6000)  # past the few failed sockets after which the page polls
    opened_before = len(sockets)
    restartable.start()
    deadline = time.monotonic() + 20
    while len(sockets) == opened_before or sockets[-1].is_closed():
        assert time.monotonic() < deadline, "the page never went back to its socket"
        page.wait_for_timeout(100)
    page.wait_for_selector(".connection[data-mode='live']")
    live = sockets[-1]
    frames: list[float] = []
    live.on("framereceived", lambda _: frames.append(time.monotonic()))
    page.wait_for_timeout(300)  # its first snapshot
    sent = time.monotonic()
    request = urllib.request.Request(
        f"{url}/api/online/{game_id}/move",
        data=json.dumps({"move": "X@c3", "ply": 0}).encode(),
        headers={"Content-Type": "application/json", "Origin": url, "X-Seat": ann},
    )
    urllib.request.urlopen(request, timeout=20).read()
    page.wait_for_function(
        "() => document.querySelector('.move-list').textContent.includes('X@c3')",
        timeout=5000,
    )
    assert [t for t in frames if t > sent], "the move came by polling, not by the socket"
    assert not live.is_closed() and not page.errors, page.errors
    context.close()


def test_more_days_by_agreement_and_the_claim_in_two_browsers(
    browser: Any,
    site: str,
) -> None:
    ann_context, ann, game_id = create_by_link(
        browser, site, "orderchaos", time_control="2 days a move"
    )
    invitation = ann.input_value(".invitation-link")
    bob_context, bob = person(browser)
    bob.goto(invitation)
    bob.wait_for_selector(".cards")
    before = snapshot(site, game_id)["deadline"]
    ann.select_option(".extension-days", "3")
    ann.click(".ask-extension")
    bob.wait_for_selector(".offer:has-text('Your opponent asks for 3 more days')")
    bob.click(".accept-extension")
    deadline = time.monotonic() + 10
    while snapshot(site, game_id)["deadline"] < before + 3 * 86_400 - 60:
        assert time.monotonic() < deadline, "the days were not given"
        time.sleep(0.1)
    ann.wait_for_selector(".ask-extension")  # the offer answered, she may ask again
    for context in (ann_context, bob_context):
        context.close()

    cy_context, cy, untimed = create_by_link(browser, site, "orderchaos")
    cy.wait_for_function("() => !document.querySelector('.move-text').disabled")
    cy.fill(".move-text", "X@c3")
    cy.press(".move-text", "Enter")
    cy.wait_for_selector(".offer:has-text('you may claim the match')")  # in three days
    assert not cy.errors and snapshot(site, untimed)["claimable_from"] > time.time() + 86_400
    cy_context.close()


@pytest.mark.slow
def test_a_healthy_socket_stays_open_past_the_request_timer_and_the_pings(
    browser: Any,
    tmp_path: Path,
) -> None:
    """The 30-second request timer and the 20-second pings, scaled to a second each: a page
    held open for five times that keeps its one socket, live."""
    from tests.web.test_online_sockets import public_server as threaded_server
    from tests.web.test_online_sockets import request

    with threaded_server(tmp_path, request_timeout=1.0, ping_interval=1.0) as url:
        made = request(url, "/api/online", {"game": "orderchaos", "seat": 1})
        context, page = person(browser)
        sockets: list[Any] = []
        page.on("websocket", lambda ws: sockets.append(ws))
        page.goto(f"{url}/#/online/{made['id']}")
        page.wait_for_selector(".connection[data-mode='live']")
        page.wait_for_timeout(5000)
        assert len(sockets) == 1 and not sockets[0].is_closed()
        assert page.get_attribute(".connection", "data-mode") == "live"
        request(url, f"/api/online/{made['id']}/move", {"move": "X@c3", "ply": 0}, made["secret"])
        page.wait_for_function(
            "() => document.querySelector('.move-list').textContent.includes('X@c3')",
            timeout=3000,
        )
        assert len(sockets) == 1 and not page.errors, page.errors
        context.close()
