"""Play in a terminal: boards drawn with rich, a person at the keyboard, and a running commentary.

Only the command line and this module use rich. Boards show letters as well as colours, so they
read the same without colour (``NO_COLOR`` or ``--no-color``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from .players import Player, Resign, UndoRequest
from .protocol import CHANCE, Game, IllegalMoveError, Match, Move, State
from .records import GameRecord, MatchRecord, MoveRecord
from .referee import Observer
from .text import printable

__all__ = ["HumanPlayer", "TerminalObserver", "board_text", "make_console"]

FILES = "abcdefghijklmnopqrstuvwxyz"

# Foreground that stays readable on each background colour a piece may have.
_CONTRAST = {"white": "black", "yellow": "black", "green": "black"}
_RICH_NAMES = {"purple": "magenta", "black": "grey11", "white": "grey93"}

HELP = """\
Type a move in the notation shown by 'moves', or one of:
  moves   list the legal moves
  help    this text
  resign  resign the match
  undo    take back your last move (only against bots)"""


class _Console(Console):
    """A console that prints text with its control characters escaped (but newlines): messages
    quote outside text (a record's reasons and player specs, an engine's words), which must not
    drive the terminal. Boards (rich ``Text``) are ours and print as they are."""

    def print(self, *objects: Any, **options: Any) -> None:
        super().print(*(printable(o) if isinstance(o, str) else o for o in objects), **options)


def make_console(
    file: TextIO | None = None, *, colour: bool = True, force_terminal: bool | None = None
) -> Console:
    """A console for boards and messages; ``colour=False`` (or ``NO_COLOR``) draws letters only.

    Text printed on it has its control characters escaped (:func:`abstractgames.text.printable`).
    """
    return _Console(
        file=file,
        force_terminal=force_terminal,
        no_color=True if not colour else None,  # None: rich honours NO_COLOR
        highlight=False,
        soft_wrap=True,
        emoji=False,  # "chaos:B:" must not become an emoji
        markup=False,  # messages quote user text, which may hold [brackets]
    )


def board_text(state: State, highlight: frozenset[int] = frozenset()) -> Text:
    """The board with coordinates, top rank first; ``highlight`` marks squares (a last move)."""
    game = state.game
    cells = state.cells()
    width = game.board_width
    height = len(cells) // width
    text = Text()
    for rank in range(height - 1, -1, -1):
        text.append(f"{rank + 1:>2} ")
        for square in range(rank * width, (rank + 1) * width):
            text.append(_cell(game, cells[square], square in highlight))
        text.append("\n")
    text.append("   " + "".join(f" {FILES[f]} " for f in range(width)))
    return text


def _cell(game: Game, piece: str, marked: bool) -> Text:
    if piece == ".":
        return Text("[·]" if marked else " · ", style="dim")
    colour = game.piece_colours.get(piece)
    body = f"[{piece}]" if marked else f" {piece} "
    if colour is None:
        return Text(body, style="bold")
    background = _RICH_NAMES.get(colour, colour)
    return Text(body, style=f"bold {_CONTRAST.get(colour, 'white')} on {background}")


class HumanPlayer(Player):
    """A person typing moves. Typos and illegal moves get one line and the prompt again."""

    spec = "human"

    def __init__(
        self,
        game: Game,
        console: Console,
        read_line: Callable[[str], str],
        *,
        allow_undo: bool = False,
        name: str = "you",
    ) -> None:
        self.game = game
        self.console = console
        self.read_line = read_line
        self.allow_undo = allow_undo
        self.name = name

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        show_position(self.console, state, time_left=time_left)
        while True:
            text = self.read_line(f"{state.to_move} ({self.name})> ").strip()
            command = text.lower()
            if not command:
                continue
            if command == "moves":
                self._print_moves(state)
                continue
            if command in ("help", "?"):
                self.console.print(HELP)
                continue
            if command == "resign":
                raise Resign()
            if command == "undo":
                if self.allow_undo:
                    raise UndoRequest()
                self.console.print("undo is only possible in a game against bots")
                continue
            try:
                move = self.game.parse_move(text, state)
                state.apply(move)
            except IllegalMoveError as error:
                self.console.print(f"not played: {error}  (type 'moves' or 'help')")
                continue
            return move

    def _print_moves(self, state: State) -> None:
        moves = [str(m) for m in state.legal_moves()]
        self.console.print(f"{len(moves)} legal moves: " + " ".join(moves))


def show_position(console: Console, state: State, *, time_left: float | None = None) -> None:
    """Print the board and what a player needs to know about the position."""
    console.print(board_text(state))
    facts = list(state.describe())
    if state.to_move not in (None, CHANCE):
        facts.append(f"{state.to_move} to move")
    if time_left is not None:
        facts.append(f"your clock: {format_clock(time_left)}")
    if facts:
        console.print(" · ".join(facts))


def format_clock(seconds: float) -> str:
    """``m:ss.t``, e.g. ``4:59.9``."""
    tenths = round(max(seconds, 0.0) * 10)
    minutes, rest = divmod(tenths, 600)
    return f"{minutes}:{rest // 10:02d}.{rest % 10}"


class TerminalObserver(Observer):
    """Tells the people at the terminal what happens. ``verbose`` also shows every move."""

    def __init__(self, console: Console, players: tuple[Player, Player], *, verbose: bool) -> None:
        self.console = console
        self.players = players
        self.verbose = verbose

    def _name(self, player: int) -> str:
        return f"player {player} ({self.players[player - 1].spec})"

    def game_started(self, record: GameRecord, state: State, match: Match) -> None:
        seats = ", ".join(f"{self._name(p)} is {match.role_of(p)}" for p in (1, 2))
        resumed = f", resumed after {len(record.moves)} plies" if record.moves else ""
        self.console.print(f"— game {record.number}: {seats}{resumed}")

    def turn_started(self, state: State, player: int, clocks: tuple[float | None, ...]) -> None:
        if self.verbose and all(c is not None for c in clocks):
            shown = " · ".join(
                f"player {p}: {format_clock(c)}"
                for p, c in enumerate(clocks, start=1)
                if c is not None
            )
            self.console.print(f"  clocks — {shown}")

    def move_played(self, before: State, move: Move, entry: MoveRecord, after: State) -> None:
        if not self.verbose:
            return
        if entry.player is None:
            self.console.print(f"  drawn: {move}")
            return
        if isinstance(self.players[entry.player - 1], HumanPlayer) and not entry.auto:
            return
        note = " (played for them: out of time)" if entry.auto else ""
        self.console.print(f"  {self._name(entry.player)} plays {move}{note}")

    def moves_taken_back(self, state: State, count: int) -> None:
        self.console.print(f"  took back {count} plies")

    def notice(self, text: str) -> None:
        self.console.print(f"  {text}")

    def game_ended(self, record: GameRecord, state: State, match: Match) -> None:
        if record.outcome is not None:
            if self.verbose:
                show_position(self.console, state)
            outcome = record.outcome
            winner = "no winner" if outcome.winner is None else f"{outcome.winner} wins"
            scores = ", ".join(f"{role} {score:g}" for role, score in outcome.scores.items())
            self.console.print(
                f"— game {record.number} over: {winner} ({outcome.reason}); scores: {scores}"
            )

    def match_ended(self, record: MatchRecord) -> None:
        result = record.result
        assert result is not None
        winner = "a draw" if result.winner is None else f"{self._name(result.winner)} wins"
        self.console.print(f"Result: {winner} — {result.reason}")
