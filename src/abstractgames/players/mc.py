"""The `mc` player: flat Monte Carlo whose random playouts run through a batched simulator.

For each legal move the player plays `simulations / (number of moves)` uniformly random games to
the end from the position after it, all of them in one
[`BatchSimulator`][abstractgames.vector.BatchSimulator] (lane `i` holds a copy of the position
after move `i % moves`), and plays the move whose games gave the mover the highest mean return
([`State.returns`][abstractgames.protocol.State.returns]); a move that wins at once is played
without simulations. Ties are broken with the player's generator,
which also seeds the simulator. It knows no game and imports no simulator: the registry hands it
the game's ([`mc_player`][abstractgames.registry.mc_player]).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from ..protocol import Game, IllegalMoveError, Move, State
from . import Player, SearchInfo

__all__ = ["MonteCarloPlayer"]


class MonteCarloPlayer(Player):
    """Flat Monte Carlo with batched random playouts.

    Args:
        game: the game.
        simulator: makes the game's simulator: `simulator(batch_size, seed=..., game=game)`.
        simulations: random games per move decision, shared among the legal moves (each gets at
            least one).
    """

    def __init__(
        self,
        game: Game,
        simulator: Callable[..., Any],
        simulations: int = 1024,
    ) -> None:
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(
                f"simulations must be a whole number of at least 1, not {simulations!r}"
            )
        self.game = game
        self.simulator = simulator
        self.simulations = simulations
        self.spec = f"mc:simulations={simulations}"

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        role = state.to_move
        moves = state.legal_moves()
        if role is None or not moves or state.is_chance():
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        started = time.perf_counter()
        if len(moves) == 1:
            self.info = SearchInfo(0, None, 0, 0.0)
            return moves[0]
        children = [state.apply(move) for move in moves]
        for move, child in zip(moves, children, strict=True):
            outcome = child.outcome()
            if outcome is not None and outcome.winner == role:
                self.info = SearchInfo(1, None, 0, time.perf_counter() - started, mate_in=1)
                return move  # a win at once needs no playouts
        copies = max(1, self.simulations // len(moves))
        lanes = copies * len(moves)
        batch = self.simulator(lanes, seed=rng.getrandbits(64), game=self.game)
        batch.tile(children, copies)
        while not batch.done.all():  # random playouts to the end, no reset
            batch.step(batch.random_actions(), check=False)
        index = self.game.roles.index(role)
        values = batch.returns()[:, index].reshape(copies, len(moves)).mean(axis=0).tolist()
        top = max(values)
        best = [move for move, value in zip(moves, values, strict=True) if value == top]
        self.info = SearchInfo(1, top, lanes, time.perf_counter() - started)
        return rng.choice(best)
