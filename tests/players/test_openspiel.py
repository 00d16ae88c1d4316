"""OpenSpiel's MCTS as the built-in player `openspiel-mcts` (`abstractgames.players.openspiel`):
its spec, its seeding, its play, and the one wrapper of a game it shares with the adapter.

The player kit checks its properties in every game (tests/players/test_conformance.py)."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from functools import partial

import pytest

from abstractgames import Game, get_game, make_player
from abstractgames.players import InvalidPlayerError
from abstractgames.players import openspiel as player_module
from abstractgames.registry import describe_player, parse_game_spec

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed (no wheel here?): pip install '.[rl]'"
)

from abstractgames.rl import openspiel  # noqa: E402  (after the skip: it needs OpenSpiel)


def ours(spec: str) -> Game:
    """Our game of `spec`, skipped when it has no integer actions yet."""
    game = parse_game_spec(spec)
    if game.num_distinct_actions <= 0:
        pytest.skip(f"{spec} has no integer actions")
    return game


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_mcts_player_is_built_in_and_shares_the_adapters_wrapper() -> None:
    assert openspiel.MCTSPlayer is player_module.MCTSPlayer  # the adapter re-exports it
    assert describe_player("openspiel-mcts").origin == "built in"
    game = get_game("orderchaos")
    assert openspiel.openspiel_game(game) is player_module.pyspiel_game(game)
    state = game.initial_state().apply("X@c3")
    assert type(openspiel.openspiel_state(state)) is type(
        player_module.pyspiel_game(game).new_initial_state(state)
    )
    # A variant: the adapter declares the registered defaults, the bare wrapper its own.
    variant = ours("entropy:size=5")
    default = get_game("entropy")
    wrapped = player_module.pyspiel_game(variant)
    assert wrapped is not openspiel.openspiel_game(variant)
    assert openspiel.openspiel_game(variant) is player_module.pyspiel_game(variant, default)
    assert wrapped.get_type().parameter_specification == variant.params
    assert wrapped.get_parameters() == variant.params


def test_the_mcts_player_needs_no_registration_with_openspiel() -> None:
    done = run_python(
        "import random, pyspiel\n"
        "from abstractgames import get_game, make_player\n"
        "game = get_game('orderchaos')\n"
        "player = make_player('openspiel-mcts:simulations=20', game)\n"
        "move = player.choose(game.initial_state(), random.Random(0))\n"
        "print(move in game.initial_state().legal_moves())\n"
        "print('abstractgames_orderchaos' in pyspiel.registered_names())\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["True", "False"]


def test_a_pickled_state_loads_in_a_fresh_process_after_register() -> None:
    # Pickle finds the wrapper's state class in abstractgames.players.openspiel, where it is
    # made on first use.
    state = get_game("orderchaos").initial_state().apply("X@c3")
    data = pickle.dumps(openspiel.openspiel_state(state))
    done = run_python(
        "import pickle, sys\n"
        "from abstractgames.rl import openspiel\n"
        "openspiel.register()\n"
        f"wrapped = pickle.loads({data!r})\n"
        "print(type(wrapped).__module__, type(wrapped).__name__)\n"
        "print(wrapped.state.position(), wrapped.history())\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "abstractgames.players.openspiel _OpenSpielState",
        "6/6/6/2X3/6/6 chaos []",
    ]


def test_the_mcts_player_by_spec() -> None:
    game = get_game("orderchaos")
    player = make_player("openspiel-mcts:simulations=200,uct_c=1.5,rollouts=2", game)
    assert isinstance(player, openspiel.MCTSPlayer)
    assert (player.simulations, player.uct_c, player.rollouts) == (200, 1.5, 2)
    assert player.spec == "openspiel-mcts:simulations=200,uct_c=1.5,rollouts=2"
    default = make_player("openspiel-mcts", game)
    assert (default.simulations, default.uct_c, default.rollouts) == (1000, 2.0, 1)
    for bad in ("simulations=0", "simulations=1.5", "rollouts=0", "uct_c=-1", "uct_c=nan"):
        with pytest.raises(InvalidPlayerError, match=bad.partition("=")[0]):
            make_player(f"openspiel-mcts:{bad}", game)
    with pytest.raises(InvalidPlayerError, match="no option 'depth'"):
        make_player("openspiel-mcts:depth=2", game)


def test_the_mcts_player_is_seeded_by_its_rng_only() -> None:
    game = get_game("orderchaos")
    player = partial(openspiel.MCTSPlayer, simulations=40)(game)
    state = game.initial_state().apply("X@c3")
    np.random.seed(0)
    first = [player.choose(state, random.Random(seed)) for seed in range(4)]
    np.random.seed(1)  # numpy's global generator plays no part
    assert [player.choose(state, random.Random(seed)) for seed in range(4)] == first
    assert len(set(first)) > 1  # the seed matters


def test_the_mcts_player_finds_a_win_in_one() -> None:
    game = get_game("orderchaos")
    state = game.initial_state()
    for move in ["X@a1", "O@a6", "X@b1", "O@b6", "X@c1", "O@c6", "X@d1", "O@d6"]:
        state = state.apply(move)
    player = openspiel.MCTSPlayer(game, simulations=300)
    move = player.choose(state, random.Random(0))
    assert state.apply(move).outcome().winner == "order"


def test_the_mcts_player_plays_a_match_under_the_referee() -> None:
    from abstractgames.referee import Referee

    game = ours("entropy:size=5")
    players = (openspiel.MCTSPlayer(game, simulations=10), make_player("greedy", game))
    record = Referee(game, players, seed=3).play()
    assert record.finished
    assert record.result is not None and record.result.winner in (1, 2, None)
