"""An account in two browsers (two independent Chromium contexts) on a `serve --public` server: a
person makes an account and a game in one, signs in with the recovery code in the other, finds
the game among their games there and moves in it; their page shows them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="the test extra is not installed")

from tests.web.test_online_browser import person, site, snapshot  # noqa: F401  (site: a fixture)


def test_a_person_signs_in_on_a_second_browser_and_moves_in_their_game(
    browser: Any,
    site: str,  # noqa: F811
    shots: Path,
) -> None:
    laptop_context, laptop = person(browser)
    laptop.goto(f"{site}/#/online")
    laptop.click(".account summary")
    laptop.fill(".account-name", "Ann")
    laptop.click(".make-account")
    code = laptop.text_content(".recovery-code")
    assert code and len(code) == 29
    laptop.click(".recovery-kept")
    laptop.wait_for_selector(".account-shown")
    laptop.select_option(".online-game", "orderchaos")
    laptop.select_option(".online-seat", "1")
    laptop.click(".create-online")
    laptop.wait_for_selector(".invitation-link")
    game_id = laptop.url.rsplit("/", 1)[-1]
    assert snapshot(site, game_id)["seats"][0]["name"] == "Ann"  # named as the account
    laptop_context.close()  # the first browser is gone: its storage with it

    phone_context, phone = person(browser)
    phone.goto(f"{site}/#/online")
    phone.click(".account summary")
    phone.fill(".account-name", "ann")
    phone.fill(".account-code", code.lower())
    phone.click(".sign-in")
    phone.wait_for_selector(".account-shown")
    phone.click(f".my-online a[href='#/online/{game_id}']")
    phone.wait_for_function("() => !document.querySelector('.move-text').disabled", timeout=30_000)
    phone.fill(".move-text", "X@c3")
    phone.press(".move-text", "Enter")
    for _ in range(600):  # at most 30 s, on a loaded machine
        if snapshot(site, game_id)["ply"] == 1:
            break
        phone.wait_for_timeout(50)
    assert [p["move"] for p in snapshot(site, game_id)["plies"]] == ["X@c3"]
    phone.screenshot(path=str(shots / "account-second-browser.png"))
    phone.goto(f"{site}/players/Ann")
    phone.wait_for_selector(".player h1")
    assert phone.text_content(".player h1") == "Ann"
    assert not phone.errors
    phone_context.close()
