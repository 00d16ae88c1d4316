"""abstractgames: reference rules, fast engines, bots and a referee for order-versus-chaos games.

Examples:
    >>> import abstractgames
    >>> abstractgames.available_games()
    ('dispersal', 'entropy', 'orderchaos')
    >>> game = abstractgames.get_game("orderchaos")
    >>> game.roles
    ('order', 'chaos')
"""

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

__version__ = "0.1.0"
"""The version of the library."""

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
