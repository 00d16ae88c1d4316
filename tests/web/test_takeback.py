"""Taking a move back in an online game: one seat asks, the other accepts or declines, the asker
may withdraw; a server's bot agrees at once; the clocks go back with the moves; only the seats
may ask or answer, and only at the ply they saw."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")

from starlette.testclient import TestClient

from abstractgames import get_game
from abstractgames.web.errors import Conflict, Forbidden
from abstractgames.web.online import OnlineGames, Pace

from .test_online import (  # noqa: F401  (fixtures)
    FakeClock,
    client,
    clock,
    database,
    first_legal,
    games,
    post,
)


def moves(online: OnlineGames, game_id: str) -> list[str]:
    return [p["move"] for p in online.snapshot(game_id)["plies"]]


def test_asked_then_accepted_goes_back_to_the_askers_turn(games: OnlineGames) -> None:  # noqa: F811
    game_id, ann, bob = games.create(get_game("orderchaos"), seat=1)
    assert bob is not None
    assert not games.snapshot(game_id, ann)["can_take_back"]  # nothing of hers to take back
    with pytest.raises(Conflict, match="no move of your own"):
        games.ask_takeback(game_id, ann, 0)
    games.play(game_id, ann, "X@a1", 0)
    games.play(game_id, bob, "O@b2", 1)
    assert games.snapshot(game_id, ann)["can_take_back"]
    assert games.snapshot(game_id, bob)["can_take_back"]
    assert not games.snapshot(game_id)["can_take_back"]  # a watcher

    assert games.ask_takeback(game_id, ann, 2) is False  # asked: Bob has to agree
    for secret in (ann, bob, None):
        view = games.snapshot(game_id, secret)
        assert view["offer"] == {"kind": "takeback", "seat": 1} and not view["can_take_back"]
    assert games.snapshot(game_id)["ply"] == 2  # an offer is not a move
    with pytest.raises(Conflict, match="asked already"):
        games.ask_takeback(game_id, ann, 2)
    with pytest.raises(Conflict, match="answer them first"):
        games.ask_takeback(game_id, bob, 2)
    with pytest.raises(Conflict, match="your opponent answers"):
        games.answer_takeback(game_id, ann, 2, True)

    games.answer_takeback(game_id, bob, 2, True)
    view = games.snapshot(game_id, ann)
    assert view["plies"] == [] and view["awaiting"] == 1 and view["offer"] is None
    assert view["ply"] == 3  # plies only go up: a move sent before the takeback stays stale
    with pytest.raises(Conflict):
        games.play(game_id, ann, "X@c3", 2)
    games.play(game_id, ann, "X@c3", 3)
    assert moves(games, game_id) == ["X@c3"]
    assert games.record_of(game_id).games[0].moves[0].move == "X@c3"


def test_the_opponents_last_move_alone_when_they_ask_on_your_turn(games: OnlineGames) -> None:  # noqa: F811
    game_id, ann, bob = games.create(get_game("orderchaos"), seat=1)
    assert bob is not None
    games.play(game_id, ann, "X@a1", 0)
    games.play(game_id, bob, "O@b2", 1)
    assert games.ask_takeback(game_id, bob, 2) is False  # Ann is to move: only Bob's O@b2 goes
    games.answer_takeback(game_id, ann, 2, True)
    view = games.snapshot(game_id, bob)
    assert moves(games, game_id) == ["X@a1"] and view["awaiting"] == 2


def test_declined_withdrawn_or_overtaken_by_a_move(games: OnlineGames) -> None:  # noqa: F811
    game_id, ann, bob = games.create(get_game("orderchaos"), seat=1)
    assert bob is not None
    games.play(game_id, ann, "X@a1", 0)
    games.ask_takeback(game_id, ann, 1)
    games.answer_takeback(game_id, bob, 1, False)  # declined
    assert games.snapshot(game_id)["offer"] is None and moves(games, game_id) == ["X@a1"]
    games.ask_takeback(game_id, ann, 1)
    games.answer_takeback(game_id, ann, 1, False)  # withdrawn
    assert games.snapshot(game_id)["offer"] is None
    with pytest.raises(Conflict, match="nobody asks"):
        games.answer_takeback(game_id, bob, 1, True)
    games.ask_takeback(game_id, ann, 1)
    games.play(game_id, bob, "O@b2", 1)  # Bob plays on instead: the request lapses
    assert games.snapshot(game_id)["offer"] is None
    with pytest.raises(Conflict):
        games.answer_takeback(game_id, bob, 1, True)
    assert moves(games, game_id) == ["X@a1", "O@b2"]


def test_only_seats_ask_and_answer_and_only_at_the_ply_they_saw(games: OnlineGames) -> None:  # noqa: F811
    game_id, ann, bob = games.create(get_game("orderchaos"), seat=1)
    assert bob is not None
    games.play(game_id, ann, "X@a1", 0)
    for secret in (None, "not-a-secret"):
        with pytest.raises(Forbidden):
            games.ask_takeback(game_id, secret, 1)
    with pytest.raises(Conflict):
        games.ask_takeback(game_id, ann, 0)  # stale
    games.ask_takeback(game_id, ann, 1)
    with pytest.raises(Forbidden):
        games.answer_takeback(game_id, None, 1, True)
    with pytest.raises(Conflict):
        games.answer_takeback(game_id, bob, 0, True)  # stale
    games.resign(game_id, bob)
    assert games.snapshot(game_id)["offer"] is None  # a finished game has no open offer
    with pytest.raises(Conflict):
        games.ask_takeback(game_id, ann, games.snapshot(game_id)["ply"])
    with pytest.raises(Conflict):
        games.answer_takeback(game_id, bob, games.snapshot(game_id)["ply"], True)


def test_a_bot_of_the_server_agrees_at_once(games: OnlineGames) -> None:  # noqa: F811
    game_id, ann, _ = games.create(get_game("orderchaos"), seat=1, opponent="greedy")

    def wait_for_my_turn(ply: int) -> None:
        deadline = time.monotonic() + 20
        while (view := games.snapshot(game_id, ann))["awaiting"] != 1 or view["ply"] < ply:
            assert time.monotonic() < deadline
            time.sleep(0.02)

    games.play(game_id, ann, "X@a1", 0)
    wait_for_my_turn(2)
    assert games.ask_takeback(game_id, ann, 2) is True
    view = games.snapshot(game_id, ann)
    assert view["plies"] == [] and view["awaiting"] == 1 and view["offer"] is None


def test_entropy_back_across_a_draw_and_the_clocks_with_it(
    games: OnlineGames,  # noqa: F811
    clock: FakeClock,  # noqa: F811
) -> None:
    game_id, ann, bob = games.create(get_game("entropy", size=5), seat=1, pace=Pace.parse("5+0"))
    assert bob is not None
    before = games.snapshot(game_id, ann)  # Ann is Chaos: a counter is drawn for her
    drawn = before["position"]["position"]
    clock.now += 10
    move, ply = first_legal(games, game_id, ann)
    games.play(game_id, ann, move, ply)
    clock.now += 20
    move, ply = first_legal(games, game_id, bob)
    games.play(game_id, bob, move, ply)  # Bob's slide, then Ann's next draw
    assert len(games.snapshot(game_id)["plies"]) >= 3
    clock.now += 7
    ply = games.snapshot(game_id)["ply"]
    games.ask_takeback(game_id, ann, ply)
    games.answer_takeback(game_id, bob, ply, True)
    after = games.snapshot(game_id, ann)
    assert after["awaiting"] == 1 and after["position"]["position"] == drawn  # the same counter
    assert [p["move"] for p in after["plies"]] == [p["move"] for p in before["plies"]]
    assert after["clocks"] == pytest.approx(before["clocks"])  # her 10 s and his 20 s come back
    assert games.database.game(game_id).deadline == pytest.approx(clock.now + 300)


def test_the_api_asks_and_answers_and_refuses_what_it_must(client: TestClient) -> None:  # noqa: F811
    made = post(client, "/api/online", {"game": "orderchaos", "seat": 1}).json()
    game_id, ann, bob = made["id"], made["secret"], made["invitation"]
    base = f"/api/online/{game_id}"
    assert post(client, f"{base}/move", {"move": "X@a1", "ply": 0}, ann).status_code == 200
    assert post(client, f"{base}/takeback", {"ply": 1}).status_code == 403  # a watcher
    assert post(client, f"{base}/takeback", {"ply": 1}, "nope").status_code == 403
    assert post(client, f"{base}/takeback", {"ply": 0}, ann).status_code == 409  # stale
    assert post(client, f"{base}/takeback", {"ply": 1}, bob).status_code == 409  # none of his
    assert post(client, f"{base}/takeback", {"ply": "1"}, ann).status_code == 400
    assert post(client, f"{base}/takeback", {"ply": 1, "x": 1}, ann).status_code == 400
    asked = post(client, f"{base}/takeback", {"ply": 1}, ann)
    assert asked.status_code == 200 and asked.json() == {"taken_back": False}
    answer = f"{base}/takeback/answer"
    assert post(client, answer, {"ply": 1, "accept": True}).status_code == 403
    assert post(client, answer, {"ply": 1, "accept": "yes"}, bob).status_code == 400
    assert post(client, answer, {"ply": 1, "accept": True}, ann).status_code == 409
    assert post(client, answer, {"ply": 1, "accept": True}, bob).json() == {"accepted": True}
    view = client.get(base, headers={"X-Seat": ann}).json()
    assert view["plies"] == [] and view["awaiting"] == 1 and view["ply"] == 2
    origin = {"Origin": "http://evil.example", "X-Seat": ann}
    assert client.post(f"{base}/takeback", json={"ply": 2}, headers=origin).status_code == 403
