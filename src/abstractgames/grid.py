"""Square names, rays and the FEN-like rank notation shared by all games on a rectangular board.

Squares are ints: `index = (rank - 1) * width + file`, so `a1` is 0 and the top-right square is
the last. See [Notation and rulings](../notation.md) for the notation. [`grid_of`][] gives the
[`Grid`][] of a game or a state, to go from square names to indices and back:

Examples:
    >>> from abstractgames import get_game
    >>> squares = grid_of(get_game("orderchaos"))
    >>> squares.square("c3"), squares.name(14)
    (14, 'c3')
    >>> squares.move_squares("X@c3"), squares.move_squares("pass")
    ((14,), ())
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from contextlib import suppress
from functools import cache

from .protocol import Game, InvalidMoveError, InvalidPositionError, Move, State
from .text import excerpt, value_excerpt

__all__ = [
    "FILES",
    "MAX_POSITIONS_TEXT",
    "MAX_POSITION_TEXT",
    "QUEEN_DIRECTIONS",
    "ROOK_DIRECTIONS",
    "Grid",
    "diagram",
    "grid",
    "grid_of",
    "read_position",
    "read_positions",
    "split_position",
]

FILES = "abcdefghijklmnopqrstuvwxyz"
"""The file letters, `a` first."""
_SQUARE_NAME = re.compile(r"(?<![A-Za-z0-9])[a-z][1-9][0-9]*(?![A-Za-z0-9])")
_LONG = 100

EMPTY = "."
"""An empty square in a diagram."""
DOT = "\N{MIDDLE DOT}"
"""An empty square on the terminal's boards, read as `EMPTY`; also what joins its facts."""
"""A rank text longer than this is refused without counting its squares."""

