"""Order's Entropy search on fixed work, to compare two versions of the search in one process.

Positions: Order's middle-game positions (8 to 40 counters on the board) of self-play games of
`search:depth=2`, seeds `--seed` to `--seed + --games - 1`. Work: what Order's move at 0.1 s
spends its time on, done in full: every root move valued at depth 1, the best 24 at depth 3,
then the best 12 at depth 5 with 2 slides and 2 squares at the inner nodes
(`search:depth=5,order_width=2,chaos_width=2`). Prints each round's process time, the medians
and a digest of the moves and values: two versions with the same digest searched alike.

With `--against SRC` (a directory holding another version's `abstractgames` package, e.g.
`/tmp/rev/src` after `git archive REV src | tar -x -C /tmp/rev`), both versions run in this
process, taking turns, and the ratio of their times in each round is printed: on a shared
machine the speed drifts too much between runs for separate runs to compare.

Usage:
    python benchmarks/entropy_order_search.py --games 4 --rounds 5 --against /tmp/rev/src
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from abstractgames.entropy import EntropyGame
from abstractgames.players.entropy import EntropySearch
from abstractgames.protocol import random_move

SPEC = {"depth": 5, "order_width": 2, "chaos_width": 2}


def positions(games: int, seed: int, limit: int | None = None) -> list[str]:
    """Order's positions with 8 to 40 counters placed, from self-play at depth 2 (the first
    `limit` of them)."""
    game = EntropyGame()
    player = EntropySearch(game, depth=2)
    found = []
    for number in range(seed, seed + games):
        rng = random.Random(number)
        state = game.initial_state()
        while state.outcome() is None:
            if state.is_chance():
                state = state.apply(random_move(state, rng))
                continue
            if state.to_move == "order" and 8 <= state.placements <= 40:
                found.append(state.position())
                if len(found) == limit:
                    return found
            state = state.apply(player.choose(state, rng))
    return found


def load(source: Path, name: str, into: Path) -> ModuleType:
    """The `abstractgames` package of `source`, imported as `name` (its imports are relative)."""
    shutil.copytree(source / "abstractgames", into / name)
    if str(into) not in sys.path:
        sys.path.insert(0, str(into))
    return importlib.import_module(name)


def searcher(package: ModuleType, texts: list[str]) -> tuple[Any, list[Any]]:
    """A search of `package` and the positions in its own types."""
    game = importlib.import_module(f"{package.__name__}.entropy").EntropyGame()
    search = importlib.import_module(f"{package.__name__}.players.entropy").EntropySearch
    return search(game, **SPEC), [game.from_position(text) for text in texts]


def run(player: Any, states: list[Any]) -> tuple[float, list[tuple[str, float]]]:
    """Process seconds for all the positions, and each move with its value."""
    start = time.process_time()
    found = []
    for state in states:
        move = player.choose(state, random.Random(1))
        found.append((str(move), round(player.info.value, 6)))
    return time.process_time() - start, found


def digest(found: list[tuple[str, float]]) -> str:
    return hashlib.sha256(repr(found).encode()).hexdigest()[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="self-play games (default 4)")
    parser.add_argument("--seed", type=int, default=500, help="the first game's seed")
    parser.add_argument("--positions", type=int, help="only the first this many positions")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds (default 5)")
    parser.add_argument("--against", type=Path, help="another version's src directory")
    args = parser.parse_args()
    texts = positions(args.games, args.seed, args.positions)
    this = Path(__file__).resolve().parent.parent / "src"
    with tempfile.TemporaryDirectory() as scratch:
        versions = {"this": load(this, "_bench_this", Path(scratch))}
        if args.against is not None:
            versions["against"] = load(args.against, "_bench_against", Path(scratch))
        players = {name: searcher(package, texts) for name, package in versions.items()}
        digests = {}
        for name, (player, states) in players.items():  # warm: the lines' parts are cached
            digests[name] = digest(run(player, states)[1])
        times: dict[str, list[float]] = {name: [] for name in players}
        for number in range(args.rounds):
            order = list(players) if number % 2 == 0 else list(reversed(players))
            for name in order:
                times[name].append(run(*players[name])[0])
    print(f"Order's positions: {len(texts)}; rounds: {args.rounds}; process seconds")
    for name, spent in times.items():
        rounded = ", ".join(f"{t:.2f}" for t in spent)
        print(
            f"{name:8} median {statistics.median(spent):.3f}  ({rounded})  digest {digests[name]}"
        )
    if "against" in times:
        ratios = [a / b for a, b in zip(times["this"], times["against"], strict=True)]
        print(f"this / against, by round: median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
