"""A tiny external engine for Order and Chaos in plain Python (it does not import abstractgames).

It speaks the abstractgames engine protocol (docs: External engines) and plays Order's simplest
idea: put an X next to the last X it placed, else the first empty square. Seat it with

    abstractgames play orderchaos -1 human -2 "engine:python3 examples/tiny_engine.py"

Run on its own it just waits for the referee's commands on standard input (end of input quits).
"""

from __future__ import annotations

import random
import sys

FILES = "abcdef"
SQUARES = [f + r for r in "123456" for f in FILES]


def neighbours(square: str) -> list[str]:
    f, r = FILES.index(square[0]), int(square[1]) - 1
    near = []
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if (df or dr) and 0 <= f + df < 6 and 0 <= r + dr < 6:
                near.append(f"{FILES[f + df]}{r + dr + 1}")
    return near


def choose(moves: list[str], rng: random.Random) -> str:
    taken = {move.split("@")[1] for move in moves}
    empty = [s for s in SQUARES if s not in taken]
    mine = [move.split("@")[1] for move in moves if move.startswith("X@")]
    if mine:
        near = [s for s in neighbours(mine[-1]) if s not in taken]
        if near:
            return "X@" + rng.choice(near)
    return "X@" + empty[0]


def answer(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    moves: list[str] = []
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "agp":
            answer("id name tiny engine")
            answer("agpok")
        elif command == "game":
            answer("gameok" if words[1] == "orderchaos" else "error I only play orderchaos")
        elif command == "isready":
            answer("readyok")
        elif command == "position":
            moves = words[words.index("moves") + 1 :] if "moves" in words else []
        elif command == "go":
            seed = words[words.index("seed") + 1] if "seed" in words else "0"
            answer("move " + choose(moves, random.Random(seed)))
        elif command == "quit":
            break


if __name__ == "__main__":
    main()
