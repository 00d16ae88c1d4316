"""How fast random games run through the game-AI adapters, next to the plain protocol.

For each game with integer actions, random games are played in one process, the same way
through each path, and the figures are the medians of 5 repeats:

- `protocol moves`: `state.legal_moves()` and `state.apply(move)`, the plain protocol;
- `protocol actions`: `state.legal_actions()` and `state.apply_action(action)`;
- `pettingzoo`: the environment of `abstractgames.rl.pettingzoo.env`: `agent_iter()`,
  `last()` and `step(action)`, the action drawn from the legal ones of the action mask;
- `openspiel`: our game registered with OpenSpiel (`abstractgames.rl.openspiel`), played from
  Python through `pyspiel`: `legal_actions()`, `chance_outcomes()` and `apply_action(action)`;
- `openspiel C++ mnk`: OpenSpiel's own C++ game `mnk(m=6,n=6,k=5)` (five in a row on 6×6, the
  nearest built-in game to Order and Chaos) played the same way from Python, as the reference
  point for Order and Chaos only.

Every path draws a player's move uniformly with `random.Random.choice` and a chance event by its
probabilities with `random.Random.choices`; PettingZoo resolves chance inside the environment.
A move is a player's ply (chance events are not counted). The ratio is the path's moves per
second against the plain protocol's.

Usage: python benchmarks/adapters.py [--json] [--games N] [--repeats R] [--seed S] [GAME ...]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from abstractgames import CHANCE, Game, available_games, parse_game_spec

Path = Callable[[Game, int, random.Random], int]
"""Plays `games` random games of the game and returns the players' moves played."""


def protocol_moves(game: Game, games: int, rng: random.Random) -> int:
    choice, choices = rng.choice, rng.choices
    moves = 0
    for _ in range(games):
        state = game.initial_state()
        while not state.is_terminal():
            if state.to_move == CHANCE:
                outcomes = state.chance_outcomes()
                move = choices([m for m, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                move = choice(state.legal_moves())
                moves += 1
            state = state.apply(move)
    return moves


def protocol_actions(game: Game, games: int, rng: random.Random) -> int:
    choice, choices = rng.choice, rng.choices
    moves = 0
    for _ in range(games):
        state = game.initial_state()
        while not state.is_terminal():
            if state.to_move == CHANCE:
                outcomes = state.chance_actions()
                action = choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                action = choice(state.legal_actions())
                moves += 1
            state = state.apply_action(action)
    return moves


def pettingzoo(game: Game, games: int, rng: random.Random) -> int:
    import numpy as np

    from abstractgames.rl.pettingzoo import env as make_env

    choice = rng.choice
    flatnonzero = np.flatnonzero
    env = make_env(game)
    moves = 0
    for _ in range(games):
        env.reset(seed=rng.getrandbits(32))
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(choice(flatnonzero(observation["action_mask"]))))
                moves += 1
    return moves


def _pyspiel_games(loaded: Any, games: int, rng: random.Random) -> int:
    choice, choices = rng.choice, rng.choices
    moves = 0
    for _ in range(games):
        state = loaded.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                action = choice(state.legal_actions())
                moves += 1
            state.apply_action(action)
    return moves


def openspiel(game: Game, games: int, rng: random.Random) -> int:
    from abstractgames.rl.openspiel import openspiel_game

    return _pyspiel_games(openspiel_game(game), games, rng)


def openspiel_mnk(game: Game, games: int, rng: random.Random) -> int:
    import pyspiel

    return _pyspiel_games(pyspiel.load_game("mnk(m=6,n=6,k=5)"), games, rng)


PATHS: dict[str, Path] = {
    "protocol moves": protocol_moves,
    "protocol actions": protocol_actions,
    "pettingzoo": pettingzoo,
    "openspiel": openspiel,
}
REFERENCE = {"orderchaos": {"openspiel C++ mnk": openspiel_mnk}}
"""The C++ reference point, by the game it stands beside."""


def measure(path: Path, game: Game, games: int, repeats: int, seed: int) -> dict[str, Any]:
    """The medians (and every repeat) of moves and games per second along `path`."""
    path(game, 1, random.Random(seed))  # warm up: imports, registration, first games
    rates = []
    for repeat in range(repeats):
        rng = random.Random(f"{seed}/{repeat}")
        start = time.perf_counter()
        moves = path(game, games, rng)
        seconds = time.perf_counter() - start
        rates.append((moves / seconds, games / seconds))
    return {
        "moves_per_second": statistics.median(r[0] for r in rates),
        "games_per_second": statistics.median(r[1] for r in rates),
        "runs": [{"moves_per_second": m, "games_per_second": g} for m, g in rates],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="*", metavar="GAME", help="game specs (default: all)")
    parser.add_argument("--games", type=int, default=100, help="games per repeat (default 100)")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    specs = args.specs or [
        name for name in available_games() if parse_game_spec(name).num_distinct_actions > 0
    ]
    results: list[dict[str, Any]] = []
    for spec in specs:
        game = parse_game_spec(spec)
        paths = {**PATHS, **REFERENCE.get(game.name, {})}
        for name, path in paths.items():
            found = measure(path, game, args.games, args.repeats, args.seed)
            results.append({"game": spec, "path": name, **found})
            if not args.json:
                print(f"measured {spec} {name}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps({"games": args.games, "repeats": args.repeats, "results": results}))
        return
    print(f"median of {args.repeats} repeats of {args.games} random games, one process")
    print()
    header = f"{'game':<12} {'path':<18} {'moves/s':>10} {'games/s':>9} {'× protocol':>11}"
    print(header)
    base: dict[str, float] = {}
    for row in results:
        rate = row["moves_per_second"]
        base.setdefault(row["game"], rate)
        print(
            f"{row['game']:<12} {row['path']:<18} {rate:>10,.0f} "
            f"{row['games_per_second']:>9,.1f} {rate / base[row['game']]:>11.2f}"
        )


if __name__ == "__main__":
    main()
