"""Players: the protocol a bot implements, the built-in bots, and a registry that names them.

A player is asked for a move with :meth:`Player.choose` whenever it is its turn (never at a chance
node: whoever drives the game resolves chance). Every random choice a player makes goes through the
``random.Random`` it is given, so a seed replays the same game. The referee also tells every player
what happens in the game through the hooks :meth:`Player.game_started`, :meth:`Player.move_played`,
:meth:`Player.moves_taken_back` and :meth:`Player.game_ended`; the built-in bots ignore them.

>>> import random
>>> from abstractgames import get_game
>>> player = make_player("random", get_game("orderchaos"))
>>> move = player.choose(get_game("orderchaos").initial_state(), random.Random(1))
>>> str(move)
'O@c2'
"""

from __future__ import annotations

import abc
import inspect
import random
from collections.abc import Callable
from typing import Any, TypeVar

from ..protocol import AbstractGamesError, Game, IllegalMoveError, Move, State, import_object

__all__ = [
    "InvalidPlayerError",
    "Player",
    "RandomPlayer",
    "SeededRandom",
    "available_players",
    "make_player",
    "register_player",
    "takes_raw_argument",
]


class InvalidPlayerError(AbstractGamesError, ValueError):
    """A player spec that names no player, or gives it options it does not take."""


class SeededRandom(random.Random):
    """A ``random.Random`` seeded with a string that it keeps as its :attr:`label`.

    ``random.Random(label)`` makes the same generator, so the label alone can be sent to another
    program (an engine's ``go ... seed LABEL``) for it to make the same random choices.

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
    """How to make this player again with :func:`make_player`, e.g. ``"search:time=0.5"``."""

    @abc.abstractmethod
    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        """A legal move for ``state.to_move`` in ``state``.

        Args:
            state: the position; never a chance node or a finished game.
            rng: the only source of randomness the player may use.
            time_left: seconds left on the player's clock, or ``None`` without a clock.
        """

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        """A game of the match begins, with this player as player ``seat`` (1 or 2).

        ``start`` is the game's first position. A game resumed from a record is told from its
        start too: :meth:`move_played` follows for each recorded move.
        """
        return None

    def move_played(self, move: Move, state: State) -> None:
        """A ply was played (a chance event, or either player's move); ``state`` is after it."""
        return None

    def moves_taken_back(self, state: State) -> None:
        """An undo took plies back; ``state`` is the position now (one seen before)."""
        return None

    def game_ended(self, state: State) -> None:
        """The game is over (by the rules, a resignation, a forfeit or time) at ``state``."""
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


PlayerFactory = Callable[..., Player]
_Factory = TypeVar("_Factory", bound=PlayerFactory)
_RAW_ARGUMENT = "takes_raw_argument"


def takes_raw_argument(factory: _Factory) -> _Factory:
    """Mark a player factory that takes the whole text after ``NAME:`` as one string.

    ``make_player("NAME:TEXT", game)`` then calls ``factory(game, "TEXT")`` instead of reading
    ``key=value`` options, e.g. for ``engine:COMMAND``, where the text is a command line.
    """
    setattr(factory, _RAW_ARGUMENT, True)
    return factory


_BUILTIN_PLAYERS: dict[str, str] = {
    "codecup": "abstractgames.players.external:codecup_player",
    "engine": "abstractgames.players.external:engine_player",
    "greedy": "abstractgames.players.greedy:GreedyPlayer",
    "random": "abstractgames.players:RandomPlayer",
    "search": "abstractgames.players.search:search_player",
}
_registered: dict[str, PlayerFactory] = {}


def register_player(name: str, factory: PlayerFactory) -> None:
    """Make ``make_player("name:opt=value", game)`` call ``factory(game, opt=value)``."""
    _registered[name] = factory


def available_players() -> tuple[str, ...]:
    """The names of the registered players, sorted."""
    return tuple(sorted(set(_BUILTIN_PLAYERS) | set(_registered)))


def _factory(name: str) -> PlayerFactory | None:
    if name in _registered:
        return _registered[name]
    target = _BUILTIN_PLAYERS.get(name)
    factory: PlayerFactory | None = None if target is None else import_object(target)
    return factory


def _option_value(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def make_player(spec: str, game: Game) -> Player:
    """Make the player named by ``spec`` (``NAME`` or ``NAME:option=value,...``) for ``game``.

    For a player registered with :func:`takes_raw_argument`, everything after the first colon is
    passed on as one string (``engine:python3 bot.py``).

    Raises:
        InvalidPlayerError: unknown name, unknown option, or a value the player rejects.
    """
    name, _, rest = spec.strip().partition(":")
    factory = _factory(name.strip().lower())
    if factory is None:
        raise InvalidPlayerError(
            f"unknown player {name!r}; available players: {', '.join(available_players())}"
        )
    if getattr(factory, _RAW_ARGUMENT, False):
        player = factory(game, rest.strip())
        player.spec = spec.strip()
        return player
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InvalidPlayerError(f"bad option {item!r} in player {spec!r}: use key=value")
        options[key.strip()] = _option_value(value.strip())
    accepted = [p.name for p in list(inspect.signature(factory).parameters.values())[1:]]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise InvalidPlayerError(
            f"player {name!r} has no option {', '.join(map(repr, unknown))}; "
            f"its options: {', '.join(accepted) or 'none'}"
        )
    player = factory(game, **options)
    player.spec = spec.strip()
    return player
