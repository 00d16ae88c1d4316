"""The abstractgames engine protocol (AGP): a line protocol between a referee and an engine.

The specification is the [Engine protocol](../engine-protocol.md) page. In short, the referee
writes commands, the engine answers some of them, one item per line:

```text
> agp 1                          < id name ... / id author ... / agpok
> game entropy:size=5            < gameok   (or: error <why>)
> newgame
> isready                        < readyok
> position startpos moves R R@c3 c3-c5 K
> go time 12.5 timeout 14.5 seed 42/1/4/player1
                                 < move K@a1   (or: resign / error <why>)
> quit
```

[`EngineClient`][] is the referee's side (it drives a [`Process`][]) and
[`EnginePlayer`][] the player that seats an engine (`engine:COMMAND`); [`serve`][] is the
engine's side: it seats one of our players behind the protocol, so that `abstractgames engine`
makes any player an engine that plays exactly as it does in-process.

Two commands beyond the protocol serve our own worker processes (a bot from a file run apart,
see `abstractgames.registry.isolation`), which [`serve`][] understands only with
`hooks=True`: `seat SEAT GAME` after `newgame` (the player's seat and the game's number, for
its `game_started` hook) and `gameover` after the final `position` (for `game_ended`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from ..players import Player, Resign, SeededRandom
from ..protocol import AbstractGamesError, Game, Move, State
from ..text import described, excerpt, quote
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
    within_range,
)
from .process import Process

__all__ = [
    "PROTOCOL_VERSION",
    "REASON_LIMIT",
    "EngineClient",
    "EnginePlayer",
    "EngineResigned",
    "GameRefused",
    "engine_player",
    "format_go",
    "format_position",
    "is_seed_token",
    "parse_go",
    "parse_position",
    "serve",
]

PROTOCOL_VERSION = 1
"""The version of the engine protocol spoken (`agp 1`)."""


class EngineResigned(Exception):
    """The engine answered a move request with `resign`."""


# --- commands -------------------------------------------------------------------------------------


def format_position(start: str | None, moves: Sequence[str]) -> str:
    """The `position` command: from the start (`start=None`) or a position string."""
    where = "startpos" if start is None else f"fen {start}"
    return f"position {where}" + (" moves " + " ".join(moves) if moves else "")


def parse_position(argument: str) -> tuple[str | None, list[str]]:
    """Read the text after `position`: `(position string or None for the start, moves)`.

    Raises:
        ValueError: neither `startpos` nor `fen <position>`.
    """
    words = argument.split()
    if "moves" in words:
        cut = words.index("moves")
        head, moves = words[:cut], words[cut + 1 :]
    else:
        head, moves = words, []
    if head == ["startpos"]:
        return None, moves
    if len(head) >= 2 and head[0] == "fen":
        return " ".join(head[1:]), moves
    raise ValueError(
        "write 'position startpos [moves ...]' or 'position fen <position> [moves ...]'"
    )


def _seconds(value: float) -> str:
    return f"{within_range(value):.3f}".rstrip("0").rstrip(".")


def format_go(time_left: float | None, timeout: float, seed: str | None) -> str:
    """The `go` command: the mover's clock (if any), the answer's deadline and a seed token.

    Both times are sent within `[0, MAX_SECONDS]` ([`within_range`][]).

    Raises:
        ValueError: a seed token that is empty or holds a space or a control character.
    """
    if seed is not None and not is_seed_token(seed):
        raise ValueError(f"{quote(seed)} cannot be a seed token: it must be one printable word")
    parts = ["go"]
    if time_left is not None:
        parts += ["time", _seconds(time_left)]
    parts += ["timeout", _seconds(timeout)]
    if seed is not None:
        parts += ["seed", seed]
    return " ".join(parts)


def is_seed_token(text: str) -> bool:
    """Whether `text` can be sent as a seed: one word of printable characters."""
    return bool(text) and text.isprintable() and " " not in text


def parse_go(argument: str) -> dict[str, str]:
    """Read the `name value` pairs after `go` (unknown names are kept, the caller ignores them).

    Raises:
        ValueError: a name without a value.
    """
    words = argument.split()
    if len(words) % 2:
        raise ValueError(f"'go' takes name-value pairs; {words[-1]!r} has no value")
    return dict(zip(words[::2], words[1::2], strict=True))


# --- the referee's side ---------------------------------------------------------------------------


class GameRefused(EngineFailure):
    """The engine answered `game SPEC` with `error REASON`."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason
        """The engine's reason, escaped and cut to [`REASON_LIMIT`][] characters."""


