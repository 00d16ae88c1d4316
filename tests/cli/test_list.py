"""`abstractgames list`: every game and player, as text and as JSON."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from abstractgames import available_games
from abstractgames.cli import main


def test_list_shows_games_and_players() -> None:
    result = CliRunner().invoke(main, ["list"])
    assert result.exit_code == 0, result.output
    for name in available_games():
        assert f"\n  {name} " in result.output
    assert re.search(r"\n  search +time=1\.0, depth=None +built in", result.output)
    assert "path/to/bot.py:MyBot" in result.output
    listing = json.loads(CliRunner().invoke(main, ["list", "--json"]).output)
    assert [g["name"] for g in listing["games"]] == list(available_games())
    assert {p["name"]: p["origin"] for p in listing["players"]}["greedy"] == "built in"
