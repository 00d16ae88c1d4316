"""The Order and Chaos solver's methods side by side, on positions of seeded random games.

For each position (a random game from the start, stopped with `--empty` empty squares, no five
on the board and no four with a gap, so that no position is won at once), each method of
`abstractgames.solvers.orderchaos.solve` solves it to the end (`--moves 18`) within `--time`
seconds; the table gives the answer, the positions visited and the seconds, and the medians
over the positions each method solved. Every method must give
the same answers: a difference is printed and the exit status is 1.

Usage:
    nice -n 19 python benchmarks/orderchaos_methods.py --positions 8 --empty 16 --time 60
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from abstractgames.orderchaos import FULL, WINDOWS, OrderChaosGame, OrderChaosState
from abstractgames.solvers.orderchaos import METHODS, solve

GAME = OrderChaosGame()


def position(rng: random.Random, empty: int) -> OrderChaosState:
    while True:
        state = GAME.initial_state()
        while (FULL & ~(state.x | state.o)).bit_count() > empty:
            moves = [m for m in state.legal_moves() if state.apply(m).outcome() is None]
            if not moves:
                break
            state = state.apply(rng.choice(moves))
        else:
            x, o = state.x, state.o
            if not any(
                ((x & w).bit_count() == 4 and not o & w) or ((o & w).bit_count() == 4 and not x & w)
                for w in WINDOWS
            ):
                return state


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--empty", type=int, default=16)
    parser.add_argument("--time", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    seconds: dict[str, list[float]] = {m: [] for m in args.methods}
    nodes: dict[str, list[int]] = {m: [] for m in args.methods}
    status = 0
    print(f"{'position':48} " + " ".join(f"{m:>30}" for m in args.methods))
    for _ in range(args.positions):
        state = position(rng, args.empty)
        answers = set()
        cells = []
        for method in args.methods:
            started = time.perf_counter()
            solution = solve(state, 18, args.time, method=method)
            spent = time.perf_counter() - started
            if solution.complete:
                answers.add(solution.moves)
                seconds[method].append(spent)
                nodes[method].append(solution.nodes)
                answer = "hold" if solution.holds else f"win {solution.moves}"
            else:
                answer = "timeout"
            cells.append(f"{answer:>8} {solution.nodes:>10,} {spent:>9.2f}s")
        print(f"{state.position():48} " + " ".join(f"{c:>30}" for c in cells), flush=True)
        if len(answers) > 1:
            print(f"  the methods disagree: {sorted(answers, key=str)}", file=sys.stderr)
            status = 1
    print("median seconds / positions over the positions solved, and how many:")
    for method in args.methods:
        if seconds[method]:
            print(
                f"  {method:>14}: {statistics.median(seconds[method]):8.2f} s "
                f"{statistics.median(nodes[method]):>10,.0f} positions "
                f"({len(seconds[method])} of {args.positions} solved, "
                f"total {sum(seconds[method]):.1f} s)"
            )
    return status


if __name__ == "__main__":
    sys.exit(main())
