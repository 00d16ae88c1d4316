"""Play in a terminal: boards drawn with rich, a person at the keyboard, and a running commentary.

Only the command line and this module use rich, and only this module uses prompt_toolkit (imported
when a person plays at a terminal, never by `import abstractgames`). When standard input and
output are terminals, a person's prompt has line editing, a history, Tab completion of the legal
moves and commands, and a clock that counts down and falls without waiting for Enter; otherwise
lines are read with `input`, so that scripts piping moves in work as they always did.

Boards show letters as well as colours, and the last move in brackets, so they read the same
without colour; `--no-color` or `NO_COLOR` remove every style (bold and dim too).
"""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.text import Text

from .interrupts import pending_interrupt
from .players import HUMAN, Player, Resign, UndoRequest
from .protocol import (
    CHANCE,
    Game,
    IllegalMoveError,
    Match,
    Move,
    SingleGameMatch,
    State,
)
from .records import GameRecord, MatchRecord, MoveRecord
from .referee import Observer
from .text import counted, printable, wrap

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

__all__ = [
    "FlagFell",
    "GameView",
    "HumanPlayer",
    "LineReader",
    "LiveReader",
    "QuitRequest",
    "Session",
    "TerminalObserver",
    "board_text",
    "format_clock",
    "make_console",
    "show_position",
]

FILES = "abcdefghijklmnopqrstuvwxyz"

# Foreground that stays readable on each background colour a piece may have.
_CONTRAST = {"white": "black", "yellow": "black", "green": "black"}
_RICH_NAMES = {"purple": "magenta", "black": "grey11", "white": "grey93"}

HELP_INTRO = "Type a move in the notation shown by 'moves', or one of:"
HELP = (
    ("moves", "list the legal moves (at a terminal, Tab completes moves and commands)"),
    ("history", "the moves of this game so far"),
    ("rules", "a short summary of the rules"),
    (
        "hint",
        "what the search bot would play here, and its evaluation (a learning aid: nothing is "
        "recorded; 'hint 3' lets it think 3 seconds)",
    ),
    ("undo", "take back your last move (only against bots)"),
    ("resign", "resign the match"),
    (
        "quit",
        "save the game and leave, like Ctrl-C ('exit' too); 'abstractgames play --resume' "
        "continues it",
    ),
    ("help", "this text"),
)
"""The commands `help` explains, each with what it does."""

COMMANDS = ("moves", "history", "rules", "hint", "undo", "resign", "quit", "exit", "help")

now: Callable[[], float] = time.monotonic
"""The clock of terminal play, shared by the referee and the countdown (tests make it faster)."""


class _Console(Console):
    """A console that prints text with its control characters escaped (but newlines): messages
    quote outside text (a record's reasons and player specs, an engine's words), which must not
    drive the terminal. Text is wrapped between words to the console's width
    ([`wrap`][abstractgames.text.wrap], so that the terminal never cuts a word at its edge).
    Boards (rich `Text`) are ours and print as they are."""

    def print(self, *objects: Any, **options: Any) -> None:
        fitted = (wrap(printable(o), self.width) if isinstance(o, str) else o for o in objects)
        super().print(*fitted, **options)


def make_console(
    file: TextIO | None = None, *, colour: bool = True, force_terminal: bool | None = None
) -> Console:
    """A console for boards and messages; `colour=False` (or `NO_COLOR`) prints no style at
    all, not even bold or dim: boards are letters and brackets only.

    Text printed on it has its control characters escaped ([`abstractgames.text.printable`][]).
    """
    plain = not colour or bool(os.environ.get("NO_COLOR"))
    return _Console(
        file=file,
        force_terminal=force_terminal,
        color_system=None if plain else "auto",
        no_color=True if plain else None,
        highlight=False,
        soft_wrap=True,
        emoji=False,  # "chaos:B:" must not become an emoji
        markup=False,  # messages quote user text, which may hold [brackets]
    )


