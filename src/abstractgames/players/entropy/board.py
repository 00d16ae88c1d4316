"""The search's board (`_Board`): a mutable copy of a position whose line codes, line values,
value and Zobrist hash follow the placements and slides made and unmade on it, and which values
Order's slides and Chaos's placements (Order's best reply to a placement found incrementally);
and [`position_value`][], the sum of a position's line values."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from operator import getitem
from typing import NamedTuple

from ...entropy import EntropyState, line_codes, line_occupancy
from .lines import LineEvaluation, _line_values, _LineValues
from .patterns import PatternTable
from .tables import _PerSlide, _Slides, _tables

_INF = float("inf")


def _gain_left(gains: list[tuple[float, int, int]], rs: int, fs: int) -> float:
    """Order's best reply among `gains` (`reply_gains`, best first) that a counter placed on
    rank `rs`, file `fs` leaves alone, or 0 (the pass)."""
    for gain, ranks, files in gains:
        if gain <= 0.0:
            return 0.0
        if not (ranks >> rs & 1 or files >> fs & 1):
            return gain
    return 0.0


class _Replies(NamedTuple):
    """What `_Board.reply_gains` finds on a board, for Order's replies to its placements."""

    gains: list[tuple[float, int, int]]
    across_files: list[list[tuple[int, float, int]]]
    across_ranks: list[list[tuple[int, float, int]]]


