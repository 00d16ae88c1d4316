"""Carreno's dispersal Entropy, `B` games at once: two bitboards per lane and its history.

Queen moves come from per-square tables: the occupied squares on a square's orthogonal (and
diagonal) lines are compressed to a byte by two lookups (the board's low 13 bits and its high
12), and the byte gives the squares reached. Check, isolation and dispersal are shifts and masks
on all lanes at once, as in [`abstractgames.dispersal`][].

**Repetition, faithfully.** Each lane keeps every position key of its game (`o | s << 25 |
side << 50`, as [`DispersalState.history`][abstractgames.dispersal.DispersalState.history]) in a
row of `max_plies + 1` keys, and a 1024-bit filter of the keys seen. A step counts the new key's
occurrences in the row only in the lanes whose filter has its bit set, so the threefold repetition
rule is exact (not bounded) and costs a full count only on a filter hit. The row is what limits
memory: 8 bytes per ply of `max_plies` per lane.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..dispersal import (
    FULL,
    NEIGHBOURS,
    PASS_ACTION,
    SIZE,
    DispersalGame,
    DispersalState,
    reach,
    split_key,
)
from ..grid import QUEEN_DIRECTIONS, grid
from ..protocol import State
from . import Actions, BatchSimulator, Lanes, Mask

__all__ = ["DispersalBatch"]

_I64 = np.int64
_GRID = grid(5, 5)
_NOT_FILE_A = FULL & ~_GRID.mask(range(0, SIZE, 5))
_NOT_FILE_E = FULL & ~_GRID.mask(range(4, SIZE, 5))
_SQUARES = np.arange(SIZE)
_BITS = (1 << _SQUARES).astype(_I64)
_NEIGHBOURS = np.array(NEIGHBOURS, _I64)
_LOW = 13  # the board's bits are looked up in two parts: 13 low, 12 high
_SENTINEL = np.uint64((1 << 64) - 1)  # in history rows past the ply: no key is this
_FILTER_WORDS = 16  # 1024 bits
_HASH = np.uint64(0x9E3779B97F4A7C15)
_O_WINS, _S_WINS, _DRAW = 0, 1, 2


def _tables() -> tuple[npt.NDArray[Any], ...]:
    """The two lookup tables that give each square's line bytes from the board, and the squares
    reached by line byte (orthogonal lines, diagonal lines)."""
    # One more row (square 25, all zero) for the padding of lanes with fewer pieces.
    low = np.zeros((SIZE + 1, 1 << _LOW), _I64)
    high = np.zeros((SIZE + 1, 1 << (SIZE - _LOW)), _I64)
    rook = np.zeros((SIZE + 1, 256), _I64)
    bishop = np.zeros((SIZE + 1, 256), _I64)
    values_low = np.arange(1 << _LOW)
    values_high = np.arange(1 << (SIZE - _LOW))
    for sq in range(SIZE):
        lines = []
        for directions in (QUEEN_DIRECTIONS[:4], QUEEN_DIRECTIONS[4:]):
            lines.append([t for df, dr in directions for t in _GRID.ray(sq, df, dr)])
        for kind, squares in enumerate(lines):
            for position, target in enumerate(squares):
                bit = 1 << (position + 8 * kind)
                if target < _LOW:
                    low[sq] += (values_low >> target & 1) * bit
                else:
                    high[sq] += (values_high >> (target - _LOW) & 1) * bit
        rook_all = sum(1 << t for t in lines[0])
        bishop_all = sum(1 << t for t in lines[1])
        for pattern in range(256):
            rook_occ = sum(1 << t for i, t in enumerate(lines[0]) if pattern >> i & 1)
            bishop_occ = sum(1 << t for i, t in enumerate(lines[1]) if pattern >> i & 1)
            if pattern < 1 << len(lines[0]):
                rook[sq, pattern] = reach(1 << sq, rook_occ | bishop_all)
            if pattern < 1 << len(lines[1]):
                bishop[sq, pattern] = reach(1 << sq, bishop_occ | rook_all)
    return (
        low.astype(np.uint16),
        high.astype(np.uint16),
        rook.astype(np.int32),
        bishop.astype(np.int32),
    )


_LOW_TABLE, _HIGH_TABLE, _ROOK, _BISHOP = _tables()
# Flat copies for np.take (faster than two-dimensional fancy indexing).
_LOW_FLAT, _HIGH_FLAT = _LOW_TABLE.reshape(-1), _HIGH_TABLE.reshape(-1)
_ROOK_FLAT, _BISHOP_FLAT = _ROOK.reshape(-1), _BISHOP.reshape(-1)
_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.bool_)


def _select_table(bits: int) -> npt.NDArray[np.int8]:
    """`table[value * bits + k]`: the position of the `k`-th set bit of a `bits`-bit value."""
    values = np.arange(1 << bits)[:, None]
    is_set = (values >> np.arange(bits)) & 1
    rank = np.cumsum(is_set, axis=1) - 1  # the rank of each set bit
    table = np.zeros((1 << bits, bits), np.int8)
    rows, positions = np.nonzero(is_set)
    table[rows, rank[rows, positions]] = positions
    return table.reshape(-1)


_SELECT_LOW, _SELECT_HIGH = _select_table(_LOW), _select_table(SIZE - _LOW)


def _touched(bits: npt.NDArray[_I64]) -> npt.NDArray[_I64]:
    """[`touched`][abstractgames.dispersal.touched] of each board."""
    across = ((bits << 1) & _NOT_FILE_A) | ((bits >> 1) & _NOT_FILE_E)
    row = across | bits
    touching: npt.NDArray[_I64] = (across | (row << 5) | (row >> 5)) & FULL
    return touching


def _popcount(bits: npt.NDArray[Any]) -> npt.NDArray[_I64]:
    counts: npt.NDArray[_I64] = np.bitwise_count(bits).astype(_I64)
    return counts


class DispersalBatch(BatchSimulator):
    """`B` games of dispersal Entropy (see
    [`BatchSimulator`][abstractgames.vector.BatchSimulator]), with the game's draws: two passes
    in a row, threefold repetition (exact, see the module) and `max_plies`.

    Attributes:
        o: `int64[B]`, O's bitboard (bit `i` is square `i`).
        s: `int64[B]`, S's bitboard.
        side: `int8[B]`, 0 when O is to move (or would be), 1 for S.
        ply: `int32[B]`, plies played.
        result: `int8[B]`, 0 O won, 1 S won, 2 drawn, -1 while the game goes on.
        history: `uint64[B, max_plies + 1]`, the position keys of each game, oldest first.
    """

    def __init__(self, batch_size: int, seed: int | None = 0, game: DispersalGame | None = None):
        game = game or DispersalGame()
        b = batch_size
        self.max_plies = game.max_plies
        self.o = np.zeros(b, _I64)
        self.s = np.zeros(b, _I64)
        self.side = np.zeros(b, np.int8)
        self.ply = np.zeros(b, np.int32)
        self.passed = np.zeros(b, np.bool_)
        self.result = np.full(b, -1, np.int8)
        self.done = np.zeros(b, np.bool_)
        self.to_move = np.zeros(b, np.int8)
        self.history = np.full((b, game.max_plies + 1), _SENTINEL, np.uint64)
        self.filter = np.zeros((b, _FILTER_WORDS), np.uint64)
        # The squares of each side's pieces (O's, S's), in any order, padded with 25.
        self.pieces = np.full((b, 2, 7), SIZE, np.int8)
        start = game.initial_state()
        self._start = (start.o, start.s)
        self._start_pieces = self._piece_lists(start.o, start.s)
        self._restore = cast(Callable[..., DispersalState], start.__reduce__()[0])
        super().__init__(game, batch_size, seed)

    @property
    def bytes_per_lane(self) -> int:
        return self._array_bytes() // self.batch_size

    def reset_lanes(self, lanes: npt.NDArray[np.int64]) -> None:
        o, s = self._start
        self.o[lanes] = o
        self.s[lanes] = s
        self.pieces[lanes] = self._start_pieces
        self.side[lanes] = 0
        self.ply[lanes] = 0
        self.passed[lanes] = False
        self.result[lanes] = -1
        self.done[lanes] = False
        self.to_move[lanes] = 0
        self.history[lanes] = _SENTINEL
        self.filter[lanes] = 0
        self._record(lanes, self._key(lanes))

    def _piece_lists(self, o: int, s: int) -> npt.NDArray[np.int8]:
        """`int8[2, k]`: the squares of O's and S's pieces, padded with 25; wider piece lists
        for every lane when a side has more pieces than they hold."""
        lists = [[sq for sq in range(SIZE) if bits >> sq & 1] for bits in (o, s)]
        width = self.pieces.shape[2]
        most = max(len(found) for found in lists)
        if most > width:
            wider = np.full((self.batch_size, 2, most), SIZE, np.int8)
            wider[:, :, :width] = self.pieces
            self.pieces, width = wider, most
        out = np.full((2, width), SIZE, np.int8)
        for side, found in enumerate(lists):
            out[side, : len(found)] = found
        return out

    def _key(self, lanes: npt.NDArray[np.int64] | slice) -> npt.NDArray[np.uint64]:
        key = self.o[lanes] | self.s[lanes] << SIZE | self.side[lanes].astype(_I64) << (2 * SIZE)
        return key.astype(np.uint64)

    def _record(self, lanes: npt.NDArray[np.int64], key: npt.NDArray[np.uint64]) -> None:
        """Write `key` at the lanes' ply and into their filters."""
        self.history[lanes, self.ply[lanes]] = key
        word, bit = self._slot(key)
        self.filter[lanes, word] |= bit

    @staticmethod
    def _slot(key: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[_I64], npt.NDArray[np.uint64]]:
        h = (key * _HASH) >> np.uint64(54)  # 10 bits
        return (h >> np.uint64(6)).astype(_I64), np.uint64(1) << (h & np.uint64(63))

    # --- moves ------------------------------------------------------------------------------------

    def _targets(
        self, lanes: npt.NDArray[np.int64] | slice
    ) -> tuple[npt.NDArray[_I64], npt.NDArray[_I64]]:
        """`(pieces, targets)`, both `int64[L, k]`: the squares of the pieces of the side to
        move (25 pads a lane with fewer than `k`) and the legal targets of each (bitboards)."""
        o, s, side = self.o[lanes], self.s[lanes], self.side[lanes].astype(np.bool_)
        own = np.where(side, s, o)
        occupied = o | s
        near_occupied = _touched(occupied)
        movable = own & _touched(own)
        pieces = self.pieces[self.lanes[lanes], side.astype(_I64)].astype(_I64)
        index = np.take(_LOW_FLAT, (pieces << _LOW) + (occupied & ((1 << _LOW) - 1))[:, None])
        index += np.take(_HIGH_FLAT, (pieces << (SIZE - _LOW)) + (occupied >> _LOW)[:, None])
        lines = pieces << 8
        rook = np.take(_ROOK_FLAT, lines + (index & 255))
        targets = (rook | np.take(_BISHOP_FLAT, lines + (index >> 8))).astype(_I64)
        targets &= -((movable[:, None] >> pieces) & 1)  # only pieces that may move
        isolated = own & ~near_occupied
        check = np.flatnonzero(isolated)
        if check.size:
            # In check: the target must touch every isolated piece, and no piece may be left
            # isolated after the move.
            iso = isolated[check]
            needed = np.bitwise_and.reduce(
                np.where((iso[:, None] >> _SQUARES) & 1, _NEIGHBOURS, FULL), axis=1
            )
            sub = targets[check] & needed[:, None]
            rows, slots = np.nonzero(sub)
            if rows.size:
                bits = sub[rows, slots]
                pair, target = np.nonzero((bits[:, None] >> _SQUARES) & 1)
                row, slot = rows[pair], slots[pair]
                moved = _BITS[pieces[check][row, slot]] | _BITS[target]
                after = own[check][row] ^ moved
                stranded = after & ~_touched(occupied[check][row] ^ moved)
                keep = np.zeros_like(sub)
                np.bitwise_or.at(keep, (row, slot), np.where(stranded == 0, _BITS[target], 0))
                sub = keep
            targets[check] = sub
        return pieces, targets

    def legal_action_mask(self) -> Mask:
        b = self.batch_size
        pieces, targets = self._targets(slice(None))
        targets[self.done] = 0
        mask = np.zeros((b, SIZE + 1, SIZE), np.bool_)
        bits = _BYTE_BITS[targets.view(np.uint8).reshape(b, -1, 8)[:, :, :4]]
        mask[self.lanes[:, None], pieces] = bits.reshape(b, -1, 32)[:, :, :SIZE]
        out = np.zeros((b, self.num_actions), np.bool_)
        out[:, :PASS_ACTION] = mask[:, :SIZE].reshape(b, -1)
        out[:, PASS_ACTION] = ~out[:, :PASS_ACTION].any(axis=1) & ~self.done
        return out

    def random_actions(self) -> Actions:
        pieces, targets = self._targets(slice(None))
        k = pieces.shape[1]
        counts = _popcount(targets)
        runs = np.cumsum(counts, axis=1)
        total = runs[:, -1]
        pick = (self.rng.random(self.batch_size) * total).astype(_I64)
        slot = np.minimum((runs <= pick[:, None]).sum(axis=1), k - 1)
        flat = self.lanes * k + slot
        kth = pick - np.take(runs, flat) + np.take(counts, flat)
        # The kth target of the chosen piece: among its low 13 bits, or its high 12.
        bits = np.take(targets, flat)
        low = bits & ((1 << _LOW) - 1)
        in_low = np.bitwise_count(low).astype(_I64)
        high = kth >= in_low
        target = np.where(
            high,
            np.take(_SELECT_HIGH, (bits >> _LOW) * (SIZE - _LOW) + (kth - in_low).clip(0, 11))
            + _LOW,
            np.take(_SELECT_LOW, low * _LOW + kth.clip(0, _LOW - 1)),
        )
        actions = np.where(total > 0, np.take(pieces, flat) * SIZE + target, PASS_ACTION)
        actions[self.done] = -1
        return actions

    def _step(self, lanes: Lanes, actions: Actions, chance: npt.ArrayLike | None) -> None:
        live = self.lanes if isinstance(lanes, slice) else lanes
        a = actions[lanes]
        slide = a != PASS_ACTION
        source, target = np.minimum(a // SIZE, SIZE - 1), a % SIZE
        moved = np.where(slide, _BITS[source] | _BITS[target], 0)
        side = self.side[live].astype(np.bool_)
        sides = side.astype(_I64)
        slot = np.argmax(self.pieces[live, sides] == source[:, None], axis=1)
        moving = np.flatnonzero(slide)
        self.pieces[live[moving], sides[moving], slot[moving]] = target[moving]
        o = self.o[live] ^ np.where(side, 0, moved)
        s = self.s[live] ^ np.where(side, moved, 0)
        self.o[live], self.s[live] = o, s
        new_side = ~side
        self.side[live] = new_side
        ply = self.ply[live] + 1
        self.ply[live] = ply
        double_pass = ~slide & self.passed[live]
        self.passed[live] = ~slide
        near_o, near_s = _touched(o), _touched(s)
        o_dispersed = ((o & near_o) == 0) & ((o & near_s) == o)
        s_dispersed = ((s & near_s) == 0) & ((s & near_o) == s)
        key = (o | s << SIZE | new_side.astype(_I64) << (2 * SIZE)).astype(np.uint64)
        word, bit = self._slot(key)
        filter_flat = self.filter.reshape(-1)
        cell = live * _FILTER_WORDS + word
        seen = (filter_flat[cell] & bit) != 0
        repeated = np.zeros(live.size, np.bool_)
        hits = np.flatnonzero(seen)
        if hits.size:
            rows = live[hits]
            repeated[hits] = (self.history[rows] == key[hits, None]).sum(axis=1) >= 2
        row = self.max_plies + 1
        self.history.reshape(-1)[live * row + np.minimum(ply, self.max_plies)] = key
        filter_flat[cell] |= bit
        result = np.where(
            o_dispersed,
            np.where(s_dispersed, _DRAW, _O_WINS),
            np.where(s_dispersed, _S_WINS, -1),
        )
        result = np.where(
            (result < 0) & (double_pass | repeated | (ply >= self.max_plies)), _DRAW, result
        )
        self.result[live] = result
        over = result >= 0
        self.done[live] = over
        self.to_move[live] = np.where(over, -1, new_side)

    # --- results and views ------------------------------------------------------------------------

    def returns(self) -> npt.NDArray[np.float32]:
        out = np.zeros((self.batch_size, 2), np.float32)
        out[self.result == _O_WINS] = (1.0, -1.0)
        out[self.result == _S_WINS] = (-1.0, 1.0)
        return out

    def observations(self) -> npt.NDArray[np.float32]:
        b = self.batch_size
        o, s = self.o, self.s
        own = np.where(self.side.astype(np.bool_), s, o)
        isolated = own & ~_touched(o | s)
        boards = np.stack([o, s, FULL & ~(o | s), isolated], axis=1)
        bits = ((boards[:, :, None] >> _SQUARES) & 1).astype(np.float32)
        out = np.zeros((b, 8, SIZE), np.float32)
        out[:, 0:3] = bits[:, 0:3]
        out[:, 3] = (self.side == 0)[:, None]
        out[:, 4] = bits[:, 3]
        out[:, 5] = self.passed[:, None]
        out[:, 6] = (self.ply / self.max_plies)[:, None]
        key = self._key(slice(None))
        seen = (self.history == key[:, None]).sum(axis=1) - 1
        out[:, 7] = (seen / 3)[:, None]
        return out.reshape(b, 8, 5, 5)

    def to_states(self, lanes: Sequence[int] | None = None) -> list[State]:
        states: list[State] = []
        for lane in self._lanes(lanes).tolist():
            keys = self.history[lane, : int(self.ply[lane]) + 1].tolist()
            states.append(self._restore(self.game, tuple(keys)))
        return states

    def set_states(self, states: Sequence[State], lanes: Sequence[int] | None = None) -> None:
        found = self._lanes(lanes) if lanes is not None else self.lanes[: len(states)]
        if len(found) != len(states):
            raise ValueError("give one lane for each state")
        for lane, state in zip(found.tolist(), states, strict=True):
            if not isinstance(state, DispersalState) or state.game != self.game:
                raise TypeError(f"{state!r} is not a state of {self.game.spec}")
            keys = state.history()
            if len(keys) > self.max_plies + 1:
                raise ValueError("the state's history is longer than max_plies")
            o, s, side = split_key(keys[-1])
            self.o[lane], self.s[lane], self.side[lane] = o, s, side
            self.pieces[lane] = self._piece_lists(o, s)
            self.ply[lane] = len(keys) - 1
            self.passed[lane] = len(keys) > 1 and keys[-1] ^ keys[-2] == 1 << (2 * SIZE)
            self.history[lane] = _SENTINEL
            self.history[lane, : len(keys)] = keys
            self.filter[lane] = 0
            word, bit = self._slot(np.array(keys, np.uint64))
            np.bitwise_or.at(self.filter[lane], word, bit)
            outcome = state.outcome()
            if outcome is None:
                self.result[lane] = -1
            else:
                self.result[lane] = {"O": _O_WINS, "S": _S_WINS, None: _DRAW}[outcome.winner]
            self.done[lane] = outcome is not None
            self.to_move[lane] = -1 if outcome is not None else side
