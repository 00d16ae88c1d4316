"""How the bots play dispersal Entropy: the evaluation, the search player and a solver.

**Evaluation** (:func:`evaluate`, used by the greedy player and at the search's horizon). A side
wins when each of its pieces touches an enemy and no friend, so for each side it counts

- *settled* pieces (touching an enemy and no friend): the dispersal already achieved;
- own *contacts* (pairs of touching friends), which dispersal must undo;
- *lonely* pieces (touching no enemy), which must still travel;
- *isolated* pieces (touching nothing): a side with one is in check at its turn and may only clear
  it, so the opponent's isolated pieces count for you;
- *movable* pieces (touching a friend: only they may move); a side with none is frozen for good;
- *threats*: moves that would disperse the side at once if it were its turn.

The value for a side is its own total minus the opponent's (the opponent's progress is your
danger), plus a small bonus for having the move. A lead over an opponent who must pass is not
trusted (cut to 0), and a side stuck in a fortress (the opponent cannot fit its pieces around it)
is worth a draw. A side to move with a winning move scores :data:`WIN_VALUE`; a finished game
scores ``±inf`` (or 0 for a draw).

**Search** (:class:`DispersalSearch`): iterative-deepening negamax alpha-beta with principal
variation search on bitboards, a transposition table, wins detected before anything else, and
move ordering by the table's move, killer moves and a check-aware static order. A pass does not
use up depth. Wins and losses are scored by their distance in plies, so the bot takes the fastest
win and resists a loss the longest. Without a win in sight it gives an opponent who must pass a
move again. The forced draws of the rules (repetition, passes, ply limit)
are handled so that the table stays sound: see :class:`_Searcher`.

**Solver** (:func:`solve`): an exact proof search for a forced win within a number of own moves.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import attrs

from ..dispersal import PASS, DispersalGame, DispersalState, Slide
from ..protocol import Game, IllegalMoveError, Move, State
from . import InvalidPlayerError, Player

__all__ = [
    "WIN_VALUE",
    "DispersalSearch",
    "SearchInfo",
    "Solution",
    "evaluate",
    "solve",
]

# --- bitboards ------------------------------------------------------------------------------------
# Bit i is square i (a1 = 0, b1 = 1, ..., e5 = 24), as in abstractgames.dispersal.

_W = 5
_N = _W * _W
_FULL = (1 << _N) - 1
_NOT_A = _FULL & ~sum(1 << (r * _W) for r in range(_W))
_NOT_E = _FULL & ~sum(1 << (r * _W + _W - 1) for r in range(_W))


def _touched(bits: int) -> int:
    """The squares touching at least one square of ``bits`` (a square does not touch itself)."""
    across = ((bits << 1) & _NOT_A) | ((bits >> 1) & _NOT_E)
    row = across | bits
    return (across | (row << _W) | (row >> _W)) & _FULL


def _contacts(bits: int) -> int:
    """The number of touching pairs within ``bits``."""
    return (
        (bits & (bits << 1) & _NOT_A).bit_count()
        + (bits & (bits << _W)).bit_count()
        + (bits & (bits << (_W + 1)) & _NOT_A).bit_count()
        + (bits & (bits << (_W - 1)) & _NOT_E).bit_count()
    )


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def _reach_table(
    square: int, directions: tuple[tuple[int, int], ...]
) -> tuple[int, dict[int, int]]:
    """The squares on ``square``'s lines, and the reach of a queen there for each subset of them
    occupied."""
    rays = []
    for df, dr in directions:
        ray, file, rank = [], square % _W + df, square // _W + dr
        while 0 <= file < _W and 0 <= rank < _W:
            ray.append(1 << (rank * _W + file))
            file, rank = file + df, rank + dr
        rays.append(ray)
    lines = sum(sum(ray) for ray in rays)
    table = {}
    occupied = 0
    while True:  # every subset of the lines, by the carry-rippler trick
        reach = 0
        for ray in rays:
            for bit in ray:
                if occupied & bit:
                    break
                reach |= bit
        table[occupied] = reach
        occupied = (occupied - lines) & lines
        if not occupied:
            return lines, table


_ROOK = [_reach_table(sq, ((1, 0), (-1, 0), (0, 1), (0, -1))) for sq in range(_N)]
_BISHOP = [_reach_table(sq, ((1, 1), (1, -1), (-1, 1), (-1, -1))) for sq in range(_N)]
_NEIGHBOURS = [_touched(1 << sq) for sq in range(_N)]


def _reach(piece: int, occupied: int) -> int:
    """The empty squares a queen on the single bit ``piece`` reaches."""
    sq = piece.bit_length() - 1
    rook_lines, rook = _ROOK[sq]
    bishop_lines, bishop = _BISHOP[sq]
    return rook[occupied & rook_lines] | bishop[occupied & bishop_lines]


def _moves(me: int, opp: int) -> list[int]:
    """The legal moves of the side with pieces ``me``, each as ``source_bit | target_bit``.

    Empty when the side must pass.
    """
    occupied = me | opp
    near_me = _touched(me)
    isolated = me & ~near_me & ~_touched(opp)
    out: list[int] = []
    if not isolated:
        for piece in _bits(me & near_me):
            reach = _reach(piece, occupied)
            out += [piece | target for target in _bits(reach)]
        return out
    # In check: the target must touch every isolated piece, and the move must isolate no other.
    needed = _FULL
    for piece in _bits(isolated):
        needed &= _NEIGHBOURS[piece.bit_length() - 1]
    for piece in _bits(me & near_me):
        for target in _bits(_reach(piece, occupied) & needed):
            after = me ^ piece ^ target
            if not after & ~_touched(occupied ^ piece ^ target):
                out.append(piece | target)
    return out


def _dispersed(own: int, other: int) -> bool:
    return not own & _touched(own) and own & _touched(other) == own


def _wins(me: int, opp: int) -> list[int]:
    """The moves of ``me`` after which ``me`` alone is dispersed (legal even in check)."""
    near_opp = _touched(opp)
    lonely = me & ~near_opp
    if lonely & (lonely - 1):
        return []  # two pieces touch no enemy and one move can help only one of them
    movable = me & _touched(me)
    candidates = lonely & movable if lonely else movable
    if not candidates:
        return []
    occupied = me | opp
    opp_can_disperse = not opp & _touched(opp)
    out = []
    for piece in _bits(candidates):
        rest = me ^ piece
        near_rest = _touched(rest)
        if rest & near_rest:
            continue
        for target in _bits(_reach(piece, occupied) & near_opp & ~near_rest):
            if opp_can_disperse and not opp & ~_touched(rest | target):
                continue  # both sides dispersed: a draw
            out.append(piece | target)
    return out


# --- the evaluation -------------------------------------------------------------------------------

WIN_VALUE = 100_000.0
"""The value of a position whose side to move can disperse itself at once."""

# The weights (evaluation units; tuned by play against the greedy and random players).
SETTLED = 6
"""Each piece touching an enemy and no friend."""
CONTACT = -4
"""Each pair of touching friends."""
LONELY = -12
"""Each piece touching no enemy."""
ISOLATED_OPPONENT = 8
"""Each enemy piece touching nothing (a check, at the enemy's turn)."""
MOVABLE = 2
"""Each of the first two pieces touching a friend (able to move)."""
FROZEN = -60
"""A side with no piece able to move: it never moves again."""
THREAT = 25
"""The opponent has a move that would disperse it, were it its turn."""
TO_MOVE = 3
"""Having the move."""


_SELF_AND_NEIGHBOURS = [_touched(1 << sq) | 1 << sq for sq in range(_N)]
_room_cache: dict[int, int] = {}


def _room(squares: int) -> int:
    """The most pieces that fit on ``squares`` without two touching (a maximum independent set)."""
    known = _room_cache.get(squares)
    if known is not None:
        return known
    if not squares:
        return 0
    low = squares & -squares
    closed = _SELF_AND_NEIGHBOURS[low.bit_length() - 1]
    best = 1 + _room(squares & ~closed)
    if squares & closed != low:  # the lowest square has a neighbour: try leaving it empty
        best = max(best, _room(squares ^ low))
    if len(_room_cache) > 1 << 20:
        _room_cache.clear()
    _room_cache[squares] = best
    return best


def _side_score(own: int, other: int, near_own: int, near_other: int) -> int:
    """One side's progress: settled, contacts, lonely, movable, frozen (see the module doc)."""
    settled = (own & near_other & ~near_own).bit_count()
    lonely = (own & ~near_other).bit_count()
    movable = (own & near_own).bit_count()
    score = (
        SETTLED * settled + CONTACT * _contacts(own) + LONELY * lonely + MOVABLE * min(movable, 2)
    )
    if not movable:
        score += FROZEN
    # The other side's isolated pieces (touching nothing): a check, or one waiting to happen.
    score += ISOLATED_OPPONENT * (other & ~near_other & ~near_own).bit_count()
    return score


def _stuck(own: int, other: int, near_own: int) -> bool:
    """Whether the side with pieces ``own`` would have to pass if it were its turn."""
    if not own & near_own:
        return True
    return bool(own & ~near_own & ~_touched(other)) and not _moves(own, other)


def _cannot_fit(own: int, other: int, near_other: int) -> bool:
    """Whether the pieces ``own`` could not all be dispersed around ``other`` standing still."""
    return own.bit_count() > _room(near_other & ~other)


def _static(me: int, opp: int, ours: bool) -> int:
    """The heuristic value for the side to move (pieces ``me``), without looking for wins.

    ``ours`` says whether the side to move is the one the value is wanted for (the root's side in
    a search); the value then leans to caution where the heuristic cannot be trusted.
    """
    near_me, near_opp = _touched(me), _touched(opp)
    value = _side_score(me, opp, near_me, near_opp) - _side_score(opp, me, near_opp, near_me)
    if _wins(opp, me):
        value -= THREAT  # the opponent threatens to disperse next turn
    value += TO_MOVE
    # A lead over an opponent who must pass is not trusted: the opponent stands still, and only
    # our own dispersal, which the search must find, can decide the game (without this the bot
    # freezes its opponent, then shuffles until the ply limit). Stuck ourselves, around pieces
    # between which the opponent cannot fit all its own, we hold a fortress: no worse than a draw.
    if ours:
        if value > 0 and _stuck(opp, me, near_opp):
            return 0
        if value < 0 and _stuck(me, opp, near_me) and _cannot_fit(opp, me, near_me):
            return 0
    else:
        if value < 0 and _stuck(me, opp, near_me):
            return 0
        if value > 0 and _stuck(opp, me, near_opp) and _cannot_fit(me, opp, near_opp):
            return 0
    return value


def _mine(state: DispersalState) -> tuple[int, int]:
    return (state.o, state.s) if state.side == "O" else (state.s, state.o)


def evaluate(state: State, role: str) -> float:
    """How good ``state`` is for ``role`` (``"O"`` or ``"S"``): higher is better.

    ``inf``/``-inf`` for a game won/lost and 0 for a draw; ``±WIN_VALUE`` when the side to move can
    disperse itself at once; otherwise the heuristic of the module doc. Its corrections for stuck
    sides are cautious for ``role``, so the values for the two roles are not always opposite.
    """
    assert isinstance(state, DispersalState)
    outcome = state.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return float("inf") if outcome.winner == role else float("-inf")
    me, opp = _mine(state)
    value = WIN_VALUE if _wins(me, opp) else float(_static(me, opp, role == state.side))
    return value if role == state.side else -value


# --- what the history of a state decides ----------------------------------------------------------


def _history(state: DispersalState, times: int) -> tuple[bool, frozenset[int]]:
    """Whether the move that led to ``state`` was a pass, and the positions (as search keys)
    that occur at least ``times`` times in its history, ``state`` included."""
    counts: dict[int, int] = {}
    node: Any = state._node  # the engine's chain of position keys (key, parent), newest first
    newest = node
    while node is not None:
        counts[node[0]] = counts.get(node[0], 0) + 1
        node = node[1]
    parent = newest[1]
    passed = parent is not None and parent[0] & _ENGINE_BOARDS == newest[0] & _ENGINE_BOARDS
    keys = frozenset(_engine_key_to_ours(key) for key, count in counts.items() if count >= times)
    return passed, keys


_ENGINE_BOARDS = (1 << 2 * _N) - 1  # the engine's key: o | s << 25 | side << 50


def _engine_key_to_ours(key: int) -> int:
    o, s, side = key & _FULL, key >> _N & _FULL, key >> 2 * _N
    return _key(o, s, side) if not side else _key(s, o, side)


def _key(me: int, opp: int, side: int, passed: bool = False) -> int:
    return me | opp << _N | side << 2 * _N | passed << (2 * _N + 1)


# --- the search -----------------------------------------------------------------------------------

_MATE = 1_000_000  # a win on ply k from the root scores _MATE - k
_MATED = _MATE - 1000  # scores beyond this are wins or losses
_INF = 10 * _MATE
_EXACT, _LOWER, _UPPER = 0, 1, 2
_PLY_SHIFT = 2 * _N + 2  # above the key's side and pass bits
CONTEMPT = 5
"""What the search bot gives up to avoid a draw (in evaluation units)."""


class _Timeout(Exception):
    pass


class _Searcher:
    """One alpha-beta search from one root; its tables live as long as the root.

    The transposition table is keyed on the board, the side to move and whether the last move was
    a pass. The draws that depend on the history are made functions of that key too, so that a
    stored value holds wherever the key comes up again: a position already seen in the game counts
    as a draw (the bot does not go round in circles), repetitions inside the search are ignored,
    and where the ply limit is within reach the ply joins the key. Wins and losses found this way
    are real: a forced win never needs to repeat a position.
    """

    def __init__(self, state: DispersalState) -> None:
        _, self.seen = _history(state, 1)
        self.root_ply = state.ply
        self.max_plies = state.game.max_plies
        self.deadline: float | None = None  # raise _Timeout after it (time.monotonic)
        self.nodes = 0
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.killers: dict[int, list[int]] = {}
        self.history: dict[int, int] = {}
        self.side = 0 if state.side == "O" else 1  # the side the search plays for
        self.draw = (-CONTEMPT, CONTEMPT) if self.side == 0 else (CONTEMPT, -CONTEMPT)

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & 255 and self.deadline is not None and time.monotonic() > self.deadline:
            raise _Timeout

    def _order(self, moves: list[int], me: int, opp: int, ply: int, best: int) -> list[int]:
        """The table's move, killers, checks, then by the history heuristic."""
        killers = self.killers.get(ply, ())
        history = self.history
        keyed = []
        for move in moves:
            if move == best:
                score = 1 << 40
            elif move in killers:
                score = 1 << 39
            else:
                score = history.get(move, 0)
                if opp & ~_touched(me ^ move | opp):
                    score += 1 << 30
            keyed.append((score, move))
        keyed.sort(key=_first, reverse=True)
        return [move for _, move in keyed]

    def child(self, me: int, opp: int, side: int, move: int, ply: int) -> int | None:
        """The value of ``move`` for the mover if the game ends with it, else ``None``."""
        after = me ^ move
        if not opp & _touched(opp) and not opp & ~_touched(after):
            return self.draw[side] if _dispersed(after, opp) else -_MATE + ply + 1
        if self.root_ply + ply + 1 >= self.max_plies or _key(opp, after, side ^ 1) in self.seen:
            return self.draw[side]
        return None

    def negamax(
        self,
        me: int,
        opp: int,
        side: int,
        passed: bool,
        ply: int,
        depth: int,
        alpha: int,
        beta: int,
    ) -> int:
        """The value for the side to move (pieces ``me``) within ``depth`` plies."""
        self._tick()
        if _wins(me, opp):
            return _MATE - ply - 1
        # No win next ply: the best is the opponent blundering (ply + 2), the worst losing at once.
        alpha = max(alpha, -_MATE + ply + 1)
        beta = min(beta, _MATE - ply - 2)
        if alpha >= beta:
            return alpha
        if depth <= 0:
            near_me = _touched(me)
            if me & near_me and not me & ~near_me & ~_touched(opp):
                return _static(me, opp, side == self.side)  # not in check nor frozen: can move
        moves = _moves(me, opp)
        if not moves:
            return self._pass(me, opp, side, passed, ply, depth, alpha, beta)
        if depth <= 0:
            return _static(me, opp, side == self.side)
        key = _key(me, opp, side, passed)
        room = self.max_plies - self.root_ply - ply - 2  # plies a stored depth may span
        if 2 * depth >= room:
            key |= self.root_ply + ply + 1 << _PLY_SHIFT  # the ply limit is in reach: it matters
        best_move = 0
        entry = self.table.get(key)
        if entry is not None:
            entry_depth, bound, value, best_move = entry
            if entry_depth >= depth and (2 * entry_depth < room or 2 * depth >= room):
                value = _from_table(value, ply)
                if (
                    bound == _EXACT
                    or (bound == _LOWER and value >= beta)
                    or (bound == _UPPER and value <= alpha)
                ):
                    return value
        original_alpha = alpha
        best_value = -_INF
        first = True
        for move in self._order(moves, me, opp, ply, best_move):
            value_or_none = self.child(me, opp, side, move, ply)
            if value_or_none is not None:
                value = value_or_none
            else:
                after = me ^ move
                if first:
                    value = -self.negamax(
                        opp, after, side ^ 1, False, ply + 1, depth - 1, -beta, -alpha
                    )
                else:
                    value = -self.negamax(
                        opp, after, side ^ 1, False, ply + 1, depth - 1, -alpha - 1, -alpha
                    )
                    if alpha < value < beta:
                        value = -self.negamax(
                            opp, after, side ^ 1, False, ply + 1, depth - 1, -beta, -alpha
                        )
            first = False
            if value > best_value:
                best_value, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self._cutoff(move, ply, depth)
                        break
        if best_value <= original_alpha:
            bound = _UPPER
        elif best_value >= beta:
            bound = _LOWER
        else:
            bound = _EXACT
        self.table[key] = (depth, bound, _to_table(best_value, ply), best_move)
        return best_value

    def _cutoff(self, move: int, ply: int, depth: int) -> None:
        killers = self.killers.setdefault(ply, [])
        if move not in killers:
            killers.insert(0, move)
            del killers[2:]
        self.history[move] = self.history.get(move, 0) + depth * depth

    def _pass(
        self,
        me: int,
        opp: int,
        side: int,
        passed: bool,
        ply: int,
        depth: int,
        alpha: int,
        beta: int,
    ) -> int:
        """The value when the side to move must pass: a pass costs no depth."""
        if passed or self.root_ply + ply + 1 >= self.max_plies:
            return self.draw[side]
        if _key(opp, me, side ^ 1) in self.seen:
            return self.draw[side]
        return -self.negamax(opp, me, side ^ 1, True, ply + 1, max(depth, 0), -beta, -alpha)


def _first(pair: tuple[int, int]) -> int:
    return pair[0]


def _to_table(value: int, ply: int) -> int:
    """Mate scores are stored as distances from the node, not from the root."""
    if value > _MATED:
        return value + ply
    if value < -_MATED:
        return value - ply
    return value


def _from_table(value: int, ply: int) -> int:
    if value > _MATED:
        return value - ply
    if value < -_MATED:
        return value + ply
    return value


def _move_of(state: DispersalState, mask: int) -> Move:
    """The engine's move object for ``source_bit | target_bit`` in ``state``."""
    me = state.s if state.side == "S" else state.o
    source, target = mask & me, mask & ~me
    return _SLIDES[(source.bit_length() - 1) * _N + target.bit_length() - 1]


_SLIDES = {a * _N + b: Slide(a, b) for a in range(_N) for b in range(_N) if a != b}


class DispersalSearch(Player):
    """Iterative-deepening alpha-beta with a transposition table and exact wins.

    After each move, ``last`` holds a :class:`SearchInfo` about the search that chose it.

    Args:
        game: a dispersal Entropy game.
        time: seconds per move; with a clock, at most a twentieth of the time left is used.
        depth: search exactly this many plies (passes not counted) instead, ignoring the clock:
            the same state, seed and depth always give the same move.
    """

    spec = "search"

    def __init__(self, game: Game, time: float = 1.0, depth: int | None = None) -> None:
        if not isinstance(game, DispersalGame):
            raise InvalidPlayerError(f"DispersalSearch plays dispersal Entropy, not {game.name!r}")
        if isinstance(time, bool) or not isinstance(time, int | float) or time <= 0:
            raise InvalidPlayerError(f"time={time!r} must be a positive number")
        if depth is not None and (
            isinstance(depth, bool) or not isinstance(depth, int) or depth < 1
        ):
            raise InvalidPlayerError(f"depth={depth!r} must be a positive integer")
        self.game = game
        self.time = float(time)
        self.depth = depth
        self.last: SearchInfo | None = None

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if not isinstance(state, DispersalState) or state.outcome() is not None:
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        started = time.monotonic()
        legal = state.legal_moves()
        me, opp = _mine(state)
        wins = _wins(me, opp)
        if wins:
            self.last = SearchInfo(1, _MATE - 1, 0, 0.0)
            return _move_of(state, rng.choice(sorted(wins)))
        if len(legal) == 1:
            self.last = SearchInfo(0, 0, 0, 0.0)
            return legal[0]
        if self.depth is None:
            budget = self.time if time_left is None else min(self.time, time_left / 20)
            deadline: float | None = started + budget
            max_depth = 64
        else:
            budget, deadline, max_depth = float("inf"), None, self.depth
        searcher = _Searcher(state)
        moves = _moves(me, opp)
        rng.shuffle(moves)  # the tie-break: sorting keeps the order of equals
        moves.sort(key=lambda move: _static(opp, me ^ move, False))  # the opponent's value
        ranked = [(-_INF, move) for move in moves]
        reached = 0
        for depth in range(1, max_depth + 1):
            searcher.deadline = deadline if depth > 1 else None
            try:
                ranked = _root(searcher, state, me, opp, [move for _, move in ranked], depth)
            except _Timeout:
                break
            reached = depth
            if abs(ranked[0][0]) > _MATED or time.monotonic() - started > budget / 2:
                break
        best_value, best = ranked[0]
        if best_value <= _MATED and _stuck(opp, me, _touched(opp)):
            # The opponent must pass and no win is in sight: give it moves back (the best move
            # that does, unless it is lost), or the bot would keep putting that off beyond its
            # horizon until the ply limit.
            near_opp = _touched(opp)
            for value, move in ranked:
                if value >= -_MATED and not _stuck(opp, me ^ move, near_opp):
                    best_value, best = value, move
                    break
        self.last = SearchInfo(reached, best_value, searcher.nodes, time.monotonic() - started)
        return _move_of(state, best)


@attrs.frozen
class SearchInfo:
    """What a search found.

    Attributes:
        depth: the depth of the last completed iteration (0: no search was needed).
        value: its value for the side to move; beyond ±999,000 a forced win or loss.
        nodes: the positions visited.
        seconds: the time taken.
    """

    depth: int
    value: int
    nodes: int
    seconds: float

    @property
    def mate_in(self) -> int | None:
        """Plies to a forced end (positive: a win for the side to move), else ``None``."""
        if self.value > _MATED:
            return _MATE - self.value
        if self.value < -_MATED:
            return -(_MATE + self.value)
        return None


def _root(
    searcher: _Searcher, state: DispersalState, me: int, opp: int, moves: list[int], depth: int
) -> list[tuple[int, int]]:
    """Search every root move to ``depth``; return ``(value, move)`` pairs, best first.

    Only the first value is exact; the others are upper bounds, or exact where they are wins or
    losses at once.
    """
    side = 0 if state.side == "O" else 1
    alpha, beta = -_INF, _INF
    scored: list[tuple[int, int, int]] = []
    for index, move in enumerate(moves):
        value_or_none = searcher.child(me, opp, side, move, 0)
        after = me ^ move
        if value_or_none is not None:
            value = value_or_none
        elif index == 0:
            value = -searcher.negamax(opp, after, side ^ 1, False, 1, depth - 1, -beta, -alpha)
        else:
            value = -searcher.negamax(opp, after, side ^ 1, False, 1, depth - 1, -alpha - 1, -alpha)
            if value > alpha:
                value = -searcher.negamax(opp, after, side ^ 1, False, 1, depth - 1, -beta, -alpha)
        scored.append((value, index, move))
        alpha = max(alpha, value)
    # Stable: among equal values the earlier (shuffled, then previously better) move stays first.
    scored.sort(key=lambda entry: (-entry[0], entry[1]))
    return [(value, move) for value, _, move in scored]


# --- the solver -----------------------------------------------------------------------------------


@attrs.frozen
class Solution:
    """What :func:`solve` found; ``str()`` says it in a line.

    Attributes:
        position: the position solved.
        side: the side to move, the one looking for a win.
        max_moves: the most moves of its own (passes included) the win may take.
        moves: how many own moves the fastest forced win takes, or ``None`` without one.
        line: a principal variation, both sides' moves and passes, the defence resisting longest;
            empty without a win.
        searched: the largest number of own moves within which no win exists (``moves - 1`` with
            a win, ``max_moves`` without one, less when the time limit stopped the search).
        nodes: the positions visited.
    """

    position: str
    side: str
    max_moves: int
    moves: int | None
    line: tuple[Move, ...]
    searched: int
    nodes: int = attrs.field(default=0, eq=False)

    @property
    def won(self) -> bool:
        """Whether a forced win was found."""
        return self.moves is not None

    @property
    def complete(self) -> bool:
        """Whether the answer is final (a win found, or none within ``max_moves`` for certain)."""
        return self.moves is not None or self.searched >= self.max_moves

    def __str__(self) -> str:
        if self.moves is not None:
            plural = "" if self.moves == 1 else "s"
            return f"{self.side} wins in {self.moves} move{plural}: {' '.join(map(str, self.line))}"
        if self.complete:
            return f"no forced win for {self.side} within {self.max_moves} moves"
        ruled_out = ""
        if self.searched:
            ruled_out = f"no forced win for {self.side} within {self.searched} moves; "
        return (
            f"{ruled_out}undecided within {self.max_moves}: the time limit stopped the search at "
            f"{self.searched + 1}"
        )


_PASS_MOVE = -1  # a pass, in the solver's tables


class _Prover:
    """A proof search: can the side to move at the root (the attacker) force a win within ``n``
    of its own turns?

    The tables are keyed like the search's (board, side to move, last move a pass), with the same
    treatment of history (see :class:`_Searcher`); a forced win within ``n`` turns never needs to
    repeat a position, so ignoring repetitions made up inside the proof loses nothing.
    """

    def __init__(self, state: DispersalState, deadline: float | None) -> None:
        self.passed, self.repeated = _history(state, 2)
        self.root_ply = state.ply
        self.max_plies = state.game.max_plies
        self.deadline = deadline
        self.nodes = 0
        self.proven: dict[int, tuple[int, int]] = {}  # key: (fewest turns known, the move)
        self.refuted: dict[int, tuple[int, int]] = {}  # key: (most turns known, the move)

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & 255 and self.deadline is not None and time.monotonic() > self.deadline:
            raise _Timeout

    def _table_key(self, key: int, ply: int, n: int) -> int:
        """The key itself, or with the ply when the ply limit is within reach of ``n`` turns."""
        if self.root_ply + ply + 2 * n + 2 < self.max_plies:
            return key
        return key | self.root_ply + ply + 1 << _PLY_SHIFT

    def attack(self, me: int, opp: int, side: int, passed: bool, ply: int, n: int) -> bool:
        """Whether the attacker (to move, pieces ``me``) wins within ``n`` of its turns."""
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
        """The attacker's winning move (``_PASS_MOVE`` for a pass), or 0."""
        wins = _wins(me, opp)
        if wins:
            return min(wins)
        if n == 1:
            # Only a move after which the defender must disperse the attacker can still win; the
            # defender cannot undo the attacker's own contacts, so the attacker must leave none.
            pieces = me & _touched(me)
            if not any(not (me ^ piece) & _touched(me ^ piece) for piece in _bits(pieces)):
                return 0
        moves = _moves(me, opp)
        limit = self.root_ply + ply + 1 >= self.max_plies
        if not moves:
            if passed or limit or n == 1 or _key(opp, me, side ^ 1) in self.repeated:
                return 0
            return _PASS_MOVE if self.defend(opp, me, side ^ 1, True, ply + 1, n - 1) else 0
        if limit:
            return 0
        if n == 1:
            moves = [move for move in moves if not (me ^ move) & _touched(me ^ move)]
        opp_can_disperse = not opp & _touched(opp)
        ordered = []
        for move in moves:
            after = me ^ move
            if opp_can_disperse and not opp & ~_touched(after):
                continue  # disperses the defender: a loss or a draw
            if _key(opp, after, side ^ 1) in self.repeated:
                continue
            # Forcing moves first: checks (the defender may only clear them), then threats.
            score = 0
            if opp & ~_touched(after | opp):
                score += 2
            if n > 1 and _wins(after, opp):
                score += 1
            ordered.append((score, move))
        ordered.sort(key=_first, reverse=True)
        for _, move in ordered:
            if self.defend(opp, me ^ move, side ^ 1, False, ply + 1, n - 1):
                return move
        return 0

    def defend(self, me: int, opp: int, side: int, passed: bool, ply: int, n: int) -> bool:
        """Whether the attacker (pieces ``opp``) wins within ``n`` more turns of its own, the
        defender (pieces ``me``) to move."""
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
        """A defender's move that escapes (``_PASS_MOVE`` for a pass), or 0 if none does."""
        if _wins(me, opp):
            return _PASS_MOVE  # any escape will do: the defender disperses itself
        moves = _moves(me, opp)
        limit = self.root_ply + ply + 1 >= self.max_plies
        if not moves:
            if passed or limit or _key(opp, me, side ^ 1) in self.repeated:
                return _PASS_MOVE
            return 0 if self.attack(opp, me, side ^ 1, True, ply + 1, n) else _PASS_MOVE
        opp_can_disperse = not opp & _touched(opp)
        previous = self.refuted.get(key)
        ordered = []
        for move in moves:
            after = me ^ move
            if opp_can_disperse and not opp & ~_touched(after):
                if _dispersed(after, opp):
                    return move  # both dispersed: a draw
                continue  # disperses the attacker: not an escape
            if limit or n <= 0 or _key(opp, after, side ^ 1) in self.repeated:
                return move
            # Likely escapes first: the last one found here, then moves leaving no threat.
            if previous is not None and move == previous[1]:
                score = -2
            else:
                score = -1 if n > 1 and not _wins(opp, after) else 0
            ordered.append((score, move))
        ordered.sort(key=_first)
        for _, move in ordered:
            if not self.attack(opp, me ^ move, side ^ 1, False, ply + 1, n):
                return move
        return 0

    def fewest(self, me: int, opp: int, side: int, passed: bool, ply: int, n: int) -> int | None:
        """The fewest turns within which the attacker to move wins, up to ``n``."""
        for k in range(1, n + 1):
            if self.attack(me, opp, side, passed, ply, k):
                return k
        return None

    def line(self, me: int, opp: int, side: int, passed: bool, n: int) -> list[int]:
        """A principal variation of a win within ``n`` turns, the defender resisting longest."""
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
                if _dispersed(me, opp):
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
        moves = _moves(me, opp)
        if not moves:
            return _PASS_MOVE, self.fewest(opp, me, side ^ 1, True, ply + 1, n) or n
        best, most = 0, -1
        for move in moves:
            after = me ^ move
            if not opp & _touched(opp) and not opp & ~_touched(after):
                turns = 0  # disperses the attacker
            else:
                turns = self.fewest(opp, after, side ^ 1, False, ply + 1, n) or n
            if turns > most:
                best, most = move, turns
        return best, most


def solve(state: State, max_moves: int, time_limit: float | None = None) -> Solution:
    """Whether the side to move can force a win within ``max_moves`` of its own turns.

    Exact: a win is reported only if it is forced against every defence, and "no forced win" only
    if none exists, under all the rules, the history of ``state`` included. Wins are looked for in
    one own move, then two, and so on, so the win reported is the fastest.

    Args:
        state: a dispersal Entropy position, not finished.
        max_moves: how many own turns (passes included) the win may take, at least 1.
        time_limit: seconds; when they run out the search stops and reports how far it got.

    Returns:
        A :class:`Solution` with the number of moves and a principal variation, or none.

    Raises:
        ValueError: the game is over, ``state`` is not dispersal Entropy, or ``max_moves`` < 1.
    """
    if not isinstance(state, DispersalState):
        raise ValueError(f"solve() reads dispersal Entropy positions, not {state!r}")
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise ValueError(f"max_moves={max_moves!r} must be a positive integer")
    outcome = state.outcome()
    if outcome is not None:
        raise ValueError(f"the game is over ({outcome.reason}) in {state.position()}")
    deadline = None if time_limit is None else time.monotonic() + time_limit
    prover = _Prover(state, deadline)
    me, opp = _mine(state)
    side = 0 if state.side == "O" else 1
    searched = 0
    found: int | None = None
    try:
        for n in range(1, max_moves + 1):
            if prover.attack(me, opp, side, prover.passed, 0, n):
                found = n
                break
            searched = n
    except _Timeout:
        pass
    line: tuple[Move, ...] = ()
    if found is not None:
        prover.deadline = None
        masks = prover.line(me, opp, side, prover.passed, found)
        line = _line_moves(state, masks)
    return Solution(state.position(), state.side, max_moves, found, line, searched, prover.nodes)


def _line_moves(state: DispersalState, masks: list[int]) -> tuple[Move, ...]:
    """The engine's moves for a line of masks from ``state``, checked by playing them."""
    moves = []
    for mask in masks:
        move = PASS if mask == _PASS_MOVE else _move_of(state, mask)
        moves.append(move)
        state = state.apply(move)
    return tuple(moves)
