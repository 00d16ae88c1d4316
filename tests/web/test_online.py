"""Online games (`abstractgames.web.online`): two seats, each moved only by its secret's holder;
watchers see everything but the legal moves and the secrets; a move sent twice is played once."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")

from abstractgames import IllegalMoveError, get_game, parse_game_spec
from abstractgames.records import ClockSettings
from abstractgames.web.errors import BadRequest, Conflict, Forbidden, NotFound
from abstractgames.web.online import OnlineGame, OnlineGames, hash_secret
from abstractgames.web.sessions import Sessions


@pytest.fixture
def games() -> Iterator[OnlineGames]:
    sessions = Sessions()
    yield OnlineGames(sessions, random.Random(5))
    sessions.shutdown()


def turn_of(online: OnlineGame, seat: int, plies: int, seconds: float = 10) -> dict[str, Any]:
    """The snapshot of `seat` once it is to move at match ply `plies`."""
    deadline = time.monotonic() + seconds
    while True:
        view = online.session.snapshot()
        if view["awaiting"] == seat and view["ply"] == plies:
            return view
        assert time.monotonic() < deadline, view
        time.sleep(0.01)


def test_two_seats_with_their_own_secrets_and_a_watcher(games: OnlineGames) -> None:
    online, mine, theirs = games.create(get_game("orderchaos"), seat=1, name="Ann")
    assert mine != theirs and len(mine) >= 22 and len(theirs) >= 22  # >= 128 bits each
    assert online.seat_of(mine) == 1 and online.seat_of(theirs) == 2
    assert online.seat_of(None) is None and online.seat_of("") is None
    assert online.seat_of(mine[:-1] + ("A" if mine[-1] != "A" else "B")) is None
    assert [s.secret_hash for s in online.seats] == [hash_secret(mine), hash_secret(theirs)]
    assert mine not in repr(online.seats) and online.seats[0].secret_hash not in repr(online.seats)
    turn_of(online, 1, 0)

    ann, bob, watcher = online.snapshot(mine), online.snapshot(theirs), online.snapshot()
    assert ann["you"] == 1 and ann["awaiting"] == 1 and ann["legal"]
    assert bob["you"] == 2 and bob["awaiting"] is None and bob["legal"] == []
    assert watcher["you"] is None and watcher["awaiting"] is None and watcher["legal"] == []
    assert [s["name"] for s in watcher["seats"]] == ["Ann", None]
    assert [p["human"] for p in ann["players"]] == [True, False]  # "you" on the page
    for view in (ann, bob, watcher):
        text = json.dumps(view)
        assert mine not in text and theirs not in text and hash_secret(mine) not in text
        assert view["saved"] is None


def test_only_the_seat_to_move_moves(games: OnlineGames) -> None:
    online, mine, theirs = games.create(get_game("orderchaos"), seat=2)
    turn_of(online, 1, 0)  # the invited player (seat 1, Order) moves first
    with pytest.raises(Forbidden, match="watcher"):
        online.play(None, "X@c3", 0)
    with pytest.raises(Forbidden, match="watcher"):
        online.play("not-a-secret", "X@c3", 0)
    with pytest.raises(Conflict, match="not your turn: player 1"):
        online.play(mine, "X@c3", 0)
    with pytest.raises(IllegalMoveError):
        online.play(theirs, "X@z9", 0)
    assert online.play(theirs, "x@c3", 0) == "X@c3"
    view = turn_of(online, 2, 1)
    assert [p["move"] for p in view["plies"]] == ["X@c3"]
    with pytest.raises(Forbidden):
        online.resign(None)


def test_a_move_sent_twice_is_played_once(games: OnlineGames) -> None:
    online, mine, theirs = games.create(get_game("orderchaos"), seat=1)
    turn_of(online, 1, 0)
    online.play(mine, "X@c3", 0)
    with pytest.raises(Conflict, match="made at ply 0, but the match is at ply 1"):
        online.play(mine, "X@c3", 0)  # a double click
    turn_of(online, 2, 1)
    with pytest.raises(Conflict, match="made at ply 0"):
        online.play(theirs, "O@d4", 0)  # a stale page
    online.play(theirs, "O@d4", 1)
    view = turn_of(online, 1, 2)
    assert [p["move"] for p in view["plies"]] == ["X@c3", "O@d4"]


def test_an_entropy_match_counts_plies_across_its_chance_events_and_games(
    games: OnlineGames,
) -> None:
    online, mine, theirs = games.create(parse_game_spec("entropy:size=5"), seat=1)
    secrets_of = {1: mine, 2: theirs}
    while online.session.snapshot()["status"] not in ("finished", "between games"):
        view = online.session.snapshot()
        if view["awaiting"] is None:
            time.sleep(0.005)
            continue
        seat = view["awaiting"]
        mine_view = online.snapshot(secrets_of[seat])
        online.play(secrets_of[seat], mine_view["legal"][0]["move"], mine_view["ply"])
        deadline = time.monotonic() + 10
        while online.session.snapshot()["ply"] == view["ply"]:
            assert time.monotonic() < deadline
            time.sleep(0.002)
    view = online.session.snapshot()
    assert view["ply"] == len(view["plies"]) and view["ply"] > 25  # draws count too


def test_the_creator_may_leave_the_seat_to_chance_and_names_are_checked(
    games: OnlineGames,
) -> None:
    seats = [games.create(get_game("orderchaos"))[0].creator for _ in range(12)]
    assert set(seats) == {1, 2}
    again = OnlineGames(games.sessions, random.Random(5))
    assert [again.create(get_game("orderchaos"))[0].creator for _ in range(12)] == seats
    with pytest.raises(BadRequest, match="the seat is 1 or 2"):
        games.create(get_game("orderchaos"), seat=3)
    with pytest.raises(BadRequest, match="at most 40 printable"):
        games.create(get_game("orderchaos"), name="x" * 41)
    with pytest.raises(BadRequest, match="at most 40 printable"):
        games.create(get_game("orderchaos"), name="Ann\x1b[2J")
    online, _, theirs = games.create(get_game("orderchaos"), name="  Ann   Lee ")
    assert online.seats[online.creator - 1].name == "Ann Lee"
    assert online.rename(theirs, "Bob").name == "Bob"
    with pytest.raises(Forbidden, match="name a seat"):
        online.rename("nope", "Eve")


def test_resigning_and_the_games_of_a_browser(games: OnlineGames) -> None:
    first, a1, b1 = games.create(get_game("orderchaos"), seat=1, clock=ClockSettings(600))
    second, a2, _ = games.create(get_game("orderchaos"), seat=2)
    turn_of(first, 1, 0)
    turn_of(second, 1, 0)
    listed = games.games_of([a1, a2])
    assert [(g["id"], g["seat"], g["your_move"]) for g in listed] == [
        (first.id, 1, True),
        (second.id, 2, False),
    ]
    assert games.games_of(["nobody"]) == []
    assert first.resign(b1) == 2
    deadline = time.monotonic() + 10
    while first.session.snapshot()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    result = first.snapshot()["result"]
    assert result["winner"] == 1 and "resigned" in result["reason"]
    with pytest.raises(NotFound):
        games.get("nope")
    assert games.get(first.id) is first
