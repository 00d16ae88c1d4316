"""How the bots judge and search an Order and Chaos position.

**Line potential** (the greedy player's evaluation): every five-square window that holds only one
kind of symbol (and empty squares) could still become Order's line; it is worth `WEIGHTS[k]` for
its `k` symbols. A window holding both symbols is dead. Order wants the total high, Chaos low; a
window with four and a gap is a threat to win on the next move, so it weighs far more than the rest.

**Search** ([`OrderChaosSearch`][], the `search` player): iterative-deepening alpha-beta with a
transposition table, built on the threats of the game:

- a *four* (four like symbols and a gap in a window) wins at once for Order to move; Chaos must put
  the other symbol in the gap, and two fours with different answers win for Order;
- Chaos never plays a move that makes a four (it would lose at once), so a square where both
  symbols make a four is poison for Chaos: when only such squares are left, Chaos is lost;
- Order's *victory by continuous fours* (a chain of fours, each answered by the forced block, that
  ends in two fours at once) is searched at every leaf where Order moves, and when Chaos moves the
  same search, as if Order moved twice, tells which squares Chaos must play in to survive.
"""

from __future__ import annotations

import random

from ..orderchaos import (
    CHAOS,
    FULL,
    MOVES,
    ORDER,
    SIZE,
    WEIGHTS,
    WINDOW_INDICES_THROUGH,
    WINDOWS,
    WINDOWS_THROUGH,
    OrderChaosState,
)
from ..protocol import Game, IllegalMoveError, Move, State
from ..timing import NO_DEADLINE, Deadline, SearchTimeout, move_budget
from . import Player, SearchInfo

__all__ = ["WEIGHTS", "OrderChaosSearch", "evaluate", "line_potential"]


def line_potential(state: OrderChaosState) -> int:
    """The sum of the weights of all live windows."""
    x, o = state.x, state.o
    total = 0
    for window in WINDOWS:
        xs = (x & window).bit_count()
        os_ = (o & window).bit_count()
        if not os_:
            total += WEIGHTS[xs]
        if not xs:
            total += WEIGHTS[os_]
    return total


def evaluate(state: State, role: str) -> float:
    """Higher is better for `role`: ±inf once decided, else line potential (negated for Chaos)."""
    assert isinstance(state, OrderChaosState)
    outcome = state.outcome()
    if outcome is not None:
        return float("inf") if outcome.winner == role else float("-inf")
    potential = float(line_potential(state))
    return potential if role == ORDER else -potential if role == CHAOS else 0.0


# --- the search bot -------------------------------------------------------------------------------
#
# Inside the search a position is the pair of bitboards (x, o); a move is the int ``2 * square``
# for X and ``2 * square + 1`` for O, its index in ``MOVES``. Values are from Order's side.

# The windows through either of two squares, for the threes two placements may change.
_THROUGH_EITHER = tuple(
    tuple(
        tuple(WINDOWS[i] for i in sorted({*WINDOW_INDICES_THROUGH[a], *WINDOW_INDICES_THROUGH[b]}))
        for b in range(SIZE)
    )
    for a in range(SIZE)
)

# Values beyond ±_MATE are proven wins; the distance in plies is subtracted to prefer quick ones.
_WIN = 1_000_000
_MATE = _WIN - 1_000
_EXACT, _LOWER, _UPPER = 0, 1, 2
_VCF_DEPTH = 8
# Below the root each side searches only its _BEAM best moves, until the board is nearly full.
_BEAM = 14
_FULL_WIDTH = 12
# How many of Order's threats are searched past the horizon.
_QUIESCENCE = 1
# Chaos's deepest search with a time budget: Order wins with best play, and deeper searches
# defended worse against fallible Orders (see the bots' documentation for the measurements).
_CHAOS_DEPTH = 2
# A lost player searches again seeing less of Order's threats: (quiescence, longest chain of fours).
_BLINDER = ((0, 2), (-1, 2))

# The worth of a live window by its count of like symbols (3: it can make a four), as each role
# judges it. A four is never on the board of a quiet position; its worth only ranks the moves that
# make one. Chaos's own search weighs a lone symbol twice as much, which defended measurably
# better against greedy Order (see the bots' documentation); Order's search is unaffected.
_LINE = (0, 1, 5, 24, 80)
_CHAOS_LINE = (0, 2, 5, 24, 80)
_POISON = 40
_HALF_POISON = 6


