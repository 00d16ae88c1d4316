"""Eric Solomon's Entropy (1977): Chaos places counters drawn at random, Order slides them.

The 7×7 board starts empty and 49 counters, seven of each of seven colours, start in a bag. Each
turn a counter is drawn (an explicit chance event: `state.to_move == CHANCE`), Chaos places it on
any empty square, then Order slides one counter like a rook or passes. The 49th placement ends the
game at once. Order scores the length of every palindrome of two or more touching counters in every
row and column; a match is two games with the roles swapped ([`EntropyMatch`][]). `size=5` is
the original 5×5 Hyle board with five colours of five counters.

A state keeps the board as ints: the colours with 3 bits per square and the occupancy with 8 bits
per line, each also transposed so that files are as easy to read as ranks. Order's and Chaos's
legal moves are concatenations of precomputed tuples indexed by each line's occupancy byte. The
score is kept in the state and updated from the few lines a move changes, by looking each line up
in a table of the scores of all 8**7 possible lines (2 MB, built in about 0.1 s on first use).

The package's modules, each building only on those before it: [`board`][] (sizes, roles, colours,
line codes), [`scoring`][] (line and board scores, the line-score table), [`moves`][], [`tables`][]
(what is precomputed per board size), [`match`][] (the two-game match) and [`rules`][] (the game and
its states). Bots build on the kernels [`line_code`][], [`line_scores`][], [`size_tables`][],
[`line_codes`][] and [`line_occupancy`][] rather than copying them.

Examples:
    >>> from abstractgames import get_game
    >>> state = get_game("entropy").initial_state()
    >>> state = state.apply("R").apply("R@d4").apply("d4-d7").apply("R").apply("R@e7")
    >>> state.position(), state.score()
    ('3RR2/7/7/7/7/7/7 order', 2)
"""

from __future__ import annotations

from .board import CHAOS, COLOUR_NAMES, COLOURS, EMPTY, ORDER, SIZES, line_code
from .match import EntropyMatch
from .moves import PASS, Draw, Pass, Placement, Slide
from .rules import (
    EntropyGame,
    EntropyState,
    line_codes,
    line_occupancy,
    timeout_move,
)
from .rules import _restore as _restore  # states pickled before the package split name it here
from .scoring import line_score, line_scores, score_board, score_boards
from .tables import SizeTables, size_tables

__all__ = [
    "CHAOS",
    "COLOURS",
    "COLOUR_NAMES",
    "EMPTY",
    "ORDER",
    "PASS",
    "SIZES",
    "Draw",
    "EntropyGame",
    "EntropyMatch",
    "EntropyState",
    "Pass",
    "Placement",
    "SizeTables",
    "Slide",
    "line_code",
    "line_codes",
    "line_occupancy",
    "line_score",
    "line_scores",
    "score_board",
    "score_boards",
    "size_tables",
    "timeout_move",
]
