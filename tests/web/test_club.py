"""Tournaments for people on the game server (`abstractgames.web.club`, `club_api`), through
the app's API: a round robin of accounts and a bot played to its end, Swiss rounds paired as
games finish, the pairings and standings the arena's own, ratings, hostile input, and the
store on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")

from starlette.testclient import TestClient

from abstractgames.arena import (
    ArenaReport,
    MatchSummary,
    ranking,
    round_robin_rounds,
    swiss_pairings,
)
from abstractgames.web.database import Database, TournamentRefused

from .postgres import postgres_url  # noqa: F401  (a fixture)
from .test_accounts import Clock, account, app_on, browser, post
from .test_database import url  # noqa: F401  (a fixture: each kind of database)

BASE = "/api/online/tournaments"


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    with Database.open(tmp_path / "games.db") as db:
        yield db


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(database: Database, clock: Clock) -> Iterator[Any]:
    made = app_on(database, clock, limits={"account": (1.0, 100.0)})
    with TestClient(made, base_url="http://testserver"):
        yield made


def people(app: Any, *names: str) -> list[TestClient]:
    found = []
    for name in names:
        client = browser(app)
        account(client, name)
        found.append(client)
    return found


def made(client: TestClient, **settings: Any) -> str:
    body = {"title": "Club night", "game": "orderchaos", "time_control": "1 days a move"}
    answer = post(client, BASE, {**body, **settings})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def act(client: TestClient, tournament_id: str, what: str, body: Any = None) -> Any:
    return post(client, f"{BASE}/{tournament_id}/{what}", body or {})


def view(client: TestClient, tournament_id: str) -> dict[str, Any]:
    answer = client.get(f"{BASE}/{tournament_id}")
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def my_seat(client: TestClient, game_id: str) -> str:
    games = client.get("/api/account/games").json()["games"]
    return str(next(g["secret"] for g in games if g["id"] == game_id))


def end_round(clients: dict[str, TestClient], data: dict[str, Any], loser: str = "first") -> None:
    """Finish the games of the round under way: in each, the player in `loser`'s seat resigns
    (a bot's opponent resigns)."""
    for board in data["rounds_played"][-1]["games"]:
        if board["status"] != "playing":
            continue
        who = (
            board[loser]
            if board[loser] in clients
            else board["second" if loser == "first" else "first"]
        )
        client = clients[who]
        answer = post(
            client, f"/api/online/{board['game_id']}/resign", {}, my_seat(client, board["game_id"])
        )
        assert answer.status_code == 200, answer.text


def test_a_round_robin_of_three_accounts_and_a_bot_is_played_to_its_end(app: Any) -> None:
    ann, bob, cy = people(app, "Ann", "Bob", "Cy")
    tournament_id = made(ann)
    for client in (ann, bob, cy):
        assert act(client, tournament_id, "join").status_code == 200
    assert act(bob, tournament_id, "bots", {"bot": "random"}).status_code == 403  # not his
    assert act(ann, tournament_id, "bots", {"bot": "random"}).status_code == 200
    assert act(cy, tournament_id, "leave").status_code == 200  # withdrawn, and back
    assert act(cy, tournament_id, "join").status_code == 200
    listed = ann.get(BASE).json()["tournaments"]
    assert [t["id"] for t in listed] == [tournament_id]
    assert [e["name"] for e in listed[0]["entrants"]] == ["Ann", "Bob", "random", "Cy"]
    assert act(bob, tournament_id, "start").status_code == 403
    assert act(ann, tournament_id, "start").status_code == 200
    assert act(cy, tournament_id, "leave").status_code == 409  # too late
    data = view(ann, tournament_id)
    assert data["state"] == "playing" and data["rounds"] == 3 and data["round"] == 1
    clients = {"Ann": ann, "Bob": bob, "Cy": cy}
    while (data := view(ann, tournament_id))["state"] == "playing":
        end_round(clients, data)
    assert data["state"] == "finished" and data["round"] == 3
    boards = [b for r in data["rounds_played"] for b in r["games"]]
    met = {frozenset((b["first"], b["second"])) for b in boards}
    assert len(boards) == 6 and len(met) == 6  # every pair once
    assert all(b["status"] == "finished" and b["result"] in ("1–0", "0–1") for b in boards)
    standings = data["standings"]
    assert sum(s["points"] for s in standings) == 6
    assert [s["points"] for s in standings] == sorted(
        (s["points"] for s in standings), reverse=True
    )
    people_rated = [s for s in standings if not s["bot"]]
    assert all(s["rating"] is not None for s in people_rated)  # their games were rated
    ratings = ann.get("/api/players/Ann").json()["ratings"]
    assert ratings and ratings[0]["games"] == 2  # two games against people, not the bot's


def test_the_pairings_and_standings_are_the_arenas(app: Any, database: Database) -> None:
    names = ["Ann", "Bob", "Cy", "Di", "Ed"]
    clients = dict(zip(names, people(app, *names), strict=True))
    tournament_id = made(clients["Ann"], format="swiss", rounds=3, rated=False)
    for client in clients.values():
        assert act(client, tournament_id, "join").status_code == 200
    assert act(clients["Ann"], tournament_id, "start").status_code == 200
    seen_rounds = 0
    while (data := view(clients["Ann"], tournament_id))["state"] == "playing":
        row = database.tournament(tournament_id)
        keys = [e.entrant for e in row.entrants]
        # the round under way is the arena's pairing of the rounds before
        before = [p for p in row.pairings if p.round < row.round]
        matches = [_summary(p.summary) for p in before if p.summary]
        byes = [p.first for p in before if p.second is None]
        now = [(p.first, p.second) for p in row.pairings if p.round == row.round]
        assert now == swiss_pairings(keys, matches, byes)
        end_round(clients, data, "second" if row.round % 2 else "first")
        seen_rounds += 1
    assert seen_rounds == 3 and data["state"] == "finished"
    row = database.tournament(tournament_id)
    keys = tuple(e.entrant for e in row.entrants)
    met = [frozenset((p.first, p.second)) for p in row.pairings if p.second]
    assert len(met) == len(set(met))  # no rematch
    byes = [p.first for p in row.pairings if p.second is None]
    assert len(byes) == len(set(byes)) == 3  # each bye to someone who had none
    matches = [_summary(p.summary) for p in row.pairings if p.summary]
    report = ArenaReport.from_matches(
        matches, game="orderchaos", players=keys, games=1, seed=0, unit="match", scheduled=6
    )
    counted = {key: byes.count(key) for key in keys}
    names_by_key = {e.entrant: e.name for e in row.entrants}
    expected = [names_by_key[s.player] for s in ranking(report, counted)]
    assert [s["name"] for s in data["standings"]] == expected
    assert [s["points"] for s in data["standings"]] == [
        s.points + counted[s.player] for s in ranking(report, counted)
    ]
    assert all(s["rating"] is None for s in data["standings"])  # not rated
    assert clients["Ann"].get("/api/players/Ann").json()["ratings"] == []


def _summary(data: Any) -> MatchSummary:
    from abstractgames.web.club import _match

    return _match(data)


def test_round_robin_rounds_meet_every_pair_once_a_round_at_a_time() -> None:
    for count in range(2, 10):
        players = [f"p{i}" for i in range(count)]
        rounds = round_robin_rounds(players)
        assert len(rounds) == count - 1 + count % 2
        pairs = [frozenset(p) for r in rounds for p in r if p[1] is not None]
        assert len(pairs) == len(set(pairs)) == count * (count - 1) // 2
        for r in rounds:
            seated = [p for pair in r for p in pair if p is not None]
            assert sorted(seated) == sorted(players)


def test_hostile_and_unauthorised_requests_are_refused(app: Any, clock: Clock) -> None:
    ann, bob = people(app, "Ann", "Bob")
    stranger = browser(app)
    body = {"title": "x", "game": "orderchaos"}
    assert post(stranger, BASE, body).status_code == 403  # sign in first
    for bad in (
        {"title": ""},
        {"title": "x" * 61},
        {"title": "a\x07b"},
        {"format": "knockout"},
        {"format": "swiss"},  # without rounds
        {"format": "swiss", "rounds": 16},
        {"max_entrants": 13},  # a round robin has at most 12
        {"max_entrants": 1},
        {"time_control": "whenever"},
        {"game": "chess"},
        {"signup_hours": 10_000},
        {"extra": 1},
    ):
        answer = post(ann, BASE, {**body, **bad})
        assert answer.status_code == 400, (bad, answer.text)
    tournament_id = made(ann, max_entrants=2)
    assert act(ann, tournament_id, "bots", {"bot": "engine:./mybot"}).status_code == 403
    assert act(ann, tournament_id, "bots", {"bot": "human"}).status_code == 400
    assert act(ann, tournament_id, "start").status_code == 409  # nobody entered
    assert act(ann, tournament_id, "join").status_code == 200
    assert act(ann, tournament_id, "join").status_code == 409  # twice
    assert act(bob, tournament_id, "join").status_code == 200
    assert act(ann, tournament_id, "bots", {"bot": "random"}).status_code == 409  # full
    assert act(bob, tournament_id, "cancel").status_code == 403
    assert act(stranger, tournament_id, "join").status_code == 403
    assert stranger.get(f"{BASE}/nope").status_code == 404
    assert act(ann, "nope", "join").status_code == 404
    made(ann)
    made(ann)
    assert post(ann, BASE, body).status_code == 409  # three open for sign-up at most
    assert act(ann, tournament_id, "cancel").status_code == 200
    assert view(bob, tournament_id)["state"] == "cancelled"
    assert act(ann, tournament_id, "cancel").status_code == 409


def test_a_tournament_starts_when_its_sign_up_time_is_over(app: Any, clock: Clock) -> None:
    ann, bob = people(app, "Ann", "Bob")
    alone = made(ann, signup_hours=1)
    paired = made(ann, signup_hours=2)
    assert act(ann, alone, "join").status_code == 200
    for client in (ann, bob):
        assert act(client, paired, "join").status_code == 200
    clock.now += 3 * 3600
    app.state.web.online.tournaments.sweep()
    assert view(ann, alone)["state"] == "cancelled"  # one player is no tournament
    data = view(ann, paired)
    assert data["state"] == "playing" and data["rounds_played"][0]["games"][0]["game_id"]


def test_a_correspondence_game_lost_on_time_ends_the_round(app: Any, clock: Clock) -> None:
    ann, bob = people(app, "Ann", "Bob")
    tournament_id = made(ann)
    for client in (ann, bob):
        act(client, tournament_id, "join")
    act(ann, tournament_id, "start")
    clock.now += 2 * 86_400  # a day a move: the player to move loses on time
    assert app.state.web.online.games.sweep() == 1
    data = view(ann, tournament_id)  # the game's end finished the tournament at once
    assert data["state"] == "finished"
    assert data["rounds_played"][0]["games"][0]["reason"]


def test_tournaments_in_the_store(url: str) -> None:  # noqa: F811
    with Database.open(url) as db:
        creator = db.create_account("Ann", "ann", email=None, recovery_hash=None, now=1.0)
        tournament_id = db.create_tournament(
            title="T",
            game_spec="orderchaos",
            format="swiss",
            rounds=2,
            time_control={},
            rated=True,
            creator_id=creator.id,
            max_entrants=3,
            starts_at=5.0,
            now=1.0,
            most_open=1,
        )
        with pytest.raises(TournamentRefused):
            db.create_tournament(
                title="U",
                game_spec="orderchaos",
                format="swiss",
                rounds=2,
                time_control={},
                rated=True,
                creator_id=creator.id,
                max_entrants=3,
                starts_at=None,
                now=1.0,
                most_open=1,
            )
        for key in ("a", "b", "c"):
            db.add_entrant(
                tournament_id, key, name=key, account_id=None, player_spec="random", now=2.0
            )
        with pytest.raises(TournamentRefused):  # full
            db.add_entrant(tournament_id, "d", name="d", account_id=None, player_spec=None, now=2.0)
        assert db.tournaments_due(4.0) == [] and db.tournaments_due(5.0) == [tournament_id]
        assert db.start_round(tournament_id, 1, [("c", None), ("a", "b")], 6.0, rounds=2)
        assert not db.start_round(tournament_id, 1, [("a", "b")], 6.0)  # once
        with pytest.raises(TournamentRefused):
            db.remove_entrant(tournament_id, "a", 7.0)
        game_id = db.create_game(
            "orderchaos", {}, [(None, "a", "random"), (None, "b", "random")], None, 7.0
        )
        assert db.set_pairing_game(tournament_id, 1, 2, game_id)
        assert not db.set_pairing_game(tournament_id, 1, 2, "another")
        assert db.tournament_of_game(game_id) == tournament_id
        db.set_pairing_summary(tournament_id, 1, 2, {"aborted": True})
        row = db.tournament(tournament_id)
        assert [(p.round, p.board, p.first, p.second) for p in row.pairings] == [
            (1, 1, "c", None),
            (1, 2, "a", "b"),
        ]
        assert row.pairings[1].game_id == game_id and row.pairings[1].summary == {"aborted": True}
        assert [e.entrant for e in row.entrants] == ["a", "b", "c"] and row.rounds == 2
        assert not db.end_tournament(tournament_id, 8.0, round_number=2)  # not its last round
        assert db.end_tournament(tournament_id, 8.0, round_number=1)
        assert [t.state for t in db.tournaments()] == ["finished"]