class _Weights:
    """Line-potential tables for one set of window worths.

    A window's state is the code 6 * (number of X) + (number of O); `value` gives its worth,
    `add_x` and `add_o` the change of worth when an X (or an O) is added to it.
    """

    __slots__ = ("add_o", "add_x", "value")

    def __init__(self, line: tuple[int, ...]) -> None:
        def worth(nx: int, no: int) -> int:
            if nx and no:
                return 0
            return line[nx + no] if nx + no < 5 else 0

        value = tuple(worth(c // 6, c % 6) for c in range(36))
        self.value = value
        self.add_x = tuple(
            value[c + 6] - value[c] if c // 6 + c % 6 < 4 and c + 6 < 36 else 0 for c in range(36)
        )
        self.add_o = tuple(value[c + 1] - value[c] if c // 6 + c % 6 < 4 else 0 for c in range(36))


_ORDER_WEIGHTS = _Weights(_LINE)
_CHAOS_WEIGHTS = _Weights(_CHAOS_LINE)
_DEAD_CODE = 7  # one X and one O: any window holding both symbols scores like this one


def _threes(x: int, o: int, windows: tuple[int, ...] = WINDOWS) -> list[tuple[int, int, int]]:
    """`(window, its two empty squares, 1 for X or 0 for O)` for each window of three."""
    threes = []
    for w in windows:
        a = x & w
        b = o & w
        if a:
            if not b and a.bit_count() == 3:
                threes.append((w, w ^ a, 1))
        elif b and b.bit_count() == 3:
            threes.append((w, w ^ b, 0))
    return threes


def _fours_through(own: int, opp: int, square: int) -> int:
    """The gaps of the fours of `own`'s symbol in the windows through `square`."""
    gaps = 0
    for w in WINDOWS_THROUGH[square]:
        if not opp & w:
            r = w & ~own
            if r and not r & (r - 1):
                gaps |= r
    return gaps


class _Scan:
    """What one pass over the 32 windows tells about a position."""

    __slots__ = ("blocks", "codes", "fo", "fx", "live", "potential", "threes")

    def __init__(self, x: int, o: int, value: tuple[int, ...]) -> None:
        blocks = fx = fo = potential = 0
        codes: list[int] = []
        threes: list[tuple[int, int, int]] = []
        live = False
        for w in WINDOWS:
            a = x & w
            b = o & w
            if a:
                if b:
                    codes.append(_DEAD_CODE)
                    continue
                n = a.bit_count()
                if n == 3:
                    fx |= w ^ a
                    threes.append((w, w ^ a, 1))
                elif n == 4:
                    blocks |= 1 << (((w ^ a).bit_length() - 1) * 2 + 1)
                code = 6 * n
            elif b:
                n = b.bit_count()
                if n == 3:
                    fo |= w ^ b
                    threes.append((w, w ^ b, 0))
                elif n == 4:
                    blocks |= 1 << (((w ^ b).bit_length() - 1) * 2)
                code = n
            else:
                code = 0
            codes.append(code)
            potential += value[code]
            live = True
        self.blocks = blocks
        """The moves Chaos must play to stop every four, a bitmask over move numbers."""
        self.fx = fx
        """The empty squares where an X makes a four (closed to an X of Chaos)."""
        self.fo = fo
        """The same for an O."""
        self.potential = potential
        self.codes = codes
        """The state code of each window: 6 * (its X count) + (its O count)."""
        self.threes = threes
        self.live = live
        """Whether any window can still become a line."""


class _Search:
    """One move's search: the transposition tables, the clock and the search itself."""

    def __init__(
        self,
        deadline: Deadline,
        quiescence: int,
        vcf_depth: int = _VCF_DEPTH,
        weights: _Weights = _ORDER_WEIGHTS,
    ) -> None:
        self.deadline = deadline
        self.weights = weights
        # How many of Order's threats are searched past the horizon; -1: none, nor fours.
        self.quiescence = quiescence
        # The longest chain of fours looked for.
        self.vcf_depth = vcf_depth
        self.nodes = 0
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.vcf_wins: dict[int, int] = {}
        self.vcf_fails: dict[int, int] = {}
        self.reached = 0  # the depth of the deepest iteration finished (0: none was needed)
        self.value = 0  # its value, for Order

    def tick(self) -> None:
        self.nodes += 1
        if not self.nodes & 255:
            self.deadline.check()

    # -- victory by continuous fours ------------------------------------------------------------

    def vcf(self, x: int, o: int, depth: int, threes: list[tuple[int, int, int]]) -> int:
        """Order to move and no four on the board: the squares of a forced win by fours, or 0.

        A Chaos move on none of the returned squares cannot stop the win. `threes` are the
        windows of three of the position (see `_threes`).
        """
        key = x << SIZE | o
        found = self.vcf_wins.get(key)
        if found is not None:
            return found
        if self.vcf_fails.get(key, 0) >= depth:
            return 0
        self.tick()
        tried = 0
        for _, rest, is_x in threes:
            first = rest & -rest
            for e in (first, rest ^ first):
                sq = e.bit_length() - 1
                move = 2 * sq + 1 - is_x
                if tried >> move & 1:
                    continue
                tried |= 1 << move
                if is_x:
                    own, opp = x | e, o
                else:
                    own, opp = o | e, x
                gaps = used = 0
                for w2 in WINDOWS_THROUGH[sq]:
                    if not opp & w2:
                        r = w2 & ~own
                        if r and not r & (r - 1):
                            gaps |= r
                            used |= w2
                if gaps & (gaps - 1):
                    self.vcf_wins[key] = used
                    return used
                # One four: Chaos puts the other symbol in its gap, which may make a four of that.
                opp |= gaps
                gsq = gaps.bit_length() - 1
                for w3 in WINDOWS_THROUGH[gsq]:
                    if not own & w3:
                        r = w3 & ~opp
                        if r and not r & (r - 1):
                            used |= w3
                            self.vcf_wins[key] = used
                            return used
                if depth > 1:
                    nx, no = (own, opp) if is_x else (opp, own)
                    changed = e | gaps
                    child = [t for t in threes if not t[0] & changed]
                    child += _threes(nx, no, _THROUGH_EITHER[sq][gsq])
                    sub = self.vcf(nx, no, depth - 1, child)
                    if sub:
                        used |= sub
                        self.vcf_wins[key] = used
                        return used
        self.vcf_fails[key] = depth
        return 0

    # -- move generation ------------------------------------------------------------------------

    def move_scores(
        self, x: int, o: int, codes: list[int], order: bool, allowed: int
    ) -> list[tuple[int, int]]:
        """`(score, move)` for the moves on the `allowed` squares, lower is better.

        The score is the change of line potential, negated for Order. Squares in no live window
        are all alike: only the first of them is kept.
        """
        scored: list[tuple[int, int]] = []
        empty = allowed & ~(x | o)
        passed = False
        add_x = self.weights.add_x
        add_o = self.weights.add_o
        while empty:
            bit = empty & -empty
            empty ^= bit
            sq = bit.bit_length() - 1
            sx = so = 0
            alive = False
            for i in WINDOW_INDICES_THROUGH[sq]:
                c = codes[i]
                if c != _DEAD_CODE:
                    alive = True
                    sx += add_x[c]
                    so += add_o[c]
            if not alive:
                if passed:
                    continue
                passed = True
            if order:
                scored.append((-sx, 2 * sq))
                scored.append((-so, 2 * sq + 1))
            else:
                scored.append((sx, 2 * sq))
                scored.append((so, 2 * sq + 1))
        return scored

    def order_moves(self, x: int, o: int, scan: _Scan) -> list[int]:
        """Order's moves, best first."""
        scored = self.move_scores(x, o, scan.codes, True, FULL)
        scored.sort(key=_first)
        return [m for _, m in scored]

    def chaos_moves(self, x: int, o: int, scan: _Scan, threat: int) -> list[int]:
        """Chaos's moves that make no four, on the `threat` squares if any, best first."""
        fx, fo = scan.fx, scan.fo
        scored = [
            item
            for item in self.move_scores(x, o, scan.codes, False, threat or FULL)
            if not (fo if item[1] & 1 else fx) >> (item[1] >> 1) & 1
        ]
        scored.sort(key=_first)
        return [m for _, m in scored]

    @staticmethod
    def threat_moves(x: int, o: int, codes: list[int]) -> list[int]:
        """Order's moves that make a three or a four of like symbols in some window."""
        xs = os_ = 0
        for i, c in enumerate(codes):
            if c == 12 or c == 18:
                xs |= WINDOWS[i]
            elif c == 2 or c == 3:
                os_ |= WINDOWS[i]
        empty = FULL & ~(x | o)
        xs &= empty
        os_ &= empty
        moves = []
        while xs:
            bit = xs & -xs
            xs ^= bit
            moves.append(2 * (bit.bit_length() - 1))
        while os_:
            bit = os_ & -os_
            os_ ^= bit
            moves.append(2 * (bit.bit_length() - 1) + 1)
        return moves

    # -- alpha-beta -----------------------------------------------------------------------------

    @staticmethod
    def evaluate(scan: _Scan) -> int:
        """The static value of a quiet position (no four on the board), from Order's side."""
        fx, fo = scan.fx, scan.fo
        return (
            scan.potential + _POISON * (fx & fo).bit_count() + _HALF_POISON * (fx ^ fo).bit_count()
        )

    def search(self, x: int, o: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The value of the position for Order (alpha-beta, fail-hard)."""
        self.tick()
        occupied = x | o
        if occupied == FULL:
            return -_WIN + ply
        order = not occupied.bit_count() & 1
        scan = _Scan(x, o, self.weights.value)
        blocks = scan.blocks
        if blocks:
            if order:
                return _WIN - ply - 1
            if blocks & (blocks - 1):
                return _WIN - ply - 2
            move = blocks.bit_length() - 1
            bit = 1 << (move >> 1)
            if move & 1:
                return self.search(x, o | bit, depth, alpha, beta, ply + 1)
            return self.search(x | bit, o, depth, alpha, beta, ply + 1)
        if not scan.live:
            return -_WIN + ply
        key = x << SIZE | o
        entry = self.table.get(key)
        tt_move = -1
        if entry is not None:
            e_depth, flag, value, tt_move = entry
            if e_depth >= depth:
                if value > _MATE:
                    value -= ply
                elif value < -_MATE:
                    value += ply
                if (
                    flag == _EXACT
                    or (flag == _LOWER and value >= beta)
                    or (flag == _UPPER and value <= alpha)
                ):
                    return value
        if order:
            if depth <= 0:
                if self.quiescence < 0:
                    return self.evaluate(scan)
                return self.quiesce(x, o, alpha, beta, ply, self.quiescence)
            if self.quiescence >= 0 and self.vcf(x, o, self.vcf_depth, scan.threes):
                return _WIN - ply - 3
            moves = self.order_moves(x, o, scan)
            if occupied.bit_count() < SIZE - _FULL_WIDTH:
                del moves[_BEAM:]
        else:
            if depth <= 0 and self.quiescence < 0:
                return self.evaluate(scan)
            threat = self.vcf(x, o, self.vcf_depth, scan.threes)
            if depth <= 0 and not threat:
                return self.evaluate(scan)
            moves = self.chaos_moves(x, o, scan, threat)
            if not moves:
                return _WIN - ply - 2
            if depth <= 0:
                return self.answer_threat(x, o, moves, alpha, beta, ply, self.quiescence)
            if not threat and occupied.bit_count() < SIZE - _FULL_WIDTH:
                del moves[_BEAM:]
        if tt_move in moves:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        best_move = moves[0]
        original_alpha, original_beta = alpha, beta
        for move in moves:
            bit = 1 << (move >> 1)
            if move & 1:
                value = self.search(x, o | bit, depth - 1, alpha, beta, ply + 1)
            else:
                value = self.search(x | bit, o, depth - 1, alpha, beta, ply + 1)
            if order:
                if value > alpha:
                    alpha, best_move = value, move
                    if alpha >= beta:
                        break
            elif value < beta:
                beta, best_move = value, move
                if alpha >= beta:
                    break
        result = alpha if order else beta
        if result <= original_alpha:
            flag = _UPPER
        elif result >= original_beta:
            flag = _LOWER
        else:
            flag = _EXACT
        stored = result + ply if result > _MATE else result - ply if result < -_MATE else result
        self.table[key] = (depth, flag, stored, best_move)
        return result

    def answer_threat(
        self, x: int, o: int, moves: list[int], alpha: int, beta: int, ply: int, qdepth: int
    ) -> int:
        """Chaos to move under a threat: the best of `moves`, each followed by quiescence."""
        best = _WIN
        for move in moves:
            bit = 1 << (move >> 1)
            if move & 1:
                value = self.quiesce(x, o | bit, alpha, min(beta, best), ply + 1, qdepth)
            else:
                value = self.quiesce(x | bit, o, alpha, min(beta, best), ply + 1, qdepth)
            if value < best:
                best = value
                if best <= alpha:
                    break
        return best

    def quiesce(self, x: int, o: int, alpha: int, beta: int, ply: int, qdepth: int) -> int:
        """Order to move at the horizon: the static value, or better by a chain of threats.

        Order may stop (the static value) or make a four or a move after which it threatens a
        win by fours; Chaos must then answer on the threatened squares.
        """
        self.tick()
        occupied = x | o
        if occupied == FULL:
            return -_WIN + ply
        scan = _Scan(x, o, self.weights.value)
        if scan.blocks:
            return _WIN - ply - 1
        if not scan.live:
            return -_WIN + ply
        threes = scan.threes
        if self.vcf(x, o, self.vcf_depth, threes):
            return _WIN - ply - 3
        best = self.evaluate(scan)
        if qdepth <= 0 or best >= beta:
            return best
        for move in self.threat_moves(x, o, scan.codes):
            bit = 1 << (move >> 1)
            sq = move >> 1
            if move & 1:
                cx, co = x, o | bit
                gaps = _fours_through(co, cx, sq)
            else:
                cx, co = x | bit, o
                gaps = _fours_through(cx, co, sq)
            if gaps:
                if gaps & (gaps - 1):
                    return _WIN - ply - 2
                # Chaos's block of the single four is forced.
                if move & 1:
                    cx |= gaps
                else:
                    co |= gaps
                value = self.quiesce(cx, co, max(alpha, best), beta, ply + 2, qdepth - 1)
            else:
                child = [t for t in threes if not t[0] & bit]
                child += _threes(cx, co, WINDOWS_THROUGH[sq])
                threat = self.vcf(cx, co, self.vcf_depth, child)
                if not threat:
                    continue
                replies = self.chaos_moves(cx, co, _Scan(cx, co, self.weights.value), threat)
                if not replies:
                    return _WIN - ply - 2
                value = self.answer_threat(
                    cx, co, replies, max(alpha, best), beta, ply + 1, qdepth - 1
                )
            if value > best:
                best = value
                if best >= beta:
                    break
        return best

    # -- the root -------------------------------------------------------------------------------

    def root(self, x: int, o: int, rng: random.Random, max_depth: int, budget: float | None) -> int:
        """The move to play: iterative deepening to `max_depth` or until the clock stops it."""
        deadline, self.deadline = self.deadline, NO_DEADLINE
        moves = self.root_moves(x, o, rng)
        self.deadline = deadline
        if len(moves) == 1:
            return moves[0]
        order = not (x | o).bit_count() & 1
        return self.deepen(x, o, moves, order, max_depth, budget)

    def root_moves(self, x: int, o: int, rng: random.Random) -> list[int]:
        """The moves worth searching at the root, best first, ties in `rng`'s order.

        A win on the spot or Chaos's only block is the one move; a lost Chaos keeps any move.
        """
        order = not (x | o).bit_count() & 1
        scan = _Scan(x, o, self.weights.value)
        blocks = scan.blocks
        if blocks:
            answers = [m for m in range(len(MOVES)) if blocks >> m & 1]
            return [rng.choice([m ^ 1 for m in answers] if order else answers)]
        codes = scan.codes
        if order:
            scored = self.move_scores(x, o, codes, True, FULL)
        else:
            fx, fo = scan.fx, scan.fo
            threat = self.vcf(x, o, self.vcf_depth, scan.threes) if scan.live else 0
            scored = [
                (score, m)
                for score, m in self.move_scores(x, o, codes, False, threat or FULL)
                if not (fo if m & 1 else fx) >> (m >> 1) & 1
            ]
            if not scored:
                scored = self.move_scores(x, o, codes, False, FULL)
        rng.shuffle(scored)
        scored.sort(key=_first)
        return [m for _, m in scored]

    def deepen(
        self,
        x: int,
        o: int,
        moves: list[int],
        order: bool,
        max_depth: int,
        budget: float | None,
    ) -> int:
        """Iterative deepening over the root `moves`; the best move of the last iteration.

        Once an iteration finds the mover lost, the move of the last iteration that did not is
        kept: it needs the deepest play to refute. Lost already at depth 1, the mover takes the
        choice of a search that sees fewer of Order's threats (a weaker opponent may miss them).
        """
        best = moves[0]
        empties = SIZE - (x | o).bit_count()
        for depth in range(1, max_depth + 1):
            try:
                value, move = self.root_iteration(x, o, moves, depth, order)
            except SearchTimeout:
                break
            self.reached, self.value = depth, value
            if (value < -_MATE) if order else (value > _MATE):
                if depth == 1:
                    best = move
                    for quiescence, vcf_depth in _BLINDER:
                        if quiescence < self.quiescence or vcf_depth < self.vcf_depth:
                            blind = _Search(self.deadline, quiescence, vcf_depth, self.weights)
                            best = blind.deepen(x, o, moves, order, max_depth, budget)
                            break
                break
            best = move
            moves.remove(move)
            moves.insert(0, move)
            if abs(value) > _MATE or depth >= empties:
                break
            if budget is not None and self.deadline.elapsed() > 0.4 * budget:
                break
        return best

    def root_iteration(
        self, x: int, o: int, moves: list[int], depth: int, order: bool
    ) -> tuple[int, int]:
        """One full-width search of the root `moves`: `(value, best move)`."""
        alpha, beta = -_WIN - 1, _WIN + 1
        best = moves[0]
        for move in moves:
            bit = 1 << (move >> 1)
            if move & 1:
                value = self.search(x, o | bit, depth - 1, alpha, beta, 1)
            else:
                value = self.search(x | bit, o, depth - 1, alpha, beta, 1)
            if order and value > alpha:
                alpha, best = value, move
            elif not order and value < beta:
                beta, best = value, move
        return (alpha if order else beta), best


def _first(item: tuple[int, int]) -> int:
    return item[0]


class OrderChaosSearch(Player):
    """Alpha-beta search with threat detection, for either role (the `search` player).

    Args:
        game: the Order and Chaos game.
        time: seconds to think per move; with a clock, at most its share of the time left
            ([`move_budget`][abstractgames.timing.move_budget]).
            As Chaos the search stops at two plies (and Order's threats past them), which
            defends best against fallible Orders; Order searches as deep as the time allows.
        depth: search exactly this many plies instead (deterministic for a given `rng` seed).
    """

    def __init__(self, game: Game, time: float = 1.0, depth: int | None = None) -> None:
        self.game = game
        self.time = time
        self.depth = depth
        self.spec = f"search:depth={depth}" if depth is not None else f"search:time={time}"

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if not isinstance(state, OrderChaosState) or state.to_move is None:
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        order = state.to_move == ORDER
        weights = _ORDER_WEIGHTS if order else _CHAOS_WEIGHTS
        if self.depth is not None:
            search = _Search(Deadline(None), _QUIESCENCE, weights=weights)
            move = search.root(state.x, state.o, rng, self.depth, None)
        else:
            budget = move_budget(self.time, time_left)
            search = _Search(Deadline(budget), _QUIESCENCE, weights=weights)
            max_depth = SIZE if order else _CHAOS_DEPTH
            move = search.root(state.x, state.o, rng, max_depth, budget)
        value = search.value if order else -search.value
        mate_in = None
        if search.reached and abs(value) > _MATE:
            mate_in = (_WIN - abs(value)) * (1 if value > 0 else -1)
        seconds = search.deadline.elapsed()
        found = value if search.reached else None
        self.info = SearchInfo(search.reached, found, search.nodes, seconds, mate_in)
        return MOVES[move]
