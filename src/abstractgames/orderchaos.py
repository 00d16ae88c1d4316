"""Stephen Sniderman's Order and Chaos on 6×6, original rules: six in a row counts.

Both players place an `X` or an `O` (their choice) on any empty square, Order first. Order wins
as soon as five or more like symbols stand in an unbroken line across, down or diagonally, whoever
placed them; Chaos wins when the board fills without such a line. There are no draws.

The board is two int bitboards (one per symbol). The 32 five-square windows are precomputed as
masks, and after a move only the windows through the square just played are checked. The tables
are exported for bots: [`WINDOWS`][], [`WINDOWS_THROUGH`][], [`WINDOW_INDICES_THROUGH`][],
with [`SIZE`][], [`FULL`][] and [`MOVES`][].

Examples:
    >>> from abstractgames import get_game
    >>> state = get_game("orderchaos").from_position("6/6/6/6/6/XXXX2 order")
    >>> state.apply("X@e1").outcome().winner
    'order'
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from .grid import grid, split_position
from .protocol import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    State,
)
from .text import excerpt, value_excerpt

__all__ = [
    "CHAOS",
    "FULL",
    "LINE_LENGTH",
    "MOVES",
    "OBSERVATION_PLANES",
    "ORDER",
    "SIZE",
    "WEIGHTS",
    "WINDOWS",
    "WINDOWS_THROUGH",
    "WINDOW_INDICES_THROUGH",
    "OrderChaosGame",
    "OrderChaosState",
    "Placement",
]

ORDER, CHAOS = "order", "chaos"
SYMBOLS = "XO"
GRID = grid(6, 6)
SIZE = GRID.size
"""The number of squares, 36; bit `i` of a bitboard is square `i` (a1 = 0, … f6 = 35)."""
FULL = (1 << SIZE) - 1
"""The bitboard of every square: the board is full when `x | o == FULL`."""
LINE_LENGTH = 5
"""How many like symbols in a row win for Order (six count too)."""


def _windows() -> tuple[int, ...]:
    masks = []
    for start in range(SIZE):
        for df, dr in ((1, 0), (0, 1), (1, 1), (-1, 1)):
            squares = [start, *GRID.ray(start, df, dr)[: LINE_LENGTH - 1]]
            if len(squares) == LINE_LENGTH:
                masks.append(GRID.mask(squares))
    return tuple(masks)


WINDOWS: tuple[int, ...] = _windows()
"""The 32 bitboards of five squares in a line (rows, columns and both diagonals)."""
WINDOW_INDICES_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i, w in enumerate(WINDOWS) if w >> sq & 1) for sq in range(SIZE)
)
"""`WINDOW_INDICES_THROUGH[sq]`: the indices in [`WINDOWS`][] of the windows through square
`sq`, in increasing order."""
WINDOWS_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(WINDOWS[i] for i in indices) for indices in WINDOW_INDICES_THROUGH
)
"""`WINDOWS_THROUGH[sq]`: the windows through square `sq` (those of
[`WINDOW_INDICES_THROUGH`][])."""
WEIGHTS: tuple[int, ...] = (0, 1, 4, 20, 400, 0)
"""`WEIGHTS[k]`: what a window holding `k` like symbols and none of the other kind (`k` = 0 to 5)
adds to the *line potential*, the greedy evaluation; a window holding both kinds is dead and adds
nothing. Four and a gap threaten to win on the next move, so they weigh far more; five have
already won. The `greedy` bot's
[`line_potential`][abstractgames.players.orderchaos.line_potential] and the batched
[`greedy_actions`][abstractgames.vector.orderchaos.greedy_actions] both sum it over
[`WINDOWS`][]."""


def _check_symbol(instance: object, attribute: attrs.Attribute[str], value: object) -> None:
    if value not in ("X", "O"):
        raise ValueError(f"symbol must be 'X' or 'O', not {value_excerpt(value)}")


def _check_square(instance: object, attribute: attrs.Attribute[int], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < SIZE:
        raise ValueError(f"square must be a square index 0..{SIZE - 1}, not {value_excerpt(value)}")


@attrs.frozen(slots=True, repr=False)
class Placement(Move):
    """Put `symbol` (`"X"` or `"O"`) on `square` (0 = a1 … 35 = f6); notation `X@c3`."""

    symbol: str = attrs.field(validator=_check_symbol)
    square: int = attrs.field(validator=_check_square)

    def __str__(self) -> str:
        return f"{self.symbol}@{GRID.names[self.square]}"

    def __repr__(self) -> str:
        return f"Placement({str(self)!r})"


MOVES: tuple[Placement, ...] = tuple(Placement(s, sq) for sq in range(SIZE) for s in SYMBOLS)
"""Every placement in canonical order: by square (a1, b1, … f6), `X` before `O`."""
_MOVE_BY_TEXT = {str(m): m for m in MOVES}

_BY_CENTRE = sorted(
    range(SIZE), key=lambda sq: (abs(2 * (sq % 6) - 5) + abs(2 * (sq // 6) - 5), sq)
)
"""The squares nearest the centre first (c3, d3, c4, d4, …): where the example move goes."""
# Possessive runs of spaces (*+): long spaces cannot make the match backtrack quadratically.
_MOVE_RE = re.compile(
    r"^\s*([xo])\s*+@?\s*+([a-z]\d+)\s*$|^\s*([a-z]\d+)\s*+@?\s*+([xo])\s*$", re.I
)

# Rank r -> the empty squares of the rank as 6 bits -> their actions; and 6 bits -> 6 floats.
_RANK_ACTIONS = tuple(
    tuple(
        tuple(2 * (6 * r + f) + s for f in range(6) if bits >> f & 1 for s in (0, 1))
        for bits in range(64)
    )
    for r in range(6)
)
_RANK_FLOATS = tuple([float(bits >> f & 1) for f in range(6)] for bits in range(64))
_ONES, _ZEROS = [1.0] * SIZE, [0.0] * SIZE

OBSERVATION_PLANES = 4
"""Planes of an observation: X, O, empty, and all ones when Order is to move."""

ORDER_WINS = Outcome(ORDER, {ORDER: 1, CHAOS: 0}, "five in a row")
CHAOS_WINS = Outcome(CHAOS, {ORDER: 0, CHAOS: 1}, "board full without five in a row")

_set = object.__setattr__


class OrderChaosGame(Game):
    """Both place X or O; Order wants five (or six) in a row, Chaos a full board without.

    Order and Chaos on 6×6 with the original rules (`get_game("orderchaos")`); it has no
    parameters.
    """

    name = "orderchaos"
    title = "Stephen Sniderman's Order and Chaos"
    roles = (ORDER, CHAOS)
    num_distinct_actions = 2 * SIZE
    observation_shape = (OBSERVATION_PLANES, GRID.height, GRID.width)
    max_length = SIZE
    board_width = GRID.width

    def initial_state(self) -> OrderChaosState:
        return _make(0, 0, None, MOVES)

    def from_position(self, text: str) -> OrderChaosState:
        """Read `<ranks> <side>`, e.g. `"6/6/6/6/6/6 order"`."""
        ranks, side = split_position(text, 2, "6/6/6/6/6/6 order")
        cells = GRID.parse_ranks(ranks, SYMBOLS)
        x = GRID.mask(i for i, c in enumerate(cells) if c == "X")
        o = GRID.mask(i for i, c in enumerate(cells) if c == "O")
        side = side.lower()
        if side not in (ORDER, CHAOS):
            raise InvalidPositionError(f"side to move '{excerpt(side)}' must be 'order' or 'chaos'")
        count = (x | o).bit_count()
        expected = ORDER if count % 2 == 0 else CHAOS
        if side != expected:
            raise InvalidPositionError(
                f"side to move {side!r} does not match the {count} pieces on the board "
                f"(Order moves when the count is even, so it is {expected!r})"
            )
        return _make(x, o, _outcome_of(x, o), None)

    def parse_move(self, text: str, state: State | None = None) -> Placement:
        """Read `X@c3` (also `xc3`, `c3x`, `x @ C3`); the state is not needed."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"move notation must be a string, not {type(text).__name__}")
        match = _MOVE_RE.match(text)
        if match is None:
            example = _example(state) if isinstance(state, OrderChaosState) else "X@c3"
            raise InvalidMoveError(
                f"cannot read move '{excerpt(text)}': write the symbol, '@' and the square, "
                f"e.g. '{example}'"
            )
        symbol = (match.group(1) or match.group(4)).upper()
        square = GRID.square(match.group(2) or match.group(3))
        return _MOVE_BY_TEXT[f"{symbol}@{GRID.names[square]}"]

    def action_of(self, move: Move) -> int:
        """`2 * square + symbol`: X on a1 is 0, O on a1 is 1, … O on f6 is 71 (the index of the
        move in [`MOVES`][])."""
        if type(move) is not Placement:
            raise InvalidMoveError(f"{value_excerpt(move)} is not an Order and Chaos move")
        return 2 * move.square + (move.symbol == "O")

    def move_of(self, action: int, state: State) -> Placement:
        return MOVES[self.check_action(action, state)]

    def goal(self, role: str) -> str:
        return {
            ORDER: "five in a row of X or of O",
            CHAOS: "fill the board with no five in a row",
        }.get(role, "")

    def rules_summary(self) -> str:
        return (
            "The board is 6×6 and starts empty; Order moves first, then the players alternate.\n"
            "Each move puts an X or an O (the mover's choice, every time) on an empty square.\n"
            "Order wins as soon as five or more like symbols stand in a line across, down or\n"
            "diagonally, whoever placed them; Chaos wins when the board is full without one."
        )

    def move_kinds(self, state: State) -> tuple[str, ...]:
        """The example is a move legal in `state`: X on the empty square nearest the centre
        (`X@c3` on the empty board), never a square already taken."""
        if not isinstance(state, OrderChaosState) or state.to_move is None:
            return ()
        return (f"X or O and a square, such as {_example(state)}",)


