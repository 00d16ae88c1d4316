"""The Entropy search's shortcuts give the values of the plain computations they replace."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames.entropy import ORDER, EntropyGame, EntropyState
from abstractgames.players.entropy import EntropySearch, PatternTable
from abstractgames.players.entropy.board import _Board, _gain_left
from abstractgames.players.entropy.search import _Search
from abstractgames.protocol import random_move
from abstractgames.testing import states
from abstractgames.timing import Deadline
from tests.conftest import examples

GAME = EntropyGame()


@settings(max_examples=examples(30), deadline=None)
@given(st.sampled_from([GAME, EntropyGame(size=5)]).flatmap(states))
def test_a_reply_value_is_the_value_after_the_placement_and_orders_best_reply(
    state: EntropyState,
) -> None:
    """`reply_value` is the value after the placement and Order's best slide (or the pass)
    found by making the placement; or, when that reaches `stop`, some value `>= stop` and no
    more than it. It leaves the board as it was."""
    board = _Board(state, PatternTable.load(state.size))
    n = board.n
    replies = board.reply_gains()
    lines = (board.rc, board.fc, board.ro, board.fo, board.lr, board.lf)
    before = ([list(line) for line in lines], board.cells[:], board.value, board.hash)
    for square in range(n * n):
        if board.cells[square]:
            continue
        colour = 1 + square % n
        kept = _gain_left(replies.gains, *divmod(square, n))
        board.place(square, colour)
        exact = board.value + (board.best_order_gain() if board.empties else 0.0)
        board.remove(square)
        assert board.reply_value(square, colour, kept, replies) == exact
        for stop in (exact - 1.0, exact, exact + 1.0):
            found = board.reply_value(square, colour, kept, replies, stop)
            if exact >= stop:
                assert stop <= found <= exact
            else:
                assert found == exact
        assert ([list(line) for line in lines], board.cells, board.value, board.hash) == before


@settings(max_examples=examples(20), deadline=None)
@given(states(GAME))
def test_the_shallow_root_iterations_equal_the_full_ones(state: EntropyState) -> None:
    """`order_first` and `chaos_second` value the root moves as `order_root` at depth 1 and
    `chaos_root` at depth 2: the best move's value exactly, the others at least as bounds."""
    board = _Board(state, PatternTable.load(state.size))
    if state.to_move == "order":
        moves = board.order_slides()
        fast = _Search(board, Deadline(None)).order_first(moves)
        slow = _Search(board, Deadline(None)).order_root(moves, 1, range(len(moves)))
        assert [i for _, i in fast] == [i for _, i in slow]
        for (a, _), (b, _) in zip(fast, slow, strict=True):
            assert a == pytest.approx(b)
    elif state.to_move == "chaos" and board.empties > 1:
        colour = board.tables.colour_value[str(state.drawn)]
        squares = [square for _, square in board.chaos_moves(colour)]
        indices = range(len(squares))
        fast = _Search(board, Deadline(None)).chaos_second(squares, colour, indices, [])
        slow = _Search(board, Deadline(None)).chaos_root(squares, colour, 2, indices)
        assert min(fast)[0] == pytest.approx(min(slow)[0])
        exact = [board.value]  # every value exactly, by brute force
        for (value, index), (bound, _) in zip(fast, slow, strict=True):
            board.place(squares[index], colour)
            exact[0] = board.value + board.best_order_gain()
            board.remove(squares[index])
            # A square's value stands for more only where it is no better than the best.
            assert value == pytest.approx(exact[0]) or value >= min(fast)[0] - 1e-9
            assert value <= exact[0] + 1e-9
            assert bound <= exact[0] + 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_a_narrow_pass_that_reaches_the_end_does_not_end_the_search(seed: int) -> None:
    """Near the end a narrow pass follows every line to the end of the game, but only the
    likeliest moves: the full pass after it must still run, and decide."""
    rng = random.Random(seed)
    state = GAME.initial_state()
    while state.is_chance() or state.to_move != ORDER or state.placements < 46:
        state = state.apply(random_move(state, rng))
    narrow = EntropySearch(GAME, depth=7)
    full = EntropySearch(GAME, depth=7, narrow_widths=())
    assert narrow.iterations(3)[1:3] == [(5, 2, 2), (5, 4, 4)]
    assert full.iterations(3) == [(3, 8, 8), (5, 8, 8), (7, 8, 8)]
    assert narrow.choose(state, random.Random(1)) == full.choose(state, random.Random(1))
    assert narrow.info is not None and full.info is not None
    assert narrow.info.value == pytest.approx(full.info.value)
    assert narrow.info.depth == full.info.depth
