"""abstractgames: reference rules, fast engines, bots and a referee for order-versus-chaos games.

Examples:
    >>> import abstractgames
    >>> abstractgames.available_games()
    ('dispersal', 'entropy', 'orderchaos')
    >>> game = abstractgames.get_game("orderchaos")
    >>> game.roles
    ('order', 'chaos')
"""

from . import interrupts as _interrupts

if _interrupts.is_command_line():  # Ctrl-C while the command line loads: a quiet exit
    _interrupts.quiet_start()

from importlib import metadata as _metadata

from .protocol import (
    CHANCE,
    AbstractGamesError,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidParameterError,
    InvalidPositionError,
    Move,
    Outcome,
    State,
    UnknownGameError,
    random_move,
)
from .registry import (
    available_games,
    available_players,
    get_game,
    make_player,
    parse_game_spec,
    register_game,
    register_player,
)


def _installed_version() -> str:
    """The installed distribution's version; `0+unknown` for a source tree that is not installed."""
    try:
        return _metadata.version("abstractgames")
    except _metadata.PackageNotFoundError:
        return "0+unknown"


__version__ = _installed_version()
"""The version of the library, as installed (`pyproject.toml` says it)."""


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
    "__version__",
    "available_games",
    "available_players",
    "get_game",
    "make_player",
    "parse_game_spec",
    "random_move",
    "register_game",
    "register_player",
]
