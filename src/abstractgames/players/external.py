"""Players that are external programs: ``engine:COMMAND`` and ``codecup:COMMAND``.

``engine:COMMAND`` runs a program that speaks the abstractgames engine protocol (any game, see
``docs/engines.md``); ``codecup:COMMAND`` one that speaks the CodeCup 2023 Entropy protocol
(7×7 Entropy only, see ``docs/codecup.md``). The command is split like a shell would (``shlex``)
but never run through one. Options go between the name and the command,
``engine:timeout=5,grace=1:./bot`` (write ``engine::CMD`` if the command itself starts with
``NAME=`` and holds a colon):

- ``timeout``: seconds the program has to answer without a clock, and to start up (default 30);
- ``grace``: with a clock, seconds past its time left before the program counts as hung (default 2);
- ``log``: the directory for the program's error output (default: the temporary directory).

A program that crashes, hangs, writes what the protocol does not allow, or plays an illegal move
loses the match: ``choose`` raises :class:`~abstractgames.referee.PlayerFailed` saying what
happened, e.g. ``player 2 exited with status 1``, naming the log file when the program wrote to its
standard error. The program's whole process group is killed and reaped whatever happens.

The referee tells a player the whole game through the :class:`~abstractgames.players.Player` hooks
(chance events and both players' moves, also for a game resumed from a record), and the player tells
its program the game so far. Without the hooks (``choose`` called alone) an engine is sent only the
position it is asked about, and a CodeCup program cannot play. An engine is sent the label of the
:class:`~abstractgames.players.SeededRandom` handed to ``choose`` as its seed; a generator without
a label (or with one that is not a single printable word) sends none.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shlex
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..engines.codecup import (
    START,
    CodecupClient,
    check_codecup_game,
    colour_digit,
    decode_order_move,
    encode_chaos_move,
    encode_order_move,
    parse_cell,
)
from ..engines.process import Process, ProcessError
from ..engines.protocol import (
    EngineClient,
    EngineFailure,
    EngineResigned,
    is_seed_token,
    quote,
)
from ..entropy import CHAOS, ORDER, Draw, EntropyState, Placement
from ..protocol import AbstractGamesError, Game, Move, State
from ..referee import PlayerFailed, Resign
from . import InvalidPlayerError, Player, SeededRandom, takes_raw_argument

__all__ = [
    "DEFAULT_GRACE",
    "DEFAULT_TIMEOUT",
    "QUIT_GRACE",
    "CodecupPlayer",
    "EnginePlayer",
    "ExternalPlayer",
    "codecup_player",
    "engine_player",
    "parse_command",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds a program has to answer when no clock runs (and to start up)."""
DEFAULT_GRACE = 2.0
"""With a clock: seconds past its time left before a program that has not answered is hung."""
QUIT_GRACE = 1.0
"""Seconds a program has to exit after ``quit`` before it is killed."""

_OPTIONS = re.compile(r"^\s*[A-Za-z_]\w*\s*=")


def parse_command(kind: str, argument: str) -> tuple[dict[str, str], list[str]]:
    """Split ``[OPTIONS:]COMMAND`` into ``({option: value}, argv)``.

    Raises:
        InvalidPlayerError: no command, unbalanced quotes, or a bad option.
    """
    text = argument.strip()
    options: dict[str, str] = {}
    head, colon, rest = text.partition(":")
    if text.startswith(":"):
        text = rest
    elif colon and _OPTIONS.match(head):
        for item in filter(None, (part.strip() for part in head.split(","))):
            key, eq, value = item.partition("=")
            if not eq:
                raise InvalidPlayerError(f"bad option {item!r} for {kind}: use key=value")
            options[key.strip()] = value.strip()
        text = rest
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise InvalidPlayerError(f"cannot read the {kind} command {text!r}: {error}") from None
    if not argv:
        raise InvalidPlayerError(f"give the command to run, e.g. '{kind}:./mybot --fast'")
    return options, argv


