"""Every registered game as an OpenSpiel game, `pyspiel.load_game("abstractgames_<name>")`.

[`register`][] makes each game of the registry an [OpenSpiel](https://openspiel.readthedocs.io)
Python game called `abstractgames_<name>`, with the game's parameters as OpenSpiel parameters, so
that `pyspiel.load_game("abstractgames_orderchaos")` and OpenSpiel's algorithms work on it. The
OpenSpiel game stands on the integer actions, chance outcomes, returns and observations of the
protocol ([`Game.action_of`][abstractgames.protocol.Game.action_of],
[`State.observation`][abstractgames.protocol.State.observation]); a game without integer
actions is left out. [`openspiel_state`][] wraps one of our states as an OpenSpiel state, whose
`.state` is ours again.

The OpenSpiel games and states are those of the wrapper
[`abstractgames.players.openspiel.pyspiel_game`][], which the built-in player `openspiel-mcts`
([`abstractgames.players.openspiel.MCTSPlayer`][], which can still be imported from here)
searches too; this module names the games and registers them. It imports without OpenSpiel;
using it needs the `rl` extra (`pip install 'abstractgames[rl]'`).

Examples:
    >>> import pyspiel
    >>> from abstractgames.rl import openspiel
    >>> names = openspiel.register()
    >>> game = pyspiel.load_game("abstractgames_orderchaos")
    >>> state = game.new_initial_state()
    >>> state.apply_action(state.string_to_action("X@c3"))
    >>> state.history(), state.action_to_string(1, 29)
    ([28], 'O@c3')
    >>> state.state  # our state
    <OrderChaosState '6/6/6/2X3/6/6 chaos'>
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..players.openspiel import PREFIX, game_type, import_pyspiel, openspiel_name, pyspiel_game
from ..players.openspiel import MCTSPlayer as MCTSPlayer  # importable here as before
from ..protocol import Game, InvalidParameterError, State, UnknownGameError
from ..registry import available_games, get_game
from ..text import value_excerpt

__all__ = [
    "PREFIX",
    "load_game",
    "openspiel_game",
    "openspiel_name",
    "openspiel_state",
    "register",
]

_registered: dict[str, str] = {}
"""The OpenSpiel names registered by [`register`][] in this process, by our game's name."""
_games: dict[Game, Any] = {}
"""The OpenSpiel game handed out for each of our games (a game with its parameters)."""


