"""Q-learning with a linear model: Chaos learns to beat the random player in Order and Chaos.

The agent plays one role through the Gymnasium environment of abstractgames against the built-in
`random` player. Its action values are linear in the observation, Q(s, a) = W[a] . [obs(s), 1], and
it learns them with one-step Q-learning, exploring epsilon-greedily among the legal actions
(`info["action_mask"]`). Before and after training it plays evaluation games: first choosing
uniformly among the legal actions (the random policy), then greedily by Q.

Usage: python q_learning.py [--episodes N] [--seed S] [--eval N] [--role ROLE] [--game SPEC]

It needs the rl extra (numpy and gymnasium): pip install '.[rl]' in a checkout of the repository.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import abstractgames.rl.gymnasium  # noqa: F401  (registers the abstractgames/... ids)
from abstractgames import parse_game_spec


class LinearQ:
    """Action values linear in the observation, learnt by one-step Q-learning."""

    def __init__(self, actions: int, features: int, rng: np.random.Generator) -> None:
        self.weights = np.zeros((actions, features + 1))
        self.rng = rng

    @staticmethod
    def features(observation: np.ndarray) -> np.ndarray:
        return np.append(observation.ravel(), 1.0)

    def best(self, features: np.ndarray, mask: np.ndarray) -> tuple[int, float]:
        """The legal action of highest value (ties broken at random), and its value."""
        legal = np.flatnonzero(mask)
        values = self.weights[legal] @ features
        top = np.flatnonzero(values == values.max())
        index = top[0] if len(top) == 1 else self.rng.choice(top)
        return int(legal[index]), float(values[index])

    def choose(self, features: np.ndarray, mask: np.ndarray, epsilon: float) -> int:
        if self.rng.random() < epsilon:
            return int(self.rng.choice(np.flatnonzero(mask)))
        return self.best(features, mask)[0]

    def learn(self, features: np.ndarray, action: int, target: float, rate: float) -> None:
        error = target - self.weights[action] @ features
        self.weights[action] += rate * error * features


def evaluate(env: gymnasium.Env, q: LinearQ | None, games: int, seed: int) -> tuple[float, float]:
    """(share of games won, mean return) of the greedy policy of `q`, or of the random policy."""
    rng = np.random.default_rng(seed)
    wins, total = 0, 0.0
    env.reset(seed=seed)
    for _ in range(games):
        observation, info = env.reset()
        done = False
        while not done:
            if q is None:
                action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            else:
                action = q.best(q.features(observation), info["action_mask"])[0]
            observation, reward, done, _, info = env.step(action)
        wins += reward > 0
        total += float(reward)
    return wins / games, total / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=20_000, help="training games")
    parser.add_argument("--seed", type=int, default=0, help="seeds everything")
    parser.add_argument("--eval", type=int, default=1_000, help="evaluation games before, after")
    parser.add_argument("--role", default="chaos", help="the role that learns")
    parser.add_argument("--game", default="orderchaos", help="a game spec, e.g. entropy:size=5")
    parser.add_argument("--rate", type=float, default=0.003, help="the learning rate")
    args = parser.parse_args()

    game = parse_game_spec(args.game)
    arguments = dict(role=args.role, opponent="random", **game.params)
    env = gymnasium.make(f"abstractgames/{game.name}-v0", **arguments)
    judge = gymnasium.make(f"abstractgames/{game.name}-v0", **arguments)  # for evaluation
    shape = env.observation_space.shape
    q = LinearQ(env.action_space.n, int(np.prod(shape)), np.random.default_rng(args.seed))
    eval_seed = args.seed + 1_000_000

    print(f"{game.title}: {args.role} learns against the random player, seed {args.seed}")
    won, mean = evaluate(judge, None, args.eval, eval_seed)
    print(f"random policy:  wins {won:6.1%} of {args.eval} games, mean return {mean:+.3f}")

    start = time.perf_counter()
    reports = {args.episodes * k // 5 for k in range(1, 6)}
    env.reset(seed=args.seed)
    for episode in range(1, args.episodes + 1):
        epsilon = max(0.05, 1.0 - episode / (0.5 * args.episodes))
        observation, info = env.reset()
        features = q.features(observation)
        done = False
        while not done:
            action = q.choose(features, info["action_mask"], epsilon)
            observation, reward, done, _, info = env.step(action)
            following = q.features(observation)
            target = float(reward)
            if not done:
                target += q.best(following, info["action_mask"])[1]
            q.learn(features, action, target, args.rate)
            features = following
        if episode in reports:
            won, mean = evaluate(judge, q, args.eval // 5 or 1, eval_seed)
            print(
                f"after {episode:>6} episodes: wins {won:6.1%} of {args.eval // 5 or 1} games, "
                f"mean return {mean:+.3f}"
            )
    seconds = time.perf_counter() - start

    won, mean = evaluate(judge, q, args.eval, eval_seed)
    print(f"learned policy: wins {won:6.1%} of {args.eval} games, mean return {mean:+.3f}")
    print(f"({args.episodes} training games in {seconds:.0f} s)")


if __name__ == "__main__":
    main()
