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

from typing import Any

from ..players.openspiel import PREFIX, game_type, import_pyspiel, openspiel_name, pyspiel_game
from ..players.openspiel import MCTSPlayer as MCTSPlayer  # importable here as before
from ..protocol import Game, State
from ..registry import available_games, get_game

__all__ = [
    "PREFIX",
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
