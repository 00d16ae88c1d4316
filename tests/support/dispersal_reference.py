"""A deliberately plain dispersal Entropy, written straight from RULES.md, to test the fast engine.

No bitboards and no tables: a board is a dict from (file, rank) to ``"O"`` or ``"S"``, and every
rule is a loop over squares. It is slow and meant to be obviously right.
"""

from __future__ import annotations

FILES = "abcde"
DIRECTIONS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]

Square = tuple[int, int]
Board = dict[Square, str]


def name(square: Square) -> str:
    return f"{FILES[square[0]]}{square[1] + 1}"


def parse_board(ranks: str) -> Board:
    """Rank notation, top rank first; no error checking (the inputs come from the engine)."""
    board: Board = {}
    for row, text in enumerate(ranks.split("/")):
        rank = 4 - row
        file = 0
        for ch in text:
            if ch.isdigit():
                file += int(ch)
            else:
                board[(file, rank)] = ch
                file += 1
    return board


def other(side: str) -> str:
    return "S" if side == "O" else "O"


def on_board(square: Square) -> bool:
    return 0 <= square[0] < 5 and 0 <= square[1] < 5


def neighbours(square: Square) -> list[Square]:
    found = []
    for df, dr in DIRECTIONS:
        n = (square[0] + df, square[1] + dr)
        if on_board(n):
            found.append(n)
    return found


def pieces(board: Board, side: str) -> list[Square]:
    return [sq for sq, piece in board.items() if piece == side]


def touches(board: Board, square: Square, side: str) -> bool:
    return any(board.get(n) == side for n in neighbours(square))


def isolated(board: Board, side: str) -> list[Square]:
    return [sq for sq in pieces(board, side) if not any(n in board for n in neighbours(sq))]


def dispersed(board: Board, side: str) -> bool:
    return all(
        touches(board, sq, other(side)) and not touches(board, sq, side)
        for sq in pieces(board, side)
    )


def slides(board: Board, side: str) -> list[tuple[Square, Square]]:
    """Every queen move of a piece of ``side`` that touches a friend, ignoring check."""
    found = []
    for sq in pieces(board, side):
        if not touches(board, sq, side):
            continue
        for df, dr in DIRECTIONS:
            to = (sq[0] + df, sq[1] + dr)
            while on_board(to) and to not in board:
                found.append((sq, to))
                to = (to[0] + df, to[1] + dr)
    return found


def after(board: Board, move: tuple[Square, Square]) -> Board:
    new = dict(board)
    new[move[1]] = new.pop(move[0])
    return new


def legal_moves(board: Board, side: str) -> list[str]:
    """The legal moves as notation, sorted; ``["pass"]`` when there is none."""
    candidates = slides(board, side)
    if isolated(board, side):
        candidates = [m for m in candidates if not isolated(after(board, m), side)]
    if not candidates:
        return ["pass"]
    return sorted(f"{name(a)}-{name(b)}" for a, b in candidates)


def dispersal_result(board: Board) -> tuple[str | None, str] | None:
    """``(winner, reason)`` when a side is dispersed (winner None: both are), else None."""
    o, s = dispersed(board, "O"), dispersed(board, "S")
    if o and s:
        return None, "both sides dispersed"
    if o:
        return "O", "O dispersed"
    if s:
        return "S", "S dispersed"
    return None


class Game:
    """A game from a position, with the whole history kept as a plain list.

    ``result`` is None while the game goes on, else ``(winner, reason)`` (winner None for a draw).
    """

    def __init__(self, position: str, max_plies: int = 200) -> None:
        ranks, side = position.split()
        self.board = parse_board(ranks)
        self.side = side
        self.max_plies = max_plies
        self.history = [(sorted(self.board.items()), side)]
        self.moves: list[str] = []
        self.result = dispersal_result(self.board)

    def legal(self) -> list[str]:
        return [] if self.result else legal_moves(self.board, self.side)

    def play(self, text: str) -> None:
        assert text in self.legal(), (text, self.legal())
        if text != "pass":
            a, b = text.split("-")
            source = (FILES.index(a[0]), int(a[1]) - 1)
            target = (FILES.index(b[0]), int(b[1]) - 1)
            self.board = after(self.board, (source, target))
        self.side = other(self.side)
        self.moves.append(text)
        self.history.append((sorted(self.board.items()), self.side))
        self.result = dispersal_result(self.board)
        if self.result:
            return
        if self.moves[-2:] == ["pass", "pass"]:
            self.result = None, "both players passed"
        elif self.history.count(self.history[-1]) >= 3:
            self.result = None, "threefold repetition"
        elif len(self.moves) >= self.max_plies:
            self.result = None, f"ply limit of {self.max_plies} reached"
