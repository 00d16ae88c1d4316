"""The players: greedy's evaluation ([`evaluate`][]) and the search player
[`EntropySearch`][]: its iterations, the moves it searches again at the root, and the share of a
clock each move gets ([`phase_weights`][])."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ...entropy import CHAOS, ORDER, PASS, EntropyState, Placement, Slide
from ...protocol import Game, IllegalMoveError, Move, State
from ...timing import Deadline, SearchTimeout, phase_budget
from .. import Player, SearchInfo
from .board import _Board, position_value
from .lines import HAND_WEIGHTS, LineEvaluation
from .patterns import PatternTable
from .search import CHAOS_WIDTH, ORDER_WIDTH, _Search

OPEN = 0.3
"""Weight of Chaos's open patterns in the greedy evaluation."""


ROOT_WIDTH = 12
"""Root moves searched again at each deeper iteration after the second."""
FIRST_WIDTH = 24
"""Root moves searched at the second iteration (Order's depth 3, Chaos's depth 4), the best by
the first: the best move of the second iteration is almost always among them."""


NARROW_WIDTHS = (2, 4)
"""Order's searches deeper than 3 plies go first this many slides and squares wide at the
inner nodes, then [`ORDER_WIDTH`][] and [`CHAOS_WIDTH`][]: a narrow pass finishes its first
root moves in a fraction of a full pass's time, so a short budget still looks 5 plies ahead
for the likeliest moves, and its best moves lead the next pass."""


def evaluate(state: State, role: str) -> float:
    """Higher is better for `role`; greedy calls it on the state after the mover's move.

    A finished game is worth its final score to Order and minus that to Chaos. Otherwise Order
    gets [`position_value`][] (the score plus the compactness terms), and Chaos gets minus
    (the score + Order's best slide gain on this board + `OPEN` × the open patterns); see
    [the module][abstractgames.players.entropy].
    """
    if not isinstance(state, EntropyState):
        raise TypeError(f"{state!r} is not an Entropy state")
    outcome = state.outcome()
    if outcome is not None:
        final = float(outcome.scores[ORDER])
        return final if role == ORDER else -final
    if role == ORDER:
        return position_value(state, HAND_WEIGHTS)
    board = _Board(state)
    threat = board.best_order_gain() if state.to_move == ORDER else 0.0
    return -(state.score() + threat + OPEN * board.open_patterns())


def phase_weights(size: int) -> tuple[float, ...]:
    """How much of a clock each move of a game deserves, by the counters on the board before it
    (`size`² of them, averaging 1): the first few placements, which every search values about
    the same, and the last ones, whose trees are small enough to search to the end, get less;
    the middle game, where the search's depth pays, gets more.

    Examples:
        >>> weights = phase_weights(7)
        >>> round(sum(weights) / len(weights), 6), weights[0] < weights[24] > weights[46]
        (1.0, True)
    """
    squares = size * size
    raw = []
    for placed in range(squares):
        empties = squares - placed
        if placed < squares // 8:
            raw.append(0.5)
        elif empties <= squares // 8:
            raw.append(0.4)
        elif empties <= squares // 4:
            raw.append(1.0)
        else:
            raw.append(1.4)
    mean = sum(raw) / squares
    return tuple(w / mean for w in raw)


def _depths(first: int, limit: int | None) -> list[int]:
    """The iterations after depth 1: `first`, `first + 2`, … below `limit`, then `limit`.

    Examples:
        >>> _depths(3, 6), _depths(2, None)[:3], _depths(2, 1)
        ([3, 5, 6], [2, 4, 6], [])
    """
    if limit is None:
        return list(range(first, 200, 2))
    if limit <= 1:
        return []
    return [*range(first, limit, 2), limit]


