"""Augustine Carreno's dispersal Entropy (1994) on 5×5, with the rulings of
[Notation and rulings](../notation.md).

Two sides, `O` (moves first) and `S`, start with seven pieces each. A piece may move only when
it touches (orthogonally or diagonally) a piece of its own side, and then moves like a chess queen
through empty squares. A side wins when it is *dispersed*: every one of its pieces touches an enemy
piece and no piece of its own. A side with an *isolated* piece (touching no piece at all) is in
check and must clear every isolation with its move; a side without a legal move passes.

Forced draws (rulings): both players passing in succession, the third occurrence of a position with
the same side to move, or reaching the ply limit (`max_plies`, passes counted).

The board is two int bitboards. The squares touching a set of pieces come from a few shifts, so
check, isolation and dispersal are a handful of bit operations; queen moves come from per-square
tables indexed by the occupied squares on the piece's lines. A state keeps its history as a chain of
position keys shared with its ancestors plus a small bit filter of the keys seen, so a move costs
the same at ply 200 as at ply 1 and the chain is walked only when the filter reports a possible
repetition.

The same rules on bare bitboards are exported for bots and solvers: [`touched`][],
[`NEIGHBOURS`][], [`contacts`][], [`reach`][], [`move_masks`][], [`winning_masks`][],
[`is_dispersed`][] and [`slide_of`][]; a move is then the int `source_bit | target_bit`.
[`DispersalState.history`][] gives the position keys of a state's history ([`split_key`][]).

Examples:
    >>> from abstractgames import get_game
    >>> state = get_game("dispersal").from_position("S1O1O/O1SOS/S4/OOSSO/S4 S")
    >>> state.apply("d2-e1").outcome().reason
    'S dispersed'
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

import attrs

from .grid import QUEEN_DIRECTIONS, grid, split_position
from .protocol import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    State,
    check_int_param,
)
from .text import excerpt, value_excerpt

if TYPE_CHECKING:
    import random

__all__ = [
    "DEFAULT_MAX_PLIES",
    "FULL",
    "MAX_PLIES_LIMIT",
    "NEIGHBOURS",
    "OBSERVATION_PLANES",
    "PASS",
    "PASS_ACTION",
    "SIZE",
    "START",
    "DispersalGame",
    "DispersalState",
    "Pass",
    "Slide",
    "contacts",
    "is_dispersed",
    "move_masks",
    "reach",
    "slide_of",
    "split_key",
    "touched",
    "winning_masks",
]

SIDE_O, SIDE_S = "O", "S"
ROLES = (SIDE_O, SIDE_S)
GRID = grid(5, 5)
SIZE = GRID.size
"""The number of squares, 25; bit `i` of a bitboard is square `i` (a1 = 0, … e5 = 24)."""
FULL = (1 << SIZE) - 1
"""The bitboard of every square."""
START = "SSSSS/S3S/5/O3O/OOOOO O"
"""The starting position: O on rank 1, a2 and e2; S on rank 5, a4 and e4; O to move."""
DEFAULT_MAX_PLIES = 200
"""The ply limit of a game made without one (random games last about 136 plies)."""
MAX_PLIES_LIMIT = 10_000
"""The largest `max_plies` (fifty times the default): the repetition filter of every state has
about five bits per ply of the limit, so a larger one would slow every move down."""

_NOT_FILE_A = FULL & ~GRID.mask(range(0, SIZE, GRID.width))
_NOT_FILE_E = FULL & ~GRID.mask(range(GRID.width - 1, SIZE, GRID.width))
NEIGHBOURS: tuple[int, ...] = tuple(GRID.mask(GRID.neighbours(sq)) for sq in range(SIZE))
"""`NEIGHBOURS[sq]`: the bitboard of the up to eight squares touching square `sq`."""


def touched(bits: int) -> int:
    """The squares touching at least one square of `bits` (a square does not touch itself).

    Examples:
        >>> touched(1) == NEIGHBOURS[0] == 1 << 1 | 1 << 5 | 1 << 6  # a1 touches b1, a2 and b2
        True
    """
    across = ((bits << 1) & _NOT_FILE_A) | ((bits >> 1) & _NOT_FILE_E)
    row = across | bits
    return (across | (row << 5) | (row >> 5)) & FULL


def contacts(bits: int) -> int:
    """The number of pairs of touching squares within `bits`."""
    return (
        (bits & (bits << 1) & _NOT_FILE_A).bit_count()
        + (bits & (bits << 5)).bit_count()
        + (bits & (bits << 6) & _NOT_FILE_A).bit_count()
        + (bits & (bits << 4) & _NOT_FILE_E).bit_count()
    )


def is_dispersed(own: int, other: int) -> bool:
    """Whether the pieces `own` are dispersed around `other`: each touches a piece of
    `other` and none of `own`."""
    return not own & touched(own) and own & touched(other) == own


def _squares(bits: int) -> list[int]:
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def _names(bits: int) -> str:
    return ", ".join(GRID.names[sq] for sq in _squares(bits))


# --- moves ----------------------------------------------------------------------------------------


def _on_board(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < SIZE:
        raise ValueError(
            f"{attribute.name} must be a square index 0..{SIZE - 1}, not {value_excerpt(value)}"
        )


def _not_source(instance: Slide, attribute: attrs.Attribute[int], value: int) -> None:
    if value == instance.source:
        raise ValueError(f"a move must go at least one square, not {GRID.names[value]} to itself")


@attrs.frozen(slots=True, repr=False)
class Slide(Move):
    """Move the piece on `source` to `target` (square indices, 0 = a1 … 24 = e5).

    Notation `a4-c4`. Any two different squares make a `Slide`; whether it is a queen move
    through empty squares, and legal, is up to the state it is applied to.
    """

    source: int = attrs.field(validator=_on_board)
    target: int = attrs.field(validator=[_on_board, _not_source])

    def __str__(self) -> str:
        return f"{GRID.names[self.source]}-{GRID.names[self.target]}"

    def __repr__(self) -> str:
        return f"Slide({str(self)!r})"


@attrs.frozen(slots=True, repr=False)
class Pass(Move):
    """Pass the turn, allowed exactly when there is no legal move; notation `pass`."""

    def __str__(self) -> str:
        return "pass"

    def __repr__(self) -> str:
        return "PASS"


PASS = Pass()
"""The only [`Pass`][]."""
_PASS_ONLY: tuple[Move, ...] = (PASS,)
_SLIDES: dict[int, Slide] = {
    a * SIZE + b: Slide(a, b) for a in range(SIZE) for b in range(SIZE) if a != b
}
# Possessive runs of spaces (*+): long spaces cannot make the match backtrack quadratically.
_MOVE_RE = re.compile(r"^\s*([a-z]\d+)\s*+[-–]?\s*+([a-z]\d+)\s*$", re.IGNORECASE)
PASS_ACTION = SIZE * SIZE
"""The integer action of the pass, 625, after the slides' `25 * source + target`."""
OBSERVATION_PLANES = 8
"""Planes of an observation (see [`DispersalState.observation`][])."""