REASON_LIMIT = 1000
"""The most characters of an engine's reason for refusing a game that [`GameRefused`][] keeps."""


class EngineClient:
    """Talks to an engine running in `process`, for a referee.

    Every wait has a deadline; every way an engine can fail raises [`EngineFailure`][] with a
    message such as `did not answer within 5.0 s` or `sent "hello" where "move ..." was
    expected`. The engine's own text (its reasons, its name, its lines) is escaped and cut
    ([`excerpt`][]) before it is kept or put in a message.

    Args:
        process: the running engine.
        timeout: seconds the engine has to answer each handshake command.
    """

    def __init__(self, process: Process, timeout: float) -> None:
        self.process = process
        self.timeout = timeout
        self.name: str | None = None

    def handshake(self, game: Game) -> None:
        """`agp` and `game`: the engine names itself and accepts `game`."""
        self._send(f"agp {PROTOCOL_VERSION}")
        while True:
            word, rest, line = self._expect(f"agp {PROTOCOL_VERSION}", self.timeout)
            if word == "agpok":
                break
            if word == "error":
                why = _reason(rest)
                raise EngineFailure(f"does not speak engine protocol {PROTOCOL_VERSION}: {why}")
            if word == "id" and rest.startswith("name "):
                self.name = excerpt(rest[5:].strip())
            elif word != "id":
                raise self._unexpected(line, "agpok")
        self._send(f"game {game.spec}")
        word, rest, line = self._expect(f"game {game.spec}", self.timeout)
        if word == "error":
            reason = excerpt(rest, REASON_LIMIT) if rest else "no reason given"
            raise GameRefused(f"does not play {game.spec}: {_reason(rest)}", reason)
        if word != "gameok":
            raise self._unexpected(line, "gameok")

    def sync(self) -> None:
        """`isready`, and wait for `readyok`."""
        self._send("isready")
        word, rest, line = self._expect("isready", self.timeout)
        if word == "error":
            raise EngineFailure(f"reported an error: {_reason(rest)}")
        if word != "readyok":
            raise self._unexpected(line, "readyok")

    def new_game(self) -> None:
        """`newgame` and `isready`: a new game begins; wait until the engine is ready."""
        self.check_quiet()
        self._send("newgame")
        self.sync()

    def request_move(
        self,
        start: str | None,
        moves: Sequence[str],
        *,
        time_left: float | None,
        limit: float,
        seed: str | None,
    ) -> str:
        """Send the position and `go`; return the notation of the engine's move.

        Args:
            start: the position string the game started from, or `None` for the usual start.
            moves: every move since `start` in canonical notation, chance events included.
            time_left: the mover's clock, or `None` without a clock.
            limit: seconds to wait for the answer.
            seed: the seed token for this move (see [`is_seed_token`][]), or `None`.

        Raises:
            EngineResigned: the engine resigned.
            EngineFailure: anything else than a `move` in time.
        """
        self.check_quiet()
        self._send(format_position(start, moves))
        self._send(format_go(time_left, limit, seed))
        word, rest, line = self._expect("go", limit, answer=True)
        if word == "move" and rest:
            return rest
        if word == "resign":
            raise EngineResigned()
        if word == "error":
            raise EngineFailure(f"reported an error: {_reason(rest)}")
        raise self._unexpected(line, "move ...")

    def check_quiet(self) -> None:
        """Fail if the engine wrote anything but `info` lines since its last answer, or exited."""
        for line in unread_lines(self.process):
            if line.strip() and line.split()[0] != "info":
                raise EngineFailure(f"sent {quote(line)} when no answer was expected")
        check_running(self.process)

    def quit(self, grace: float) -> None:
        """Send `quit` and give the engine `grace` seconds to exit before it is killed."""
        self.process.stop("quit", grace)

    def _send(self, line: str) -> None:
        send_line(self.process, line, self.timeout)

    def _expect(self, asked: str, limit: float, *, answer: bool = False) -> tuple[str, str, str]:
        """The next line that is not blank or `info`: `(first word, the rest, the line)`.

        A timeout names the command `asked`, except for the `answer` to `go`.
        """
        deadline = time.monotonic() + limit
        while True:
            line = receive_line(self.process, deadline, limit, "" if answer else asked)
            word, _, rest = line.strip().partition(" ")
            if word and word != "info":
                return word, rest.strip(), line

    @staticmethod
    def _unexpected(line: str, wanted: str) -> EngineFailure:
        return EngineFailure(f"sent {quote(line)} where {quote(wanted)} was expected")


