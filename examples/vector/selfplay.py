"""Batched self-play, PettingZoo style: both roles' policies act on thousands of games at once.

Each step, every lane's mover is one of the game's roles; each role's policy picks actions for
all lanes (from the observations and the legal-action mask), and the batch plays, per lane, the
action of the role to move there. Finished lanes restart (automatic reset) and their returns are
tallied per role, as an AEC loop over PettingZoo environments would, without a Python loop over
games. Here greedy Order plays random Chaos in Order and Chaos, and the other way round; swap in
a neural network's policy to train by self-play.

Run: python examples/vector/selfplay.py [GAME] [LANES] [GAMES]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from abstractgames import parse_game_spec
from abstractgames.registry import vector_for
from abstractgames.vector import Actions, BatchSimulator


def greedy(batch: BatchSimulator, rng: np.random.Generator) -> Actions:
    return batch.greedy_actions(rng)


def random_policy(batch: BatchSimulator, rng: np.random.Generator) -> Actions:
    return batch.random_actions()


def self_play(spec: str, lanes: int, games: int, policies: dict[str, object], seed: int = 0):
    game = parse_game_spec(spec)
    factory = vector_for(game)
    assert factory is not None, f"{spec} has no batched simulator"
    batch: BatchSimulator = factory(lanes, seed=seed, game=game)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(game.roles, 0.0)
    finished = 0
    while finished < games:
        actions = np.full(lanes, -1, np.int64)
        for index, role in enumerate(game.roles):
            to_move = batch.to_move == index
            if to_move.any():
                chosen = policies[role](batch, rng)  # type: ignore[operator]
                actions = np.where(to_move, chosen, actions)
        batch.step(actions)
        if batch.done.any():
            returns = batch.returns()[batch.done]
            for index, role in enumerate(game.roles):
                totals[role] += float(returns[:, index].sum())
            finished += batch.reset_done()
    return {role: total / finished for role, total in totals.items()}, finished


def main() -> None:
    spec = sys.argv[1] if len(sys.argv) > 1 else "orderchaos"
    lanes = int(sys.argv[2]) if len(sys.argv) > 2 else 512
    games = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    roles = parse_game_spec(spec).roles
    for first, second in ((greedy, random_policy), (random_policy, greedy)):
        policies = {roles[0]: first, roles[1]: second}
        start = time.perf_counter()
        means, played = self_play(spec, lanes, games, policies)
        seconds = time.perf_counter() - start
        names = ", ".join(f"{role} {policies[role].__name__}" for role in roles)
        results = ", ".join(f"{role} {value:+.3f}" for role, value in means.items())
        print(
            f"{spec}: {names}: mean returns {results} ({played} games, {played / seconds:,.0f}/s)"
        )


if __name__ == "__main__":
    main()
