"""`abstractgames list`: every game and player, as text and as JSON."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from abstractgames import available_games
from abstractgames.cli import main


def test_list_shows_games_and_players() -> None:
    result = CliRunner().invoke(main, ["list"])
    assert result.exit_code == 0, result.output
    for name in available_games():
        assert f"\n  {name} " in result.output
    assert re.search(r"\n  search +built in +time=1\.0, depth=None", result.output)
    assert "path/to/bot.py:MyBot" in result.output
    listing = json.loads(CliRunner().invoke(main, ["list", "--json"]).output)
    assert [g["name"] for g in listing["games"]] == list(available_games())
    assert {p["name"]: p["origin"] for p in listing["players"]}["greedy"] == "built in"


def test_list_is_a_table_that_fits_the_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 80 columns "from" and "built in" are columns of the table, never lines of their own;
    every line fits, at 60 and 40 columns too (narrower, each row's cells are stacked)."""
    for width in (80, 60, 40):
        monkeypatch.setenv("COLUMNS", str(width))
        out = CliRunner().invoke(main, ["list"]).output
        assert max(len(line) for line in out.splitlines()) <= width, width
        lines = [line.strip() for line in out.splitlines()]
        if width == 80:
            assert "from" not in lines and "built in" not in lines
            assert re.search(r"\n  name +from +parameters +title\n", out)
            assert re.search(r"\n  entropy +built in +size=7 +Eric Solomon's Entropy\n", out)
