"""The rules: Entropy's game and its states, and the moves made for a player out of time.

A state keeps the board as ints (see [`SizeTables`][]). Order's and Chaos's legal moves are
concatenations of precomputed tuples indexed by each line's occupancy byte. The score is kept in the
state and updated from the few lines a move changes, by looking each line up in the table of
[`line_scores`][].
"""

from __future__ import annotations

import functools
import operator
import random
import re
from collections.abc import Callable
from itertools import chain
from types import MappingProxyType
from typing import Any, cast

from ..grid import split_position
from ..protocol import (
    CHANCE,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    State,
    _says_to_move,
    _side_words,
    check_int_param,
)
from ..text import excerpt, value_excerpt
from .board import CHAOS, COLOUR_NAMES, COLOURS, EMPTY, ORDER, SIZES
from .match import EntropyMatch
from .moves import PASS, Draw, Pass, Placement, Slide
from .scoring import score_boards, scoring_squares
from .tables import SizeTables, size_tables

__all__ = [
    "CHAOS",
    "ORDER",
    "EntropyGame",
    "EntropyState",
    "line_codes",
    "line_occupancy",
    "timeout_move",
]

BOARD_FULL = "board full"


# --- the game -------------------------------------------------------------------------------------

_ASCII = re.ASCII | re.IGNORECASE
# Possessive runs of spaces (*+): long spaces cannot make a match backtrack quadratically.
_SLIDE_RE = re.compile(r"([a-z][0-9]{1,2})\s*+[-\s]?\s*+([a-z][0-9]{1,2})", _ASCII)
_PLACE_RE = re.compile(r"([a-z])\s*+@?\s*+([a-z][0-9]{1,2})", _ASCII)
_SQUARE_RE = re.compile(r"[a-z][0-9]{1,2}", _ASCII)
_COLOUR_RE = re.compile(r"[a-z]", _ASCII)

_DIRECTIONS = ((0, 1), (1, 0), (0, -1), (-1, 0))  # (files, ranks) of each action direction
_DIRECTION_NAMES = ("up", "right", "down", "left")


class _Encoding:
    """The integer actions of one board size (see [`EntropyGame.action_of`][]), and the tables
    that list a state's legal actions from its lines' occupancy bytes."""

    def __init__(self, v: SizeTables) -> None:
        n, squares = v.size, v.squares
        self.pass_action = squares * (4 * n - 3)
        # The slide between two squares by origin * squares + target, -1 if there is none;
        # the move of each action from `squares` on (None: a slide off the board).
        self.slide_action = [-1] * (squares * squares)
        self.moves: list[Move | None] = [None] * (self.pass_action - squares) + [PASS]
        for origin in range(squares):
            for direction, (df, dr) in enumerate(_DIRECTIONS):
                for distance, target in enumerate(v.grid.ray(origin, df, dr), 1):
                    action = squares + (4 * origin + direction) * (n - 1) + distance - 1
                    self.slide_action[origin * squares + target] = action
                    self.moves[action - squares] = v.slides[origin][target]
        self.rank_actions = self._line_actions(v, v.rank_slides)
        self.file_actions = self._line_actions(v, v.file_slides)
        # Where each character's plane starts in an observation: the colours', then empty's.
        self.plane_start = {c: k * squares for k, c in enumerate(v.colours + EMPTY)}
        # Rank -> rank occupancy byte -> the empty squares of the rank.
        self.rank_empty = tuple(
            tuple(tuple(r * n + f for f in range(n) if not bits >> f & 1) for bits in range(1 << n))
            for r in range(n)
        )

    def _line_actions(
        self, v: SizeTables, line_slides: tuple[tuple[tuple[Slide, ...], ...], ...]
    ) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """Line -> occupancy byte -> the actions of the slides along the line."""
        at = self.slide_action
        return tuple(
            tuple(tuple(at[m.origin * v.squares + m.target] for m in slides) for slides in line)
            for line in line_slides
        )


@functools.cache
def _encoding(size: int) -> _Encoding:
    return _Encoding(size_tables(size))


