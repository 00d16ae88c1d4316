"""abstractgames: reference rules, fast engines, bots and a referee for order-versus-chaos games.

Examples:
    >>> import abstractgames
    >>> abstractgames.available_games()
    ('dispersal', 'entropy', 'orderchaos')
    >>> game = abstractgames.get_game("orderchaos")
    >>> game.roles
    ('order', 'chaos')
"""

from typing import TYPE_CHECKING

from . import interrupts as _interrupts

if _interrupts.is_command_line():  # Ctrl-C while the command line loads: a quiet exit
    _interrupts.quiet_start()

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

if TYPE_CHECKING:
    __version__: str


def _installed_version() -> str:
    """The installed distribution's version; `0+unknown` for a source tree that is not installed."""
    from importlib import metadata  # read on first use: it takes longer than the rest

    try:
        return metadata.version("abstractgames")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> str:
    """`__version__`: the version of the library, as installed (`pyproject.toml` says it)."""
    if name == "__version__":
        version = globals()["__version__"] = _installed_version()
        return version
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
