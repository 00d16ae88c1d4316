"""How the bots play dispersal Entropy: the evaluation and the search player.

**Evaluation** ([`evaluate`][], used by the greedy player and at the search's horizon). A side
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
is worth a draw. A side to move with a winning move scores [`WIN_VALUE`][]; a finished game
scores `±inf` (or 0 for a draw).

**Search** ([`DispersalSearch`][]): iterative-deepening negamax alpha-beta with principal variation
search on bitboards (the game's kernels: [`move_masks`][], [`winning_masks`][] and the others), a
transposition table, wins detected before anything else, and move ordering by the table's move,
killer moves and a check-aware static order. A pass does not use up depth. Wins and losses are
scored by their distance in plies, so the bot takes the fastest win and resists a loss the longest.
Without a win in sight it gives an opponent who must pass a move again. The forced draws of the
rules (repetition, passes, ply limit) are handled so that the table stays sound (see
[Dispersal bots](../bots-dispersal.md)).

The exact solver is [`abstractgames.solvers.dispersal.solve`][].
"""

from __future__ import annotations

import random

from ..dispersal import (
    NEIGHBOURS,
    SIZE,
    DispersalGame,
    DispersalState,
    contacts,
    is_dispersed,
    move_masks,
    slide_of,
    split_key,
    touched,
    winning_masks,
)
from ..protocol import Game, IllegalMoveError, Move, State
from ..timing import NO_DEADLINE, Deadline, SearchTimeout, move_budget
from . import InvalidPlayerError, Player, SearchInfo

__all__ = [
    "WIN_VALUE",
    "DispersalSearch",
    "evaluate",
]

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


_SELF_AND_NEIGHBOURS = [NEIGHBOURS[sq] | 1 << sq for sq in range(SIZE)]
_room_cache: dict[int, int] = {}


def _room(squares: int) -> int:
    """The most pieces that fit on `squares` without two touching (a maximum independent set)."""
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
        SETTLED * settled + CONTACT * contacts(own) + LONELY * lonely + MOVABLE * min(movable, 2)
    )
    if not movable:
        score += FROZEN
    # The other side's isolated pieces (touching nothing): a check, or one waiting to happen.
    score += ISOLATED_OPPONENT * (other & ~near_other & ~near_own).bit_count()
    return score


def _stuck(own: int, other: int, near_own: int) -> bool:
    """Whether the side with pieces `own` would have to pass if it were its turn."""
    if not own & near_own:
        return True
    return bool(own & ~near_own & ~touched(other)) and not move_masks(own, other)


def _cannot_fit(own: int, other: int, near_other: int) -> bool:
    """Whether the pieces `own` could not all be dispersed around `other` standing still."""
    return own.bit_count() > _room(near_other & ~other)


def _static(me: int, opp: int, ours: bool) -> int:
    """The heuristic value for the side to move (pieces `me`), without looking for wins.

    `ours` says whether the side to move is the one the value is wanted for (the root's side in
    a search); the value then leans to caution where the heuristic cannot be trusted.
    """
    near_me, near_opp = touched(me), touched(opp)
    value = _side_score(me, opp, near_me, near_opp) - _side_score(opp, me, near_opp, near_me)
    if winning_masks(opp, me):
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
    """How good `state` is for `role` (`"O"` or `"S"`): higher is better.

    `inf`/`-inf` for a game won/lost and 0 for a draw; `±WIN_VALUE` when the side to move can
    disperse itself at once; otherwise the heuristic of the module doc. Its corrections for stuck
    sides are cautious for `role`, so the values for the two roles are not always opposite.
    """
    assert isinstance(state, DispersalState)
    outcome = state.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return float("inf") if outcome.winner == role else float("-inf")
    me, opp = _mine(state)
    value = WIN_VALUE if winning_masks(me, opp) else float(_static(me, opp, role == state.side))
    return value if role == state.side else -value


# --- what the history of a state decides ----------------------------------------------------------


