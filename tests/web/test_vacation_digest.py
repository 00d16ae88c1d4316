"""Being told and being away, through the game server's API with a simulated clock: vacations
(`abstractgames.web.vacation`: a player on vacation is not flagged, the claim against them
waits, the allowance is kept per calendar year, only the account itself takes its vacation)
and the daily digest (`abstractgames.web.digest`: one e-mail a day per address, to a real SMTP
server run here, even from two server processes)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")

from starlette.testclient import TestClient

from abstractgames.web.database import Database
from abstractgames.web.digest import Digests
from abstractgames.web.notify import Notifier
from abstractgames.web.online import CLAIM_DAYS

from .test_accounts import Clock, account, app_on, browser, play_a_move, post
from .test_notify import smtp, wait_until  # noqa: F401  (fixtures)

SITE = "http://testserver"
DAY = 86_400.0


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    with Database.open(tmp_path / "games.db") as db:
        yield db


def utc(*when: int) -> float:
    return dt.datetime(*when, tzinfo=dt.UTC).timestamp()  # type: ignore[misc]


def a_game(ann: TestClient, bob: TestClient, time_control: str) -> tuple[str, str, str]:
    """A game Ann makes (seat 2) and Bob's account claims (seat 1, to move): its id and the
    two seats' secrets."""
    made = post(ann, "/api/online", {"game": "orderchaos", "seat": 2, "time_control": time_control})
    assert made.status_code == 201, made.text
    game = made.json()
    claimed = post(bob, "/api/account/claim", {"secrets": [game["invitation"]]})
    assert claimed.json()["claimed"] == [game["id"]]
    return game["id"], game["secret"], game["invitation"]


def view(client: TestClient, game_id: str, secret: str | None = None) -> Any:
    headers = {"X-Seat": secret} if secret else {}
    return client.get(f"/api/online/{game_id}", headers=headers).json()


def test_a_player_on_vacation_is_not_flagged_and_the_allowance_is_kept(
    database: Database,
) -> None:
    clock = Clock()
    clock.now = utc(2030, 8, 1, 12)  # a session lasts 180 days: to 2031
    app = app_on(database, clock)
    with TestClient(app, base_url=SITE):
        online = app.state.web.online
        ann, bob = browser(app), browser(app)
        account(ann, "Ann")
        account(bob, "Bob")
        game_id, _, bob_secret = a_game(ann, bob, "1 days a move")
        assert view(ann, game_id)["deadline"] == clock.now + DAY
        # only a signed-in account takes a vacation, its own, within bounds
        assert browser(app).get("/api/account/vacation").status_code == 403
        assert post(browser(app), "/api/account/vacation", {"days": 3}).status_code == 403
        for wrong in (0, -1, 367, "3", 2.5, None, True):
            answer = post(bob, "/api/account/vacation", {"days": wrong})
            assert answer.status_code == 400, (wrong, answer.text)
        assert post(bob, "/api/account/vacation", {"days": 16}).status_code == 400
        assert post(bob, "/api/account/vacation/end", {}).status_code == 409  # none to end
        started = post(bob, "/api/account/vacation", {"days": 3})
        assert started.status_code == 200, started.text
        assert started.json() == {
            "days_per_year": 15,
            "used": 3,
            "left": 12,
            "until": clock.now + 3 * DAY,
        }
        assert view(ann, game_id)["deadline"] == clock.now + 4 * DAY  # pushed back
        assert view(ann, game_id)["away_until"] == clock.now + 3 * DAY
        assert post(bob, "/api/account/vacation", {"days": 1}).status_code == 409  # on it already
        assert ann.get("/api/account/vacation").json()["used"] == 0  # Ann's is her own
        # two days on, and three and a half: Bob's day a move has not run out
        for days in (2.0, 1.5):
            clock.now += days * DAY
            online.games.sweep()
            assert view(ann, game_id)["status"] == "playing"
        assert view(ann, game_id)["away_until"] is None
        play_a_move(bob, game_id, bob_secret)  # half of his day taken
        # Ann, not on vacation, loses on time as before
        clock.now += 1.01 * DAY
        online.games.sweep()
        finished = view(ann, game_id)
        assert finished["status"] == "finished" and "time" in str(finished["result"])
        # the allowance: 15 days a calendar year, 3 used
        refused = post(bob, "/api/account/vacation", {"days": 13})
        assert refused.status_code == 409 and "12 left" in refused.json()["error"]
        assert post(bob, "/api/account/vacation", {"days": 12}).json()["left"] == 0
        clock.now += 3600  # ended after an hour, it counts the one day it began
        assert post(bob, "/api/account/vacation/end", {}).json()["used"] == 4
        assert post(bob, "/api/account/vacation", {"days": 12}).status_code == 409
        assert post(bob, "/api/account/vacation", {"days": 11}).json()["left"] == 0
        clock.now = utc(2030, 12, 31, 12)  # a day of 2030 and one of 2031: 2030's are used
        refused = post(bob, "/api/account/vacation", {"days": 2})
        assert refused.status_code == 409 and "2030" in refused.json()["error"]
        clock.now = utc(2031, 1, 1, 12)
        assert post(bob, "/api/account/vacation", {"days": 15}).json()["used"] == 15