# --- move tables ----------------------------------------------------------------------------------

_ORTHOGONAL = QUEEN_DIRECTIONS[:4]
_DIAGONAL = QUEEN_DIRECTIONS[4:]


def _between() -> tuple[int, ...]:
    """`_BETWEEN[a * SIZE + b]`: the squares strictly between a and b on a line, or -1."""
    table = [-1] * (SIZE * SIZE)
    for a in range(SIZE):
        for df, dr in QUEEN_DIRECTIONS:
            passed = 0
            for b in GRID.ray(a, df, dr):
                table[a * SIZE + b] = passed
                passed |= 1 << b
    return tuple(table)


_BETWEEN = _between()


def _reach_table(
    square: int, directions: tuple[tuple[int, int], ...]
) -> tuple[int, dict[int, int]]:
    """The squares on `square`'s lines in `directions`, and for every set of occupied squares
    on them, the squares a queen on `square` reaches along those lines."""
    choices = []
    for df, dr in directions:
        ray = GRID.ray(square, df, dr)
        options = []
        for pattern in range(1 << len(ray)):
            occupied = GRID.mask(sq for i, sq in enumerate(ray) if pattern >> i & 1)
            reach = 0
            for sq in ray:
                if occupied >> sq & 1:
                    break
                reach |= 1 << sq
            options.append((occupied, reach))
        choices.append(options)
    table = {}
    for combination in itertools.product(*choices):
        occupied = reach = 0
        for ray_occupied, ray_reach in combination:
            occupied |= ray_occupied
            reach |= ray_reach
        table[occupied] = reach
    return max(table), table


class _MovesTo(dict[int, tuple[Slide, ...]]):
    """For one source square, a set of target squares → the slides there, in square order."""

    def __init__(self, square: int) -> None:
        super().__init__()
        self.square = square

    def __missing__(self, targets: int) -> tuple[Slide, ...]:
        slides = tuple(_SLIDES[self.square * SIZE + t] for t in _squares(targets))
        self[targets] = slides
        return slides


