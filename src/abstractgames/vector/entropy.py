"""Solomon's Entropy (7×7 or 5×5), `B` games at once.

Each lane keeps its cells (`int8`, 0 empty, `k + 1` for colour `k`), the code of each rank and
file (3 bits per square, as [`line_code`][abstractgames.entropy.line_code]), an occupancy byte
per rank and per file, the bag, the drawn colour and the score, updated from the few lines a move
changes with the line-score table of [`line_scores`][abstractgames.entropy.line_scores]. Order's
slides come from a table of free runs by occupancy byte; the draw that follows a placement or an
Order move is made inside [`step`][abstractgames.vector.BatchSimulator.step] from the bag,
without replacement.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..entropy import CHAOS, ORDER, EntropyGame, EntropyState, line_scores
from ..grid import grid
from ..protocol import CHANCE, State
from . import Actions, BatchSimulator, Lanes, Mask, uniform_from_mask

__all__ = ["EntropyBatch", "score_gain_actions"]

_CHAOS, _ORDER = 0, 1  # indices in EntropyGame.roles


class _Tables:
    """What one board size needs, as arrays."""

    def __init__(self, n: int) -> None:
        squares = n * n
        self.n, self.squares = n, squares
        self.slots = 4 * squares  # (origin, direction) pairs
        self.pass_action = squares * (4 * n - 3)
        self.lines = np.frombuffer(line_scores(n), dtype=np.uint8).astype(np.int32)
        bits = np.arange(1 << n)
        # Occupancy byte -> for each position along the line, the free squares towards the end
        # (higher index) and towards the start.
        hi = np.zeros((1 << n, n), np.int8)
        lo = np.zeros((1 << n, n), np.int8)
        for i in range(n):
            for k in range(i + 1, n):
                hi[:, i] += np.all([(bits >> j & 1) == 0 for j in range(i + 1, k + 1)], axis=0)
            for k in range(i - 1, -1, -1):
                lo[:, i] += np.all([(bits >> j & 1) == 0 for j in range(k, i)], axis=0)
        self.hi, self.lo = hi, lo
        # Occupancy byte -> the slides along the line: how many, and the k-th as
        # (position of its counter, 1 towards the end or 0 towards the start, distance).
        self.line_count = np.zeros(1 << n, np.int64)
        most = int(2 * n * (n - 1))
        self.line_slide = np.zeros((1 << n, most, 3), np.int64)
        for byte in range(1 << n):
            found = [
                (i, way, k)
                for i in range(n)
                if byte >> i & 1
                for way, run in ((1, hi[byte, i]), (0, lo[byte, i]))
                for k in range(1, int(run) + 1)
            ]
            self.line_count[byte] = len(found)
            if found:
                self.line_slide[byte, : len(found)] = found
        # Per line (ranks, then files) and k-th slide: the origin's square for each position,
        # the direction of `way` (0 or 1) and the step between squares.
        self.line_origin = np.array(
            [[r * n + i for i in range(n)] for r in range(n)]
            + [[i * n + f for i in range(n)] for f in range(n)],
            np.int64,
        )
        self.line_direction = np.array([[3, 1]] * n + [[2, 0]] * n, np.int64)
        self.positions = np.arange(n)
        # Per slide slot (origin, direction, distance - 1): its squares, off-board ones clipped.
        steps = ((0, 1), (1, 0), (0, -1), (-1, 0))  # (files, ranks): up, right, down, left
        count = self.slots * (n - 1)
        origin = np.zeros(count, np.int64)
        target = np.zeros(count, np.int64)
        for sq in range(squares):
            r, f = divmod(sq, n)
            for d, (df, dr) in enumerate(steps):
                for k in range(1, n):
                    slot = (4 * sq + d) * (n - 1) + k - 1
                    rr, ff = r + dr * k, f + df * k
                    origin[slot] = sq
                    target[slot] = rr * n + ff if 0 <= rr < n and 0 <= ff < n else sq
        self.origin, self.target = origin, target
        self.o_rank, self.o_file = origin // n, origin % n
        self.t_rank, self.t_file = target // n, target % n
        self.square_rank = np.arange(squares) // n
        self.square_file = np.arange(squares) % n


_TABLES: dict[int, _Tables] = {}


def _tables(n: int) -> _Tables:
    if n not in _TABLES:
        _TABLES[n] = _Tables(n)
    return _TABLES[n]


class EntropyBatch(BatchSimulator):
    """`B` games of Entropy (see [`BatchSimulator`][abstractgames.vector.BatchSimulator]).

    A lane rests where Chaos places the drawn counter, where Order moves, or at the end: the draw
    that starts each turn is made in [`step`][abstractgames.vector.BatchSimulator.step] (and in a
    reset).

    Attributes:
        cells: `int8[B, N]`, 0 for an empty square, `k + 1` for a counter of colour `k`.
        bag: `int8[B, n]`, the counters of each colour in the bag (the drawn one not counted).
        drawn: `int8[B]`, the colour index Chaos must place, -1 when none is drawn.
        score: `int32[B]`, Order's score of the board as it stands.
        last_draw: `int8[B]`, the colour drawn in the last step (or reset), -1 if none.
    """

    def __init__(self, batch_size: int, seed: int | None = 0, game: EntropyGame | None = None):
        game = game or EntropyGame()
        t = _tables(game.size)
        self._t = t
        b, n = batch_size, t.n
        self.cells = np.zeros((b, t.squares), np.int8)
        self.ranks = np.zeros((b, n), np.int32)  # line codes
        self.files = np.zeros((b, n), np.int32)
        self.rank_occ = np.zeros((b, n), np.int16)  # occupancy: bit f of rank r
        self.file_occ = np.zeros((b, n), np.int16)  # bit r of file f
        self.bag = np.zeros((b, n), np.int8)
        self.drawn = np.full(b, -1, np.int8)
        self.last_draw = np.full(b, -1, np.int8)
        self.drawn_at_set = np.zeros(b, np.bool_)  # set_states drew the counter of this lane
        self.score = np.zeros(b, np.int32)
        self.count = np.zeros(b, np.int16)
        self.done = np.zeros(b, np.bool_)
        self.to_move = np.zeros(b, np.int8)
        self.empties = np.zeros((b, t.squares), np.int8)
        self.where = np.zeros((b, t.squares), np.int8)
        self._flat_base = np.arange(b, dtype=np.int64) * t.squares
        self._grid = grid(n, n)
        self._bound = game.score_bound
        super().__init__(game, batch_size, seed)

    @property
    def bytes_per_lane(self) -> int:
        return self._array_bytes() // self.batch_size

    # --- lanes ------------------------------------------------------------------------------------

    def reset_lanes(self, lanes: npt.NDArray[np.int64]) -> None:
        t = self._t
        self.cells[lanes] = 0
        self.ranks[lanes] = 0
        self.files[lanes] = 0
        self.rank_occ[lanes] = 0
        self.file_occ[lanes] = 0
        self.bag[lanes] = t.n
        self.score[lanes] = 0
        self.count[lanes] = 0
        self.done[lanes] = False
        self.drawn_at_set[lanes] = False
        squares = np.arange(t.squares, dtype=np.int8)
        self.empties[lanes] = squares
        self.where[lanes] = squares
        self._draw(lanes, None)

    def _draw(self, lanes: npt.NDArray[np.int64], forced: npt.NDArray[np.int64] | None) -> None:
        """A draw from the bag in each of `lanes` (`forced`: the colours, -1 for random)."""
        bag = self.bag[lanes]
        total = bag.sum(axis=1, dtype=np.int64)
        pick = (self.rng.random(lanes.size) * total).astype(np.int64)
        colour = (np.cumsum(bag, axis=1) <= pick[:, None]).sum(axis=1)
        if forced is not None:
            chosen = forced >= 0
            if chosen.any():
                if (bag[chosen, forced[chosen]] <= 0).any():
                    raise ValueError("a forced draw names a colour that is not in the bag")
                colour = np.where(chosen, forced, colour)
        self.bag[lanes, colour] -= 1
        self.drawn[lanes] = colour
        self.last_draw[lanes] = colour
        self.to_move[lanes] = _CHAOS

    # --- moves ------------------------------------------------------------------------------------

    def _free(self, lanes: npt.NDArray[np.int64] | slice) -> npt.NDArray[np.int8]:
        """`int8[L, N, 4]`: how far the counter on each square slides up, right, down, left
        (0 for an empty square)."""
        t = self._t
        n = t.n
        pos = t.positions
        rank_occ = self.rank_occ[lanes][:, :, None]
        file_occ = self.file_occ[lanes][:, :, None]
        right = t.hi[rank_occ, pos]  # [L, r, f]
        left = t.lo[rank_occ, pos]
        up = t.hi[file_occ, pos].transpose(0, 2, 1)  # [L, f, r] -> [L, r, f]
        down = t.lo[file_occ, pos].transpose(0, 2, 1)
        free = np.stack([up, right, down, left], axis=3).reshape(-1, n * n, 4)
        free *= (self.cells[lanes] != 0)[:, :, None]
        return free

    def legal_action_mask(self) -> Mask:
        t = self._t
        mask = np.zeros((self.batch_size, self.num_actions), np.bool_)
        chaos = np.flatnonzero(self.to_move == _CHAOS)
        mask[chaos, : t.squares] = self.cells[chaos] == 0
        order = np.flatnonzero(self.to_move == _ORDER)
        if order.size:
            free = self._free(order)
            slides = np.arange(1, t.n)[None, None, None, :] <= free[:, :, :, None]
            mask[order, t.squares : t.pass_action] = slides.reshape(order.size, -1)
            mask[order, t.pass_action] = True
        return mask

    def random_actions(self) -> Actions:
        t = self._t
        actions = np.full(self.batch_size, -1, np.int64)
        u = self.rng.random(self.batch_size)
        chaos, order = self._phases()
        if _size(chaos):
            empty = t.squares - self.count[chaos].astype(np.int64)
            pick = (u[chaos] * empty).astype(np.int64)
            base = self._flat_base[chaos]
            actions[chaos] = self.empties.reshape(-1)[base + pick]
        if _size(order):
            # Count the slides of each line from its occupancy byte, pick one of them (or the
            # pass, the last), and read it from the line's table.
            occ = np.concatenate([self.rank_occ[order], self.file_occ[order]], axis=1)
            runs = np.cumsum(t.line_count[occ], axis=1)
            total = runs[:, -1] + 1
            pick = (u[order] * total).astype(np.int64)
            line = (runs <= pick[:, None]).sum(axis=1)
            is_pass = line == 2 * t.n
            line = np.minimum(line, 2 * t.n - 1)
            rows = np.arange(line.size)
            kth = pick - runs[rows, line] + t.line_count[occ[rows, line]]
            kth = np.minimum(kth, t.line_slide.shape[1] - 1)  # the pass: any slot, unused
            position, way, distance = t.line_slide[occ[rows, line], kth].T
            origin = t.line_origin[line, position]
            direction = t.line_direction[line, way]
            act = t.squares + (4 * origin + direction) * (t.n - 1) + distance - 1
            actions[order] = np.where(is_pass, t.pass_action, act)
        return actions

    def _phases(
        self, lanes: Lanes = slice(None)
    ) -> tuple[npt.NDArray[np.int64] | slice, npt.NDArray[np.int64] | slice]:
        """The Chaos lanes and the Order lanes of `lanes` (default: all), a slice for all lanes
        when they all are."""
        to_move = self.to_move
        if not isinstance(lanes, slice):
            moving = to_move[lanes]
            return lanes[moving == _CHAOS], lanes[moving == _ORDER]
        first = to_move[0]
        if first >= 0 and (to_move == first).all():
            everything, nothing = slice(None), np.zeros(0, np.int64)
            return (everything, nothing) if first == _CHAOS else (nothing, everything)
        return np.flatnonzero(to_move == _CHAOS), np.flatnonzero(to_move == _ORDER)

    def _step(self, lanes: Lanes, actions: Actions, chance: npt.ArrayLike | None) -> None:
        t = self._t
        forced = None if chance is None else np.asarray(chance, dtype=np.int64)
        self.last_draw[:] = -1
        chaos, order = self._phases(lanes)
        if _size(chaos):
            self._place(chaos, actions[chaos])
        if _size(order):
            rows = self.lanes[order]
            a = actions[order]
            slide = a != t.pass_action
            if slide.all():
                self._slide(order, a)
            elif slide.any():
                self._slide(rows[slide], a[slide])
            self._draw(rows, None if forced is None else forced[order])
        if _size(chaos):
            # After a placement: Order moves, or the game ends with the board full.
            rows = self.lanes[chaos]
            full = self.count[rows] == t.squares
            self.done[rows] = full
            self.to_move[rows] = np.where(full, -1, _ORDER)

    def _place(self, lanes: npt.NDArray[np.int64] | slice, square: Actions) -> None:
        t = self._t
        value = self.drawn[lanes].astype(np.int32) + 1
        rank, file = t.square_rank[square], t.square_file[square]
        rows = self.lanes[lanes]
        self.cells[rows, square] = value
        old_rank = self.ranks[rows, rank]
        old_file = self.files[rows, file]
        new_rank = old_rank + (value << (3 * file))
        new_file = old_file + (value << (3 * rank))
        self.ranks[rows, rank] = new_rank
        self.files[rows, file] = new_file
        lines = t.lines
        self.score[lanes] += lines[new_rank] - lines[old_rank] + lines[new_file] - lines[old_file]
        self.rank_occ[rows, rank] |= (1 << file).astype(np.int16)
        self.file_occ[rows, file] |= (1 << rank).astype(np.int16)
        count = self.count[lanes] + 1
        self.count[lanes] = count
        self.drawn[lanes] = -1
        base = self._flat_base[lanes]
        empties, where = self.empties.reshape(-1), self.where.reshape(-1)
        slot = where[base + square].astype(np.int64)
        last = empties[base + t.squares - count]
        empties[base + slot] = last
        where[base + last] = slot

    def _slide(self, lanes: npt.NDArray[np.int64] | slice, actions: Actions) -> None:
        t = self._t
        rows = self.lanes[lanes]
        slot = actions - t.squares
        origin, target = t.origin[slot], t.target[slot]
        ro, fo, rt, ft = t.o_rank[slot], t.o_file[slot], t.t_rank[slot], t.t_file[slot]
        value = self.cells[rows, origin].astype(np.int32)
        self.cells[rows, origin] = 0
        self.cells[rows, target] = value
        lines = t.lines
        # Take the counter off its square, then put it on the target (same line: same code).
        rank_o, file_o = self.ranks[rows, ro], self.files[rows, fo]
        rank_o2, file_o2 = rank_o - (value << (3 * fo)), file_o - (value << (3 * ro))
        self.ranks[rows, ro] = rank_o2
        self.files[rows, fo] = file_o2
        rank_t, file_t = self.ranks[rows, rt], self.files[rows, ft]
        rank_t2, file_t2 = rank_t + (value << (3 * ft)), file_t + (value << (3 * rt))
        self.ranks[rows, rt] = rank_t2
        self.files[rows, ft] = file_t2
        self.score[lanes] += (
            lines[rank_o2]
            - lines[rank_o]
            + lines[file_o2]
            - lines[file_o]
            + lines[rank_t2]
            - lines[rank_t]
            + lines[file_t2]
            - lines[file_t]
        )
        self.rank_occ[rows, ro] ^= (1 << fo).astype(np.int16)
        self.rank_occ[rows, rt] ^= (1 << ft).astype(np.int16)
        self.file_occ[rows, fo] ^= (1 << ro).astype(np.int16)
        self.file_occ[rows, ft] ^= (1 << rt).astype(np.int16)
        # The target leaves the list of empty squares and the origin takes its slot.
        base = self._flat_base[lanes]
        empties, where = self.empties.reshape(-1), self.where.reshape(-1)
        place = where[base + target].astype(np.int64)
        empties[base + place] = origin
        where[base + origin] = place

    # --- results and views ------------------------------------------------------------------------

    def greedy_actions(self, rng: np.random.Generator) -> Actions:
        """See [`score_gain_actions`][abstractgames.vector.entropy.score_gain_actions]."""
        return score_gain_actions(self, rng)

    def returns(self) -> npt.NDArray[np.float32]:
        value = np.where(self.done, self.score / self._bound, 0.0)
        return np.stack([-value, value], axis=1).astype(np.float32)

    def observations(self) -> npt.NDArray[np.float32]:
        t = self._t
        b, n, squares = self.batch_size, t.n, t.squares
        out = np.zeros((b, 3 * n + 3, squares), np.float32)
        cells = self.cells.astype(np.int64)
        colour_planes = np.arange(1, n + 1)[None, :, None] == cells[:, None, :]
        out[:, :n] = colour_planes
        out[:, n] = cells == 0
        out[:, n + 1 : 2 * n + 1] = (np.arange(n)[None, :] == self.drawn[:, None])[:, :, None]
        out[:, 2 * n + 1 : 3 * n + 1] = (self.bag / n)[:, :, None]
        out[:, 3 * n + 1] = (self.to_move == _CHAOS)[:, None]
        out[:, 3 * n + 2] = (self.to_move == _ORDER)[:, None]
        return out.reshape(b, 3 * n + 3, n, n)

    def to_states(self, lanes: Sequence[int] | None = None) -> list[State]:
        game: EntropyGame = self.game  # type: ignore[assignment]
        characters = "." + game.colours
        states: list[State] = []
        for lane in self._lanes(lanes).tolist():
            board = "".join(characters[v] for v in self.cells[lane].tolist())
            to_move = int(self.to_move[lane])
            phase = (
                "end"
                if to_move < 0
                else ORDER
                if to_move == _ORDER
                else f"{CHAOS}:{game.colours[self.drawn[lane]]}"
            )
            states.append(game.from_position(f"{self._grid.format_ranks(board)} {phase}"))
        return states

    def set_states(self, states: Sequence[State], lanes: Sequence[int] | None = None) -> None:
        t = self._t
        game: EntropyGame = self.game  # type: ignore[assignment]
        found = self._lanes(lanes) if lanes is not None else self.lanes[: len(states)]
        if len(found) != len(states):
            raise ValueError("give one lane for each state")
        index = {c: i + 1 for i, c in enumerate(game.colours)}
        chance = []
        for lane, state in zip(found.tolist(), states, strict=True):
            if not isinstance(state, EntropyState) or state.size != t.n:
                raise TypeError(f"{state!r} is not a state of {game.spec}")
            values = [index.get(c, 0) for c in state.board]
            self.reset_lanes(np.array([lane]))
            cells = np.array(values, np.int32)
            self.cells[lane] = cells
            grid_cells = cells.reshape(t.n, t.n)
            shifts = 3 * np.arange(t.n)
            self.ranks[lane] = (grid_cells << shifts[None, :]).sum(axis=1)
            self.files[lane] = (grid_cells << shifts[:, None]).sum(axis=0)
            occupied = (grid_cells != 0).astype(np.int64)
            self.rank_occ[lane] = (occupied << np.arange(t.n)[None, :]).sum(axis=1)
            self.file_occ[lane] = (occupied << np.arange(t.n)[:, None]).sum(axis=0)
            self.bag[lane] = list(state.bag().values())
            self.score[lane] = state.score()
            count = int((cells != 0).sum())
            self.count[lane] = count
            empty = [sq for sq in range(t.squares) if not values[sq]]
            rest = [sq for sq in range(t.squares) if values[sq]]
            self.empties[lane] = empty + rest
            self.where[lane, empty + rest] = np.arange(t.squares)
            drawn = state.drawn
            self.drawn[lane] = -1 if drawn is None else index[drawn] - 1
            self.last_draw[lane] = -1
            self.done[lane] = state.to_move is None
            self.to_move[lane] = {CHAOS: _CHAOS, ORDER: _ORDER, None: -1, CHANCE: _CHAOS}[
                state.to_move
            ]
            if state.to_move == CHANCE:
                chance.append(lane)
        if chance:
            self._draw(np.array(chance, np.int64), None)
            self.drawn_at_set[chance] = True

    def _redraw(self, lanes: npt.NDArray[np.int64]) -> None:
        again = lanes[self.drawn_at_set[lanes]]
        if again.size:
            self.bag[again, self.drawn[again]] += 1  # the counter goes back into the bag
            self._draw(again, None)


def _size(lanes: npt.NDArray[np.int64] | slice) -> int:
    return 1 if isinstance(lanes, slice) else int(lanes.size)


# --- the greedy policy ----------------------------------------------------------------------------


def score_gains(batch: EntropyBatch) -> npt.NDArray[np.float64]:
    """`float64[B, num_actions]`: how much each action changes Order's score (`-inf` for an
    illegal action; a pass gains 0)."""
    t = batch._t
    lines = t.lines
    mask = batch.legal_action_mask()
    gains = np.zeros((batch.batch_size, batch.num_actions), np.float64)
    chaos = np.flatnonzero(batch.to_move == _CHAOS)
    if chaos.size:
        # Illegal actions change nothing here (value 0), so every code stays in the table.
        value = (batch.drawn[chaos].astype(np.int32)[:, None] + 1) * mask[chaos, : t.squares]
        rank, file = t.square_rank[None, :], t.square_file[None, :]
        old_rank = batch.ranks[chaos][:, rank[0]]
        old_file = batch.files[chaos][:, file[0]]
        gains[chaos, : t.squares] = (
            lines[old_rank + (value << (3 * file))]
            - lines[old_rank]
            + lines[old_file + (value << (3 * rank))]
            - lines[old_file]
        )
    order = np.flatnonzero(batch.to_move == _ORDER)
    if order.size:
        ranks, files = batch.ranks[order], batch.files[order]
        moving = batch.cells[order][:, t.origin] * mask[order, t.squares : t.pass_action]
        value = moving.astype(np.int32)
        ro, fo, rt, ft = t.o_rank, t.o_file, t.t_rank, t.t_file
        rank_o, file_o = ranks[:, ro], files[:, fo]
        rank_o2, file_o2 = rank_o - (value << (3 * fo)), file_o - (value << (3 * ro))
        rank_t = np.where(rt == ro, rank_o2, ranks[:, rt])
        file_t = np.where(ft == fo, file_o2, files[:, ft])
        gain = (
            lines[rank_o2]
            - lines[rank_o]
            + lines[file_o2]
            - lines[file_o]
            + lines[rank_t + (value << (3 * ft))]
            - lines[rank_t]
            + lines[file_t + (value << (3 * rt))]
            - lines[file_t]
        )
        gains[order, t.squares : t.pass_action] = gain
    return np.where(mask, gains, -np.inf)


def score_gain_actions(batch: EntropyBatch, rng: np.random.Generator) -> Actions:
    """The one-ply score-gain greedy move of every live lane: Order the move that raises its
    score most (passing gains 0), Chaos the placement that raises it least.

    It chooses as [`GreedyPlayer`][abstractgames.players.greedy.GreedyPlayer] does with the
    evaluation "Order's score" (not the `greedy` player's richer
    [`evaluate`][abstractgames.players.entropy.evaluate]); ties are drawn uniformly with `rng`.
    """
    gains = score_gains(batch)
    mask = np.isfinite(gains)
    value = np.where((batch.to_move == _CHAOS)[:, None], -gains, gains)
    value = np.where(mask, value, -np.inf)
    best = value.max(axis=1, keepdims=True)
    return uniform_from_mask(mask & (value == best), rng)
