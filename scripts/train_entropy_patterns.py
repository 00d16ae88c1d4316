"""Fit the Entropy search's line values: a learned value for every line pattern.

The search values a position by the sum of its ranks' and files' values, each an estimate of the
line's final score. This script learns them from self-play. It plays seeded games with the
search bot at depth 2 in both roles and, at every position where a draw is due (the positions
the search values most often), notes each line's pattern (`line_pattern`: which of its counters
are alike, read either way), its open patterns (the points each colour would add on its empty
squares, by the colour's share of the bag) and, at the end of the game, how much the line's score
grew. The fit, on sums per pattern:

    growth to the end = growth[pattern] + potential[empty squares] × open patterns

The growth of a pattern seen often is its own mean; a pattern seen seldom is drawn towards what
its shape predicts (a least-squares line on its number of empty squares, empty stretches, holes
and what the holes guarantee), by `n / (n + SHRINK)` for `n` sightings; a pattern never seen
takes the prediction.

The fitted values estimate the growth to the end of games between depth-2 searches, and the
search plays better with them shrunk: they are then multiplied by `SCALE` (0.9 for 7×7, after
rounding to 3 decimals, and rounded again). The factor was chosen by matches at a fixed depth
(see docs/bots-entropy.md, "Where the line values come from"); `--scale` sets another.

The games are played with the hand-set weights (`HAND_WEIGHTS`), so that the data do not depend
on the table in the package. The result depends on the seed, the number of games and what the
depth-2 search decides, but not on how it adds values up: line values lie on a grid of 2**-20,
so a position's value is exact and a chance node's is one division of an exact sum. The file
keeps a digest of the first games (`first_games_digest`), which a test compares with what the
search plays now: a change to the depth-2 search's decisions calls for `--write` (and for
measuring the bot again).

    python scripts/train_entropy_patterns.py            # fit both sizes and print a summary
    python scripts/train_entropy_patterns.py --write    # and write the package's table file
    python scripts/train_entropy_patterns.py --check    # exit 1 unless the file holds them
    python scripts/train_entropy_patterns.py --size 7 --scale 1 --output fitted.json --write
                                                        # the plain fit, for 7x7, elsewhere

The defaults (seed 27, 10,000 games of 7×7 and 5,000 of 5×5) take about 20 minutes on two cores
(`--jobs`). numpy is needed here only: the bot reads the tables from a JSON file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from abstractgames.entropy import COLOURS, EMPTY, EntropyGame, line_code, line_codes
from abstractgames.players import entropy as bot
from abstractgames.players.entropy.patterns import _pattern
from abstractgames.players.entropy.tables import _tables
from abstractgames.protocol import random_move

OUTPUT = Path(bot.__file__).with_name(bot.PATTERNS_FILE)
SEED = 27
GAMES = {7: 10_000, 5: 5_000}
DEPTH = 2
SHRINK = 50.0
"""How many sightings of a pattern weigh as much as what its shape predicts."""
SCALE = {7: 0.9, 5: 1.0}
"""By size, the factor applied to the fitted growth and potential weights."""
TOLERANCE = 0.002
"""How far `--check` lets a value differ (the file rounds them to 3 decimals)."""
DIGEST_GAMES = 8

# One game's data: the line codes and the bag at each position where a draw is due, and the
# lines' final scores.
Game = tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], tuple[int, ...]]

_player: bot.EntropySearch | None = None


def _start_worker(size: int, evaluation: bot.LineEvaluation) -> None:
    global _player
    _player = bot.EntropySearch(EntropyGame(size), depth=DEPTH, evaluation=evaluation)


def play(seed: int) -> Game:
    """One self-play game of the worker's player (`_start_worker`), its draws seeded by `seed`."""
    assert _player is not None
    game = _player.game
    assert isinstance(game, EntropyGame)
    chance, rng = random.Random(seed), random.Random(seed + 1)
    state = game.initial_state()
    seen = []
    while not state.is_terminal():
        if state.is_chance():
            if state.placements:
                ranks, files = line_codes(state)
                seen.append(((*ranks, *files), tuple(state.bag().values())))
            move = random_move(state, chance)
        else:
            move = _player.choose(state, rng)
        state = state.apply(move)
    ranks, files = line_codes(state)
    scores = _tables(game.size).scores
    return seen, tuple(scores[code] for code in (*ranks, *files))


def _seeds(size: int, games: int, seed: int) -> list[int]:
    return [(seed * 1_000_003 + size) * 100_003 + index for index in range(games)]