class _MasksTo(dict[int, tuple[int, ...]]):
    """For one source bit, a set of target squares → the move masks there, in square order."""

    def __init__(self, piece: int) -> None:
        super().__init__()
        self.piece = piece

    def __missing__(self, targets: int) -> tuple[int, ...]:
        masks = tuple(self.piece | 1 << t for t in _squares(targets))
        self[targets] = masks
        return masks


# By the bit of the source square: its orthogonal lines and reach table (256 entries), its
# diagonal lines and reach table (at most 256), and its moves by target set (filled lazily, at
# most 29,801 tuples over all squares), as Slides for the states and as masks for the kernels.
_TABLES: dict[int, tuple[int, dict[int, int], int, dict[int, int], _MovesTo]] = {
    1 << sq: (*_reach_table(sq, _ORTHOGONAL), *_reach_table(sq, _DIAGONAL), _MovesTo(sq))
    for sq in range(SIZE)
}
_MASK_TABLES: dict[int, tuple[int, dict[int, int], int, dict[int, int], _MasksTo]] = {
    bit: (*tables[:4], _MasksTo(bit)) for bit, tables in _TABLES.items()
}

# --- the rules on bitboards -----------------------------------------------------------------------


def reach(piece: int, occupied: int) -> int:
    """The squares a queen on the single bit `piece` reaches through the empty squares, the
    squares of `occupied` blocking it.

    Examples:
        >>> bits = reach(1, 1 << 1 | 1 << 12)  # a1, with b1 and c3 occupied
        >>> [sq for sq in range(SIZE) if bits >> sq & 1]  # a2 … a5 and b2
        [5, 6, 10, 15, 20]
    """
    rook_lines, rook, bishop_lines, bishop, _ = _TABLES[piece]
    return rook[occupied & rook_lines] | bishop[occupied & bishop_lines]


def move_masks(own: int, other: int) -> list[int]:
    """The legal moves of the side with the pieces `own` (to move), `other` the enemy's.

    A move is the int `source_bit | target_bit`; the order is by source, then target square,
    as in [`DispersalState.legal_moves`][], and the list is empty when the side must pass. The
    draws and wins of a finished game are not looked at.
    """
    occupied = own | other
    near_own = touched(own)
    movable = own & near_own
    isolated = own & ~near_own & ~touched(other)
    out: list[int] = []
    if not isolated:
        while movable:
            piece = movable & -movable
            movable ^= piece
            rook_lines, rook, bishop_lines, bishop, masks = _MASK_TABLES[piece]
            out += masks[rook[occupied & rook_lines] | bishop[occupied & bishop_lines]]
        return out
    # In check: the target must touch every isolated piece, and the move must isolate no other.
    needed = FULL
    while isolated:
        low = isolated & -isolated
        isolated ^= low
        needed &= NEIGHBOURS[low.bit_length() - 1]
    while movable:
        piece = movable & -movable
        movable ^= piece
        rook_lines, rook, bishop_lines, bishop, _ = _TABLES[piece]
        targets = (rook[occupied & rook_lines] | bishop[occupied & bishop_lines]) & needed
        while targets:
            target = targets & -targets
            targets ^= target
            if not (own ^ piece ^ target) & ~touched(occupied ^ piece ^ target):
                out.append(piece | target)
    return out


def winning_masks(own: int, other: int) -> list[int]:
    """The moves (as in [`move_masks`][]) after which the side with the pieces `own`, to move,
    is dispersed and `other` is not: the moves that win at once.

    Such a move is legal even in check. In the order of [`move_masks`][].
    """
    near_other = touched(other)
    lonely = own & ~near_other
    if lonely & (lonely - 1):
        return []  # two pieces touch no enemy and one move can help only one of them
    movable = own & touched(own)
    candidates = lonely & movable if lonely else movable
    if not candidates:
        return []
    occupied = own | other
    other_can_disperse = not other & touched(other)
    out = []
    while candidates:
        piece = candidates & -candidates
        candidates ^= piece
        rest = own ^ piece
        near_rest = touched(rest)
        if rest & near_rest:
            continue
        rook_lines, rook, bishop_lines, bishop, _ = _TABLES[piece]
        targets = (rook[occupied & rook_lines] | bishop[occupied & bishop_lines]) & near_other
        targets &= ~near_rest
        while targets:
            target = targets & -targets
            targets ^= target
            if other_can_disperse and not other & ~touched(rest | target):
                continue  # both sides dispersed: a draw
            out.append(piece | target)
    return out


def slide_of(mask: int, own: int) -> Slide:
    """The [`Slide`][] of the move `source_bit | target_bit` of the side with pieces `own`.

    Examples:
        >>> slide_of(1 | 1 << 6, 1)
        Slide('a1-b2')
    """
    source = (mask & own).bit_length() - 1
    return _SLIDES[source * SIZE + (mask ^ 1 << source).bit_length() - 1]


