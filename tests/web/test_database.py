"""The game server's store on SQLite and on a real PostgreSQL server (see ``postgres.py``)."""

from __future__ import annotations

import os
import secrets
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

import sqlalchemy as sa

from abstractgames.protocol import AbstractGamesError
from abstractgames.web.database import (
    SCHEMA_VERSION,
    Change,
    Changes,
    Database,
    DatabaseError,
    GameFinished,
    NotADatabase,
    NotYourChallenge,
    SchemaTooNew,
    StalePly,
    UnknownChallenge,
    UnknownGame,
    UnknownRecord,
    UnsupportedDatabase,
    hash_secret,
)

from .postgres import postgres_url  # noqa: F401  (a fixture)

SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of each kind."""
    if request.param == "sqlite":
        yield str(tmp_path / "games.db")
        return
    server = request.getfixturevalue("postgres_url")
    name = "t_" + secrets.token_hex(6)
    admin = sa.create_engine(server.replace("postgresql://", "postgresql+psycopg://"))
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    admin.dispose()
    yield server.rsplit("/", 1)[0] + "/" + name


def two_seats() -> list[tuple[str | None, str | None]]:
    return [(hash_secret("alice"), "Alice"), (hash_secret("bob"), None)]


def test_a_game_round_trips(url: str) -> None:
    with Database.open(url) as db:
        assert db.version() == SCHEMA_VERSION
        game_id = db.create_game("orderchaos", {"base": 300}, two_seats(), "pos", 10.0)
        db.add_move(game_id, 0, "a1 X", 11.0, {"0": 299.0})
        db.add_move(game_id, 1, "b2 O", 12.5, {"1": 298.0}, deadline=100.0)
        game = db.game(game_id)
        assert game.id == game_id and game.game_spec == "orderchaos"
        assert game.time_control == {"base": 300} and game.start_position == "pos"
        assert [m.move for m in game.moves] == ["a1 X", "b2 O"] and game.ply == 2
        assert game.moves[0].clocks == {"0": 299.0} and game.clocks == {"1": 298.0}
        assert (game.created_at, game.updated_at, game.deadline) == (10.0, 12.5, 100.0)
        assert [s.name for s in game.seats] == ["Alice", None]
        assert game.result is None and not game.finished
        db.finish_game(game_id, {"winner": 0}, 20.0)
        game = db.game(game_id)
        assert game.result == {"winner": 0} and game.finished_at == 20.0 and game.finished
        with pytest.raises(UnknownGame):
            db.game("nope")


def test_moves_must_follow_in_order_and_not_after_the_end(url: str) -> None:
    with Database.open(url) as db:
        game_id = db.create_game("entropy", "5+0", two_seats(), None, 1.0)
        db.add_move(game_id, 0, "m0", 2.0, None)
        with pytest.raises(StalePly) as stale:
            db.add_move(game_id, 0, "again", 3.0, None)
        assert stale.value.current == 1
        with pytest.raises(StalePly):
            db.add_move(game_id, 5, "ahead", 3.0, None)
        db.finish_game(game_id, {"resigned": 1}, 4.0)
        with pytest.raises(GameFinished):
            db.add_move(game_id, 1, "late", 5.0, None)
        with pytest.raises(UnknownGame):
            db.add_move("nope", 0, "m", 1.0, None)
        assert [m.move for m in db.game(game_id).moves] == ["m0"]


def test_seats_secrets_bots_notifications_and_presence(url: str) -> None:
    with Database.open(url) as db:
        seats = [(hash_secret("s3cret"), "Ann", None), (None, None, "greedy")]
        game_id = db.create_game("orderchaos", "1d", seats, None, 1.0)
        assert db.seat_for(game_id, "s3cret") == 0
        assert db.seat_for(game_id, "wrong") is None and db.seat_for("nope", "s3cret") is None
        db.set_notifications(game_id, 0, webhook_url="https://x.test/h", email="a@x.test")
        db.touch_seat(game_id, 0, 42.0)
        ann, bot = db.game(game_id).seats
        assert (ann.webhook_url, ann.email, ann.last_seen) == ("https://x.test/h", "a@x.test", 42.0)
        assert ann.secret_hash == hash_secret("s3cret") and "s3cret" not in repr(ann)
        assert (bot.secret_hash, bot.player_spec) == (None, "greedy")
        with pytest.raises(UnknownGame):
            db.touch_seat(game_id, 7, 1.0)


def test_lists_of_games_and_correspondence_deadlines(url: str) -> None:
    with Database.open(url) as db:
        mine = db.create_game("orderchaos", "1d", two_seats(), None, 1.0, deadline=50.0)
        other = db.create_game("orderchaos", "1d", [(None, "x"), ("h", "y")], None, 2.0)
        db.set_deadline(other, 30.0)
        done = db.create_game("orderchaos", "1d", two_seats(), None, 3.0, deadline=10.0)
        db.finish_game(done, {"winner": 1}, 4.0)
        assert [g.id for g in db.games_for_seats([hash_secret("alice")])] == [done, mine]
        assert db.games_for_seats([]) == []
        assert {g.id for g in db.unfinished_games()} == {mine, other}
        assert [g.id for g in db.games_due(40.0)] == [other]
        assert [g.id for g in db.games_due(60.0)] == [other, mine]


def test_lobby_challenges(url: str) -> None:
    with Database.open(url) as db:
        first = db.create_challenge("orderchaos", "5+0", 1, "creator", "Cy", 1.0)
        second = db.create_challenge("entropy", {"days": 1}, None, "creator", None, 2.0)
        assert [c.id for c in db.challenges()] == [first, second]
        with pytest.raises(NotYourChallenge):
            db.cancel_challenge(first, "someone else")
        game_id = db.accept_challenge(first, "acceptor", "Al", 3.0)
        game = db.game(game_id)
        assert [s.secret_hash for s in game.seats] == ["acceptor", "creator"]
        assert game.time_control == "5+0" and game.created_at == 3.0
        with pytest.raises(UnknownChallenge):
            db.accept_challenge(first, "late", None, 4.0)
        db.cancel_challenge(second, "creator")
        assert db.challenges() == []
        with pytest.raises(UnknownChallenge):
            db.cancel_challenge(second, "creator")


def _race(actions: list) -> list[object]:
    barrier = threading.Barrier(len(actions))
    outcomes: list[object] = [None] * len(actions)

    def run(i: int) -> None:
        barrier.wait()
        try:
            outcomes[i] = actions[i]()
        except AbstractGamesError as error:
            outcomes[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(actions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_of_two_racing_moves_exactly_one_wins(url: str) -> None:
    with Database.open(url) as one, Database.open(url) as two:
        for _ in range(5):
            game_id = one.create_game("orderchaos", "1d", two_seats(), None, 1.0)
            outcomes = _race(
                [
                    partial(one.add_move, game_id, 0, "a", 1.0),
                    partial(two.add_move, game_id, 0, "b", 1.0),
                ]
            )
            assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "StalePly"]
            assert one.game(game_id).ply == 1


def test_of_two_acceptors_exactly_one_wins(url: str) -> None:
    with Database.open(url) as one, Database.open(url) as two:
        for _ in range(5):
            challenge = one.create_challenge("orderchaos", "5+0", 0, "c", None, 1.0)
            outcomes = _race(
                [
                    partial(one.accept_challenge, challenge, "a", None, 2.0),
                    partial(two.accept_challenge, challenge, "b", None, 2.0),
                ]
            )
            winners = [o for o in outcomes if isinstance(o, str)]
            assert len(winners) == 1 and sum(isinstance(o, UnknownChallenge) for o in outcomes) == 1
            assert one.challenges() == [] and one.game(winners[0]).seats[0].secret_hash == "c"


def test_of_two_racing_rematches_one_is_made(url: str) -> None:
    with Database.open(url) as one, Database.open(url) as two:
        for _ in range(10):
            game_id = one.create_game("orderchaos", "1d", two_seats(), None, 1.0)
            one.add_move(game_id, 0, "resign", 2.0, result={"winner": 2})
            outcomes = _race(
                [
                    partial(one.create_rematch, game_id, two_seats(), 3.0),
                    partial(two.create_rematch, game_id, two_seats(), 3.0),
                ]
            )
            assert outcomes[0] == outcomes[1] and isinstance(outcomes[0], str), outcomes
            assert one.game(game_id).rematch == outcomes[0]
        assert len(one.unfinished_games()) == 10  # one rematch each, no more


def test_a_version_1_database_is_migrated_with_its_data(url: str) -> None:
    with Database.open(url, target=1) as old:
        assert old.version() == 1
        game_id = old.create_game("orderchaos", "1d", two_seats(), None, 1.0)
        with old._engine.connect() as conn:
            columns = {c["name"] for c in sa.inspect(conn).get_columns("seats")}
        assert "last_seen" not in columns
    with Database.open(url) as new:
        assert new.version() == SCHEMA_VERSION >= 9
        assert new.vacations("nobody") == [] and not new.game(game_id).seats[0].digest
        assert new.game(game_id).seats[0].name == "Alice" and new.seat_for(game_id, "alice") == 0
        new.touch_seat(game_id, 1, 5.0)
        assert new.game(game_id).seats[1].last_seen == 5.0
        assert new.game(game_id).record is None  # version 3's column, empty for old games
        new.add_move(game_id, 0, "Xa1", 6.0, record='{"moves": 1}')
        assert new.game(game_id).record == '{"moves": 1}'
        assert new.records(10) == []  # version 4's table, empty
        assert new.game(game_id).offer is None  # version 5's column: no takeback asked
        assert new.game(game_id).given_back == 0.0  # version 6's column: no downtime yet
        assert new.swept(1000.0, 3.0) == 0.0  # and its table: the first sweep ever
        key = new.server_key("mail-links")  # version 7's table: made once, then the same
        assert len(key) == 32 and new.server_key("mail-links") == key
        new.save_record("a.json", "{}", game_spec="orderchaos", finished=False, now=7.0)
        assert new.record("a.json") == "{}"
        # version 8's: accounts, seats bound to them, ratings
        assert new.game(game_id).seats[0].account_id is None
        ann = new.create_account("Ann", "ann", email=None, recovery_hash=None, now=8.0)
        assert new.bind_seats(ann.id, [hash_secret("alice")], "Ann") == [game_id]
        assert new.game(game_id).seats[0].account_id == ann.id
        assert new.ratings(ann.id) == []


def test_records_of_the_page_are_kept_by_name_and_replaced(url: str) -> None:
    with Database.open(url) as db:
        assert not db.has_record("m.json")
        with pytest.raises(UnknownRecord):
            db.record("m.json")
        db.save_record("m.json", "r1", game_spec="entropy", finished=False, now=1.0)
        db.save_record("n.json", "s1", game_spec="orderchaos", finished=True, now=2.0)
        db.save_record("m.json", "r2", game_spec="entropy", finished=True, now=3.0)
        assert db.has_record("m.json") and db.record("m.json") == "r2"
        assert db.records(10) == [("m.json", 3.0), ("n.json", 2.0)]
        assert db.records(1) == [("m.json", 3.0)]


def test_a_record_that_cannot_be_written_is_a_database_error(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "games.db")
    with db._engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE records"))
    with pytest.raises(DatabaseError, match=r"cannot keep the record m\.json"):
        db.save_record("m.json", "r", game_spec="entropy", finished=False, now=1.0)
    db.close()


def test_a_move_can_carry_the_record_and_finish_the_game(url: str) -> None:
    with Database.open(url) as db:
        game_id = db.create_game("orderchaos", "1d", two_seats(), None, 1.0, record="r0")
        assert db.game(game_id).record == "r0"
        db.add_move(game_id, 0, "Xa1", 2.0, record="r1", result={"winner": 1})
        row = db.game(game_id)
        assert (row.record, row.result, row.finished_at, row.ply) == ("r1", {"winner": 1}, 2.0, 1)
        with pytest.raises(GameFinished):
            db.add_move(game_id, 1, "Ob2", 3.0, record="r2")
        assert db.game(game_id).record == "r1"


def test_renaming_a_seat_is_a_change_of_its_game(url: str) -> None:
    with Database.open(url) as db, db.listen(poll=0.05) as changes:
        game_id = db.create_game("orderchaos", "1d", two_seats(), None, 1.0)
        db.rename_seat(game_id, 1, "Bea")
        assert db.game(game_id).seats[1].name == "Bea"
        seen = [changes.get(timeout=5) for _ in range(2)]
        assert Change("game", game_id, 0) in seen
        with pytest.raises(UnknownGame):
            db.rename_seat(game_id, 7, "X")


def test_a_newer_schema_is_refused(url: str) -> None:
    with Database.open(url) as db, db._engine.begin() as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = 99"))
    with pytest.raises(SchemaTooNew, match="schema version 99"):
        Database.open(url)


def test_bad_files_and_urls_are_refused_clearly(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100)
    with pytest.raises(NotADatabase, match="not a database"):
        Database.open(text)
    corrupt = tmp_path / "corrupt.db"
    with Database.open(corrupt) as db:
        db.create_game("orderchaos", "1d", two_seats(), None, 1.0)
    data = bytearray(corrupt.read_bytes())
    data[:100] = b"\xff" * 100
    corrupt.write_bytes(bytes(data))
    with pytest.raises(NotADatabase):
        Database.open(corrupt)
    for bad in ("mysql://u@h/db", "sqlite:///:memory:", "http://example.com/x"):
        with pytest.raises(UnsupportedDatabase):
            Database.open(bad)
    assert issubclass(NotADatabase, ValueError) and issubclass(SchemaTooNew, AbstractGamesError)


def test_sqlite_urls_and_settings(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    with Database.open(f"sqlite:///{path}") as db, db._engine.connect() as conn:
        pragma = {
            name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
        }
    assert pragma == {
        "journal_mode": "wal",
        "synchronous": 2,
        "foreign_keys": 1,
        "busy_timeout": 30000,
    }
    assert sqlite3.connect(path).execute("SELECT version FROM schema_version").fetchone() == (
        SCHEMA_VERSION,
    )


def test_sqlite_changes_reach_other_database_objects_in_the_process(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    with (
        Database.open(path) as one,
        Database.open(f"sqlite:///{path}") as two,
        two.listen() as changes,
    ):
        game_id = one.create_game("orderchaos", "1d", two_seats(), None, 1.0)
        one.add_move(game_id, 0, "m", 2.0)
        one.create_challenge("orderchaos", "1d", 0, "c", None, 3.0)
        assert [changes.get(1) for _ in range(3)] == [
            Change("game", game_id, 0),
            Change("game", game_id, 1),
            Change("lobby"),
        ]
        assert changes.get(0.01) is None


def assert_each_write_reported_once(database: Database, changes: Changes) -> None:
    """A game made, a move and a challenge: each reported once, after ten polls or more."""
    game_id = database.create_game("orderchaos", "1d", two_seats(), None, 1.0)
    database.add_move(game_id, 0, "m", 2.0)
    database.create_challenge("orderchaos", "1d", 0, "c", None, 3.0)
    time.sleep(0.2)  # polled ten times meanwhile
    seen = []
    while (change := changes.get(0.01)) is not None:
        seen.append(change)
    assert seen == [Change("game", game_id, 0), Change("game", game_id, 1), Change("lobby")]


def test_a_change_of_this_process_is_reported_once_though_the_counter_is_polled(
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.db"
    with Database.open(path) as one, one.listen(poll=0.02) as changes:
        assert_each_write_reported_once(one, changes)


def test_a_change_of_this_process_is_reported_once_though_the_poller_sees_it_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    published = Database._published

    def late(self: Database, change: Change) -> None:
        time.sleep(0.1)  # committed, and polled five times, before it is published
        published(self, change)

    monkeypatch.setattr(Database, "_published", late)
    with Database.open(tmp_path / "games.db") as one, one.listen(poll=0.02) as changes:
        assert_each_write_reported_once(one, changes)


def test_a_rolled_back_write_leaves_its_counter_value_to_other_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "games.db"
    with Database.open(path) as one, one.listen(poll=0.02) as changes:
        game_id = one.create_game("orderchaos", "1d", two_seats(), None, 1.0)
        assert changes.get(1) == Change("game", game_id, 0)

        def fail(self: Database, conn: sa.Connection, change: Change) -> None:
            raise OSError("the disk is full")

        with monkeypatch.context() as patch, pytest.raises(OSError):
            patch.setattr(Database, "_notify", fail)  # after the bump, inside the transaction
            one.add_move(game_id, 0, "m", 2.0)
        subprocess.run(_python(ADD_MOVE, str(path), game_id, "0"), check=True)
        assert changes.get(5) == Change("game", game_id, 1)


ADD_MOVE = """
import sys
from abstractgames.web.database import Database
with Database.open(sys.argv[1]) as db:
    db.add_move(sys.argv[2], int(sys.argv[3]), "m", 5.0)
