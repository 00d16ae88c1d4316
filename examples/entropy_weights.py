"""The Entropy search with one set of weights in both roles, and a game-by-game comparison by role.

The `search` player weighs its line values with the fitted weights as Order and the hand-set ones
as Chaos. The two factories here give it one set for both roles, to compare the sets in an arena
(docs/bots-entropy.md, "Where the weights come from"):

    abstractgames arena entropy -j 2 --games 100 --seed 3003 --state hand.jsonl \\
        --players "inprocess:examples/entropy_weights.py:hand:depth=4" \\
                  "inprocess:examples/entropy_weights.py:fitted:depth=4"
    abstractgames arena entropy -j 2 --games 100 --seed 3003 --state same.jsonl \\
        --players "inprocess:examples/entropy_weights.py:fitted:depth=4,name=a" \\
                  "inprocess:examples/entropy_weights.py:fitted:depth=4,name=b"

Then compare the games of a player with those of a reference on the same seed, the same draws and
the same seat, role by role (Order's score, and the score conceded as Chaos):

    python examples/entropy_weights.py hand.jsonl \\
        "inprocess:examples/entropy_weights.py:hand:depth=4" same.jsonl a

Run without arguments, it prints the weights of each role.
"""

from __future__ import annotations

import json
import statistics
import sys
from typing import Any

from abstractgames.entropy import EntropyGame
from abstractgames.players.entropy import HAND_WEIGHTS, WEIGHTS, EntropySearch, Weights


def hand(game: EntropyGame, **options: Any) -> EntropySearch:
    """The search with the hand-set weights as Order and as Chaos."""
    return EntropySearch(game, weights=HAND_WEIGHTS, **options)


def fitted(game: EntropyGame, **options: Any) -> EntropySearch:
    """The search with the fitted weights as Order and as Chaos."""
    return EntropySearch(game, weights=WEIGHTS, **options)


# A game of an arena state file: (match seed, the seat that played Order, the seat-1 player).
_Key = tuple[int, int, str]


def order_scores(path: str, player: str) -> dict[_Key, tuple[bool, int]]:
    """Each game of the arena state file `path`: whether `player` was Order, and Order's score.

    The seat-1 player is named as `player` or `"other"`, so that two files whose matches seat
    their players alike give the same keys.
    """
    games: dict[_Key, tuple[bool, int]] = {}
    with open(path, encoding="utf-8") as lines:
        next(lines)  # the header
        for line in lines:
            record = json.loads(line)["record"]
            players, scores = record["players"], record["result"]["scores"]
            first = "player" if players[0] == player else "other"
            for seat in (0, 1):
                key = (record["seed"], seat, first)
                games[key] = (players[seat] == player, scores[seat])
    return games


def compare(path: str, player: str, reference_path: str, reference: str) -> dict[str, list[int]]:
    """Game by game, `player`'s results minus `reference`'s on the same draws: by role, Order's
    score (as Order) and the score conceded (as Chaos)."""
    mine = order_scores(path, player)
    theirs = order_scores(reference_path, reference)
    by_role: dict[str, list[int]] = {"order": [], "chaos": []}
    for key, (as_order, score) in mine.items():
        if key in theirs:
            by_role["order" if as_order else "chaos"].append(score - theirs[key][1])
    return by_role


def describe(weights: Weights) -> str:
    return ", ".join(f"{name} {value}" for name, value in weights._asdict().items())


def main(argv: list[str]) -> int:
    if not argv:
        print(f"search as Order: {describe(WEIGHTS)}")
        print(f"search as Chaos: {describe(HAND_WEIGHTS)}")
        return 0
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    for role, differences in compare(*argv).items():
        what = "score as Order" if role == "order" else "score conceded as Chaos"
        if len(differences) < 2:
            print(f"{what}: too few games in common")
            continue
        mean = statistics.mean(differences)
        half = 1.96 * statistics.stdev(differences) / len(differences) ** 0.5
        print(f"{what}: {mean:+.2f} ± {half:.2f} over {len(differences)} games")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
