"""The `NAME:key=value,...` grammar (`abstractgames.specs`), the same for games and players."""

from __future__ import annotations

import pytest

from abstractgames import InvalidParameterError, get_game, make_player, parse_game_spec
from abstractgames.players import InvalidPlayerError
from abstractgames.specs import parse_options, parse_value


def test_values_are_read_the_same_for_games_and_players() -> None:
    assert [parse_value(v) for v in ("3", "-2", "1.5", "1e3", "true", "False", "out/dir")] == [
        3,
        -2,
        1.5,
        1000.0,
        True,
        False,
        "out/dir",
    ]
    assert parse_options(" depth = 3 , time=0.5 ") == {"depth": 3, "time": 0.5}
    with pytest.raises(ValueError, match="use key=value"):
        parse_options("depth")
    with pytest.raises(ValueError, match="use key=value"):
        parse_options("my depth=3")
    with pytest.raises(ValueError, match="'depth' is given twice"):
        parse_options("depth=3,depth=4")


def test_game_and_player_specs_share_the_grammar() -> None:
    assert parse_game_spec("entropy:size=5").params == {"size": 5}
    assert parse_game_spec("dispersal:max_plies=12").spec == "dispersal:max_plies=12"
    with pytest.raises(InvalidParameterError, match="must be an integer"):
        parse_game_spec("entropy:size=5.5")
    with pytest.raises(InvalidParameterError, match="given twice"):
        parse_game_spec("entropy:size=5,size=7")
    game = get_game("orderchaos")
    assert make_player("search:time=0.5,depth=2", game).spec == "search:time=0.5,depth=2"
    with pytest.raises(InvalidPlayerError, match="given twice"):
        make_player("search:depth=2,depth=3", game)
