"""The flat Monte Carlo player `mc` (`abstractgames.players.mc`), whose playouts run through
each game's batched simulator."""

from __future__ import annotations

import random

import pytest

from abstractgames import CHANCE, get_game, make_player, parse_game_spec
from abstractgames.players import InvalidPlayerError


@pytest.mark.parametrize("spec", ["orderchaos", "entropy:size=5", "dispersal"])
def test_mc_player_chooses_legal_moves_reproducibly(spec: str) -> None:
    game = parse_game_spec(spec)
    player = make_player("mc:simulations=64", game)
    state = game.initial_state()
    if state.to_move == CHANCE:
        state = state.apply_action(state.legal_actions()[0])
    first = player.choose(state, random.Random(3))
    assert first in state.legal_moves()
    assert player.choose(state, random.Random(3)) == first


def test_mc_player_takes_a_win() -> None:
    game = get_game("orderchaos")
    state = game.from_position("6/6/6/6/6/XXXX2 order")
    move = make_player("mc:simulations=200", game).choose(state, random.Random(0))
    assert state.apply(move).outcome().winner == "order"  # type: ignore[union-attr]


def test_mc_player_options() -> None:
    with pytest.raises(InvalidPlayerError):
        make_player("mc:simulations=0", get_game("orderchaos"))
