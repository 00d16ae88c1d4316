"""What listings say of games and players (`abstractgames.registry.listing`), and that listing
them imports no optional library."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from abstractgames import available_games, available_players, get_game
from abstractgames.registry import describe_game, describe_player


def test_listings_describe_every_game_and_player() -> None:
    for name in available_games():
        info = describe_game(name)
        assert info.origin == "built in" and info.roles == get_game(name).roles
        assert info.title and info.summary
    for name in available_players():
        assert describe_player(name).summary
    assert describe_player("search").options == {"time": 1.0, "depth": None}
    assert describe_player("engine").options is None


LIST_WITHOUT_OPENSPIEL = """
import json, sys
{block}
def imported():
    return sorted(m for m in ("pyspiel", "open_spiel") if sys.modules.get(m) is not None)
import abstractgames.players.openspiel
on_import = imported()
from abstractgames import get_game, make_player
from abstractgames.cli import main
from abstractgames.players import InvalidPlayerError
try:
    main(["list", "--json"])
except SystemExit as done:
    assert not done.code, done.code
print("---")
print(json.dumps([on_import, imported()]))
try:
    make_player("openspiel-mcts", get_game("orderchaos"))
except InvalidPlayerError as error:
    print(error)
"""


@pytest.mark.parametrize("blocked", [False, True], ids=["as-installed", "openspiel-blocked"])
def test_the_openspiel_player_is_listed_without_importing_openspiel(blocked: bool) -> None:
    # Without OpenSpiel (its imports blocked) the module imports and the listing is whole.
    block = "sys.modules['pyspiel'] = sys.modules['open_spiel'] = None" if blocked else ""
    code = LIST_WITHOUT_OPENSPIEL.format(block=block)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    listing, rest = done.stdout.split("\n---\n")
    imported, *error = rest.splitlines()
    players = {p["name"]: p["origin"] for p in json.loads(listing)["players"]}
    assert players["openspiel-mcts"] == "built in"
    assert json.loads(imported) == [[], []]  # neither on import nor for the listing
    if blocked:
        assert error == ["openspiel-mcts needs OpenSpiel: pip install 'abstractgames[rl]'"]