# --- outcomes and history -------------------------------------------------------------------------

O_WINS = Outcome(SIDE_O, {SIDE_O: 1, SIDE_S: 0}, "O dispersed")
S_WINS = Outcome(SIDE_S, {SIDE_O: 0, SIDE_S: 1}, "S dispersed")
BOTH_DISPERSED = Outcome(None, {SIDE_O: 0.5, SIDE_S: 0.5}, "both sides dispersed")
DOUBLE_PASS = Outcome(None, {SIDE_O: 0.5, SIDE_S: 0.5}, "both players passed")
REPETITION = Outcome(None, {SIDE_O: 0.5, SIDE_S: 0.5}, "threefold repetition")

# A position key is o | s << 25 | side << 50 (side 0 for O, 1 for S). The history is a chain of
# nodes (key, parent node), oldest node's parent None, shared by every state descended from it.
_S_SHIFT = SIZE
_SIDE_BIT = 1 << (2 * SIZE)

_Node = tuple[int, Any]


def split_key(key: int) -> tuple[int, int, int]:
    """The `(o, s, side)` of a position key (see [`DispersalState.history`][])."""
    return key & FULL, key >> _S_SHIFT & FULL, key >> 2 * SIZE


def _prime_at_least(n: int) -> int:
    while n < 2 or any(n % d == 0 for d in range(2, int(n**0.5) + 1)):
        n += 1
    return n


def _occurrences(node: _Node) -> int:
    """How often the node's key occurs in its chain (same side to move: every second node)."""
    key = node[0]
    count = 0
    current: _Node | None = node
    while current is not None:
        if current[0] == key:
            count += 1
        parent = current[1]
        if parent is None:
            break
        current = parent[1]
    return count


# --- the game -------------------------------------------------------------------------------------