def _history(state: DispersalState, times: int) -> tuple[bool, frozenset[int]]:
    """Whether the move that led to `state` was a pass, and the positions (as search keys)
    that occur at least `times` times in its history, `state` included."""
    keys = state.history()
    counts: dict[int, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    passed = len(keys) > 1 and split_key(keys[-1])[:2] == split_key(keys[-2])[:2]
    return passed, frozenset(_search_key(key) for key, count in counts.items() if count >= times)


def _search_key(key: int) -> int:
    """The search's key of the game's position key."""
    o, s, side = split_key(key)
    return _key(o, s, side) if not side else _key(s, o, side)


def _key(me: int, opp: int, side: int, passed: bool = False) -> int:
    return me | opp << SIZE | side << 2 * SIZE | passed << (2 * SIZE + 1)


# --- the search -----------------------------------------------------------------------------------

_MATE = 1_000_000  # a win on ply k from the root scores _MATE - k
_MATED = _MATE - 1000  # scores beyond this are wins or losses
_INF = 10 * _MATE
_EXACT, _LOWER, _UPPER = 0, 1, 2
_PLY_SHIFT = 2 * SIZE + 2  # above the key's side and pass bits
CONTEMPT = 5
"""What the search bot gives up to avoid a draw (in evaluation units)."""


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
        self.deadline = NO_DEADLINE
        self.nodes = 0
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.killers: dict[int, list[int]] = {}
        self.history: dict[int, int] = {}
        self.side = 0 if state.side == "O" else 1  # the side the search plays for
        self.draw = (-CONTEMPT, CONTEMPT) if self.side == 0 else (CONTEMPT, -CONTEMPT)

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & 255:
            self.deadline.check()

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
                if opp & ~touched(me ^ move | opp):
                    score += 1 << 30
            keyed.append((score, move))
        keyed.sort(key=_first, reverse=True)
        return [move for _, move in keyed]

    def child(self, me: int, opp: int, side: int, move: int, ply: int) -> int | None:
        """The value of `move` for the mover if the game ends with it, else `None`."""
        after = me ^ move
        if not opp & touched(opp) and not opp & ~touched(after):
            return self.draw[side] if is_dispersed(after, opp) else -_MATE + ply + 1
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
        """The value for the side to move (pieces `me`) within `depth` plies."""
        self._tick()
        if winning_masks(me, opp):
            return _MATE - ply - 1
        # No win next ply: the best is the opponent blundering (ply + 2), the worst losing at once.
        alpha = max(alpha, -_MATE + ply + 1)
        beta = min(beta, _MATE - ply - 2)
        if alpha >= beta:
            return alpha
        if depth <= 0:
            near_me = touched(me)
            if me & near_me and not me & ~near_me & ~touched(opp):
                return _static(me, opp, side == self.side)  # not in check nor frozen: can move
        moves = move_masks(me, opp)
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


class DispersalSearch(Player):
    """Iterative-deepening alpha-beta with a transposition table and exact wins.

    After each move, [`info`][abstractgames.players.Player.info] holds a
    [`SearchInfo`][abstractgames.players.SearchInfo] about the search that chose it (its value
    in evaluation units; `mate_in` where it found a forced end).

    Args:
        game: a dispersal Entropy game.
        time: seconds per move; with a clock, at most its share of the time left
            ([`move_budget`][abstractgames.timing.move_budget]).
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
        self.info: SearchInfo | None = None

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if not isinstance(state, DispersalState) or state.outcome() is not None:
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        legal = state.legal_moves()
        me, opp = _mine(state)
        wins = winning_masks(me, opp)
        if wins:
            self.info = _info(1, _MATE - 1, 0, 0.0)
            return slide_of(rng.choice(sorted(wins)), me)
        if len(legal) == 1:
            self.info = _info(0, 0, 0, 0.0)
            return legal[0]
        if self.depth is None:
            budget = move_budget(self.time, time_left)
            deadline = Deadline(budget)
            max_depth = 64
        else:
            budget, deadline, max_depth = float("inf"), Deadline(None), self.depth
        searcher = _Searcher(state)
        moves = move_masks(me, opp)
        rng.shuffle(moves)  # the tie-break: sorting keeps the order of equals
        moves.sort(key=lambda move: _static(opp, me ^ move, False))  # the opponent's value
        ranked = [(-_INF, move) for move in moves]
        reached = 0
        for depth in range(1, max_depth + 1):
            searcher.deadline = deadline if depth > 1 else NO_DEADLINE
            try:
                ranked = _root(searcher, state, me, opp, [move for _, move in ranked], depth)
            except SearchTimeout:
                break
            reached = depth
            if abs(ranked[0][0]) > _MATED or deadline.elapsed() > budget / 2:
                break
        best_value, best = ranked[0]
        if best_value <= _MATED and _stuck(opp, me, touched(opp)):
            # The opponent must pass and no win is in sight: give it moves back (the best move
            # that does, unless it is lost), or the bot would keep putting that off beyond its
            # horizon until the ply limit.
            near_opp = touched(opp)
            for value, move in ranked:
                if value >= -_MATED and not _stuck(opp, me ^ move, near_opp):
                    best_value, best = value, move
                    break
        self.info = _info(reached, best_value, searcher.nodes, deadline.elapsed())
        return slide_of(best, me)


def _info(depth: int, value: int, nodes: int, seconds: float) -> SearchInfo:
    """A search's [`SearchInfo`][abstractgames.players.SearchInfo]: values beyond ±999,000 are
    forced wins or losses."""
    mate_in = None
    if value > _MATED:
        mate_in = _MATE - value
    elif value < -_MATED:
        mate_in = -(_MATE + value)
    return SearchInfo(depth, value, nodes, seconds, mate_in)


def _root(
    searcher: _Searcher, state: DispersalState, me: int, opp: int, moves: list[int], depth: int
) -> list[tuple[int, int]]:
    """Search every root move to `depth`; return `(value, move)` pairs, best first.

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