def self_play(
    size: int, games: int, seed: int, evaluation: bot.LineEvaluation, jobs: int
) -> list[Game]:
    """`games` seeded self-play games (their seeds follow from `seed` and the size)."""
    with Pool(jobs, _start_worker, (size, evaluation)) as pool:
        return pool.map(play, _seeds(size, games, seed), chunksize=16)


def digest(games: Sequence[Game]) -> str:
    """A short fingerprint of games' data: the file keeps that of the first `DIGEST_GAMES`, so
    that a test finds out, in seconds, when the search no longer plays the games it was fitted
    on."""
    return hashlib.sha256(repr(list(games)).encode()).hexdigest()[:16]


def first_games_digest(size: int, seed: int = SEED) -> str:
    """`digest` of the first `DIGEST_GAMES` training games of `size`, played here."""
    _start_worker(size, bot.HAND_WEIGHTS)
    return digest([play(s) for s in _seeds(size, DIGEST_GAMES, seed)])


def fit(size: int, games: Sequence[Game]) -> bot.PatternTable:
    """The table that best predicts each line's growth to the end of `games` (see the module)."""
    tables = _tables(size)
    patterns = bot.all_patterns(size)
    index_of = {pattern: k for k, pattern in enumerate(patterns)}
    codes = np.array([codes for seen, _ in games for codes, _ in seen], dtype=np.int64)
    bags = np.array([bag for seen, _ in games for _, bag in seen], dtype=np.float64)
    finals = np.array([final for seen, final in games for _ in seen], dtype=np.float64)
    unique, where = np.unique(codes, return_inverse=True)
    where = where.reshape(codes.shape)
    # Per distinct line code: its score, pattern, empty squares and open patterns by colour.
    score = np.zeros(len(unique))
    pattern = np.zeros(len(unique), dtype=np.int64)
    gains = np.zeros((len(unique), size))
    for k, code in enumerate(unique.tolist()):
        now, _, _, _, per_colour = tables.features[code]
        score[k] = now
        pattern[k] = index_of[_pattern(size, code)]
        gains[k] = per_colour
    shares = bags / bags.sum(axis=1, keepdims=True)
    grown = (finals - score[where]).ravel()
    potential = np.einsum("plc,pc->pl", gains[where], shares).ravel()
    line_pattern = pattern[where].ravel()
    # The sums per pattern from which the fit is made.
    count = len(patterns)
    n = np.bincount(line_pattern, minlength=count).astype(np.float64)
    sum_y = np.bincount(line_pattern, grown, count)
    sum_p = np.bincount(line_pattern, potential, count)
    sum_pp = np.bincount(line_pattern, potential * potential, count)
    sum_yp = np.bincount(line_pattern, grown * potential, count)
    # Each pattern's shape: empty squares, empty stretches, holes, points the holes guarantee.
    empties = np.array([p.count(EMPTY) for p in patterns])
    shape = np.zeros((count, 3))
    for k, text in enumerate(patterns):
        _, segments, holes, guarantee, _ = tables.features[line_code(_coloured(text))]
        shape[k] = segments, holes, guarantee
    design = np.hstack([np.eye(size + 1)[empties], shape])
    weight = np.zeros(size + 1)
    growth = np.zeros(count)
    seen = n > 0
    for _ in range(20):
        mean = np.where(seen, (sum_y - weight[empties] * sum_p) / np.maximum(n, 1), 0.0)
        root = np.sqrt(n)[:, None]
        coefficients = np.linalg.lstsq(design * root, mean * root[:, 0], rcond=None)[0]
        predicted = design @ coefficients
        growth = predicted + n / (n + SHRINK) * (mean - predicted)
        for e in range(1, size + 1):
            mask = empties == e
            denominator = sum_pp[mask].sum()
            if denominator > 0:
                weight[e] = (sum_yp[mask] - growth[mask] * sum_p[mask]).sum() / denominator
    growth[empties == 0] = 0.0  # a full line's score is final
    print(f"  patterns seen: {int(seen.sum())} of {count}")
    return bot.PatternTable(
        size,
        {text: round(float(value), 3) for text, value in zip(patterns, growth, strict=True)},
        [round(float(value), 3) for value in weight],
    )


def _coloured(pattern: str) -> str:
    """A line of colour letters with the pattern `pattern` (the pattern's `A` as the first
    colour, and so on)."""
    return "".join(EMPTY if c == EMPTY else COLOURS["ABCDEFG".index(c)] for c in pattern)


