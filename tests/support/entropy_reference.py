"""Deliberately simple reference implementations of Entropy's rules, to test the engine against.

Nothing here is optimised: each function follows the wording of the rules as directly as possible.
"""

from __future__ import annotations

FILES = "abcdefg"


def reference_line_score(line: str) -> int:
    """Sum the lengths of all palindromic pieces of length >= 2 of each run ('.' breaks runs)."""
    total = 0
    for run in line.split("."):
        for start in range(len(run)):
            for end in range(start + 2, len(run) + 1):
                piece = run[start:end]
                if piece == piece[::-1]:
                    total += len(piece)
    return total


def reference_lines(cells: str, size: int) -> list[str]:
    """Every rank (bottom first) and every file (a first) of a board, as strings."""
    ranks = [cells[r * size : (r + 1) * size] for r in range(size)]
    files = ["".join(cells[r * size + f] for r in range(size)) for f in range(size)]
    return ranks + files


def reference_board_score(cells: str, size: int) -> int:
    """Order's score of a board given as one character per square in index order."""
    return sum(reference_line_score(line) for line in reference_lines(cells, size))


def square_name(square: int, size: int) -> str:
    return f"{FILES[square % size]}{square // size + 1}"


def reference_order_moves(cells: str, size: int) -> list[str]:
    """Order's legal moves by brute force over all pairs of squares, in the documented order.

    ``pass`` first, then slides along ranks (by rank, then origin, then target), then slides along
    files (by file, then origin, then target).
    """
    along_ranks: list[tuple[tuple[int, int, int], str]] = []
    along_files: list[tuple[tuple[int, int, int], str]] = []
    for origin in range(size * size):
        for target in range(size * size):
            if origin == target or cells[origin] == "." or cells[target] != ".":
                continue
            o_file, o_rank = origin % size, origin // size
            t_file, t_rank = target % size, target // size
            if o_rank == t_rank:
                low, high = sorted((o_file, t_file))
                between = [o_rank * size + f for f in range(low + 1, high)]
                key = (o_rank, origin, target)
                bucket = along_ranks
            elif o_file == t_file:
                low, high = sorted((o_rank, t_rank))
                between = [r * size + o_file for r in range(low + 1, high)]
                key = (o_file, origin, target)
                bucket = along_files
            else:
                continue
            if all(cells[sq] == "." for sq in between):
                bucket.append((key, f"{square_name(origin, size)}-{square_name(target, size)}"))
    return (
        ["pass"] + [text for _, text in sorted(along_ranks)] + [t for _, t in sorted(along_files)]
    )
