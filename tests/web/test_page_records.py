"""The one-person page's matches kept in the server's database, and the record files beside."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("sqlalchemy", reason="the web extra is not installed: pip install '.[web]'")

from abstractgames.records import MatchRecord
from abstractgames.web import create_app
from abstractgames.web.database import Database

from .test_api import my_turn, new_game, play_out, signed_in, wait_for


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    with Database.open(tmp_path / "games.db") as opened:
        yield opened


def kept(database: Database) -> dict[str, MatchRecord]:
    return {name: MatchRecord.loads(database.record(name)) for name, _ in database.records(50)}


def test_every_move_of_the_page_is_in_the_database_before_it_is_shown(
    tmp_path: Path, database: Database
) -> None:
    games_dir = tmp_path / "games"
    with signed_in(create_app(save_dir=games_dir, database=database)) as client:
        game = new_game(client, game="orderchaos", players=["human", "greedy"], seed=3)
        wait_for(client, game["id"], my_turn)
        client.post(f"/api/games/{game['id']}/move", json={"move": "X@c3"})
        shown = wait_for(client, game["id"], lambda s: my_turn(s) and len(s["plies"]) == 2)
        ((name, record),) = kept(database).items()
        assert shown["saved"] == name
        assert [m.move for m in record.games[0].moves] == [p["move"] for p in shown["plies"]]
        assert not games_dir.exists() or not list(games_dir.glob("*.json"))
        assert client.get("/api/catalog").json()["saving"] is True


def test_a_match_kept_in_the_database_is_listed_replayed_downloaded_and_continued(
    tmp_path: Path, database: Database
) -> None:
    games_dir = tmp_path / "games"
    with signed_in(create_app(save_dir=games_dir, database=database)) as first:
        game = new_game(first, game="orderchaos", players=["human", "greedy"], seed=5)
        wait_for(first, game["id"], my_turn)
        first.post(f"/api/games/{game['id']}/move", json={"move": "X@c3"})
        before = wait_for(first, game["id"], lambda s: my_turn(s) and len(s["plies"]) == 2)
    name = before["saved"]
    with signed_in(create_app(save_dir=games_dir, database=database)) as second:
        listing = second.get("/api/records").json()
        assert listing["database"] == str(tmp_path / "games.db")
        (line,) = listing["records"]
        assert (line["name"], line["finished"], line["plies"]) == (name, False, 2)
        replay = second.get(f"/api/records/{name}").json()
        assert [p["move"] for p in replay["games"][0]["plies"]][:2] == [
            "X@c3",
            before["plies"][1]["move"],
        ]
        download = second.get(f"/api/records/{name}/file")
        assert download.status_code == 200 and download.content == database.record(name).encode()
        assert name in download.headers["content-disposition"]
        resumed = second.post("/api/games", json={"resume": name})
        assert resumed.status_code == 201, resumed.text
        again = second.post("/api/games", json={"resume": name})
        assert again.status_code == 409 and "being played here already" in again.json()["error"]
        final = play_out(second, resumed.json()["id"])
        assert final["status"] == "finished" and final["saved"] == name
    record = kept(database)[name]
    assert record.finished and record.games[0].moves[0].move == "X@c3"
    assert list(kept(database)) == [name]  # continued in place, not copied


def test_a_record_file_from_the_terminal_is_listed_and_continued_in_its_file(
    tmp_path: Path, database: Database
) -> None:
    games_dir = tmp_path / "games"
    with signed_in(create_app(save_dir=games_dir)) as terminal_like:  # a file, as `play` keeps
        game = new_game(terminal_like, game="orderchaos", players=["human", "greedy"], seed=8)
        wait_for(terminal_like, game["id"], my_turn)
    (path,) = games_dir.glob("*.json")
    database.save_record(
        "20000101-000000-entropy-1.json", path.read_text(), game_spec="x", finished=False, now=1.0
    )
    with signed_in(create_app(save_dir=games_dir, database=database)) as client:
        names = [line["name"] for line in client.get("/api/records").json()["records"]]
        assert names == [path.name, "20000101-000000-entropy-1.json"]  # newest first
        resumed = client.post("/api/games", json={"resume": path.name})
        assert resumed.status_code == 201, resumed.text
        final = play_out(client, resumed.json()["id"])
        assert Path(final["saved"]) == path
    assert MatchRecord.load(path).finished
    assert not database.has_record(path.name)


def test_names_in_the_database_and_the_directory_never_collide(
    tmp_path: Path, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from abstractgames.web.saved import SavedGames

    monkeypatch.setattr(time, "strftime", lambda _format: "20260101-000000")
    games_dir = tmp_path / "games"
    games_dir.mkdir()
    (games_dir / "20260101-000000-orderchaos-1.json").write_text("{}")
    database.save_record(
        "20260101-000000-orderchaos-1-2.json", "{}", game_spec="orderchaos", finished=False, now=1.0
    )
    saved = SavedGames(games_dir, database)
    with signed_in(create_app(save_dir=games_dir, database=database)) as client:
        game = new_game(client, game="orderchaos", players=["human", "greedy"], seed=1)
        snapshot = wait_for(client, game["id"], my_turn)
        client.post(f"/api/games/{game['id']}/move", json={"move": "X@c3"})
        snapshot = wait_for(client, game["id"], lambda s: my_turn(s) and len(s["plies"]) == 2)
    assert snapshot["saved"] == "20260101-000000-orderchaos-1-3.json"
    assert saved.load(snapshot["saved"]).games[0].moves[0].move == "X@c3"


def test_bad_names_and_missing_records_are_404(tmp_path: Path, database: Database) -> None:
    with signed_in(create_app(save_dir=tmp_path / "games", database=database)) as client:
        for name in ("nothing.json", "..%2Fgames.db", "a b.json"):
            assert client.get(f"/api/records/{name}").status_code == 404
            assert client.get(f"/api/records/{name}/file").status_code == 404
            assert client.post("/api/games", json={"resume": name}).status_code == 404


def test_a_damaged_record_in_the_database_is_a_400_and_listed_with_its_error(
    tmp_path: Path, database: Database
) -> None:
    database.save_record("bad.json", "{not json", game_spec="x", finished=False, now=1.0)
    with signed_in(create_app(save_dir=tmp_path / "games", database=database)) as client:
        (line,) = client.get("/api/records").json()["records"]
        assert line["name"] == "bad.json" and line["error"]
        assert client.get("/api/records/bad.json").status_code == 400
        assert client.post("/api/games", json={"resume": "bad.json"}).status_code == 400


def test_a_public_server_shows_nobody_the_records_in_its_database(
    tmp_path: Path, database: Database
) -> None:
    database.save_record("mine.json", "{}", game_spec="x", finished=False, now=1.0)
    from starlette.testclient import TestClient

    app = create_app(save_dir=tmp_path / "games", database=database, public=True)
    with TestClient(app, headers={"Origin": "http://testserver"}) as c:
        assert c.get("/api/records").json()["records"] == []
        assert c.get("/api/records/mine.json").status_code == 404
        assert c.get("/api/catalog").json()["saving"] is False
