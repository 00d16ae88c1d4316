"""How the bots judge and search an Entropy position (see [Entropy bots](../bots-entropy.md)).

**Line values.** A position is worth the sum of the values of its ranks and files, each an
estimate of what the line will score when the board is full. Two evaluations give them:

- the search's, a [`PatternTable`][] learned from self-play by
  `scripts/train_entropy_patterns.py`: the line's score, plus how much lines of its pattern
  ([`line_pattern`][]: which counters are alike, read either way) grew to the end of the
  training games, plus its *open patterns* times a weight by its number of empty squares;
- greedy Order's, hand-set [`Weights`][] ([`HAND_WEIGHTS`][]): the score, plus the open
  patterns, minus each maximal stretch of empty squares (a fragmented board gives Chaos places
  to hide counters) and each hole (a stretch of one square, where Chaos can drop a useless
  colour that Order can hardly move out again), plus what the holes guarantee (`A.A` becomes
  at least `ABA` whatever fills it).

The open patterns of a line are, for each empty square and each colour, the points that colour
would add to the line there, times that colour's share of the bag (a colour that is all on the
board opens no pattern). A full line is worth its score, so on a full board the value is the
score.

**Greedy** ([`evaluate`][], on the position after the mover's move): Order takes the line
values; Chaos takes minus (the score + Order's best immediate slide gain + [`OPEN`][] × the open
patterns of the board, counted with the bag's shares).

**Search** ([`EntropySearch`][]): expectiminimax over the line values by iterative deepening, Order
maximising, Chaos minimising, draws averaged over the bag; alpha-beta at the players' nodes, Star1
and Star2 (probing) at the draws, with bounds from the line values; the best moves found kept by
Zobrist hash for the next iteration; Order's depths after 3 are searched narrow first
([`NARROW_WIDTHS`][]). Order's best reply to each Chaos placement is found incrementally: only the
slides through the placed counter's rank and file change value; and at the last two plies Chaos's
answers to a slide are recounted only on the lines it changes. Under a clock, the time goes mostly
to the middle game ([`phase_weights`][]).
"""

from .board import position_value
from .lines import HAND_WEIGHTS, LineEvaluation, Weights, line_value
from .patterns import PATTERNS_FILE, PatternTable, all_patterns, line_pattern
from .player import (
    FIRST_WIDTH,
    NARROW_WIDTHS,
    OPEN,
    ROOT_WIDTH,
    EntropySearch,
    evaluate,
    phase_weights,
)
from .search import CHAOS_WIDTH, ORDER_WIDTH

__all__ = [
    "CHAOS_WIDTH",
    "FIRST_WIDTH",
    "HAND_WEIGHTS",
    "NARROW_WIDTHS",
    "OPEN",
    "ORDER_WIDTH",
    "PATTERNS_FILE",
    "ROOT_WIDTH",
    "EntropySearch",
    "LineEvaluation",
    "PatternTable",
    "Weights",
    "all_patterns",
    "evaluate",
    "line_pattern",
    "line_value",
    "phase_weights",
    "position_value",
]
