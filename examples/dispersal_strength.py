"""Measure the dispersal Entropy search bot against the random and greedy players.

Each game starts from the usual start position; the search bot plays O in half of the games and S
in the other half, and every game has its own seed (both players draw from one generator, so a
seed replays the same game when the search has a fixed depth). It prints, for each opponent and
side, the wins, draws and losses, the win rate with a 95% (Wilson) interval, and the mean game
length and thinking time.

Run: python examples/dispersal_strength.py                    # a quick look, a few seconds
     python examples/dispersal_strength.py --games 50 --time 0.2 --jobs 2    # the measured run
     python examples/dispersal_strength.py --games 50 --depth 4
"""

from __future__ import annotations

import argparse
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor

from abstractgames import get_game, make_player


def play(search: str, opponent: str, search_side: str, seed: int) -> tuple[float, int, float]:
    """One game; returns the search bot's score (1, 0.5, 0), the plies, its seconds per move."""
    game = get_game("dispersal")
    rng = random.Random(seed)
    bot, other = make_player(search, game), make_player(opponent, game)
    seats = {search_side: bot, ("S" if search_side == "O" else "O"): other}
    state = game.initial_state()
    thinking, moves = 0.0, 0
    while (outcome := state.outcome()) is None:
        player = seats[state.to_move]
        started = time.perf_counter()
        move = player.choose(state, rng)
        if player is bot:
            thinking += time.perf_counter() - started
            moves += 1
        state = state.apply(move)
    score = 0.5 if outcome.winner is None else float(outcome.winner == search_side)
    return score, state.ply, thinking / max(moves, 1)


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if not games:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    return (centre - spread) / (1 + z * z / games), (centre + spread) / (1 + z * z / games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per opponent and side")
    parser.add_argument("--time", type=float, default=0.05, help="search seconds per move")
    parser.add_argument("--depth", type=int, help="a fixed search depth instead of --time")
    parser.add_argument("--opponents", default="random,greedy", help="comma-separated specs")
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once")
    args = parser.parse_args()
    search = f"search:depth={args.depth}" if args.depth else f"search:time={args.time}"
    print(f"{search}, {args.games} games per opponent and side, seeds from {args.seed}")
    print(f"{'opponent':<10} {'side':<4} {'W':>4} {'D':>4} {'L':>4}  win rate [95% interval]")
    with ProcessPoolExecutor(args.jobs) as pool:
        for opponent in args.opponents.split(","):
            for side in ("O", "S"):
                seeds = range(args.seed, args.seed + args.games)
                n = len(seeds)
                results = list(pool.map(play, [search] * n, [opponent] * n, [side] * n, seeds))
                scores = [score for score, _, _ in results]
                wins, draws = scores.count(1.0), scores.count(0.5)
                low, high = wilson(wins, len(scores))
                plies = sum(p for _, p, _ in results) / len(results)
                seconds = sum(t for _, _, t in results) / len(results)
                print(
                    f"{opponent:<10} {side:<4} {wins:>4} {draws:>4} {len(scores) - wins - draws:>4}"
                    f"  {wins / len(scores):.2f} [{low:.2f}, {high:.2f}]"
                    f"  ({plies:.0f} plies a game, {seconds:.2f} s a move)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