class EntropyGame(Game):
    """Chaos places counters drawn from a bag; Order slides them to build palindromes.

    Solomon's Entropy (`get_game("entropy")`); `size=5` is the original 5×5 Hyle board.

    Roles in turn order are `("chaos", "order")`: Chaos places first. A single game has no
    winner (the match decides, see [`EntropyMatch`][]): its [`Outcome`][] has
    `winner=None`, `scores={"order": <final score>, "chaos": 0}` and reason `"board full"`.

    Args:
        size: 7 (7×7, colours W K Y G R B P, 7 of each) or 5 (5×5, W K Y G R, 5 of each).

    Raises:
        InvalidParameterError: `size` is not 5 or 7.

    Attributes:
        size: the board's width and height.
        score_bound: an upper bound on Order's score, what a board of a single colour would
            score (1078 on 7×7, 300 on 5×5); [`EntropyState.returns`][] divides by it.
    """

    name = "entropy"
    title = "Eric Solomon's Entropy"
    roles = (CHAOS, ORDER)

    def __init__(self, size: int = 7) -> None:
        self.size: int = check_int_param("size", size, allowed=SIZES)
        self._tables = size_tables(size)
        # N draws, N placements and N - 1 Order turns (none after the last placement).
        self.max_length = 3 * size * size - 1
        self.board_width = size
        self.piece_colours = MappingProxyType({c: COLOUR_NAMES[c] for c in COLOURS[:size]})
        self._encoding = _encoding(size)
        self.num_distinct_actions = self._encoding.pass_action + 1
        self.max_chance_outcomes = size
        self.observation_shape = (3 * size + 3, size, size)
        self.score_bound = 2 * size * sum(k * (size - k + 1) for k in range(2, size + 1))

    @property
    def params(self) -> dict[str, Any]:
        return {"size": self.size}

    def __reduce__(self) -> tuple[Any, ...]:
        return (_game, (self.size,))

    @property
    def colours(self) -> str:
        """The colour letters of this game in colour order, e.g. `"WKYGRBP"`."""
        return self._tables.colours

    def initial_state(self) -> EntropyState:
        v = self._tables
        bag = (v.per_colour,) * v.size
        return _make(v, 0, 0, 0, 0, bag, CHANCE, None, 0, EMPTY * v.squares)

    def from_position(self, text: str) -> EntropyState:
        """Read `<ranks> <phase>`, phase `draw`, `chaos:<C>`, `order` or `end`.

        Raises:
            InvalidPositionError: what is wrong: the ranks, the phase, too many counters of a
                colour, a drawn colour not in the bag, or a phase the board cannot have.
        """
        v = self._tables
        n = v.size
        example = f"{'/'.join([str(n)] * n)} draw"
        ranks, phase_text = split_position(text, 2, example)
        board = v.grid.parse_ranks(ranks, v.colours)
        phase, _, drawn_text = phase_text.partition(":")
        phase = phase.lower()
        drawn: str | None = None
        if phase == CHAOS and drawn_text:
            drawn = drawn_text.upper()
            if drawn not in v.colours or len(drawn) != 1:
                raise InvalidPositionError(
                    f"phase '{excerpt(phase_text)}': {excerpt(drawn_text)} is not a colour of "
                    f"this game ({' '.join(v.colours)})"
                )
        elif phase not in ("draw", ORDER, "end") or drawn_text:
            raise InvalidPositionError(
                f"phase '{excerpt(phase_text)}' must be 'draw', 'chaos:<colour>' "
                "(e.g. 'chaos:R'), 'order' or 'end'"
            )
        bag = []
        for c in v.colours:
            on_board = board.count(c)
            if on_board > v.per_colour:
                raise InvalidPositionError(
                    f"{on_board} {c} counters on the board; there are only {v.per_colour} "
                    f"{COLOUR_NAMES[c]} counters"
                )
            if c == drawn and on_board == v.per_colour:
                raise InvalidPositionError(
                    f"the drawn colour {c} is not in the bag: all {v.per_colour} "
                    f"{COLOUR_NAMES[c]} counters are on the board"
                )
            bag.append(v.per_colour - on_board - (c == drawn))
        count = v.squares - board.count(EMPTY)
        full = count == v.squares
        to_move: str | None
        if phase == "end":
            if not full:
                raise InvalidPositionError(
                    f"phase 'end' with {v.squares - count} empty squares: the game ends only "
                    "when the board is full"
                )
            to_move = None
        elif full:
            raise InvalidPositionError(
                f"phase '{excerpt(phase_text)}' on a full board: the last placement ends the "
                "game, so the phase must be 'end'"
            )
        elif phase == ORDER:
            if count == 0:
                raise InvalidPositionError(
                    "phase 'order' on an empty board: Order moves after a placement, so there is "
                    "at least one counter"
                )
            to_move = ORDER
        elif phase == CHAOS:
            to_move = CHAOS
        else:
            to_move = CHANCE
        occ = tocc = 0
        for sq, c in enumerate(board):
            if c != EMPTY:
                occ |= v.bit[sq]
                tocc |= v.tbit[sq]
        code, tcode = v.codes(board)
        score = v.score(code, tcode)
        return _make(v, code, tcode, occ, tocc, tuple(bag), to_move, drawn, score, board)

    def parse_move(self, text: str, state: State | None = None) -> Move:
        """Read a move, case-insensitively; the canonical forms are what `str(move)` gives.

        Accepts `R` (a draw), `R@d4` or `Rd4` (a placement), a plain `d4` (a placement of
        the counter drawn in `state`), `d4-d7` or `d4 d7` (a slide) and `pass`.

        Raises:
            InvalidMoveError: the text is no move of this game, or a plain square is given while
                no counter is drawn in `state`.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"move notation must be a string, not {type(text).__name__}")
        v = self._tables
        body = text.strip()
        if body.lower() == "pass":
            return PASS
        if match := _SLIDE_RE.fullmatch(body):
            origin, target = v.grid.square(match[1]), v.grid.square(match[2])
            slide = v.slides[origin][target]
            return slide if slide is not None else Slide(origin, target, size=v.size)
        if match := _PLACE_RE.fullmatch(body):
            return v.placements[self._colour(match[1], text, state)][v.grid.square(match[2])]
        if _SQUARE_RE.fullmatch(body):
            square = v.grid.square(body)
            drawn = None
            if isinstance(state, EntropyState) and state.size == v.size:
                drawn = state.drawn
            if drawn is None:
                if _to_move(state) == ORDER:
                    raise InvalidMoveError(_unreadable(text, state))
                raise InvalidMoveError(
                    f"cannot read move '{excerpt(text)}': a plain square needs a drawn counter; "
                    "write the colour too, e.g. 'R@d4'"
                )
            return v.placements[drawn][square]
        if _COLOUR_RE.fullmatch(body):
            return v.draws[v.colour_index[self._colour(body, text, state)]]
        raise InvalidMoveError(_unreadable(text, state))

    def _colour(self, letter: str, text: str, state: State | None = None) -> str:
        colour = letter.upper()
        if colour not in self._tables.colours:
            if _to_move(state) == ORDER:  # Order names no colour: say what Order writes
                raise InvalidMoveError(_unreadable(text, state))
            raise InvalidMoveError(
                f"cannot read move '{excerpt(text)}': {colour} is not a colour of this game "
                f"({' '.join(self._tables.colours)})"
            )
        return colour

    def action_of(self, move: Move) -> int:
        """The integer action of `move`, with `n` the size and `N = n * n` the squares.

        A placement on square `s` is `s` (whatever its colour); a slide from `origin` by
        `distance` squares in `direction` (0 up, 1 right, 2 down, 3 left) is
        `N + (4 * origin + direction) * (n - 1) + distance - 1`; the pass is the last action,
        `N * (4 * n - 3)`. A draw is its colour's index in [`colours`][].

        Raises:
            InvalidMoveError: `move` is no move of this game, or not of its size, or a slide not
                along a rank or file.
        """
        v = self._tables
        if isinstance(move, Placement | Slide):
            if move.size != v.size:
                raise InvalidMoveError(
                    f"{move!r} is for the {move.size}×{move.size} board, not {self.spec}"
                )
            if isinstance(move, Placement):
                return move.square
            action = self._encoding.slide_action[move.origin * v.squares + move.target]
            if action < 0:
                raise InvalidMoveError(f"{move} is not a slide along a rank or file")
            return action
        if isinstance(move, Pass):
            return self._encoding.pass_action
        if isinstance(move, Draw) and move.colour in v.colour_index:
            return v.colour_index[move.colour]
        raise InvalidMoveError(f"{value_excerpt(move)} is not a move of {self.spec}")

    def move_of(self, action: int, state: State) -> Move:
        """The move of `action` in `state` (see [`action_of`][]): a placement takes the colour
        of the drawn counter.

        Raises:
            InvalidMoveError: `action` is out of range, is not for the player to move (or the
                game is over), or is a slide off the board.
        """
        action = self.check_action(action, state)
        v = self._tables
        to_move = state.to_move
        if to_move == CHANCE:
            return v.draws[action]
        if not isinstance(state, EntropyState) or state.size != v.size:
            raise InvalidMoveError(f"{value_excerpt(state)} is not a state of {self.spec}")
        if action < v.squares:
            if to_move == CHAOS:
                return v.placements[cast(str, state.drawn)][action]
            what = f"places a counter on {v.grid.names[action]}"
        else:
            move = self._encoding.moves[action - v.squares]
            if move is None:
                origin, rest = divmod(action - v.squares, 4 * (v.size - 1))
                direction, distance = divmod(rest, v.size - 1)
                raise InvalidMoveError(
                    f"action {action} is a slide off the board ({v.grid.names[origin]} "
                    f"{_DIRECTION_NAMES[direction]} by {distance + 1})"
                )
            if to_move == ORDER:
                return move
            what = f"is Order's {'pass' if move is PASS else f'slide {move}'}"
        mover = "the game is over" if to_move is None else f"{to_move} is to move"
        raise InvalidMoveError(f"action {action} {what}, but {mover}")

    def goal(self, role: str) -> str:
        return {
            ORDER: "slide a counter to make palindromes, or pass",
            CHAOS: "place the drawn counter to spoil palindromes",
        }.get(role, "")

    def rules_summary(self) -> str:
        n = self.size
        return (
            f"A {n}×{n} board, {n * n} counters in a bag: {n} of each colour "
            f"({' '.join(self.colours)}).\n"
            "Each turn a counter is drawn at random; Chaos places it on any empty square, then\n"
            "Order may slide one counter like a rook (along its rank or file, over empty squares\n"
            "only) or pass. The game ends when the board is full.\n"
            "Order scores every run of touching counters in a rank or file that reads the same\n"
            "both ways (RBBR: 4 + 2 for BB): each counts its length, nested ones too.\n"
            "A match is two games with the roles swapped; the higher Order score wins."
        )

    def describe_outcome(self, outcome: Outcome) -> str:
        """A full board and Order's score, with what the score means: a game has no winner,
        a match goes to the player who scores more as Order, e.g. `"the board is full and
        Order scored 38 (each palindrome in a rank or file counts its length); a match goes to
        the player who scores more as Order"`. Any other end is said the usual way.
        """
        if outcome.reason != BOARD_FULL or ORDER not in outcome.scores:
            return super().describe_outcome(outcome)
        return (
            f"the board is full and Order scored {outcome.scores[ORDER]:g} (each palindrome in "
            "a rank or file counts its length); a match goes to the player who scores more as "
            "Order"
        )

    def move_kinds(self, state: State) -> tuple[str, ...]:
        if not isinstance(state, EntropyState):
            return ()
        legal = state.legal_moves()
        if state.to_move == ORDER:
            example = str(legal[1]) if len(legal) > 1 else "d4-d7"
            return (f"a slide such as {example}", "pass")
        if state.to_move == CHAOS and legal:
            square = str(legal[0]).partition("@")[2]
            return (f"a square for {state.drawn}, such as {square}",)
        if state.to_move == CHANCE and legal:
            return (f"a draw such as {legal[0]}",)
        return ()

    def new_match(self, *, time_loss_forfeits: bool = False) -> EntropyMatch:
        """Two games with the roles swapped (see [`EntropyMatch`][])."""
        return EntropyMatch(self, time_loss_forfeits)

    def timeout_move(self, state: State) -> Move:
        """Order passes; Chaos's counter goes on the first empty square (see [`timeout_move`][]).

        Raises:
            IllegalMoveError: `state` is a draw, the end, or not a state of this game.
        """
        if not isinstance(state, EntropyState) or state.size != self.size:
            raise IllegalMoveError(f"{value_excerpt(state)} is not a state of {self!r}")
        return timeout_move(state)

    def side_line(self, state: State) -> str:
        """`draw` (a counter is to be drawn), `chaos to place R`, `order to move`, or `end`."""
        if not isinstance(state, EntropyState) or state.size != self.size:
            raise InvalidPositionError(f"{value_excerpt(state)} is not a state of {self!r}")
        if state.to_move == CHAOS:
            return f"{CHAOS} to place {state.drawn}"
        return {CHANCE: "draw", ORDER: f"{ORDER} to move", None: "end"}[state.to_move]

    def side_field(self, line: str) -> str:
        """The phase of a side-to-move line: `draw`, `chaos to place R` (or the colour's name,
        `chaos to place red`) for `chaos:R`, `order to move` (or `order`, `order is to move`),
        `end`; any case.

        Raises:
            InvalidPositionError: the line is none of these, or names no colour of this game.
        """
        words = [word.lower() for word in _side_words(line)]
        if words in (["draw"], ["end"]):
            return words[0]
        if words[:1] == [ORDER] and _says_to_move(words[1:]):
            return ORDER
        if words[:3] == [CHAOS, "to", "place"] and len(words) >= 4:
            names = {COLOUR_NAMES[letter]: letter for letter in self.colours}
            colour = names.get(words[3], words[3].upper())
            if colour in self.colours:
                return f"{CHAOS}:{colour}"
            raise InvalidPositionError(
                f"'{excerpt(line)}': {excerpt(words[3])} is not a colour of this game "
                f"({' '.join(self.colours)})"
            )
        raise InvalidPositionError(
            f"'{excerpt(line)}' does not say what is to happen in {self.spec}: write 'draw' "
            "(a counter is to be drawn), 'chaos to place R' (the colour drawn), 'order to "
            "move' or 'end'"
        )

    def benchmarks(self, rng: random.Random) -> dict[str, Callable[[], int]]:
        """`{"boards scored": run}`: `run` scores 1,000 random full boards with one call."""
        v = self._tables
        counters = list(v.colours * v.per_colour)
        boards = []
        for _ in range(1000):
            rng.shuffle(counters)
            boards.append("".join(counters))

        def run() -> int:
            return len(score_boards(boards))

        return {"boards scored": run}


def _to_move(state: State | None) -> str | None:
    return state.to_move if isinstance(state, EntropyState) else None


def _unreadable(text: str, state: State | None = None) -> str:
    """Why `text` is no move, and what the player to move in `state` can write instead."""
    return f"cannot read move '{excerpt(text)}': {_what_to_write(state)}"


def _what_to_write(state: State | None) -> str:
    to_move = _to_move(state)
    if to_move == ORDER:
        return "it is Order's turn: slide a counter, e.g. 'd4-d7', or write 'pass'"
    if to_move == CHAOS:
        drawn = cast(EntropyState, state).drawn
        return f"Chaos places the drawn {drawn}: write its square, e.g. 'd4' (or '{drawn}@d4')"
    return "write a draw 'R', a placement 'R@d4', a slide 'd4-d7' or 'pass'"


# --- the state ------------------------------------------------------------------------------------

_set = object.__setattr__
_new = object.__new__
_PHASE_TEXT = {CHANCE: "draw", ORDER: ORDER, None: "end"}


class _StateFields:
    """The slots of [`EntropyState`][], written only by `_make` (see there)."""

    __slots__ = (
        "_bag",
        "_cells",
        "_code",
        "_drawn",
        "_legal",
        "_occ",
        "_score",
        "_tcode",
        "_to_move",
        "_tocc",
        "_v",
    )
    _v: SizeTables
    _code: int  # 3 bits per square by index, transposed in _tcode (see SizeTables)
    _tcode: int
    _occ: int  # occupancy, 8 bits per rank, transposed in _tocc (see SizeTables)
    _tocc: int
    _bag: tuple[int, ...]
    _to_move: str | None
    _drawn: str | None
    _score: int
    _legal: tuple[Move, ...] | None  # computed when first asked for
    _cells: str | None  # likewise


class EntropyState(_StateFields, State):
    """A position of Entropy: the board, whose turn it is, and the drawn counter if any.

    The bag is derived: each colour's counters minus those on the board minus the drawn one.
    """

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    @property
    def game(self) -> EntropyGame:
        return _game(self._v.size)

    @property
    def to_move(self) -> str | None:
        return self._to_move

    @property
    def size(self) -> int:
        """The board's width and height: 7 or 5."""
        return self._v.size

    @property
    def board(self) -> str:
        """One character per square in index order (a1, b1, …): a colour letter or `"."`."""
        cells = self._cells
        if cells is None:
            code, characters = self._code, self._v.characters
            cells = "".join([characters[code >> shift & 7] for shift in self._v.shift])
            _set(self, "_cells", cells)
        return cells

    def cells(self) -> str:
        """The same as [`board`][]."""
        return self.board

    @property
    def drawn(self) -> str | None:
        """The colour Chaos must place now, or `None` when no counter is drawn."""
        return self._drawn

    @property
    def placements(self) -> int:
        """How many counters are on the board (one per placement so far)."""
        return self._occ.bit_count()

    def bag(self) -> dict[str, int]:
        """How many counters of each colour are still in the bag, in colour order."""
        return dict(zip(self._v.colours, self._bag, strict=True))

    def score(self) -> int:
        """Order's score for the board as it stands (the final score once the game is over)."""
        return self._score

    def legal_moves(self) -> tuple[Move, ...]:
        """The legal moves in canonical order.

        At a draw: one [`Draw`][] per colour still in the bag, in colour order. Chaos: the
        placements of the drawn colour on every empty square, in square index order. Order:
        [`PASS`][] first, then the slides along ranks (rank 1 first), then the slides along
        files (file a first); within a line by origin square, then target square.
        """
        legal = self._legal
        if legal is None:
            v = self._v
            to_move = self._to_move
            if to_move == ORDER:
                ranks = self._occ.to_bytes(v.size, "little")
                files = self._tocc.to_bytes(v.size, "little")
                legal = (
                    PASS,
                    *chain.from_iterable(map(operator.getitem, v.rank_slides, ranks)),
                    *chain.from_iterable(map(operator.getitem, v.file_slides, files)),
                )
            elif to_move == CHAOS:
                ranks = self._occ.to_bytes(v.size, "little")
                rank_placements = v.rank_placements[cast(str, self._drawn)]
                legal = tuple(chain.from_iterable(map(operator.getitem, rank_placements, ranks)))
            elif to_move == CHANCE:
                legal = tuple([d for d, left in zip(v.draws, self._bag, strict=True) if left])
            else:
                legal = ()
            _set(self, "_legal", legal)
        return legal

    def legal_actions(self) -> tuple[int, ...]:
        v = self._v
        to_move = self._to_move
        if to_move == ORDER:
            e = _encoding(v.size)
            ranks = self._occ.to_bytes(v.size, "little")
            files = self._tocc.to_bytes(v.size, "little")
            actions = sorted(
                chain(
                    chain.from_iterable(map(operator.getitem, e.rank_actions, ranks)),
                    chain.from_iterable(map(operator.getitem, e.file_actions, files)),
                )
            )
            actions.append(e.pass_action)
            return tuple(actions)
        if to_move == CHAOS:
            ranks = self._occ.to_bytes(v.size, "little")
            rank_empty = _encoding(v.size).rank_empty
            return tuple(chain.from_iterable(map(operator.getitem, rank_empty, ranks)))
        if to_move == CHANCE:
            return tuple([i for i, left in enumerate(self._bag) if left])
        return ()

    def observation(self, role: str) -> list[float]:
        """`3n + 3` planes of `n`×`n` (ranks from 1, files from a), the same for both roles:
        one per colour, empty squares, the drawn colour (`n` constant planes, one-hot; all zero
        with no counter drawn), the bag's count of each colour / `n` (`n` constant planes),
        Chaos to move, Order to move. The next draw is never in it."""
        v = self._v
        self.game.check_role(role)
        squares, n = v.squares, v.size
        planes = [0.0] * ((n + 1) * squares)
        start = _encoding(n).plane_start
        for i, cell in enumerate(self.board):
            planes[start[cell] + i] = 1.0
        drawn = self._drawn
        for c in v.colours:
            planes += [1.0 if c == drawn else 0.0] * squares
        for left in self._bag:
            planes += [left / n] * squares
        planes += [1.0 if self._to_move == CHAOS else 0.0] * squares
        planes += [1.0 if self._to_move == ORDER else 0.0] * squares
        return planes

    def returns(self) -> dict[str, float]:
        """Order gets its final score / the game's `score_bound` (in `[0, 1]`), Chaos the
        opposite; both 0 until the game is over."""
        if self._to_move is not None:
            return {CHAOS: 0.0, ORDER: 0.0}
        value = self._score / _game(self._v.size).score_bound
        return {CHAOS: -value, ORDER: value}

    def chance_outcomes(self) -> tuple[tuple[Move, float], ...]:
        """At a draw, each colour still in the bag with probability (its count) / (bag size)."""
        if self._to_move != CHANCE:
            return super().chance_outcomes()
        bag = self._bag
        total = sum(bag)
        draws = self._v.draws
        return tuple([(d, left / total) for d, left in zip(draws, bag, strict=True) if left])

    def apply(self, move: Move | str) -> EntropyState:
        if type(move) is Slide:
            return self._slide(move)
        if type(move) is Placement:
            return self._place(move)
        if type(move) is Draw:
            return self._draw(move)
        if type(move) is Pass:
            if self._to_move != ORDER:
                raise self._wrong_turn(PASS, "only Order passes")
            return _make(
                self._v,
                self._code,
                self._tcode,
                self._occ,
                self._tocc,
                self._bag,
                CHANCE,
                None,
                self._score,
                self._cells,
            )
        if isinstance(move, str):
            return self.apply(self.game.parse_move(move, self))
        raise IllegalMoveError(f"{value_excerpt(move)} is not an Entropy move")

    def _draw(self, move: Draw) -> EntropyState:
        if self._to_move != CHANCE:
            raise self._wrong_turn(move, "a counter is drawn only at the start of a turn")
        v = self._v
        index = v.colour_index.get(move.colour)
        if index is None:
            raise self._illegal(
                move, f"{move.colour} is not a colour of the {self._dimensions()} game"
            )
        bag = self._bag
        if not bag[index]:
            raise self._illegal(
                move,
                f"no {move.colour} counter is left in the bag "
                f"(all {v.per_colour} are on the board)",
            )
        bag = (*bag[:index], bag[index] - 1, *bag[index + 1 :])
        return _make(
            v,
            self._code,
            self._tcode,
            self._occ,
            self._tocc,
            bag,
            CHAOS,
            move.colour,
            self._score,
            self._cells,
        )

    def _place(self, move: Placement) -> EntropyState:
        v = self._v
        if self._to_move != CHAOS:
            raise self._wrong_turn(move, "only Chaos places counters")
        if move.size != v.size:
            raise self._illegal(move, f"the move is for the {move.size}×{move.size} board")
        colour = move.colour
        if colour != self._drawn:
            raise self._illegal(
                move,
                f"the drawn counter is {self._drawn}: Chaos places it but does not choose "
                "its colour",
            )
        square = move.square
        occ = self._occ
        bit = v.bit[square]
        if occ & bit:
            raise self._illegal(move, f"{v.grid.names[square]} is occupied")
        value = v.value[colour]
        old, told = self._code, self._tcode
        code = old + (value << v.shift[square])
        tcode = told + (value << v.tshift[square])
        rank, file = v.rank_at[square], v.file_at[square]
        lines, mask = v.line_scores, v.line_mask
        score = (
            self._score
            + lines[code >> rank & mask]
            - lines[old >> rank & mask]
            + lines[tcode >> file & mask]
            - lines[told >> file & mask]
        )
        occ |= bit
        return _make(
            v,
            code,
            tcode,
            occ,
            self._tocc | v.tbit[square],
            self._bag,
            ORDER if occ != v.full else None,
            None,
            score,
            None,
        )

    def _slide(self, move: Slide) -> EntropyState:
        v = self._v
        if self._to_move != ORDER:
            raise self._wrong_turn(move, "only Order slides counters")
        if move.size != v.size:
            raise self._illegal(move, f"the move is for the {move.size}×{move.size} board")
        origin, target = move.origin, move.target
        occ = self._occ
        path = v.path[origin][target]
        if path < 0 or not occ & v.bit[origin] or occ & path:
            raise self._illegal(move, self._why_not(origin, target))
        old, told = self._code, self._tcode
        value = old >> v.shift[origin] & 7
        code = old + (value << v.shift[target]) - (value << v.shift[origin])
        tcode = told + (value << v.tshift[target]) - (value << v.tshift[origin])
        lines, mask = v.line_scores, v.line_mask
        score = self._score
        rank = v.rank_at[origin]
        if rank == v.rank_at[target]:  # along a rank: that rank and two files change
            file, other = v.file_at[origin], v.file_at[target]
            score += (
                lines[code >> rank & mask]
                - lines[old >> rank & mask]
                + lines[tcode >> file & mask]
                - lines[told >> file & mask]
                + lines[tcode >> other & mask]
                - lines[told >> other & mask]
            )
        else:  # along a file: that file and two ranks change
            file, other = v.file_at[origin], v.rank_at[target]
            score += (
                lines[tcode >> file & mask]
                - lines[told >> file & mask]
                + lines[code >> rank & mask]
                - lines[old >> rank & mask]
                + lines[code >> other & mask]
                - lines[old >> other & mask]
            )
        moved = v.bit[origin] | v.bit[target]
        tmoved = v.tbit[origin] | v.tbit[target]
        return _make(
            v, code, tcode, occ ^ moved, self._tocc ^ tmoved, self._bag, CHANCE, None, score, None
        )

    def _why_not(self, origin: int, target: int) -> str:
        v = self._v
        names = v.grid.names
        if origin == target:
            return "the counter does not move; to pass, write 'pass'"
        path = v.path[origin][target]
        if path < 0:
            return (
                f"{names[origin]} and {names[target]} are not on one rank or file; counters "
                "slide like a rook"
            )
        if not self._occ & v.bit[origin]:
            return f"there is no counter on {names[origin]}"
        if self._occ & v.bit[target]:
            return f"{names[target]} is occupied; a counter must land on an empty square"
        step = 1 if v.rank_at[origin] == v.rank_at[target] else v.size
        step = step if target > origin else -step
        blocker = next(sq for sq in range(origin + step, target, step) if self._occ & v.bit[sq])
        return f"the slide passes over the counter on {names[blocker]}; counters cannot jump"

    def _dimensions(self) -> str:
        return f"{self._v.size}×{self._v.size}"

    def _illegal(self, move: Move, why: str) -> IllegalMoveError:
        return IllegalMoveError(f"illegal move {move} in {self.position()}: {why}")

    def _wrong_turn(self, move: Move, rule: str) -> IllegalMoveError:
        turns: dict[str | None, str] = {
            CHANCE: "a draw from the bag is due",
            CHAOS: f"Chaos must place the drawn {self._drawn}",
            ORDER: "it is Order's turn (slide a counter or pass)",
        }
        turn = turns.get(self._to_move)
        return self._illegal(move, "the game is over" if turn is None else f"{turn}; {rule}")

    def marked_squares(self) -> dict[int, str]:
        """The squares in a scoring palindrome of their rank or file, each marked
        `"palindrome"`: where Order's points are."""
        return dict.fromkeys(sorted(scoring_squares(self.board, self._v.size)), "palindrome")

    def describe(self) -> tuple[str, ...]:
        """The live score, the drawn counter if any, and what is left in the bag."""
        bag = " ".join(f"{c}{k}" for c, k in zip(self._v.colours, self._bag, strict=True))
        drawn = () if self._drawn is None else (f"drawn: {self._drawn}",)
        return (f"score {self._score}", *drawn, f"bag {bag}")

    def outcome(self) -> Outcome | None:
        """`None` until the board is full, then no winner and the scores (see EntropyGame)."""
        if self._to_move is not None:
            return None
        return Outcome(None, {CHAOS: 0, ORDER: self._score}, BOARD_FULL)

    def position(self) -> str:
        phase = _PHASE_TEXT.get(self._to_move) or f"{CHAOS}:{self._drawn}"
        return f"{self._v.grid.format_ranks(self.board)} {phase}"

    def __str__(self) -> str:
        turns: dict[str | None, str] = {
            CHANCE: "a draw is due",
            CHAOS: f"Chaos to place {self._drawn}",
            ORDER: "Order to move",
            None: "game over",
        }
        turn = turns[self._to_move]
        bag = " ".join(f"{c}{k}" for c, k in zip(self._v.colours, self._bag, strict=True))
        return f"{self._v.grid.render(self.board)}\nscore {self._score}, {turn}; bag {bag}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EntropyState):
            return NotImplemented
        return (
            self._code == other._code
            and self._v is other._v
            and self._to_move == other._to_move
            and self._drawn == other._drawn
        )

    def __hash__(self) -> int:
        return hash((self._code, self._v.size, self._to_move, self._drawn))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self._v.size, self.position()))

    def __deepcopy__(self, memo: dict[int, Any]) -> EntropyState:
        # Every slot holds an immutable value or the shared tables of the board size: a new
        # state with the same slots is a deep copy.
        fields = _new(_StateFields)
        for name in _StateFields.__slots__:
            setattr(fields, name, getattr(self, name))
        fields.__class__ = EntropyState
        return cast(EntropyState, fields)


