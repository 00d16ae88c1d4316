"""Players: legal, reproducible, non-mutating, named by specs; greedy's tactics."""

from __future__ import annotations

import random

import pytest

from abstractgames import (
    IllegalMoveError,
    available_players,
    get_game,
    make_player,
    register_player,
)
from abstractgames.players import InvalidPlayerError, Player, SearchInfo
from abstractgames.registry.players import _players as registered_players


def test_players_refuse_finished_games() -> None:
    game = get_game("orderchaos")
    over = game.from_position("6/6/6/6/6/XXXXX1 chaos")
    for name in ("random", "greedy"):
        with pytest.raises(IllegalMoveError, match="no move to choose"):
            make_player(name, game).choose(over, random.Random(0))


def test_player_specs() -> None:
    game = get_game("orderchaos")
    assert {"random", "greedy"} <= set(available_players())
    assert make_player("random", game).spec == "random"
    assert make_player(" Greedy ", game).spec == "Greedy"
    with pytest.raises(InvalidPlayerError, match="unknown player 'alphazero'; available players"):
        make_player("alphazero", game)
    with pytest.raises(InvalidPlayerError, match="has no option 'depth'; its options: none"):
        make_player("greedy:depth=3", game)
    with pytest.raises(InvalidPlayerError, match="use key=value"):
        make_player("random:fast", game)


def test_register_your_own_player() -> None:
    class FirstMove(Player):
        def __init__(self, game: object, offset: int = 0) -> None:
            self.offset = offset

        def choose(self, state, rng, time_left=None):  # type: ignore[no-untyped-def]
            return state.legal_moves()[self.offset]

    register_player("first", FirstMove)
    try:
        player = make_player("first:offset=1", get_game("orderchaos"))
        assert str(player.choose(get_game("orderchaos").initial_state(), random.Random())) == "O@a1"
    finally:
        registered_players.pop("first")


def test_greedy_order_and_chaos_tactics() -> None:
    game = get_game("orderchaos")
    greedy = make_player("greedy", game)
    rng = random.Random(0)
    # Order completes five at once (either end of the open four).
    win = game.from_position("6/6/6/6/OO4/1XXXX1 order")
    assert str(greedy.choose(win, rng)) in ("X@a1", "X@f1")
    # Chaos spoils a four that Order would complete next move.
    block = game.from_position("6/6/6/6/O5/XXXX2 chaos")
    assert str(greedy.choose(block, rng)) == "O@e1"


def test_greedy_beats_random_at_order_and_chaos() -> None:
    """A smoke check of strength (the measured figures live in the docs, not in tests)."""
    game = get_game("orderchaos")
    rng = random.Random(11)
    wins = 0
    for _ in range(10):
        state = game.initial_state()
        seats = {"order": make_player("greedy", game), "chaos": make_player("random", game)}
        while state.to_move is not None:
            state = state.apply(seats[state.to_move].choose(state, rng))
        wins += state.outcome().winner == "order"  # type: ignore[union-attr]
    assert wins >= 9


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