def board_text(state: State, highlight: frozenset[int] = frozenset()) -> Text:
    """The board with coordinates, top rank first; `highlight` marks squares (a last move) with
    brackets, `[R]` or `[·]`, which read without colour too."""
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
        return Text("[·]", style="bold yellow") if marked else Text(" · ", style="dim")
    colour = game.piece_colours.get(piece)
    if colour is None:
        return Text(f"[{piece}]", style="bold reverse") if marked else Text(f" {piece} ", "bold")
    background = _RICH_NAMES.get(colour, colour)
    style = f"bold {_CONTRAST.get(colour, 'white')} on {background}"
    return Text(f"[{piece}]" if marked else f" {piece} ", style=style)


def show_position(
    console: Console,
    state: State,
    *,
    time_left: float | None = None,
    highlight: frozenset[int] = frozenset(),
) -> None:
    """Print the board (`highlight`: the last move's squares) and what a player needs to know
    about the position; a game without a board shows its position string."""
    if state.game.board_width > 0:
        console.print(board_text(state, highlight))
    else:
        console.print(state.position())
    facts = list(state.describe())
    if state.to_move not in (None, CHANCE):
        facts.append(f"{state.to_move} to move")
    if time_left is not None:
        facts.append(f"your clock: {format_clock(time_left)}")
    if facts:
        console.print(join_fitting(facts, console.width))


def format_clock(seconds: float) -> str:
    """`m:ss.t`, e.g. `4:59.9`."""
    tenths = round(max(seconds, 0.0) * 10)
    minutes, rest = divmod(tenths, 600)
    return f"{minutes}:{rest // 10:02d}.{rest % 10}"


