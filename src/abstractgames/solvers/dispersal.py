"""An exact solver for dispersal Entropy: can the side to move force a win within N moves?

[`solve`][] answers with a [`Solution`][abstractgames.solvers.Solution]: the side to move is the
attacker, and "no forced win" is as far as it goes (it proves no hold). It is a depth-first proof
search on bitboards with the game's kernels ([`move_masks`][], [`winning_masks`][] and the others),
tried for one own move, then two, and so on, so the win it reports is the fastest; a `progress`
callback hears of each number of moves ruled out on the way (the command line's `solve` prints them
as it goes). [`SOLVER`][] is the entry the registry gives: progress, and no memory bound, checkpoint
or certificates.

Examples:
    >>> from abstractgames import get_game
    >>> print(solve(get_game("dispersal").from_position("S1O1O/O1SOS/S4/OOSSO/S4 S"), 3))
    S wins in 1 move: d2-e1
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter

from ..dispersal import (
    PASS,
    SIZE,
    DispersalState,
    is_dispersed,
    move_masks,
    slide_of,
    split_key,
    touched,
    winning_masks,
)
from ..protocol import Move, State
from ..timing import NO_DEADLINE, Deadline, SearchTimeout
from . import Progress, Solution, SolverEntry

__all__ = ["SOLVER", "solve"]

# A position in the tables: me | opp << 25 | side << 50 | passed << 51 (side 0 for O, 1 for S;
# passed: the last move was a pass), with the ply from the start above when it matters.
_PLY_SHIFT = 2 * SIZE + 2
_PASS_MOVE = -1  # a pass, in the solver's tables
_first = itemgetter(0)


def _key(me: int, opp: int, side: int, passed: bool = False) -> int:
    return me | opp << SIZE | side << 2 * SIZE | passed << (2 * SIZE + 1)


def _history(state: DispersalState, times: int) -> tuple[bool, frozenset[int]]:
    """Whether the move that led to `state` was a pass, and the positions (as table keys) that
    occur at least `times` times in its history, `state` included."""
    keys = state.history()
    counts: dict[int, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    passed = len(keys) > 1 and split_key(keys[-1])[:2] == split_key(keys[-2])[:2]
    repeated = set()
    for key, count in counts.items():
        if count >= times:
            o, s, side = split_key(key)
            repeated.add(_key(s, o, side) if side else _key(o, s, side))
    return passed, frozenset(repeated)


class _Prover:
    """A proof search: can the side to move at the root (the attacker) force a win within `n`
    of its own turns?

    The tables are keyed on the board, the side to move and whether the last move was a pass; the
    draws that depend on the history are made functions of that key, as in the search bot: a
    position that occurred twice in the game's history is a draw on its next occurrence,
    repetitions made up inside the proof are ignored (a forced win within `n` turns never needs
    to repeat a position, so this loses nothing), and where the ply limit is within reach of `n`
    turns the ply joins the key.
    """

    def __init__(self, state: DispersalState, deadline: Deadline) -> None:
        self.passed, self.repeated = _history(state, 2)
        self.root_ply = state.ply
        self.max_plies = state.game.max_plies
        self.deadline = deadline
        self.nodes = 0
        self.proven: dict[int, tuple[int, int]] = {}  # key: (fewest turns known, the move)
        self.refuted: dict[int, tuple[int, int]] = {}  # key: (most turns known, the move)

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & 255:
            self.deadline.check()

    def _table_key(self, key: int, ply: int, n: int) -> int:
        """The key itself, or with the ply when the ply limit is within reach of `n` turns."""
        if self.root_ply + ply + 2 * n + 2 < self.max_plies:
            return key
        return key | self.root_ply + ply + 1 << _PLY_SHIFT

    def attack(self, me: int, opp: int, side: int, passed: bool, ply: int, n: int) -> bool:
        """Whether the attacker (to move, pieces `me`) wins within `n` of its turns."""
        self._tick()
        if n <= 1:
            return n == 1 and bool(self._attack(me, opp, side, passed, ply, 1))
        key = self._table_key(_key(me, opp, side, passed), ply, n)
        proven = self.proven.get(key)
        if proven is not None and proven[0] <= n:
            return True
        refuted = self.refuted.get(key)
        if refuted is not None and refuted[0] >= n:
            return False
        result = self._attack(me, opp, side, passed, ply, n)
        if result:
            self.proven[key] = (n, result)
        else:
            self.refuted[key] = (n, 0)
        return bool(result)

    def _attack(self, me: int, opp: int, side: int, passed: bool, ply: int, n: int) -> int:
        """The attacker's winning move (`_PASS_MOVE` for a pass), or 0."""
        wins = winning_masks(me, opp)
        if wins:
            return min(wins)
        if n == 1:
            # Only a move after which the defender must disperse the attacker can still win; the
            # defender cannot undo the attacker's own contacts, so the attacker must leave none.
            pieces = me & touched(me)
            while pieces:
                piece = pieces & -pieces
                pieces ^= piece
                if not (me ^ piece) & touched(me ^ piece):
                    break
            else:
                return 0
        moves = move_masks(me, opp)
        limit = self.root_ply + ply + 1 >= self.max_plies
        if not moves:
            if passed or limit or n == 1 or _key(opp, me, side ^ 1) in self.repeated:
                return 0
            return _PASS_MOVE if self.defend(opp, me, side ^ 1, True, ply + 1, n - 1) else 0
        if limit:
            return 0
        if n == 1:
            moves = [move for move in moves if not (me ^ move) & touched(me ^ move)]
        opp_can_disperse = not opp & touched(opp)
        ordered = []
        for move in moves:
            after = me ^ move
            if opp_can_disperse and not opp & ~touched(after):
                continue  # disperses the defender: a loss or a draw
            if _key(opp, after, side ^ 1) in self.repeated:
                continue
            # Forcing moves first: checks (the defender may only clear them), then threats.
            score = 0
            if opp & ~touched(after | opp):
                score += 2
            if n > 1 and winning_masks(after, opp):
                score += 1
            ordered.append((score, move))
        ordered.sort(key=_first, reverse=True)
        for _, move in ordered:
            if self.defend(opp, me ^ move, side ^ 1, False, ply + 1, n - 1):
                return move
        return 0

    def defend(self, me: int, opp: int, side: int, passed: bool, ply: int, n: int) -> bool:
        """Whether the attacker (pieces `opp`) wins within `n` more turns of its own, the
        defender (pieces `me`) to move."""
        self._tick()
        key = self._table_key(_key(me, opp, side, passed), ply, n)
        proven = self.proven.get(key)
        if proven is not None and proven[0] <= n:
            return True
        refuted = self.refuted.get(key)
        if refuted is not None and refuted[0] >= n:
            return False
        refutation = self._refute(me, opp, side, passed, ply, n, key)
        if refutation:
            self.refuted[key] = (n, refutation)
        else:
            self.proven[key] = (n, 0)
        return not refutation

    def _refute(
        self, me: int, opp: int, side: int, passed: bool, ply: int, n: int, key: int
    ) -> int:
        """A defender's move that escapes (`_PASS_MOVE` for a pass), or 0 if none does."""
        if winning_masks(me, opp):
            return _PASS_MOVE  # any escape will do: the defender disperses itself
        moves = move_masks(me, opp)
        limit = self.root_ply + ply + 1 >= self.max_plies
        if not moves:
            if passed or limit or _key(opp, me, side ^ 1) in self.repeated:
                return _PASS_MOVE
            return 0 if self.attack(opp, me, side ^ 1, True, ply + 1, n) else _PASS_MOVE
        opp_can_disperse = not opp & touched(opp)
        previous = self.refuted.get(key)
        ordered = []
        for move in moves:
            after = me ^ move
            if opp_can_disperse and not opp & ~touched(after):
                if is_dispersed(after, opp):
                    return move  # both dispersed: a draw
                continue  # disperses the attacker: not an escape
            if limit or n <= 0 or _key(opp, after, side ^ 1) in self.repeated:
                return move
            # Likely escapes first: the last one found here, then moves leaving no threat.
            if previous is not None and move == previous[1]:
                score = -2
            else:
                score = -1 if n > 1 and not winning_masks(opp, after) else 0
            ordered.append((score, move))
        ordered.sort(key=_first)
        for _, move in ordered:
            if not self.attack(opp, me ^ move, side ^ 1, False, ply + 1, n):
                return move
        return 0

    def fewest(self, me: int, opp: int, side: int, passed: bool, ply: int, n: int) -> int | None:
        """The fewest turns within which the attacker to move wins, up to `n`."""
        for k in range(1, n + 1):
            if self.attack(me, opp, side, passed, ply, k):
                return k
        return None

    def line(self, me: int, opp: int, side: int, passed: bool, n: int) -> list[int]:
        """A principal variation of a win within `n` turns, the defender resisting longest."""
        line: list[int] = []
        ply = 0
        while True:
            turns = self.fewest(me, opp, side, passed, ply, n)
            assert turns is not None
            move = self._attack(me, opp, side, passed, ply, turns)
            line.append(move)
            passed = move == _PASS_MOVE
            if not passed:
                me ^= move
                if is_dispersed(me, opp):
                    return line
            reply, n = self._longest_defence(opp, me, side ^ 1, passed, ply + 1, turns - 1)
            line.append(reply)
            passed = reply == _PASS_MOVE
            if not passed:
                opp ^= reply
                if n == 0:
                    return line  # forced to disperse the attacker
            ply += 2

    def _longest_defence(
        self, me: int, opp: int, side: int, passed: bool, ply: int, n: int
    ) -> tuple[int, int]:
        """The defender's reply after which the attacker needs the most turns, and that number."""
        moves = move_masks(me, opp)
        if not moves:
            return _PASS_MOVE, self.fewest(opp, me, side ^ 1, True, ply + 1, n) or n
        best, most = 0, -1
        for move in moves:
            after = me ^ move
            if not opp & touched(opp) and not opp & ~touched(after):
                turns = 0  # disperses the attacker
            else:
                turns = self.fewest(opp, after, side ^ 1, False, ply + 1, n) or n
            if turns > most:
                best, most = move, turns
        return best, most