def register(games: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """Register games with OpenSpiel as `abstractgames_<name>` (see [`openspiel_name`][]).

    Idempotent: a name registered before (by this function or by anyone else) is left as it is.
    The game's parameters become OpenSpiel parameters with their defaults, so both
    `pyspiel.load_game("abstractgames_entropy")` and `"abstractgames_entropy(size=5)"` work.
    Registration assumes that the game is zero-sum (as every built-in game is);
    the returns of a state that is not raise `ValueError`.

    Args:
        games: the names of our games to register (default: every registered game that has
            integer actions; a game without them is left out).

    Returns:
        The OpenSpiel names of the games now registered, in the order of `games`.

    Raises:
        ImportError: OpenSpiel is not installed.
        UnknownGameError: a name in `games` names no game.
        ValueError: a game in `games` has no integer actions.
    """
    pyspiel = import_pyspiel()
    _read_our_parameters(pyspiel)
    names = available_games() if games is None else games
    known = set(pyspiel.registered_names())
    registered = []
    for name in names:
        if name not in _registered:
            default = get_game(name)
            if default.num_distinct_actions <= 0:
                if games is None:
                    continue
                raise ValueError(f"{default.spec} has no integer actions for OpenSpiel")
            short_name = openspiel_name(name)
            if short_name not in known:
                pyspiel.register_game(game_type(default), _Creator(name))
            _registered[name] = short_name
        registered.append(_registered[name])
    return tuple(registered)


class _Creator:
    """Makes the OpenSpiel game of our game `name` from OpenSpiel's parameters."""

    def __init__(self, name: str) -> None:
        self.name = name
        # OpenSpiel holds its creators until after Python has shut down, then lets them go: a
        # creator freed then crashes the interpreter on exit. Referring to itself, it never is.
        self._itself = self

    def __call__(self, params: dict[str, Any] | None = None) -> Any:
        return openspiel_game(get_game(self.name, **(params or {})))


def _read_our_parameters(pyspiel: Any) -> None:
    """Make `pyspiel.load_game(NAME, PARAMS)` of one of our games our [`load_game`][], so that
    its parameters are read by our rules before pybind11 casts them to C++ (where a value beyond
    a C++ `int` is a bare `RuntimeError`). Every other call, and every other game, goes to
    OpenSpiel's own function as before; done once per process."""
    original = pyspiel.load_game
    if getattr(original, "_abstractgames", False):
        return

    def load_game(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 2 and not kwargs and _ours(args[0], args[1]):
            return globals()["load_game"](args[0], args[1])
        return original(*args, **kwargs)

    load_game.__doc__ = original.__doc__
    load_game.__wrapped__ = original  # type: ignore[attr-defined]
    load_game._abstractgames = True  # type: ignore[attr-defined]
    pyspiel.load_game = load_game


def _ours(name: object, params: object) -> bool:
    """Whether `pyspiel.load_game(name, params)` names a game registered by [`register`][] with
    parameters of plain Python values."""
    return (
        isinstance(name, str)
        and name.startswith(PREFIX)
        and name.removeprefix(PREFIX) in _registered
        and isinstance(params, Mapping)
        and all(type(value) in (int, float, str, bool) for value in params.values())
    )


CPP_INT_LIMIT = 2**31
"""OpenSpiel holds an integer parameter as a C++ `int`: from `-2**31` to `2**31 - 1`."""


def load_game(name: str, params: Mapping[str, Any] | None = None, /, **kwargs: Any) -> Any:
    """The OpenSpiel game of our game `name` with its parameters, read by our rules first.

    It is the game `pyspiel.load_game` gives (the same object), but OpenSpiel's own
    `pyspiel.load_game` converts the parameters to its C++ types before any code of ours runs:
    a value beyond a C++ `int` (`max_plies=10**18`) is pybind11's `Unable to cast Python
    instance`, a float or a string OpenSpiel's `Wrong type for parameter`. Here every parameter
    is checked by the game first (its type and range: dispersal's `max_plies` from 1 to
    10,000), so a bad one is our [`InvalidParameterError`][abstractgames.InvalidParameterError]
    naming it. Once [`register`][] has run, `pyspiel.load_game(NAME, PARAMS)` of one of our
    games comes here too (the function in `pyspiel` is wrapped, for our games alone).

    Args:
        name: our game's name (`"dispersal"`) or its OpenSpiel name
            (`"abstractgames_dispersal"`).
        params: the game's parameters, as `pyspiel.load_game(name, params)` takes them.
        **kwargs: more parameters, as keywords (`max_plies=12`).

    Raises:
        ImportError: OpenSpiel is not installed.
        UnknownGameError: no game of ours has that name.
        InvalidParameterError: a parameter the game does not have or refuses, given twice, or
            an integer OpenSpiel cannot hold (beyond a C++ `int`).
        ValueError: the game has no integer actions.

    Examples:
        >>> load_game("abstractgames_dispersal", {"max_plies": 12}).game.spec
        'dispersal:max_plies=12'
        >>> load_game("dispersal", max_plies=10**18)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        abstractgames.protocol.InvalidParameterError: parameter max_plies=... must be at most 10000
    """
    if not isinstance(name, str):
        raise UnknownGameError(f"a game is a name such as 'orderchaos', not {value_excerpt(name)}")
    ours = name.removeprefix(PREFIX)
    given = dict(params or {})
    twice = sorted(set(given) & set(kwargs))
    if twice:
        raise InvalidParameterError(
            f"parameter {', '.join(twice)} is given twice: in params and as a keyword"
        )
    game = get_game(ours, **given, **kwargs)
    for key, value in game.params.items():
        if isinstance(value, int) and not -CPP_INT_LIMIT <= value < CPP_INT_LIMIT:
            raise InvalidParameterError(
                f"parameter {key}={value_excerpt(value)} of {game.name} is beyond what OpenSpiel "
                "holds (a C++ int, from -2**31 to 2**31 - 1)"
            )
    return openspiel_game(game)


def openspiel_game(game: Game) -> Any:
    """The OpenSpiel game (a `pyspiel.Game`) of `game` with its parameters, registered first.

    The same game gives the same object; its `.game` is `game`. It is the wrapper of
    [`pyspiel_game`][abstractgames.players.openspiel.pyspiel_game], with the parameters of the
    registered game (the default variant) as OpenSpiel's defaults.

    Raises:
        ImportError: OpenSpiel is not installed.
        ValueError: the game has no integer actions.
    """
    found = _games.get(game)
    if found is None:
        register((game.name,))
        found = _games[game] = pyspiel_game(game, get_game(game.name))
    return found


def openspiel_state(state: State) -> Any:
    """`state` as a state (a `pyspiel.State`) of its [`openspiel_game`][]; `.state` is `state`.

    OpenSpiel's history of the wrapped state starts at `state`: `history()` is empty.

    Raises:
        ImportError: OpenSpiel is not installed.
        ValueError: the game has no integer actions.
    """
    return openspiel_game(state.game).new_initial_state(state)
