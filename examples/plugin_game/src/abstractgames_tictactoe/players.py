"""What the bots know of tic-tac-toe: an evaluation for ``greedy``, and a player that never loses.

Everything here uses the game protocol only (``outcome``, ``cells``, ``to_move``, ``apply``), the
way a bot for any game would.
"""

from __future__ import annotations

import random
from functools import cache

from abstractgames.players import InvalidPlayerError, Player
from abstractgames.protocol import Game, IllegalMoveError, Move, State

from .game import CROSS, LINES, MARKS, NOUGHT

__all__ = ["MinimaxPlayer", "evaluate", "search"]

OTHER = {CROSS: NOUGHT, NOUGHT: CROSS}


def evaluate(state: State, role: str) -> float:
    """How good ``state`` is for ``role``, higher is better: what the ``greedy`` player maximises.

    A finished game is worth ``inf`` won, ``-inf`` lost and 0 drawn. Otherwise: 1000 for the side
    to move if it can complete a line now, else 100 for the other side if it threatens to complete
    two lines at once (only one can be blocked), else the lines still open to ``role`` minus those
    open to the opponent, a line with two marks in it counting 3.
    """
    outcome = state.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return float("inf") if outcome.winner == role else float("-inf")
    mover = state.to_move
    assert mover in MARKS, "tic-tac-toe has no chance events"
    cells = state.cells()
    threats = {CROSS: 0, NOUGHT: 0}  # lines with two of a mark and an empty square
    value = 0.0
    for line in LINES:
        marks = [cells[square] for square in line]
        for side in (CROSS, NOUGHT):
            own, other = marks.count(MARKS[side]), marks.count(MARKS[OTHER[side]])
            if own and not other:
                value += (1 if own == 1 else 3) * (1 if side == role else -1)
                if own == 2:
                    threats[side] += 1
    sign = 1 if mover == role else -1
    if threats[mover]:
        return 1000.0 * sign
    if threats[OTHER[mover]] >= 2:
        return -100.0 * sign
    return value


class MinimaxPlayer(Player):
    """Never loses at tic-tac-toe: it knows the value of every position with best play.

    The whole game tree (5,478 positions) is searched once, on the first move; among equally good
    moves it picks at random, preferring the quickest win and the slowest loss.
    """

    def __init__(self, game: Game) -> None:
        if game.name != "tictactoe":
            raise InvalidPlayerError(f"the minimax player plays tictactoe only, not {game.name!r}")
        self.game = game

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        moves = state.legal_moves()
        if state.to_move not in MARKS or not moves:
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        values = [-_value(state.apply(move)) for move in moves]
        best = max(values)
        return rng.choice([m for m, value in zip(moves, values, strict=True) if value == best])


def search(game: Game, time: float = 1.0, depth: int | None = None) -> Player:
    """The ``search`` player of tic-tac-toe: the minimax player, whatever ``time`` and ``depth``.

    Searching the whole game takes a few hundredths of a second, within any budget.
    """
    return MinimaxPlayer(game)


@cache
def _value(state: State) -> int:
    """The value of ``state`` with best play for the side to move: positive when it wins (larger
    the sooner), 0 for a draw, negative when it loses (smaller the sooner)."""
    outcome = state.outcome()
    if outcome is not None:
        # The game ended on the other side's move: a loss for the side "to move", or a draw.
        return 0 if outcome.winner is None else -(1 + state.cells().count("."))
    return max(-_value(state.apply(move)) for move in state.legal_moves())