def solve(
    state: State,
    max_moves: int,
    time_limit: float | None = None,
    *,
    progress: Callable[[Progress], None] | None = None,
) -> Solution:
    """Whether the side to move can force a win within `max_moves` of its own turns.

    Exact: a win is reported only if it is forced against every defence, and "no forced win" only
    if none exists, under all the rules, the history of `state` included. Wins are looked for in
    one own move, then two, and so on (iterative deepening), so the win reported is the fastest.

    Args:
        state: a dispersal Entropy position, not finished.
        max_moves: how many own turns (passes included) the win may take, at least 1.
        time_limit: seconds; when they run out the search stops and reports how far it got.
        progress: called with a [`Progress`][abstractgames.solvers.Progress] each time a
            number of moves is ruled out and the search goes one move deeper.

    Returns:
        A [`Solution`][abstractgames.solvers.Solution]: the side to move the winner with the
        number of moves and a principal variation, or no winner.

    Raises:
        ValueError: the game is over, `state` is not dispersal Entropy, or `max_moves` < 1.
    """
    if not isinstance(state, DispersalState):
        raise ValueError(f"solve() reads dispersal Entropy positions, not {state!r}")
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise ValueError(f"max_moves={max_moves!r} must be a positive integer")
    outcome = state.outcome()
    if outcome is not None:
        raise ValueError(f"the game is over ({outcome.reason}) in {state.position()}")
    deadline = Deadline(time_limit)
    prover = _Prover(state, deadline)
    side = 0 if state.side == "O" else 1
    me, opp = (state.s, state.o) if side else (state.o, state.s)
    searched = 0
    found: int | None = None
    try:
        for n in range(1, max_moves + 1):
            if prover.attack(me, opp, side, prover.passed, 0, n):
                found = n
                break
            searched = n
            if progress is not None and n < max_moves:
                progress(Progress(state.side, n, prover.nodes, deadline.elapsed()))
    except SearchTimeout:
        pass
    line: tuple[Move, ...] = ()
    if found is not None:
        prover.deadline = NO_DEADLINE
        masks = prover.line(me, opp, side, prover.passed, found)
        line = _line_moves(state, masks)
    return Solution(
        state.position(),
        state.side,
        state.side,
        max_moves,
        None if found is None else state.side,
        found,
        line,
        searched,
        prover.nodes,
    )


def _line_moves(state: DispersalState, masks: list[int]) -> tuple[Move, ...]:
    """The engine's moves for a line of masks from `state`, checked by playing them."""
    moves = []
    for mask in masks:
        own = state.s if state.side == "S" else state.o
        move = PASS if mask == _PASS_MOVE else slide_of(mask, own)
        moves.append(move)
        state = state.apply(move)
    return tuple(moves)


SOLVER = SolverEntry(solve, progress=True)
"""The solver as the registry gives it: it takes a `progress` callback; no memory bound, no
checkpoint, no certificates."""