class _Board:
    """A mutable copy of a position for search: line codes, occupancy and the bag.

    `rc[r]` / `fc[f]`: the code of rank `r` / file `f` (the game's line codes: 3 bits a
    square, 0 empty); `ro` / `fo`: their occupancy bits; `lr` / `lf`: their line values;
    `value`: the sum.
    """

    def __init__(self, state: EntropyState, evaluation: LineEvaluation | None = None) -> None:
        tables = _tables(state.size)
        n = tables.size
        self.tables = tables
        self.n = n
        self.bag = list(state.bag().values())
        self.lv: _LineValues | bytes = (
            tables.scores
            if evaluation is None
            else _line_values(tables.features, evaluation, self.bag)
        )
        self.rc, self.fc = line_codes(state)
        ranks, files = line_occupancy(state)
        self.ro = list(ranks)
        self.fo = list(files)
        shifts = tables.shifts
        self.cells = [code >> shift & 7 for code in self.rc for shift in shifts]
        self.lr = [self.lv[code] for code in self.rc]
        self.lf = [self.lv[code] for code in self.fc]
        self.value = sum(self.lr) + sum(self.lf)
        self.empties = self.cells.count(0)
        keys = tables.zobrist
        self.hash = 0
        for square, colour in enumerate(self.cells):
            if colour:
                self.hash ^= keys[square][colour]

    # -- making and unmaking moves --------------------------------------------------------------

    def place(self, square: int, colour: int) -> None:
        n = self.n
        r, f = divmod(square, n)
        lv = self.lv
        self.cells[square] = colour
        self.hash ^= self.tables.zobrist[square][colour]
        self.rc[r] += colour << 3 * f
        self.fc[f] += colour << 3 * r
        self.ro[r] |= 1 << f
        self.fo[f] |= 1 << r
        old = self.lr[r] + self.lf[f]
        self.lr[r] = lv[self.rc[r]]
        self.lf[f] = lv[self.fc[f]]
        self.value += self.lr[r] + self.lf[f] - old
        self.empties -= 1

    def remove(self, square: int) -> None:
        n = self.n
        r, f = divmod(square, n)
        lv = self.lv
        colour = self.cells[square]
        self.cells[square] = 0
        self.hash ^= self.tables.zobrist[square][colour]
        self.rc[r] -= colour << 3 * f
        self.fc[f] -= colour << 3 * r
        self.ro[r] ^= 1 << f
        self.fo[f] ^= 1 << r
        old = self.lr[r] + self.lf[f]
        self.lr[r] = lv[self.rc[r]]
        self.lf[f] = lv[self.fc[f]]
        self.value += self.lr[r] + self.lf[f] - old
        self.empties += 1

    def slide(self, origin: int, target: int) -> None:
        colour = self.cells[origin]
        self.remove(origin)
        self.place(target, colour)

    # -- Order's slides, valued -------------------------------------------------------------------

    def slide_gains(self, ranks: Iterable[_Slides], files: Iterable[_Slides]) -> list[float]:
        """The value change of each slide given, those along the ranks first.

        The `k`-th item of `ranks` (of `files`) holds slides along rank (file) `k`, by
        origin: `(origin's index along the line, the indices it goes to)`. Every value the
        search gives a slide comes from here. A slide changes three lines: its own, and the two
        across it at its origin and at its target.
        """
        lv = self.lv
        gains: list[float] = []
        append = gains.append
        for codes, values, across, across_values, work in (
            (self.rc, self.lr, self.fc, self.lf, ranks),
            (self.fc, self.lf, self.rc, self.lr, files),
        ):
            for k, slides in enumerate(work):
                if not slides:
                    continue
                code = codes[k]
                value = values[k]
                at = 3 * k
                for i, reach in slides:
                    colour = code >> 3 * i & 7
                    without = code - (colour << 3 * i)
                    moved = colour << at  # the counter in the lines across
                    loss = lv[across[i] - moved] - across_values[i] - value
                    for j in reach:
                        append(
                            lv[without + (colour << 3 * j)]
                            + loss
                            + lv[across[j] + moved]
                            - across_values[j]
                        )
        return gains

    def all_slide_gains(self) -> list[float]:
        """The value change of every slide, in the order of `each_slide`."""
        line_slides = self.tables.line_slides
        return self.slide_gains(
            map(line_slides.__getitem__, self.ro), map(line_slides.__getitem__, self.fo)
        )

    def each_slide(self, by_rank: _PerSlide, by_file: _PerSlide) -> Iterator[tuple[int, int]]:
        """A pair per slide from tables by line and occupancy: along the ranks, then the files."""
        return chain(
            chain.from_iterable(map(getitem, by_rank, self.ro)),
            chain.from_iterable(map(getitem, by_file, self.fo)),
        )

    def order_slides(self) -> list[tuple[int, int]]:
        """Order's moves as `(origin, target)`: the pass `(-1, -1)`, then counter by counter
        (in square order) its slides along its rank and then along its file, nearest first.

        The search shuffles this list at its root, so its order decides how a seed breaks ties.
        """
        n, ro, fo = self.n, self.ro, self.fo
        targets, bits = self.tables.targets, self.tables.bits
        out = [(-1, -1)]
        for r in range(n):
            rank_targets = targets[ro[r]]
            base = r * n
            for f in bits[ro[r]]:
                square = base + f
                out += [(square, base + f2) for f2 in rank_targets[f]]
                out += [(square, r2 * n + f) for r2 in targets[fo[f]][r]]
        return out

    def order_moves(self) -> list[tuple[float, int, int]]:
        """`(value change, origin, target)` for the pass (`-1, -1`) and every slide."""
        moves = self.each_slide(self.tables.rank_moves, self.tables.file_moves)
        out: list[tuple[float, int, int]] = [(0.0, -1, -1)]
        out += [
            (gain, origin, target)
            for gain, (origin, target) in zip(self.all_slide_gains(), moves, strict=True)
        ]
        return out

    def best_order_gain(self) -> float:
        """The largest value change among Order's moves (0 for the pass)."""
        gains = self.all_slide_gains()
        best = max(gains) if gains else 0.0
        return best if best > 0.0 else 0.0

    def reply_gains(self) -> _Replies:
        """Every slide's value change, for valuing Order's best reply to a placement
        (`reply_value`): `(value change, ranks, files)` best first, and the slides across each
        line.

        `ranks` and `files` are bit masks of the lines a slide changes: a placement on none of
        them leaves the slide and its value change as they are. A placement on an empty square
        changes a slide that leaves or lands on the square's rank or file (not along it) only
        through that line's value: `across_files[f]` holds `(rank, rest, change)` for each
        slide along a rank that leaves or lands on file `f`, `rest` being its value change but
        for file `f`'s, and `change` what it adds to file `f`'s code; for a counter that
        leaves, `rest` is that of its best slide along the rank. `across_ranks[r]` holds the
        same, `(file, rest, change)`, for the slides along the files.
        """
        n = self.n
        lv = self.lv
        line_slides = self.tables.line_slides
        gains: list[tuple[float, int, int]] = []
        append = gains.append
        across_files: list[list[tuple[int, float, int]]] = [[] for _ in range(n)]
        across_ranks: list[list[tuple[int, float, int]]] = [[] for _ in range(n)]
        for codes, values, across, across_values, occupancy, onto, along_ranks in (
            (self.rc, self.lr, self.fc, self.lf, self.ro, across_files, True),
            (self.fc, self.lf, self.rc, self.lr, self.fo, across_ranks, False),
        ):
            for k, occ in enumerate(occupancy):
                slides = line_slides[occ]
                if not slides:
                    continue
                code = codes[k]
                value = values[k]
                at = 3 * k
                line_bit = 1 << k
                for i, reach in slides:
                    colour = code >> 3 * i & 7
                    without = code - (colour << 3 * i)
                    moved = colour << at
                    leave = lv[across[i] - moved] - across_values[i]
                    loss = leave - value
                    best = -_INF
                    for j in reach:
                        rest = lv[without + (colour << 3 * j)] + loss
                        gain = rest + lv[across[j] + moved] - across_values[j]
                        if along_ranks:
                            append((gain, line_bit, 1 << i | 1 << j))
                        else:
                            append((gain, 1 << i | 1 << j, line_bit))
                        if gain > best:
                            best = gain
                        onto[j].append((k, rest, moved))
                    onto[i].append((k, best - leave, -moved))
        gains.sort(reverse=True)
        return _Replies(gains, across_files, across_ranks)

    def reply_value(
        self, square: int, colour: int, kept: float, replies: _Replies, stop: float = _INF
    ) -> float:
        """The value after `colour` is placed on the empty `square` and Order's best reply;
        `kept` is the best value change among the slides the placement leaves alone
        (`_gain_left`, 0 for the pass) and `replies` the board's `reply_gains`. As soon as a
        slide makes the value reach `stop`, that value is returned (a value `>= stop` may
        stand for more). The board is left as it was.

        Only the slides that leave or land on the placed counter's rank or file change value:
        those along that rank and file are valued afresh, as in `slide_gains`, and first (the
        likeliest to gain from the counter placed where they cross); those across them from
        `replies`, with only that rank's or file's value counted again. Only the two lines'
        codes and values are changed for it, and put back: the rest of the board (its squares,
        hash, value) never sees the counter.
        """
        r, f = divmod(square, self.n)
        rc, fc, ro, fo, lr, lf = self.rc, self.fc, self.ro, self.fo, self.lr, self.lf
        lv = self.lv
        rank_code, file_code, rank_value, file_value = rc[r], fc[f], lr[r], lf[f]
        rank = rc[r] = rank_code + (colour << 3 * f)
        file = fc[f] = file_code + (colour << 3 * r)
        new_rank_value = lr[r] = lv[rank]
        new_file_value = lf[f] = lv[file]
        value = self.value + (new_rank_value + new_file_value - (rank_value + file_value))
        ro[r] ^= 1 << f
        fo[f] ^= 1 << r
        try:
            if self.empties == 1:
                return value
            stop -= value
            best = kept
            if best >= stop:
                return value + best
            line_slides = self.tables.line_slides
            for code, line_value, across, across_values, shift, slides in (
                (rank, new_rank_value, fc, lf, 3 * r, line_slides[ro[r]]),
                (file, new_file_value, rc, lr, 3 * f, line_slides[fo[f]]),
            ):
                for i, reach in slides:
                    counter = code >> 3 * i & 7
                    without = code - (counter << 3 * i)
                    moved = counter << shift
                    loss = lv[across[i] - moved] - across_values[i] - line_value
                    for j in reach:
                        gain = lv[without + (counter << 3 * j)] + loss + lv[across[j] + moved]
                        gain -= across_values[j]
                        if gain > best:
                            best = gain
                            if best >= stop:
                                return value + best
            for code, line_value, skip, work in (
                (file, new_file_value, r, replies.across_files[f]),
                (rank, new_rank_value, f, replies.across_ranks[r]),
            ):
                for k, rest, change in work:
                    if k != skip:
                        gain = rest + lv[code + change] - line_value
                        if gain > best:
                            best = gain
                            if best >= stop:
                                return value + best
            return value + best
        finally:
            rc[r], fc[f], lr[r], lf[f] = rank_code, file_code, rank_value, file_value
            ro[r] ^= 1 << f
            fo[f] ^= 1 << r

    def replies(self, colour: int, moves: list[tuple[float, int]]) -> list[tuple[float, int]]:
        """`(value after Order's best reply, square)` for `colour` on each square, best first.

        `moves` are Chaos's `(value change, square)`. Order's best reply is the best of the
        slides the placement leaves alone (from `reply_gains`) and of the slides through
        the placed counter's rank and file. A square whose bound (its value with the first
        kind of reply only) is no better for Chaos than the best found so far is not searched
        further: its bound stands for its value, and the first value is exact.
        """
        n = self.n
        replies = self.reply_gains()
        gains = replies.gains
        bounds = []
        value = self.value
        for change, square in moves:
            kept = _gain_left(gains, *divmod(square, n))
            bounds.append((value + change + kept, kept, square))
        bounds.sort()
        out = []
        lowest = float("inf")
        for bound, kept, square in bounds:
            if bound >= lowest:
                out.append((bound, square))
                continue
            found = self.reply_value(square, colour, kept, replies, lowest)
            if found < lowest:
                lowest = found
            out.append((found, square))
        out.sort()
        return out

    def chaos_moves(self, colour: int) -> list[tuple[float, int]]:
        """`(value change, square)` for every empty square, placing `colour` there."""
        n = self.n
        rc, fc, ro, lr, lf = self.rc, self.fc, self.ro, self.lr, self.lf
        lv = self.lv
        empty_bits = self.tables.empty_bits
        out: list[tuple[float, int]] = []
        append = out.append
        for r in range(n):
            row_value = lr[r]
            rcode = rc[r]
            shift_r = 3 * r
            base = r * n
            for f in empty_bits[ro[r]]:
                append(
                    (
                        lv[rcode + (colour << 3 * f)]
                        - row_value
                        + lv[fc[f] + (colour << shift_r)]
                        - lf[f],
                        base + f,
                    )
                )
        return out

    def least_placement(self, colour: int) -> float:
        """The least value change of placing `colour` on an empty square."""
        n = self.n
        rc, fc, ro, lr, lf = self.rc, self.fc, self.ro, self.lr, self.lf
        lv = self.lv
        empty_bits = self.tables.empty_bits
        least = _INF
        for r in range(n):
            rcode = rc[r]
            row_value = lr[r]
            shift_r = 3 * r
            for f in empty_bits[ro[r]]:
                change = lv[rcode + (colour << 3 * f)] - row_value + lv[fc[f] + (colour << shift_r)]
                change -= lf[f]
                if change < least:
                    least = change
        return least

    def open_patterns(self) -> float:
        """Sum over empty squares and colours in the bag of (score there) × (share of the bag)."""
        n = self.n
        scores = self.tables.scores
        rc, fc, ro = self.rc, self.fc, self.ro
        total = sum(self.bag)
        if not total:
            return 0.0
        weights = [(k + 1, left) for k, left in enumerate(self.bag) if left]
        found = 0
        for r in range(n):
            rcode = rc[r]
            row_score = scores[rcode]
            shift_r = 3 * r
            for f in self.tables.empty_bits[ro[r]]:
                fcode = fc[f]
                file_score = scores[fcode]
                shift_f = 3 * f
                for colour, left in weights:
                    gain = (
                        scores[rcode + (colour << shift_f)]
                        - row_score
                        + scores[fcode + (colour << shift_r)]
                        - file_score
                    )
                    found += gain * left
        return found / total


def position_value(state: EntropyState, evaluation: LineEvaluation | None = None) -> float:
    """The sum of the line values of all ranks and files: the search's static evaluation (with
    the search's table, [`PatternTable.load`][], unless `evaluation` is given).

    It is the live score plus what the lines look set to score (see
    [the module][abstractgames.players.entropy]), with the bag of `state`, and equals the score on
    a full board.
    """
    return float(_Board(state, evaluation or PatternTable.load(state.size)).value)
