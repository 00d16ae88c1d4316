"""The Entropy search with another evaluation, and a game-by-game comparison by role.

The `search` player values lines with the table learned from self-play (`PatternTable`); `Hand`
here is the same search valuing them with greedy's hand-set weights (`HAND_WEIGHTS`). To compare
two evaluations, play each against the same reference on the same seed (docs/bots-entropy.md,
"Where the line values come from"):

    abstractgames arena entropy -j 2 --games 100 --seed 3003 --state hand.jsonl \\
        --players "inprocess:examples/entropy_evaluations.py:Hand:depth=3" search:depth=3
    abstractgames arena entropy -j 2 --games 100 --seed 3003 --state same.jsonl \\
        --players "inprocess:examples/entropy_evaluations.py:Table:depth=3" search:depth=3

Then compare the games of one player with those of the other on the same seed, the same draws and
the same seat, role by role (Order's score, and the score conceded as Chaos):

    python examples/entropy_evaluations.py hand.jsonl \\
        "inprocess:examples/entropy_evaluations.py:Hand:depth=3" \\
        same.jsonl "inprocess:examples/entropy_evaluations.py:Table:depth=3"

`FromFile` plays with a table file written by `scripts/train_entropy_patterns.py`, its growth
and potential weights multiplied by the options `growth` and `potential`. The scale of the
packaged 7×7 table was chosen so (docs/bots-entropy.md, "Where the line values come from"):

    python scripts/train_entropy_patterns.py --size 7 --scale 1 --output fitted.json --write
    T=examples/entropy_evaluations.py:FromFile:depth=3,path=fitted.json
    abstractgames arena entropy -j 2 --games 400 --seed 4438 \\
        --players "inprocess:$T,growth=0.9,potential=0.9" "inprocess:$T"

Run without arguments, it prints what each evaluation makes of a few lines.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from abstractgames.players.entropy import HAND_WEIGHTS, EntropySearch, PatternTable, line_value
from abstractgames.protocol import Game


class Hand(EntropySearch):
    """The search valuing lines with the hand-set weights, in both roles."""

    def __init__(self, game: Game, time: float = 1.0, depth: int | None = None) -> None:
        super().__init__(game, time=time, depth=depth, evaluation=HAND_WEIGHTS)


class Table(EntropySearch):
    """The search as it is (the learned table), as a player of this file."""

    def __init__(self, game: Game, time: float = 1.0, depth: int | None = None) -> None:
        super().__init__(game, time=time, depth=depth)


class FromFile(EntropySearch):
    """The search valuing lines with the table of the game's size in the table file `path`, its
    growth and potential weights multiplied by `growth` and `potential` (to 3 decimals)."""

    def __init__(
        self,
        game: Game,
        path: str,
        time: float = 1.0,
        depth: int | None = None,
        growth: float = 1.0,
        potential: float = 1.0,
    ) -> None:
        size = game.initial_state().size  # type: ignore[attr-defined]
        table = json.loads(Path(path).read_text(encoding="utf-8"))["tables"][str(size)]
        evaluation = PatternTable(size, table["growth"], table["potential"]).scaled(
            float(growth), float(potential)
        )
        super().__init__(
            game,
            time=float(time),
            depth=None if depth is None else int(depth),
            evaluation=evaluation,
        )


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


LINES = ("R.R....", "R.K....", "RKW....", "R.K.W..", "RKR....", ".......")


def main(argv: list[str]) -> int:
    if not argv:
        table = PatternTable.load(7)
        print("line     table  hand-set")
        for line in LINES:
            print(f"{line}  {line_value(line, table):5.2f}  {line_value(line, HAND_WEIGHTS):5.2f}")
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
