"""Measure Entropy bots: seeded games, Order's mean score with a 95% interval, paired comparisons.

Every pairing of an Order bot with a Chaos bot plays the same seeds. Draws from the bag come from
their own ``random.Random(seed)``, so two Order bots against the same Chaos face the same sequence
of draws; the difference of their scores game by game gives a paired comparison.

Run (a quick 5×5 check, a few seconds): python examples/entropy_strength.py
The measurement in docs/bots-entropy.md, for example:
    python examples/entropy_strength.py --size 7 --games 20 --jobs 2 \\
        --order search:time=1 --order greedy --chaos random
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from abstractgames import get_game, make_player, random_move


def play(order: str, chaos: str, size: int, seed: int) -> tuple[int, float, float]:
    """One game: Order's final score and Order's and Chaos's mean seconds per move."""
    game = get_game("entropy", size=size)
    players = {"order": make_player(order, game), "chaos": make_player(chaos, game)}
    draws = random.Random(seed)
    choices = random.Random(seed + 1_000_003)
    state = game.initial_state()
    thinking = {"order": 0.0, "chaos": 0.0}
    moves = {"order": 0, "chaos": 0}
    while state.outcome() is None:
        if state.is_chance():
            move = random_move(state, draws)
        else:
            role = str(state.to_move)
            start = time.perf_counter()
            move = players[role].choose(state, choices)
            thinking[role] += time.perf_counter() - start
            moves[role] += 1
        state = state.apply(move)
    outcome = state.outcome()
    assert outcome is not None
    order_time, chaos_time = (thinking[r] / moves[r] for r in ("order", "chaos"))
    return int(outcome.scores["order"]), order_time, chaos_time


def interval(values: list[float]) -> str:
    """The mean and the half-width of its 95% interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:6.1f}"
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5
    return f"{mean:6.1f} ± {half:4.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--order", action="append", help="an Order bot spec (repeatable)")
    parser.add_argument("--chaos", action="append", help="a Chaos bot spec (repeatable)")
    parser.add_argument("--games", type=int, default=6, help="games per pairing")
    parser.add_argument("--size", type=int, default=5, choices=(5, 7))
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once")
    args = parser.parse_args()
    orders = args.order or ["search:time=0.05", "greedy", "random"]
    chaoses = args.chaos or ["random"]
    seeds = range(args.seed, args.seed + args.games)
    pairings = [(order, chaos) for chaos in chaoses for order in orders]
    work = [(order, chaos, args.size, seed) for order, chaos in pairings for seed in seeds]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(play, *zip(*work, strict=True)))
    print(
        f"{args.size}×{args.size}, {args.games} games per pairing (seeds {seeds.start}–{seeds[-1]})"
    )
    scores: dict[tuple[str, str], list[float]] = {}
    for i, (order, chaos) in enumerate(pairings):
        games = results[i * args.games : (i + 1) * args.games]
        scores[order, chaos] = [float(score) for score, _, _ in games]
        order_time = statistics.fmean(seconds for _, seconds, _ in games)
        chaos_time = statistics.fmean(seconds for _, _, seconds in games)
        print(
            f"Order {order:<20} Chaos {chaos:<20} score {interval(scores[order, chaos])}"
            f"  (s a move: Order {order_time:.3f}, Chaos {chaos_time:.3f})"
        )
    for chaos in chaoses:
        for order in orders[1:]:
            first = scores[orders[0], chaos]
            gaps = [a - b for a, b in zip(first, scores[order, chaos], strict=True)]
            print(f"against Chaos {chaos}: {orders[0]} minus {order}: {interval(gaps)} (paired)")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
