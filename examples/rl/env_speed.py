"""How fast random play runs through the PettingZoo environment, next to the game protocol alone.

Plays random games of one game four ways, in one process, and prints the players' moves per
second of each (the median of several rounds) and their ratios:

- protocol: `state.apply(random_move(state, rng))`, the plain game;
- actions: what a learning loop needs from the protocol itself: `legal_actions()`,
  `observation_tensor(role)` and `apply_action(action)` (chance drawn with `random_move`);
- raw_env: `env.last()` then `env.step(action)` with a random action of the mask, through the
  environment alone (`abstractgames.rl.pettingzoo.raw_env`);
- pettingzoo: the same through the wrapped environment of `abstractgames.rl.pettingzoo.env`, as
  PettingZoo's classic games are wrapped.

Usage: python env_speed.py [GAME] [--moves N] [--rounds R] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import numpy as np

from abstractgames import parse_game_spec, random_move
from abstractgames.rl.pettingzoo import env as make_env
from abstractgames.rl.pettingzoo import raw_env


def protocol_moves(spec: str, moves: int, seed: int) -> float:
    """Moves per second of random games through the protocol's moves."""
    game = parse_game_spec(spec)
    rng = random.Random(seed)
    done = 0
    start = time.perf_counter()
    while done < moves:
        state = game.initial_state()
        while not state.is_terminal():
            chance = state.is_chance()
            state = state.apply(random_move(state, rng))
            done += not chance
    return done / (time.perf_counter() - start)


def protocol_actions(spec: str, moves: int, seed: int) -> float:
    """Moves per second of random games through integer actions, observing every position."""
    game = parse_game_spec(spec)
    rng = random.Random(seed)
    done = 0
    start = time.perf_counter()
    while done < moves:
        state = game.initial_state()
        while not state.is_terminal():
            if state.is_chance():
                state = state.apply(random_move(state, rng))
                continue
            state.observation_tensor(state.to_move)
            state = state.apply_action(rng.choice(state.legal_actions()))
            done += 1
    return done / (time.perf_counter() - start)


def raw_env_steps(spec: str, moves: int, seed: int) -> float:
    """Moves per second of random games through the PettingZoo environment without wrappers."""
    return _steps(raw_env(spec), moves, seed)


def pettingzoo_steps(spec: str, moves: int, seed: int) -> float:
    """Moves per second of random games through the wrapped PettingZoo environment."""
    return _steps(make_env(spec), moves, seed)


def _steps(env: Any, moves: int, seed: int) -> float:
    """The random actions are drawn as in `protocol_actions` (Gymnasium's
    `action_space(agent).sample(mask)` would add some 13 µs a move)."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < moves:
        env.reset()
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            done += 1
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default="orderchaos", help="a game spec")
    parser.add_argument("--moves", type=int, default=20_000, help="moves per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="measurements of each way")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ways = {
        "protocol": protocol_moves,
        "actions": protocol_actions,
        "raw_env": raw_env_steps,
        "pettingzoo": pettingzoo_steps,
    }
    rates = {name: [] for name in ways}
    for round_ in range(args.rounds):
        for name, measure in ways.items():
            rates[name].append(measure(args.game, args.moves, args.seed + round_))
    medians = {name: statistics.median(values) for name, values in rates.items()}
    print(f"{args.game}: moves per second, median of {args.rounds} rounds of {args.moves} moves")
    for name, value in medians.items():
        ratio = medians["protocol"] / value
        print(f"  {name:<11} {value:>9,.0f}   protocol is {ratio:.2f}x as fast")


if __name__ == "__main__":
    main()
