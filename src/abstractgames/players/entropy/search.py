"""One move's expectiminimax search (`_Search`) over the board, within a deadline, and the
widths of its inner nodes ([`ORDER_WIDTH`][], [`CHAOS_WIDTH`][])."""

from __future__ import annotations

from collections.abc import Iterable

from ...timing import Deadline
from .board import _INF, _Board, _gain_left

ORDER_WIDTH = 8
"""Slides tried at an inner Order node (by their one-ply value)."""
CHAOS_WIDTH = 8
"""Squares tried at an inner Chaos node deeper than two plies (by Order's best reply)."""


class _Search:
    """One move's expectiminimax search over a `_Board`, within a deadline (a search that runs
    out of time leaves the board half-changed: it is thrown away).

    Order's and Chaos's nodes are searched alpha-beta: Order's node `order_node(depth, beta)`
    stops as soon as a slide reaches `beta`, the least value Chaos has found so far at the node
    above. The last two plies, an Order node whose slides lead to draws and Chaos's one-ply
    answer to each, are `order_frontier`: there the values of Chaos's placements come from the
    board above, recounted only on the three lines a slide changes, and the bounds they give
    (Star1 at the chance node) cut the slides that cannot beat the best one found.
    """

    def __init__(
        self,
        board: _Board,
        deadline: Deadline,
        order_width: int = ORDER_WIDTH,
        chaos_width: int = CHAOS_WIDTH,
    ) -> None:
        self.board = board
        self.deadline = deadline
        self.order_width = order_width
        self.chaos_width = chaos_width
        self.cut = False  # whether a leaf was cut by depth (not a finished game)
        self.nodes = 0  # the positions where Order or Chaos is to move that were valued
        n = board.n
        self.square_bits = [(1 << (sq // n), 1 << (sq % n)) for sq in range(n * n)]
        # The transposition table: by board hash (the bag follows from the board), the bounds
        # `(low, high)` found for a chance node of the frontier.
        self.table: dict[int, tuple[float, float]] = {}
        # Best moves found, by board hash (and colour, for Chaos): tried first when the node is
        # searched again, at the next iteration or through another order of moves.
        self.killers: dict[int, int] = {}
        self.best_slides: dict[int, tuple[int, int]] = {}

    def order_node(self, depth: int, beta: float = _INF) -> float:
        """Order to move on a board that is not full; a value `>= beta` may stand for more."""
        board = self.board
        if depth <= 1:
            self.nodes += 1
            self.cut = True
            return board.value + board.best_order_gain()
        if depth == 2:
            return self.order_frontier(beta)
        self.nodes += 1
        self.deadline.check()
        moves = board.order_moves()
        moves.sort(reverse=True)
        tried = [(origin, target) for _, origin, target in moves[: self.order_width]]
        key = board.hash
        first = self.best_slides.get(key)
        if first is not None and first in tried and first != tried[0]:
            tried.remove(first)
            tried.insert(0, first)
        best = -_INF
        found = tried[0]
        for origin, target in tried:
            if origin >= 0:
                board.slide(origin, target)
                value = self.chance_node(depth - 1, best, beta)
                board.slide(target, origin)
            else:
                value = self.chance_node(depth - 1, best, beta)
            if value > best:
                best = value
                found = (origin, target)
                if best >= beta:
                    break
        self.best_slides[key] = found
        return best

    def order_frontier(self, beta: float = _INF) -> float:
        """`order_node(2)`: Order's best slide, each followed by a draw and Chaos's placement
        that lowers the value most (no reply after it).

        The placements' value changes on this board are listed once per colour, least first;
        after a slide, those on squares off the three lines the slide changes are the same, so
        the least of them bounds Chaos's answer from above, and only the squares on the changed
        lines are recounted. A slide whose bound (summed over the bag) is no better than the
        best slide so far is not recounted.
        """
        board = self.board
        self.nodes += 1
        self.cut = True
        self.deadline.check()
        moves = board.order_moves()
        moves.sort(reverse=True)
        n = board.n
        bag = board.bag
        total = sum(bag)
        lv = board.lv
        rc, fc, ro, fo, lr, lf = board.rc, board.fc, board.ro, board.fo, board.lr, board.lf
        empty_bits = board.tables.empty_bits
        # For each colour in the bag: (colour, its share, its placements' (change, rank bit,
        # file bit), least change first).
        colours = []
        for index, left in enumerate(bag):
            if not left:
                continue
            colour = index + 1
            changes: list[tuple[float, int, int]] = []
            append = changes.append
            for r in range(n):
                row_value = lr[r]
                rcode = rc[r]
                shift_r = 3 * r
                rbit = 1 << r
                for f in empty_bits[ro[r]]:
                    append(
                        (
                            lv[rcode + (colour << 3 * f)]
                            - row_value
                            + lv[fc[f] + (colour << shift_r)]
                            - lf[f],
                            rbit,
                            1 << f,
                        )
                    )
            changes.sort()
            colours.append((colour, left / total, changes))
        count = len(colours)
        base = board.value
        best = -_INF
        for gain, origin, target in moves[: self.order_width]:
            self.nodes += count
            if origin < 0:
                value = base + sum([share * changes[0][0] for _, share, changes in colours])
                if value > best:
                    best = value
                    if best >= beta:
                        break
                continue
            r0, f0 = divmod(origin, n)
            r1, f1 = divmod(target, n)
            if r0 == r1:
                ranks, files = 1 << r0, 1 << f0 | 1 << f1
            else:
                ranks, files = 1 << r0 | 1 << r1, 1 << f0
            # Chaos's best answer off the changed lines: an upper bound for each colour.
            bounds = []
            bound = base + gain
            for _, share, changes in colours:
                least = _INF
                for change, rbit, fbit in changes:
                    if not (rbit & ranks or fbit & files):
                        least = change
                        break
                bounds.append(least)
                bound += share * least
            if bound <= best:
                continue
            board.slide(origin, target)
            # The empty squares of the changed lines, as (rank, file), each once.
            if r0 == r1:
                cells = [(r0, f) for f in empty_bits[ro[r0]]]
                cells += [(r, f0) for r in empty_bits[fo[f0]] if r != r0]
                cells += [(r, f1) for r in empty_bits[fo[f1]] if r != r0]
            else:
                cells = [(r, f0) for r in empty_bits[fo[f0]]]
                cells += [(r0, f) for f in empty_bits[ro[r0]] if f != f0]
                cells += [(r1, f) for f in empty_bits[ro[r1]] if f != f0]
            value = board.value
            for (colour, share, _), least in zip(colours, bounds, strict=True):
                for r, f in cells:
                    change = (
                        lv[rc[r] + (colour << 3 * f)]
                        - lr[r]
                        + lv[fc[f] + (colour << 3 * r)]
                        - lf[f]
                    )
                    if change < least:
                        least = change
                value += share * least
            board.slide(target, origin)
            if value > best:
                best = value
                if best >= beta:
                    break
        return best

    def chance_node(self, depth: int, alpha: float = -_INF, beta: float = _INF) -> float:
        """A draw is due (the board is not full); a value `<= alpha` may stand for less, one
        `>= beta` for more."""
        if depth == 2 and self.board.empties > 1:
            return self.chance_frontier(alpha, beta)
        bag = self.board.bag
        if alpha == -_INF or depth < 3 or self.board.empties <= 1:
            total = 0.0
            count = 0
            for index, left in enumerate(bag):
                if left:
                    bag[index] = left - 1
                    total += left * self.chaos_node(index + 1, depth)
                    bag[index] = left
                    count += left
            return total / count
        return self.chance_probed(depth, alpha)

    def chance_probed(self, depth: int, alpha: float) -> float:
        """`chance_node(depth)`, `depth >= 3`, below an Order node that has `alpha` already:
        Star2's probing. Each colour's first square (Chaos's likeliest best) is searched first,
        likeliest colours first; its value bounds the colour's from above, and once the bounds
        summed over the bag are `<= alpha` the node is no better than `alpha` and ends there.
        Otherwise each colour is searched in full, the bound tightening as it goes."""
        board = self.board
        bag = board.bag
        count = sum(bag)
        probes = []
        high = 0.0
        for index, left in sorted(enumerate(bag), key=lambda item: -item[1]):
            if not left:
                continue
            colour = index + 1
            bag[index] = left - 1
            self.nodes += 1
            self.deadline.check()
            squares = self.chaos_squares(colour)
            board.place(squares[0], colour)
            value = self.order_node(depth - 1)
            board.remove(squares[0])
            bag[index] = left
            probes.append((index, left, squares, value))
            high += left * value
        if high <= alpha * count:
            return high / count
        for index, left, squares, value in probes:
            colour = index + 1
            bag[index] = left - 1
            best = self.chaos_rest(colour, squares, depth, value)
            bag[index] = left
            high += left * (best - value)
            if high <= alpha * count:
                break
        return high / count

    def chaos_squares(self, colour: int) -> list[int]:
        """The squares an inner Chaos node searches, likeliest best first: by Order's best reply
        (`_Board.replies`), the best found before (the killer) first."""
        board = self.board
        replies = board.replies(colour, board.chaos_moves(colour))
        squares = [square for _, square in replies[: self.chaos_width]]
        killer = self.killers.get(board.hash ^ colour)
        if killer is not None and killer in squares and killer != squares[0]:
            squares.remove(killer)
            squares.insert(0, killer)
        return squares

    def chaos_rest(self, colour: int, squares: list[int], depth: int, best: float) -> float:
        """The least value over `squares[1:]`, `best` being the first one's."""
        board = self.board
        key = board.hash ^ colour
        found = squares[0]
        for square in squares[1:]:
            board.place(square, colour)
            value = self.order_node(depth - 1, best)
            board.remove(square)
            if value < best:
                best = value
                found = square
        self.killers[key] = found
        return best

    def chance_frontier(self, alpha: float, beta: float) -> float:
        """`chance_node(2)`: for each colour drawn, Chaos's placement after which Order's best
        slide leaves the least value, searched Star2-style.

        Order's best slide after a placement is at least the best of the slides the placement
        leaves alone (the same for every colour, found once), which gives each square a lower
        bound; the square with the least bound, searched first for every colour (the probe),
        gives each colour an upper bound. The bounds summed over the bag (Star1) end the node
        as soon as its value is known to be `<= alpha` or `>= beta`; otherwise the colours are
        searched in full, likeliest first, each square only while its bound is below the least
        value found for the colour.
        """
        board = self.board
        known = self.table.get(board.hash)
        if known is not None:
            low, high = known
            if high <= alpha or low == high:
                return high
            if low >= beta:
                return low
        low, high = self._chance_frontier(alpha, beta)
        self.table[board.hash] = (low, high)
        return high if high <= alpha or low == high else low if low >= beta else high

    def _chance_frontier(self, alpha: float, beta: float) -> tuple[float, float]:
        """`chance_frontier`'s bounds: `(low, high)`, equal once the value is exact."""
        board = self.board
        n = board.n
        replies = board.reply_gains()
        gains = replies.gains
        value = board.value
        lv = board.lv
        rc, fc, ro, lr, lf = board.rc, board.fc, board.ro, board.lr, board.lf
        # Each empty square: (its rank's code, its file's code, their shifts and values, the
        # best reply it leaves alone, the square).
        cells = []
        for r in range(n):
            rcode, rvalue, shift_r = rc[r], lr[r], 3 * r
            cells += [
                (rcode, fc[f], 3 * f, shift_r, rvalue, lf[f], _gain_left(gains, r, f), r * n + f)
                for f in board.tables.empty_bits[ro[r]]
            ]
        lists = []
        bag = board.bag
        total = sum(bag)
        for index, left in sorted(enumerate(bag), key=lambda item: -item[1]):
            if not left:
                continue
            colour = index + 1
            # The same sums as `_Board.chaos_moves`'s, in the same order.
            bounds = [
                (
                    value
                    + (lv[rcode + (colour << sf)] - rv + lv[fcode + (colour << sr)] - fv)
                    + least,
                    least,
                    square,
                )
                for rcode, fcode, sf, sr, rv, fv, least, square in cells
            ]
            lists.append((colour, left / total, bounds))
        self.nodes += len(lists)
        self.cut = True
        self.deadline.check()
        # The probes: each colour's first square, exactly.
        lows = []
        highs = []
        for colour, _share, bounds in lists:
            first = min(bounds)
            lows.append(first[0])
            highs.append(board.reply_value(first[2], colour, first[1], replies))
        low = sum([share * x for (_, share, _), x in zip(lists, lows, strict=True)])
        high = sum([share * x for (_, share, _), x in zip(lists, highs, strict=True)])
        if high <= alpha or low >= beta:
            return low, high
        for k, (colour, share, bounds) in enumerate(lists):
            lowest = highs[k]
            bounds.sort()
            for bound, least, square in bounds[1:]:
                if bound >= lowest:
                    break
                found = board.reply_value(square, colour, least, replies, lowest)
                if found < lowest:
                    lowest = found
            low += share * (lowest - lows[k])
            high += share * (lowest - highs[k])
            if high <= alpha or low >= beta:
                return low, high
        return high, high

    def chaos_node(self, colour: int, depth: int) -> float:
        """Chaos must place `colour`."""
        board = self.board
        self.nodes += 1
        if board.empties == 1:
            return board.value + board.chaos_moves(colour)[0][0]
        if depth <= 1:
            self.cut = True
            return board.value + board.least_placement(colour)
        self.deadline.check()
        if depth == 2:
            self.cut = True
            return board.replies(colour, board.chaos_moves(colour))[0][0]
        squares = self.chaos_squares(colour)
        board.place(squares[0], colour)
        first = self.order_node(depth - 1)
        board.remove(squares[0])
        return self.chaos_rest(colour, squares, depth, first)

    # -- the roots ------------------------------------------------------------------------------

    def order_root(
        self,
        moves: list[tuple[int, int]],
        depth: int,
        indices: Iterable[int],
        found: list[tuple[float, int]] | None = None,
    ) -> list[tuple[float, int]]:
        """Append `(value, index)` to `found` for each `moves[index]`, `depth` plies.

        Each slide after the first is searched against the best value found so far: a value
        at or below it may stand for less (it only says the slide is no better).
        """
        board = self.board
        out = [] if found is None else found
        best = -_INF
        for index in indices:
            self.nodes += 1
            origin, target = moves[index]
            if origin >= 0:
                board.slide(origin, target)
            if depth <= 1:
                value = board.value
                self.cut = True
            else:
                value = self.chance_node(depth - 1, best)
            if origin >= 0:
                board.slide(target, origin)
            if value > best:
                best = value
            out.append((value, index))
        return out

    def order_first(self, moves: list[tuple[int, int]]) -> list[tuple[float, int]]:
        """`order_root(moves, 1, …)` over all the moves: each slide's value from the value
        changes of `_Board.order_moves`, without making it."""
        board = self.board
        base = board.value
        gains = {(origin, target): gain for gain, origin, target in board.order_moves()}
        self.nodes += len(moves)
        self.cut = True
        return [(base + gains[move], index) for index, move in enumerate(moves)]

    def chaos_second(
        self,
        squares: list[int],
        colour: int,
        indices: Iterable[int],
        found: list[tuple[float, int]],
    ) -> list[tuple[float, int]]:
        """`chaos_root(squares, colour, 2, indices, found)`, from `_Board.replies`: Order's best
        reply to each placement found incrementally (a value at or above the least may stand
        for more, as in `chaos_root`)."""
        board = self.board
        keep = list(indices)
        self.deadline.check()
        changes = {square: change for change, square in board.chaos_moves(colour)}
        replies = board.replies(colour, [(changes[squares[i]], squares[i]) for i in keep])
        values = {square: value for value, square in replies}
        self.nodes += 2 * len(keep)
        if board.empties > 1:
            self.cut = True
        found += [(values[squares[index]], index) for index in keep]
        return found

    def chaos_root(
        self,
        squares: list[int],
        colour: int,
        depth: int,
        indices: Iterable[int],
        found: list[tuple[float, int]] | None = None,
    ) -> list[tuple[float, int]]:
        """Append `(value, index)` to `found` for `colour` on each `squares[index]`.

        Each square after the first is searched against the least value found so far: a value
        at or above it may stand for more (it only says the square is no better).
        """
        board = self.board
        out = [] if found is None else found
        best = _INF
        for index in indices:
            self.nodes += 1
            square = squares[index]
            board.place(square, colour)
            if board.empties == 0:
                value = board.value
            elif depth <= 1:
                value = board.value
                self.cut = True
            else:
                value = self.order_node(depth - 1, best)
            board.remove(square)
            if value < best:
                best = value
            out.append((value, index))
        return out
