"""The players built on a game's solver, for any game whose
[`GameEntry`][abstractgames.registry.GameEntry] names its `proven_moves`: `proven` (the
fastest proven win) and `resist` (the longest proven loss, and proven holds); and `perfect`,
for a game that names its `perfect_moves` too, which plays a proven winning strategy wherever
it covers the position and `resist` elsewhere, saying which in its `SearchInfo.route`.

Each asks the solver for the best move with its proven result, within a budget of positions,
and plays the game's `search` bot where the solver proves nothing in time (far from the end,
where it cannot), where the game has no such solver, and where the proof says nothing useful.
What the solver hands back (a [`ProvenMove`][abstractgames.solvers.ProvenMove], or for
`perfect` a [`PerfectMove`][abstractgames.solvers.PerfectMove] of a
[`PerfectStrategy`][abstractgames.solvers.PerfectStrategy]) is all they know of it: no game is
named here.
"""

from __future__ import annotations

import random
import time as clock

import attrs

from ..players import InvalidPlayerError, Player, SearchInfo
from ..protocol import Game, IllegalMoveError, Move, State
from ..solvers import PerfectStrategy, ProvenMove, ProvenMoves
from ..text import counted
from ..timing import move_budget
from .games import perfect_moves_for, proven_moves_for
from .generic import DEFAULT_SEARCH_TIME, search_player
from .plugins import quoted

__all__ = [
    "DEFAULT_NODES",
    "DEFAULT_REACH",
    "PerfectPlayer",
    "SolverPlayer",
    "perfect_player",
    "proven_player",
    "resisting_player",
]

DEFAULT_NODES = 20_000
"""The positions the solver may visit for one move, unless told."""
DEFAULT_REACH = 24
"""The solver is asked only where the side to move has at most this many legal moves (near the
end of the game, where proofs are within reach), unless told."""
_MAX_NODES = 10**9


class SolverPlayer(Player):
    """Plays the solver's proven moves where it finds them, the search bot elsewhere.

    Args:
        game: the game.
        resist: also play the solver's move where the side to move is proven to lose (the
            longest resistance); without it, a proven loss is left to the search bot (which
            may yet set the winner a trap).
        nodes: the positions the solver may visit for one move.
        reach: the solver is asked only where there are at most this many legal moves.
        time: seconds per move of the search bot (and with a clock, the share of the clock the
            move may take, the solver's and the bot's together).
        depth: a fixed depth for the search bot instead (deterministic for a seed).
    """

    def __init__(
        self,
        game: Game,
        *,
        resist: bool,
        nodes: int = DEFAULT_NODES,
        reach: int = DEFAULT_REACH,
        time: float = DEFAULT_SEARCH_TIME,
        depth: int | None = None,
    ) -> None:
        name = "resist" if resist else "proven"
        for option, value, lowest, highest in (
            ("nodes", nodes, 1, _MAX_NODES),
            ("reach", reach, 0, 10**6),
        ):
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not lowest <= value <= highest
            ):
                raise InvalidPlayerError(
                    f"{name} option {option}={quoted(value)} must be a whole number from "
                    f"{lowest} to {highest}"
                )
        self.game = game
        self.resist = resist
        self.nodes = nodes
        self.reach = reach
        self.time = time
        self.fallback = search_player(game, time=time, depth=depth)
        factory = proven_moves_for(game)
        self.oracle: ProvenMoves | None = None if factory is None else factory()
        self.proven: ProvenMove | None = None
        """What the solver proved for the last move, or `None` (the search bot played)."""

    def _answer(self, state: State, time_left: float | None) -> ProvenMove | None:
        if self.oracle is None or len(state.legal_moves()) > self.reach:
            return None
        # Without a clock only the budget of positions bounds the solver (a move depends on the
        # position and the seed alone); with one, it also gets half the move's share.
        limit = None if time_left is None else move_budget(self.time, time_left) / 2
        return self.oracle(state, self.nodes, limit)

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if state.is_terminal() or state.is_chance():
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        started = clock.perf_counter()
        answer = self._answer(state, time_left)
        self.proven = None
        if answer is not None and answer.move is not None:
            winning = answer.winner == state.to_move
            if winning or self.resist:
                self.proven = answer
                plies = None
                if answer.moves is not None:
                    # The winner's moves, as plies from here (the side to move wins: 2k - 1).
                    plies = 2 * answer.moves - 1 if winning else -2 * answer.moves
                self.info = SearchInfo(
                    0,
                    1.0 if winning else -1.0,
                    answer.nodes,
                    clock.perf_counter() - started,
                    plies,
                )
                return answer.move
        if time_left is not None:
            time_left = max(0.0, time_left - (clock.perf_counter() - started))
        move = self.fallback.choose(state, rng, time_left)
        self.info = self.fallback.info
        return move

    def close(self) -> None:
        self.fallback.close()


