"""The greedy player: tries every legal move and keeps the one its game's evaluation likes best.

Each game has its own evaluation, ``evaluate(state, role) -> float`` (higher is better for
``role``, ``±inf`` for a finished game won or lost), documented in its module under
``abstractgames.players``. Ties are broken with the player's random generator.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..protocol import Game, IllegalMoveError, Move, State, import_object
from . import InvalidPlayerError, Player

__all__ = ["GreedyPlayer", "evaluation_for"]

Evaluation = Callable[[State, str], float]

_EVALUATIONS: dict[str, str] = {
    "dispersal": "abstractgames.players.dispersal:evaluate",
    "entropy": "abstractgames.players.entropy:evaluate",
    "orderchaos": "abstractgames.players.orderchaos:evaluate",
}


def evaluation_for(game: Game) -> Evaluation:
    """The evaluation function of ``game`` (raise :class:`InvalidPlayerError` if it has none)."""
    target = _EVALUATIONS.get(game.name)
    if target is None:
        raise InvalidPlayerError(f"the greedy player has no evaluation for {game.name!r}")
    evaluate: Evaluation | None = import_object(target)
    if evaluate is None:
        raise InvalidPlayerError(f"the greedy player for {game.name!r} is not built yet")
    return evaluate


class GreedyPlayer(Player):
    """One ply of look-ahead: the move after which the evaluation is highest for the mover."""

    spec = "greedy"

    def __init__(self, game: Game) -> None:
        self.game = game
        self.evaluate = evaluation_for(game)

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        role = state.to_move
        moves = state.legal_moves()
        if role is None or not moves or state.is_chance():
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        best_value = float("-inf")
        best: list[Move] = []
        for move in moves:
            value = self.evaluate(state.apply(move), role)
            if value > best_value:
                best_value, best = value, [move]
            elif value == best_value:
                best.append(move)
        return rng.choice(best)