def train(
    size: int, games: int, seed: int, jobs: int, scale: float
) -> tuple[bot.PatternTable, str]:
    """Play the games of one size, fit its table and scale it; the table and the first games'
    digest."""
    played = self_play(size, games, seed, bot.HAND_WEIGHTS, jobs)
    positions = sum(len(seen) for seen, _ in played)
    print(f"{size}x{size}: {games} games, {positions} positions")
    return fit(size, played).scaled(scale), digest(played[:DIGEST_GAMES])


def as_json(
    tables: dict[int, bot.PatternTable], digests: dict[int, str], args: argparse.Namespace
) -> dict[str, Any]:
    return {
        "about": (
            "The Entropy search's line values, written by scripts/train_entropy_patterns.py "
            "--write: for each size, the potential weight by a line's empty squares and the "
            "growth of every line pattern. Do not edit: regenerate."
        ),
        "seed": args.seed,
        "games": {str(size): GAMES[size] if args.games is None else args.games for size in tables},
        "digest": {str(size): digests[size] for size in tables},
        "scale": {str(size): _scale(args, size) for size in tables},
        "tables": {
            str(size): {"potential": list(table.potential), "growth": table.growth}
            for size, table in sorted(tables.items(), reverse=True)
        },
    }


def differences(written: dict[str, Any], fitted: dict[str, Any]) -> list[str]:
    """What differs between two table files by more than `TOLERANCE`."""
    out = []
    if written.get("seed") != fitted["seed"]:
        out.append(f"seed: {written.get('seed')!r} in the file, {fitted['seed']!r} fitted")
    for key in ("games", "digest", "scale"):
        for size, value in fitted[key].items():
            old = written.get(key, {}).get(size)
            if old != value:
                out.append(f"{key} of size {size}: {old!r} in the file, {value!r} fitted")
    for size, table in fitted["tables"].items():
        old = written.get("tables", {}).get(size)
        if old is None:
            out.append(f"no table of size {size} in the file")
            continue
        pairs = list(zip(old["potential"], table["potential"], strict=False))
        pairs += [(old["growth"].get(p, float("nan")), v) for p, v in table["growth"].items()]
        worst = max(abs(a - b) if a == a else float("inf") for a, b in pairs)
        if worst > TOLERANCE:
            out.append(f"size {size}: values differ by up to {worst:.3f}")
    return out


def _scale(args: argparse.Namespace, size: int) -> float:
    return SCALE[size] if args.scale is None else args.scale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, choices=(5, 7), action="append")
    parser.add_argument("--games", type=int, help="games of each size (default 10000 and 5000)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--jobs", type=int, default=2, help="processes playing the games")
    parser.add_argument(
        "--scale", type=float, help="the factor on the fitted values (default: SCALE's)"
    )
    parser.add_argument("--output", type=Path, default=OUTPUT, help="the table file")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="write the tables into the file")
    what.add_argument("--check", action="store_true", help="exit 1 unless the file holds them")
    args = parser.parse_args()
    sizes = sorted(set(args.size or (7, 5)), reverse=True)
    tables = {}
    digests = {}
    for size in sizes:
        games = GAMES[size] if args.games is None else args.games
        tables[size], digests[size] = train(size, games, args.seed, args.jobs, _scale(args, size))
        table = tables[size]
        print(f"  potential by empty squares: {', '.join(map(str, table.potential))}")
        for pattern in ("A.A" + "." * (size - 3), "AA" + "." * (size - 2), "." * size):
            print(f"  growth of {pattern}: {table.growth[pattern]}")
    fitted = as_json(tables, digests, args)
    if args.check:
        written = json.loads(args.output.read_text(encoding="utf-8"))
        problems = differences(written, fitted)
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    if args.write:
        if args.output.exists():
            old = json.loads(args.output.read_text(encoding="utf-8"))
            for size, table in old.get("tables", {}).items():
                fitted["tables"].setdefault(size, table)
                fitted["games"].setdefault(size, old.get("games", {}).get(size))
                fitted["digest"].setdefault(size, old.get("digest", {}).get(size))
                fitted["scale"].setdefault(size, old.get("scale", {}).get(size, 1.0))
        text = json.dumps(fitted, indent=1, sort_keys=False, ensure_ascii=False)
        args.output.write_text(text + "\n", encoding="utf-8")
        print(f"written into {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
