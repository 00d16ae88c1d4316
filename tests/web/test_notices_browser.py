"""Being told it is your move, in two browsers (two Chromium contexts) on a `serve --public`
server: Ann makes an account and a correspondence game, asks to be notified and hides her page;
when Bob moves, her page's title and icon are marked and the browser's notification is shown
(`window.Notification` stubbed to count); the Online section's list marks it too. Then the
operator's moderation page. Screenshots go to ABSTRACTGAMES_SCREENSHOTS if it is set (the
pictures of docs/club.md)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="the test extra is not installed")

from tests.web.test_online_browser import person, snapshot
from tests.web.test_online_server import public_server

NOTIFICATIONS = """
window.shownNotes = [];
window.pageHidden = false;
let allowed = "default";
window.Notification = class {
  constructor(title, options) { window.shownNotes.push([title, options && options.body]); }
  static get permission() { return allowed; }
  static requestPermission() { allowed = "granted"; return Promise.resolve(allowed); }
};
Object.defineProperty(document, "visibilityState", {
  configurable: true, get: () => (window.pageHidden ? "hidden" : "visible"),
});
"""
"""A spy in place of the browser's notifications, and a page that may say it is hidden."""


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory, browser: Any) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("club")
    database = data / "games.db"
    with public_server(data, str(database)) as (_, url):
        yield url, database


def test_a_waiting_move_marks_the_title_and_icon_and_notifies_a_hidden_page(
    browser: Any,
    club: tuple[str, Path],
    shots: Path,
) -> None:
    site, database = club
    ann_context, ann = person(browser)
    ann_context.grant_permissions(["notifications"])
    ann_context.add_init_script(NOTIFICATIONS)
    ann.goto(f"{site}/#/online")
    ann.click(".account summary")
    ann.fill(".account-name", "Ann")
    ann.click(".make-account")
    ann.wait_for_selector(".recovery-code")
    ann.locator(".account-panel").screenshot(path=str(shots / "club-account.png"))
    ann.click(".recovery-kept")
    ann.wait_for_selector(".account-shown")
    ann.select_option(".online-game", "orderchaos")
    ann.fill(".online-time", "3 days a move")
    ann.select_option(".online-seat", "1")
    ann.click(".create-online")
    ann.wait_for_selector(".invitation-link")
    game_id = ann.url.rsplit("/", 1)[-1]
    invitation = ann.input_value(".invitation-link")
    ann.click(".notify-me")  # the browser is asked only now
    ann.wait_for_selector(".notice-state:has-text('Notifications on')")
    ann.wait_for_function("() => document.title.startsWith('● Your move')")  # her first move
    assert ann.get_attribute("link[rel=icon]", "data-marked") == "yes"
    ann.fill(".move-text", "X@c3")
    ann.press(".move-text", "Enter")
    ann.wait_for_function("() => !document.title.startsWith('● Your move')")
    assert ann.get_attribute("link[rel=icon]", "data-marked") == "no"
    ann.evaluate("() => { window.pageHidden = true; }")  # she looks at another tab

    bob_context, bob = person(browser)
    bob.goto(invitation)
    bob.click(".seat-settings summary")
    bob.fill(".seat-name", "Bob")
    bob.click(".seat-name-button")
    bob.wait_for_function(
        "() => { const i = document.querySelector('.move-text'); return i && !i.disabled; }",
        timeout=10_000,
    )
    bob.fill(".move-text", "O@d4")
    bob.press(".move-text", "Enter")
    ann.wait_for_function("() => document.title.startsWith('● Your move')", timeout=10_000)
    assert ann.get_attribute("link[rel=icon]", "data-marked") == "yes"
    notes = ann.evaluate("() => window.shownNotes")
    assert notes == [["Your move", "Stephen Sniderman's Order and Chaos: your opponent moved"]], (
        notes
    )
    assert bob.evaluate("() => document.title.startsWith('● Your move')") is False
    assert snapshot(site, game_id)["ply"] == 2

    ann.goto(f"{site}/#/online")  # the list of her games says it too
    ann.wait_for_selector(f".my-online li.your-move a[href='#/online/{game_id}']")
    ann.wait_for_function("() => document.title.startsWith('● Your move')")
    ann.click(".vacation summary")
    ann.wait_for_selector(".vacation-state:has-text('15 of 15')")
    top = ann.locator("h2:has-text('Your online games')").bounding_box()
    end = ann.locator(".my-online").bounding_box()
    assert top is not None and end is not None
    down = float(ann.evaluate("() => window.scrollY"))  # the boxes are the viewport's
    ann.screenshot(
        path=str(shots / "club-your-move.png"),
        full_page=True,
        clip={
            "x": 0,
            "y": top["y"] + down - 8,
            "width": 760,
            "height": end["y"] + end["height"] - top["y"] + 16,
        },
    )

    command = ["server", "admin", "make-operator", "Ann", "--database", str(database)]
    made = subprocess.run(
        [sys.executable, "-m", "abstractgames", *command],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    ann.goto(f"{site}/#/moderation")
    ann.wait_for_selector(".moderated-account:has-text('Ann')")
    ann.locator(".moderation").screenshot(path=str(shots / "club-moderation.png"))
    for page in (ann, bob):
        assert not page.errors, page.errors
    ann_context.close()
    bob_context.close()