def _reason(text: str) -> str:
    """The reason an engine gave with `error`, safe to show."""
    return excerpt(text) if text else "no reason given"


# --- the player -----------------------------------------------------------------------------------


class EnginePlayer(ExternalPlayer):
    """A program speaking the abstractgames engine protocol, for any game.

    One process plays the whole match; it is started at the first move it is asked for. Each request
    tells it the whole game so far, and, when the generator handed to
    [`choose`][abstractgames.players.Player.choose] is a [`SeededRandom`][] (the referee's always
    are), its label as the seed, so `abstractgames engine` runs our bots exactly as in-process.
    Asked about a position that is not the last one the hooks told (`choose` called without a
    referee), it sends that position alone, as a new game.
    """

    kind = "engine"

    def __init__(self, game: Game, argv: Sequence[str], **options: Any) -> None:
        super().__init__(game, argv, **options)
        self._client: EngineClient | None = None
        self._new_game = True
        self.engine_name: str | None = None
        """The name the engine gave in the handshake (`id name`, escaped and cut), once
        started."""

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
                self._game_begins(self._client)
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

    def _game_begins(self, client: EngineClient) -> None:
        """A new game was sent to the engine (`newgame`); a subclass may tell it more."""

    def _stop_program(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            client.quit(QUIT_GRACE)


def engine_player(game: Game, argument: str) -> Player:
    """engine:[OPTIONS:]COMMAND: a program speaking the abstractgames engine protocol."""
    return make_external_player("engine", EnginePlayer, game, argument)


# --- the engine's side ----------------------------------------------------------------------------


class _Server:
    """The state of one engine session: the game, the bot, the position."""

    def __init__(
        self,
        fixed_game: Game | None,
        make_player: Callable[[Game], Player],
        read_game: Callable[[str], Game],
        name: str,
        output: TextIO,
        rng: random.Random,
        hooks: bool = False,
        contain: bool = False,
        limit: int = MESSAGE_LIMIT,
    ) -> None:
        self.limit = limit
        self.hooks = hooks
        self.contain = contain
        self.seat, self.number = 1, 1
        self.told: tuple[str, list[str]] | None = None  # the game the hooks told: start, moves
        self.fixed_game = fixed_game
        self.make_player = make_player
        self.read_game = read_game
        self.name = name
        self.output = output
        self.rng = rng
        self.game: Game | None = None
        self.player: Player | None = None
        self.state: State | None = None

    def say(self, line: str) -> None:
        self.output.write(line + "\n")
        self.output.flush()

    def handle(self, line: str) -> bool:
        """Answer one command; `False` after `quit`."""
        command, _, argument = line.strip().partition(" ")
        argument = argument.strip()
        if not command:
            return True
        if command == "quit":
            return False
        handler = getattr(self, f"do_{command}", None)
        if handler is None or (command in _WORKER_COMMANDS and not self.hooks):
            self.say(f"error unknown command {quote(command)}")
            return True
        try:
            handler(argument)
        except (AbstractGamesError, ValueError) as error:
            self.say(f"error {excerpt(' '.join(str(error).split()), self.limit)}")
        except BaseException as error:
            if not self.contain:
                raise
            self.say(f"error {excerpt(' '.join(described(error).split()), self.limit)}")
        return True

    def do_agp(self, argument: str) -> None:
        if argument != str(PROTOCOL_VERSION):
            raise ValueError(f"this engine speaks protocol version {PROTOCOL_VERSION}")
        self.say(f"id name {self.name}")
        self.say("id author abstractgames")
        self.say("agpok")

    def do_game(self, argument: str) -> None:
        game = self.read_game(argument)
        if self.fixed_game is not None and game != self.fixed_game:
            raise ValueError(f"this engine plays {self.fixed_game.spec}, not {game.spec}")
        if self.player is not None:
            self.player.close()
        self.player = self.make_player(game)
        self.game, self.state = game, None
        self.say("gameok")

    def do_isready(self, argument: str) -> None:
        self.say("readyok")

    def do_newgame(self, argument: str) -> None:
        self.state = None
        self.told = None

    def do_seat(self, argument: str) -> None:
        words = argument.split()
        if len(words) != 2 or not all(word.isdigit() for word in words):
            raise ValueError("'seat' takes the seat and the game's number")
        self.seat, self.number = int(words[0]), int(words[1])

    def do_gameover(self, argument: str) -> None:
        if self.state is not None and self.player is not None:
            self.told = None
            self.player.game_ended(self.state)

    def do_position(self, argument: str) -> None:
        game = self._game()
        self.state = None
        start, moves = parse_position(argument)
        state = game.initial_state() if start is None else game.from_position(start)
        states = [state]
        played = []
        for move in moves:
            played.append(game.parse_move(move, state))
            state = state.apply(played[-1])
            states.append(state)
        if self.hooks and self.player is not None:
            self._tell(start or "startpos", moves, played, states)
        self.state = state

    def _tell(self, start: str, moves: list[str], played: list[Move], states: list[State]) -> None:
        """Tell the player, through its hooks, how the game went since it was last told."""
        player = self.player
        assert player is not None
        told = self.told
        self.told = None  # until the hooks are through
        if told is not None and told[0] == start and moves[: len(told[1])] == told[1]:
            begin = len(told[1])
        elif told is not None and told[0] == start and told[1][: len(moves)] == moves:
            player.moves_taken_back(states[-1])
            begin = len(moves)
        else:
            player.game_started(self.seat, self.number, states[0])
            begin = 0
        for index in range(begin, len(moves)):
            player.move_played(played[index], states[index + 1])
        self.told = (start, list(moves))

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
        time_left = None
        if "time" in options:
            time_left = float(options["time"])
            if not math.isfinite(time_left):
                raise ValueError(
                    f"'time' must be a number of seconds, not {quote(options['time'])}"
                )
            time_left = within_range(time_left)
        move = player.choose(state, rng, time_left)
        self.say(f"move {move}")

    def _game(self) -> Game:
        if self.game is None:
            raise ValueError("no game: send 'game <spec>' first")
        return self.game


_WORKER_COMMANDS = frozenset({"seat", "gameover"})
"""The commands only our worker processes take (`serve(hooks=True)`)."""


def serve(
    make_player: Callable[[Game], Player],
    lines: Iterable[str],
    output: TextIO,
    *,
    read_game: Callable[[str], Game],
    name: str = "abstractgames",
    game: Game | None = None,
    rng: random.Random | None = None,
    hooks: bool = False,
    contain: bool = False,
    limit: int = MESSAGE_LIMIT,
) -> int:
    """Be an engine: read protocol commands from `lines`, answer on `output`, return 0.

    `abstractgames engine` calls it with the registry's `make_player` and
    `parse_game_spec`, so that any player becomes an engine that plays exactly as in-process.

    Args:
        make_player: makes the player that chooses the moves, for the game the referee names.
        read_game: the game of a `game SPEC` command (raises an `AbstractGamesError`).
        name: what the engine calls itself in the handshake (`id name`).
        lines: the referee's commands (e.g. standard input).
        output: where the answers go (flushed after every line).
        game: the only game to accept; any game the referee names if `None`.
        rng: the generator for every `go` without a seed (a `go ... seed S` uses
            `random.Random(S)`, as the referee's generator labelled `S`).
        hooks: tell the player the game through its hooks, as the referee does in-process
            (`game_started`, `move_played`, `moves_taken_back`, and `game_ended` on
            `gameover`), and take the commands `seat` and `gameover`; for our worker
            processes.
        contain: any error of the player's code, even `SystemExit`, `KeyboardInterrupt` or
            `MemoryError`, is answered with `error TYPE: MESSAGE (at FILE, line N)` instead
            of ending the session; for our worker processes, where no signal of the user's
            arrives.
        limit: the most characters of an error message sent.
    """
    server = _Server(
        game, make_player, read_game, name, output, rng or random.Random(), hooks, contain, limit
    )
    try:
        for line in lines:
            if not server.handle(line):
                break
    finally:
        if server.player is not None:
            try:
                server.player.close()
            except BaseException:
                if not contain:
                    raise
    return 0
