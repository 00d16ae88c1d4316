"""The shared game protocol: every game implements it, every player, referee and tool uses it.

A :class:`Game` describes a game and its parameters and makes states; a :class:`State` is one
immutable position with everything needed to continue the game from it. Moves are small immutable
values whose ``str()`` is their canonical notation (see RULES.md). Randomness in a game is never
hidden: a state whose ``to_move`` is :data:`CHANCE` lists the possible outcomes of a chance event
with their probabilities, and whoever drives the game (a referee, a bot, a test) picks one.

Example:
    >>> import abstractgames
    >>> game = abstractgames.get_game("orderchaos")
    >>> state = game.initial_state().apply("X@c3")
    >>> state.to_move
    'chaos'
    >>> state.position()
    '6/6/6/2X3/6/6 chaos'
"""

from __future__ import annotations

import abc
import importlib
import inspect
import random
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

__all__ = [
    "CHANCE",
    "AbstractGamesError",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidParameterError",
    "InvalidPositionError",
    "Move",
    "Outcome",
    "State",
    "UnknownGameError",
    "available_games",
    "get_game",
    "random_move",
    "register_game",
]

CHANCE = "chance"
"""The value of ``state.to_move`` at a chance node (e.g. a draw from Entropy's bag)."""


class AbstractGamesError(Exception):
    """Base class of every error this library raises on purpose."""


class UnknownGameError(AbstractGamesError, ValueError):
    """A game name that is not registered."""


class InvalidParameterError(AbstractGamesError, ValueError):
    """A game parameter that the game does not have, or a value it does not accept."""


class InvalidPositionError(AbstractGamesError, ValueError):
    """A position string that does not describe a valid position of the game."""


class IllegalMoveError(AbstractGamesError, ValueError):
    """A move that may not be played in the given state."""


class InvalidMoveError(IllegalMoveError):
    """Move text that is not valid notation for the game (a special case of an illegal move)."""


class Move:
    """Base class of all moves. Moves are immutable, hashable, and ``str(move)`` is canonical."""

    __slots__ = ()


def _frozen_scores(scores: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(scores))


@attrs.frozen(repr=False)
class Outcome:
    """How a finished game ended (immutable; outcomes are shared between states).

    Attributes:
        winner: the winning role, or ``None`` for a draw (or a game without a winner).
        scores: a read-only number for each role, e.g. ``{"order": 1, "chaos": 0}``.
        reason: a short human-readable explanation, e.g. ``"five in a row"``.
    """

    winner: str | None
    scores: Mapping[str, float] = attrs.field(converter=_frozen_scores, hash=False)
    reason: str

    def __repr__(self) -> str:
        return (
            f"Outcome(winner={self.winner!r}, scores={dict(self.scores)!r}, reason={self.reason!r})"
        )


class Game(abc.ABC):
    """A game with fixed parameters: it makes states and reads notation.

    Subclasses set :attr:`name`, :attr:`roles` and :attr:`max_length`, and implement the abstract
    methods. Two games are equal when they have the same name and parameters.
    """

    name: str
    """The registered name, e.g. ``"orderchaos"``."""
    roles: tuple[str, ...]
    """The players' roles in turn order, e.g. ``("order", "chaos")``."""
    max_length: int
    """An upper bound on the number of plies (chance events included) of any game."""

    @property
    def params(self) -> dict[str, Any]:
        """The parameters this game was made with (all of them, defaults included)."""
        return {}

    @property
    def spec(self) -> str:
        """The game and its non-default parameters as one token, e.g. ``"entropy:size=5"``."""
        defaults = _default_params(type(self))
        extra = [f"{k}={v}" for k, v in sorted(self.params.items()) if defaults.get(k) != v]
        return ":".join([self.name, ",".join(extra)]) if extra else self.name

    @abc.abstractmethod
    def initial_state(self) -> State:
        """The position at the start of a game."""

    @abc.abstractmethod
    def from_position(self, text: str) -> State:
        """Parse a position string (RULES.md notation); raise :class:`InvalidPositionError`."""

    @abc.abstractmethod
    def parse_move(self, text: str, state: State) -> Move:
        """Read move notation in the context of ``state``; raise :class:`InvalidMoveError`.

        Parsing does not check legality (``state.apply`` does), except where the state is needed to
        read the text at all.
        """

    def benchmarks(self, rng: random.Random) -> dict[str, Callable[[], int]]:
        """Game-specific speed measurements for ``abstractgames bench``, beyond random games.

        Returns ``{name: run}``: ``run()`` does a fixed batch of work and returns how many items it
        processed; the name says what an item is, e.g. ``"boards scored"``. Prepare the inputs
        (with ``rng``) before returning, so that ``run`` times only the work itself.
        """
        return {}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.name == other.name and self.params == other.params

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params.items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in sorted(self.params.items()))
        return f"get_game({self.name!r}{', ' if args else ''}{args})"


