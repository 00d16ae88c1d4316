"""Tic-tac-toe for abstractgames: a game added from outside the library, through a plugin.

Installing this distribution adds the game ``tictactoe`` and the player ``minimax`` to
abstractgames, through the entry points in its ``pyproject.toml``::

    [project.entry-points."abstractgames.games"]
    tictactoe = "abstractgames_tictactoe:ENTRY"

    [project.entry-points."abstractgames.players"]
    minimax = "abstractgames_tictactoe:MinimaxPlayer"

after which ``abstractgames play tictactoe`` and ``get_game("tictactoe")`` work.
"""

from abstractgames.registry import GameEntry

from .game import Mark, TicTacToeGame, TicTacToeState
from .players import MinimaxPlayer, evaluate, search

__all__ = [
    "ENTRY",
    "Mark",
    "MinimaxPlayer",
    "TicTacToeGame",
    "TicTacToeState",
    "evaluate",
    "search",
]

ENTRY = GameEntry(TicTacToeGame, evaluation=evaluate, search=search)
"""The game for the registry, with what the ``greedy`` and ``search`` players use in it."""
