"""The rules of tic-tac-toe, written on the game protocol of abstractgames.

X and O take turns marking an empty square of a 3×3 board, X first. Three marks of one player in
a row, across, down or diagonally, win; a full board without such a line is a draw.

The notation follows the conventions of the built-in games:

- squares are named by file and rank: ``a1`` is bottom left, ``c3`` top right;
- a move is the square the side to move marks: ``b2`` (the mark itself is implied);
- a position is the ranks from the top, ``/`` between them and a digit for a run of empty
  squares, then the side to move: the start is ``"3/3/3 x"``, and ``"X1O/1X1/3 o"`` has O to move.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from abstractgames.grid import grid, split_position
from abstractgames.protocol import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    State,
)

__all__ = ["CROSS", "LINES", "MARKS", "NOUGHT", "Mark", "TicTacToeGame", "TicTacToeState"]

CROSS, NOUGHT = "x", "o"
"""The roles, in turn order: crosses (X) and noughts (O)."""
MARKS = {CROSS: "X", NOUGHT: "O"}
"""The letter each role puts on the board."""
GRID = grid(3, 3)
"""Square names and rank notation: square 0 is a1, 1 is b1, … 8 is c3."""
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
"""The eight lines of three squares: the ranks, the files and the two diagonals."""

X_WINS = Outcome(CROSS, {CROSS: 1, NOUGHT: 0}, "three in a row")
O_WINS = Outcome(NOUGHT, {CROSS: 0, NOUGHT: 1}, "three in a row")
DRAW = Outcome(None, {CROSS: 0.5, NOUGHT: 0.5}, "board full without three in a row")


@dataclass(frozen=True)
class Mark(Move):
    """Mark ``square`` (0 = a1 … 8 = c3) for the side to move; its notation is the square's name."""

    square: int

    def __post_init__(self) -> None:
        if not 0 <= self.square < GRID.size:
            raise InvalidMoveError(f"square {self.square!r} is not on the board (0 to 8)")

    def __str__(self) -> str:
        return GRID.names[self.square]


MOVES = tuple(Mark(square) for square in range(GRID.size))
"""Every move, in the canonical order of squares: a1, b1, c1, a2, … c3."""


class TicTacToeGame(Game):
    """Tic-tac-toe: three in a row on a 3×3 board, X first; it has no parameters."""

    name = "tictactoe"
    title = "Tic-tac-toe"
    roles = (CROSS, NOUGHT)
    max_length = 9
    board_width = 3

    def initial_state(self) -> TicTacToeState:
        return TicTacToeState("." * GRID.size)

    def from_position(self, text: str) -> TicTacToeState:
        """Read ``<ranks> <side>``, e.g. ``"X1O/1X1/3 o"``; say what is wrong with a bad one."""
        ranks, side = split_position(text, 2, "3/3/3 x")
        if side.lower() not in self.roles:
            raise InvalidPositionError(f"side to move {side!r} must be 'x' or 'o'")
        state = TicTacToeState(GRID.parse_ranks(ranks, "XO"))
        xs, os = state.board.count("X"), state.board.count("O")
        if xs - os not in (0, 1):
            raise InvalidPositionError(
                f"{xs} X and {os} O in {ranks!r}: X moves first, so X has as many marks as O "
                "or one more"
            )
        if side.lower() != state.side:
            raise InvalidPositionError(
                f"side to move {side!r} does not match the marks on the board: it is "
                f"{state.side!r} ({xs} X, {os} O)"
            )
        winners = {state.board[line[0]] for line in _full_lines(state.board)}
        if len(winners) == 2:
            raise InvalidPositionError(f"both X and O have three in a row in {ranks!r}")
        if winners and winners != {"X" if xs > os else "O"}:
            (mark,) = winners
            raise InvalidPositionError(
                f"{mark} has three in a row in {ranks!r} but the other player moved after it"
            )
        return state

    def parse_move(self, text: str, state: State) -> Mark:
        """Read a square name such as ``b2`` (case and surrounding blanks do not matter)."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"move notation must be a string, not {type(text).__name__}")
        try:
            return MOVES[GRID.square(text)]
        except InvalidMoveError:
            raise InvalidMoveError(
                f"cannot read move {text!r}: name the square to mark, a1 to c3, e.g. 'b2'"
            ) from None


@dataclass(frozen=True, repr=False)
class TicTacToeState(State):
    """A position: ``board`` holds one character per square, a1 first: ``X``, ``O`` or ``.``.

    Make states with the game (``initial_state``, ``from_position``) and ``apply``; two states
    are equal, with the same hash, when their boards are.
    """

    board: str

    @property
    def game(self) -> TicTacToeGame:
        return GAME

    @property
    def side(self) -> str:
        """Whose turn it is by the marks on the board (also once the game is over)."""
        return CROSS if self.board.count("X") == self.board.count("O") else NOUGHT

    @property
    def to_move(self) -> str | None:
        return None if self.outcome() is not None else self.side

    def legal_moves(self) -> tuple[Mark, ...]:
        if self.outcome() is not None:
            return ()
        return tuple(MOVES[square] for square, mark in enumerate(self.board) if mark == ".")

    def apply(self, move: Move | str) -> TicTacToeState:
        if isinstance(move, str):
            move = GAME.parse_move(move, self)
        if not isinstance(move, Mark):
            raise IllegalMoveError(f"{move!r} is not a tic-tac-toe move")
        if self.outcome() is not None:
            raise IllegalMoveError(f"illegal move {move} in {self.position()}: the game is over")
        if self.board[move.square] != ".":
            raise IllegalMoveError(f"illegal move {move} in {self.position()}: {move} is taken")
        square = move.square
        return TicTacToeState(self.board[:square] + MARKS[self.side] + self.board[square + 1 :])

    def outcome(self) -> Outcome | None:
        return _outcome(self.board)

    def position(self) -> str:
        return f"{GRID.format_ranks(self.board)} {self.side}"

    def cells(self) -> str:
        return self.board

    def describe(self) -> tuple[str, ...]:
        squares = self._line_squares()
        if not squares:
            return ()
        return ("three in a row: " + " ".join(GRID.names[square] for square in squares),)

    def marked_squares(self) -> dict[int, str]:
        """The squares of the winning line, for pictures."""
        return dict.fromkeys(self._line_squares(), "line")

    def _line_squares(self) -> list[int]:
        return sorted({square for line in _full_lines(self.board) for square in line})

    def __str__(self) -> str:
        return GRID.render(self.board)


GAME = TicTacToeGame()


def _full_lines(board: str) -> list[tuple[int, int, int]]:
    """The lines of three equal marks on ``board``."""
    return [line for line in LINES if board[line[0]] != "." and len({board[i] for i in line}) == 1]


@cache  # there are only 5,478 positions: remember each one's outcome
def _outcome(board: str) -> Outcome | None:
    lines = _full_lines(board)
    if lines:
        return X_WINS if board[lines[0][0]] == "X" else O_WINS
    return DRAW if "." not in board else None
