"""The CodeCup 2023 protocol of Solomon's Entropy, both ways: seat a CodeCup program, or be one.

The 2023 CodeCup played Solomon's 7×7 Entropy; its programs read and write one item per line:

- a cell is a row letter `A`–`G` and a column letter `a`–`g`: row `A`..`G` is rank 1..7, column
  `a`..`g` is file a..g, so `Bc` is `c2`;
- a colour is a digit `1`–`7` in the colour order W K Y G R B P;
- Chaos reads `Start` first, then for each of its turns the colour it must place (`3`), and
  answers a cell (`Bc`); it also reads each of Order's moves;
- Order reads Chaos's move as colour and cell (`3Bc`), and answers a slide as two cells
  (`BcBg`) or a pass as one cell twice (`BcBc`);
- at the end of a game, and after an illegal move, the program reads `Quit` and must exit.

A pass is accepted as any cell twice, empty or not; a pass is sent as the cell of the counter
Chaos has just placed, twice. [`CodecupClient`][] is the referee's side of the lines,
[`CodecupPlayer`][] the player that translates a game into them (`codecup:COMMAND`), and
[`serve_codecup`][] the program's side: one of our players as a CodeCup program
(`abstractgames codecup`).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from ..entropy import CHAOS, COLOURS, ORDER, PASS, Draw, EntropyGame, EntropyState, Placement, Slide
from ..players import InvalidPlayerError, Player
from ..protocol import (
    AbstractGamesError,
    Game,
    InvalidMoveError,
    InvalidParameterError,
    Move,
    State,
)
from ..text import excerpt, quote
from .external import (
    MESSAGE_LIMIT,
    QUIT_GRACE,
    EngineFailure,
    ExternalPlayer,
    check_running,
    make_external_player,
    receive_line,
    send_line,
    unread_lines,
)
from .process import Process

__all__ = [
    "COLUMNS",
    "QUIT",
    "ROWS",
    "SIZE",
    "START",
    "CodecupClient",
    "CodecupPlayer",
    "cell_name",
    "check_codecup_game",
    "codecup_player",
    "colour_digit",
    "decode_chaos_move",
    "decode_order_move",
    "encode_chaos_move",
    "encode_order_move",
    "parse_cell",
    "serve_codecup",
]

START = "Start"
"""The first line Chaos's program reads."""
QUIT = "Quit"
"""The line that ends a program's game."""
SIZE = 7
"""The only board size the CodeCup played."""
ROWS = "ABCDEFG"
"""The CodeCup's row letters, rank 1 first."""
COLUMNS = "abcdefg"
"""The CodeCup's column letters, file a first."""


def check_codecup_game(game: Game) -> EntropyGame:
    """`game` if it is 7×7 Entropy, the only game the CodeCup protocol plays.

    Raises:
        InvalidParameterError: any other game or size.
    """
    if not isinstance(game, EntropyGame) or game.size != SIZE:
        raise InvalidParameterError(
            f"the CodeCup protocol plays Entropy on the 7×7 board only, not {game.spec}"
        )
    return game