def join_fitting(parts: Sequence[str], width: int, separator: str = " · ") -> str:
    """`parts` joined by `separator`, a new line begun where the next part would pass `width`
    columns (a part too long for a line of its own is wrapped between its words)."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(separator) + len(part) <= width:
            lines[-1] += separator + part
        else:
            lines.extend(wrap(part, width).splitlines() or [""])
    return "\n".join(lines)


def help_text(width: int) -> str:
    """What `help` prints, fitted to `width` columns: each command, and what it does in a
    column of its own, aligned however its lines wrap (a command quoted in it, such as
    `'hint 3'`, stays on one line)."""
    column = max(len(command) for command, _ in HELP) + 3
    lines = [wrap(HELP_INTRO, width)]
    for command, what in HELP:
        kept = _QUOTED.sub(lambda quoted: quoted[0].replace(" ", _NBSP), what)
        said = wrap(kept, width, indent=f"  {command}".ljust(column), hang=" " * column)
        lines.append(said.replace(_NBSP, " "))
    return "\n".join(lines)


_QUOTED = re.compile(r"'[^']*'")
_NBSP = "\N{NO-BREAK SPACE}"
"""Joins the words of a quoted command, which `textwrap` does not break at."""


_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")


def paragraphs(text: str) -> list[str]:
    """The paragraphs of a text written in lines (a game's summary of its rules): a blank line,
    or a line that ends a sentence, ends a paragraph; the other lines run on into the next."""
    found: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            current.append(line)
        if current and (not line or _SENTENCE_END.search(line)):
            found.append(" ".join(current))
            current = []
    if current:
        found.append(" ".join(current))
    return found


def changed_squares(before: State, after: State) -> frozenset[int]:
    """The squares whose content a move changed (both squares of a slide, a placed square)."""
    try:
        old, new = before.cells(), after.cells()
    except NotImplementedError:
        return frozenset()
    return frozenset(i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b)


# --- reading what a person types ------------------------------------------------------------------


class FlagFell(Exception):
    """The clock ran out while a person was typing."""


class QuitRequest(EOFError):
    """A person typed `quit`: the match stops and is kept, as at the end of the input."""


class LineReader:
    """Reads a person's lines with `input`: for input that is not a terminal (a script, a
    test), read exactly as it comes; no countdown."""

    def read(
        self, prompt: str, *, completions: Sequence[str] = (), deadline: float | None = None
    ) -> str:
        """A line typed at `prompt`; `completions` are what Tab may complete; past
        `deadline` (on the session's clock) a live reader raises [`FlagFell`][]."""
        return input(prompt)

    def ask(self, prompt: str, *, deadline: float | None = None) -> str:
        """The answer to a question (kept out of the history of moves)."""
        return input(prompt)


class LiveReader(LineReader):
    """A prompt_toolkit prompt: arrow keys and Emacs editing keys, a history (Up, Ctrl-R), Tab
    completion, and a clock counting down in the prompt that raises [`FlagFell`][] when it runs
    out, without waiting for Enter. Ctrl-C raises `KeyboardInterrupt`, Ctrl-D on an empty line
    `EOFError`."""

    def __init__(self, *, colour: bool = True, clock: Callable[[], float] | None = None) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import Completer, Completion
        from prompt_toolkit.document import Document
        from prompt_toolkit.history import InMemoryHistory
        from prompt_toolkit.output import ColorDepth
        from prompt_toolkit.shortcuts import CompleteStyle
        from prompt_toolkit.styles import Style

        self.clock = now if clock is None else clock
        self.completions: Sequence[str] = ()
        reader = self

        class Words(Completer):
            def get_completions(self, document: Document, event: Any) -> Iterator[Completion]:
                typed = document.text_before_cursor.lstrip()
                for word in reader.completions:
                    if word.lower().startswith(typed.lower()):
                        yield Completion(word, start_position=-len(typed))

        style = Style.from_dict({"clock": "bold", "clock.low": "bold ansired"} if colour else {})
        options: dict[str, Any] = {
            "style": style,
            "include_default_pygments_style": False,
            "complete_style": CompleteStyle.COLUMN if colour else CompleteStyle.READLINE_LIKE,
        }
        if not colour:
            options["color_depth"] = ColorDepth.MONOCHROME
        self._moves: PromptSession[str] = PromptSession(
            history=InMemoryHistory(), completer=Words(), complete_while_typing=False, **options
        )
        self._questions: PromptSession[str] = PromptSession(**options)

    def read(
        self, prompt: str, *, completions: Sequence[str] = (), deadline: float | None = None
    ) -> str:
        self.completions = completions
        return self._prompt(self._moves, prompt, deadline)

    def ask(self, prompt: str, *, deadline: float | None = None) -> str:
        return self._prompt(self._questions, prompt, deadline)

    def _prompt(self, session: PromptSession[str], prompt: str, deadline: float | None) -> str:
        import asyncio

        from prompt_toolkit.formatted_text import StyleAndTextTuples

        def message() -> StyleAndTextTuples:
            left = (deadline or 0.0) - self.clock()
            style = "class:clock.low" if left < 10 else "class:clock"
            return [(style, format_clock(left)), ("", " " + prompt)]

        def stop(exception: BaseException) -> None:
            if not session.app.is_done:  # not just as Enter was pressed
                session.app.exit(exception=exception)

        async def watch() -> None:
            while True:
                # a stop signal whose KeyboardInterrupt the prompt's own code lost
                if (interrupt := pending_interrupt()) is not None:
                    return stop(interrupt)
                if deadline is not None and self.clock() > deadline:
                    return stop(FlagFell())
                await asyncio.sleep(0.05)

        def start() -> None:
            session.app.create_background_task(watch())

        if deadline is None:
            text: str = session.prompt(prompt, pre_run=start, handle_sigint=False)
            return text
        if self.clock() > deadline:
            raise FlagFell()
        text = session.prompt(message, refresh_interval=0.1, pre_run=start, handle_sigint=False)
        return text


# --- what the people at one terminal share --------------------------------------------------------


class GameView:
    """The game being played as the terminal shows it: the moves so far and the last one's
    squares. [`TerminalObserver`][] keeps it; [`HumanPlayer`][] shows it."""

    def __init__(self) -> None:
        self.roles: tuple[str, ...] = ()
        self.plies: list[tuple[str | None, str, frozenset[int]]] = []
        """Every ply of the game: the role that moved (`None`: chance), the move, its squares."""

    def start(self, record: GameRecord, game: Game) -> None:
        """Begin following game `record` (with the moves it already has, when resumed)."""
        self.roles = game.roles
        self.plies = []
        state = game.from_position(record.start)
        for entry in record.moves:
            after = state.apply(entry.move)
            self.played(state, entry, after)
            state = after

    def played(self, before: State, entry: MoveRecord, after: State) -> None:
        """Note a ply."""
        role = None if entry.player is None else before.to_move
        self.plies.append((role, entry.move, changed_squares(before, after)))

    def took_back(self, count: int) -> None:
        """Forget the last `count` plies."""
        del self.plies[len(self.plies) - count :]

    @property
    def last(self) -> frozenset[int]:
        """The squares of the last move by a player (none after a pass)."""
        for role, _, squares in reversed(self.plies):
            if role is not None:
                return squares
        return frozenset()

    @property
    def moves(self) -> int:
        """How many moves the players have made (chance events not counted)."""
        return sum(role is not None for role, _, _ in self.plies)

    def numbered(self) -> list[str]:
        """The moves numbered like a chess score sheet, one number per turn of the first role:
        `["1. W@d4 d4-d7", "2. K@a1 pass"]`."""
        first = self.roles[0] if self.roles else None
        items: list[str] = []
        for role, move, _ in self.plies:
            if role is None:
                continue
            if role == first or not items:
                gap = "" if role == first else "… "
                items.append(f"{len(items) + 1}. {gap}{move}")
            else:
                items[-1] += f" {move}"
        return items


class Session:
    """One terminal where a match is played: the console, the reader of lines, the clock and the
    [`GameView`][], shared by the people's players and the observer.

    Args:
        console: where everything is printed ([`make_console`][]).
        interactive: standard input and output are a terminal: a [`LiveReader`][] reads lines,
            the clock counts down, `resign` asks for confirmation, a match pauses between games.
        reader: how lines are read (default: a [`LiveReader`][] if interactive, else
            [`LineReader`][]).
        clock: seconds, monotonic (default `time.monotonic`); give the referee the same one.
    """

    def __init__(
        self,
        console: Console,
        *,
        interactive: bool = False,
        reader: LineReader | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.console = console
        self.interactive = interactive
        self.clock = now if clock is None else clock
        if reader is None:
            colour = console.color_system is not None
            reader = LiveReader(colour=colour, clock=self.clock) if interactive else LineReader()
        self.reader = reader
        self.view = GameView()
        self.multi_game: bool | None = None
        """Whether the match has more than one game, as the [`TerminalObserver`][] saw it;
        `None` until an observer tells (then a person's seat asks the game's match rules)."""
        self.quit = False
        """Whether a person typed `quit` (the match stopped by choice, not by an interrupt)."""


def _title(role: str) -> str:
    return role[:1].upper() + role[1:]


def _say_kinds(kinds: Sequence[str]) -> str:
    return kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " or " + kinds[-1]


class HumanPlayer(Player):
    """A person typing moves and commands (`help` lists them). Typos and illegal moves get one
    line and the prompt again."""

    spec = HUMAN

    def __init__(
        self, game: Game, session: Session, *, allow_undo: bool = False, name: str = "you"
    ) -> None:
        self.game = game
        self.session = session
        self.console = session.console
        self.allow_undo = allow_undo
        self.name = name
        self._new_game = True
        self._game_number = 1

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        self._new_game = True
        self._game_number = game_number

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        session = self.session
        started = session.clock()
        deadline = None if time_left is None else started + time_left
        self._show(state, time_left)
        prompt = f"{state.to_move} ({self.name})> "
        completions = [*self._completions(state), *COMMANDS]
        while True:
            try:
                text = session.reader.read(prompt, completions=completions, deadline=deadline)
                move = self._command(text, state, deadline)
            except FlagFell:
                self.console.print("  time is up: your flag fell")
                timeout = self.game.timeout_move(state)
                return timeout if timeout is not None else state.legal_moves()[0]
            if move is not None:
                return move

    def _completions(self, state: State) -> list[str]:
        """What Tab completes to: every legal move in canonical notation, and the shorter forms
        of it the game reads as the same move (what follows a separator such as `@` or `-`,
        kept only if the game's `parse_move` gives that move back: Entropy's Chaos may type
        `d4` for `W@d4`), so a move completes from where the prompt says to start typing."""
        words: dict[str, None] = {}
        for move in state.legal_moves():
            notation = str(move)
            words[notation] = None
            for start, char in enumerate(notation[:-1]):
                if char.isalnum():
                    continue
                short = notation[start + 1 :]
                try:
                    if str(self.game.parse_move(short, state)) == notation:
                        words.setdefault(short)
                except IllegalMoveError:
                    pass
        return list(words)

    def _command(self, text: str, state: State, deadline: float | None) -> Move | None:
        """Do what `text` asks; the move it names, or `None` to read another line."""
        command = text.strip().lower()
        words = command.split()
        if not command:
            return None
        if command == "moves":
            moves = [str(m) for m in state.legal_moves()]
            listed = f"{len(moves)} legal moves: " + " ".join(moves)
            self.console.print(wrap(listed, self.console.width))
        elif command in ("help", "?"):
            self.console.print(help_text(self.console.width))
        elif command == "rules":
            summary = self.game.rules_summary() or "(this game has no summary of its rules)"
            width = self.console.width
            shown = [wrap(paragraph, width) for paragraph in paragraphs(summary)]
            self.console.print("\n".join([wrap(self.game.title or self.game.name, width), *shown]))
        elif command == "history":
            self._print_history()
        elif words[0] == "hint" and len(words) <= 2:
            self._hint(state, words[1] if len(words) == 2 else None, deadline)
        elif command in ("quit", "exit"):
            self.session.quit = True
            raise QuitRequest()
        elif command == "resign":
            if self._confirm_resign(deadline):
                raise Resign()
            self.console.print("not resigned: play on")
        elif command == "undo":
            if self.allow_undo:
                raise UndoRequest()
            self.console.print("undo is only possible in a game against bots")
        else:
            try:
                move = self.game.parse_move(text, state)
                state.apply(move)
            except IllegalMoveError as error:
                choices = self._moves_to(command, state)
                if len(choices) > 1:
                    return self._ask_which(choices, deadline)
                reason = str(error).replace(f" in {state.position()}", "")
                said = f"not played: {reason} ({self._what_to_play(state)})"
                self.console.print(wrap(said, self.console.width))
                return None
            return move
        return None

    def _moves_to(self, square: str, state: State) -> list[Move]:
        """The legal moves that a square alone may mean: those that end `@square` (Order and
        Chaos's `c3` is `X@c3` or `O@c3`)."""
        if not square.isalnum():
            return []
        return [move for move in state.legal_moves() if str(move).lower().endswith("@" + square)]

    def _ask_which(self, choices: list[Move], deadline: float | None) -> Move | None:
        """Asks which of the moves to a square is meant (`X or O?`); `None` for another line."""
        pieces = {str(move).partition("@")[0].lower(): move for move in choices}
        question = " or ".join(str(move).partition("@")[0] for move in choices) + "? "
        answer = self.session.reader.ask(question, deadline=deadline).strip().lower()
        chosen = pieces.get(answer.partition("@")[0]) if answer else None
        if chosen is None:
            self.console.print("not played: type the move again")
        return chosen

    def _show(self, state: State, time_left: float | None) -> None:
        view = self.session.view
        show_position(self.console, state, time_left=time_left, highlight=view.last)
        numbered = view.numbered()
        if numbered:
            shown = "  ".join(numbered[-3:])
            self.console.print(f"moves: {'… ' if len(numbered) > 3 else ''}{shown}")
        role = state.to_move or ""
        who = "you are" if self.name == "you" else f"{self.name} is"
        goal = self.game.goal(role)
        status = f"{who} {_title(role)}{': ' + goal if goal else ''} · {self._what_to_type(state)}"
        self.console.print(wrap(status, self.console.width))
        if self._new_game:
            self._new_game = False
            commands = f"'help' explains the commands: {', '.join(COMMANDS[:-2])}"
            self.console.print(wrap(commands, self.console.width))

    def _what_to_type(self, state: State) -> str:
        kinds = self.game.move_kinds(state)
        return f"type {_say_kinds(kinds)}" if kinds else "type a move ('moves' lists them)"

    def _what_to_play(self, state: State) -> str:
        kinds = self.game.move_kinds(state)
        if not kinds:
            return "'moves' lists the legal moves, 'help' the commands"
        return f"you can play {_say_kinds(kinds)}; 'moves' lists them"

    def _print_history(self) -> None:
        numbered = self.session.view.numbered()
        if not numbered:
            self.console.print("no move yet in this game")
        else:
            self.console.print(join_fitting(numbered, self.console.width, "  "))

    def _confirm_resign(self, deadline: float | None) -> bool:
        """Whether the person means it: always asked at a terminal (`resign this game?`, or
        `resign the whole match?` in any game of a match of several)."""
        session = self.session
        if not session.interactive:
            return True
        what = "the whole match" if self._several_games() else "this game"
        answer = session.reader.ask(f"resign {what}? y/N ", deadline=deadline)
        return answer.strip().lower() in ("y", "yes")

    def _several_games(self) -> bool:
        """Whether resigning loses a match of more than one game: as the observer saw the
        match; else from the referee's own word to this seat (a game after the first) and the
        game's match rules (a referee without the terminal's observer, which never told the
        session, must not resign a match of two games at once)."""
        told = self.session.multi_game
        if told is not None:
            return told
        if self._game_number > 1:
            return True
        return not isinstance(self.game.new_match(), SingleGameMatch)

    def _hint(self, state: State, seconds_text: str | None, deadline: float | None) -> None:
        from .registry import HINT_SECONDS, MAX_HINT_SECONDS, NoHint, hint

        seconds = HINT_SECONDS
        if seconds_text is not None:
            try:
                seconds = float(seconds_text)
            except ValueError:
                seconds = -1.0
            if not 0 < seconds <= MAX_HINT_SECONDS:  # NaN too
                self.console.print(
                    f"hint SECONDS: a number of seconds above 0, at most {MAX_HINT_SECONDS:g}"
                )
                return
        time_left = None if deadline is None else deadline - self.session.clock()
        try:
            found = hint(state, seconds, time_left=time_left)
        except NoHint as refused:
            self.console.print(str(refused))
            return
        about = f" ({found.summary})" if found.summary else ""
        self.console.print(
            f"hint: the search bot would play {found.move}{about} — a learning aid; "
            "nothing is recorded"
        )


# --- the commentary -------------------------------------------------------------------------------


class TerminalObserver(Observer):
    """Tells the people at the terminal what happens and keeps the session's [`GameView`][].
    `verbose` also shows every move (always so when a person plays).

    Moves made for a player out of time (Entropy's live timeout) are not shown one by one: the
    game's end sums them up in one line.
    """

    def __init__(self, session: Session, players: tuple[Player, Player], *, verbose: bool) -> None:
        self.session = session
        self.console = session.console
        self.players = players
        self.verbose = verbose
        self._auto: dict[int, list[str]] = {}
        """The moves made for each player out of time in this game."""
        self._meanwhile: dict[int, int] = {}
        """The moves of the other players since a player ran out of time."""

    def _name(self, player: int) -> str:
        return f"player {player} ({self.players[player - 1].spec})"

    def _you(self, player: int) -> str:
        humans = [p for p in self.players if isinstance(p, HumanPlayer)]
        return "you" if humans == [self.players[player - 1]] else self._name(player)

    def game_started(self, record: GameRecord, state: State, match: Match) -> None:
        self.session.view.start(record, state.game)
        self.session.multi_game = not isinstance(match, SingleGameMatch)
        self._auto, self._meanwhile = {}, {}
        for entry in record.moves:
            if entry.player is not None and entry.auto:
                self._auto.setdefault(entry.player, []).append(entry.move)
        seats = ", ".join(f"{self._name(p)} is {match.role_of(p)}" for p in (1, 2))
        played = sum(entry.player is not None for entry in record.moves)
        resumed = f", resumed after {counted(played, 'move')}" if played else ""
        self._say(f"— game {record.number}: {seats}{resumed}")

    def turn_started(self, state: State, player: int, clocks: tuple[float | None, ...]) -> None:
        people = [p for p in self.players if isinstance(p, HumanPlayer)]
        if people and self.players[player - 1] not in people:
            return  # a person sees both clocks at their own turn
        if self.verbose and not self._auto and all(c is not None for c in clocks):
            shown = " · ".join(
                f"player {p}: {format_clock(c)}"
                for p, c in enumerate(clocks, start=1)
                if c is not None
            )
            self.console.print(f"  clocks — {shown}")

    def move_played(self, before: State, move: Move, entry: MoveRecord, after: State) -> None:
        self.session.view.played(before, entry, after)
        player = entry.player
        if player is not None and entry.auto:
            self._auto.setdefault(player, []).append(entry.move)
            return
        if self._auto:
            if player is not None:
                self._meanwhile[player] = self._meanwhile.get(player, 0) + 1
            return
        if not self.verbose:
            return
        if player is None:
            self.console.print(f"  drawn: {move}")
        else:
            self.console.print(f"  {self._name(player)} plays {move}")

    def moves_taken_back(self, state: State, count: int) -> None:
        view = self.session.view
        taken = sum(role is not None for role, _, _ in view.plies[len(view.plies) - count :])
        view.took_back(count)
        self._say(f"took back {counted(taken, 'move')}", indent="  ")

    def notice(self, text: str) -> None:
        self._say(text, indent="  ")

    def _say(self, text: str, *, indent: str = "") -> None:
        """Print a line of commentary, wrapped between words to the console's width (a line
        after the first indented as the first)."""
        self.console.print(wrap(text, self.console.width, indent=indent, hang=indent))

    def game_ended(self, record: GameRecord, state: State, match: Match) -> None:
        for player, moves in sorted(self._auto.items()):
            others = ", ".join(
                f"{count} by {self._name(other)}"
                for other, count in sorted(self._meanwhile.items())
                if other != player
            )
            meanwhile = f"; {others} meanwhile" if others else ""
            self._say(
                f"{counted(len(moves), 'move')} played for {self._you(player)} (out of time): "
                f"{_summary(moves)}{meanwhile}",
                indent="  ",
            )
        if record.outcome is not None:
            if self.verbose:
                show_position(self.console, state, highlight=self.session.view.last)
            said = state.game.describe_outcome(record.outcome)
            self._say(f"— game {record.number} over: {said}")
        following = match.game_number
        people = any(isinstance(p, HumanPlayer) for p in self.players)
        if following is not None and people and self.session.interactive:
            self.session.reader.ask(f"press Enter for game {following} ")

    def match_ended(self, record: MatchRecord) -> None:
        result = record.result
        assert result is not None
        people = [p for p in (1, 2) if isinstance(self.players[p - 1], HumanPlayer)]
        if len(people) != 1:
            winner = "a draw" if result.winner is None else f"{self._name(result.winner)} wins"
            self._say(f"Result: {winner} — {result.reason}")
            return
        you, other = people[0], 3 - people[0]
        them = self.players[other - 1].spec
        reason = _SEAT.sub(lambda seat: "you" if seat[1] == str(you) else them, result.reason)
        if result.winner is None:
            winner = "a draw"
        else:
            winner = "you win" if result.winner == you else f"{them} wins"
        self._say(f"Result: {winner} — {reason}")


_SEAT = re.compile(r"\bplayer ([12])\b(?: \([^)]*\))?")
"""A seat named in a result's reason (`player 1`, `player 2 (greedy)`)."""


def _summary(moves: list[str]) -> str:
    """Moves in a few words: `pass ×23`, or the list, shortened in the middle."""
    if len(set(moves)) == 1 and len(moves) > 1:
        return f"{moves[0]} ×{len(moves)}"
    if len(moves) <= 10:
        return " ".join(moves)
    return " ".join(moves[:8]) + " … " + moves[-1]
