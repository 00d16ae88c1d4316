"""Bots from outside run apart: a bot from a file or module, or a plugin's player, plays from a
worker process of its own that speaks our engine protocol.

`make_player("bot.py:Bot", game)` makes an [`IsolatedPlayer`][]: the worker (`python -m
abstractgames worker`, see [`abstractgames.registry.worker`][]) loads the bot, and the referee's
side is an [`EnginePlayer`][abstractgames.engines.agp.EnginePlayer], so every guarantee the
engines have holds for the bot too: it answers within its clock (plus a grace) or, without a
clock, within a per-move limit, or it forfeits; its whole process group, and every helper it
started, is killed and reaped when its match ends (and dies with the referee, on Linux); what it
prints goes to its log, never into the protocol; `sys.exit`, `os._exit`, `KeyboardInterrupt`,
`MemoryError` or `RecursionError` in it is a forfeit that names what happened; and it cannot
reach the referee's state. The worker is sandboxed ([`abstractgames.registry.sandbox`][]): on
Linux it cannot signal, stop, trace or read the referee or any other process, nor start a
process, and its memory and CPU time are limited; a worker stopped all the same (`SIGSTOP` of
itself) is a hung one, a forfeit at its deadline.

The spec `isolated:[OPTIONS:]SPEC` gives the options of the worker (those of `engine:`, and
`memory`): `timeout` (seconds per move without a clock, and to start up; [`DEFAULT_TIMEOUT`][],
30, by default), `grace` (with a clock, the seconds past the time left before it counts as hung;
[`DEFAULT_GRACE`][], 2), `log` (a directory that keeps the worker's error output) and `memory`
(the MiB of address space it may take,
[`MEMORY_LIMIT`][abstractgames.registry.sandbox.MEMORY_LIMIT] by default). The spec
`inprocess:SPEC` runs the same bot in this process instead: faster to start, easy to debug, and
none of the guarantees above except that the referee judges moves on a state of its own.

The worker tells the bot the game through its hooks, as the referee does in-process
(`game_started` with its seat and the game's number, `move_played`, `moves_taken_back`,
`game_ended`); it is told of the moves when it is asked for its next one, and of the end of a
game it took part in when that game ends. What a bot keeps in `Player.info` stays in its worker.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any

import attrs

from ..engines.agp import EngineClient, EnginePlayer, GameRefused, format_position
from ..engines.external import (
    DEFAULT_GRACE,
    DEFAULT_TIMEOUT,
    EngineFailure,
    parse_command,
    player_options,
    send_line,
)
from ..players import InvalidPlayerError
from ..protocol import Game, State
from ..specs import IN_PROCESS, ISOLATED, split_program_argument
from ..text import excerpt
from .sandbox import Limits, protect_referee

__all__ = [
    "DEFAULT_GRACE",
    "DEFAULT_TIMEOUT",
    "IN_PROCESS",
    "ISOLATED",
    "WORKER",
    "IsolatedPlayer",
    "isolated_player",
    "worker_command",
]

WORKER = ("-m", "abstractgames", "worker")
"""How the interpreter is told to run a worker: `python -m abstractgames worker`, which runs
[`abstractgames.registry.worker`][] (without loading the command line). A worker is another
program, as an engine is: nothing here imports it (it imports the players' table, which imports
this module)."""


def worker_command(spec: str, limits: Limits | None = None) -> list[str]:
    """The command of a worker process that serves the player `spec` (made in the worker as
    `inprocess:SPEC`), with this interpreter and this process's import path, sandboxed within
    `limits` (by default [`Limits`][abstractgames.registry.sandbox.Limits]`()`)."""
    limits = Limits() if limits is None else limits
    return [sys.executable, *WORKER, json.dumps(sys.path), spec, json.dumps(attrs.asdict(limits))]


class IsolatedPlayer(EnginePlayer):
    """The player `spec` (a bot from a file or module, or a plugin's player), played by a
    worker process of its own over the engine protocol.

    The worker is started, and makes the player, when this object is made: a spec the worker
    cannot make a player of raises here, with the worker's own message.

    Args:
        game: the game.
        spec: the player's spec, as `inprocess:` would take it (`bot.py:Bot:depth=3`).
        options: `timeout`, `grace`, `log_dir`, as for [`EnginePlayer`][], and `limits`, the
            worker's [`Limits`][abstractgames.registry.sandbox.Limits].

    Raises:
        InvalidPlayerError: the worker could not make the player (no such file or class, a
            bad option, an error in its code), or did not start.
    """

    kind = "bot"

    def __init__(
        self, game: Game, spec: str, *, limits: Limits | None = None, **options: Any
    ) -> None:
        super().__init__(game, worker_command(spec, limits), **options)
        protect_referee()
        self.bot = spec
        """The spec the worker makes the player of."""
        self.game_number = 1
        try:
            self._client = EngineClient(self._start(), self.timeout)
            self._client.handshake(game)
        except GameRefused as refused:
            self.close()
            raise InvalidPlayerError(refused.reason) from None
        except EngineFailure as failure:
            message = str(self._failed(str(failure)))
            self.close()
            raise InvalidPlayerError(message) from None
        except BaseException:
            self.close()
            raise
        self.engine_name = self._client.name

    def _who(self) -> str:
        return f"the worker of {self.bot!r}" if self.seat is None else f"player {self.seat}"

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        super().game_started(seat, game_number, start)
        self.game_number = game_number

    def _game_begins(self, client: EngineClient) -> None:
        send_line(client.process, f"seat {self.seat or 1} {self.game_number}", self.timeout)

    def game_ended(self, state: State) -> None:
        """Tell the worker the game's end, if it played in this game."""
        client = self._client
        if client is None or self._new_game or not self.states or self.states[-1] != state:
            return
        start = None if self.states[0] == self.game.initial_state() else self.states[0].position()
        with contextlib.suppress(EngineFailure):  # a worker gone fails at its next move
            send_line(client.process, format_position(start, [str(m) for m in self.moves]), 5.0)
            send_line(client.process, "gameover", 5.0)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.bot!r}>"


def isolated_player(game: Game, argument: str) -> IsolatedPlayer:
    """The player of `isolated:[OPTIONS:]SPEC`: `argument` is the text after `isolated:`.

    Raises:
        InvalidPlayerError: a bad option, no SPEC, or a player the worker cannot make.
    """
    options_text, spec = split_program_argument(argument)
    if not spec.strip():
        raise InvalidPlayerError(
            "give the player to run apart, e.g. 'isolated:timeout=5:mybot.py:MyBot'"
        )
    options: dict[str, str] = {}
    if options_text:
        options = parse_command(ISOLATED, f"{options_text}:x")[0]
    memory = options.pop("memory", None)
    try:
        keywords = player_options(ISOLATED, options)
    except InvalidPlayerError as error:
        raise InvalidPlayerError(str(error).replace(", log", ", log, memory")) from None
    limits = None
    if memory is not None:
        if not (memory.isdecimal() and 16 <= int(memory) <= 1 << 30):
            raise InvalidPlayerError(
                f"{ISOLATED} option memory={excerpt(memory)} must be a whole number of MiB, from 16"
            )
        limits = Limits(memory=int(memory))
    return IsolatedPlayer(game, spec.strip(), limits=limits, **keywords)
