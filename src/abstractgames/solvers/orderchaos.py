"""An exact solver for Order and Chaos: can Order force five in a row, and in how many moves?

[`solve`][] answers with a [`Solution`][abstractgames.solvers.Solution], Order the attacker: "Order
wins in N moves" (N of Order's own moves, the fewest against any defence) or "Chaos holds" (no
forced win at all), for any position, whoever is to move; [`SOLVER`][] is the entry the registry
gives (progress, memory, checkpoint and certificates). Its search is depth-bounded df-pn
(proof-number search, depth first), on the game's int bitboards: a node is a position with a bound
`n`, "does Order win within `n` of its moves?". By default (`method="pn"`) the bound is deepened,
one Order move, then two, and so on, while that is cheap (a short win is then found first, and is
the fastest), and then the search goes to the whole bound at once and proves within one move fewer
than the proof it found, until a bound is refuted (the fewest moves again); `method="pn-deepening"`
deepens all the way, and `method="deepening"` is the plain AND/OR search deepened the same way,
which needs no proof numbers. All three share the transposition table, the cuts below and the move
order.

df-pn (Nagai 2002) keeps for each node a proof number (a lower estimate of the leaves still to
prove for a win) and a disproof number (the same for a refutation), and always expands the
most-proving node, with thresholds that keep the search depth-first so that only the table is
kept, never the tree. The best child's threshold uses the 1+ε trick (Pawlewicz and Lew 2007):
a child is searched until its number passes the second-best sibling's by a quarter. The numbers
only choose what to expand next: a node is proven only when one of Order's moves or all of
Chaos's moves are, and refuted the other way round, so they cannot make an answer wrong.

The transposition table is keyed by a canonical position: the least, over the 8 symmetries of the
square and the swap of X and O (16 in all), of `x | o << 36` (table lookups on 12-bit chunks of
the bitboards). Each entry keeps two bounds: the fewest Order moves known to win, and the most
known not to. Its size is bounded (`memory`, in MB, about 110 bytes an entry); when it is full,
the entries of the positions furthest from the root (the most pieces on the board, the cheapest
to find again) are dropped first, down to half the table. df-pn also keeps there the proof and
disproof numbers of an unsolved node with the bound they are for (a solved entry's win bound is
the longest line of the proof found, an upper bound of the fewest). A search returns its numbers
to its parent rather than reading them back, so an entry dropped meanwhile costs work, never an
answer. (Within one search the bound of a node is a function of the position, as both players'
moves add one piece each; the game has no cycles, so df-pn's graph-history problem cannot arise.)

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
* **Symmetric children** (df-pn). Two children with the same canonical key are the same
  position up to a symmetry of the board and the swap of X and O; the rules are invariant under
  both (a window maps onto a window, and Order wins with either symbol), so the two have the
  same value and only one is kept: the best of equal values for Order, the worst for Chaos.
* **Children settled on the spot** (df-pn). The board being searched has no threat (it would
  have been settled as above), so a threat after a move passes through the square just played
  and is found by looking at those windows only. After Order's move, two threat squares (or one
  needing both symbols) win the node; one threat is answered by Chaos's forced reply on the
  spot, and Order wins if the board after it holds a threat, or has lost that line if it has
  fewer than two moves left without one. Chaos's move that makes a threat loses at once and is
  left out (it can only help Order); Chaos's move after which Order has fewer than two moves
  and no threat refutes the node. With one Order move left after Chaos's next move and no threat,
  Chaos holds exactly if it has a *quiet move*, a placement that makes no threat: then Order's
  last move cannot make five (it would need a window of four and a gap), and if every Chaos
  move makes a threat, Order completes it. A placement makes a threat only in a window through
  its square that held three of its symbol and none of the other, which is what is checked.

Nothing else is cut: no heuristic bound, no "relevant zone". Move ordering (threats and the
windows a placement extends or kills) only changes the order.

Examples:
    >>> from abstractgames import get_game
    >>> print(solve(get_game("orderchaos").from_position("6/6/6/6/6/XXXX2 order"), 3))
    Order wins in 1 move: X@e1
"""

from __future__ import annotations

import hashlib
import json
import lzma
import struct
import threading
import time as clock
import zlib
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, partial
from operator import or_
from typing import Any

import attrs

from ..files import (
    FileTooLargeError,
    check_writable,
    decompress_bounded,
    read_bounded,
    write_atomic,
)
from ..orderchaos import (
    FULL,
    GAME,
    GRID,
    MOVES,
    SIZE,
    WINDOWS,
    WINDOWS_THROUGH,
    OrderChaosState,
    Placement,
)
from ..protocol import AbstractGamesError, Move, State
from ..text import counted
from ..timing import NO_DEADLINE, Deadline, SearchTimeout
from . import PerfectMove, Progress, ProvenMove, Solution, SolverEntry, TableStats

__all__ = [
    "METHODS",
    "SOLVER",
    "CentreStrategy",
    "CheckpointError",
    "PairingProof",
    "PerfectOrder",
    "ProvenMoves",
    "canonical_key",
    "centre_key",
    "centre_strategy",
    "solve",
]

ORDER, CHAOS = "order", "chaos"
_BYTES_PER_ENTRY = 110
"""What one transposition-table entry costs in memory, roughly (a dict slot and two ints)."""
DEFAULT_MEMORY = 1024
"""The default bound of the transposition table, in MB."""
METHODS = ("pn", "pn-deepening", "deepening")
"""The search methods of [`solve`][]: `"pn"`, df-pn deepened one Order move at a time while
that is cheap (the first 5,000 positions), then within the whole bound at once (and then
within fewer moves, for the fastest win); `"pn-deepening"`, df-pn within one Order move, then
two, and so on to the bound; `"deepening"`, the plain AND/OR search deepened the same way."""
_PN_JUMP = 5_000
"""The positions after which `"pn"` stops deepening and goes to the whole bound."""
DEFAULT_METHOD = "pn"
"""The df-pn method [`solve`][] uses unless told (where the pairing route does not apply)."""
AUTO = "auto"
"""[`solve`][]'s default: the pairing route where it applies, else [`DEFAULT_METHOD`][]."""
ROUTE_PAIRING = "pairing"
"""The route name of an answer proved by Turner's reduction."""
ROUTE_DFPN = "df-pn"
"""The route name of an answer proved by the proof-number search on the whole board."""
_GOAL = "five in a row"
"""What Order forces, in the line of a hold."""
_UNKNOWN = 31  # no win known
_CHECKPOINT_MAGIC = b"AGOCCKPT"
_CHECKPOINT_VERSION = 2
_VALUE_BYTES = 11
_VALUE_BYTES_OF = {1: 2, 2: _VALUE_BYTES}
"""The bytes of an entry's value by checkpoint version: version 1 (bounds only, from the
plain search) is still read; version 2 adds the proof and disproof numbers."""


_MOST = SIZE // 2
"""The most moves Order makes in a game: every bound of the table is at most this."""
_HEADER_BYTES = 12 + 0xFFFF
"""The most bytes before a checkpoint's table: the magic, version, the root's length and it."""


class CheckpointError(AbstractGamesError, ValueError):
    """A checkpoint file that cannot be read or written, that belongs to another position, or
    whose table is damaged: the message names the file and what is wrong."""


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


def _image_table(squares: Sequence[int]) -> tuple[int, ...]:
    """For every mask of `len(squares)` bits, the mask with bit `i` moved to `squares[i]`."""
    table = [0]
    for square in squares:  # the masks with this bit are those without it, plus the bit
        table += [image | 1 << square for image in table]
    return tuple(table)


