"""The ``search`` player: each game's strongest bot, under one name and one set of options.

``make_player("search", game)`` makes the search bot of ``game``'s own module under
``abstractgames.players``; options: ``time`` (seconds per move, default 1.0) and ``depth`` (a fixed
search depth in plies instead of a time budget, where the bot supports it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..protocol import Game, import_object
from . import InvalidPlayerError, Player

__all__ = ["DEFAULT_TIME", "search_player", "solver_for"]

DEFAULT_TIME = 1.0

_SEARCHERS: dict[str, str] = {
    "dispersal": "abstractgames.players.dispersal:DispersalSearch",
    "entropy": "abstractgames.players.entropy:EntropySearch",
    "orderchaos": "abstractgames.players.orderchaos:OrderChaosSearch",
}


_SOLVERS: dict[str, str] = {
    "dispersal": "abstractgames.players.dispersal:solve",
}


def solver_for(game: Game) -> Callable[..., Any]:
    """The exact solver of ``game``: ``solve(state, max_moves, time_limit) -> solution``."""
    target = _SOLVERS.get(game.name)
    if target is None:
        names = ", ".join(sorted(_SOLVERS))
        raise InvalidPlayerError(f"there is no solver for {game.name!r} (solvers: {names})")
    solver: Callable[..., Any] | None = import_object(target)
    if solver is None:
        raise InvalidPlayerError(f"the solver for {game.name!r} is not built yet")
    return solver


def search_player(game: Game, time: float = DEFAULT_TIME, depth: int | None = None) -> Player:
    """The search bot of ``game`` with a time budget per move (or a fixed depth)."""
    if isinstance(time, bool) or not isinstance(time, int | float) or time <= 0:
        raise InvalidPlayerError(f"search option time={time!r} must be a positive number")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise InvalidPlayerError(f"search option depth={depth!r} must be a positive integer")
    target = _SEARCHERS.get(game.name)
    if target is None:
        raise InvalidPlayerError(f"there is no search player for {game.name!r}")
    factory = import_object(target)
    if factory is None:
        raise InvalidPlayerError(f"the search player for {game.name!r} is not built yet")
    player: Player = factory(game, time=float(time), depth=depth)
    return player
