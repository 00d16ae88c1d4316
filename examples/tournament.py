"""A tournament from Python: random, greedy and search bots at dispersal Entropy, on two cores.

Run: python examples/tournament.py
"""

from __future__ import annotations

from abstractgames.arena import Arena, ProcessExecutor


def main() -> None:
    arena = Arena("dispersal", ["random", "greedy", "search:depth=2"], games=4, seed=7)
    report = arena.run(executor=ProcessExecutor(jobs=2))
    print(report.format_table(), end="")
    best = report.standings[0]
    print(f"strongest: {best.player} ({best.wins} wins of {best.games})")


if __name__ == "__main__":  # worker processes import this module again
    main()