def proven_player(
    game: Game,
    nodes: int = DEFAULT_NODES,
    reach: int = DEFAULT_REACH,
    time: float = DEFAULT_SEARCH_TIME,
    depth: int | None = None,
) -> Player:
    """Plays the fastest win (or a hold) its game's solver proves within a budget of
    positions, else the search bot.

    Options: `nodes`, the positions the solver may visit for a move; `reach`, the solver is
    asked only where at most this many moves are legal; `time` and `depth`, the search bot's.
    """
    return SolverPlayer(game, resist=False, nodes=nodes, reach=reach, time=time, depth=depth)


def resisting_player(
    game: Game,
    nodes: int = DEFAULT_NODES,
    reach: int = DEFAULT_REACH,
    time: float = DEFAULT_SEARCH_TIME,
    depth: int | None = None,
) -> Player:
    """Plays as the proven player does, and where its game's solver proves the loss, the
    move that puts it off longest.

    Options as for `proven`.
    """
    return SolverPlayer(game, resist=True, nodes=nodes, reach=reach, time=time, depth=depth)


class PerfectPlayer(Player):
    """Plays its game's proven winning strategy (the `perfect_moves` of its
    [`GameEntry`][abstractgames.registry.GameEntry]) wherever the strategy covers the position,
    and the `resist` player elsewhere (the other side, or a position the strategy does not
    reach); `info.route` says which, and why. The strategy's moves depend on the position
    alone. A strategy that needs work before it can answer (Order and Chaos's centre game,
    solved in some seconds once a process) does it when the player is made. On a clock, the
    strategy gets half the time left, and a position whose answer would take longer (a centre
    game off the solved one's tree) is played as `resist` with the other half.

    Args:
        game: the game.
        nodes, reach, time, depth: the `resist` player's, where it plays.
    """

    def __init__(
        self,
        game: Game,
        *,
        nodes: int = DEFAULT_NODES,
        reach: int = DEFAULT_REACH,
        time: float = DEFAULT_SEARCH_TIME,
        depth: int | None = None,
    ) -> None:
        self.game = game
        self.fallback = SolverPlayer(
            game, resist=True, nodes=nodes, reach=reach, time=time, depth=depth
        )
        factory = perfect_moves_for(game)
        self.strategy: PerfectStrategy | None = None if factory is None else factory()
        if self.strategy is not None:  # its own work done before the first move's clock
            self.strategy.prepare()

    def _reason(self, state: State) -> str:
        if self.strategy is None:
            return f"{self.game.name} has no proven strategy"
        return self.strategy.reason(state)

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if state.is_terminal() or state.is_chance():
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        started = clock.perf_counter()
        # On a clock, the strategy gets half the time left: the other half is the fallback's.
        limit = None if time_left is None else time_left / 2
        answer = None if self.strategy is None else self.strategy(state, limit)
        if answer is not None:
            bound = f", a win within {counted(answer.within, 'own move')}"
            self.info = SearchInfo(
                0,
                1.0,
                None,
                clock.perf_counter() - started,
                route=f"perfect: {answer.route}{bound}",
            )
            return answer.move
        reason = self._reason(state)
        if time_left is not None:
            time_left = max(0.0, time_left - (clock.perf_counter() - started))
        move = self.fallback.choose(state, rng, time_left)
        how = "the solver's proven move" if self.fallback.proven is not None else "the search bot"
        info = self.fallback.info or SearchInfo(0, None, None, 0.0)
        self.info = attrs.evolve(info, route=f"resist ({reason}): {how}")
        return move

    def close(self) -> None:
        self.fallback.close()


def perfect_player(
    game: Game,
    nodes: int = DEFAULT_NODES,
    reach: int = DEFAULT_REACH,
    time: float = DEFAULT_SEARCH_TIME,
    depth: int | None = None,
) -> Player:
    """Plays its game's proven winning strategy wherever it covers the position (Order and
    Chaos: Order's, from the start and wherever the pairing has been kept), else as `resist`.

    Options as for `resist`, for where it plays.
    """
    return PerfectPlayer(game, nodes=nodes, reach=reach, time=time, depth=depth)