def _example(state: OrderChaosState) -> str:
    """A move legal in `state`, to show as an example: X on the empty square nearest the centre
    (`X@c3` on the empty board; a full board, which has none, still gets `X@c3`)."""
    taken = state.x | state.o
    empty = (square for square in _BY_CENTRE if not taken >> square & 1)
    return f"X@{GRID.names[next(empty, _BY_CENTRE[0])]}"


GAME = OrderChaosGame()


class OrderChaosState(State):
    """A position of Order and Chaos: two bitboards (`x`, `o`) and who moves next."""

    __slots__ = ("_legal", "_outcome", "_to_move", "o", "x")
    x: int
    o: int
    _outcome: Outcome | None
    _to_move: str | None
    # The legal moves, derived from the parent's tuple when there is one; None until needed.
    _legal: tuple[Placement, ...] | None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    @property
    def game(self) -> OrderChaosGame:
        return GAME

    @property
    def to_move(self) -> str | None:
        return self._to_move

    def legal_moves(self) -> tuple[Placement, ...]:
        legal = self._legal
        if legal is None:
            if self._to_move is None:
                legal = ()
            else:
                occupied = self.x | self.o
                legal = tuple(m for m in MOVES if not occupied >> m.square & 1)
            _set(self, "_legal", legal)
        return legal

    def apply(self, move: Move | str) -> OrderChaosState:
        if type(move) is not Placement:
            move = self._coerce(move)
        bit = 1 << move.square
        if self._to_move is None:
            raise IllegalMoveError(f"illegal move {move} in {self.position()}: the game is over")
        if (self.x | self.o) & bit:
            raise IllegalMoveError(
                f"illegal move {move} in {self.position()}: {GRID.names[move.square]} is occupied"
            )
        x, o = self.x, self.o
        if move.symbol == "X":
            x |= bit
            own = x
        else:
            o |= bit
            own = o
        outcome = None
        if own.bit_count() >= LINE_LENGTH:
            for window in WINDOWS_THROUGH[move.square]:
                if own & window == window:
                    outcome = ORDER_WINS
                    break
        if outcome is None and x | o == FULL:
            outcome = CHAOS_WINS
        legal = self._legal
        if legal is not None and outcome is None:
            # Two placements per empty square, in square order: skip those of the empty squares
            # below this one to find the pair to cut out.
            k = 2 * (move.square - ((self.x | self.o) & (bit - 1)).bit_count())
            legal = legal[:k] + legal[k + 2 :]
        else:
            legal = None
        return _make(x, o, outcome, legal)

    def _coerce(self, move: object) -> Placement:
        if isinstance(move, str):
            return GAME.parse_move(move, self)
        if isinstance(move, Placement):
            return move
        raise IllegalMoveError(f"{value_excerpt(move)} is not an Order and Chaos move")

    def legal_actions(self) -> tuple[int, ...]:
        if self._to_move is None:
            return ()
        empty = FULL & ~(self.x | self.o)
        r0, r1, r2, r3, r4, r5 = _RANK_ACTIONS
        return (
            r0[empty & 63]
            + r1[empty >> 6 & 63]
            + r2[empty >> 12 & 63]
            + r3[empty >> 18 & 63]
            + r4[empty >> 24 & 63]
            + r5[empty >> 30]
        )

    def observation(self, role: str) -> list[float]:
        """Four 6×6 planes, ranks from 1, files from a: X, O, empty, Order to move (both roles
        see the same: the game has no hidden information)."""
        GAME.check_role(role)
        x, o = self.x, self.o
        empty = FULL & ~(x | o)
        bits = _RANK_FLOATS
        planes: list[float] = []
        for board in (x, o, empty):
            planes += bits[board & 63]
            planes += bits[board >> 6 & 63]
            planes += bits[board >> 12 & 63]
            planes += bits[board >> 18 & 63]
            planes += bits[board >> 24 & 63]
            planes += bits[board >> 30]
        planes += _ONES if self._to_move == ORDER else _ZEROS
        return planes

    def outcome(self) -> Outcome | None:
        return self._outcome

    def position(self) -> str:
        count = (self.x | self.o).bit_count()
        return f"{GRID.format_ranks(self.cells())} {ORDER if count % 2 == 0 else CHAOS}"

    def cells(self) -> str:
        """One character per square in index order (a1 first): `X`, `O` or `.`."""
        return "".join(
            "X" if self.x >> i & 1 else "O" if self.o >> i & 1 else "." for i in range(SIZE)
        )

    def winning_squares(self) -> frozenset[int]:
        """The squares of every line of five or more like symbols (empty while none exists)."""
        squares: set[int] = set()
        for bits in (self.x, self.o):
            for window in WINDOWS:
                if bits & window == window:
                    squares.update(i for i in range(SIZE) if window >> i & 1)
        return frozenset(squares)

    def marked_squares(self) -> dict[int, str]:
        """The squares of the winning line (or lines), each marked `"line"`."""
        return dict.fromkeys(sorted(self.winning_squares()), "line")

    def describe(self) -> tuple[str, ...]:
        squares = sorted(self.winning_squares())
        if not squares:
            return ()
        return ("line of five: " + " ".join(GRID.names[sq] for sq in squares),)

    def __str__(self) -> str:
        return GRID.render(self.cells())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OrderChaosState):
            return NotImplemented
        return self.x == other.x and self.o == other.o

    def __hash__(self) -> int:
        return hash((self.x, self.o))

    def __reduce__(self) -> tuple[Any, ...]:
        return (GAME.from_position, (self.position(),))

    def __deepcopy__(self, memo: dict[int, Any]) -> OrderChaosState:
        # Every slot holds an immutable value: a new state with the same slots is a deep copy.
        return _make(self.x, self.o, self._outcome, self._legal)


def _outcome_of(x: int, o: int) -> Outcome | None:
    for window in WINDOWS:
        if x & window == window or o & window == window:
            return ORDER_WINS
    return CHAOS_WINS if x | o == FULL else None


def _make(
    x: int, o: int, outcome: Outcome | None, legal: tuple[Placement, ...] | None
) -> OrderChaosState:
    state = object.__new__(OrderChaosState)
    _set(state, "x", x)
    _set(state, "o", o)
    _set(state, "_outcome", outcome)
    if outcome is not None:
        _set(state, "_to_move", None)
        _set(state, "_legal", ())
    else:
        _set(state, "_to_move", ORDER if (x | o).bit_count() % 2 == 0 else CHAOS)
        _set(state, "_legal", legal)
    return state
