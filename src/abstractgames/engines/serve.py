"""Our bots as external programs: behind the engine protocol, or as a CodeCup Entropy program.

:func:`serve` answers the abstractgames engine protocol (:mod:`.agp`) on a pair of streams, so that
``abstractgames engine`` makes any player an engine that plays exactly as it does in-process;
:func:`serve_codecup` plays one game of 7×7 Entropy in the CodeCup 2023 protocol
(:mod:`.codecup_entropy`), behind ``abstractgames codecup``. The player is named by a spec, as
everywhere (:func:`abstractgames.make_player`).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable
from typing import TextIO

from ..entropy import CHAOS, ORDER, Draw, EntropyGame, EntropyState, Placement
from ..players import Player, SeededRandom
from ..protocol import AbstractGamesError, Game, State
from ..registry import make_player, parse_game_spec
from .agp import PROTOCOL_VERSION, parse_go, parse_position
from .codecup_entropy import (
    QUIT,
    SIZE,
    START,
    cell_name,
    colour_of,
    decode_chaos_move,
    decode_order_move,
    encode_order_move,
)
from .external import quote

__all__ = ["serve", "serve_codecup"]


# --- the engine protocol ------------------------------------------------------------------------


class _Server:
    """The state of one engine session: the game, the bot, the position."""

    def __init__(
        self, fixed_game: Game | None, player_spec: str, output: TextIO, rng: random.Random
    ) -> None:
        self.fixed_game = fixed_game
        self.player_spec = player_spec
        self.output = output
        self.rng = rng
        self.game: Game | None = None
        self.player: Player | None = None
        self.state: State | None = None

    def say(self, line: str) -> None:
        self.output.write(line + "\n")
        self.output.flush()

    def handle(self, line: str) -> bool:
        """Answer one command; ``False`` after ``quit``."""
        command, _, argument = line.strip().partition(" ")
        argument = argument.strip()
        if not command:
            return True
        if command == "quit":
            return False
        handler = getattr(self, f"do_{command}", None)
        if handler is None:
            self.say(f"error unknown command {quote(command)}")
            return True
        try:
            handler(argument)
        except (AbstractGamesError, ValueError) as error:
            self.say(f"error {' '.join(str(error).split())}")
        return True

    def do_agp(self, argument: str) -> None:
        if argument != str(PROTOCOL_VERSION):
            raise ValueError(f"this engine speaks protocol version {PROTOCOL_VERSION}")
        self.say(f"id name abstractgames {self.player_spec}")
        self.say("id author abstractgames")
        self.say("agpok")

    def do_game(self, argument: str) -> None:
        game = parse_game_spec(argument)
        if self.fixed_game is not None and game != self.fixed_game:
            raise ValueError(f"this engine plays {self.fixed_game.spec}, not {game.spec}")
        if self.player is not None:
            self.player.close()
        self.player = make_player(self.player_spec, game)
        self.game, self.state = game, None
        self.say("gameok")

    def do_isready(self, argument: str) -> None:
        self.say("readyok")

    def do_newgame(self, argument: str) -> None:
        self.state = None

    def do_position(self, argument: str) -> None:
        game = self._game()
        self.state = None
        start, moves = parse_position(argument)
        state = game.initial_state() if start is None else game.from_position(start)
        for move in moves:
            state = state.apply(game.parse_move(move, state))
        self.state = state

    def do_go(self, argument: str) -> None:
        self._game()
        options = parse_go(argument)
        state, player = self.state, self.player
        if state is None or player is None:
            raise ValueError("no position: send 'position' before 'go'")
        if state.is_terminal() or state.is_chance():
            what = "the game is over" if state.is_terminal() else "a chance event is due"
            raise ValueError(f"no move to make in {state.position()}: {what}")
        rng = SeededRandom(options["seed"]) if "seed" in options else self.rng
        time_left = float(options["time"]) if "time" in options else None
        move = player.choose(state, rng, time_left)
        self.say(f"move {move}")

    def _game(self) -> Game:
        if self.game is None:
            raise ValueError("no game: send 'game <spec>' first")
        return self.game


def serve(
    player_spec: str,
    lines: Iterable[str],
    output: TextIO,
    *,
    game: Game | None = None,
    rng: random.Random | None = None,
) -> int:
    """Be an engine: read protocol commands from ``lines``, answer on ``output``, return 0.

    Args:
        player_spec: the bot that chooses the moves (a spec for ``make_player``).
        lines: the referee's commands (e.g. standard input).
        output: where the answers go (flushed after every line).
        game: the only game to accept; any game the referee names if ``None``.
        rng: the generator for every ``go`` without a seed (a ``go ... seed S`` uses
            ``random.Random(S)``, as the referee's generator labelled ``S``).
    """
    server = _Server(game, player_spec, output, rng or random.Random())
    try:
        for line in lines:
            if not server.handle(line):
                break
    finally:
        if server.player is not None:
            server.player.close()
    return 0


# --- the CodeCup protocol -------------------------------------------------------------------------


class _Unreadable(Exception):
    """The referee sent something this program cannot read or play."""


def serve_codecup(
    player_spec: str, lines: Iterable[str], output: TextIO, *, rng: random.Random | None = None
) -> int:
    """Be a CodeCup Entropy program: play one game with ``player_spec`` choosing the moves.

    Reads ``Start`` (then it is Chaos) or Chaos's first move (then it is Order) to learn its role,
    answers each turn on ``output``, and returns 0 on ``Quit`` or at the end of the input. Input it
    cannot read or play is reported on standard error and ends the program with status 1.

    Args:
        player_spec: the bot, as for :func:`~abstractgames.players.make_player`.
        lines: the referee's lines (e.g. standard input).
        output: where the moves go (flushed after every line).
        rng: the bot's generator (a fresh one if ``None``).
    """
    game = EntropyGame(SIZE)
    player = make_player(player_spec, game)
    try:
        _CodecupGame(game, player, lines, output, rng or random.Random()).play()
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
    ) -> None:
        self.player = player
        self.lines = iter(lines)
        self.output = output
        self.rng = rng
        self.state: EntropyState = game.initial_state()
        self.last_placed = 0

    def read(self) -> str | None:
        """The next non-blank line, or ``None`` at ``Quit`` or the end of the input."""
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
                raise _Unreadable(f"cannot play {line!r}: {error}") from None
            if self.state.to_move == role:
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
            self.state = self.state.apply(Draw(colour_of(line)))
        else:
            self.state = self.state.apply(decode_order_move(line))

    def move(self) -> None:
        move = self.player.choose(self.state, self.rng, None)
        after = self.state.apply(move)
        if isinstance(move, Placement):
            text = cell_name(move.square)
        else:
            text = encode_order_move(move, self.last_placed)
        self.output.write(text + "\n")
        self.output.flush()
        self.state = after