@functools.cache
def _game(size: int) -> EntropyGame:
    return EntropyGame(size)


def _restore(size: int, position: str) -> EntropyState:
    return _game(size).from_position(position)


def _make(
    v: SizeTables,
    code: int,
    tcode: int,
    occ: int,
    tocc: int,
    bag: tuple[int, ...],
    to_move: str | None,
    drawn: str | None,
    score: int,
    cells: str | None,
) -> EntropyState:
    # Filling a plain _StateFields and then making it an EntropyState (same layout) is much
    # faster than object.__setattr__ on each slot, and the state is immutable from then on.
    state = _new(_StateFields)
    state._v = v
    state._code = code
    state._tcode = tcode
    state._occ = occ
    state._tocc = tocc
    state._bag = bag
    state._to_move = to_move
    state._drawn = drawn
    state._score = score
    state._legal = None
    state._cells = cells
    state.__class__ = EntropyState
    return cast(EntropyState, state)


# --- timeouts -------------------------------------------------------------------------------------


def timeout_move(state: EntropyState) -> Move:
    """The move made for a player whose clock ran out in a live game.

    Order passes; Chaos's drawn counter goes on the first empty square in index order (a1, b1, …).

    Raises:
        IllegalMoveError: at a draw (no player moves there) or when the game is over.
    """
    if state.to_move == ORDER:
        return PASS
    if state.to_move == CHAOS:
        v = state._v
        first_empty = next(sq for sq in range(v.squares) if not state._occ & v.bit[sq])
        return v.placements[cast(str, state.drawn)][first_empty]
    if state.to_move == CHANCE:
        raise IllegalMoveError(
            f"no timeout move in {state.position()}: a draw from the bag is due, no player moves"
        )
    raise IllegalMoveError(f"no timeout move in {state.position()}: the game is over")


# --- the board's lines, for bots ------------------------------------------------------------------


def line_codes(state: EntropyState) -> tuple[list[int], list[int]]:
    """The codes of the ranks (rank 1 first) and of the files (file a first) of `state`.

    A code holds 3 bits per square, as [`line_code`][] makes it;
    `line_scores(state.size)[code]` is the line's score.

    Examples:
        >>> from abstractgames import get_game
        >>> ranks, files = line_codes(get_game("entropy", size=5).from_position("5/5/5/5/WK3 draw"))
        >>> oct(ranks[0]), oct(files[1])
        ('0o21', '0o2')
    """
    v = state._v
    code, tcode, mask, shifts = state._code, state._tcode, v.line_mask, v.line_shifts
    return [code >> s & mask for s in shifts], [tcode >> s & mask for s in shifts]


def line_occupancy(state: EntropyState) -> tuple[bytes, bytes]:
    """Which squares of `state` are occupied: one byte per rank, then one byte per file.

    Bit `f` of rank `r`'s byte (rank 1 first) is set when the square on file `f` (file a
    first) holds a counter, and so is bit `r` of file `f`'s byte.
    """
    size = state._v.size
    return state._occ.to_bytes(size, "little"), state._tocc.to_bytes(size, "little")