def _player_options(kind: str, options: dict[str, str]) -> dict[str, Any]:
    """The keyword arguments of :class:`ExternalPlayer` from the spec's options."""
    unknown = sorted(set(options) - {"timeout", "grace", "log"})
    if unknown:
        raise InvalidPlayerError(
            f"{kind} has no option {', '.join(map(repr, unknown))}; "
            "its options: timeout, grace, log"
        )
    result: dict[str, Any] = {}
    for name, positive in (("timeout", True), ("grace", False)):
        if name in options:
            try:
                value = float(options[name])
            except ValueError:
                value = float("nan")
            if not (value > 0 if positive else value >= 0) or value == float("inf"):
                need = "a positive" if positive else "a non-negative"
                raise InvalidPlayerError(
                    f"{kind} option {name}={options[name]} must be {need} number of seconds"
                )
            result[name] = value
    if options.get("log"):
        result["log_dir"] = options["log"]
    return result


def _check_program(kind: str, program: str) -> None:
    if os.sep in program or (os.altsep and os.altsep in program):
        found = os.path.isfile(program) and os.access(program, os.X_OK)
    else:
        found = shutil.which(program) is not None
    if not found:
        raise InvalidPlayerError(f"{kind}: cannot run {program!r}: no such program")


# --- the players ----------------------------------------------------------------------------------