"""


def _python(*args: str) -> list[str]:
    return [sys.executable, "-c", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC}


def test_sqlite_changes_of_other_processes_are_polled(tmp_path: Path) -> None:
    path = str(tmp_path / "games.db")
    with Database.open(path) as db, db.listen(poll=0.05) as changes:
        game_id = db.create_game("orderchaos", "1d", two_seats(), None, 1.0)
        assert changes.get(1) == Change("game", game_id, 0)
        subprocess.run(_python(ADD_MOVE, path, game_id, "0"), check=True, env=_env())
        seen = {changes.get(2) for _ in range(3)}  # the poller reports the creation once more
        assert Change("game", game_id, 1) in seen


def test_postgresql_changes_of_other_processes_arrive_within_a_second(
    postgres_url: str,  # noqa: F811
) -> None:
    with Database.open(postgres_url) as db, db.listen() as changes:
        game_id = db.create_game("orderchaos", "1d", two_seats(), None, 1.0)
        assert changes.get(1) == Change("game", game_id, 0)
        process = subprocess.Popen(_python(ADD_MOVE, postgres_url, game_id, "0"), env=_env())
        assert process.wait(20) == 0
        started = time.monotonic()
        assert changes.get(1) == Change("game", game_id, 1)
        assert time.monotonic() - started < 1


def test_postgresql_listener_reconnects_after_its_connection_drops(
    postgres_url: str,  # noqa: F811
) -> None:
    with Database.open(postgres_url) as db, db.listen() as changes:
        with db._engine.begin() as conn:
            conn.execute(
                sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
                )
            )
        assert changes.get(5) == Change("all")
        game_id = db.create_game("orderchaos", "1d", two_seats(), None, 1.0)
        assert changes.get(2) == Change("game", game_id, 0)


WRITER = """
import sys
from abstractgames.web.database import Database
with Database.open(sys.argv[1]) as db:
    game_id = sys.argv[2]
    ply = db.game(game_id).ply
    while True:
        db.add_move(game_id, ply, f"m{ply}", 1.0, {"ply": ply})
        print(ply, flush=True)
        ply += 1
