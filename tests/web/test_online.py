"""Online games (`abstractgames.web.online`, `online_api`): seats held by secrets, every action a
step of the referee committed to the database before it is acknowledged, the lobby, the clocks
enforced with nobody connected, the API's refusals."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")

from starlette.testclient import TestClient

from abstractgames import IllegalMoveError, get_game
from abstractgames.records import ClockSettings, MatchRecord
from abstractgames.web.app import create_app
from abstractgames.web.database import Database
from abstractgames.web.errors import BadRequest, Conflict, Forbidden, NotFound
from abstractgames.web.notify import Notifier
from abstractgames.web.online import OnlineGames, Pace, hash_secret
from abstractgames.web.online_api import OnlineServer

from .test_notify import smtp, wait_until, webhook  # noqa: F401  (fixtures)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    with Database.open(tmp_path / "games.db") as db:
        yield db


@pytest.fixture
def games(database: Database, clock: FakeClock) -> Iterator[OnlineGames]:
    online = OnlineGames(database, clock=clock)
    yield online
    online.close()


def first_legal(games: OnlineGames, game_id: str, secret: str) -> tuple[str, int]:
    view = games.snapshot(game_id, secret)
    assert view["awaiting"] == view["you"], view["status"]
    return view["legal"][0]["move"], view["ply"]


def test_two_seats_with_their_own_secrets_and_a_watcher(games: OnlineGames) -> None:
    game_id, mine, theirs = games.create(get_game("orderchaos"), seat=1, name="Ann")
    assert theirs is not None and mine != theirs and len(mine) >= 22 and len(theirs) >= 22
    assert games.seat_of(game_id, mine) == 1 and games.seat_of(game_id, theirs) == 2
    assert games.seat_of(game_id, None) is None and games.seat_of(game_id, "") is None
    assert games.seat_of(game_id, mine[:-1] + ("A" if mine[-1] != "A" else "B")) is None
    row = games.database.game(game_id)
    assert [s.secret_hash for s in row.seats] == [hash_secret(mine), hash_secret(theirs)]

    ann, bob, watcher = (games.snapshot(game_id, s) for s in (mine, theirs, None))
    assert ann["you"] == 1 and ann["awaiting"] == 1 and ann["legal"]
    assert bob["you"] == 2 and bob["awaiting"] is None and bob["legal"] == []
    assert watcher["you"] is None and watcher["awaiting"] is None and watcher["legal"] == []
    assert [s["name"] for s in watcher["seats"]] == ["Ann", None]
    assert [p["human"] for p in ann["players"]] == [True, False]
    for view in (ann, bob, watcher):
        text = json.dumps(view)
        assert mine not in text and theirs not in text and hash_secret(mine) not in text
        assert view["seed"] is None  # the draws to come are nobody's business


def test_only_the_seat_to_move_moves_and_a_move_sent_twice_is_played_once(
    games: OnlineGames,
) -> None:
    game_id, ann, bob = games.create(get_game("orderchaos"), seat=1)
    assert bob is not None
    with pytest.raises(Forbidden, match="watcher"):
        games.play(game_id, None, "X@a1", 0)
    with pytest.raises(Forbidden):
        games.play(game_id, "not-a-secret", "X@a1", 0)
    with pytest.raises(Conflict, match="not your turn"):
        games.play(game_id, bob, "X@a1", 0)
    with pytest.raises(IllegalMoveError):
        games.play(game_id, ann, "X@z9", 0)
    assert games.play(game_id, ann, "x@a1", 0) == "X@a1"
    with pytest.raises(Conflict, match="at ply 1"):
        games.play(game_id, ann, "X@a1", 0)  # the retry of a move already played
    with pytest.raises(Conflict):
        games.play(game_id, bob, "O@b2", 0)  # stale ply, right seat
    assert games.play(game_id, bob, "O@b2", 1) == "O@b2"
    assert [p["move"] for p in games.snapshot(game_id)["plies"]] == ["X@a1", "O@b2"]
    with pytest.raises(NotFound):
        games.snapshot("nosuchgame")


def test_a_whole_game_is_stored_and_its_record_replays(games: OnlineGames) -> None:
    game_id, ann, bob = games.create(get_game("orderchaos"), seat=2)
    assert bob is not None
    seats = {2: ann, 1: bob}
    for _ in range(40):
        view = games.snapshot(game_id)
        if view["status"] == "finished":
            break
        secret = seats[view["thinking"]]
        move, ply = first_legal(games, game_id, secret)
        games.play(game_id, secret, move, ply)
    assert view["status"] == "finished" and view["result"]["winner"] in (1, 2)
    record = games.record_of(game_id)
    assert record.finished and MatchRecord.loads(record.dumps()).replay()
    with pytest.raises(Conflict, match="over"):
        games.resign(game_id, ann)


def test_resigning_on_the_opponents_turn_and_names(games: OnlineGames) -> None:
    game_id, ann, bob = games.create(get_game("orderchaos"), seat=1)
    with pytest.raises(BadRequest):
        games.rename(game_id, ann, "x" * 100)
    assert games.rename(game_id, bob, "  Bob   B ") == "Bob B"
    assert games.snapshot(game_id)["seats"][1]["name"] == "Bob B"
    assert games.resign(game_id, bob) == 2  # Ann is to move
    view = games.snapshot(game_id)
    assert view["status"] == "finished" and view["result"]["winner"] == 1


@pytest.mark.parametrize("ply", [None, 0])
def test_a_resignation_after_a_move_made_meanwhile_is_tried_again_unless_sent_at_a_ply(
    games: OnlineGames, monkeypatch: pytest.MonkeyPatch, ply: int | None
) -> None:
    game_id, ann, bob = games.create(get_game("orderchaos"), seat=1)
    read = games._current
    moved: list[str] = []

    def read_then_ann_moves(game_id: str) -> Any:
        current = read(game_id)
        if not moved:  # as a bot's move commits between Bob's read and his resignation's write
            monkeypatch.setattr(games, "_current", read)
            moved.append(games.play(game_id, ann, *first_legal(games, game_id, ann)))
        return current

    monkeypatch.setattr(games, "_current", read_then_ann_moves)
    if ply is not None:  # sent for a position that is gone: refused
        with pytest.raises(Conflict, match="moved on"):
            games.resign(game_id, bob, ply)
        assert not games.record_of(game_id).finished
        return
    assert games.resign(game_id, bob) == 2
    record = games.record_of(game_id)
    assert record.finished and [m.move for m in record.games[0].moves] == moved


def test_a_game_against_a_bot_of_the_server(games: OnlineGames) -> None:
    with pytest.raises(Forbidden):
        games.create(get_game("orderchaos"), opponent="engine:/bin/sh")
    with pytest.raises(Forbidden):
        games.create(get_game("orderchaos"), opponent="bot.py:Bot")
    with pytest.raises(BadRequest):
        games.create(get_game("orderchaos"), opponent="human")
    game_id, ann, none = games.create(get_game("orderchaos"), seat=2, opponent="greedy")
    assert none is None
    deadline = time.monotonic() + 20
    while games.snapshot(game_id, ann)["awaiting"] != 2:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    view = games.snapshot(game_id, ann)
    assert view["ply"] == 1 and view["players"][0]["spec"] == "greedy"
    assert games.games_of([ann])[0]["your_move"]


def test_a_live_flag_falls_with_nobody_connected(games: OnlineGames, clock: FakeClock) -> None:
    game_id, _, _ = games.create(get_game("orderchaos"), seat=1, pace=Pace.parse("1+0"))
    assert games.database.game(game_id).deadline == pytest.approx(clock.now + 60)
    clock.now += 30
    assert games.sweep() == 0
    clock.now += 31
    assert games.sweep() == 1
    view = games.snapshot(game_id)
    assert view["status"] == "finished" and view["result"]["winner"] == 2
    assert "time" in view["result"]["reason"]


def test_entropy_live_timeout_moves_then_play_goes_on(games: OnlineGames, clock: FakeClock) -> None:
    game_id, _, bob = games.create(get_game("entropy", size=5), seat=1, pace=Pace.parse("1+0"))
    assert bob is not None
    clock.now += 61  # Ann (Chaos first) lets her clock run out
    assert games.sweep() == 1
    view = games.snapshot(game_id, bob)
    assert view["status"] == "playing" and view["awaiting"] == 2  # her moves are made for her
    assert any(p["auto"] for p in view["plies"])
    assert view["notices"] == [
        "player 1 ran out of time: their moves are made for them for the rest of this game"
    ]


def test_correspondence_days_and_the_entropy_match_lost_on_time(
    games: OnlineGames, clock: FakeClock
) -> None:
    pace = Pace.parse("2 days a move")
    game_id, ann, bob = games.create(get_game("entropy", size=5), seat=2, pace=pace)
    assert bob is not None
    clock.now += 86_400  # a day: Bob (Chaos) moves in time
    move, ply = first_legal(games, game_id, bob)
    games.play(game_id, bob, move, ply)
    clock.now += 3 * 86_400  # Ann, to move, takes three
    assert games.sweep() == 1
    view = games.snapshot(game_id, ann)
    assert view["status"] == "finished" and view["result"]["winner"] == 1  # the match


def test_the_lobby(games: OnlineGames) -> None:
    challenge_id, creator = games.challenge(get_game("orderchaos"), seat=1, name="Cy")
    assert [c.id for c in games.database.challenges()] == [challenge_id]
    with pytest.raises(Forbidden):
        games.withdraw(challenge_id, "someone else")
    game_id, acceptor = games.accept(challenge_id, "Di")
    assert games.database.challenges() == []
    assert games.seat_of(game_id, creator) == 1 and games.seat_of(game_id, acceptor) == 2
    assert [g["id"] for g in games.games_of([creator])] == [game_id]
    with pytest.raises(NotFound):
        games.withdraw(challenge_id, creator)


# --- the API ------------------------------------------------------------------------------------


@pytest.fixture
def client(database: Database) -> Iterator[TestClient]:
    server = OnlineServer(database, limits={"create": (0.001, 5.0), "move": (0.001, 30.0)})
    app = create_app(online=server, public=True)
    with TestClient(app, base_url="http://testserver") as test_client:
        yield test_client


def post(client: TestClient, path: str, body: Any, secret: str | None = None) -> Any:
    headers = {"Origin": "http://testserver"}
    if secret is not None:
        headers["X-Seat"] = secret
    return client.post(path, json=body, headers=headers)


def test_the_api_plays_a_game_by_link(client: TestClient) -> None:
    made = post(client, "/api/online", {"game": "orderchaos", "seat": 1, "name": "Ann"})
    assert made.status_code == 201, made.text
    data = made.json()
    game_id, ann, bob = data["id"], data["secret"], data["invitation"]
    assert data["game"]["awaiting"] == 1
    bad = post(client, f"/api/online/{game_id}/move", {"move": "X@a1", "ply": 0}, bob)
    assert bad.status_code == 409
    watcher = post(client, f"/api/online/{game_id}/move", {"move": "X@a1", "ply": 0})
    assert watcher.status_code == 403
    assert post(client, f"/api/online/{game_id}/move", {"move": "X@a1", "ply": 0}, ann).json() == {
        "move": "X@a1"
    }
    again = post(client, f"/api/online/{game_id}/move", {"move": "X@a1", "ply": 0}, ann)
    assert again.status_code == 409 and "moved on" in again.json()["error"]
    seen = client.get(f"/api/online/{game_id}", headers={"X-Seat": bob}).json()
    assert seen["awaiting"] == 2 and seen["legal"]
    assert client.get(f"/api/online/{game_id}").json()["legal"] == []
    assert client.get(f"/api/online/{game_id}/record").status_code == 400  # not over yet
    assert client.get(f"/api/online/{game_id}/replay").status_code == 400
    assert post(client, f"/api/online/{game_id}/resign", {}, bob).json() == {"resigned": 2}
    record = client.get(f"/api/online/{game_id}/record")
    assert record.status_code == 200 and MatchRecord.loads(record.text).finished
    replay = client.get(f"/api/online/{game_id}/replay").json()
    assert replay["finished"] and [p["move"] for p in replay["games"][0]["plies"]] == ["X@a1"]
    mine = post(client, "/api/online/mine", {"secrets": [ann, "nonsense"]}).json()["games"]
    assert [g["id"] for g in mine] == [game_id]


def test_the_api_refuses_what_it_must(client: TestClient) -> None:
    for body in (
        {"game": "nosuchgame"},
        {"game": "orderchaos", "time_control": "soon"},
        {"game": "orderchaos", "seat": 3},
        {"game": "orderchaos", "extra": 1},
        {"game": "orderchaos", "opponent": "human"},
    ):
        answer = post(client, "/api/online", body)
        assert answer.status_code == 400, (body, answer.text)
    program = post(client, "/api/online", {"game": "orderchaos", "opponent": "engine:sh"})
    assert program.status_code == 403
    assert program.json()["error"].startswith("engine:sh is an external program:")
    other = client.post(
        "/api/online", json={"game": "orderchaos"}, headers={"Origin": "http://evil.example"}
    )
    assert other.status_code == 403
    huge = client.post(
        "/api/online",
        content=json.dumps({"game": "orderchaos", "name": "x" * 100_000}),
        headers={"Origin": "http://testserver", "Content-Type": "application/json"},
    )
    assert huge.status_code == 413
    assert client.get("/api/online/nosuchgame").status_code == 404


def test_a_public_server_offers_only_online_play(database: Database, tmp_path: Path) -> None:
    saved = tmp_path / "games"
    saved.mkdir()
    (saved / "mine.json").write_text("{}")
    app = create_app(online=OnlineServer(database), public=True, save_dir=saved)
    with TestClient(app, base_url="http://testserver") as client:
        assert client.get("/api/catalog").json()["public"] is True  # no token asked
        assert client.get("/api/records").json()["records"] == []  # the operator's stay theirs
        assert client.get("/api/records/mine.json").status_code == 404
        for path, body in (
            ("/api/games", {"game": "orderchaos", "players": ["human", "greedy"]}),
            ("/api/tournaments", {"game": "orderchaos", "players": ["random", "greedy"]}),
        ):
            refused = post(client, path, body)
            assert refused.status_code == 403 and "public" in refused.json()["error"]
        assert post(client, "/api/online", {"game": "orderchaos"}).status_code == 201


def test_the_api_limits_how_fast_a_client_creates_games(client: TestClient) -> None:
    answers = [post(client, "/api/online", {"game": "orderchaos"}).status_code for _ in range(7)]
    assert answers.count(201) <= 5 and answers[-1] == 429


def test_the_api_lobby_and_a_watchers_socket(client: TestClient) -> None:
    made = post(client, "/api/lobby", {"game": "orderchaos", "seat": 2, "name": "Cy"})
    assert made.status_code == 201
    challenge_id, creator = made.json()["id"], made.json()["secret"]
    listed = client.get("/api/lobby").json()["challenges"]
    assert [c["id"] for c in listed] == [challenge_id] and "creator_hash" not in json.dumps(listed)
    accepted = post(client, f"/api/lobby/{challenge_id}/accept", {"name": "Di"})
    assert accepted.status_code == 201
    game_id, acceptor = accepted.json()["id"], accepted.json()["secret"]
    assert post(client, f"/api/lobby/{challenge_id}/accept", {}).status_code == 404
    with client.websocket_connect(
        f"/api/online/{game_id}/ws", headers={"Origin": "http://testserver"}
    ) as socket:
        socket.send_text("{}")
        first = socket.receive_json()
        assert first["ply"] == 0 and first["you"] is None
        move = client.get(f"/api/online/{game_id}", headers={"X-Seat": acceptor}).json()
        assert move["awaiting"] == 1
        played = post(
            client,
            f"/api/online/{game_id}/move",
            {"move": move["legal"][0]["move"], "ply": 0},
            acceptor,
        )
        assert played.status_code == 200
        update = socket.receive_json()
        while update["ply"] == 0:
            update = socket.receive_json()
        assert update["ply"] == 1 and update["plies"][-1]["move"] == played.json()["move"]
    assert client.get(f"/api/online/{game_id}", headers={"X-Seat": creator}).json()["you"] == 2


def test_correspondence_players_are_told_by_email_and_webhook(
    database: Database,
    clock: FakeClock,
    smtp: Any,  # noqa: F811
    webhook: Any,  # noqa: F811
) -> None:
    settings, inbox = smtp
    notifier = Notifier(settings, private_webhooks=True)
    games = OnlineGames(database, notifier=notifier, clock=clock, base_url="http://x")
    try:
        pace = Pace.parse("2 days a move")
        game_id, ann, bob = games.create(get_game("orderchaos"), seat=1, pace=pace)
        assert bob is not None
        hook = f"http://127.0.0.1:{webhook.server_address[1]}/hook"
        games.set_notifications(game_id, bob, email="bob@example.org", webhook=hook)
        with pytest.raises(Forbidden):
            games.set_notifications(game_id, None, email="eve@example.org", webhook=None)
        with pytest.raises(BadRequest):
            games.set_notifications(game_id, ann, email="not an address", webhook=None)
        clock.now += 86_400
        games.play(game_id, ann, "X@c3", 0)  # Bob is told it is his move
        wait_until(lambda: len(inbox.messages) == 1 and len(webhook.received) == 1)
        ((to, message),) = inbox.messages
        assert to == ["bob@example.org"] and "Your move in" in message["Subject"]
        text = message.get_content()
        assert "X@c3" in text and f"Your seat: http://x/#/seat/{game_id}/" in text
        token = text.split(f"#/seat/{game_id}/")[1].split()[0]
        assert games.snapshot(game_id, token)["you"] == 2  # the link opens Bob's seat anywhere
        assert games.seat_of(game_id, token) == 2 and token != bob
        assert webhook.received[0]["body"]["event"] == "your-move"
        assert webhook.received[0]["body"]["link"] == f"http://x/#/online/{game_id}"  # no secret
        clock.now += 3 * 86_400  # nobody connected; Bob's two days pass
        assert games.sweep() == 1
        wait_until(lambda: len(inbox.messages) == 2 and len(webhook.received) == 2)
        assert "over" in inbox.messages[1][1]["Subject"]
        assert webhook.received[1]["body"]["event"] == "game-over"
        assert "time" in webhook.received[1]["body"]["text"]
        assert ann not in json.dumps(webhook.received) and bob not in json.dumps(webhook.received)
        assert token not in json.dumps(webhook.received)
        games.set_notifications(game_id, bob, email=None, webhook=None)
        assert games.seat_of(game_id, token) is None  # no e-mail, no seat link by e-mail
        assert games.seat_of(game_id, games.mail_token(game_id, 1)) is None  # Ann gave none
    finally:
        games.close()


def test_moves_are_limited_per_seat_not_per_address(database: Database) -> None:
    server = OnlineServer(database, limits={"create": (0.001, 5.0), "move": (0.001, 3.0)})
    app = create_app(online=server, public=True)
    with TestClient(app, base_url="http://testserver") as client:
        made = post(client, "/api/online", {"game": "orderchaos", "seat": 1}).json()
        game_id, ann, bob = made["id"], made["secret"], made["invitation"]
        assert post(client, f"/api/online/{game_id}/name", {"name": "A"}, ann).status_code == 200
        assert post(client, f"/api/online/{game_id}/name", {"name": "A"}, ann).status_code == 200
        assert (
            post(client, f"/api/online/{game_id}/move", {"move": "X@a1", "ply": 0}, ann).status_code
            == 200
        )
        limited = post(client, f"/api/online/{game_id}/move", {"move": "X@a2", "ply": 1}, ann)
        assert limited.status_code == 429 and "too many" in limited.json()["error"]
        # Bob, at the same address, has his own allowance
        assert (
            post(client, f"/api/online/{game_id}/move", {"move": "O@b2", "ply": 1}, bob).status_code
            == 200
        )


@pytest.mark.parametrize("spec", ["orderchaos", "entropy:size=5", "dispersal"])
def test_every_game_plays_online_from_its_start_or_a_position(
    games: OnlineGames, spec: str
) -> None:
    from abstractgames import parse_game_spec

    game = parse_game_spec(spec)
    game_id, ann, bob = games.create(game, seat=1, pace=Pace.parse("5+3"))
    assert bob is not None
    seats = {1: ann, 2: bob}
    for _ in range(8):
        view = games.snapshot(game_id)
        secret = seats[view["thinking"]]
        mine = games.snapshot(game_id, secret)
        games.play(game_id, secret, mine["legal"][len(mine["legal"]) // 2]["move"], mine["ply"])
    record = games.record_of(game_id)
    assert sum(1 for g in record.games for m in g.moves if m.player is not None) >= 8
    record.replay()  # the stored record holds to the rules
    later = games.snapshot(game_id)["position"]["position"]
    other, first, _ = games.create(game, seat=1, start=game.from_position(later))
    view = games.snapshot(other, first)
    assert view["start"] == later and view["position"]["position"] == later


def test_the_api_guards_the_lobby_and_a_seats_settings(client: TestClient) -> None:
    made = post(client, "/api/lobby", {"game": "orderchaos"}).json()
    headers = {"Origin": "http://testserver"}
    other = client.delete(f"/api/lobby/{made['id']}", headers={**headers, "X-Seat": "guess"})
    assert other.status_code == 403
    assert client.delete(f"/api/lobby/{made['id']}", headers=headers).status_code == 403
    mine = client.delete(f"/api/lobby/{made['id']}", headers={**headers, "X-Seat": made["secret"]})
    assert mine.status_code == 200 and client.get("/api/lobby").json()["challenges"] == []
    assert client.delete(f"/api/lobby/{made['id']}", headers=headers).status_code == 404
    game = post(
        client, "/api/online", {"game": "orderchaos", "time_control": "1 day a move"}
    ).json()
    path = f"/api/online/{game['id']}/notifications"
    assert post(client, path, {"webhook": "http://127.0.0.1:9/x"}).status_code == 403  # a watcher
    refused = post(client, path, {"email": "a@example.org"}, game["secret"])
    assert refused.status_code == 400 and "no e-mail" in refused.json()["error"]  # no SMTP here
    assert post(client, path, {"webhook": "file:///etc/passwd"}, game["secret"]).status_code == 400
    assert post(client, path, {"nonsense": 1}, game["secret"]).status_code == 400


def test_a_rematch_swaps_the_sides_and_keeps_the_links(games: OnlineGames) -> None:
    game_id, ann, bob = games.create(
        get_game("orderchaos"), seat=1, name="Ann", pace=Pace.parse("5+3")
    )
    assert bob is not None
    with pytest.raises(Conflict, match="over"):
        games.rematch(game_id, ann)
    games.resign(game_id, bob)
    with pytest.raises(Forbidden):
        games.rematch(game_id, None)
    again = games.rematch(game_id, bob)
    assert games.rematch(game_id, ann) == again  # asked twice: one rematch
    assert games.snapshot(game_id)["rematch"] == again
    assert games.seat_of(again, ann) == 2 and games.seat_of(again, bob) == 1
    view = games.snapshot(again, bob)
    assert view["awaiting"] == 1 and view["time_control"] == "5+3"
    assert [s["name"] for s in view["seats"]] == [None, "Ann"]


# --- defects found by trying the server as players would ----------------------------------------


@pytest.mark.parametrize(
    ("game", "moves", "illegal"),
    [
        ("orderchaos", ["X@c3"], "O@c3"),  # an occupied square
        ("entropy:size=5", [], "R@a1"),  # the wrong colour: the draw says which
        ("dispersal", [], "a1-a3"),  # a slide through a counter
    ],
)
def test_an_illegal_move_is_refused_and_the_game_goes_on(
    client: TestClient, game: str, moves: list[str], illegal: str
) -> None:
    made = post(client, "/api/online", {"game": game, "seat": 1}).json()
    game_id, secrets = made["id"], {1: made["secret"], 2: made["invitation"]}
    for move in moves:
        view = client.get(f"/api/online/{game_id}").json()
        seat = view["thinking"]
        assert (
            post(
                client,
                f"/api/online/{game_id}/move",
                {"move": move, "ply": view["ply"]},
                secrets[seat],
            ).status_code
            == 200
        )
    view = client.get(f"/api/online/{game_id}").json()
    seat, ply = view["thinking"], view["ply"]
    mine = client.get(f"/api/online/{game_id}", headers={"X-Seat": secrets[seat]}).json()
    legal = {entry["move"] for entry in mine["legal"]}
    if game.startswith("entropy"):  # Chaos places the colour drawn; any other is illegal
        drawn = next(iter(legal)).split("@")[0]
        illegal = f"{'R' if drawn != 'R' else 'G'}@a1"
    assert illegal not in legal
    refused = post(
        client, f"/api/online/{game_id}/move", {"move": illegal, "ply": ply}, secrets[seat]
    )
    assert refused.status_code == 400, refused.text
    after = client.get(f"/api/online/{game_id}").json()
    assert after["ply"] == ply and after["thinking"] == seat and after["status"] == "playing"
    move = mine["legal"][0]["move"]
    played = post(client, f"/api/online/{game_id}/move", {"move": move, "ply": ply}, secrets[seat])
    assert played.status_code == 200, played.text


def test_a_pace_that_would_not_read_back_is_refused_before_anything_is_stored(
    client: TestClient, database: Database
) -> None:
    for pace in (
        "0.00009 days a move",
        "1.123 days a move",
        "2 days a move, at most 1e3 days a game",
    ):
        for path in ("/api/online", "/api/lobby"):
            answer = post(client, path, {"game": "orderchaos", "time_control": pace})
            assert answer.status_code == 400, (path, pace, answer.text)
    assert database.unfinished_games() == [] and database.challenges() == []
    made = post(client, "/api/online", {"game": "orderchaos", "time_control": "0.01 days a move"})
    assert made.status_code == 201
    assert made.json()["game"]["time_control"] == "0.01 days a move"


def test_paces_are_stored_as_numbers_and_read_back_the_same() -> None:
    for text in (
        "none",
        "5+3",
        "0.5+0",
        "3 days a move",
        "0.01 days a move, at most 3650 days a game",
    ):
        pace = Pace.parse(text)
        stored = json.loads(json.dumps(pace.stored()))
        assert Pace.from_stored(stored) == pace and Pace.from_stored(str(pace)) == pace
        assert all(not isinstance(v, str) for v in stored.values())
    for damaged in ("9e-05 days a move", {"days": ["3", None]}, {"clock": [0, 0]}, [], {"x": 1}):
        with pytest.raises(Conflict, match="cannot be read"):
            Pace.from_stored(damaged)


def _plant(database: Database, clock: FakeClock, time_control: Any, *, bot: bool = False) -> str:
    """A game stored with `time_control` as it is, its deadline already past."""
    game = get_game("orderchaos")
    pace = Pace.parse("1 day a move")
    players = ("human", "greedy" if bot else "human")
    record = pace.new_record(game, players)
    seats = [("a" * 64, None, None), (None if bot else "b" * 64, None, "greedy" if bot else None)]
    return database.create_game(
        game.spec,
        time_control,
        seats,
        None,
        clock.now - 3 * 86_400,
        deadline=clock.now - 2 * 86_400,
        record=record.dumps(),
    )


def test_an_unreadable_game_stops_no_flag_and_no_bot(
    games: OnlineGames, database: Database, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    damaged = _plant(database, clock, "9e-05 days a move")  # as the server once stored it
    made, _, _ = games.create(get_game("orderchaos"), seat=1, pace=Pace.parse("1 day a move"))
    clock.now += 1.5 * 86_400  # the real game's flag falls; the damaged one is due first
    assert games.sweep() == 1
    assert games.snapshot(made)["status"] == "finished"
    assert damaged in games.damaged and "cannot be read" in games.damaged[damaged]
    assert sum("damaged" in r.getMessage() for r in caplog.records) == 1
    assert games.sweep() == 0  # again, without stopping and without saying it again
    assert sum("damaged" in r.getMessage() for r in caplog.records) == 1
    _plant(database, clock, "9e-05 days a move", bot=True)
    games.resume_bots()  # a restart with a damaged bot game
    with pytest.raises(Conflict, match="cannot be read"):
        games.snapshot(damaged)


@pytest.mark.slow
@pytest.mark.parametrize("stored_before", [False, True])
def test_correspondence_has_no_hidden_game_clock(
    games: OnlineGames, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, stored_before: bool
) -> None:
    pace = Pace.parse("10 days a move")
    if stored_before:  # as games were stored with a year's clock for all of one's moves
        monkeypatch.setattr(Pace, "record_clock", lambda self: ClockSettings(365 * 86_400, 0))
    game_id, ann, bob = games.create(get_game("entropy"), seat=1, pace=pace)
    monkeypatch.undo()
    secrets = {1: ann, 2: bob}
    moves = 0
    while (view := games.snapshot(game_id))["status"] == "playing" and moves < 120:
        seat = view["thinking"]
        clock.now += 8 * 86_400  # every move after eight days, in time
        move, ply = first_legal(games, game_id, secrets[seat])
        games.play(game_id, secrets[seat], move, ply)
        moves += 1
        assert games.sweep() == 0
    view = games.snapshot(game_id)
    assert moves == 120 and view["status"] == "playing", (moves, view.get("result"))


def test_the_servers_downtime_is_given_back_to_the_player_to_move(
    games: OnlineGames, clock: FakeClock
) -> None:
    from abstractgames.web.online import OUTAGE

    game_id, ann, bob = games.create(get_game("orderchaos"), seat=1, pace=Pace.parse("1+0"))
    assert games.give_back_downtime() == 0.0  # the first server ever
    for _ in range(20):  # twenty seconds of Ann's clock run, a server sweeping each second
        clock.now += 1
        assert games.give_back_downtime() == 0.0 and games.sweep() == 0
    clock.now += 100  # no server for 100 s: her clock would have fallen at 60 s
    assert games.give_back_downtime() == pytest.approx(100 - OUTAGE)
    assert games.sweep() == 0
    view = games.snapshot(game_id, ann)
    assert view["status"] == "playing"
    assert view["clocks"][0] == pytest.approx(60 - 20 - OUTAGE)
    assert games.database.game(game_id).deadline == pytest.approx(clock.now + 60 - 20 - OUTAGE)
    move, ply = first_legal(games, game_id, ann)
    for _ in range(5):
        clock.now += 1
        assert games.give_back_downtime() == 0.0
    games.play(game_id, ann, move, ply)
    seen = games.snapshot(game_id, bob)
    assert seen["clocks"][0] == pytest.approx(60 - 25 - OUTAGE)  # her move took 25 s and the slack
    assert games.database.game(game_id).given_back == 0.0  # Bob's turn starts afresh
    clock.now += 30
    assert games.give_back_downtime() == pytest.approx(30 - OUTAGE)
    assert games.snapshot(game_id, bob)["clocks"][1] == pytest.approx(60 - OUTAGE)


def test_a_request_that_gives_a_field_twice_is_refused(client: TestClient) -> None:
    made = post(client, "/api/online", {"game": "orderchaos", "seat": 1}).json()
    twice = client.post(
        f"/api/online/{made['id']}/move",
        content='{"move": "X@a1", "ply": 0, "move": "O@b2"}',
        headers={
            "Origin": "http://testserver",
            "X-Seat": made["secret"],
            "Content-Type": "application/json",
        },
    )
    assert twice.status_code == 400 and "'move' twice" in twice.json()["error"]
    assert client.get(f"/api/online/{made['id']}").json()["ply"] == 0


def test_a_public_server_bounds_the_records_anyone_uploads(database: Database) -> None:
    from abstractgames.web.app import MAX_PUBLIC_UPLOAD

    server = OnlineServer(database, limits={"create": (0.001, 5.0), "move": (0.001, 30.0)})
    app = create_app(online=server, public=True)
    game = get_game("orderchaos")
    record = MatchRecord(game.name, {}, ("human", "human"), seed=1).dumps()
    headers = {"Origin": "http://testserver", "Content-Type": "application/json"}
    with TestClient(app, base_url="http://testserver") as client:
        large = client.post(
            "/api/replay", content=" " * (MAX_PUBLIC_UPLOAD + 1) + record, headers=headers
        )
        assert large.status_code == 413
        statuses = [
            client.post("/api/replay", content=record, headers=headers).status_code
            for _ in range(6)
        ]
    assert statuses.count(200) == 4 and statuses[-1] == 429, statuses  # five in a burst, in all


def test_challenges_leave_the_lobby_after_their_time(
    games: OnlineGames, clock: FakeClock, database: Database
) -> None:
    from abstractgames.web.database import UnknownChallenge
    from abstractgames.web.online import CHALLENGE_HOURS, CORRESPONDENCE_CHALLENGE_DAYS

    live, _ = games.challenge(get_game("orderchaos"), pace=Pace.parse("5+3"))
    slow, _ = games.challenge(get_game("orderchaos"), pace=Pace.parse("3 days a move"))
    clock.now += CHALLENGE_HOURS * 3600 - 1
    assert {c.id for c, _ in games.open_challenges()} == {live, slow}
    assert games.expire_challenges() == 0
    clock.now += 1
    assert [c.id for c, _ in games.open_challenges()] == [slow]
    with pytest.raises(UnknownChallenge):
        games.accept(live)  # past its time, even before a sweep takes it out
    assert games.expire_challenges() == 1 and [c.id for c in database.challenges()] == [slow]
    clock.now += CORRESPONDENCE_CHALLENGE_DAYS * 86_400
    assert games.expire_challenges() == 1 and database.challenges() == []


def test_a_bot_that_would_think_longer_than_the_server_allows_is_refused(
    database: Database,
) -> None:
    online = OnlineGames(database, bot_timeout=10.0)
    try:
        for spec in ("search:time=86400", "search:time=10.5"):
            with pytest.raises(BadRequest, match="at most 10 seconds a move"):
                online.create(get_game("orderchaos"), seat=1, opponent=spec)
        assert online.database.unfinished_games() == []
        online.create(get_game("orderchaos"), seat=1, opponent="search:time=0.5")
    finally:
        online.close()


def test_a_bot_left_by_a_server_that_died_is_taken_over(
    database: Database, clock: FakeClock
) -> None:
    from abstractgames.web.online import OUTAGE

    gone = OnlineGames(database, clock=clock, bot_timeout=30.0)
    gone.stop.set()  # its bots never start: the server died as the game began
    game_id, _, _ = gone.create(get_game("orderchaos"), seat=2, opponent="random")
    other = OnlineGames(database, clock=clock, bot_timeout=30.0)
    try:
        clock.now += 30 + OUTAGE - 1  # the bot might still be thinking there
        assert other.take_over_bots() == 0
        clock.now += 2
        assert other.take_over_bots() == 1
        wait_until(lambda: other.snapshot(game_id)["ply"] == 1)
        assert other.take_over_bots() == 0  # the person's turn now
    finally:
        other.close()
        gone.close()


def test_a_vanished_opponent_is_claimed_against_after_the_stated_days(
    games: OnlineGames, clock: FakeClock
) -> None:
    from abstractgames.web.online import CLAIM_DAYS

    game_id, ann, bob = games.create(get_game("entropy", size=5), seat=1)  # no clock
    assert bob is not None
    move, ply = first_legal(games, game_id, ann)  # Ann (Chaos) moves; Bob vanishes
    games.play(game_id, ann, move, ply)
    ply += 1
    view = games.snapshot(game_id, ann)
    assert view["claimable_from"] == pytest.approx(clock.now + CLAIM_DAYS * 86_400)
    clock.now += CLAIM_DAYS * 86_400 - 60
    with pytest.raises(Conflict, match=r"claim the match in 0\.0 hours"):
        games.claim(game_id, ann, ply)
    with pytest.raises(Conflict, match="while your opponent is to move"):
        games.claim(game_id, bob, ply)
    clock.now += 60
    games.claim(game_id, ann, ply)
    result = games.snapshot(game_id)["result"]
    assert result["winner"] == 1 and "did not move for 3 days" in result["reason"]
    timed, carol, _ = games.create(get_game("orderchaos"), seat=2, pace=Pace.parse("1+0"))
    with pytest.raises(Conflict, match="has a clock"):
        games.claim(timed, carol, 0)


def test_more_days_for_a_move_by_agreement(games: OnlineGames, clock: FakeClock) -> None:
    pace = Pace.parse("2 days a move")
    game_id, ann, bob = games.create(get_game("orderchaos"), seat=1, pace=pace)
    assert bob is not None
    deadline = games.database.game(game_id).deadline
    with pytest.raises(Conflict, match="on your own turn"):
        games.ask_extension(game_id, bob, 0, 3)
    with pytest.raises(BadRequest):
        games.ask_extension(game_id, ann, 0, 31)
    games.ask_extension(game_id, ann, 0, 3)
    assert games.snapshot(game_id, bob)["offer"] == {"kind": "extension", "seat": 1, "days": 3}
    with pytest.raises(Conflict, match="answers your own"):
        games.answer_extension(game_id, ann, 0, True)
    games.answer_extension(game_id, bob, 0, True)
    row = games.database.game(game_id)
    assert row.deadline == pytest.approx(deadline + 3 * 86_400) and row.offer is None
    clock.now += 4 * 86_400  # past the two days, within the five
    assert games.sweep() == 0
    move, ply = first_legal(games, game_id, ann)
    games.play(game_id, ann, move, ply)
    assert games.snapshot(game_id)["status"] == "playing"
    games.ask_extension(game_id, bob, 1, 1)
    games.answer_extension(game_id, ann, 1, False)  # refused
    clock.now += 2 * 86_400 + 1
    assert games.sweep() == 1 and games.snapshot(game_id)["result"]["winner"] == 1


def test_records_results_and_replays_call_the_players_by_their_names(
    client: TestClient,
) -> None:
    made = post(client, "/api/online", {"game": "orderchaos", "seat": 1, "name": "Ann"}).json()
    game_id, ann, bob = made["id"], made["secret"], made["invitation"]
    post(client, f"/api/online/{game_id}/name", {"name": "Bob"}, bob)
    post(client, f"/api/online/{game_id}/move", {"move": "X@c3", "ply": 0}, ann)
    post(client, f"/api/online/{game_id}/resign", {}, bob)
    seen = client.get(f"/api/online/{game_id}").json()
    assert seen["result"]["reason"] == "Bob resigned"
    record = MatchRecord.loads(client.get(f"/api/online/{game_id}/record").text)
    assert record.names == ("Ann", "Bob") and record.players == ("human", "human")
    assert "Ann against Bob" in record.summary()
    replay = client.get(f"/api/online/{game_id}/replay").json()
    assert replay["names"] == ["Ann", "Bob"] and replay["result"]["reason"] == "Bob resigned"
    against_bot = post(
        client, "/api/online", {"game": "orderchaos", "seat": 2, "opponent": "random"}
    )
    view = against_bot.json()["game"]
    assert [p["spec"] for p in view["players"]] == ["random", "player 2"]
