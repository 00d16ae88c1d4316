"""The Order and Chaos solver on the empty board, for a bounded time: how far it gets.

Runs one method of `abstractgames.solvers.orderchaos` from `6/6/6/6/6/6 order` and prints, as
JSON on stdout, the rate (positions a second), the transposition table's hit rate and size, the
peak memory of the process, and the frontier: for each first move of Order up to symmetry (X on
a1, b1, c1, b2, c2, c3) and each of Chaos's replies up to symmetry, what the table says of it
at the end (proven: Order wins within N; refuted: no win within N; open: its proof and disproof
numbers). Progress goes to stderr every `--every` seconds.

- `--method pn-deepening` proves "no win within 1 move", 2, … (as `solve` does by default);
- `--method pn` runs df-pn within the whole game (18 Order moves) at once;
- `--method deepening` is the plain AND/OR search, for comparison.

Usage (niced, one core):
    nice -n 19 python benchmarks/orderchaos_root.py --method pn --time 900 --memory 4000
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import threading
import time
from typing import Any

from abstractgames.orderchaos import OrderChaosGame
from abstractgames.solvers import orderchaos as solver
from abstractgames.timing import Deadline, SearchTimeout

GAME = OrderChaosGame()
FIRST_SQUARES = ("a1", "b1", "c1", "b2", "c2", "c3")


def describe(prover: Any, x: int, o: int, n: int) -> dict[str, Any]:
    """What the table says of a position (Order to move or not) within `n` Order moves."""
    entry = prover.table.get(solver.canonical_key(x, o))
    if entry is None:
        return {"status": "unvisited"}
    win, lose = entry & 31, entry >> 5 & 31
    found: dict[str, Any] = {}
    if win != 31:
        found["win_within"] = win
    if lose:
        found["no_win_within"] = lose
    if entry >> 10 & 31:
        found["bound"] = entry >> 10 & 31
        found["pn"] = entry >> 15 & ((1 << 33) - 1)
        found["dn"] = entry >> 48
    found["status"] = "proven" if win <= n else "refuted" if lose >= n else "open"
    return found


def frontier(prover: Any) -> dict[str, Any]:
    result: dict[str, Any] = {}
    start = GAME.initial_state()
    for name in FIRST_SQUARES:
        first = start.apply(f"X@{name}")
        replies: dict[str, Any] = {}
        seen: set[int] = set()
        for move in first.legal_moves():
            child = first.apply(move)
            key = solver.canonical_key(child.x, child.o)
            if key in seen:
                continue
            seen.add(key)
            replies[str(move)] = describe(prover, child.x, child.o, 17)
        counts: dict[str, int] = {}
        for reply in replies.values():
            counts[reply["status"]] = counts.get(reply["status"], 0) + 1
        result[f"X@{name}"] = {
            "position": describe(prover, first.x, first.o, 17),
            "replies": counts,
            "reply_detail": replies,
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", choices=solver.METHODS, default="pn")
    parser.add_argument("--time", type=float, default=900.0)
    parser.add_argument("--memory", type=float, default=4000.0)
    parser.add_argument("--moves", type=int, default=18)
    parser.add_argument("--every", type=float, default=60.0)
    parser.add_argument("--checkpoint", default=None)
    args = parser.parse_args()

    kind = solver._Prover if args.method == "deepening" else solver._PnProver
    prover = kind(Deadline(args.time), args.memory, args.checkpoint)
    prover.root = GAME.initial_state().position()
    loaded = prover.load_checkpoint()
    started = time.perf_counter()
    done = threading.Event()
    steps: list[dict[str, Any]] = []

    def report() -> None:
        while not done.wait(args.every):
            seconds = time.perf_counter() - started
            print(
                f"{seconds:.0f} s: {prover.nodes:,} positions ({prover.nodes / seconds:,.0f}/s), "
                f"table {len(prover.table):,}, hits {prover.hits / max(1, prover.probes):.0%}",
                file=sys.stderr,
                flush=True,
            )

    threading.Thread(target=report, daemon=True).start()
    outcome = "undecided"
    try:
        if args.method == "pn":
            found = prover.prove(0, 0, True, args.moves)
            outcome = "no win" if found is None else f"win within {found}"
        else:
            for n in range(1, args.moves + 1):
                if prover.order(0, 0, n):
                    outcome = f"win in {n}"
                    break
                seconds = time.perf_counter() - started
                steps.append({"no_win_within": n, "positions": prover.nodes, "seconds": seconds})
                print(f"no win within {n}: {steps[-1]}", file=sys.stderr, flush=True)
            else:
                outcome = f"no win within {args.moves}"
    except SearchTimeout:
        pass
    seconds = time.perf_counter() - started
    done.set()
    if args.checkpoint:
        prover.save_checkpoint()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    json.dump(
        {
            "method": args.method,
            "outcome": outcome,
            "seconds": round(seconds, 1),
            "positions": prover.nodes,
            "positions_per_second": round(prover.nodes / seconds),
            "table_hits": round(prover.hits / max(1, prover.probes), 3),
            "probes": prover.probes,
            "entries": len(prover.table),
            "evictions": prover.evictions,
            "checkpoint_entries_loaded": loaded,
            "peak_mb": round(peak),
            "steps": steps,
            "frontier": frontier(prover),
        },
        sys.stdout,
        indent=1,
    )
    print()


if __name__ == "__main__":
    main()