class ExternalPlayer(Player):
    """A player whose moves come from a program; subclasses speak its protocol.

    The game so far comes from the :class:`~abstractgames.players.Player` hooks, which the referee
    calls.

    Args:
        game: the game.
        argv: the program and its arguments.
        timeout: seconds the program has to answer without a clock (and to start).
        grace: with a clock, seconds past the time left before the program counts as hung.
        log_dir: the directory for the error-output logs (default: the temporary directory).

    Attributes:
        seat: the player's number (1 or 2) in the match, from :meth:`game_started`; ``None``
            before, and messages then name "the engine program" instead of "player 2".
        states: the positions of the current game, its start first.
        moves: the moves of the current game (chance events included); ``states[i + 1]`` is
            ``states[i]`` after ``moves[i]``.
        logs: the log file of every program started so far (empty ones are deleted at the end).
    """

    kind = "external"

    def __init__(
        self,
        game: Game,
        argv: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        grace: float = DEFAULT_GRACE,
        log_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.game = game
        self.argv = list(argv)
        self.timeout = timeout
        self.grace = grace
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.seat: int | None = None
        self.states: list[State] = []
        self.moves: list[Move] = []
        self.logs: list[Path] = []

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        self.seat = seat
        self._restart(start)

    def move_played(self, move: Move, state: State) -> None:
        self.moves.append(move)
        self.states.append(state)

    def moves_taken_back(self, state: State) -> None:
        for index in range(len(self.states) - 2, -1, -1):
            if self.states[index] == state:
                del self.states[index + 1 :], self.moves[index:]
                return
        self._restart(state)

    def _restart(self, start: State) -> None:
        """Begin a new history at ``start``."""
        self.states, self.moves = [start], []

    def limit(self, time_left: float | None) -> float:
        """Seconds to wait for a move: the time left plus the grace, or the timeout."""
        return self.timeout if time_left is None else max(time_left, 0.0) + self.grace

    def _start(self) -> Process:
        label = re.sub(r"[^A-Za-z0-9._-]", "_", Path(self.argv[0]).name) or "program"
        directory = self.log_dir or Path(tempfile.gettempdir())
        try:
            directory.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(
                prefix=f"abstractgames-{self.kind}-{label}-", suffix=".log", dir=directory
            )
        except OSError as error:
            raise PlayerFailed(
                f"{self._who()} could not be started: cannot write its log in "
                f"{str(directory)!r}: {error.strerror or error}"
            ) from None
        os.close(handle)
        log = Path(name)
        self.logs.append(log)
        try:
            return Process(self.argv, log_path=log)
        except ProcessError as error:
            raise PlayerFailed(f"{self._who()} {error}") from None

    def _who(self) -> str:
        return f"the {self.kind} program" if self.seat is None else f"player {self.seat}"

    def _failure(self, message: str) -> PlayerFailed:
        """Stop the program; the failure to raise, naming the log if the program wrote to it."""
        self._stop_program()
        log = self.logs[-1] if self.logs else None
        with contextlib.suppress(OSError):
            if log is not None and log.stat().st_size > 0:
                message += f"; its error output is in {log}"
        return PlayerFailed(message)

    def _failed(self, what: str) -> PlayerFailed:
        return self._failure(f"{self._who()} {what}")

    def _illegal(self, text: str, why: str) -> PlayerFailed:
        return self._failure(f"illegal move {quote(text)} by {self._who()}: {why}")

    def _stop_program(self) -> None:
        """Make the program quit (or kill it); nothing if none runs."""

    def close(self) -> None:
        """Tell the program to quit, kill it if it does not, and delete empty logs."""
        self._stop_program()
        for log in self.logs:
            with contextlib.suppress(OSError):
                if log.stat().st_size == 0:
                    log.unlink()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {shlex.join(self.argv)!r}>"


class EnginePlayer(ExternalPlayer):
    """A program speaking the abstractgames engine protocol, for any game.

    One process plays the whole match; it is started at the first move it is asked for. Each
    request tells it the whole game so far, and, when the generator handed to :meth:`choose` is a
    :class:`~abstractgames.players.SeededRandom` (the referee's always are), its label as the
    seed, so ``abstractgames engine`` runs our bots exactly as in-process. Asked about a position
    that is not the last one the hooks told (``choose`` called without a referee), it sends that
    position alone, as a new game.
    """

    kind = "engine"

    def __init__(self, game: Game, argv: Sequence[str], **options: Any) -> None:
        super().__init__(game, argv, **options)
        self._client: EngineClient | None = None
        self._new_game = True
        self.engine_name: str | None = None
        """The name the engine gave in the handshake (``id name``), once started."""

    def _restart(self, start: State) -> None:
        super()._restart(start)
        self._new_game = True

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if not self.states or self.states[-1] != state:
            self._restart(state)
        start = None if self.states[0] == self.game.initial_state() else self.states[0].position()
        label = rng.label if isinstance(rng, SeededRandom) else None
        try:
            if self._client is None:
                self._client = EngineClient(self._start(), self.timeout)
                self._client.handshake(self.game)
                self.engine_name = self._client.name
                self._new_game = True
            if self._new_game:
                self._client.new_game()
                self._new_game = False
            text = self._client.request_move(
                start,
                [str(move) for move in self.moves],
                time_left=time_left,
                limit=self.limit(time_left),
                seed=label if label is not None and is_seed_token(label) else None,
            )
        except EngineResigned:
            raise Resign() from None
        except EngineFailure as failure:
            raise self._failed(str(failure)) from None
        try:
            move = self.game.parse_move(text, state)
            state.apply(move)
        except AbstractGamesError as error:
            raise self._illegal(text, str(error)) from None
        return move

    def _stop_program(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            client.quit(QUIT_GRACE)


class CodecupPlayer(ExternalPlayer):
    """A program speaking the CodeCup 2023 Entropy protocol (7×7 Entropy only).

    A fresh process plays each game, as at the CodeCup; it reads ``Quit`` when the game is over.
    The protocol cannot set up a position or take a move back, so the program must see its game
    from the start: it cannot take over a game (one resumed from a record, or after an undo) in
    which its side has already moved, nor a game the hooks did not tell it from the start;
    asking it to raises :class:`~abstractgames.protocol.AbstractGamesError`.
    """

    kind = "codecup"

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
        """The move ``text`` stands for and ``""``, or ``None`` and why it is illegal."""
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


def _external(kind: str, cls: type[ExternalPlayer], game: Game, argument: str) -> ExternalPlayer:
    options, argv = parse_command(kind, argument)
    keywords = _player_options(kind, options)
    _check_program(kind, argv[0])
    return cls(game, argv, **keywords)


@takes_raw_argument
def engine_player(game: Game, argument: str) -> Player:
    """``engine:[OPTIONS:]COMMAND``: a program speaking the abstractgames engine protocol."""
    return _external("engine", EnginePlayer, game, argument)


@takes_raw_argument
def codecup_player(game: Game, argument: str) -> Player:
    """``codecup:[OPTIONS:]COMMAND``: a CodeCup 2023 Entropy program (7×7 Entropy only)."""
    return _external("codecup", CodecupPlayer, game, argument)
