"""An exact solver for Order and Chaos: can Order force five in a row, and in how many moves?

[`solve`][] answers with a [`Solution`][]: "Order wins in N moves" (N of Order's own moves, the
fewest against any defence) or "Chaos holds" (no forced win at all), for any position, whoever is
to move. It is an iteratively deepened AND/OR proof search on the game's int bitboards: Order's
win within one own move, then two, and so on, each proof reusing a transposition table.

The transposition table is keyed by a canonical position: the least, over the 8 symmetries of the
square and the swap of X and O (16 in all), of `x | o << 36` (table lookups on 12-bit chunks of
the bitboards). Each entry keeps two bounds: the fewest Order moves known to win, and the most
known not to. Its size is bounded (`memory`, in MB, about 110 bytes an entry); when it is full,
the entries of the positions furthest from the root (the most pieces on the board, the cheapest
to find again) are dropped first, down to half the table.

Only sound reasoning cuts the search; each step, and why it is exact:

* **Immediate win.** Order to move with a window of five holding four like symbols and an
  empty square wins at once (placing the fifth is a legal move that makes five).
* **Forced reply.** Chaos to move facing such threats: if they need two different squares, or
  one square needing X for one window and O for another, whatever Chaos places leaves (or makes)
  five, so Order wins. With one square and one symbol, every other move of Chaos leaves the
  threat for Order to complete; the only move that can hold is the other symbol there, so it is
  the only one searched (and if it makes five of its own kind, the engine's rule says Order wins).
  Without any threat, no placement of Chaos can make five (a placement making five completes a
  window that held four and an empty square), so every Chaos move is searched as a real move.
* **Dead squares.** A square all of whose windows hold both an X and an O can never be part of
  five like symbols, whatever is placed there. A move on such a square changes nothing but the
  number of empty squares: two positions that differ only in which dead squares are filled (and
  with what) have the same windows still alive with the same contents, the same dead squares
  empty in number, hence the same game from there on (a strategy in one is a strategy in the
  other, move for move, dead square for dead square). So of all the moves on dead squares, by
  either side, only one is searched (X on the lowest one): it stands for them all. It is not
  dropped: a move there is a tempo (a pass), which may matter.
* **Depth.** With `e` empty squares, Order has `ceil(e/2)` moves left (Order to move) or
  `floor(e/2)` (Chaos to move); a proof within more is a proof within that many, so the bound is
  clipped to it, and not winning within it means Chaos holds.

Nothing else is cut: no heuristic bound, no "relevant zone". Move ordering (threats and the
windows a placement extends or kills) only changes the order.

Examples:
    >>> from abstractgames import get_game
    >>> print(solve(get_game("orderchaos").from_position("6/6/6/6/6/XXXX2 order"), 3))
    Order wins in 1 move: X@e1
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs

from ..files import write_atomic
from ..orderchaos import FULL, MOVES, SIZE, WINDOWS, WINDOWS_THROUGH, OrderChaosState
from ..protocol import AbstractGamesError, Move, State
from ..timing import Deadline, SearchTimeout

__all__ = [
    "CheckpointError",
    "Progress",
    "Solution",
    "canonical_key",
    "solve",
]

ORDER, CHAOS = "order", "chaos"
_BYTES_PER_ENTRY = 110
"""What one transposition-table entry costs in memory, roughly (a dict slot and two ints)."""
DEFAULT_MEMORY = 1024
"""The default bound of the transposition table, in MB."""
_UNKNOWN = 31  # no win known
_CHECKPOINT_MAGIC = b"AGOCCKPT"
_CHECKPOINT_VERSION = 1


class CheckpointError(AbstractGamesError, ValueError):
    """A checkpoint file that cannot be read, or that belongs to another position."""


# --- symmetries -----------------------------------------------------------------------------------


def _transforms() -> list[list[int]]:
    """The 8 symmetries of the square as permutations of the 36 squares."""
    maps: list[list[int]] = []
    for t in range(8):
        perm = []
        for sq in range(SIZE):
            f, r = sq % 6, sq // 6
            if t & 4:
                f, r = r, f
            if t & 1:
                f = 5 - f
            if t & 2:
                r = 5 - r
            perm.append(6 * r + f)
        maps.append(perm)
    return maps


TRANSFORMS = _transforms()
"""`TRANSFORMS[t][sq]`: where symmetry `t` (0 = identity) takes square `sq`."""


def _chunk_tables() -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]:
    tables = []
    for perm in TRANSFORMS:
        chunks = []
        for c in range(3):
            chunk = []
            for value in range(4096):
                bits = 0
                for i in range(12):
                    if value >> i & 1:
                        bits |= 1 << perm[12 * c + i]
                chunk.append(bits)
            chunks.append(tuple(chunk))
        tables.append((chunks[0], chunks[1], chunks[2]))
    return tuple(tables)


_TABLES = _chunk_tables()


def canonical_key(x: int, o: int) -> int:
    """The least `x' | o' << 36` over the 16 symmetries (8 of the board, times the X/O swap):
    the same for every position equivalent to `(x, o)`, and only for those."""
    best = -1
    for t0, t1, t2 in _TABLES:
        a = t0[x & 4095] | t1[x >> 12 & 4095] | t2[x >> 24]
        b = t0[o & 4095] | t1[o >> 12 & 4095] | t2[o >> 24]
        k = a | b << SIZE
        if best < 0 or k < best:
            best = k
        k = b | a << SIZE
        if k < best:
            best = k
    return best


def _transform_action(action: int, t: int) -> int:
    return 2 * TRANSFORMS[t][action >> 1] + (action & 1)


# --- the position's windows -----------------------------------------------------------------------

_WEIGHT = (1, 3, 9, 60, 0, 0)
_WINDOW_SQUARES = tuple(tuple(sq for sq in range(SIZE) if w >> sq & 1) for w in WINDOWS)
_WINDOW_LIST = tuple(zip(WINDOWS, _WINDOW_SQUARES, strict=True))


def _threats(x: int, o: int) -> tuple[int, int]:
    """The squares where X would make five, and where O would."""
    wx = wo = 0
    for w in WINDOWS:
        a = x & w
        if a:
            if not o & w and a.bit_count() == 4:
                wx |= w ^ a
        else:
            b = o & w
            if b.bit_count() == 4:
                wo |= w ^ b
    return wx, wo


def _scores(x: int, o: int) -> tuple[list[int], list[int], int]:
    """Move-ordering scores by action for Order and for Chaos, and the squares of live windows."""
    order = [0] * (2 * SIZE)
    chaos = [0] * (2 * SIZE)
    live = 0
    occupied = x | o
    for w, squares in _WINDOW_LIST:
        a = x & w
        b = o & w
        if a and b:
            continue
        live |= w
        if a:
            weight = _WEIGHT[a.bit_count()]
            for sq in squares:
                if not occupied >> sq & 1:
                    order[2 * sq] += weight
                    chaos[2 * sq + 1] += weight
                    chaos[2 * sq] -= weight
        elif b:
            weight = _WEIGHT[b.bit_count()]
            for sq in squares:
                if not occupied >> sq & 1:
                    order[2 * sq + 1] += weight
                    chaos[2 * sq] += weight
                    chaos[2 * sq + 1] -= weight
        else:
            for sq in squares:
                order[2 * sq] += 1
                order[2 * sq + 1] += 1
    return order, chaos, live


def _moves(x: int, o: int, scores: list[int], live: int) -> list[int]:
    """The actions to search, best first by `scores`; of the dead squares only the lowest."""
    empty = FULL & ~(x | o)
    dead = empty & ~live
    squares = empty & live
    actions = []
    while squares:
        bit = squares & -squares
        squares ^= bit
        sq = bit.bit_length() - 1
        actions.append(2 * sq)
        actions.append(2 * sq + 1)
    actions.sort(key=scores.__getitem__, reverse=True)
    if dead:
        actions.append(2 * ((dead & -dead).bit_length() - 1))
    return actions


def _play(x: int, o: int, action: int) -> tuple[int, int]:
    bit = 1 << (action >> 1)
    return (x, o | bit) if action & 1 else (x | bit, o)


def _makes_five(x: int, o: int, action: int) -> bool:
    sq = action >> 1
    own = (o if action & 1 else x) | 1 << sq
    return any(own & w == w for w in WINDOWS_THROUGH[sq])


# --- the search -----------------------------------------------------------------------------------


class _Prover:
    """Whether Order wins within `n` of its own moves, with a bounded transposition table."""

    def __init__(self, deadline: Deadline, memory: float, checkpoint: str | None = None) -> None:
        self.deadline = deadline
        self.capacity = max(1024, int(memory * 1_000_000 / _BYTES_PER_ENTRY))
        self.table: dict[int, int] = {}  # key -> win | lose << 5 (win 31: none known)
        self.nodes = 0
        self.probes = 0
        self.hits = 0
        self.evictions = 0
        self.checkpoint = checkpoint
        self.checkpoint_every = 300.0
        self.last_checkpoint = deadline.elapsed()
        self.root = ""

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & 1023:
            self.deadline.check()
            if (
                self.checkpoint is not None
                and self.deadline.elapsed() - self.last_checkpoint > self.checkpoint_every
            ):
                self.save_checkpoint()

    def _store(self, key: int, win: int, lose: int) -> None:
        table = self.table
        if len(table) >= self.capacity and key not in table:
            self._evict()
        table[key] = win | lose << 5

    def _evict(self) -> None:
        """Drop the entries with the most pieces on the board until half the table is left."""
        counts = [0] * (SIZE + 1)
        full = FULL
        for key in self.table:
            counts[((key & full) | key >> SIZE).bit_count()] += 1
        keep, limit = 0, 0
        for pieces in range(SIZE + 1):
            if keep + counts[pieces] > len(self.table) // 2:
                break
            keep += counts[pieces]
            limit = pieces
        self.table = {
            k: v for k, v in self.table.items() if ((k & full) | k >> SIZE).bit_count() <= limit
        }
        self.evictions += 1

    def _lookup(self, key: int, n: int) -> bool | None:
        self.probes += 1
        entry = self.table.get(key)
        if entry is None:
            return None
        if entry & 31 <= n:
            self.hits += 1
            return True
        if entry >> 5 >= n:
            self.hits += 1
            return False
        return None

    def _record(self, key: int, n: int, won: bool) -> None:
        entry = self.table.get(key)
        win, lose = (_UNKNOWN, 0) if entry is None else (entry & 31, entry >> 5)
        if won:
            win = min(win, n)
        else:
            lose = max(lose, n)
        self._store(key, win, lose)

    def order(self, x: int, o: int, n: int) -> bool:
        """Order to move: whether Order wins within `n` of its moves."""
        self._tick()
        if n <= 0:
            return False
        wx, wo = _threats(x, o)
        if wx | wo:
            return True
        n = min(n, ((FULL & ~(x | o)).bit_count() + 1) // 2)
        if n <= 1:
            return False
        key = canonical_key(x, o)
        known = self._lookup(key, n)
        if known is not None:
            return known
        won = self._winning_move(x, o, n) is not None
        self._record(key, n, won)
        return won

    def _winning_move(self, x: int, o: int, n: int) -> int | None:
        scores, _, live = _scores(x, o)
        for action in _moves(x, o, scores, live):
            cx, co = _play(x, o, action)
            if self.chaos(cx, co, n - 1):
                return action
        return None

    def chaos(self, x: int, o: int, n: int) -> bool:
        """Chaos to move: whether Order wins within `n` more of its moves."""
        self._tick()
        wx, wo = _threats(x, o)
        threats = wx | wo
        if threats:
            if n <= 0:  # only a Chaos move that must make five wins now
                return not FULL & ~(x | o) & ~(wx & wo)
            if threats & (threats - 1) or wx & wo:
                return True
            # The one reply that can hold: the other symbol on the threatened square.
            return self.order(*_play(x, o, 2 * (threats.bit_length() - 1) + (wx != 0)), n)
        n = min(n, (FULL & ~(x | o)).bit_count() // 2)
        if n <= 0:
            return False
        key = canonical_key(x, o)
        known = self._lookup(key, n)
        if known is not None:
            return known
        won = self._escape(x, o, n) is None
        self._record(key, n, won)
        return won

    def _escape(self, x: int, o: int, n: int) -> int | None:
        """A reply of Chaos after which Order does not win within `n`, or None."""
        _, scores, live = _scores(x, o)
        for action in _moves(x, o, scores, live):
            cx, co = _play(x, o, action)
            if not self.order(cx, co, n):
                return action
        return None

    # --- lines and strategies -------------------------------------------------------------------

    def fewest(self, x: int, o: int, order_to_move: bool, n: int) -> int | None:
        """The fewest Order moves within which Order wins, up to `n`."""
        search = self.order if order_to_move else self.chaos
        for k in range(0 if not order_to_move else 1, n + 1):
            if search(x, o, k):
                return k
        return None

    def order_move(self, x: int, o: int, n: int) -> int:
        """A move of Order that wins within `n` (one exists), the fastest."""
        wx, wo = _threats(x, o)
        if wx:
            return 2 * ((wx & -wx).bit_length() - 1)
        if wo:
            return 2 * ((wo & -wo).bit_length() - 1) + 1
        k = self.fewest(x, o, True, n)
        assert k is not None
        action = self._winning_move(x, o, k)
        assert action is not None
        return action

    def chaos_reply(self, x: int, o: int, n: int) -> tuple[int, int]:
        """Chaos's reply that puts off Order's win longest, and the Order moves then needed."""
        best, most = -1, -1
        empty = FULL & ~(x | o)
        for action in range(2 * SIZE):
            if not empty >> (action >> 1) & 1:
                continue
            if _makes_five(x, o, action):
                turns = 0
            else:
                cx, co = _play(x, o, action)
                turns = self.fewest(cx, co, True, n) or n
            if turns > most:
                best, most = action, turns
        return best, most

    # --- checkpoints ----------------------------------------------------------------------------

    def save_checkpoint(self) -> None:
        """Write the transposition table to the checkpoint file (atomically)."""
        if self.checkpoint is None:
            return
        body = bytearray()
        for key, value in self.table.items():
            body += key.to_bytes(9, "little")
            body += value.to_bytes(2, "little")
        header = (
            _CHECKPOINT_MAGIC
            + _CHECKPOINT_VERSION.to_bytes(2, "little")
            + len(self.root.encode()).to_bytes(2, "little")
            + self.root.encode()
        )
        write_atomic(self.checkpoint, header + zlib.compress(bytes(body), 1))
        self.last_checkpoint = self.deadline.elapsed()

    def load_checkpoint(self) -> int:
        """Read the checkpoint file, if there is one; return the entries read."""
        if self.checkpoint is None or not Path(self.checkpoint).exists():
            return 0
        data = Path(self.checkpoint).read_bytes()
        where = f"checkpoint {self.checkpoint!r}"
        if data[:8] != _CHECKPOINT_MAGIC:
            raise CheckpointError(f"{where} is not an Order and Chaos solver checkpoint")
        version = int.from_bytes(data[8:10], "little")
        if version != _CHECKPOINT_VERSION:
            raise CheckpointError(
                f"{where} has version {version}; this solver reads version {_CHECKPOINT_VERSION}"
            )
        length = int.from_bytes(data[10:12], "little")
        root = data[12 : 12 + length].decode(errors="replace")
        if root != self.root:
            raise CheckpointError(f"{where} is for {root!r}, not {self.root!r}")
        try:
            body = zlib.decompress(data[12 + length :])
        except zlib.error as error:
            raise CheckpointError(f"{where} is damaged: {error}") from None
        if len(body) % 11:
            raise CheckpointError(f"{where} is damaged: a truncated entry")
        table = self.table
        for i in range(0, len(body), 11):
            table[int.from_bytes(body[i : i + 9], "little")] = int.from_bytes(
                body[i + 9 : i + 11], "little"
            )
        return len(body) // 11


# --- the answer -----------------------------------------------------------------------------------


@attrs.frozen
class Solution:
    """What [`solve`][] found; `str()` says it in a line.

    Attributes:
        position: the position solved.
        side: the side to move.
        max_moves: the most Order moves the win may take.
        moves: how many of its own moves Order needs to win against any defence (the fewest), or
            `None` without a win found.
        line: a principal variation, Chaos resisting longest; empty without a win.
        searched: the largest number of Order moves within which no win exists.
        holds: whether Chaos holds for certain (no forced win for Order at all).
        nodes: the positions visited.
        hits: transposition-table probes that answered.
        probes: transposition-table probes.
        entries: transposition-table entries at the end.
    """

    position: str
    side: str
    max_moves: int
    moves: int | None
    line: tuple[Move, ...]
    searched: int
    holds: bool
    nodes: int = attrs.field(default=0, eq=False)
    hits: int = attrs.field(default=0, eq=False)
    probes: int = attrs.field(default=0, eq=False)
    entries: int = attrs.field(default=0, eq=False)
    _prover: _Prover | None = attrs.field(default=None, eq=False, repr=False, alias="prover")

    @property
    def won(self) -> bool:
        """Whether Order has a forced win."""
        return self.moves is not None

    @property
    def complete(self) -> bool:
        """Whether the answer is final."""
        return self.moves is not None or self.holds or self.searched >= self.max_moves

    @property
    def winner(self) -> str | None:
        """`"order"` or `"chaos"` when proven, else `None`."""
        return ORDER if self.won else CHAOS if self.holds else None

    def __str__(self) -> str:
        if self.moves is not None:
            plural = "" if self.moves == 1 else "s"
            line = " ".join(map(str, self.line))
            return f"Order wins in {self.moves} move{plural}: {line}"
        if self.holds:
            return "Chaos holds: Order cannot force five in a row"
        if self.complete:
            return f"no forced win for Order within {self.max_moves} moves"
        ruled_out = ""
        if self.searched:
            ruled_out = f"no forced win for Order within {self.searched} moves; "
        return (
            f"{ruled_out}undecided within {self.max_moves}: the time limit stopped the search at "
            f"{self.searched + 1}"
        )

    def strategy(self) -> dict[str, str]:
        """The winner's move in every position that can arise from `position` when the
        winner follows it and the loser plays anything (position string: move notation).

        Raises:
            ValueError: the answer is not final (no winner proven).
        """
        if self._prover is None or self.winner is None:
            raise ValueError("no strategy: the solution proves no result")
        return _strategy(self._prover, self.position, self.winner == ORDER, self.moves or 0)


def _strategy(prover: _Prover, position: str, order_wins: bool, moves: int) -> dict[str, str]:
    from ..orderchaos import GAME

    prover.deadline = Deadline(None)
    moves_of: dict[str, str] = {}
    seen: set[tuple[int, int]] = set()
    start = GAME.from_position(position)
    stack: list[tuple[OrderChaosState, int]] = [(start, moves)]
    while stack:
        state, n = stack.pop()
        if state.outcome() is not None or (state.x, state.o) in seen:
            continue
        seen.add((state.x, state.o))
        x, o = state.x, state.o
        order_to_move = state.to_move == ORDER
        if order_to_move == order_wins:
            holding = _chaos_holding_move(prover, x, o) if not order_wins else -1
            action = prover.order_move(x, o, n) if order_wins else holding
            move = MOVES[action]
            moves_of[state.position()] = str(move)
            stack.append((state.apply(move), n - 1 if order_wins else 0))
        else:
            for move in state.legal_moves():
                stack.append((state.apply(move), n))
    return moves_of


def _chaos_holding_move(prover: _Prover, x: int, o: int) -> int:
    n = (FULL & ~(x | o)).bit_count() // 2
    empty = FULL & ~(x | o)
    for action in range(2 * SIZE):
        if empty >> (action >> 1) & 1 and not _makes_five(x, o, action):
            cx, co = _play(x, o, action)
            if not prover.order(cx, co, n):
                return action
    raise AssertionError("Chaos holds, yet no move holds")  # pragma: no cover


@attrs.frozen
class Progress:
    """One step of [`solve`][]'s deepening: no forced win for Order within `moves`.

    Attributes:
        moves: the Order moves now ruled out.
        nodes: the positions visited so far.
        seconds: the time taken so far.
        hits: transposition-table probes that answered, so far.
        probes: transposition-table probes so far.
        entries: transposition-table entries now.
    """

    moves: int
    nodes: int
    seconds: float
    hits: int = 0
    probes: int = 0
    entries: int = 0

    def __str__(self) -> str:
        plural = "" if self.moves == 1 else "s"
        rate = self.nodes / self.seconds if self.seconds > 0 else 0.0
        positions = "position" if self.nodes == 1 else "positions"
        hit_rate = 100 * self.hits / self.probes if self.probes else 0.0
        return (
            f"no forced win for Order within {self.moves} move{plural} "
            f"({self.nodes:,} {positions}, {self.seconds:.1f} s, {rate:,.0f}/s, "
            f"table {self.entries:,} entries, {hit_rate:.0f}% hits)"
        )


def solve(
    state: State,
    max_moves: int,
    time_limit: float | None = None,
    *,
    progress: Callable[[Progress], None] | None = None,
    memory: float = DEFAULT_MEMORY,
    checkpoint: str | None = None,
) -> Solution:
    """Whether Order can force five in a row within `max_moves` of its own moves.

    Exact (see [the module][abstractgames.solvers.orderchaos] for why each cut is sound). Wins
    are looked for within one Order move, then two, and so on, so the win reported is the
    fastest; when `max_moves` reaches the moves Order has left, "no win" means Chaos holds.

    Args:
        state: an Order and Chaos position, not finished; either side to move.
        max_moves: how many Order moves the win may take, at least 1.
        time_limit: seconds; when they run out the search stops and reports how far it got.
        progress: called with a [`Progress`][] each time a number of moves is ruled out.
        memory: the bound of the transposition table, in MB.
        checkpoint: a file where the transposition table is saved every five minutes, on the time
            limit and on Ctrl-C or SIGTERM, and read back at the start if it exists.

    Raises:
        ValueError: the game is over, `state` is not Order and Chaos, or `max_moves` < 1;
            [`CheckpointError`][] for a checkpoint of another position, or damaged.
    """
    if not isinstance(state, OrderChaosState):
        raise ValueError(f"solve() reads Order and Chaos positions, not {state!r}")
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise ValueError(f"max_moves={max_moves!r} must be a positive integer")
    if not memory > 0:
        raise ValueError(f"memory={memory!r} must be a positive number of MB")
    outcome = state.outcome()
    if outcome is not None:
        raise ValueError(f"the game is over ({outcome.reason}) in {state.position()}")
    deadline = Deadline(time_limit)
    prover = _Prover(deadline, memory, checkpoint)
    prover.root = state.position()
    prover.load_checkpoint()
    x, o = state.x, state.o
    order_to_move = state.to_move == ORDER
    empty = (FULL & ~(x | o)).bit_count()
    left = (empty + 1) // 2 if order_to_move else empty // 2
    search = prover.order if order_to_move else prover.chaos
    searched = 0
    found: int | None = None
    try:
        # Chaos to move may have to make five itself: a win in no Order move.
        for n in range(0 if not order_to_move else 1, min(max_moves, left) + 1):
            if search(x, o, n):
                found = n
                break
            searched = n
            if progress is not None and 0 < n < min(max_moves, left):
                progress(_progress(prover, n))
    except SearchTimeout:
        prover.save_checkpoint()
    except KeyboardInterrupt:
        prover.save_checkpoint()
        raise
    else:
        prover.save_checkpoint()
    holds = found is None and searched >= left
    line: tuple[Move, ...] = ()
    if found is not None:
        prover.deadline = Deadline(None)
        line = tuple(MOVES[a] for a in _line(prover, x, o, order_to_move, found))
    return Solution(
        state.position(),
        state.to_move or "",
        max_moves,
        found,
        line,
        max(searched, left) if holds else searched,
        holds,
        prover.nodes,
        prover.hits,
        prover.probes,
        len(prover.table),
        prover,
    )


def _progress(prover: _Prover, n: int) -> Progress:
    return Progress(
        n,
        prover.nodes,
        prover.deadline.elapsed(),
        prover.hits,
        prover.probes,
        len(prover.table),
    )


def _line(prover: _Prover, x: int, o: int, order_to_move: bool, n: int) -> Iterator[int]:
    """A principal variation: Order's fastest win, Chaos's longest resistance."""
    while True:
        if order_to_move:
            action = prover.order_move(x, o, n)
            yield action
            if _makes_five(x, o, action):
                return
            x, o = _play(x, o, action)
            n -= 1
        action, n = prover.chaos_reply(x, o, n)
        yield action
        if _makes_five(x, o, action):
            return
        x, o = _play(x, o, action)
        order_to_move = True