def _chunk_tables() -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]:
    return tuple(
        (_image_table(perm[0:12]), _image_table(perm[12:24]), _image_table(perm[24:36]))
        for perm in TRANSFORMS
    )


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
        self.memory = memory
        self.capacity = max(1024, int(memory * 1_000_000 / _BYTES_PER_ENTRY))
        self.table: dict[int, int] = {}  # key -> win | lose << 5 (win 31: none known)
        self.nodes = 0
        self.probes = 0
        self.hits = 0
        self.evictions = 0
        self.checkpoint = checkpoint
        self.checkpoint_every = 300.0
        self.last_checkpoint = deadline.elapsed()
        self.loaded = 0  # entries read from the checkpoint
        self.root = ""
        self.max_nodes = 1 << 62  # a budget of positions: past it, SearchTimeout

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & 255:
            if self.nodes >= self.max_nodes:
                raise SearchTimeout
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
        if entry >> 5 & 31 >= n:
            self.hits += 1
            return False
        return None

    def _record(self, key: int, n: int, won: bool) -> None:
        entry = self.table.get(key)
        win, lose = (_UNKNOWN, 0) if entry is None else (entry & 31, entry >> 5 & 31)
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
        action = None if k is None else self._winning_move(x, o, k)
        if action is None:
            raise self.contradiction("Order wins, yet no move wins")
        return action

    def contradiction(self, what: str) -> Exception:
        """The error for a table that contradicts itself: a damaged checkpoint it was read
        from (whose values were in range, but not true), else a bug."""
        if self.loaded:
            return CheckpointError(
                f"checkpoint {self.checkpoint!r} contradicts itself: {what} by its table "
                "(the file was damaged or changed; remove it to search afresh)"
            )
        return AssertionError(what)

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
            body += value.to_bytes(_VALUE_BYTES, "little")
        header = (
            _CHECKPOINT_MAGIC
            + _CHECKPOINT_VERSION.to_bytes(2, "little")
            + len(self.root.encode()).to_bytes(2, "little")
            + self.root.encode()
        )
        try:
            write_atomic(self.checkpoint, header + zlib.compress(bytes(body), 1))
        except OSError as error:
            raise CheckpointError(
                f"cannot write checkpoint {self.checkpoint!r}: {error.strerror or error}"
            ) from None
        self.last_checkpoint = self.deadline.elapsed()

    def load_checkpoint(self) -> int:
        """Read the checkpoint file, if there is one, and check that it can be written (before
        the search, not at its first save); return the entries read.

        The file is read as every file given to the library is ([`read_bounded`][]): a regular
        file only, never more than a table of [`memory`][] holds, its compressed table
        decompressed within that bound too; and every entry is checked, its key a position and
        its value within the bounds the search writes.

        Raises:
            CheckpointError: naming the file and what is wrong.
        """
        if self.checkpoint is None:
            return 0
        where = f"checkpoint {self.checkpoint!r}"
        limit = self.capacity * (9 + _VALUE_BYTES)
        try:
            data = read_bounded(self.checkpoint, _HEADER_BYTES + limit + limit // 100 + 4096)
        except FileNotFoundError:
            data = None
        except FileTooLargeError:
            raise CheckpointError(self._too_many(where)) from None
        except OSError as error:
            raise CheckpointError(f"cannot read {where}: {error.strerror or error}") from None
        try:
            check_writable(self.checkpoint)
        except OSError as error:
            raise CheckpointError(f"cannot write {where}: {error.strerror or error}") from None
        if data is None:
            return 0
        if data[:8] != _CHECKPOINT_MAGIC:
            raise CheckpointError(f"{where} is not an Order and Chaos solver checkpoint")
        version = int.from_bytes(data[8:10], "little")
        if version not in _VALUE_BYTES_OF:
            raise CheckpointError(
                f"{where} has version {version}; this solver reads versions "
                f"{', '.join(map(str, _VALUE_BYTES_OF))}"
            )
        size = 9 + _VALUE_BYTES_OF[version]
        length = int.from_bytes(data[10:12], "little")
        root = data[12 : 12 + length].decode(errors="replace")
        if root != self.root:
            raise CheckpointError(f"{where} is for {root!r}, not {self.root!r}")
        try:
            body = decompress_bounded(
                zlib.decompressobj(), data[12 + length :], self.capacity * size
            )
        except FileTooLargeError:
            raise CheckpointError(self._too_many(where)) from None
        except (ValueError, zlib.error) as error:
            raise CheckpointError(f"{where} is damaged: {error}") from None
        if len(body) % size:
            raise CheckpointError(f"{where} is damaged: a truncated entry")
        table = self.table
        for i in range(0, len(body), size):
            key = int.from_bytes(body[i : i + 9], "little")
            value = int.from_bytes(body[i + 9 : i + size], "little")
            if key >> 2 * SIZE or key & key >> SIZE:
                raise CheckpointError(f"{where} is damaged: entry {i // size} is no position")
            wrong = _wrong_value(value)
            if wrong:
                raise CheckpointError(f"{where} is damaged: entry {i // size} says {wrong}")
            table[key] = value
        self.loaded = len(body) // size
        return self.loaded

    def _too_many(self, where: str) -> str:
        return (
            f"{where} holds more than the {self.capacity:,} entries a table of "
            f"{self.memory:g} MB holds: give the search more memory (or the file is damaged)"
        )


def _wrong_value(value: int) -> str:
    """What is wrong with a table entry's value as the search writes it ("" if nothing): the
    bounds (bits 0-9), then for df-pn the bound of the numbers (bits 10-14), the proof number
    (from bit 15) and the disproof number (from bit 48)."""
    win, lose = value & 31, value >> 5 & 31
    if not 1 <= win <= _MOST and win != _UNKNOWN:
        return f"a win within {win} Order moves (1 to {_MOST}, or {_UNKNOWN} for none known)"
    if lose > _MOST:
        return f"no win within {lose} Order moves (at most {_MOST})"
    if win != _UNKNOWN and lose >= win:
        return f"a win within {win} and none within {lose}"
    if value >> 10:
        n, pn, dn = value >> 10 & 31, value >> _PN_SHIFT & _NUMBER_MASK, value >> _DN_SHIFT
        if not n:
            return "search numbers for no bound"
        if n > _MOST:
            return f"search numbers for {n} Order moves (at most {_MOST})"
        if not (pn and dn):
            return f"search numbers without both (proof {pn}, disproof {dn})"
        if pn >= _INF or dn >= _INF:
            return f"search numbers out of range (proof {pn:,}, disproof {dn:,})"
    return ""


# --- proof-number search --------------------------------------------------------------------------

_INF = 1 << 32
"""Infinite proof or disproof number (a solved node); finite sums are kept below it."""
_NUMBER_MASK = (1 << 33) - 1
_PN_SHIFT, _DN_SHIFT = 15, 48


def _key_bits() -> tuple[tuple[int, ...], ...]:
    """`_KEY_BITS[action]`: what the action adds to each of the 16 candidate keys of
    [`_key_parts`][] (the square's image under each symmetry, in the X or O half)."""
    table = []
    for action in range(2 * SIZE):
        sq, is_o = action >> 1, action & 1
        row: list[int] = []
        for perm in TRANSFORMS:
            low, high = 1 << perm[sq], 1 << perm[sq] << SIZE
            row += (high, low) if is_o else (low, high)
        table.append(tuple(row))
    return tuple(table)


_KEY_BITS = _key_bits()


def _key_parts(x: int, o: int) -> list[int]:
    """The 16 images of `x | o << 36` ([`canonical_key`][] is their least): with them, the key
    of the position after one placement is `min(map(or_, parts, _KEY_BITS[action]))`."""
    parts = []
    for t0, t1, t2 in _TABLES:
        a = t0[x & 4095] | t1[x >> 12 & 4095] | t2[x >> 24]
        b = t0[o & 4095] | t1[o >> 12 & 4095] | t2[o >> 24]
        parts.append(a | b << SIZE)
        parts.append(b | a << SIZE)
    return parts


def _quiet_move(x: int, o: int) -> bool:
    """Whether some placement makes no threat (no window of four like symbols and a gap),
    on a board without threats."""
    empty = FULL & ~(x | o)
    while empty:
        bit = empty & -empty
        empty ^= bit
        through = WINDOWS_THROUGH[bit.bit_length() - 1]
        for own, other in ((x, o), (o, x)):
            for w in through:
                if not other & w and (own & w).bit_count() == 3:
                    break
            else:
                return True
    return False


class _PnProver(_Prover):
    """The same questions as [`_Prover`][], answered by depth-bounded df-pn.

    A node is a position with a bound `n` (Order moves left for the win). Its proof number is
    a lower estimate of the leaves still to prove for a win within `n`, its disproof number
    the same for a refutation; df-pn (Nagai 2002) expands the most-proving node with
    thresholds, so it keeps only the transposition table, never the tree. Thresholds of the
    best child use the 1+ε trick (Pawlewicz and Lew 2007): a child is searched until its
    number passes the second-best sibling's by a quarter, which saves re-expansions.

    Table entries: the bounds of [`_Prover`][] (bits 0-9), then the bound `n` the numbers are
    for (bits 10-14), the proof number (from bit 15) and the disproof number (from bit 48). A
    proven entry's "win" is the longest line of the proof found (an upper bound of the fewest).
    """

    def _probe(self, key: int, n: int) -> tuple[int, int, int]:
        """The proof and disproof numbers of `key` within `n`, and its win bound if proven."""
        entry = self.table.get(key)
        if entry is None:
            return 1, 1, _UNKNOWN
        win = entry & 31
        if win <= n:
            self.hits += 1
            return 0, _INF, win
        if entry >> 5 & 31 >= n:
            self.hits += 1
            return _INF, 0, _UNKNOWN
        if entry >> 10 & 31 == n:
            self.hits += 1
            return entry >> _PN_SHIFT & _NUMBER_MASK, entry >> _DN_SHIFT, _UNKNOWN
        return 1, 1, _UNKNOWN

    def _save(self, key: int, n: int, pn: int, dn: int, win: int) -> None:
        table = self.table
        entry = table.get(key)
        if entry is None:
            if len(table) >= self.capacity:
                self._evict()
            old_win, lose = _UNKNOWN, 0
        else:
            old_win, lose = entry & 31, entry >> 5 & 31
        if pn == 0:
            table[key] = min(old_win, win) | lose << 5
        elif dn == 0:
            table[key] = old_win | max(lose, n) << 5
        else:
            table[key] = old_win | lose << 5 | n << 10 | pn << _PN_SHIFT | dn << _DN_SHIFT

    def prove(self, x: int, o: int, order: bool, n: int) -> int | None:
        """Whether Order wins within `n`: the length of the proof found (at most `n`; not
        always the fewest), or `None` for no win within `n`."""
        self._tick()
        while True:  # settle the immediate cases and forced replies
            wx, wo = _threats(x, o)
            threats = wx | wo
            empty = (FULL & ~(x | o)).bit_count()
            if order:
                if n <= 0:
                    return None
                if threats:
                    return 1
                n = min(n, (empty + 1) // 2)
                if n <= 1:
                    return None
                break
            if threats:
                if n <= 0:
                    return None if FULL & ~(x | o) & ~(wx & wo) else 0
                if threats & (threats - 1) or wx & wo:
                    return 1
                x, o = _play(x, o, 2 * (threats.bit_length() - 1) + (wx != 0))
                order = True
                continue
            n = min(n, empty // 2)
            if n <= 0:
                return None
            break
        key = canonical_key(x, o)
        self.probes += 1
        pn, dn, win = self._probe(key, n)
        if pn and dn:
            pn, dn, win = self._mid(key, x, o, order, n, _INF, _INF)
        return win if pn == 0 else None

    def order(self, x: int, o: int, n: int) -> bool:
        return self.prove(x, o, True, n) is not None

    def chaos(self, x: int, o: int, n: int) -> bool:
        return self.prove(x, o, False, n) is not None

    def fewest(self, x: int, o: int, order_to_move: bool, n: int) -> int | None:
        """The fewest Order moves within which Order wins, up to `n`: a proof within `n`, then
        within one move fewer than the last proof's length, until a bound is refuted."""
        found = self.prove(x, o, order_to_move, n)
        if found is None:
            return None
        least = 1 if order_to_move else 0
        while found > least:
            shorter = self.prove(x, o, order_to_move, found - 1)
            if shorter is None:
                break
            found = min(shorter, found - 1)
        return found

    def chaos_reply(self, x: int, o: int, n: int) -> tuple[int, int]:
        """Chaos's reply that puts off Order's win (within `n`, which exists) longest, and
        the Order moves then needed: the replies (one of each set of symmetric ones) by the
        length of their proofs, longest first; each needs its exact fewest only if Order does
        not win within the longest found so far."""
        empty = FULL & ~(x | o)
        candidates: list[tuple[int, int]] = []
        seen: set[int] = set()
        for action in range(2 * SIZE):
            if not empty >> (action >> 1) & 1:
                continue
            if _makes_five(x, o, action):
                candidates.append((0, action))
                continue
            cx, co = _play(x, o, action)
            key = canonical_key(cx, co)
            if key in seen:
                continue
            seen.add(key)
            upper = self.prove(cx, co, True, n)
            candidates.append((n if upper is None else upper, action))
        candidates.sort(key=lambda c: (-c[0], c[1]))
        best, most = -1, -1
        for upper, action in candidates:
            if upper <= most:
                break
            if upper == 0:
                turns = 0
            else:
                cx, co = _play(x, o, action)
                if most >= 1 and self.prove(cx, co, True, most) is not None:
                    continue
                turns = self.fewest(cx, co, True, upper) or n
            if turns > most:
                best, most = action, turns
        return best, most

    def _mid(
        self, key: int, x: int, o: int, order: bool, n: int, thpn: int, thdn: int
    ) -> tuple[int, int, int]:
        """Search the node until its proof number reaches `thpn` or its disproof number
        `thdn` (or it is solved); store and return `(pn, dn, win)`."""
        self._tick()
        expanded = self._expand(x, o, order, n)
        if len(expanded) == 3:  # solved by its children's immediate results
            pn, dn, win = expanded
            self._save(key, n, pn, dn, win)
            return pn, dn, win
        keys, boards, pns, dns, wins, dropped = expanded
        inf = _INF
        mid = self._mid
        while True:
            if order:
                pn = min(pns)
                if pn == 0:
                    result = 0, inf, 1 + min(w for p, w in zip(pns, wins, strict=True) if not p)
                    break
                dn = sum(dns)
                if dn >= inf:
                    dn = inf - 1
                elif dn == 0:
                    result = inf, 0, _UNKNOWN
                    break
                if pn >= thpn or dn >= thdn:
                    result = pn, dn, _UNKNOWN
                    break
                i = pns.index(pn)
                pns[i] = inf + 1
                second = min(pns)
                pns[i] = pn
                child_pn = min(thpn, second + 1 + (second >> 2))
                child_dn = thdn - dn + dns[i]
            else:
                dn = min(dns)
                if dn == 0:
                    result = inf, 0, _UNKNOWN
                    break
                pn = sum(pns)
                if pn >= inf:
                    pn = inf - 1
                elif pn == 0:
                    result = 0, inf, max(dropped, *wins)
                    break
                if pn >= thpn or dn >= thdn:
                    result = pn, dn, _UNKNOWN
                    break
                i = dns.index(dn)
                dns[i] = inf + 1
                second = min(dns)
                dns[i] = dn
                child_dn = min(thdn, second + 1 + (second >> 2))
                child_pn = thpn - pn + pns[i]
            cx, co, corder, cn = boards[i]
            pns[i], dns[i], wins[i] = mid(keys[i], cx, co, corder, cn, child_pn, child_dn)
        self._save(key, n, *result)
        return result

    def _expand(self, x: int, o: int, order: bool, n: int) -> tuple[Any, ...]:
        """The children of a settled node (no threat on the board), with their numbers.

        A child that is won or lost at once (a double threat, a forced reply and what follows
        it, no moves left) is not kept: for Order, a won child wins the node and a lost one
        adds nothing; for Chaos the other way round. Children with the same canonical key (the
        same position up to symmetry) are kept once. Returns `(pn, dn, win)` when that already
        solves the node, else the lists `keys, boards, pns, dns, wins` and the longest win of
        the children dropped as won (for Chaos).
        """
        order_scores, chaos_scores, live = _scores(x, o)
        actions = _moves(x, o, order_scores if order else chaos_scores, live)
        parts = _key_parts(x, o)
        after = (FULL & ~(x | o)).bit_count() - 1  # empty squares in a child
        # The bound of a child: Order's moves left, clipped to those the board leaves.
        later = min(n - 1, after // 2) if order else min(n, (after + 1) // 2)
        inf = _INF
        probe = self._probe
        get = self.table.get
        self.probes += len(actions)
        keys: list[int] = []
        boards: list[tuple[int, int, bool, int]] = []
        pns: list[int] = []
        dns: list[int] = []
        wins: list[int] = []
        seen: set[int] = set()
        dropped = 0
        for action in actions:
            sq = action >> 1
            bit = 1 << sq
            if action & 1:
                cx, co = x, o | bit
            else:
                cx, co = x | bit, o
            tx = to = 0
            for w in WINDOWS_THROUGH[sq]:  # the board had no threat: new ones pass through sq
                a = cx & w
                if a:
                    if not co & w and a.bit_count() == 4:
                        tx |= w ^ a
                else:
                    b = co & w
                    if b.bit_count() == 4:
                        to |= w ^ b
            threats = tx | to
            if order:
                if threats:
                    if threats & (threats - 1) or tx & to:
                        return 0, inf, 2
                    block = 2 * (threats.bit_length() - 1) + (tx != 0)
                    cx, co = _play(cx, co, block)
                    gx, go = _threats(cx, co)
                    if gx | go:
                        return 0, inf, 2
                    cn = later  # Order to move with after - 1 empty squares: after // 2
                    if cn <= 1:
                        continue
                    key = min(map(or_, map(or_, parts, _KEY_BITS[action]), _KEY_BITS[block]))
                    child = (cx, co, True, cn)
                else:
                    cn = later
                    if cn <= 0:
                        continue
                    if cn == 1:  # Chaos loses only if every move of its makes a threat
                        if _quiet_move(cx, co):
                            continue
                        return 0, inf, 2
                    key = min(map(or_, parts, _KEY_BITS[action]))
                    child = (cx, co, False, cn)
            else:
                if threats:
                    dropped = dropped or 1
                    continue
                cn = later
                if cn <= 1:
                    return inf, 0, _UNKNOWN
                key = min(map(or_, parts, _KEY_BITS[action]))
                child = (cx, co, True, cn)
            if key in seen:
                continue
            seen.add(key)
            entry = get(key)
            if entry is None:
                pn = dn = 1
                win = _UNKNOWN
            else:
                pn, dn, win = probe(key, cn)
            if order:
                if pn == 0:
                    return 0, inf, win + 1
                if dn == 0:
                    continue
            else:
                if dn == 0:
                    return inf, 0, _UNKNOWN
                if pn == 0:
                    if win > dropped:
                        dropped = win
                    continue
            keys.append(key)
            boards.append(child)
            pns.append(pn)
            dns.append(dn)
            wins.append(win)
        if not keys:
            return (inf, 0, _UNKNOWN) if order else (0, inf, dropped)
        return keys, boards, pns, dns, wins, dropped


# --- the answer -----------------------------------------------------------------------------------


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
    raise prover.contradiction("Chaos holds, yet no move holds")


# --- proven moves, for players --------------------------------------------------------------------


class ProvenMoves:
    """Proven best moves for players, each a [`ProvenMove`][abstractgames.solvers.ProvenMove]
    (the contract's [`ProvenMoves`][abstractgames.solvers.ProvenMoves]), by df-pn deepened one
    Order move at a time up to the end of the game, within a budget of positions; the
    transposition table (at most `memory` MB) is kept from one call to the next.

    Examples:
        >>> from abstractgames import get_game
        >>> best = ProvenMoves()(get_game("orderchaos").from_position("6/6/6/6/6/XXXX2 order"))
        >>> print(best.move, best.winner, best.moves)
        X@e1 order 1
    """

    def __init__(self, memory: float = 64.0) -> None:
        self.prover = _PnProver(Deadline(None), memory)

    def __call__(
        self, state: State, nodes: int = 20_000, time_limit: float | None = None
    ) -> ProvenMove | None:
        """The best move in `state` if the result is proven within `nodes` positions (and
        `time_limit` seconds), else `None`.

        Raises:
            ValueError: `state` is not an unfinished Order and Chaos position.
        """
        if not isinstance(state, OrderChaosState) or state.to_move is None:
            raise ValueError(f"no move to prove in {state.position()}")
        prover = self.prover
        start = prover.nodes
        prover.deadline = Deadline(time_limit)
        prover.max_nodes = start + nodes
        x, o = state.x, state.o
        empty = (FULL & ~(x | o)).bit_count()
        order = state.to_move == ORDER
        left = (empty + 1) // 2 if order else empty // 2
        try:
            # Deepened: a short win is proven (and a short bound refuted) long before the
            # whole game could be, and the first bound proven is the fewest.
            fastest = next(
                (
                    n
                    for n in range(0 if not order else 1, left + 1)
                    if prover.prove(x, o, order, n) is not None
                ),
                None,
            )
            if fastest is None:
                if order:
                    return ProvenMove(None, CHAOS, None, prover.nodes - start)
                move = MOVES[_chaos_holding_move(prover, x, o)]
                return ProvenMove(move, CHAOS, None, prover.nodes - start)
            if order:
                move = MOVES[prover.order_move(x, o, fastest)]
                return ProvenMove(move, ORDER, fastest, prover.nodes - start)
            action, longest = prover.chaos_reply(x, o, fastest)
            return ProvenMove(MOVES[action], ORDER, longest, prover.nodes - start)
        except SearchTimeout:
            return None
        finally:
            prover.max_nodes = 1 << 62
            prover.deadline = Deadline(None)


def solve(
    state: State,
    max_moves: int,
    time_limit: float | None = None,
    *,
    progress: Callable[[Progress], None] | None = None,
    memory: float = DEFAULT_MEMORY,
    checkpoint: str | None = None,
    method: str = AUTO,
) -> Solution:
    """Whether Order can force five in a row within `max_moves` of its own moves.

    Exact (see [the module][abstractgames.solvers.orderchaos] for why each cut is sound). Wins
    are looked for within one Order move, then two, and so on (with `method="pn"`, once that
    costs 5,000 positions, within `max_moves` at once and then within fewer), so the win
    reported is the fastest; when `max_moves` reaches the moves Order has left, "no win" means
    Chaos holds.

    Args:
        state: an Order and Chaos position, not finished; either side to move.
        max_moves: how many Order moves the win may take, at least 1.
        time_limit: seconds; when they run out the search stops and reports how far it got.
        progress: called with a [`Progress`][abstractgames.solvers.Progress] each time a
            number of moves is ruled out.
        memory: the bound of the transposition table, in MB.
        checkpoint: a file where the transposition table is saved every five minutes, on the time
            limit and on Ctrl-C or SIGTERM, and read back at the start if it exists (a table
            of any method, and of the version-1 files of the plain search, is read by all).
        method: `"auto"` (the default): the pairing route where the pairing has been kept
            and Order wins the centre game (`route` `"pairing"`, its `proof` a
            [`PairingProof`][], which `max_moves`, `memory` and `checkpoint` do not concern),
            else `"pn"`; or one of [`METHODS`][]: `"pn"`, `"pn-deepening"` or `"deepening"`,
            df-pn alone (`route` `"df-pn"`).

    Returns:
        A [`Solution`][abstractgames.solvers.Solution]: Order's win in the fewest moves with a
        principal variation and Order's strategy, or Chaos's hold with Chaos's strategy (both
        as `strategy`, for a certificate); by the pairing route, the win within a bound with
        a certificate of the game's own format (`certificate`); or no result.

    Raises:
        ValueError: the game is over, `state` is not Order and Chaos, `max_moves` < 1 or an
            unknown method; [`CheckpointError`][] for a checkpoint of another position, or
            damaged.
    """
    if not isinstance(state, OrderChaosState):
        raise ValueError(f"solve() reads Order and Chaos positions, not {state!r}")
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1:
        raise ValueError(f"max_moves={max_moves!r} must be a positive integer")
    if not 0 < memory < float("inf"):
        raise ValueError(f"memory={memory!r} must be a positive number of MB (and finite)")
    outcome = state.outcome()
    if outcome is not None:
        raise ValueError(f"the game is over ({outcome.reason}) in {state.position()}")
    if method != AUTO and method not in METHODS:
        raise ValueError(f"method={method!r} must be one of {', '.join((AUTO, *METHODS))}")
    if method == AUTO:
        paired = _solve_by_pairing(state, max_moves)
        if paired is not None:
            return paired
        method = DEFAULT_METHOD
    deadline = Deadline(time_limit)
    prover = (_Prover if method == "deepening" else _PnProver)(deadline, memory, checkpoint)
    prover.root = state.position()
    prover.load_checkpoint()
    x, o = state.x, state.o
    order_to_move = state.to_move == ORDER
    empty = (FULL & ~(x | o)).bit_count()
    left = (empty + 1) // 2 if order_to_move else empty // 2
    search = prover.order if order_to_move else prover.chaos
    searched = 0
    found: int | None = None
    bound = min(max_moves, left)
    current = 0
    stopped = False
    try:
        # Chaos to move may have to make five itself: a win in no Order move.
        for n in range(0 if not order_to_move else 1, bound + 1):
            current = n
            if method == "pn" and prover.nodes >= _PN_JUMP and n < bound:
                # Past the cheap bounds: straight to the whole bound, then shorter.
                current = bound
                found = prover.fewest(x, o, order_to_move, bound)
                searched = bound if found is None else max(found - 1, searched)
                break
            if search(x, o, n):
                found = n
                break
            searched = n
            if progress is not None and 0 < n < bound:
                progress(_progress(prover, n))
    except SearchTimeout:
        stopped = True
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
    winner = ORDER if found is not None else CHAOS if holds else None
    return Solution(
        state.position(),
        state.to_move or "",
        ORDER,
        max_moves,
        winner,
        found,
        line,
        max(searched, left) if holds else searched,
        prover.nodes,
        ROUTE_DFPN,
        goal=_GOAL,
        stopped_at=current if stopped else 0,
        table=_table(prover),
        strategy=None
        if winner is None
        else partial(_strategy, prover, state.position(), winner == ORDER, found or 0),
    )


def _table(prover: _Prover) -> TableStats:
    return TableStats(prover.hits, prover.probes, len(prover.table))


def _progress(prover: _Prover, n: int) -> Progress:
    return Progress(ORDER, n, prover.nodes, prover.deadline.elapsed(), _table(prover))


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
        if action < 0:
            raise prover.contradiction("Order wins, yet Chaos has no move")
        yield action
        if _makes_five(x, o, action):
            return
        x, o = _play(x, o, action)
        order_to_move = True


# --- the pairing route: Turner's reduction to the centre 4×4 --------------------------------------
#
# The 20 squares outside the centre (files b–e, ranks 2–5) are the two ends of the ten lines of
# four through the centre. Order answers each Chaos move on the rim at the other end of its line
# with the other symbol, plays the centre game's strategy in the centre, and completes five as
# soon as a centre line holds four like symbols (see docs/orderchaos-solved.md for the argument).

_CENTRE_SQUARES = tuple(
    sq for sq in range(SIZE) if 0 < GRID.file(sq) < GRID.width - 1 and 0 < GRID.rank(sq) < 5
)
"""The 16 centre squares in index order (b2, c2, d2, e2, b3, … e5); bit `i` of a centre board
is `_CENTRE_SQUARES[i]`."""
_LOCAL = {sq: i for i, sq in enumerate(_CENTRE_SQUARES)}


def _centre_lines() -> tuple[tuple[tuple[int, ...], tuple[int, int]], ...]:
    """The ten lines of four through the centre (their squares) with their two ends."""
    found = []
    for df, dr in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        for start in _CENTRE_SQUARES:
            squares = [start, *GRID.ray(start, df, dr)[:3]]
            before = GRID.step(start, -df, -dr)
            if len(squares) == 4 and all(s in _LOCAL for s in squares) and before not in _LOCAL:
                after = GRID.step(squares[-1], df, dr)
                assert before is not None and after is not None
                found.append((tuple(squares), (before, after)))
    return tuple(found)


_LINES_6 = _centre_lines()
_CENTRE_LINE_MASKS = tuple(sum(1 << _LOCAL[sq] for sq in squares) for squares, _ in _LINES_6)
"""The ten lines as 16-bit masks of the centre board."""
_LINE_MASKS_6 = tuple(GRID.mask(squares) for squares, _ in _LINES_6)
_PARTNER = {a: b for _, (a, b) in _LINES_6} | {b: a for _, (a, b) in _LINES_6}
"""The other end of the centre line a rim square ends."""
_RIM_PAIRS = tuple(ends for _, ends in _LINES_6)
_CENTRE_FULL = (1 << 16) - 1
_CENTRE_THROUGH = tuple(tuple(m for m in _CENTRE_LINE_MASKS if m >> i & 1) for i in range(16))
_CENTRE_BOUND = 8
"""The most moves Order can make in the centre game (16 squares, Order first)."""


def _centre_perms() -> tuple[tuple[int, ...], ...]:
    perms = []
    for t in range(8):
        perm = []
        for i in range(16):
            f, r = i % 4, i // 4
            if t & 4:
                f, r = r, f
            if t & 1:
                f = 3 - f
            if t & 2:
                r = 3 - r
            perm.append(4 * r + f)
        perms.append(tuple(perm))
    return tuple(perms)


_CENTRE_PERMS = _centre_perms()


def _centre_tables() -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    return tuple((_image_table(perm[:8]), _image_table(perm[8:])) for perm in _CENTRE_PERMS)


_CENTRE_TABLES = _centre_tables()


def _lane_tables() -> tuple[tuple[int, ...], ...]:
    """For a byte of a centre mask, its 8 symmetric images side by side, one in each 32-bit
    lane of an integer (lane `t` holds symmetry `t`'s): the low byte's and the high byte's, at
    the bottom of each lane (as X) and at its top (as O)."""

    def side_by_side(byte: int, shift: int) -> tuple[int, ...]:
        return tuple(
            sum(tables[byte][v] << (32 * t + shift) for t, tables in enumerate(_CENTRE_TABLES))
            for v in range(256)
        )

    return tuple(side_by_side(byte, shift) for shift in (0, 16) for byte in (0, 1))


_X_LOW, _X_HIGH, _O_LOW, _O_HIGH = _lane_tables()
_SIXTEEN_LANES = struct.Struct("<16I").unpack


def centre_key(x: int, o: int) -> int:
    """The canonical key of a centre board (16-bit X and O masks): the least `x' | o' << 16`
    over the 8 symmetries of the 4×4 and the swap of X and O."""
    xl, xh, ol, oh = x & 255, x >> 8, o & 255, o >> 8
    images = _X_LOW[xl] | _X_HIGH[xh] | _O_LOW[ol] | _O_HIGH[oh]
    swapped = _X_LOW[ol] | _X_HIGH[oh] | _O_LOW[xl] | _O_HIGH[xh]
    keys: tuple[int, ...] = _SIXTEEN_LANES((images | swapped << 256).to_bytes(64, "little"))
    return min(keys)


def _centre_frame(x: int, o: int) -> tuple[int, int, bool]:
    """The canonical key of a centre board with a symmetry that gives it: `(key, t, swapped)`."""
    best, frame, swapped = -1, 0, False
    for t, (low, high) in enumerate(_CENTRE_TABLES):
        a = low[x & 255] | high[x >> 8]
        b = low[o & 255] | high[o >> 8]
        for k, swap in ((a | b << 16, False), (b | a << 16, True)):
            if best < 0 or k < best:
                best, frame, swapped = k, t, swap
    return best, frame, swapped


def _completing_squares() -> tuple[bytes, array[int]]:
    """For each 16-bit mask of one symbol's centre squares: whether it holds a line, and the
    squares that would complete a line it holds three of."""
    holds_a_line = bytearray(1 << 16)
    completing = [0] * (1 << 16)
    for m in _CENTRE_LINE_MASKS:
        others = [_CENTRE_FULL & ~m]  # every mask of the squares off the line
        while others[-1]:
            others.append((others[-1] - 1) & others[0])
        for other in others:
            holds_a_line[m | other] = 1
        for square in (1 << i for i in range(16) if m >> i & 1):
            for mask in [m ^ square | other for other in others]:
                completing[mask] |= square
    return bytes(holds_a_line), array("H", completing)


_HOLDS_A_LINE, _COMPLETING = _completing_squares()


def _centre_won(x: int, o: int) -> bool:
    return bool(_HOLDS_A_LINE[x] or _HOLDS_A_LINE[o])


def _threat_squares(x: int, o: int) -> tuple[int, int]:
    """The empty squares where X, and where O, would complete a centre line."""
    return _COMPLETING[x] & ~o, _COMPLETING[o] & ~x


def _centre_threat(x: int, o: int) -> list[tuple[int, int]]:
    """The (bit, symbol) pairs that complete a centre line (symbol 0 for X, 1 for O)."""
    occupied = x | o
    found = []
    for m in _CENTRE_LINE_MASKS:
        gap = m & ~occupied
        if gap and not gap & (gap - 1):
            if x & m == m ^ gap:
                found.append((gap, 0))
            elif o & m == m ^ gap:
                found.append((gap, 1))
    return found


class _CentreSolver:
    """The centre game: does Order (to move, or after Chaos's move) complete a line of four
    within `n` of its moves? Memoised on canonical keys, with the fewest bound known to win
    and the most known not to, as `_Prover` keeps them for the whole board."""

    def __init__(self) -> None:
        self.win: dict[int, int] = {}
        self.lose: dict[int, int] = {}
        self.nodes = 0
        self._searches = threading.local()  # each thread's deadline (the server's bots share this)

    @contextmanager
    def limited(self, deadline: Deadline) -> Iterator[None]:
        """Within the block, this thread's searches raise [`SearchTimeout`][] once `deadline`
        passes (what they had proven is kept)."""
        self._searches.deadline = deadline
        try:
            yield
        finally:
            self._searches.deadline = NO_DEADLINE

    def _candidates(self, x: int, o: int) -> list[tuple[int, int, int]]:
        """Order's moves up to symmetry, as `(code, x, o)`, best first (lines extended)."""
        empty = _CENTRE_FULL & ~(x | o)
        seen: set[int] = set()
        scored = []
        while empty:
            bit = empty & -empty
            empty ^= bit
            i = bit.bit_length() - 1
            for symbol, (cx, co) in enumerate(((x | bit, o), (x, o | bit))):
                key = centre_key(cx, co)
                if key in seen:
                    continue
                seen.add(key)
                own, other = (cx, co) if symbol == 0 else (co, cx)
                score = 0
                for m in _CENTRE_THROUGH[i]:
                    if not other & m:
                        count = (own & m).bit_count()
                        score += 100 if count == 3 else count * count
                scored.append((-score, 2 * i + symbol, cx, co))
        scored.sort()
        return [(code, cx, co) for _, code, cx, co in scored]

    def order(self, x: int, o: int, n: int, key: int = -1) -> bool:
        """Order to move wins within `n` of its moves (`key`: the board's canonical key, if
        known)."""
        self.nodes += 1
        if not self.nodes & 1023:
            getattr(self._searches, "deadline", NO_DEADLINE).check()
        by_x, by_o = _threat_squares(x, o)
        if by_x or by_o:
            return n >= 1
        if n <= 1:
            return False
        if key < 0:
            key = centre_key(x, o)
        known = self.win.get(key)
        if known is not None and known <= n:
            return True
        if self.lose.get(key, 0) >= n:
            return False
        for _, cx, co in self._candidates(x, o):
            if self.chaos(cx, co, n - 1):
                self.win[key] = n if known is None else min(known, n)
                return True
        self.lose[key] = max(self.lose.get(key, 0), n)
        return False

    def chaos(self, x: int, o: int, n: int) -> bool:
        """Chaos to move; Order wins within `n` more of its moves, whatever Chaos plays."""
        self.nodes += 1
        empty = _CENTRE_FULL & ~(x | o)
        if not empty or n < 1:
            return False
        by_x, by_o = _threat_squares(x, o)
        if by_x or by_o:
            if (by_x and by_o) or (by_x | by_o).bit_count() > 1:
                return True  # two squares, or one square both symbols complete
            # Every other move leaves the line for Order; the other symbol there may hold.
            cx, co = (x, o | by_x) if by_x else (x | by_o, o)
            if _centre_won(cx, co):
                return True
            return cx | co != _CENTRE_FULL and self.order(cx, co, n)
        seen: set[int] = set()
        while empty:
            bit = empty & -empty
            empty ^= bit
            for cx, co in ((x | bit, o), (x, o | bit)):
                if _centre_won(cx, co):
                    continue  # Chaos completes a line: Order wins
                if cx | co == _CENTRE_FULL:
                    return False
                key = centre_key(cx, co)
                if key in seen:
                    continue
                seen.add(key)
                if not self.order(cx, co, n, key):
                    return False
        return True

    def fewest(self, x: int, o: int, order_to_move: bool) -> int | None:
        """The fewest Order moves that win the centre game from here, or `None`."""
        search = self.order if order_to_move else self.chaos
        return next((n for n in range(1, _CENTRE_BOUND + 1) if search(x, o, n)), None)

    def move(self, x: int, o: int, n: int) -> int:
        """Order's move (`2 * centre square + symbol`) that wins within `n`: the completing one
        if there is one, else the first of the candidates that wins."""
        threats = _centre_threat(x, o)
        if threats:
            bit, symbol = threats[0]
            return 2 * (bit.bit_length() - 1) + symbol
        for code, cx, co in self._candidates(x, o):
            if self.chaos(cx, co, n - 1):
                return code
        raise ValueError("Order does not win the centre game within the bound")


_CENTRE_SOLVER = _CentreSolver()


@attrs.frozen
class CentreStrategy:
    """Order's winning strategy in the centre game, from one centre position.

    Attributes:
        x, o: the centre board it starts from (16-bit masks, bit `i` the `i`-th centre square).
        order_to_move: whether Order moves first from it.
        moves: the most Order moves the strategy takes (the fewest that force the win).
        strategy: Order's move (`2 * centre square + symbol`, 0 for X) by canonical key, in the
            canonical board's own frame, for every position that arises when Order follows it
            and Chaos plays anything.
        nodes: the positions the solver visited.
        seconds: the time it took, solving and walking the strategy.
    """

    x: int
    o: int
    order_to_move: bool
    moves: int
    strategy: dict[int, int] = attrs.field(repr=False)
    nodes: int
    seconds: float


def centre_strategy(x: int = 0, o: int = 0, order_to_move: bool = True) -> CentreStrategy | None:
    """Solve the centre game from a centre board, and walk Order's strategy: `None` if Order
    does not win it. The empty board's is computed once a process and kept.

    Examples:
        >>> strategy = centre_strategy(0b111, 0b11 << 4)  # X on b2, c2, d2; O on b3, c3
        >>> strategy.moves, len(strategy.strategy)
        (1, 1)

    (From the empty board, `centre_strategy().moves` is 7, in some seconds.)
    """
    if (x, o, order_to_move) == (0, 0, True):
        return _root_strategy()
    return _centre_strategy(x, o, order_to_move)


@cache
def _root_strategy() -> CentreStrategy | None:
    return _centre_strategy(0, 0, True)


def _centre_strategy(x: int, o: int, order_to_move: bool) -> CentreStrategy | None:
    solver = _CENTRE_SOLVER
    started = clock.perf_counter()
    nodes = solver.nodes
    moves = solver.fewest(x, o, order_to_move)
    if moves is None:
        return None
    strategy: dict[int, int] = {}
    # (board, Order moves left); the count of pieces fixes the moves made, so a position is
    # always reached with the same budget.
    stack: list[tuple[int, int, int]] = []
    if order_to_move:
        stack.append((x, o, moves))
    else:
        stack.extend((cx, co, moves) for cx, co in _centre_replies(x, o))
    while stack:
        bx, bo, n = stack.pop()
        key = centre_key(bx, bo)
        if key in strategy:
            continue
        kx, ko = key & _CENTRE_FULL, key >> 16
        code = solver.move(kx, ko, n)
        strategy[key] = code
        bit = 1 << (code >> 1)
        kx, ko = (kx, ko | bit) if code & 1 else (kx | bit, ko)
        if not _centre_won(kx, ko):
            stack.extend((cx, co, n - 1) for cx, co in _centre_replies(kx, ko))
    return CentreStrategy(
        x, o, order_to_move, moves, strategy, solver.nodes - nodes, clock.perf_counter() - started
    )


def _centre_replies(x: int, o: int) -> Iterator[tuple[int, int]]:
    """Chaos's moves that do not end the centre game (completing a line loses at once)."""
    empty = _CENTRE_FULL & ~(x | o)
    while empty:
        bit = empty & -empty
        empty ^= bit
        for cx, co in ((x | bit, o), (x, o | bit)):
            if not _centre_won(cx, co):
                if cx | co == _CENTRE_FULL:
                    raise AssertionError("the strategy lets the centre fill")  # pragma: no cover
                yield cx, co


def _centre_of(x: int, o: int) -> tuple[int, int]:
    """The centre board of a whole board."""
    cx = co = 0
    for i, sq in enumerate(_CENTRE_SQUARES):
        cx |= (x >> sq & 1) << i
        co |= (o >> sq & 1) << i
    return cx, co


@attrs.frozen
class _Pairing:
    """Where the pairing stands in a position where it has been kept."""

    empty_pairs: int
    half: int | None  # the rim square Chaos just played, still to answer


def _pairing(x: int, o: int, order_to_move: bool) -> _Pairing | None:
    """`None` if the pairing has been broken: a line's two ends hold like symbols, or one is
    filled and the other not where Order has not just been played to (at most one such pair,
    with Order to move)."""
    empty_pairs = 0
    half: int | None = None
    for a, b in _RIM_PAIRS:
        fa, fb = (x | o) >> a & 1, (x | o) >> b & 1
        if not fa and not fb:
            empty_pairs += 1
        elif fa and fb:
            if (x >> a & 1) == (x >> b & 1):
                return None
        elif half is not None or not order_to_move:
            return None
        else:
            half = a if fa else b
    return _Pairing(empty_pairs, half)


def _closing_move(x: int, o: int) -> Placement | None:
    """A centre line holding four like symbols with an empty end: that symbol there."""
    occupied = x | o
    for mask, (_, ends) in zip(_LINE_MASKS_6, _LINES_6, strict=True):
        for board, symbol in ((x, "X"), (o, "O")):
            if board & mask == mask:
                for end in ends:
                    if not occupied >> end & 1:
                        return Placement(symbol, end)
    return None


@attrs.frozen
class _Route:
    """What the pairing route says of a position: Order wins within `bound` of its moves."""

    bound: int
    centre_moves: int
    empty_pairs: int
    half: int | None


def _pairing_route(state: OrderChaosState) -> _Route | None:
    """Whether the pairing route proves Order's win from `state`, and within what."""
    order_to_move = state.to_move == ORDER
    pairing = _pairing(state.x, state.o, order_to_move)
    if pairing is None:
        return None
    cx, co = _centre_of(state.x, state.o)
    if _centre_won(cx, co):
        centre_moves = 0
    else:
        # The centre game's turn: Order's when its pieces are even (the rim's come in pairs).
        centre_order = (cx | co).bit_count() % 2 == 0
        if centre_order != (order_to_move and pairing.half is None):
            return None  # pragma: no cover (the pieces' count makes these agree)
        fewest = _CENTRE_SOLVER.fewest(cx, co, centre_order)
        if fewest is None:
            return None
        centre_moves = fewest
    # One answer for each pair still to fill, then the closing move (a pair's worth); with a
    # centre line already won, the closing move at once.
    bound = centre_moves + pairing.empty_pairs + (pairing.half is not None) if centre_moves else 1
    return _Route(
        max(bound, 1 if order_to_move else 0), centre_moves, pairing.empty_pairs, pairing.half
    )


CENTRE_MAGIC = b"AGCENTRE\n"
"""The first bytes of a centre certificate (the pairing route's proof)."""
CENTRE_FORMAT_VERSION = 1


@attrs.frozen
class PairingProof:
    """How the pairing route (Turner's reduction) proves Order's win: Order answers every Chaos
    move on the rim at the other end of its centre line with the other symbol, plays the
    centre game's strategy in the centre, and closes five when a centre line holds four. It is
    the `proof` of a [`Solution`][abstractgames.solvers.Solution] of route `"pairing"`, whose
    `within` bounds Order's moves (the route does not find the fewest: `moves` is `None`);
    `str()` names it in the solution's line.

    Attributes:
        position: the position solved.
        within: the most Order moves the composite strategy takes: the centre strategy's, one
            answer for each pair of rim squares still empty (or the closing move), and one for
            a rim square Chaos has just played.
        centre_moves: the most Order moves of the centre strategy.
        empty_pairs: the pairs of rim squares still empty.
        centre: the centre strategy (`None` where a centre line already holds four).
    """

    position: str
    within: int
    centre_moves: int
    empty_pairs: int
    centre: CentreStrategy | None = attrs.field(eq=False, repr=False)

    def __str__(self) -> str:
        centre = (
            "a centre line already holds four"
            if self.centre is None
            else f"the centre 4×4 won within {counted(self.centre_moves, 'Order move')} by a "
            f"strategy of {counted(len(self.centre.strategy), 'position')}"
        )
        return (
            f"the pairing route (Turner's reduction: each Chaos move on the rim answered at "
            f"the other end of its centre line, {centre}, five closed at the end)"
        )

    def certificate_bytes(self) -> bytes:
        """The centre certificate of this answer, for `abstractgames verify` (see
        [`abstractgames.solvers.orderchaos_certificate`][] for the format and its checker).

        Raises:
            ValueError: Chaos has just played on the rim (certificates are for positions where
                every pair is complete or empty).
        """
        state = GAME.from_position(self.position)
        pairing = _pairing(state.x, state.o, state.to_move == ORDER)
        if pairing is None or pairing.half is not None:
            raise ValueError(
                "no certificate: Chaos has just played on the rim here; answer it, then solve"
            )
        strategy = {} if self.centre is None else self.centre.strategy
        table = b"".join(
            key.to_bytes(4, "little") + bytes((code,)) for key, code in sorted(strategy.items())
        )
        header = json.dumps(
            {
                "format": "orderchaos-centre",
                "game": GAME.name,
                "position": self.position,
                "winner": ORDER,
                "route": ROUTE_PAIRING,
                "centre_moves": self.centre_moves,
                "within": self.within,
                "entries": len(strategy),
                "sha256": hashlib.sha256(table).hexdigest(),
            },
            sort_keys=True,
        ).encode()
        return (
            CENTRE_MAGIC
            + CENTRE_FORMAT_VERSION.to_bytes(2, "little")
            + len(header).to_bytes(4, "little")
            + header
            + lzma.compress(table, preset=9)
        )


def _solve_by_pairing(state: OrderChaosState, max_moves: int) -> Solution | None:
    nodes = _CENTRE_SOLVER.nodes
    route = _pairing_route(state)
    if route is None:
        return None
    centre: CentreStrategy | None = None
    cx, co = _centre_of(state.x, state.o)
    if route.centre_moves:
        order_to_move = state.to_move == ORDER and route.half is None
        centre = centre_strategy(cx, co, order_to_move)
    line: tuple[Move, ...] = ()
    if state.to_move == ORDER:
        first = _closing_move(state.x, state.o) or _pairing_answer(state, route)
        if first is None and centre is not None:
            key, t, swapped = _centre_frame(cx, co)
            first = _from_canonical(centre.strategy[key], t, swapped)
        line = () if first is None else (first,)
    proof = PairingProof(
        state.position(), route.bound, route.centre_moves, route.empty_pairs, centre
    )
    return Solution(
        state.position(),
        state.to_move or "",
        ORDER,
        max_moves,
        ORDER,
        None,
        line,
        0,
        max(0 if centre is None else centre.nodes, _CENTRE_SOLVER.nodes - nodes),
        ROUTE_PAIRING,
        route.bound,
        proof,
        goal=_GOAL,
        certificate=proof.certificate_bytes,
    )


# --- the perfect Order ----------------------------------------------------------------------------


class PerfectOrder:
    """Order's composite strategy, for the `perfect` player (a
    [`PerfectStrategy`][abstractgames.solvers.PerfectStrategy]): from any position where the
    pairing has been kept and Order wins the centre game, the closing move, the pairing answer
    or the centre strategy's move (the certificate's, in the canonical frame, mapped back), as a
    [`PerfectMove`][abstractgames.solvers.PerfectMove] (`route`: `"closing"`, `"pairing"` or
    `"centre"`); `None` elsewhere (Chaos to move, the pairing broken, the centre lost).

    Examples:
        >>> from abstractgames import get_game
        >>> state = get_game("orderchaos").from_position("6/1XXX2/1OO1O1/6/1X4/X5 order")
        >>> answer = PerfectOrder()(state)
        >>> print(answer.move, answer.route)
        O@f6 pairing
    """

    def __init__(self) -> None:
        self._out_of_time: str | None = None  # the position whose centre search ran out

    def prepare(self) -> None:
        """Solve the centre game now (some seconds, once a process), so that no move waits
        for it."""
        centre_strategy()

    def reason(self, state: State) -> str:
        """Why the strategy does not cover `state`, in words."""
        if not isinstance(state, OrderChaosState):
            return "not an Order and Chaos position"
        if state.to_move != ORDER:
            return "Chaos to move: the strategy is Order's"
        if _pairing(state.x, state.o, True) is None:
            return "the pairing is broken"
        if state.position() == self._out_of_time:
            return "the centre game's search ran out of the time given"
        return "Order does not win the centre game from here"

    def __call__(self, state: State, time_limit: float | None = None) -> PerfectMove | None:
        if not isinstance(state, OrderChaosState) or state.to_move != ORDER:
            return None
        self._out_of_time = None
        try:
            with _CENTRE_SOLVER.limited(Deadline(time_limit)):
                return self._answer(state)
        except SearchTimeout:
            self._out_of_time = state.position()
            return None

    def _answer(self, state: OrderChaosState) -> PerfectMove | None:
        route = _pairing_route(state)
        if route is None:
            return None
        closing = _closing_move(state.x, state.o)
        if closing is not None:
            return PerfectMove(closing, "closing", 1)
        answer = _pairing_answer(state, route)
        if answer is not None:
            return PerfectMove(answer, "pairing", route.bound)
        cx, co = _centre_of(state.x, state.o)
        root = centre_strategy()
        budget = (root.moves if root is not None else _CENTRE_BOUND) - (cx | co).bit_count() // 2
        key, t, swapped = _centre_frame(cx, co)
        kx, ko = key & _CENTRE_FULL, key >> 16
        if budget < 1 or not _CENTRE_SOLVER.order(kx, ko, budget):
            budget = route.centre_moves  # off the empty board's tree: the fewest from here
        code = (
            root.strategy.get(key)
            if root is not None and budget + (cx | co).bit_count() // 2 == root.moves
            else None
        )
        if code is None:
            code = _CENTRE_SOLVER.move(kx, ko, budget)
        return PerfectMove(_from_canonical(code, t, swapped), "centre", route.bound)


def _pairing_answer(state: OrderChaosState, route: _Route) -> Placement | None:
    """The other end of the line whose end Chaos has just played, with the other symbol."""
    if route.half is None:
        return None
    symbol = "O" if state.x >> route.half & 1 else "X"
    return Placement(symbol, _PARTNER[route.half])


def _from_canonical(code: int, t: int, swapped: bool) -> Placement:
    """A centre move (`2 * centre square + symbol`) of the canonical board that symmetry `t`
    (and the swap of X and O, if `swapped`) makes of the real one, on the real board."""
    local = _CENTRE_PERMS[t].index(code >> 1)
    return Placement("XO"[(code & 1) ^ swapped], _CENTRE_SQUARES[local])


SOLVER = SolverEntry(solve, progress=True, memory=True, checkpoint=True, certificates=True)
"""The solver as the registry gives it: it takes a `progress` callback, a `memory` bound and a
`checkpoint` file, and every result it proves gives a certificate (Order's or Chaos's strategy,
or the pairing route's centre certificate)."""