def cell_name(square: int) -> str:
    """The CodeCup name of a square: row letter (rank) then column letter (file); c2 is `Bc`."""
    return ROWS[square // SIZE] + COLUMNS[square % SIZE]


def parse_cell(text: str) -> int:
    """The square of a CodeCup cell name such as `Bc` (row then column, either case).

    Raises:
        InvalidMoveError: not a cell name.
    """
    if len(text) != 2 or text[0].upper() not in ROWS or text[1].lower() not in COLUMNS:
        raise InvalidMoveError(f"{text!r} is not a CodeCup cell (row A-G, column a-g, e.g. 'Bc')")
    return ROWS.index(text[0].upper()) * SIZE + COLUMNS.index(text[1].lower())


def colour_digit(colour: str) -> str:
    """The CodeCup digit of a colour letter: W is `1` … P is `7`."""
    return str(COLOURS.index(colour) + 1)


def _colour_of(digit: str) -> str:
    if len(digit) != 1 or not "1" <= digit <= "7":
        raise InvalidMoveError(f"{digit!r} is not a CodeCup colour (a digit 1-7)")
    return COLOURS[int(digit) - 1]


def encode_chaos_move(move: Placement) -> str:
    """Chaos's move as Order reads it: colour digit and cell, e.g. `3Bc` for `Y@c2`."""
    return colour_digit(move.colour) + cell_name(move.square)


def decode_chaos_move(text: str) -> tuple[str, int]:
    """`(colour letter, square)` of a Chaos move written as `3Bc`.

    Raises:
        InvalidMoveError: not a colour digit and a cell.
    """
    body = text.strip()
    if len(body) != 3:
        raise InvalidMoveError(f"{text!r} is not a CodeCup Chaos move (a colour and a cell: '3Bc')")
    return _colour_of(body[0]), parse_cell(body[1:])


def encode_order_move(move: Move, last_placed: int) -> str:
    """Order's move as two cells: a slide `BcBg`, a pass the cell `last_placed` twice."""
    if isinstance(move, Slide):
        return cell_name(move.origin) + cell_name(move.target)
    if move == PASS:
        return cell_name(last_placed) * 2
    raise InvalidMoveError(f"{move} is not a move of Order")


def decode_order_move(text: str) -> Move:
    """Order's move from two cells: the same cell twice (any cell) is a pass, else a slide.

    Raises:
        InvalidMoveError: not two cells.
    """
    body = text.strip()
    if len(body) != 4:
        raise InvalidMoveError(f"{text!r} is not a CodeCup Order move (two cells: 'BcBg')")
    origin, target = parse_cell(body[:2]), parse_cell(body[2:])
    return PASS if origin == target else Slide(origin, target)


# --- the referee's side ---------------------------------------------------------------------------


class CodecupClient:
    """Talks to a CodeCup program in `process` for one game.

    Args:
        process: the running program (started for this game only).
        timeout: seconds it has to read what it is sent.
    """

    def __init__(self, process: Process, timeout: float) -> None:
        self.process = process
        self.timeout = timeout

    def tell(self, lines: Iterable[str]) -> None:
        """Send lines, first checking that the program wrote nothing since its last answer."""
        self.check_quiet()
        for line in lines:
            send_line(self.process, line, self.timeout)

    def answer(self, limit: float) -> str:
        """The program's next line (its move), waiting `limit` seconds at most."""
        return receive_line(self.process, time.monotonic() + limit, limit).strip()

    def check_quiet(self) -> None:
        """Fail if the program wrote a line when no move was expected, or exited."""
        lines = unread_lines(self.process)
        if lines:
            raise EngineFailure(f"sent {quote(lines[0])} when no move was expected")
        check_running(self.process)

    def quit(self, grace: float) -> None:
        """Send `Quit` and give the program `grace` seconds to exit before it is killed."""
        self.process.stop(QUIT, grace)


# --- the player -----------------------------------------------------------------------------------


class CodecupPlayer(ExternalPlayer):
    """A program speaking the CodeCup 2023 Entropy protocol (7×7 Entropy only).

    A fresh process plays each game, as at the CodeCup; it reads `Quit` when the game is over.
    The protocol cannot set up a position or take a move back, so the program must see its game
    from the start: it cannot take over a game (one resumed from a record, or after an undo) in
    which its side has already moved, nor a game the hooks did not tell it from the start;
    asking it to raises [`AbstractGamesError`][].
    """

    kind = "codecup"
    supports_undo = False

    def __init__(self, game: Game, argv: Sequence[str], **options: Any) -> None:
        try:
            check_codecup_game(game)
        except AbstractGamesError as error:
            raise InvalidPlayerError(str(error)) from None
        super().__init__(game, argv, **options)
        self._client: CodecupClient | None = None
        self._seen: list[Move] = []  # the moves of the game as the running program knows them

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        self._stop_program()
        super().game_started(seat, game_number, start)

    def game_ended(self, state: State) -> None:
        self._stop_program()

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        assert isinstance(state, EntropyState)
        role = state.to_move
        told = bool(self.states) and self.states[-1] == state
        if self._client is not None and not (told and self.moves[: len(self._seen)] == self._seen):
            self._stop_program()  # its game is no longer this one (moves were taken back)
        if self._client is None and not (
            told
            and self.states[0] == self.game.initial_state()
            and all(before.to_move != role for before in self.states[:-1])
        ):
            raise _CannotJoin(
                "a CodeCup program plays games from their start only: it cannot join a game in "
                "progress or take moves back"
            )
        try:
            if self._client is None:
                self._client = CodecupClient(self._start(), self.timeout)
                self._seen = []
                if role == CHAOS:
                    self._client.tell([START])
            self._client.tell(self._news(role))
            text = self._client.answer(self.limit(time_left))
        except EngineFailure as failure:
            raise self._failed(str(failure)) from None
        move, why = self._read_move(text, state)
        if move is None:
            raise self._illegal(text, why)
        self._seen = [*self.moves, move]
        return move

    def _news(self, role: str | None) -> list[str]:
        """What happened since the program's last move, in its lines."""
        lines = []
        moves = self.moves
        for index in range(len(self._seen), len(moves)):
            move = moves[index]
            if isinstance(move, Draw):
                if role == CHAOS:
                    lines.append(colour_digit(move.colour))
            elif isinstance(move, Placement):
                if role == ORDER:
                    lines.append(encode_chaos_move(move))
            elif role == CHAOS:
                placed = next(m for m in reversed(moves[:index]) if isinstance(m, Placement))
                lines.append(encode_order_move(move, placed.square))
        return lines

    def _read_move(self, text: str, state: EntropyState) -> tuple[Move | None, str]:
        """The move `text` stands for and `""`, or `None` and why it is illegal."""
        try:
            if state.to_move == CHAOS:
                assert state.drawn is not None
                move: Move = Placement(state.drawn, parse_cell(text))
            else:
                move = decode_order_move(text)
        except AbstractGamesError as error:
            return None, str(error)
        try:
            state.apply(move)
        except AbstractGamesError as error:
            return None, str(error)
        return move, ""

    def _stop_program(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            client.quit(QUIT_GRACE)


class _CannotJoin(AbstractGamesError):
    """A CodeCup program asked to play from the middle of a game."""


def codecup_player(game: Game, argument: str) -> Player:
    """codecup:[OPTIONS:]COMMAND: a CodeCup 2023 Entropy program (7×7 Entropy only)."""
    return make_external_player("codecup", CodecupPlayer, game, argument)


# --- the program's side ---------------------------------------------------------------------------


class _Unreadable(Exception):
    """The referee sent something this program cannot read or play."""


def serve_codecup(
    make_player: Callable[[Game], Player],
    lines: Iterable[str],
    output: TextIO,
    *,
    rng: random.Random | None = None,
    clock: float | None = None,
) -> int:
    """Be a CodeCup Entropy program: play one game with the player `make_player` makes.

    Reads `Start` (then it is Chaos) or Chaos's first move (then it is Order) to learn its role,
    answers each turn on `output`, and returns 0 on `Quit` or at the end of the input. Input it
    cannot read or play is reported on standard error and ends the program with status 1.

    Args:
        make_player: makes the player that chooses the moves, for 7×7 Entropy
            (`abstractgames codecup` passes the registry's `make_player` with a spec).
        lines: the referee's lines (e.g. standard input).
        output: where the moves go (flushed after every line).
        rng: the bot's generator (a fresh one if `None`).
        clock: the program's thinking time for the whole game, in seconds (the contest runs
            under such a clock), or `None` for none: with a clock, the time spent from reading
            each turn to answering it is counted, and the player is told what is left, so that
            a search shares it out over the game (see
            [`phase_budget`][abstractgames.timing.phase_budget]).
    """
    game = EntropyGame(SIZE)
    player = make_player(game)
    try:
        _CodecupGame(game, player, lines, output, rng or random.Random(), clock).play()
    except _Unreadable as problem:
        print(f"abstractgames codecup: {problem}", file=sys.stderr)
        return 1
    finally:
        player.close()
    return 0


class _CodecupGame:
    """One game as a CodeCup program."""

    def __init__(
        self,
        game: EntropyGame,
        player: Player,
        lines: Iterable[str],
        output: TextIO,
        rng: random.Random,
        clock: float | None = None,
    ) -> None:
        self.player = player
        self.time_left = clock
        self.turn_started = 0.0
        self.lines = iter(lines)
        self.output = output
        self.rng = rng
        self.state: EntropyState = game.initial_state()
        self.last_placed = 0

    def read(self) -> str | None:
        """The next non-blank line, or `None` at `Quit` or the end of the input."""
        for raw in self.lines:
            line = raw.strip()
            if line == QUIT:
                return None
            if line:
                return line
        return None

    def play(self) -> None:
        first = self.read()
        if first is None:
            return
        role = CHAOS if first == START else ORDER
        pending = None if first == START else first
        while not self.state.is_terminal():
            line = pending if pending is not None else self.read()
            pending = None
            if line is None:
                return
            try:
                self.take(line, role)
            except AbstractGamesError as error:
                why = excerpt(error, MESSAGE_LIMIT)
                raise _Unreadable(f"cannot play {quote(line)}: {why}") from None
            if self.state.to_move == role:
                self.turn_started = time.monotonic()
                self.move()
        while self.read() is not None:  # the game is over: wait for Quit or the end
            pass

    def take(self, line: str, role: str) -> None:
        """Apply what the referee tells: a colour to place, or the opponent's move."""
        if role == ORDER:
            colour, square = decode_chaos_move(line)
            self.state = self.state.apply(Draw(colour)).apply(Placement(colour, square))
            self.last_placed = square
        elif self.state.is_chance():
            self.state = self.state.apply(Draw(_colour_of(line)))
        else:
            self.state = self.state.apply(decode_order_move(line))

    def move(self) -> None:
        move = self.player.choose(self.state, self.rng, self.time_left)
        after = self.state.apply(move)
        if isinstance(move, Placement):
            text = cell_name(move.square)
        else:
            text = encode_order_move(move, self.last_placed)
        self.output.write(text + "\n")
        self.output.flush()
        if self.time_left is not None:
            self.time_left -= time.monotonic() - self.turn_started
        self.state = after
