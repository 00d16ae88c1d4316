"""The player contract (`abstractgames.players`): a player refuses a finished game, and every
search bot says what its search found (`SearchInfo`)."""

from __future__ import annotations

import random

import pytest

from abstractgames import IllegalMoveError, get_game, make_player
from abstractgames.players import SearchInfo


def test_players_refuse_finished_games() -> None:
    game = get_game("orderchaos")
    over = game.from_position("6/6/6/6/6/XXXXX1 chaos")
    for name in ("random", "greedy"):
        with pytest.raises(IllegalMoveError, match="no move to choose"):
            make_player(name, game).choose(over, random.Random(0))


# --- what a search found --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["orderchaos", "entropy", "dispersal"])
@pytest.mark.parametrize("spec", ["search:depth=2", "search:time=0.05", "greedy"])
def test_every_search_bot_says_what_its_search_found(name: str, spec: str) -> None:
    game = get_game(name)
    player = make_player(spec, game)
    assert player.info is None
    state = game.initial_state()
    while state.is_chance():
        state = state.apply(state.legal_moves()[0])
    move = player.choose(state, random.Random(3))
    info = player.info
    assert isinstance(info, SearchInfo) and move in state.legal_moves()
    assert info.depth >= 1 and info.nodes is not None and info.nodes > 0
    assert info.value is not None and 0 <= info.seconds < 5
    assert f"search depth {info.depth}" in info.summary()
    assert info.to_json()["depth"] == info.depth


def test_search_info_in_words() -> None:
    assert SearchInfo(4, 12, 100, 0.5).summary() == "value +12 for the side to move, search depth 4"
    assert SearchInfo(3, 10**6, 9, 0.1, mate_in=3).summary() == (
        "a forced win in 3 plies, search depth 3"
    )
    assert SearchInfo(1, None, 9, 0.1, mate_in=-1).summary() == (
        "a forced loss in 1 ply, search depth 1"
    )
    game = get_game("orderchaos")
    pv = (game.parse_move("X@c3", game.initial_state()),)
    assert SearchInfo(0, None, None, 0.0, pv=pv).summary() == "expects X@c3"
    assert SearchInfo(0, None, None, 0.0, pv=pv).to_json()["pv"] == ["X@c3"]