"""


LAUNCHER = """
import os, sys
import abstractgames.web.database  # imported once, here: each writer is a fork of this process
writer = sys.argv.pop(1)  # WRITER, whose arguments follow it
for _ in sys.stdin:  # each line starts a writer, which says its pid; "gone" once it has ended
    pid = os.fork()
    if pid == 0:
        try:
            print(os.getpid(), flush=True)
            exec(writer, {"__name__": "__main__"})
        finally:
            os._exit(1)
    os.waitpid(pid, 0)
    print("gone", flush=True)
"""
"""Starts writers one after another, each a process of its own forked after the imports (a
writer started from scratch spends most of a second importing the web server's modules)."""


def test_no_acknowledged_move_is_lost_when_the_writer_is_killed(tmp_path: Path) -> None:
    path = str(tmp_path / "games.db")
    with Database.open(path) as db:
        game_id = db.create_game("orderchaos", "1d", two_seats(), None, 1.0)
    launcher = subprocess.Popen(
        _python(LAUNCHER, WRITER, path, game_id),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    assert launcher.stdin is not None and launcher.stdout is not None
    try:
        acknowledged = -1
        for _ in range(20):
            launcher.stdin.write("\n")
            launcher.stdin.flush()
            pid = launcher.stdout.readline()
            assert pid.strip().isdigit(), f"no writer started: {pid!r}"
            first = launcher.stdout.readline()
            assert first not in ("", "gone\n"), "the writer stopped before its first move"
            time.sleep(secrets.randbelow(50) / 1000)
            os.kill(int(pid), signal.SIGKILL)
            said = [first]
            while True:
                line = launcher.stdout.readline()
                assert line, "the launcher stopped"
                if line.endswith("gone\n"):  # a writer killed between a ply and its newline
                    said.append(line.removesuffix("gone\n"))  # leaves the ply before "gone"
                    break
                said.append(line)
            plies = [int(line) for line in said if line.strip()]
            acknowledged = max(acknowledged, *plies)
            with Database.open(path) as db:
                moves = db.game(game_id).moves
            assert [m.ply for m in moves] == list(range(len(moves)))
            assert len(moves) > acknowledged
    finally:
        launcher.stdin.close()  # the launcher ends with its input
        try:
            launcher.wait(timeout=30)
        except subprocess.TimeoutExpired:
            launcher.kill()
            launcher.wait()
        launcher.stdout.close()
