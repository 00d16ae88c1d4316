"""Accounts on the game server (`abstractgames.web.accounts`, `accounts_api`), through the app's
API: names reserved against case and look-alike tricks, signing in on a second browser by
recovery code or by a one-time e-mailed link, seats claimed and opened anywhere, forged cookies,
tokens used twice or too late, blocked accounts, the rate limits, and ratings on players'
pages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")

from starlette.testclient import TestClient

from abstractgames.web.accounts import SESSION_DAYS, name_key
from abstractgames.web.app import create_app
from abstractgames.web.database import Database, NameTaken, hash_secret
from abstractgames.web.moderation import Moderation
from abstractgames.web.notify import Notifier
from abstractgames.web.online import OnlineGames
from abstractgames.web.online_api import OnlineServer

from .postgres import postgres_url  # noqa: F401  (a fixture)
from .test_database import url  # noqa: F401  (a fixture: each kind of database)
from .test_notify import smtp, wait_until  # noqa: F401  (fixtures)

SITE = "http://testserver"
COOKIE = "abstractgames-account"


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    with Database.open(tmp_path / "games.db") as db:
        yield db


@pytest.fixture
def clock() -> Clock:
    return Clock()


def app_on(database: Database, clock: Clock, **options: Any) -> Any:
    notifier = options.pop("notifier", None)
    games = OnlineGames(database, clock=clock, notifier=notifier, base_url=SITE)
    return create_app(online=OnlineServer(database, games, **options), public=True)


@pytest.fixture
def app(database: Database, clock: Clock) -> Iterator[Any]:
    made = app_on(database, clock, limits={"account": (1.0, 100.0)})
    with TestClient(made, base_url=SITE):  # runs the app's lifespan (its server's threads)
        yield made


def browser(app: Any) -> TestClient:
    """A browser of its own: its own cookies, on the same server."""
    return TestClient(app, base_url=SITE)


def post(client: TestClient, path: str, body: Any, secret: str | None = None) -> Any:
    headers = {"Origin": SITE}
    if secret is not None:
        headers["X-Seat"] = secret
    return client.post(path, json=body, headers=headers)


def account(client: TestClient, name: str, **more: Any) -> dict[str, Any]:
    made = post(client, "/api/account", {"name": name, **more})
    assert made.status_code == 200, made.text
    data: dict[str, Any] = made.json()
    return data


def play_a_move(client: TestClient, game_id: str, secret: str) -> str:
    view = client.get(f"/api/online/{game_id}", headers={"X-Seat": secret}).json()
    assert view["awaiting"] == view["you"] is not None, view
    move = view["legal"][0]["move"]
    played = post(client, f"/api/online/{game_id}/move", {"move": move, "ply": view["ply"]}, secret)
    assert played.status_code == 200, played.text
    return str(move)


def test_names_are_reserved_whatever_their_case_accents_or_look_alike_letters(app: Any) -> None:
    ann = browser(app)
    made = account(ann, "Ann_K")
    assert made["account"]["name"] == "Ann_K"
    assert re.fullmatch(r"([A-Z2-9]{4}-){5}[A-Z2-9]{4}", made["recovery_code"])
    assert ann.get("/api/account").json()["account"]["name"] == "Ann_K"
    squatter = browser(app)
    for taken in ("ann_k", "ANN-K", "annk", "Аnn_К", "Ann_k "):  # the last two: Cyrillic, a space
        refused = post(squatter, "/api/account", {"name": taken})
        assert refused.status_code in (400, 409), (taken, refused.text)
    for bad in ("Admin", "a", "x" * 25, "Ann K", "<b>", "Ａnn", "-ann"):
        assert post(squatter, "/api/account", {"name": bad}).status_code == 400, bad
    assert name_key("Ａｎｎ＿Ｋ") == name_key("ANNK") == name_key("Ann\u200b_K")
    # no one else names a seat after an account or the server, in any disguise
    for name in ("ANN K", "Ａｎｎ_Ｋ", "Annk\u200b", "АDMIN", "server"):
        refused = post(squatter, "/api/online", {"game": "orderchaos", "name": name})
        assert refused.status_code == 409, (name, refused.text)
        assert post(squatter, "/api/lobby", {"game": "orderchaos", "name": name}).status_code == 409
    # its owner may, and is named so without asking
    mine = post(ann, "/api/online", {"game": "orderchaos", "seat": 1, "name": "ann k"}).json()
    other = post(ann, "/api/online", {"game": "orderchaos", "seat": 1}).json()
    assert mine["game"]["seats"][0]["name"] == other["game"]["seats"][0]["name"] == "Ann_K"
    # nor renames a seat so, and a seat bound to the account keeps its name
    free = post(squatter, "/api/online", {"game": "orderchaos", "seat": 1, "name": "Sam"}).json()
    assert (
        post(
            squatter, f"/api/online/{free['id']}/name", {"name": "ann-k"}, free["secret"]
        ).status_code
        == 409
    )
    kept = post(ann, f"/api/online/{mine['id']}/name", {"name": "Zed"}, mine["invitation"])
    assert kept.status_code == 200  # the other seat, bound to nobody
    renamed = post(squatter, f"/api/online/{mine['id']}/name", {"name": "Zed"}, mine["secret"])
    assert renamed.status_code == 409  # Ann's seat, by someone holding its link unsigned


def test_a_second_browser_signs_in_with_the_recovery_code_and_moves_in_the_game(app: Any) -> None:
    ann = browser(app)
    code = account(ann, "Ann")["recovery_code"]
    made = post(ann, "/api/online", {"game": "orderchaos", "seat": 1}).json()
    game_id, bob_secret = made["id"], made["invitation"]
    phone = browser(app)
    assert phone.get("/api/account").json()["account"] is None
    assert phone.get("/api/account/games").status_code == 403
    wrong = post(phone, "/api/account/sign-in", {"name": "Ann", "code": "AAAA-" * 5 + "AAAA"})
    assert wrong.status_code == 403
    assert post(phone, "/api/account/sign-in", {"name": "nobody", "code": code}).status_code == 403
    signed = post(phone, "/api/account/sign-in", {"name": "ann", "code": code.lower()})
    assert signed.status_code == 200 and signed.json()["account"]["name"] == "Ann"
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    (line,) = phone.get("/api/account/games").json()["games"]
    assert (line["id"], line["seat"], line["your_move"]) == (game_id, 1, True)
    token = line["secret"]
    assert token != made["secret"]
    seen = phone.get(f"/api/online/{game_id}", headers={"X-Seat": token}).json()
    assert seen["you"] == 1 and seen["legal"]
    play_a_move(phone, game_id, token)
    play_a_move(browser(app), game_id, bob_secret)
    play_a_move(ann, game_id, made["secret"])  # the first browser's link still holds the seat
    assert ann.get(f"/api/online/{game_id}").json()["ply"] == 3
    # signing out ends that session, and that session only
    assert post(phone, "/api/account/sign-out", {}).json() == {"account": None}
    assert phone.get("/api/account/games").status_code == 403
    assert ann.get("/api/account").json()["account"]["name"] == "Ann"


def test_forged_and_stolen_looking_cookies_and_tokens_sign_nobody_in(app: Any) -> None:
    ann = browser(app)
    account(ann, "Ann")
    made = post(ann, "/api/online", {"game": "orderchaos", "seat": 1}).json()
    real = ann.cookies.get(COOKIE)
    assert real
    forger = browser(app)
    for forged in (real[:-1] + ("A" if real[-1] != "A" else "B"), "x" * 500, "", "null"):
        forger.cookies.set(COOKIE, forged)
        assert forger.get("/api/account").json()["account"] is None
        assert forger.get("/api/account/games").status_code == 403
        forger.cookies.clear()
    # a seat token made for one account, seat or game opens nothing else
    token = ann.get("/api/account/games").json()["games"][0]["secret"]
    other = post(forger, "/api/online", {"game": "orderchaos", "seat": 1}).json()
    assert forger.get(f"/api/online/{other['id']}", headers={"X-Seat": token}).json()["you"] is None
    assert (
        post(
            forger, f"/api/online/{made['id']}/move", {"move": "X@a1", "ply": 0}, token[::-1]
        ).status_code
        == 403
    )
    for bad in ("", "x" * 300):
        assert post(forger, "/api/account/token", {"token": bad}).status_code in (400, 403)


def test_claiming_the_seats_of_games_made_before_signing_in(app: Any) -> None:
    anonymous = browser(app)
    first = post(anonymous, "/api/online", {"game": "orderchaos", "seat": 1, "name": "me"}).json()
    second = post(anonymous, "/api/online", {"game": "orderchaos", "seat": 2}).json()
    account(anonymous, "Ann")
    assert anonymous.get("/api/account/games").json()["games"] == []
    claimed = post(
        anonymous, "/api/account/claim", {"secrets": [first["secret"], second["secret"], "junk"]}
    )
    assert sorted(claimed.json()["claimed"]) == sorted([first["id"], second["id"]])
    lines = anonymous.get("/api/account/games").json()["games"]
    assert {(g["id"], g["seat"]) for g in lines} == {(first["id"], 1), (second["id"], 2)}
    seen = anonymous.get(f"/api/online/{first['id']}").json()
    assert seen["seats"][0]["name"] == "Ann"
    # another account holding the same link cannot take the seat over
    thief = browser(app)
    account(thief, "Thief")
    taken = post(thief, "/api/account/claim", {"secrets": [first["secret"]]})
    assert taken.json()["claimed"] == [] and thief.get("/api/account/games").json()["games"] == []
    assert (
        post(browser(app), "/api/account/claim", {"secrets": [first["secret"]]}).status_code == 403
    )
    # a challenge made signed in binds the creator's seat when it is accepted, the acceptor's too
    challenge = post(anonymous, "/api/lobby", {"game": "orderchaos", "seat": 1}).json()
    accepted = post(thief, f"/api/lobby/{challenge['id']}/accept", {}).json()
    seats = thief.get(f"/api/online/{accepted['id']}").json()["seats"]
    assert [s["name"] for s in seats] == ["Ann", "Thief"]
    assert accepted["id"] in {g["id"] for g in anonymous.get("/api/account/games").json()["games"]}


def test_a_sign_in_link_by_email_works_once_and_not_when_too_old(
    database: Database,
    clock: Clock,
    smtp: Any,  # noqa: F811
) -> None:
    settings, inbox = smtp
    app = app_on(database, clock, notifier=Notifier(settings))
    with TestClient(app, base_url=SITE):
        ann = browser(app)
        assert ann.get("/api/account").json()["sends_links"] is True
        account(ann, "Ann", email="ann@example.org")
        phone = browser(app)
        assert post(phone, "/api/account/link", {"name": "nobody"}).json() == {"sent": True}
        assert post(phone, "/api/account/link", {"name": "ANN"}).json() == {"sent": True}
        wait_until(lambda: len(inbox.messages) == 1)
        to, message = inbox.messages[0]
        assert to == ["ann@example.org"] and message["Subject"] == "Sign in as Ann"
        token = re.search(r"#/sign-in/(\S+)", message.get_content()).group(1)  # type: ignore[union-attr]
        signed = post(phone, "/api/account/token", {"token": token})
        assert signed.status_code == 200 and signed.json()["account"]["name"] == "Ann"
        again = post(browser(app), "/api/account/token", {"token": token})
        assert again.status_code == 403 and "used already" in again.json()["error"]
        post(phone, "/api/account/link", {"name": "Ann"})
        wait_until(lambda: len(inbox.messages) == 2)
        late = re.search(r"#/sign-in/(\S+)", inbox.messages[1][1].get_content()).group(1)  # type: ignore[union-attr]
        clock.now += 21 * 60
        assert post(browser(app), "/api/account/token", {"token": late}).status_code == 403
        # a session lasts its days, and no longer
        assert phone.get("/api/account").json()["account"] is not None
        clock.now += SESSION_DAYS * 86_400
        assert phone.get("/api/account").json()["account"] is None


def test_a_server_without_mail_offers_the_recovery_code_alone(app: Any) -> None:
    anybody = browser(app)
    assert anybody.get("/api/account").json()["sends_links"] is False
    refused = post(anybody, "/api/account/link", {"name": "Ann"})
    assert refused.status_code == 400 and "recovery code" in refused.json()["error"]
    account(anybody, "Ann")
    new = post(anybody, "/api/account/recovery", {}).json()["recovery_code"]
    phone = browser(app)
    assert post(phone, "/api/account/sign-in", {"name": "Ann", "code": new}).status_code == 200


def test_making_accounts_and_signing_in_are_rate_limited(database: Database, clock: Clock) -> None:
    app = app_on(database, clock, limits={"account": (0.001, 2.0), "sign-in": (0.001, 3.0)})
    with TestClient(app, base_url=SITE):
        client = browser(app)
        made = [post(client, "/api/account", {"name": f"p{n}x"}).status_code for n in range(3)]
        assert made == [200, 200, 429]
        tries = [
            post(client, "/api/account/sign-in", {"name": "p0x", "code": "x"}).status_code
            for _ in range(4)
        ]
        assert tries == [403, 403, 403, 429]


def test_a_blocked_account_is_signed_out_and_its_seats_no_longer_open_for_it(
    app: Any, database: Database
) -> None:
    ann = browser(app)
    code = account(ann, "Ann")["recovery_code"]
    made = post(ann, "/api/online", {"game": "orderchaos", "seat": 1}).json()
    token = ann.get("/api/account/games").json()["games"][0]["secret"]
    Moderation(database).block("ann")
    assert ann.get("/api/account").json()["account"] is None
    refused = post(browser(app), "/api/account/sign-in", {"name": "Ann", "code": code})
    assert refused.status_code == 403 and "blocked" in refused.json()["error"]
    wait_until(
        lambda: (
            ann.get(f"/api/online/{made['id']}", headers={"X-Seat": token}).json()["you"] is None
        )
    )
    assert post(browser(app), "/api/account", {"name": "ANN"}).status_code == 409  # still reserved
    Moderation(database).unblock("Ann")
    assert (
        post(browser(app), "/api/account/sign-in", {"name": "Ann", "code": code}).status_code == 200
    )


def test_a_game_between_two_accounts_is_rated_and_shown_on_their_pages(app: Any) -> None:
    ann, bob = browser(app), browser(app)
    account(ann, "Ann")
    account(bob, "Bob")
    challenge = post(ann, "/api/lobby", {"game": "orderchaos", "seat": 1}).json()
    game = post(bob, f"/api/lobby/{challenge['id']}/accept", {}).json()
    play_a_move(ann, game["id"], ann.get("/api/account/games").json()["games"][0]["secret"])
    assert post(bob, f"/api/online/{game['id']}/resign", {}, game["secret"]).status_code == 200
    page = ann.get("/api/players/ANN").json()
    assert page["name"] == "Ann"
    assert page["ratings"] == [{"game": "orderchaos", "rating": 1662, "deviation": 290, "games": 1}]
    (line,) = page["games"]
    assert (line["id"], line["result"], line["opponent"]) == (game["id"], "won", "Bob")
    assert line["rating"] == {"game": "orderchaos", "before": 1500.0, "after": 1662.3}
    assert ann.get("/api/players/bob").json()["ratings"][0]["rating"] == 1338
    assert (
        ann.get(f"/api/online/{game['id']}/record").status_code == 200
    )  # the record, downloadable
    # a game against a bot, or an abandoned one, moves no rating
    bot = post(ann, "/api/online", {"game": "orderchaos", "seat": 1, "opponent": "random"}).json()
    post(ann, f"/api/online/{bot['id']}/resign", {}, bot["secret"])
    assert ann.get("/api/players/Ann").json()["ratings"][0]["games"] == 1
    assert ann.get("/api/players/nobody").status_code == 404
    assert ann.get("/players/Ann", follow_redirects=False).headers["location"] == "/#/players/Ann"


def test_accounts_sessions_claims_and_ratings_in_the_store(url: str) -> None:  # noqa: F811
    """On SQLite and PostgreSQL alike: a name's key is unique, a one-time token works once, a
    rated game moves both ratings in its own transaction, once."""
    with Database.open(url) as db:
        ann = db.create_account("Ann", "ann", email=None, recovery_hash=None, now=1.0)
        bob = db.create_account("Bob", "bob", email=None, recovery_hash=None, now=1.0)
        with pytest.raises(NameTaken):
            db.create_account("ANN", "ann", email=None, recovery_hash=None, now=1.0)
        db.add_sign_in_token("t", ann.id, 100.0)
        assert db.use_sign_in_token("t", 50.0) == ann and db.use_sign_in_token("t", 50.0) is None
        db.add_session("s", ann.id, 1.0, 100.0)
        assert db.session("s", 2.0) == ann and db.session("s", 200.0) is None
        seats = [(hash_secret("a"), "x"), (hash_secret("b"), None)]
        game_id = db.create_game("orderchaos:size=6", {}, seats, None, 1.0)
        assert db.bind_seats(ann.id, [hash_secret("a")], "Ann") == [game_id]
        assert db.bind_seats(bob.id, [hash_secret("a"), hash_secret("b")], "Bob") == [game_id]
        assert [s.account_id for s in db.game(game_id).seats] == [ann.id, bob.id]
        db.add_move(game_id, 0, "X@a1", 2.0, result={"winner": 2, "reason": "r", "scores": []})
        (mine,) = db.ratings(ann.id)
        assert (mine["game"], round(mine["rating"]), mine["games"]) == ("orderchaos", 1338, 1)
        assert round(db.ratings(bob.id)[0]["rating"]) == 1662
        assert db.game_ratings([game_id])[game_id]["2"]["after"] == 1662.3
        db.set_account(ann.id, blocked=True)
        assert db.session("s", 2.0) is None and db.game(game_id).seats[0].account_blocked


def test_the_moderation_page_is_the_operators_and_aborts_and_blocks(
    app: Any, database: Database
) -> None:
    ann, bob = browser(app), browser(app)
    account(ann, "Ann")
    account(bob, "Bob")
    game = post(bob, "/api/online", {"game": "orderchaos", "seat": 1}).json()
    assert ann.get("/api/moderation").status_code == 403
    assert post(bob, f"/api/moderation/games/{game['id']}/abort", {}).status_code == 403
    assert browser(app).get("/api/moderation").status_code == 403
    Moderation(database).make_operator("ann")
    seen = ann.get("/api/moderation").json()
    assert [g["id"] for g in seen["games"]] == [game["id"]]
    assert {a["name"] for a in seen["accounts"]} == {"Ann", "Bob"}
    assert post(ann, f"/api/moderation/games/{game['id']}/abort", {}).json() == {
        "aborted": game["id"]
    }
    assert ann.get("/api/moderation").json()["games"][0]["status"] == "aborted"
    shown = bob.get(f"/api/online/{game['id']}").json()  # the game's page says why it stopped
    assert (shown["status"], shown["error"]) == ("failed", "aborted by the server's operator")
    assert post(ann, f"/api/moderation/games/{game['id']}/abort", {}).status_code == 409
    assert post(ann, "/api/moderation/accounts/BOB/block", {}).json()["blocked"] is True
    assert bob.get("/api/account").json()["account"] is None
    assert post(ann, "/api/moderation/accounts/nobody/block", {"blocked": False}).status_code == 404