ROOK_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""`(files, ranks)` steps along a rank or a file."""
QUEEN_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
"""`(files, ranks)` steps along a rank, a file or a diagonal."""


class Grid:
    """The geometry of a `width` × `height` board; use [`grid_of`][] or [`grid`][] to get a
    shared instance.

    Attributes:
        width: squares per rank.
        height: ranks.
        size: squares in all.
        names: the name of every square in index order (`"a1"`, `"b1"`, …).
    """

    __slots__ = ("_index", "height", "names", "size", "width")

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.size = width * height
        self.names: tuple[str, ...] = tuple(
            f"{FILES[i % width]}{i // width + 1}" for i in range(self.size)
        )
        self._index = {name: i for i, name in enumerate(self.names)}

    def square(self, text: str) -> int:
        """The index of a square name such as `"c3"` (case-insensitive).

        Raises:
            InvalidMoveError: the text names no square of this board.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"a square name is text, not {value_excerpt(text)}")
        index = self._index.get(text.strip().lower())
        if index is None:
            last = self.names[-1]
            raise InvalidMoveError(
                f"'{excerpt(text)}' is not a square of this board (a1 to {last})"
            )
        return index

    def name(self, square: int) -> str:
        """The name of a square index, e.g. `"c3"`.

        Raises:
            ValueError: the index is not on the board.
        """
        if isinstance(square, bool) or not isinstance(square, int) or not 0 <= square < self.size:
            raise ValueError(
                f"square {value_excerpt(square)} is not on this board (0 to {self.size - 1})"
            )
        return self.names[square]

    def move_squares(self, move: Move | str) -> tuple[int, ...]:
        """The squares a move's notation names, in order: the target of a drop (`X@c3`), the
        source and target of a slide (`a4-c4`), none for a pass.

        Raises:
            InvalidMoveError: the notation names a square that is not on this board.
        """
        return tuple(self.square(name) for name in _SQUARE_NAME.findall(str(move)))

    def file(self, square: int) -> int:
        """The file of a square, 0 for file `a`."""
        return square % self.width

    def rank(self, square: int) -> int:
        """The rank of a square, 0 for rank `1`."""
        return square // self.width

    def step(self, square: int, df: int, dr: int) -> int | None:
        """The square `df` files and `dr` ranks away, or `None` off the board."""
        f, r = square % self.width + df, square // self.width + dr
        if 0 <= f < self.width and 0 <= r < self.height:
            return r * self.width + f
        return None

    def ray(self, square: int, df: int, dr: int) -> tuple[int, ...]:
        """The squares from `square` (excluded) in one direction up to the edge."""
        out = []
        nxt = self.step(square, df, dr)
        while nxt is not None:
            out.append(nxt)
            nxt = self.step(nxt, df, dr)
        return tuple(out)

    def neighbours(self, square: int) -> tuple[int, ...]:
        """The up to eight squares touching `square` orthogonally or diagonally."""
        return tuple(
            n for df, dr in QUEEN_DIRECTIONS if (n := self.step(square, df, dr)) is not None
        )

    def mask(self, squares: Iterable[int]) -> int:
        """A bitboard with the given squares set."""
        bits = 0
        for sq in squares:
            bits |= 1 << sq
        return bits

    def format_ranks(self, cells: Sequence[str]) -> str:
        """Rank notation (top rank first, `/` between ranks, digits for empty squares).

        `cells` holds one character per square in index order, `"."` for empty.
        """
        ranks = []
        for r in range(self.height - 1, -1, -1):
            text, empty = [], 0
            for c in cells[r * self.width : (r + 1) * self.width]:
                if c == ".":
                    empty += 1
                    continue
                if empty:
                    text.append(str(empty))
                    empty = 0
                text.append(c)
            if empty:
                text.append(str(empty))
            ranks.append("".join(text))
        return "/".join(ranks)

    def parse_ranks(self, text: str, pieces: str) -> str:
        """Read rank notation into one character per square in index order, `"."` for empty.

        Raises:
            InvalidPositionError: with what is wrong (rank count, rank width, a bad character).
        """
        if len(text) >= self.size + self.height:  # longer than any ranks: not split up unchecked
            self._check_long_ranks(text)
        ranks = text.split("/")
        if len(ranks) != self.height:
            raise self._rank_count(text, len(ranks))
        rows: list[str] = []
        for offset, rank_text in enumerate(ranks):
            rank_number = self.height - offset
            row: list[str] = []
            previous_digit = False
            for ch in rank_text:
                if ch.isdigit() and ch.isascii():
                    if previous_digit:
                        raise InvalidPositionError(
                            f"rank {rank_number} '{excerpt(rank_text)}': two digits in a row"
                        )
                    if ch == "0":
                        raise InvalidPositionError(
                            f"rank {rank_number} '{excerpt(rank_text)}': digit 0"
                        )
                    row.extend("." * int(ch))
                    previous_digit = True
                elif ch in pieces:
                    row.append(ch)
                    previous_digit = False
                else:
                    raise _UnknownPiece(
                        f"rank {rank_number} '{excerpt(rank_text)}': unknown character "
                        f"'{excerpt(ch)}' "
                        f"(pieces are {', '.join(pieces)}; digits count empty squares)",
                        rank_number,
                        ch,
                        pieces,
                    )
            if len(row) != self.width:
                raise InvalidPositionError(
                    f"rank {rank_number} '{excerpt(rank_text)}' has {len(row)} squares, not "
                    f"{self.width}"
                )
            rows.append("".join(row))
        return "".join(reversed(rows))

    def _rank_count(self, text: str, count: int) -> InvalidPositionError:
        return InvalidPositionError(
            f"{count:,} ranks in '{excerpt(text)}'; this board has {self.height} "
            f"({self.width}x{self.height}), separated by '/'"
        )

    def _check_long_ranks(self, text: str) -> None:
        """Refuse a ranks text with too many ranks, or a rank of more than `_LONG`
        characters (each is a square at least), without reading it all."""
        count = text.count("/") + 1
        if count != self.height:
            raise self._rank_count(text, count)
        for offset, rank_text in enumerate(text.split("/")):
            if len(rank_text) > _LONG:
                raise InvalidPositionError(
                    f"rank {self.height - offset} '{excerpt(rank_text)}' has more than "
                    f"{self.width} squares ({len(rank_text):,} characters)"
                )

    def render(self, cells: Sequence[str]) -> str:
        """A plain-text diagram with coordinates, top rank first."""
        lines = []
        for r in range(self.height - 1, -1, -1):
            row = cells[r * self.width : (r + 1) * self.width]
            lines.append(f"{r + 1} " + " ".join(row))
        lines.append("  " + " ".join(FILES[: self.width]))
        return "\n".join(lines)


