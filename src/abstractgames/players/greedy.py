"""The greedy player: tries every legal move and keeps the one an evaluation likes best.

Each built-in game has its own evaluation, `evaluate(state, role) -> float` (higher is better
for `role`, `±inf` for a finished game won or lost), documented in its module under
`abstractgames.players`; the registry hands it to the player. A game without one is judged by
[`outcome_evaluation`][]: the greedy player then wins at once when it can and otherwise plays
any move. Ties are broken with the player's random generator.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from ..protocol import Game, IllegalMoveError, Move, State
from . import Player, SearchInfo

__all__ = ["Evaluation", "GreedyPlayer", "outcome_evaluation"]

Evaluation = Callable[[State, str], float]
"""`evaluate(state, role) -> float`: how good `state` is for `role`."""


def outcome_evaluation(state: State, role: str) -> float:
    """A finished game's value for `role` (`±inf` for a win or a loss, else its score lead);
    0 for a game still going on."""
    outcome = state.outcome()
    if outcome is None:
        return 0.0
    if outcome.winner is not None:
        return float("inf") if outcome.winner == role else float("-inf")
    others = [score for other, score in outcome.scores.items() if other != role]
    return outcome.scores.get(role, 0.0) - max(others, default=0.0)


class GreedyPlayer(Player):
    """One ply of look-ahead: the move after which `evaluate` is highest for the mover.

    Args:
        game: the game.
        evaluate: the evaluation; `None` for [`outcome_evaluation`][].
    """

    spec = "greedy"

    def __init__(self, game: Game, evaluate: Evaluation | None = None) -> None:
        self.game = game
        self.evaluate = outcome_evaluation if evaluate is None else evaluate

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        role = state.to_move
        moves = state.legal_moves()
        if role is None or not moves or state.is_chance():
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        started = time.perf_counter()
        best_value = float("-inf")
        best: list[Move] = []
        for move in moves:
            value = self.evaluate(state.apply(move), role)
            if value > best_value:
                best_value, best = value, [move]
            elif value == best_value:
                best.append(move)
        finite = math.isfinite(best_value)
        mate_in = None if finite else (1 if best_value > 0 else -1)
        seconds = time.perf_counter() - started
        self.info = SearchInfo(1, best_value if finite else None, len(moves), seconds, mate_in)
        return rng.choice(best)
