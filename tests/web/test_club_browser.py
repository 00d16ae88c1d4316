"""A round robin of three people in three browsers (independent Chromium contexts) on a public
server whose clock the test moves: they sign in, sign up in the lobby, and play it to its end,
one game by moves, one by a resignation, one lost on time by correspondence after two days
pass; the standings and the ratings update on the pages. Screenshots go to
ABSTRACTGAMES_SCREENSHOTS if it is set (the docs' pictures, `club-*.png`)."""

from __future__ import annotations

import functools
import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api", reason="the test extra is not installed")

from tests.web.test_online_browser import PlaywrightTimeout, person


class MovedClock:
    """The time now, plus the days the test lets pass."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


def call(site: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    method = "GET" if data is None else "POST"
    request = urllib.request.Request(f"{site}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Origin", site)
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.loads(answer.read())


@pytest.fixture
def club(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, MovedClock]]:
    """A public server on a clock the test moves; the downtime it would give back for the days
    that jump by is not given (no server was down)."""
    from abstractgames.web import server
    from abstractgames.web.online import OnlineGames
    from tests.web.test_online_sockets import public_server

    clock = MovedClock()
    monkeypatch.setattr(server, "OnlineGames", functools.partial(OnlineGames, clock=clock))
    monkeypatch.setattr(OnlineGames, "give_back_downtime", lambda self: 0.0)
    with public_server(tmp_path) as site:
        yield site, clock


def sign_in(browser: Any, site: str, name: str, code: str) -> tuple[Any, Any]:
    context, page = person(browser)
    page.goto(f"{site}/#/online")
    page.click(".account summary")
    page.fill(".account-name", name)
    page.fill(".account-code", code)
    page.click(".sign-in")
    page.wait_for_selector(".account-shown")
    return context, page


def open_my_game(page: Any, site: str, game_id: str) -> None:
    """Open a tournament game from the list of one's games in the Online section."""
    page.goto(f"{site}/#/online")
    page.click(f".my-online a[href='#/online/{game_id}']", timeout=30_000)
    page.wait_for_selector(".cards")


def play(page: Any, move: str, ply: int) -> None:
    page.wait_for_function(
        f"() => document.querySelector('.game-view').dataset.version === '{ply}'"
        " && !document.querySelector('.move-text').disabled",
        timeout=30_000,
    )
    page.fill(".move-text", move)
    page.press(".move-text", "Enter")


