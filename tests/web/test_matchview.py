"""The snapshot the page reads, pinned: every key its scripts read of `snap` is in the snapshot of
both front ends (the one-person page's and the game server's), made by one `MatchView`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from abstractgames.registry import get_game
from abstractgames.web.app import STATIC, create_app
from abstractgames.web.database import Database
from abstractgames.web.matchview import SERVER_KEYS
from abstractgames.web.online import OnlineGames

from .test_api import my_turn, new_game, signed_in, wait_for

PLAYER_KEYS = {"number", "spec", "human", "role"}
"""What the page reads of each of `snap.players`."""


def read_by_the_page() -> tuple[set[str], dict[str, set[str]]]:
    """The keys the page's scripts read of a snapshot (`snap.KEY`), and of its `position` and
    `game` (`snap.position.KEY`)."""
    keys: set[str] = set()
    nested: dict[str, set[str]] = {"position": set(), "game": set()}
    for script in sorted(STATIC.glob("*.js")):
        text = script.read_text(encoding="utf-8")
        keys |= set(re.findall(r"\bsnap\.([a-z_]+)", text))
        for name, found in nested.items():
            found |= set(re.findall(rf"\bsnap\.{name}\.([a-z_]+)", text))
    return keys, nested


@pytest.fixture
def online(tmp_path: Path) -> Iterator[OnlineGames]:
    with Database.open(tmp_path / "games.db") as database:
        games = OnlineGames(database)
        yield games
        games.close()


def check(snapshot: dict[str, Any], keys: set[str], nested: dict[str, set[str]]) -> None:
    assert keys <= set(snapshot), sorted(keys - set(snapshot))
    for name, wanted in nested.items():
        assert wanted <= set(snapshot[name]), (name, sorted(wanted - set(snapshot[name])))
    for player in snapshot["players"]:
        assert set(player) == PLAYER_KEYS and isinstance(player["human"], bool)


def test_the_page_reads_what_both_front_ends_send(online: OnlineGames, tmp_path: Path) -> None:
    keys, nested = read_by_the_page()
    assert {"awaiting", "legal", "players", "position", "you", "status", "version"} <= keys
    assert "spec" in nested["game"] and "facts" in nested["position"]
    with signed_in(create_app(save_dir=tmp_path / "games")) as client:
        made = new_game(client, game="orderchaos", players=["human", "greedy"], seed=1)
        page = wait_for(client, made["id"], my_turn)
    check(page, keys - SERVER_KEYS, nested)
    assert not SERVER_KEYS & set(page), "a key only the game server sends"
    assert [p["human"] for p in page["players"]] == [True, False]
    game_id, mine, theirs = online.create(get_game("orderchaos"), seat=1)
    assert theirs is not None
    for secret in (mine, theirs, None):  # the seat to move, the other seat, a watcher
        server = online.snapshot(game_id, secret)
        check(server, keys, nested)
        assert set(server) >= SERVER_KEYS
        you = server["you"]
        assert [p["human"] for p in server["players"]] == [you == 1, you == 2]
        assert bool(server["legal"]) == (you == 1)
    assert set(page) == set(server) - SERVER_KEYS, "the same snapshot, the server's keys aside"