class DispersalGame(Game):
    """Each side tries to spread its pieces so that each touches only enemy pieces.

    Carreno's dispersal Entropy on 5×5 (`get_game("dispersal", max_plies=200)`).

    Args:
        max_plies: the game is drawn when this many plies (passes included) have been played
            without a result; from 1 to [`MAX_PLIES_LIMIT`][] (10,000).

    Raises:
        InvalidParameterError: `max_plies` is not an integer from 1 to 10,000.

    Attributes:
        max_plies: the ply limit.
        ply_limit: the [`Outcome`][] of a game that reaches it.
    """

    name = "dispersal"
    title = "Augustine Carreno's dispersal Entropy"
    roles = ROLES
    board_width = GRID.width
    num_distinct_actions = PASS_ACTION + 1
    observation_shape = (OBSERVATION_PLANES, GRID.height, GRID.width)
    piece_colours = MappingProxyType({SIDE_O: "white", SIDE_S: "black"})

    def __init__(self, max_plies: int = DEFAULT_MAX_PLIES) -> None:
        self.max_plies = check_int_param("max_plies", max_plies, minimum=1, maximum=MAX_PLIES_LIMIT)
        self.max_length = self.max_plies
        self.ply_limit = Outcome(
            None, {SIDE_O: 0.5, SIDE_S: 0.5}, f"ply limit of {self.max_plies} reached"
        )
        self._initial: DispersalState | None = None
        # The repetition filter has a prime number of bits, about five per position a game can
        # hold, so a false alarm (a walk along the history that finds nothing) stays rare.
        self._filter_bits = _prime_at_least(5 * self.max_plies + 5)

    @property
    def params(self) -> dict[str, Any]:
        return {"max_plies": self.max_plies}

    def __reduce__(self) -> tuple[Any, ...]:
        return (DispersalGame, (self.max_plies,))

    def benchmarks(self, rng: random.Random) -> dict[str, Callable[[], int]]:
        """Move generation alone, on 1000 positions of random games (cached moves not reused)."""
        positions: list[DispersalState] = []
        state = self.initial_state()
        while len(positions) < 1000:
            if state.outcome() is not None:
                state = self.initial_state()
                continue
            positions.append(state)
            state = state.apply(rng.choice(state.legal_moves()))

        def run() -> int:
            for position in positions:
                position._generate()
            return len(positions)

        return {"move generations": run}

    def initial_state(self) -> DispersalState:
        if self._initial is None:
            self._initial = self.from_position(START)
        return self._initial

    def from_position(self, text: str) -> DispersalState:
        """Read `<ranks> <side>`, e.g. `"SSSSS/S3S/5/O3O/OOOOO O"`; the history starts afresh.

        Each side needs at least one piece; letters and the side may be lower case. A position in
        which a side is dispersed is read as a finished game.
        """
        ranks, side_text = split_position(text, 2, START)
        cells = GRID.parse_ranks(ranks, "OSos").upper()
        side = side_text.upper()
        if side not in ROLES:
            raise InvalidPositionError(f"side to move '{excerpt(side_text)}' must be 'O' or 'S'")
        o = GRID.mask(i for i, c in enumerate(cells) if c == SIDE_O)
        s = GRID.mask(i for i, c in enumerate(cells) if c == SIDE_S)
        for role, bits in ((SIDE_O, o), (SIDE_S, s)):
            if not bits:
                raise InvalidPositionError(
                    f"no {role} piece in '{excerpt(text)}': each side needs at least one piece"
                )
        return _make(self, o, s, ROLES.index(side), None, 0, 0, False)

    def parse_move(self, text: str, state: State | None = None) -> Move:
        """Read `a4-c4` (also `A4C4`, `a4 c4`, `a4 - c4`) or `pass`; no state needed."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"move notation must be a string, not {type(text).__name__}")
        if text.strip().lower() == "pass":
            return PASS
        match = _MOVE_RE.match(text)
        if match is None:
            raise InvalidMoveError(
                f"cannot read move '{excerpt(text)}': write the two squares, e.g. 'a4-c4', "
                "or 'pass'"
            )
        source, target = GRID.square(match.group(1)), GRID.square(match.group(2))
        if source == target:
            raise InvalidMoveError(
                f"cannot read move '{excerpt(text)}': a move must go at least one square"
            )
        return _SLIDES[source * SIZE + target]

    def action_of(self, move: Move) -> int:
        """`25 * source + target` for a slide (a1-b1 is 1, e5-d5 is 623); 625 for the pass."""
        if type(move) is Slide:
            return move.source * SIZE + move.target
        if type(move) is Pass:
            return PASS_ACTION
        raise InvalidMoveError(f"{value_excerpt(move)} is not a dispersal Entropy move")

    def move_of(self, action: int, state: State) -> Move:
        """The slide or pass of `action` (see [`action_of`][])."""
        action = self.check_action(action, state)
        if action == PASS_ACTION:
            return PASS
        move = _SLIDES.get(action)
        if move is None:
            square = GRID.names[action // SIZE]
            raise InvalidMoveError(f"action {action} names no move: {square} to {square}")
        return move

    def goal(self, role: str) -> str:
        if role not in ROLES:
            return ""
        return "spread out, each piece touching enemy pieces only"

    def rules_summary(self) -> str:
        return (
            "O and S have seven pieces each on a 5×5 board; O moves first.\n"
            "A piece that touches a piece of its own side (also diagonally) may move like a\n"
            "chess queen, without jumping; you pass only when you have no legal move.\n"
            "A piece touching no piece at all is isolated: with one at the start of your turn you\n"
            "are in check, and your move must leave none of your pieces isolated.\n"
            "A side is dispersed when each of its pieces touches an enemy piece and none of its\n"
            "own; after any move, the one side dispersed wins (both at once: a draw). Two passes\n"
            f"in a row, a position seen three times, or {self.max_plies} plies are draws too."
        )

    def move_kinds(self, state: State) -> tuple[str, ...]:
        if not isinstance(state, DispersalState) or state.to_move is None:
            return ()
        legal = state.legal_moves()
        if legal == _PASS_ONLY:
            return ("pass (no other move is legal)",)
        kind = f"a queen move such as {legal[0]}"
        if state.in_check():
            kind += " that leaves none of your pieces isolated"
        return (kind,)


class _Fields:
    """The slots of a [`DispersalState`][]; `_make` fills one in, then makes it a state."""

    __slots__ = (
        "_game",
        "_isolated",
        "_legal",
        "_movable",
        "_node",
        "_outcome",
        "_ply",
        "_seen",
        "_side",
        "_to_move",
        "o",
        "s",
    )
    o: int
    s: int
    _game: DispersalGame
    _side: int  # 0: O, 1: S; the side named in the position, to move unless the game is over
    _to_move: str | None
    _outcome: Outcome | None
    _movable: int  # the side's pieces touching a friend
    _isolated: int  # the side's pieces touching nothing
    _legal: tuple[Move, ...] | None  # None until first asked for
    _ply: int
    _node: _Node
    _seen: int  # bit key % game._filter_bits set for every key in the chain


class DispersalState(_Fields, State):
    """A position of dispersal Entropy with the history that forced draws need.

    `o` and `s` are the bitboards of the two sides (bit `i` = square `i`, a1 = 0). States
    are equal, and hash alike, when their positions are: the board and the side to move. The
    history (ply count, passes, earlier positions) does not take part, so a state read back from
    its position string equals it even though it starts a fresh history.
    """

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    @property
    def game(self) -> DispersalGame:
        return self._game

    @property
    def to_move(self) -> str | None:
        return self._to_move

    @property
    def side(self) -> str:
        """The side named in the position string: the side to move, or next had the game gone on."""
        return ROLES[self._side]

    @property
    def ply(self) -> int:
        """Plies (passes included) played since the start or since `from_position`."""
        return self._ply

    def history(self) -> tuple[int, ...]:
        """The position keys of this state's history, oldest first, this state's last.

        A key packs a position into an int: `o | s << 25 | side << 50`, with `side` 0 when O
        is to move and 1 for S ([`split_key`][] unpacks it). A pass keeps the board and flips
        the side. The history starts at the start position or at `from_position`.

        Examples:
            >>> from abstractgames import get_game
            >>> state = get_game("dispersal").from_position("S4/5/5/5/OO3 O").apply("a1-a2")
            >>> [split_key(key) for key in state.history()]  # S on a5 = bit 20
            [(3, 1048576, 0), (34, 1048576, 1)]
        """
        keys = []
        node: _Node | None = self._node
        while node is not None:
            keys.append(node[0])
            node = node[1]
        keys.reverse()
        return tuple(keys)

    def legal_moves(self) -> tuple[Move, ...]:
        """Slides by source, then target square (a1, b1, … e5); `(PASS,)` when there are none."""
        legal = self._legal
        if legal is None:
            legal = self._generate()
            _set(self, "_legal", legal)
        return legal

    def _generate(self) -> tuple[Move, ...]:
        if self._outcome is not None:
            return ()
        occupied = self.o | self.s
        moves: list[Slide] = []
        movable = self._movable
        isolated = self._isolated
        if not isolated:
            while movable:
                low = movable & -movable
                movable ^= low
                rook_lines, rook, bishop_lines, bishop, slides = _TABLES[low]
                moves += slides[rook[occupied & rook_lines] | bishop[occupied & bishop_lines]]
            return tuple(moves) if moves else _PASS_ONLY
        # In check: the target must touch every isolated piece (they cannot move themselves), and
        # leaving the source must not isolate another piece.
        needed = FULL
        for sq in _squares(isolated):
            needed &= NEIGHBOURS[sq]
        own = self.s if self._side else self.o
        while movable:
            low = movable & -movable
            movable ^= low
            source = low.bit_length() - 1
            rook_lines, rook, bishop_lines, bishop, _ = _TABLES[low]
            reach = (rook[occupied & rook_lines] | bishop[occupied & bishop_lines]) & needed
            for target in _squares(reach):
                after = own ^ low ^ (1 << target)
                if not after & ~touched(occupied ^ low ^ (1 << target)):
                    moves.append(_SLIDES[source * SIZE + target])
        return tuple(moves) if moves else _PASS_ONLY

    def legal_actions(self) -> tuple[int, ...]:
        legal = self.legal_moves()
        if legal == _PASS_ONLY:
            return (PASS_ACTION,)
        return tuple([m.source * SIZE + m.target for m in cast(tuple[Slide, ...], legal)])

    def observation(self, role: str) -> list[float]:
        """Eight 5×5 planes (ranks from 1, files from a), the same for both roles: O's pieces,
        S's pieces, empty squares, O to move (constant), the isolated pieces of the side to move
        (it is in check when there is one), then constant planes: the last ply was a pass,
        [`ply`][] / `max_plies`, and how often this position (with this side to move) occurred
        before in the state's history / 3."""
        self._game.check_role(role)
        o, s, node = self.o, self.s, self._node
        parent = node[1]
        passed = parent is not None and node[0] ^ parent[0] == _SIDE_BIT
        planes = [float(o >> i & 1) for i in range(SIZE)]
        planes += [float(s >> i & 1) for i in range(SIZE)]
        planes += [float(not (o | s) >> i & 1) for i in range(SIZE)]
        planes += [float(not self._side)] * SIZE
        planes += [float(self._isolated >> i & 1) for i in range(SIZE)]
        planes += [float(passed)] * SIZE
        planes += [self._ply / self._game.max_plies] * SIZE
        planes += [(_occurrences(node) - 1) / 3] * SIZE
        return planes

    def apply(self, move: Move | str) -> DispersalState:
        """The state after `move` (a move or its notation); the reason is in any refusal."""
        if type(move) is Slide and self._outcome is None:
            source_bit = 1 << move.source
            target_bit = 1 << move.target
            o, s = self.o, self.s
            between = _BETWEEN[move.source * SIZE + move.target]
            if self._movable & source_bit and between >= 0 and not (o | s) & (between | target_bit):
                if self._side:
                    s ^= source_bit | target_bit
                    own = s
                else:
                    o ^= source_bit | target_bit
                    own = o
                # touched(o) and touched(s), inlined
                across = ((o << 1) & _NOT_FILE_A) | ((o >> 1) & _NOT_FILE_E)
                row = across | o
                near_o = (across | (row << 5) | (row >> 5)) & FULL
                across = ((s << 1) & _NOT_FILE_A) | ((s >> 1) & _NOT_FILE_E)
                row = across | s
                near_s = (across | (row << 5) | (row >> 5)) & FULL
                if not (self._isolated and own & ~(near_o | near_s)):
                    return _make(
                        self._game,
                        o,
                        s,
                        self._side ^ 1,
                        self._node,
                        self._seen,
                        self._ply + 1,
                        False,
                        near_o,
                        near_s,
                    )
        return self._apply_other(move)

    def _apply_other(self, move: object) -> DispersalState:
        """Passes, notation, and every refusal (the slow path of [`apply`][])."""
        if isinstance(move, str):
            return self.apply(self._game.parse_move(move, self))
        if not isinstance(move, Slide | Pass):
            raise IllegalMoveError(f"{value_excerpt(move)} is not a dispersal Entropy move")
        outcome = self._outcome
        if outcome is not None:
            raise self._illegal(move, f"the game is over ({outcome.reason})")
        if isinstance(move, Slide):
            canonical = _SLIDES[move.source * SIZE + move.target]
            if move is not canonical:
                return self.apply(canonical)
            raise self._illegal(move, self._why_not(move))
        legal = self.legal_moves()
        if legal != _PASS_ONLY:
            raise self._illegal(
                move,
                f"a legal move exists (e.g. {legal[0]}); {self.side} may pass only without one",
            )
        node = self._node
        parent = node[1]
        passed_before = parent is not None and node[0] ^ parent[0] == _SIDE_BIT
        return _make(
            self._game,
            self.o,
            self.s,
            self._side ^ 1,
            node,
            self._seen,
            self._ply + 1,
            passed_before,
        )

    def _illegal(self, move: Move, why: str) -> IllegalMoveError:
        return IllegalMoveError(f"illegal move {move} in {self.position()}: {why}")

    def _why_not(self, move: Slide) -> str:
        side, enemy = self.side, ROLES[self._side ^ 1]
        own, other = (self.s, self.o) if self._side else (self.o, self.s)
        source, target = GRID.names[move.source], GRID.names[move.target]
        source_bit, target_bit = 1 << move.source, 1 << move.target
        if not (own | other) & source_bit:
            return f"{source} is empty"
        if other & source_bit:
            return f"the piece on {source} is {enemy}'s, and {side} is to move"
        if not own & NEIGHBOURS[move.source]:
            return f"the {side} piece on {source} touches no {side} piece, so it may not move"
        if (own | other) & target_bit:
            return f"{target} is occupied"
        between = _BETWEEN[move.source * SIZE + move.target]
        if between < 0:
            return f"{target} is not on a line (rank, file or diagonal) from {source}"
        blocked = (own | other) & between
        if blocked:
            # The blocker nearest the source: the lowest square going up, the highest going down.
            first = (
                blocked & -blocked if move.target > move.source else 1 << (blocked.bit_length() - 1)
            )
            return f"the way from {source} to {target} is blocked on {_names(first)}"
        after = own ^ source_bit ^ target_bit
        still = after & ~touched(after | other)
        return (
            f"{side} is in check (isolated: {_names(self._isolated)}) and this move leaves "
            f"{_names(still)} isolated; a move in check must leave no {side} piece isolated"
        )

    def outcome(self) -> Outcome | None:
        return self._outcome

    def position(self) -> str:
        return f"{GRID.format_ranks(self.cells())} {ROLES[self._side]}"

    def cells(self) -> str:
        """One character per square in index order (a1 first): `O`, `S` or `.`."""
        o, s = self.o, self.s
        return "".join("O" if o >> i & 1 else "S" if s >> i & 1 else "." for i in range(SIZE))

    def isolated(self, side: str | None = None) -> frozenset[int]:
        """The squares of `side`'s pieces that touch no piece at all.

        Args:
            side: `"O"` or `"S"`; by default [`side`][], the side to move.
        """
        own = self._bits(side)
        return frozenset(_squares(own & ~touched(self.o | self.s)))

    def in_check(self) -> bool:
        """Whether the side to move ([`side`][]) has an isolated piece."""
        return bool(self._isolated)

    def dispersed(self, side: str | None = None) -> bool:
        """Whether every piece of `side` touches an enemy piece and none of its own.

        Args:
            side: `"O"` or `"S"`; by default [`side`][], the side to move.
        """
        own = self._bits(side)
        return is_dispersed(own, (self.o | self.s) ^ own)

    def _bits(self, side: str | None) -> int:
        if side is None:
            return self.s if self._side else self.o
        if not isinstance(side, str) or side.upper() not in ROLES:
            raise ValueError(f"side must be 'O' or 'S', not {value_excerpt(side)}")
        return self.s if side.upper() == SIDE_S else self.o

    def marked_squares(self) -> dict[int, str]:
        """While the game goes on, the isolated pieces of the side to move (it is in check), each
        marked `"isolated"`."""
        if self._to_move is None:
            return {}
        return dict.fromkeys(_squares(self._isolated), "isolated")

    def describe(self) -> tuple[str, ...]:
        facts = []
        mover = self.side
        isolated = sorted(self.isolated(mover))
        if isolated and self.to_move is not None:
            names = " ".join(GRID.names[sq] for sq in isolated)
            facts.append(f"{mover} is in check: isolated {names}")
        facts.append(f"ply {self.ply} of {self.game.max_plies}")
        return tuple(facts)

    def __str__(self) -> str:
        return GRID.render(self.cells())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DispersalState):
            return NotImplemented
        return self._node[0] == other._node[0]

    def __hash__(self) -> int:
        return hash(self._node[0])

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self._game, self.history()))

    def __deepcopy__(self, memo: dict[int, Any]) -> DispersalState:
        # Every slot holds an immutable value (the history is a chain of tuples) or the game:
        # a new state with the same slots is a deep copy that shares the game.
        fields = _new(_Fields)
        for name in _Fields.__slots__:
            setattr(fields, name, getattr(self, name))
        fields.__class__ = DispersalState
        return cast(DispersalState, fields)


