"""Players: the contract every player implements, and the built-in bots.

A player is asked for a move with [`Player.choose`][] whenever it is its turn (never at a chance
node: whoever drives the game resolves chance). Every random choice a player makes goes through the
`random.Random` it is given, so a seed replays the same game. The referee also tells every player
what happens in the game through the hooks [`Player.game_started`][], [`Player.move_played`][],
[`Player.moves_taken_back`][] and [`Player.game_ended`][]; the built-in bots ignore them.

The registry ([`abstractgames.make_player`][]) makes players from specs such as
`"search:time=1.5"`; this package is the player contract and the bots themselves. A person is a
player too, seated by a front end (the terminal, the web page) wherever a spec says [`HUMAN`][].

A search bot says what its last search found in [`Player.info`][], a [`SearchInfo`][] (as
python-chess's engines do in `PlayResult.info`): the depth, the value, the positions visited, the
time, and the moves it expects when it knows them.

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
from typing import Any

import attrs

from ..protocol import AbstractGamesError, Game, IllegalMoveError, Move, State

__all__ = [
    "HUMAN",
    "InvalidPlayerError",
    "Player",
    "PlayerFailed",
    "RandomPlayer",
    "Resign",
    "SearchInfo",
    "SeededRandom",
    "UndoRequest",
    "is_human",
]

HUMAN = "human"
"""The player spec of a person: the front end that plays the match seats them (a prompt at the
terminal, the board on the web page); [`abstractgames.make_player`][] makes only programs."""


def is_human(spec: str) -> bool:
    """Whether the player spec `spec` is a person ([`HUMAN`][], in any case, spaces around).

    Examples:
        >>> is_human(" Human "), is_human("greedy")
        (True, False)
    """
    return spec.strip().lower() == HUMAN


class InvalidPlayerError(AbstractGamesError, ValueError):
    """A player spec that names no player, or gives it options it does not take."""


class Resign(Exception):
    """Raised from [`Player.choose`][] by a player who resigns the match.

    Args:
        seat: the player who resigns, if not the one to move: a person at another screen may
            resign while their opponent thinks, and the opponent's `choose` passes it on.
    """

    def __init__(self, seat: int | None = None) -> None:
        super().__init__(*(() if seat is None else (seat,)))
        self.seat = seat


class UndoRequest(Exception):
    """Raised from [`Player.choose`][] by a person who wants to take back their last move.

    Args:
        seat: the player whose move is taken back, if not the one to move: the game goes back
            to that player's previous turn (an opponent at another screen who agreed to it
            passes it on).
    """

    def __init__(self, seat: int | None = None) -> None:
        super().__init__(*(() if seat is None else (seat,)))
        self.seat = seat


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


@attrs.frozen
class SearchInfo:
    """What a search found when it chose its last move.

    Attributes:
        depth: the depth of the deepest search that valued the move, in plies (0: none was
            needed, e.g. the only legal move).
        value: the value of the move for the side to move in the position searched (the
            player who chose it), in the bot's own units, higher is better for it; `None` if the
            bot has none.
        nodes: the positions the search visited (`None` if it does not count them).
        seconds: the time the search took.
        mate_in: plies to a forced end of the game the search proved: positive when the side
            to move wins, negative when it loses; `None` if it proved none.
        pv: the principal variation, the moves the search expects from this one on, where it
            knows them (empty otherwise).
        route: how a player that chooses by more than one means chose this move, in words
            (e.g. `perfect`'s "pairing answer" or "resist: the pairing is broken"); empty
            for a plain search.
    """

    depth: int
    value: float | None
    nodes: int | None
    seconds: float
    mate_in: int | None = None
    pv: tuple[Move, ...] = ()
    route: str = ""

    def summary(self) -> str:
        """The facts in words, e.g. `"value +12 for the side to move, search depth 4"` or
        `"a forced win in 3 plies, search depth 3"`."""
        facts = [self.route] if self.route else []
        if self.mate_in:
            plies = abs(self.mate_in)
            end = "win" if self.mate_in > 0 else "loss"
            facts.append(f"a forced {end} in {plies} {'ply' if plies == 1 else 'plies'}")
        elif self.value is not None:
            facts.append(f"value {self.value:+.4g} for the side to move")
        if self.depth > 0:
            facts.append(f"search depth {self.depth}")
        if self.pv:
            facts.append("expects " + " ".join(str(move) for move in self.pv))
        return ", ".join(facts)

    def to_json(self) -> dict[str, Any]:
        """The facts as JSON values (moves in notation)."""
        return {
            "depth": self.depth,
            "value": self.value,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
            "mate_in": self.mate_in,
            "pv": [str(move) for move in self.pv],
        } | ({"route": self.route} if self.route else {})


class Player(abc.ABC):
    """Something that chooses moves: a bot, a person at a terminal, an external program."""

    spec: str = ""
    """How to make this player again with [`abstractgames.make_player`][], e.g.
    `"search:time=0.5"` (set by `make_player`)."""
    supports_undo: bool = True
    """Whether the player can follow a game whose moves are taken back (an undo)."""
    info: SearchInfo | None = None
    """What the search behind the last move [`choose`][] made found (`None` for a player that
    does not search, or before its first move). Every search bot of the library sets it."""

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
