"""`abstractgames server admin` against a game server's database, SQLite and PostgreSQL alike, while
a server runs on it: a game aborted stops on the server, a name blocked signs out and stays
reserved, and the other tools (list, delete, expire, rename, merge, export, operators)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")

from click.testing import CliRunner, Result

from abstractgames import get_game
from abstractgames.cli import main
from abstractgames.web.database import Database, _new_id
from abstractgames.web.errors import Conflict
from abstractgames.web.online_api import OnlineServer

from .postgres import postgres_url  # noqa: F401  (a fixture)
from .test_database import url  # noqa: F401  (a fixture: each kind of database)
from .test_notify import wait_until


@pytest.fixture
def running(url: str) -> Iterator[OnlineServer]:  # noqa: F811
    """A server's games and accounts on `url`, following the database's changes."""
    database = Database.open(url)
    server = OnlineServer(database)
    try:
        yield server
    finally:
        server.close()
        database.close()


def admin(url: str, *words: str) -> Result:  # noqa: F811
    return CliRunner().invoke(main, ["server", "admin", *words, "--database", url])


def test_server_admin_aborts_a_game_and_the_running_server_stops_it(
    running: OnlineServer,
    url: str,  # noqa: F811
) -> None:
    game_id, ann, _ = running.games.create(get_game("orderchaos"), seat=1, name="Ann")
    assert running.games.snapshot(game_id)["status"] == "playing"
    listed = admin(url, "games")
    assert listed.exit_code == 0 and game_id in listed.output and "playing" in listed.output
    done = admin(url, "abort", game_id)
    assert done.exit_code == 0, done.output
    assert done.output == f"game {game_id} aborted\n"
    wait_until(lambda: running.games.snapshot(game_id)["status"] == "failed", 5)
    assert running.games.snapshot(game_id)["error"] == "aborted by the server's operator"
    with pytest.raises(Conflict, match="over"):
        running.games.play(game_id, ann, "X@a1", 0)
    assert "aborted" in admin(url, "games").output
    again = admin(url, "abort", game_id)
    assert again.exit_code == 1 and "over already" in again.output
    assert "Traceback" not in again.output
    missing = admin(url, "abort", "nosuchgame")
    assert missing.exit_code == 1 and "no game nosuchgame" in missing.output
    assert admin(url, "delete", game_id, "--yes").exit_code == 0
    assert game_id not in admin(url, "games").output


def test_server_admin_blocks_a_name_and_the_running_server_signs_it_out(
    running: OnlineServer,
    url: str,  # noqa: F811
) -> None:
    accounts = running.accounts
    ann = accounts.create("Ann")
    assert accounts.session(ann.token) is not None
    blocked = admin(url, "block", "ANN")
    assert blocked.exit_code == 0 and blocked.output == "ANN is blocked\n"
    assert accounts.session(ann.token) is None
    with pytest.raises(Exception, match="blocked"):
        accounts.sign_in("Ann", ann.recovery_code or "")
    # a name nobody has is reserved, blocked
    assert admin(url, "block", "Squatter").exit_code == 0
    with pytest.raises(Conflict):
        accounts.create("squatter")
    with pytest.raises(Conflict):
        accounts.seat_name("SQUATTER", None)
    listed = admin(url, "accounts").output
    assert "Ann  -  blocked" in listed and "Squatter  -  blocked" in listed
    assert admin(url, "unblock", "ann").exit_code == 0
    assert accounts.sign_in("ann", ann.recovery_code or "").account.name == "Ann"
    bad = admin(url, "block", "no such name!")
    assert bad.exit_code == 1 and "Traceback" not in bad.output


def test_server_admin_renames_merges_exports_and_makes_operators(
    running: OnlineServer,
    url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    accounts = running.accounts
    ann, old = accounts.create("Ann"), accounts.create("AnnOld")
    game_id, mine, _ = running.games.create(get_game("orderchaos"), seat=1)
    accounts.claim(old.account, [mine])
    assert admin(url, "rename", "AnnOld", "Ann2").exit_code == 0
    assert running.database.game(game_id).seats[0].name == "Ann2"
    taken = admin(url, "rename", "Ann2", "ann")
    assert taken.exit_code == 1 and "another account's" in taken.output
    merged = admin(url, "merge", "Ann2", "Ann")
    assert merged.exit_code == 0 and "(1 seats)" in merged.output
    assert running.database.game(game_id).seats[0].account_id == ann.account.id
    assert admin(url, "export", "Ann2").exit_code == 1  # gone into Ann
    exported = json.loads(admin(url, "export", "ann").output)
    assert exported["account"]["name"] == "Ann"
    assert [g["id"] for g in exported["games"]] == [game_id]
    assert exported["games"][0]["seats"][0]["yours"] is True
    written = tmp_path / "ann.json"
    assert admin(url, "export", "Ann", "-o", str(written)).exit_code == 0
    assert json.loads(written.read_text())["account"]["name"] == "Ann"
    assert admin(url, "make-operator", "Ann").exit_code == 0
    assert accounts.session(ann.token).operator  # type: ignore[union-attr]
    running.games.challenge(get_game("orderchaos"))
    expired = admin(url, "expire-challenges", "--all")
    assert expired.output == "1 challenge taken out of the lobby\n"


def test_game_ids_never_start_with_a_dash_which_the_command_would_read_as_an_option() -> None:
    assert not any(_new_id().startswith("-") for _ in range(5000))
