"""Fit the weights of the Entropy bot's evaluation (`abstractgames.players.entropy.WEIGHTS`).

The search values a position by its line values: the score plus weighted shape terms (open
patterns, empty stretches, holes, what the holes guarantee). This script plays seeded self-play
games of 7×7 Entropy with the search bot at depth 2 (both roles), and at every position where a
draw is due (the positions the search values most often) records the shape terms summed over the
ranks and files and what the score still grew by to the end of the game. A least-squares fit of
that growth on the shape terms, with one constant per number of empty squares (so the phase of the
game is not credited to any term), gives the weights: the line value then estimates the final
score.

    python scripts/train_entropy_weights.py            # fit and print the weights
    python scripts/train_entropy_weights.py --write    # and write them into players/entropy.py
    python scripts/train_entropy_weights.py --check    # exit 1 unless the file holds them

The seed (`--seed`, default 27) and the number of games (`--games`, default 1000, about 48,000
positions) decide the result; it takes about three minutes on one core. numpy is needed here
only: the bot itself reads the weights as four numbers. The games are played with the weights the
bot had before any fit (`PLAY_WEIGHTS`), so the data do not depend on the weights in the file;
they do depend on the search's code (a change to the depth-2 search changes the games).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

import numpy as np

from abstractgames.entropy import EntropyGame, EntropyState
from abstractgames.players import entropy as bot
from abstractgames.protocol import random_move

MODULE = Path(bot.__file__)
FEATURES = ("potential", "segment", "hole", "guarantee")
SIGNS = (1.0, -1.0, -1.0, 1.0)  # a line value adds potential and guarantee, subtracts the others
PLAY_WEIGHTS = bot.Weights(potential=0.6, segment=0.5, hole=0.5, guarantee=0.5)
"""The weights the self-play games are played with (the hand-set ones the bot had before), fixed
here so that the data, and so the fit, do not depend on the weights the bot holds."""


def shape_terms(state: EntropyState) -> tuple[int, list[float]]:
    """The score and the four shape terms of `state`, summed over its ranks and files."""
    board = bot._Board(state)
    features = board.tables.features
    shares = bot._shares(bot._bag_weights(board.bag))  # as the search weighs the patterns
    sums = [0.0, 0.0, 0.0, 0.0]
    for code in [*board.rc, *board.fc]:
        _, segments, holes, guarantee, gains = features[code]
        sums[0] += sum(g * p for g, p in zip(gains, shares, strict=True))
        sums[1] += segments
        sums[2] += holes
        sums[3] += guarantee
    return state.score(), sums


def play(game: EntropyGame, seed: int) -> list[tuple[int, int, list[float], int]]:
    """One self-play game: `(empty squares, score, shape terms, final score)` per draw."""
    player = bot.EntropySearch(game, depth=2, weights=PLAY_WEIGHTS)
    chance, rng = random.Random(seed), random.Random(seed + 1)
    state = game.initial_state()
    seen = []
    while not state.is_terminal():
        if state.is_chance():
            if state.placements:
                score, terms = shape_terms(state)
                seen.append((game.size**2 - state.placements, score, terms))
            move = random_move(state, chance)
        else:
            move = player.choose(state, rng)
        state = state.apply(move)
    final = state.score()
    return [(empties, score, terms, final) for empties, score, terms in seen]


def fit(games: int, seed: int) -> bot.Weights:
    game = EntropyGame()
    rows = []
    for index in range(games):
        rows += play(game, seed * 100_003 + index)
    squares = game.size**2
    x = np.zeros((len(rows), 4 + squares))
    y = np.zeros(len(rows))
    for k, (empties, score, terms, final) in enumerate(rows):
        x[k, :4] = terms
        x[k, 4 + empties - 1] = 1.0  # the phase's own constant
        y[k] = final - score
    used = x.any(axis=0)
    coefficients = np.linalg.lstsq(x[:, used], y, rcond=None)[0]
    full = np.zeros(x.shape[1])
    full[used] = coefficients
    values = [round(float(sign * c), 3) for sign, c in zip(SIGNS, full[:4], strict=True)]
    return bot.Weights(*values)


def literal(weights: bot.Weights) -> str:
    inner = ", ".join(f"{name}={getattr(weights, name)!r}" for name in FEATURES)
    return f"WEIGHTS = Weights({inner})"


PATTERN = re.compile(r"^WEIGHTS = Weights\([^)]*\)$", re.MULTILINE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--write", action="store_true", help="write the weights into the bot")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the bot holds them")
    args = parser.parse_args()
    weights = fit(args.games, args.seed)
    line = literal(weights)
    print(line)
    text = MODULE.read_text(encoding="utf-8")
    current = PATTERN.search(text)
    if current is None:
        print(f"no WEIGHTS line in {MODULE}", file=sys.stderr)
        return 1
    if args.check:
        return 0 if current.group(0) == line else 1
    if args.write:
        MODULE.write_text(PATTERN.sub(line, text, count=1), encoding="utf-8")
        print(f"written into {MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
