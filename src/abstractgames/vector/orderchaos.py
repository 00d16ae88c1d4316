"""Order and Chaos, `B` games at once: two `uint64` bitboards per lane.

A step checks only the windows through the square just played, from a `(36, 12)` table of
window masks (padded with a mask no board matches). Each lane also keeps its empty squares as a
list with an inverse index, so that a uniformly random move costs one random number and a few
gathers, and the greedy policy ([`greedy_actions`][]) scores all 72 moves of every lane at once
from per-window counts, as [`line_potential`][abstractgames.players.orderchaos.line_potential]
does one position at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..orderchaos import (
    FULL,
    SIZE,
    WEIGHTS,
    WINDOW_INDICES_THROUGH,
    WINDOWS,
    OrderChaosGame,
    OrderChaosState,
)
from ..protocol import State
from . import Actions, BatchSimulator, Lanes, Mask, uniform_from_mask

__all__ = ["OrderChaosBatch", "greedy_actions", "window_counts"]

_U64 = np.uint64
_BIT = np.array([1 << sq for sq in range(SIZE)], dtype=_U64)
_ACTION_BIT = np.repeat(_BIT, 2)  # action -> the bit of its square
_NEVER = np.uint64((1 << 64) - 1)  # a window mask no 36-bit board contains
_THROUGH = max(len(t) for t in WINDOW_INDICES_THROUGH)  # 12
_WIN_THROUGH = np.full((SIZE, _THROUGH), _NEVER, dtype=_U64)
_WIN_INDEX = np.full((SIZE, _THROUGH), len(WINDOWS), dtype=np.int64)  # padded with a dummy
for _sq, _indices in enumerate(WINDOW_INDICES_THROUGH):
    _WIN_THROUGH[_sq, : len(_indices)] = [WINDOWS[i] for i in _indices]
    _WIN_INDEX[_sq, : len(_indices)] = _indices
_WINDOWS = np.array(WINDOWS, dtype=_U64)
# Byte -> its 8 bits as booleans, least significant first.
_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.bool_)
_SQUARES = np.arange(SIZE, dtype=np.int8)
_ORDER, _CHAOS = 0, 1


def _popcount(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    return np.bitwise_count(values).astype(np.int64)


class OrderChaosBatch(BatchSimulator):
    """`B` games of Order and Chaos (see [`BatchSimulator`][abstractgames.vector.BatchSimulator]).

    Attributes:
        x: `uint64[B]`, the X bitboard of each lane (bit `i` is square `i`, as in
            [`OrderChaosState`][abstractgames.orderchaos.OrderChaosState]).
        o: `uint64[B]`, the O bitboard.
        count: `int16[B]`, the symbols on the board.
        winner: `int8[B]`, 0 when Order has won, 1 when Chaos has, -1 while the game goes on.
    """

    def __init__(self, batch_size: int, seed: int | None = 0, game: OrderChaosGame | None = None):
        game = game or OrderChaosGame()
        b = batch_size
        self.x = np.zeros(b, _U64)
        self.o = np.zeros(b, _U64)
        self.count = np.zeros(b, np.int16)
        self.done = np.zeros(b, np.bool_)
        self.winner = np.full(b, -1, np.int8)
        self.to_move = np.zeros(b, np.int8)
        # The empty squares of each lane in its first `36 - count` slots, and where each is.
        self.empties = np.zeros((b, SIZE), np.int8)
        self.where = np.zeros((b, SIZE), np.int8)
        self._flat_base = np.arange(b, dtype=np.int64) * SIZE
        super().__init__(game, batch_size, seed)

    @property
    def bytes_per_lane(self) -> int:
        return self._array_bytes() // self.batch_size

    def reset_lanes(self, lanes: npt.NDArray[np.int64]) -> None:
        self.x[lanes] = 0
        self.o[lanes] = 0
        self.count[lanes] = 0
        self.done[lanes] = False
        self.winner[lanes] = -1
        self.to_move[lanes] = _ORDER
        self.empties[lanes] = _SQUARES
        self.where[lanes] = _SQUARES

    def legal_action_mask(self) -> Mask:
        empty = ~(self.x | self.o) & _U64(FULL)
        empty[self.done] = 0
        squares = _BYTE_BITS[empty.view(np.uint8).reshape(-1, 8)].reshape(-1, 64)[:, :SIZE]
        return np.repeat(squares, 2, axis=1)

    def random_actions(self) -> Actions:
        empty = SIZE - self.count.astype(np.int64)
        pick = (self.rng.random(self.batch_size) * (2 * empty)).astype(np.int64)
        squares = self.empties.reshape(-1)[self._flat_base + (pick >> 1)]
        actions = 2 * squares.astype(np.int64) + (pick & 1)
        actions[self.done] = -1
        return actions

    def _legal(self, lanes: Lanes, actions: Actions) -> npt.NDArray[np.bool_]:
        # The square is empty: the mask without building it.
        empty: npt.NDArray[np.bool_] = ((self.x[lanes] | self.o[lanes]) & _ACTION_BIT[actions]) == 0
        return empty

    def _step(self, lanes: Lanes, actions: Actions, chance: npt.ArrayLike | None) -> None:
        acts = actions[lanes]
        square = acts >> 1
        is_o = (acts & 1).astype(np.bool_)
        bit = _BIT[square]
        x, o = self.x[lanes], self.o[lanes]
        own = np.where(is_o, o, x) | bit
        self.x[lanes] = np.where(is_o, x, own)
        self.o[lanes] = np.where(is_o, own, o)
        windows = _WIN_THROUGH[square]
        win = ((own[:, None] & windows) == windows).any(axis=1)
        count = self.count[lanes] + 1
        self.count[lanes] = count
        full = count == SIZE
        over = win | full
        self.done[lanes] = over
        self.winner[lanes] = np.where(win, _ORDER, np.where(full, _CHAOS, -1))
        self.to_move[lanes] = np.where(over, -1, count & 1)
        # Take the square out of the lane's list of empty squares: the last one takes its slot.
        base = self._flat_base[lanes]
        empties, where = self.empties.reshape(-1), self.where.reshape(-1)
        slot = where[base + square].astype(np.int64)
        last = empties[base + SIZE - count]
        empties[base + slot] = last
        where[base + last] = slot

    def greedy_actions(self, rng: np.random.Generator) -> Actions:
        """See [`greedy_actions`][abstractgames.vector.orderchaos.greedy_actions]."""
        return greedy_actions(self, rng)

    def returns(self) -> npt.NDArray[np.float32]:
        out = np.zeros((self.batch_size, 2), np.float32)
        out[self.winner == _ORDER] = (1.0, -1.0)
        out[self.winner == _CHAOS] = (-1.0, 1.0)
        return out

    def observations(self) -> npt.NDArray[np.float32]:
        b = self.batch_size
        x = self.x.copy()
        o = self.o.copy()
        empty = ~(x | o) & _U64(FULL)
        boards = np.stack([x, o, empty], axis=1)
        bits = _BYTE_BITS[boards.view(np.uint8).reshape(b, 3, 8)].reshape(b, 3, 64)[:, :, :SIZE]
        out = np.zeros((b, 4, SIZE), np.float32)
        out[:, :3] = bits
        out[:, 3] = (self.to_move == _ORDER)[:, None]
        return out.reshape(b, 4, 6, 6)

    def to_states(self, lanes: Sequence[int] | None = None) -> list[State]:
        found = self._lanes(lanes)
        states: list[State] = []
        for lane in found.tolist():
            x, o = int(self.x[lane]), int(self.o[lane])
            cells = "".join("X" if x >> i & 1 else "O" if o >> i & 1 else "." for i in range(SIZE))
            ranks = "/".join(cells[r * 6 : r * 6 + 6] for r in range(5, -1, -1))
            side = "order" if (x | o).bit_count() % 2 == 0 else "chaos"
            states.append(self.game.from_position(_compress(ranks) + " " + side))
        return states

    def set_states(self, states: Sequence[State], lanes: Sequence[int] | None = None) -> None:
        found = self._lanes(lanes) if lanes is not None else self.lanes[: len(states)]
        if len(found) != len(states):
            raise ValueError("give one lane for each state")
        for lane, state in zip(found.tolist(), states, strict=True):
            if not isinstance(state, OrderChaosState):
                raise TypeError(f"{state!r} is not an Order and Chaos state")
            x, o = state.x, state.o
            self.x[lane], self.o[lane] = x, o
            count = (x | o).bit_count()
            self.count[lane] = count
            outcome = state.outcome()
            self.done[lane] = outcome is not None
            self.winner[lane] = (
                -1 if outcome is None else (_ORDER, _CHAOS)[outcome.winner == "chaos"]
            )
            self.to_move[lane] = -1 if outcome is not None else count & 1
            empty = [sq for sq in range(SIZE) if not (x | o) >> sq & 1]
            full = [sq for sq in range(SIZE) if (x | o) >> sq & 1]
            self.empties[lane] = empty + full
            self.where[lane, empty + full] = np.arange(SIZE)


def _compress(ranks: str) -> str:
    """Runs of empty squares written as digits, as position strings have them."""
    out = []
    for rank in ranks.split("/"):
        text, run = "", 0
        for c in rank:
            if c == ".":
                run += 1
                continue
            text += (str(run) if run else "") + c
            run = 0
        out.append(text + (str(run) if run else ""))
    return "/".join(out)


# --- the greedy policy ----------------------------------------------------------------------------


def _worth(nx: int, no: int) -> int:
    return (0 if no else WEIGHTS[nx]) + (0 if nx else WEIGHTS[no])


# Window code 6 * nx + no (+ the dummy window, code 36) -> the change of its worth by an X or an O.
_DELTA_X = np.zeros(37, np.int64)
_DELTA_O = np.zeros(37, np.int64)
_FOUR_X = np.zeros(37, np.bool_)  # the window holds four X and no O: an X in its gap wins
_FOUR_O = np.zeros(37, np.bool_)
for _nx in range(6):
    for _no in range(6 - _nx):
        _code = 6 * _nx + _no
        if _nx + _no < 5:
            _DELTA_X[_code] = _worth(_nx + 1, _no) - _worth(_nx, _no)
            _DELTA_O[_code] = _worth(_nx, _no + 1) - _worth(_nx, _no)
        _FOUR_X[_code] = _nx == 4 and _no == 0
        _FOUR_O[_code] = _no == 4 and _nx == 0


def window_counts(x: npt.NDArray[np.uint64], o: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    """`int64[B, 33]`: the code `6 * (X count) + (O count)` of each of the 32 windows of each
    board, and 36 (a dummy window that no move changes) in the last column."""
    nx = _popcount(x[:, None] & _WINDOWS)
    no = _popcount(o[:, None] & _WINDOWS)
    codes = np.full((x.shape[0], len(WINDOWS) + 1), 36, np.int64)
    codes[:, :-1] = 6 * nx + no
    return codes


def greedy_actions(batch: OrderChaosBatch, rng: np.random.Generator) -> Actions:
    """The move of the `greedy` player (line potential, one ply) in every live lane.

    Each move's value is what
    [`evaluate`][abstractgames.players.orderchaos.evaluate] gives the position after it: the
    change of line potential is summed over the windows through its square, a move that makes
    five is `+inf` for Order (`-inf` for Chaos), and the last move, if it does not, the reverse.
    Among the best moves one is drawn uniformly with `rng` (the scalar player draws with its
    `random.Random`, so the two agree on the set of best moves, not on the pick).
    """
    codes = window_counts(batch.x, batch.o)
    index = _WIN_INDEX  # (36, 12)
    gain_x = _DELTA_X[codes][:, index].sum(axis=2)  # (B, 36)
    gain_o = _DELTA_O[codes][:, index].sum(axis=2)
    win_x = _FOUR_X[codes][:, index].any(axis=2)
    win_o = _FOUR_O[codes][:, index].any(axis=2)
    gain = np.stack([gain_x, gain_o], axis=2).reshape(-1, 2 * SIZE).astype(np.float64)
    win = np.stack([win_x, win_o], axis=2).reshape(-1, 2 * SIZE)
    last = (batch.count == SIZE - 1)[:, None]
    chaos = (batch.to_move == _CHAOS)[:, None]
    value = np.where(chaos, -gain, gain)
    inf = np.inf
    value = np.where(
        win, np.where(chaos, -inf, inf), np.where(last, np.where(chaos, inf, -inf), value)
    )
    mask = batch.legal_action_mask()
    value = np.where(mask, value, -inf)
    best = value.max(axis=1, keepdims=True)
    return uniform_from_mask(mask & (value == best), rng)