def test_the_claim_against_a_player_on_vacation_waits(database: Database) -> None:
    clock = Clock()
    app = app_on(database, clock, vacation_days=5)
    with TestClient(app, base_url=SITE):
        ann, bob = browser(app), browser(app)
        account(ann, "Ann")
        account(bob, "Bob")
        game_id, ann_secret, _ = a_game(ann, bob, "none")
        started = clock.now
        assert post(bob, "/api/account/vacation", {"days": 6}).status_code == 400  # 5 a year
        assert post(bob, "/api/account/vacation", {"days": 2}).status_code == 200
        assert view(ann, game_id, ann_secret)["claimable_from"] == started + (CLAIM_DAYS + 2) * DAY
        clock.now = started + (CLAIM_DAYS + 1) * DAY
        early = post(ann, f"/api/online/{game_id}/claim", {"ply": 0}, ann_secret)
        assert early.status_code == 409 and "24.0 hours" in early.json()["error"]
        clock.now = started + (CLAIM_DAYS + 2) * DAY + 1
        claimed = post(ann, f"/api/online/{game_id}/claim", {"ply": 0}, ann_secret)
        assert claimed.status_code == 200, claimed.text


def test_one_daily_digest_per_address_even_from_two_servers(
    database: Database,
    smtp: Any,  # noqa: F811
) -> None:
    settings, inbox = smtp
    clock = Clock()
    clock.now = utc(2030, 3, 1, 5)  # before the digests' hour (7 UTC)
    app = app_on(database, clock, notifier=Notifier(settings))
    with TestClient(app, base_url=SITE):
        online = app.state.web.online
        ann, bob = browser(app), browser(app)
        account(ann, "Ann")
        account(bob, "Bob", email="bob@example.org")
        assert post(bob, "/api/account/digest", {"digest": True}).json()["digest"] is True
        assert post(ann, "/api/account/digest", {"digest": True}).status_code == 400  # no address
        assert post(browser(app), "/api/account/digest", {"digest": True}).status_code == 403
        first, ann_first, bob_first = a_game(ann, bob, "3 days a move")
        second, ann_second, bob_second = a_game(ann, bob, "3 days a move")
        a_game(ann, bob, "5+3")  # a live game is in no digest
        # Ann's seats give her address and choose the digest: no e-mail a move for them
        for game_id, secret in ((first, ann_first), (second, ann_second)):
            chosen = post(
                ann,
                f"/api/online/{game_id}/notifications",
                {"email": "ann@example.org", "digest": True},
                secret,
            )
            assert chosen.json()["digest"] is True, chosen.text
        play_a_move(bob, second, bob_second)  # Ann's move in the second game: not mailed now
        assert online.digests.send_due() == 0  # too early in the day
        clock.now = utc(2030, 3, 1, 7, 30)
        other = Digests(database, online.games, Notifier(settings))  # a second server process
        assert other.send_due() + online.digests.send_due() == 2
        assert other.send_due() == online.digests.send_due() == 0  # once a day
        wait_until(lambda: len(inbox.messages) == 2)
        mails = {to[0]: message for to, message in inbox.messages}
        assert mails["bob@example.org"]["Subject"] == "Your move in 1 game (2030-03-01)"
        text = mails["bob@example.org"].get_content()
        assert f"#/online/{first}" in text and second not in text  # the game's page
        ann_text = mails["ann@example.org"].get_content()
        assert mails["ann@example.org"]["Subject"] == "Your move in 1 game (2030-03-01)"
        assert f"#/seat/{second}/" in ann_text and first not in ann_text  # her seat's link
        clock.now = utc(2030, 3, 2, 8)  # the next day, again
        play_a_move(bob, first, bob_first)  # Ann's move in both now; Bob's in none
        assert online.digests.send_due() == 1
        wait_until(lambda: len(inbox.messages) == 3)  # no e-mail a move went to Ann
        assert inbox.messages[2][1]["Subject"] == "Your move in 2 games (2030-03-02)"
        a_game(ann, bob, "3 days a move")  # a new game, Bob to move
        clock.now = utc(2030, 3, 3, 8)
        assert online.digests.send_due() == 2  # Bob's new game, Ann's two
        wait_until(lambda: len(inbox.messages) == 5)
        assert post(bob, "/api/account/digest", {"digest": False}).json()["digest"] is False
        clock.now = utc(2030, 3, 4, 8)
        assert online.digests.send_due() == 1  # Ann's seats' alone
        wait_until(lambda: len(inbox.messages) == 6)
        other.notifier.close()  # type: ignore[union-attr]
