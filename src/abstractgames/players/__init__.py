"""Players: the contract every player implements, and the built-in bots.

A player is asked for a move with [`Player.choose`][] whenever it is its turn (never at a chance
node: whoever drives the game resolves chance). Every random choice a player makes goes through the
`random.Random` it is given, so a seed replays the same game. The referee also tells every player
what happens in the game through the hooks [`Player.game_started`][], [`Player.move_played`][],
[`Player.moves_taken_back`][] and [`Player.game_ended`][]; the built-in bots ignore them.

The registry ([`abstractgames.make_player`][]) makes players from specs such as
`"search:time=1.5"`; this package is the player contract and the bots themselves.

Examples:
    >>> import random
    >>> from abstractgames import get_game
    >>> game = get_game("orderchaos")
    >>> str(RandomPlayer(game).choose(game.initial_state(), random.Random(1)))
    'O@c2'
"""

from __future__ import annotations

import abc
import random
from collections.abc import Callable
from typing import Any, TypeVar

from ..protocol import AbstractGamesError, Game, IllegalMoveError, Move, State

__all__ = [
    "RAW_ARGUMENT",
    "RUNS_PROGRAM",
    "InvalidPlayerError",
    "Player",
    "PlayerFailed",
    "RandomPlayer",
    "Resign",
    "SeededRandom",
    "UndoRequest",
    "runs_program",
    "takes_raw_argument",
]


class InvalidPlayerError(AbstractGamesError, ValueError):
    """A player spec that names no player, or gives it options it does not take."""


class Resign(Exception):
    """Raised from [`Player.choose`][] by a player who resigns the match."""


class UndoRequest(Exception):
    """Raised from [`Player.choose`][] by a person who wants to take back their last move."""


class PlayerFailed(Exception):
    """Raised from [`Player.choose`][] by a player that cannot go on (an external program that
    crashed, hung or printed garbage); the referee scores it as a loss with this message."""


class SeededRandom(random.Random):
    """A `random.Random` seeded with a string that it keeps as its [`label`][].

    `random.Random(label)` makes the same generator, so the label alone can be sent to another
    program (an engine's `go ... seed LABEL`) for it to make the same random choices.

    Examples:
        >>> SeededRandom("42/1/17/player2").random() == random.Random("42/1/17/player2").random()
        True
    """

    def __init__(self, label: str) -> None:
        self.label = label
        """The string the generator was seeded with."""
        super().__init__(label)

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.label,), self.getstate()


class Player(abc.ABC):
    """Something that chooses moves: a bot, a person at a terminal, an external program."""

    spec: str = ""
    """How to make this player again with [`abstractgames.make_player`][], e.g.
    `"search:time=0.5"` (set by `make_player`)."""
    supports_undo: bool = True
    """Whether the player can follow a game whose moves are taken back (an undo)."""

    @abc.abstractmethod
    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        """A legal move for `state.to_move` in `state`.

        Args:
            state: the position; never a chance node or a finished game.
            rng: the only source of randomness the player may use.
            time_left: seconds left on the player's clock, or `None` without a clock.

        Raises:
            Resign: the player resigns the match.
            UndoRequest: a person asks to take back their last move.
            PlayerFailed: the player cannot go on; it loses the match with this message.
        """

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        """A game of the match begins, with this player as player `seat` (1 or 2).

        `start` is the game's first position. A game resumed from a record is told from its
        start too: [`move_played`][] follows for each recorded move.
        """
        return None

    def move_played(self, move: Move, state: State) -> None:
        """A ply was played (a chance event, or either player's move); `state` is after it."""
        return None

    def moves_taken_back(self, state: State) -> None:
        """An undo took plies back; `state` is the position now (one seen before)."""
        return None

    def game_ended(self, state: State) -> None:
        """The game is over (by the rules, a resignation, a forfeit or time) at `state`."""
        return None

    def close(self) -> None:
        """Release what the player holds (a process, a file); called when the match is over."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


class RandomPlayer(Player):
    """Chooses uniformly among the legal moves."""

    spec = "random"

    def __init__(self, game: Game) -> None:
        self.game = game

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        moves = state.legal_moves()
        if not moves or state.is_chance():
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        return rng.choice(moves)


_Factory = TypeVar("_Factory", bound=Callable[..., Player])

RAW_ARGUMENT = "takes_raw_argument"
"""The attribute [`takes_raw_argument`][] sets on a player factory."""
RUNS_PROGRAM = "runs_program"
"""The attribute [`runs_program`][] sets on a player factory."""


def takes_raw_argument(factory: _Factory) -> _Factory:
    """Mark a player factory that takes the whole text after `NAME:` as one string.

    `make_player("NAME:TEXT", game)` then calls `factory(game, "TEXT")` instead of reading
    `key=value` options, e.g. for `engine:COMMAND`, where the text is a command line.
    """
    setattr(factory, RAW_ARGUMENT, True)
    return factory


def runs_program(factory: _Factory) -> _Factory:
    """Mark a player factory whose players run an external program named in their spec.

    Such a player is never started from a game record alone: the user names it again.
    """
    setattr(factory, RUNS_PROGRAM, True)
    return factory