_set = object.__setattr__
_new = object.__new__


def _make(
    game: DispersalGame,
    o: int,
    s: int,
    side: int,
    parent: _Node | None,
    seen: int,
    ply: int,
    double_pass: bool,
    near_o: int = -1,
    near_s: int = -1,
) -> DispersalState:
    """A new state after `ply` plies; `double_pass` says its move and the one before passed."""
    if near_o < 0:
        near_o, near_s = touched(o), touched(s)
    key = o | s << _S_SHIFT | side << 2 * SIZE
    node = (key, parent)
    mark = 1 << key % game._filter_bits
    repeated = False
    if seen & mark:
        repeated = _occurrences(node) >= 3
    else:
        seen |= mark
    # Dispersed: no piece touched by a friend, every piece touched by an enemy.
    if not o & near_o and o & near_s == o:
        outcome: Outcome | None = BOTH_DISPERSED if not s & near_s and s & near_o == s else O_WINS
    elif not s & near_s and s & near_o == s:
        outcome = S_WINS
    else:
        outcome = None
    if outcome is None:
        if double_pass:
            outcome = DOUBLE_PASS
        elif repeated:
            outcome = REPETITION
        elif ply >= game.max_plies:
            outcome = game.ply_limit
    # Plain attribute stores on the mutable _Fields, then a class switch to the immutable state:
    # several times faster than object.__setattr__ for every slot (same slots, same layout).
    state = _new(_Fields)
    state.o = o
    state.s = s
    state._game = game
    state._side = side
    state._outcome = outcome
    state._ply = ply
    state._node = node
    state._seen = seen
    own = s if side else o
    state._movable = own & (near_s if side else near_o)
    state._isolated = own & ~(near_o | near_s)
    if outcome is None:
        state._to_move = ROLES[side]
        state._legal = None
    else:
        state._to_move = None
        state._legal = ()
    state.__class__ = DispersalState
    return state  # type: ignore[return-value]


def _restore(game: DispersalGame, keys: tuple[int, ...]) -> DispersalState:
    """Rebuild a state and its history from its chain of position keys (for pickle and copy)."""
    state: DispersalState | None = None
    for ply, key in enumerate(keys):
        o, s, side = split_key(key)
        if state is None:
            state = _make(game, o, s, side, None, 0, 0, False)
            continue
        node = state._node
        grand = node[1]
        double_pass = (
            key ^ node[0] == _SIDE_BIT and grand is not None and node[0] ^ grand[0] == _SIDE_BIT
        )
        state = _make(game, o, s, side, node, state._seen, ply, double_pass)
    assert state is not None
    return state