def test_three_people_play_a_round_robin_to_its_end(
    browser: Any,
    club: tuple[str, MovedClock],
    shots: Path,
) -> None:
    site, clock = club
    names = ["Ann", "Bob", "Cy"]
    codes = {name: call(site, "/api/account", {"name": name})["recovery_code"] for name in names}
    pages = {}
    contexts = []
    for name in names:
        context, page = sign_in(browser, site, name, codes[name])
        pages[name] = page
        contexts.append(context)
    ann = pages["Ann"]

    ann.click(".tournament-form summary")
    ann.fill(".tournament-title", "Tuesday club")
    ann.select_option(".tournament-game", "orderchaos")
    ann.fill(".tournament-time", "1 days a move")
    ann.click(".make-tournament")
    for name in names:  # each signs up in the lobby, which shows the others as they do
        pages[name].click(".tournament .join-tournament", timeout=30_000)
        pages[name].wait_for_selector(".tournament .leave-tournament")
    ann.wait_for_function(
        "() => document.querySelector('.tournament').textContent.includes('Ann, Bob, Cy')"
    )
    ann.click(".tournament-form summary")  # the form folded again
    ann.locator(".club-tournaments").screenshot(path=str(shots / "club-lobby.png"))
    ann.click(".tournament .start-tournament")
    # The lobby redraws its list when the start reaches it: a click across that redraw is lost.
    ann.wait_for_function(
        "() => document.querySelector('.tournament .tournament-state').textContent"
        ".startsWith('round 1 of')"
    )
    ann.click(".tournament-link")
    ann.wait_for_selector(".standings")
    tournament_id = ann.url.rsplit("/", 1)[-1]

    def pairing(round_number: int) -> dict[str, Any]:
        """The round's game between two players, once it is made: the round is paired just
        after the last game of the one before ends (and shows that it ended), then its games
        are made."""
        deadline = time.monotonic() + 30
        while True:
            data = call(site, f"/api/online/tournaments/{tournament_id}")
            if data["round"] == round_number:
                board = next(
                    b
                    for b in data["rounds_played"][round_number - 1]["games"]
                    if b["status"] != "bye"
                )
                if board["game_id"] is not None:
                    return dict(board)
            assert time.monotonic() < deadline, data
            time.sleep(0.05)

    def game_over(page: Any, game_id: str) -> None:
        """Wait until `page` shows the game's result; else fail with what it and the server
        show."""
        try:
            page.wait_for_selector(".banner:not([hidden])", timeout=30_000)
        except PlaywrightTimeout:
            shown = page.evaluate(
                "() => ({hash: location.hash, version: document.querySelector('.game-view')"
                "?.dataset.version, message: document.querySelector('.message')?.textContent})"
            )
            game = call(site, f"/api/online/{game_id}")
            pytest.fail(
                f"no result shown: the page shows {shown}, raised {page.errors}; the server has "
                f"{ {k: game.get(k) for k in ('status', 'ply', 'awaiting', 'result', 'clocks')} }"
            )

    # round 1, by moves: Order makes five in a row while Chaos plays away from it
    board = pairing(1)
    first, second = pages[board["first"]], pages[board["second"]]
    open_my_game(first, site, board["game_id"])
    open_my_game(second, site, board["game_id"])
    bye = next(n for n in names if n not in (board["first"], board["second"]))
    watcher = pages[bye]
    watcher.goto(f"{site}/#/online/tournament/{tournament_id}")
    watcher.wait_for_selector(".standings")
    order = ["X@a1", "X@b1", "X@c1", "X@d1", "X@e1"]
    chaos = ["O@a6", "O@b6", "O@c6", "O@d6"]
    for ply in range(9):
        play(first if ply % 2 == 0 else second, (order if ply % 2 == 0 else chaos)[ply // 2], ply)
    game_over(first, board["game_id"])
    # the page of the one sitting out shows the result in the standings at once, and round 2
    watcher.wait_for_function(
        "() => [...document.querySelectorAll('.standing')].some(r => "
        f"r.textContent.includes('{board['first']}')"
        " && r.querySelector('.points').textContent === '1')",
        timeout=30_000,
    )
    watcher.wait_for_selector(".round h3:has-text('Round 2')")

    # round 2: one resigns, in the game opened from the tournament's page (their seat, not
    # a watcher's view, though the round was paired after that page kept their seats)
    board = pairing(2)
    loser = pages[board["second"]]
    loser.goto(f"{site}/#/online/tournament/{tournament_id}")
    loser.click(f".board-game[href='#/online/{board['game_id']}']", timeout=30_000)
    loser.wait_for_selector(".resign-button", timeout=30_000)
    loser.click(".resign-button")
    loser.click(".confirm-ok")
    game_over(loser, board["game_id"])

    # round 3, by correspondence: the first to move lets two days pass and loses on time
    board = pairing(3)
    late = pages[board["first"]]
    open_my_game(late, site, board["game_id"])
    clock.offset += 2 * 86_400
    game_over(late, board["game_id"])

    ann.goto(f"{site}/#/online/tournament/{tournament_id}")
    ann.wait_for_function(
        "() => document.querySelector('.club-tournament .tournament-state')?.textContent"
        " === 'finished'",
        timeout=30_000,
    )
    final = call(site, f"/api/online/tournaments/{tournament_id}")
    assert [b["status"] for r in final["rounds_played"] for b in r["games"]].count("finished") == 3
    assert sum(s["points"] for s in final["standings"]) == 3
    assert all(s["rating"] is not None and s["rating"] != 1500 for s in final["standings"])
    shown = ann.locator(".standing .rating").all_text_contents()
    assert shown == [str(s["rating"]) for s in final["standings"]]
    ann.locator(".club-tournament").screenshot(path=str(shots / "club-standings.png"))
    ann.goto(f"{site}/#/players/Ann")
    ann.wait_for_selector(".ratings .rating")
    assert ann.text_content(".ratings .rating") == str(
        next(s["rating"] for s in final["standings"] if s["name"] == "Ann")
    )
    ann.locator(".player").screenshot(path=str(shots / "club-player.png"))
    for page in pages.values():
        assert not page.errors, page.errors
    for context in contexts:
        context.close()