class EntropySearch(Player):
    """Expectimax search for either role of Entropy (the `search` player).

    Args:
        game: the Entropy game (7×7 or 5×5).
        time: seconds to think per move; with a clock, at most its share of the time left over
            the player's remaining moves ([`move_budget`][abstractgames.timing.move_budget]).
        depth: search exactly this many plies (Order's and Chaos's moves; draws are expanded in
            full and do not count) instead, with no time limit: deterministic for a given
            `rng` seed.
        root_width: root moves searched at each iteration after the second.
        first_width: root moves searched at the second iteration.
        narrow_widths: the inner widths of Order's narrow passes before each depth after 3
            (none: every iteration at `order_width` and `chaos_width`).
        order_width: slides tried at an inner Order node.
        chaos_width: squares tried at an inner Chaos node.
        evaluation: what values the lines at the leaves (default: the learned table of the
            game's size, [`PatternTable.load`][]).
    """

    def __init__(
        self,
        game: Game,
        time: float = 1.0,
        depth: int | None = None,
        root_width: int = ROOT_WIDTH,
        order_width: int = ORDER_WIDTH,
        chaos_width: int = CHAOS_WIDTH,
        evaluation: LineEvaluation | None = None,
        first_width: int = FIRST_WIDTH,
        narrow_widths: Sequence[int] = NARROW_WIDTHS,
    ) -> None:
        self.game = game
        self.time = time
        self.depth = depth
        self.root_width = root_width
        self.first_width = first_width
        self.narrow_widths = tuple(narrow_widths)
        self.order_width = order_width
        self.chaos_width = chaos_width
        self.evaluation = evaluation
        self.spec = f"search:depth={depth}" if depth is not None else f"search:time={time}"

    def budget(self, state: EntropyState, time_left: float | None) -> float:
        """Seconds to spend on a move in `state`: `time`, and under a clock the share of the
        time left that [`phase_weights`][] gives this move among the player's moves left in
        the game ([`phase_budget`][abstractgames.timing.phase_budget])."""
        # Order moves after every placement but the last; Chaos places once per empty square.
        weights = phase_weights(state.size)
        return phase_budget(self.time, time_left, weights[state.placements :])

    def iterations(self, first: int) -> list[tuple[int, int, int]]:
        """The iterations after the first (depth 1), as `(depth, order_width, chaos_width)`,
        `first` being 3 for Order and 2 for Chaos: the depths 3, 5, … and 2, 4, …, those that
        end on Order's reply. Order searches each depth after 3 at its narrow widths
        ([`NARROW_WIDTHS`][] unless told) first, then at its own widths.

        Examples:
            >>> from abstractgames.entropy import EntropyGame
            >>> EntropySearch(EntropyGame(), depth=5).iterations(3)
            [(3, 8, 8), (5, 2, 2), (5, 4, 4), (5, 8, 8)]
            >>> EntropySearch(EntropyGame(), depth=4).iterations(2)
            [(2, 8, 8), (4, 8, 8)]
        """
        full = (self.order_width, self.chaos_width)
        out = []
        for depth in _depths(first, self.depth):
            if first == 3 and depth > first:
                for width in self.narrow_widths:
                    narrow = (min(width, full[0]), min(width, full[1]))
                    if narrow != full and (depth, *narrow) not in out:
                        out.append((depth, *narrow))
            out.append((depth, *full))
        return out

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if not isinstance(state, EntropyState) or state.to_move not in (ORDER, CHAOS):
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        deadline = Deadline(None if self.depth is not None else self.budget(state, time_left))
        order = state.to_move == ORDER
        evaluation = self.evaluation or PatternTable.load(state.size)
        board = _Board(state, evaluation)
        search = _Search(board, deadline, self.order_width, self.chaos_width)
        tables = board.tables
        colour = 0
        if order:
            moves = board.order_slides()
            rng.shuffle(moves)
            valued = search.order_first(moves)
            first = 3
        else:
            colour = tables.colour_value[str(state.drawn)]
            squares = [sq for _, sq in board.chaos_moves(colour)]
            rng.shuffle(squares)
            valued = search.chaos_root(squares, colour, 1, range(len(squares)))
            first = 2
        values = {index: value for value, index in valued}
        ranked = _rank(valued, order)
        reached = 1
        narrow = False
        for depth, search.order_width, search.chaos_width in self.iterations(first):
            # A search that reached the end of every line it followed is exact, unless it
            # followed only the likeliest few moves.
            if not search.cut and not narrow:
                break
            narrow = search.order_width < self.order_width or search.chaos_width < self.chaos_width
            search.cut = False
            keep = ranked[: self.first_width if reached == 1 else self.root_width]
            found: list[tuple[float, int]] = []
            try:
                if order:
                    search.order_root(moves, depth, keep, found)
                elif depth == 2:
                    search.chaos_second(squares, colour, keep, found)
                else:
                    search.chaos_root(squares, colour, depth, keep, found)
            except SearchTimeout:
                if not found:
                    break
            reached = depth
            values.update((index, value) for value, index in found)
            better = _rank(found, order)
            ranked = better + [i for i in ranked if i not in set(better)]
            if len(found) < len(keep):
                break
        best = ranked[0]
        value = values[best]  # Order's expected score and shape terms
        self.info = SearchInfo(
            reached, value if order else -value, search.nodes, deadline.elapsed()
        )
        if order:
            origin, target = moves[best]
            if origin < 0:
                return PASS
            slide = tables.slides[origin][target]
            assert isinstance(slide, Slide)
            return slide
        placement: Placement = tables.placements[str(state.drawn)][squares[best]]
        return placement


def _rank(values: list[tuple[float, int]], highest_first: bool) -> list[int]:
    """The indices sorted best first; equal values keep their (shuffled) order."""
    key: Callable[[tuple[float, int]], float] = (
        (lambda item: -item[0]) if highest_first else (lambda item: item[0])
    )
    return [index for _, index in sorted(values, key=key)]