@cache
def grid(width: int, height: int) -> Grid:
    """The shared [`Grid`][] for a board size."""
    return Grid(width, height)


def grid_of(board: Game | State) -> Grid:
    """The [`Grid`][] of a game's board, or of the board of a state's game.

    Raises:
        NotImplementedError: the game has no board (no `board_width` or no `cells()`).
    """
    game = board.game if isinstance(board, State) else board
    if game.board_width <= 0:
        raise NotImplementedError(f"{type(game).__name__} has no board_width")
    state = board if isinstance(board, State) else game.initial_state()
    return grid(game.board_width, len(state.cells()) // game.board_width)


def split_position(text: object, fields: int, example: str) -> list[str]:
    """Split a position string into its whitespace-separated fields, checking their number."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position must be a string, not {type(text).__name__}")
    parts = text.split(maxsplit=fields)  # a huge text is not split up
    if len(parts) != fields:
        count = str(len(parts))
        if len(parts) > fields:
            count = str(len(text.split())) if len(text) <= 10_000 else f"more than {fields}"
        raise InvalidPositionError(
            f"position '{excerpt(text)}' has {count} fields, expected {fields} (e.g. {example!r})"
        )
    return parts


# --- text diagrams --------------------------------------------------------------------------------

MAX_POSITION_TEXT = 100_000
"""The longest text [`read_position`][] reads, in characters: a diagram with its e-mail around it
fits many times over; a longer text is refused before it is read."""
MAX_POSITIONS_TEXT = 1_000_000
"""The longest text [`read_positions`][] reads, in characters (thousands of positions)."""

_CELL_GAP = "     "
"""What [`diagram`][] writes between two cells of a rank, as the FAQ does."""
_QUOTING = re.compile(r"[ \t>]*")
"""Indentation and e-mail quoting (`> `, `>> `, `> > `) before a line."""
_RANK_MARK = re.compile(r"<?-*([0-9]{1,3})", re.ASCII)
"""A rank number after a rank, alone (`5`) or with the FAQ's arrow (`<---5`)."""
_ARROW = re.compile(r"<?-+>?|<=+")
"""An arrow on its own before the rank number (`<--- 5`)."""
_NUMBER = re.compile(r"[0-9]{1,3}", re.ASCII)
_SIDE_SHAPE = re.compile(r"\S+\s+(?:is\s+)?to\s+(?:move|play|place)\b", re.IGNORECASE)
"""What a side-to-move line looks like (`O to move`, `chaos to place R`), so that one the game
cannot read is refused rather than passed over as text."""


class _UnknownPiece(InvalidPositionError):
    """A rank of a position string holds a character that is no piece (for a diagram to say on
    which line)."""

    def __init__(self, message: str, rank: int, char: str, pieces: str) -> None:
        super().__init__(message)
        self.rank = rank
        self.char = char
        self.pieces = pieces


class _Line:
    """A line of a text: its number (from 1) and its text without quoting and indentation."""

    __slots__ = ("number", "text")

    def __init__(self, number: int, text: str) -> None:
        self.number = number
        self.text = text

    def quoted(self) -> str:
        return f"line {self.number} '{excerpt(self.text)}'"


class _Rank:
    """A line of a diagram that is a rank: its cells and the rank numbers written beside it."""

    __slots__ = ("cells", "line", "marks")

    def __init__(self, line: _Line, cells: list[str], marks: list[int]) -> None:
        self.line = line
        self.cells = cells
        self.marks = marks


def diagram(state: State) -> str:
    """The position of `state` as a text diagram in the layout of Carreno's e-mail FAQ.

    One line per rank from the top rank down, the cells (`.` for an empty square) five spaces
    apart and the rank's arrow and number at the end (`<---5`), a blank line between the lines
    (so that an e-mail program re-wrapping paragraphs leaves them alone), an underline, the file
    letters, and last the side-to-move line of the game ([`Game.side_line`][
    abstractgames.protocol.Game.side_line]). [`read_position`][] reads it back as an equal state,
    also quoted (`> `), indented, or with a signature below it.

    Raises:
        NotImplementedError: the game has no board (no `board_width`).

    Examples:
        >>> from abstractgames import get_game
        >>> print(diagram(get_game("dispersal").initial_state()))
        S     S     S     S     S  <---5
        <BLANKLINE>
        S     .     .     .     S  <---4
        <BLANKLINE>
        .     .     .     .     .  <---3
        <BLANKLINE>
        O     .     .     .     O  <---2
        <BLANKLINE>
        O     O     O     O     O  <---1
        <BLANKLINE>
        _________________________
        <BLANKLINE>
        a     b     c     d     e
        <BLANKLINE>
        O to move
    """
    game = state.game
    if game.board_width <= 0:
        raise NotImplementedError(
            f"{game.spec} has no board, so no diagram: its position is {state.position()!r}"
        )
    board = grid_of(state)
    cells = state.cells()
    width = board.width
    lines = []
    for rank in range(board.height, 0, -1):
        row = cells[(rank - 1) * width : rank * width]
        lines += [f"{_CELL_GAP.join(row)}  <---{rank}", ""]
    lines += ["_" * (len(_CELL_GAP) * (width - 1) + width), ""]
    lines += [_CELL_GAP.join(FILES[:width]), "", game.side_line(state)]
    return "\n".join(lines)


def read_position(game: Game, text: str, side: str | None = None) -> State:
    """Read a position of `game` written as a position string or as a text diagram.

    The two are told apart by their shape: a position string is one line, a diagram has one
    line for each rank. A diagram is the layout of Carreno's e-mail FAQ, as [`diagram`][] writes
    it, read leniently:

    - a line for each rank from the top down, its cells separated by any spaces or tabs: `.` for
      an empty square, else the game's piece letters;
    - at the end of a rank line, its rank number or the FAQ's arrow (`<---5`), if you like (a
      number before the rank, as the terminal's boards have, too); a number that is not the
      rank's is refused;
    - below the ranks, an underline and a line of file letters (`a b c d e`), if you like;
    - below the diagram, the side-to-move line: `O to move`, `order to move`, and for Entropy
      `draw`, `chaos to place R`, `order to move` or `end` (see [`Game.side_field`][
      abstractgames.protocol.Game.side_field]);
    - blank lines, indentation and e-mail quoting (`> `) anywhere, text above the diagram and
      text below it (a caption, a signature) are passed over.

    Args:
        game: the game the position is of.
        text: the position string or the diagram (at most [`MAX_POSITION_TEXT`][]
            characters).
        side: the side-to-move line's words, for a diagram that has none (`"O to move"`, or
            `"O"` alone); given with a text that says the side too, the two must agree.

    Raises:
        InvalidPositionError: naming what is wrong, and where a line is to blame its number:
            a diagram without a side-to-move line (and no `side`), two side-to-move lines, a
            side the game does not have, an unknown piece letter, a rank of the wrong length, a
            wrong number of ranks, a second diagram, a text too long, or a position that
            cannot arise (as [`Game.from_position`][abstractgames.protocol.Game.from_position]
            refuses it).

    Examples:
        >>> from abstractgames import get_game
        >>> text = '''
        ... > S  .  O  .  S
        ... > O  .  .  .  O
        ... > O  S  S  O  S
        ... > S  .  .  .  .
        ... > .  .  O  O  S
        ... >
        ... > O to move
        ... '''
        >>> read_position(get_game("dispersal"), text).position()
        'S1O1S/O3O/OSSOS/S4/2OOS O'
    """
    lines = _lines(text, MAX_POSITION_TEXT)
    filled = [line for line in lines if line.text]
    if not filled:
        raise InvalidPositionError(f"no position here: the text is empty ({_WHAT_TO_GIVE})")
    if len(filled) == 1 and _rank(filled[0], 0) is None:
        if _side_or_refusal(game, filled[0])[0] is not None:
            raise InvalidPositionError(
                f"{filled[0].quoted()} says who is to move, but there is no diagram above it "
                f"({_WHAT_TO_GIVE})"
            )
        return _read_string(game, filled[0].text, side, None)
    return _read_diagram(game, lines, side, trailing=True)


_WHAT_TO_GIVE = (
    "give a position string on one line, or a diagram: a line for each rank from the top down, "
    "'.' for an empty square, and below it who is to move"
)


def read_positions(game: Game, text: str, side: str | None = None) -> list[State]:
    """Every position of a text that holds several, e.g. the openings of a tournament.

    Position strings are one to a line; a diagram (read as by [`read_position`][]) runs from
    its first rank to its side-to-move line, or to its file letters when it has no side line
    (and `side` says it for every diagram), or to the next line that is none of its own (blank
    lines between its ranks are fine, as in the FAQ's layout); with `side`, a diagram ends after
    its last rank too. Blank lines and lines that start with `#` are passed over.

    Raises:
        InvalidPositionError: as [`read_position`][], with the line; a text of more than
            [`MAX_POSITIONS_TEXT`][] characters.

    Examples:
        >>> from abstractgames import get_game
        >>> text = '''
        ... # two openings
        ... 6/6/6/2X3/6/6 chaos
        ... .  .  .  .  .  .
        ... .  .  .  .  .  .
        ... .  .  .  .  .  .
        ... .  .  .  .  .  .
        ... .  .  O  .  .  .
        ... .  .  .  .  .  .
        ... chaos to move
        ... '''
        >>> [state.position() for state in read_positions(get_game("orderchaos"), text)]
        ['6/6/6/2X3/6/6 chaos', '6/6/6/6/2O3/6 chaos']
    """
    lines = _lines(text, MAX_POSITIONS_TEXT)
    width = game.board_width
    most = grid_of(game).height if side is not None and width > 0 else None
    chunks: list[list[_Line]] = []
    current: list[_Line] | None = None
    lettered = False  # the current diagram's file letters are read: a rank starts another
    ranks = 0
    for line in lines:
        if not line.text or line.text.startswith("#"):
            continue
        kind = _kind(game, line, width)
        if current is not None:
            if kind == "rank" and not lettered and (most is None or ranks < most):
                current.append(line)
                ranks += 1
                continue
            if kind in ("files", "underline"):
                lettered = lettered or kind == "files"
                current.append(line)
                continue
            if kind == "side":
                current.append(line)
            chunks.append(current)
            current = None
            if kind == "side":
                continue
        if kind == "rank":
            current, lettered, ranks = [line], False, 1
        elif kind == "text":
            chunks.append([line])
        else:
            raise InvalidPositionError(f"{line.quoted()} is not below a diagram")
    if current is not None:
        chunks.append(current)
    states = []
    for chunk in chunks:
        if len(chunk) == 1 and _rank(chunk[0], width) is None:
            states.append(_read_string(game, chunk[0].text, side, chunk[0]))
        else:
            states.append(_read_diagram(game, chunk, side, trailing=False))
    return states


def _lines(text: object, limit: int) -> list[_Line]:
    """The lines of `text`, numbered from 1, each without quoting, indentation and trailing
    spaces.

    Raises:
        InvalidPositionError: `text` is not a string, or is longer than `limit`.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position is text, not {type(text).__name__}")
    if len(text) > limit:
        raise InvalidPositionError(
            f"a text of {len(text):,} characters is too long to read positions from (at most "
            f"{limit:,})"
        )
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        start = _QUOTING.match(raw)
        out.append(_Line(number, raw[start.end() if start else 0 :].strip()))
    return out


def _read_string(game: Game, text: str, side: str | None, line: _Line | None) -> State:
    """A position string (one line), checked against `side` if one is given."""
    try:
        state = game.from_position(text)
        if side is not None:
            field = game.side_field(side)
            written = state.position().rsplit(maxsplit=1)[-1]
            if field.lower() != written.lower():
                raise InvalidPositionError(
                    f"the position string '{excerpt(text)}' says {written!r} and the side given "
                    f"says {field!r} ('{excerpt(side)}')"
                )
    except InvalidPositionError as error:
        if line is None:
            raise
        raise InvalidPositionError(f"line {line.number}: {error}") from None
    return state


def _file_letters(line: _Line) -> int | None:
    """How many files a line of file letters (`a b c d e`) names, or `None` if it is not one."""
    tokens = line.text.split()
    if len(tokens) >= 2 and tokens == list(FILES[: len(tokens)]):
        return len(tokens)
    return None


def _underline(line: _Line) -> bool:
    return len(line.text) >= 3 and not line.text.strip("_-=")


def _rank(line: _Line, width: int) -> _Rank | None:
    """The rank a line of a diagram holds, or `None` if the line is not shaped as one: single
    characters (one of them `.` or a letter) with rank numbers at either end, if any."""
    tokens = [EMPTY if token == DOT else token for token in line.text.split()]
    if len(tokens) > 4 * max(width, 26):
        return None
    marks = []
    if len(tokens) > 1 and _NUMBER.fullmatch(tokens[0]):
        marks.append(int(tokens.pop(0)))
    if tokens and (mark := _RANK_MARK.fullmatch(tokens[-1])):
        marks.append(int(mark[1]))
        tokens.pop()
        if tokens and _ARROW.fullmatch(tokens[-1]):
            tokens.pop()
    if not tokens or any(len(token) != 1 for token in tokens):
        return None
    if not any(token == "." or token.isalpha() for token in tokens):
        return None
    if len(tokens) < 2 and not marks:
        return None
    return _Rank(line, tokens, marks)


def _side(game: Game, line: _Line) -> str | None:
    """The last field of a position string that a side-to-move line stands for; `None` for a
    line that is not one.

    Raises:
        InvalidPositionError: the line is shaped as a side-to-move line that the game refuses.
    """
    field, refusal = _side_or_refusal(game, line)
    if refusal is not None:
        raise refusal
    return field


def _side_or_refusal(game: Game, line: _Line) -> tuple[str | None, InvalidPositionError | None]:
    """The side field of a side-to-move line; else `None` and, for a line shaped as one
    (`X to move`) that the game refuses, the error saying why."""
    try:
        return game.side_field(line.text), None
    except InvalidPositionError as error:
        for part in reversed(line.text.split(f" {DOT} ")[1:]):  # the terminal's line of facts
            with suppress(InvalidPositionError):
                return game.side_field(part), None
        if _SIDE_SHAPE.match(line.text):
            return None, InvalidPositionError(f"line {line.number}: {error}")
        return None, None


def _kind(game: Game, line: _Line, width: int) -> str:
    """What a line of a text of positions is: `rank`, `files`, `underline`, `side` or `text`."""
    if _file_letters(line) is not None:
        return "files"
    if _underline(line):
        return "underline"
    if _rank(line, width) is not None:
        return "rank"
    if _side(game, line) is not None:
        return "side"
    return "text"


def _read_diagram(game: Game, lines: list[_Line], side: str | None, *, trailing: bool) -> State:
    """The position of the diagram in `lines`; with `trailing`, lines below it that are not
    its own are text to pass over (else they are refused)."""
    if game.board_width <= 0:
        raise InvalidPositionError(
            f"{game.spec} has no board, so no diagrams: give its position string on one line"
        )
    board = grid_of(game)
    width, height = board.width, board.height
    ranks: list[_Rank] = []
    index = 0
    while index < len(lines) and not ranks:  # text above the diagram is passed over
        line = lines[index]
        index += 1
        if line.text and _file_letters(line) is None and (rank := _rank(line, width)):
            ranks.append(rank)
    if not ranks:
        raise InvalidPositionError(
            f"no diagram of {game.spec} here: a diagram has a line for each of its {height} "
            f"ranks, its {width} squares separated by spaces ('.' for an empty one), and a "
            "position string is one line"
        )
    while index < len(lines):
        line = lines[index]
        if line.text:
            if _file_letters(line) is not None or _underline(line):
                break
            rank = _rank(line, width)
            if rank is None:
                break
            ranks.append(rank)
        index += 1
    _check_ranks(ranks, width, height)
    field = _side_of(game, lines[index:], side, height, width, trailing)
    cells = ["."] * board.size
    for offset, rank in enumerate(ranks):
        start = (height - 1 - offset) * width
        cells[start : start + width] = rank.cells
    text = f"{board.format_ranks(cells)} {field}"
    try:
        return game.from_position(text)
    except _UnknownPiece as error:
        rank = ranks[height - error.rank]
        pieces = ", ".join(dict.fromkeys(error.pieces.upper()))
        raise InvalidPositionError(
            f"{rank.line.quoted()}: '{excerpt(error.char)}' is not a piece of {game.spec} (the "
            f"pieces are {pieces}; '.' is an empty square)"
        ) from None
    except InvalidPositionError as error:
        where = f"lines {ranks[0].line.number}-{ranks[-1].line.number}"
        raise InvalidPositionError(
            f"the diagram of {where} ('{excerpt(text)}') cannot be: {error}"
        ) from None


def _check_ranks(ranks: list[_Rank], width: int, height: int) -> None:
    """Refuse ranks of the wrong length, a digit for a cell, a wrong rank number, or a wrong
    number of ranks."""
    for offset, rank in enumerate(ranks):
        if len(rank.cells) != width:
            raise InvalidPositionError(
                f"{rank.line.quoted()} has {len(rank.cells)} squares; a rank of this board has "
                f"{width}"
            )
        for cell in rank.cells:
            if cell.isdigit() or cell == "/":
                raise InvalidPositionError(
                    f"{rank.line.quoted()}: '{excerpt(cell)}' is not a piece (a diagram writes "
                    "'.' for an empty square)"
                )
        expected = height - offset
        for mark in rank.marks:
            if mark != expected and offset < height:
                raise InvalidPositionError(
                    f"{rank.line.quoted()} is numbered {mark}, but it is rank {expected} (the "
                    f"ranks go from {height} at the top down to 1)"
                )
    if len(ranks) != height:
        first, last = ranks[0].line.number, ranks[-1].line.number
        raise InvalidPositionError(
            f"the diagram of lines {first}-{last} has {len(ranks)} ranks; this board has "
            f"{height} ({width}x{height}), a line for each from the top down"
        )


def _side_of(
    game: Game, tail: list[_Line], side: str | None, height: int, width: int, trailing: bool
) -> str:
    """The side field of a diagram: from its side-to-move line below it, or from `side`."""
    sides: list[tuple[_Line, str]] = []
    unreadable: InvalidPositionError | None = None  # a side-to-move line the game refuses
    strung: str | None = None  # the side of a position string below (`show` prints one)
    ranks_below: list[_Line] = []
    furniture = True  # the underline and the file letters come right below the ranks
    for line in tail:
        if not line.text:
            continue
        if furniture:
            files = _file_letters(line)
            if files is not None:
                if files != width:
                    raise InvalidPositionError(
                        f"{line.quoted()} names {files} files; this board has {width} "
                        f"({FILES[0]} to {FILES[width - 1]})"
                    )
                continue
            if _underline(line):
                continue
            furniture = False
        field, refusal = _side_or_refusal(game, line)
        if field is not None:
            sides.append((line, field))
            continue
        if refusal is not None and unreadable is None:
            unreadable = refusal
        if trailing and strung is None:
            with suppress(InvalidPositionError):
                strung = game.from_position(line.text).position().rsplit(maxsplit=1)[-1]
        if not trailing:
            raise InvalidPositionError(f"{line.quoted()} is not part of the diagram above it")
        if _rank(line, width) is not None:
            ranks_below.append(line)
            if len(ranks_below) >= height:
                raise InvalidPositionError(
                    f"a second diagram at line {ranks_below[0].number}: give one position at a time"
                )
    if len(sides) > 1:
        (first, _), (second, _) = sides[:2]
        raise InvalidPositionError(
            f"two side-to-move lines, {first.quoted()} and {second.quoted()}: keep the one "
            "that is right"
        )
    given = None if side is None else game.side_field(side)
    if sides:
        line, field = sides[0]
        if given is not None and given != field:
            raise InvalidPositionError(
                f"{line.quoted()} and the side given ('{excerpt(side)}') do not agree"
            )
        return field
    if unreadable is not None:
        raise unreadable
    if given is not None:
        return given
    if strung is not None:
        return strung
    example = game.side_line(game.initial_state())
    raise MissingSideError(
        f"the diagram does not say who is to move: add a line below it such as '{example}', or "
        "give the side",
        example,
    )


class MissingSideError(InvalidPositionError):
    """A diagram that does not say who is to move, read without a side; `example` is a
    side-to-move line of the game, for a front end to say how to give one."""

    def __init__(self, message: str, example: str) -> None:
        super().__init__(message)
        self.example = example