class State(abc.ABC):
    """One immutable position of a game.

    States compare equal when they describe the same position (what ``position()`` prints), and are
    hashable. ``apply`` returns a new state and never changes the one it is called on.
    """

    __slots__ = ()

    @property
    @abc.abstractmethod
    def game(self) -> Game:
        """The game this state belongs to."""

    @property
    @abc.abstractmethod
    def to_move(self) -> str | None:
        """The role to move, :data:`CHANCE` at a chance node, or ``None`` when the game is over."""

    @abc.abstractmethod
    def legal_moves(self) -> tuple[Move, ...]:
        """All legal moves in a stable canonical order; at a chance node, the possible outcomes."""

    def chance_outcomes(self) -> tuple[tuple[Move, float], ...]:
        """At a chance node, ``((move, probability), ...)`` in the order of ``legal_moves()``."""
        raise IllegalMoveError(f"{self.position()} is not a chance node")

    @abc.abstractmethod
    def apply(self, move: Move | str) -> State:
        """The state after ``move`` (a move or its notation); raise :class:`IllegalMoveError`."""

    @abc.abstractmethod
    def outcome(self) -> Outcome | None:
        """``None`` while the game goes on, else how it ended."""

    @abc.abstractmethod
    def position(self) -> str:
        """The position string (RULES.md); ``game.from_position`` reads it back equal."""

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.to_move is None

    def is_chance(self) -> bool:
        """Whether this is a chance node."""
        return self.to_move == CHANCE

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.position()!r}>"


def random_move(state: State, rng: random.Random) -> Move:
    """A random legal move: uniform for a player, by the given probabilities at a chance node."""
    if state.to_move == CHANCE:
        outcomes = state.chance_outcomes()
        return rng.choices([m for m, _ in outcomes], [p for _, p in outcomes])[0]
    moves = state.legal_moves()
    if not moves:
        raise IllegalMoveError(f"no legal move in {state.position()}: the game is over")
    return rng.choice(moves)


# --- the registry ---------------------------------------------------------------------------------

GameFactory = Callable[..., Game]

_BUILTIN_GAMES: dict[str, str] = {
    "dispersal": "abstractgames.dispersal:DispersalGame",
    "entropy": "abstractgames.entropy:EntropyGame",
    "orderchaos": "abstractgames.orderchaos:OrderChaosGame",
}
_registered: dict[str, GameFactory] = {}


def register_game(name: str, factory: GameFactory) -> None:
    """Make ``get_game(name, **params)`` call ``factory(**params)``; for your own games."""
    if not name or not name.replace("_", "").isalnum() or name != name.lower():
        raise InvalidParameterError(
            f"invalid game name {name!r}: use lower-case letters and digits"
        )
    _registered[name] = factory


def _factory(name: str) -> GameFactory | None:
    if name in _registered:
        return _registered[name]
    target = _BUILTIN_GAMES.get(name)
    if target is None:
        return None
    module, _, attr = target.partition(":")
    factory: GameFactory = getattr(importlib.import_module(module), attr)
    return factory


def available_games() -> tuple[str, ...]:
    """The names of all registered games, sorted."""
    return tuple(sorted(set(_BUILTIN_GAMES) | set(_registered)))


def _default_params(factory: Callable[..., Any]) -> dict[str, Any]:
    signature = inspect.signature(factory)
    return {
        p.name: p.default
        for p in signature.parameters.values()
        if p.default is not inspect.Parameter.empty
    }


def get_game(name: str, **params: Any) -> Game:
    """The game registered as ``name``, made with ``params``.

    Raises:
        UnknownGameError: no game has that name (the message lists the valid names).
        InvalidParameterError: the game has no such parameter, or rejects the value.
    """
    factory = _factory(name) if isinstance(name, str) else None
    if factory is None:
        raise UnknownGameError(
            f"unknown game {name!r}; available games: {', '.join(available_games())}"
        )
    accepted = _default_params(factory)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        valid = ", ".join(sorted(accepted)) or "none"
        raise InvalidParameterError(
            f"game {name!r} has no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters: {valid}"
        )
    return factory(**params)


def parse_game_spec(spec: str) -> Game:
    """Read ``NAME`` or ``NAME:key=value,key=value`` (integer values) into a game.

    >>> parse_game_spec("entropy:size=5").params["size"]
    5
    """
    name, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InvalidParameterError(f"bad game parameter {item!r} in {spec!r}: use key=value")
        params[key.strip()] = _parse_value(value.strip())
    return get_game(name.strip().lower(), **params)


def _parse_value(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return text


def check_int_param(
    name: str, value: object, *, allowed: Sequence[int] | None = None, minimum: int | None = None
) -> int:
    """Validate an integer game parameter; raise :class:`InvalidParameterError` with the reason."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(f"parameter {name} must be an integer, not {value!r}")
    if allowed is not None and value not in allowed:
        raise InvalidParameterError(
            f"parameter {name}={value} is not supported; choose one of "
            + ", ".join(map(str, allowed))
        )
    if minimum is not None and value < minimum:
        raise InvalidParameterError(f"parameter {name}={value} must be at least {minimum}")
    return value
