"""A CodeCup 2023 Entropy program: random legal moves, both roles, one game per run.

    python codecup_entropy.py [--seed N] [--illegal N] [--hang N] [--chatter] [--pidfile PATH]

It reads ``Start`` (then it is Chaos) or Chaos's first move (then it is Order), answers each turn,
and exits on ``Quit``. ``--illegal N`` makes its N-th move illegal, ``--hang N`` makes it hang at
its N-th move, ``--chatter`` writes to standard error at every move, ``--pidfile`` appends the
process id to a file.

Rows A-G are ranks 1-7, columns a-g files a-g; colours are 1-7 (W K Y G R B P). A pass is written
as the cell of a counter twice.

This file must not import abstractgames: it stands for a program written by someone else.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

SIZE = 7
ROWS = "ABCDEFG"
COLUMNS = "abcdefg"


def cell(row: int, column: int) -> str:
    return ROWS[row] + COLUMNS[column]


def parse(text: str) -> tuple[int, int]:
    return ROWS.index(text[0]), COLUMNS.index(text[1])


class Board:
    def __init__(self) -> None:
        self.grid = [[0] * SIZE for _ in range(SIZE)]
        self.placed = 0

    def empty_cells(self) -> list[tuple[int, int]]:
        return [(r, c) for r in range(SIZE) for c in range(SIZE) if not self.grid[r][c]]

    def place(self, colour: int, row: int, column: int) -> None:
        assert not self.grid[row][column], "placed on an occupied cell"
        self.grid[row][column] = colour
        self.placed += 1

    def slide(self, move: str) -> None:
        (r1, c1), (r2, c2) = parse(move[:2]), parse(move[2:])
        if (r1, c1) != (r2, c2):
            self.grid[r2][c2], self.grid[r1][c1] = self.grid[r1][c1], 0

    def slides(self) -> list[str]:
        found = []
        for r in range(SIZE):
            for c in range(SIZE):
                if not self.grid[r][c]:
                    continue
                for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    rr, cc = r + dr, c + dc
                    while 0 <= rr < SIZE and 0 <= cc < SIZE and not self.grid[rr][cc]:
                        found.append(cell(r, c) + cell(rr, cc))
                        rr, cc = rr + dr, cc + dc
        return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--illegal", type=int, default=0)
    parser.add_argument("--hang", type=int, default=0)
    parser.add_argument("--chatter", action="store_true")
    parser.add_argument("--pidfile")
    args = parser.parse_args()
    if args.pidfile:
        with open(args.pidfile, "a") as handle:
            handle.write(f"{os.getpid()}\n")
    rng = random.Random(args.seed)
    board = Board()
    moves = 0

    def answer(text: str) -> None:
        nonlocal moves
        moves += 1
        if args.chatter:
            print(f"move {moves}: {text}", file=sys.stderr)
        if moves == args.hang:
            time.sleep(600)
        if moves == args.illegal:
            occupied = [(r, c) for r in range(SIZE) for c in range(SIZE) if board.grid[r][c]]
            text = cell(*occupied[0]) if len(text) == 2 and occupied else "Aa" + "Gg"
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    for raw in sys.stdin:
        line = raw.strip()
        if line == "Quit":
            return 0
        if line in ("", "Start"):
            continue
        if len(line) == 1:  # Chaos: the colour to place
            row, column = rng.choice(board.empty_cells())
            board.place(int(line), row, column)
            answer(cell(row, column))
        elif len(line) == 3:  # Order: Chaos's move
            row, column = parse(line[1:])
            board.place(int(line[0]), row, column)
            if board.placed < SIZE * SIZE:
                options = [*board.slides(), cell(row, column) * 2]
                move = rng.choice(options)
                board.slide(move)
                answer(move)
        elif len(line) == 4:  # Chaos: Order's move
            board.slide(line)
        else:
            print(f"cannot read {line!r}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
