"""The Order and Chaos search bot: legal, reproducible, on time, and sharp in tactics."""

from __future__ import annotations

import random
import time

import pytest

from abstractgames import State, get_game, make_player
from abstractgames.orderchaos import WINDOWS, WINDOWS_THROUGH, OrderChaosState
from abstractgames.players.orderchaos import OrderChaosSearch

GAME = get_game("orderchaos")
FULL = (1 << 36) - 1


def position(text: str) -> OrderChaosState:
    state = GAME.from_position(text)
    assert isinstance(state, OrderChaosState)
    return state


def choose(text: str, depth: int = 2, seed: int = 0) -> str:
    bot = OrderChaosSearch(GAME, depth=depth)
    return str(bot.choose(position(text), random.Random(seed)))


def order_wins(x: int, o: int, memo: dict[int, bool]) -> bool:
    """Exact game value by plain minimax over every move: does Order win? (small endgames only)"""
    key = x << 36 | o
    if key in memo:
        return memo[key]
    occupied = x | o
    order = occupied.bit_count() % 2 == 0
    result = not order
    empty = FULL ^ occupied
    for square in range(36):
        if not empty >> square & 1 or result == order:
            continue
        bit = 1 << square
        for nx, no in ((x | bit, o), (x, o | bit)):
            own = nx if nx != x else no
            if any(own & w == w for w in WINDOWS_THROUGH[square]):
                wins = True
            else:
                wins = (nx | no) != FULL and order_wins(nx, no, memo)
            if wins == order:
                result = order
                break
    memo[key] = result
    return result


def winner_after(state: OrderChaosState, move: str) -> str:
    after = state.apply(move)
    assert isinstance(after, OrderChaosState)
    outcome = after.outcome()
    if outcome is not None:
        assert outcome.winner is not None
        return outcome.winner
    return "order" if order_wins(after.x, after.o, {}) else "chaos"


# --- the player contract --------------------------------------------------------------------------


def test_search_is_the_search_player() -> None:
    bot = make_player("search:depth=1", GAME)
    assert isinstance(bot, OrderChaosSearch)
    assert bot.spec == "search:depth=1"
    assert isinstance(make_player("search:time=0.5", GAME), OrderChaosSearch)


@pytest.mark.slow
def test_search_is_legal_along_random_games() -> None:
    """Over a thousand positions of random games, each side's search answers legally."""
    bot = OrderChaosSearch(GAME, depth=1)
    play = random.Random(7)
    positions = 0
    while positions < 1200:
        state: State = GAME.initial_state()
        while state.outcome() is None:
            before = state.position()
            move = bot.choose(state, random.Random(positions))
            assert move in state.legal_moves()
            assert state.position() == before
            positions += 1
            state = state.apply(play.choice(state.legal_moves()))


@pytest.mark.parametrize(
    "text",
    ["6/6/6/6/6/6 order", "6/6/2XO2/2OX2/6/6 order", "6/1O4/2XXO1/1O1X2/3X2/O5 order"],
)
def test_search_is_reproducible_for_a_seed_and_depth(text: str) -> None:
    for seed in (1, 2):
        moves = {choose(text, depth=3, seed=seed) for _ in range(2)}
        assert len(moves) == 1


def test_search_breaks_ties_with_the_rng() -> None:
    # The empty board has symmetric equals: different seeds pick different ones.
    moves = {choose("6/6/6/6/6/6 order", depth=1, seed=seed) for seed in range(12)}
    assert len(moves) > 1


def test_search_respects_its_time_budget() -> None:
    state = position("6/1O4/2XXO1/1O1X2/3X2/O5 order")
    for text in ("6/6/6/6/6/6 order", "6/1O4/2XXO1/1O1X2/3X2/O5 order", state.position()):
        start = time.perf_counter()
        move = OrderChaosSearch(GAME, time=0.2).choose(position(text), random.Random(0))
        assert time.perf_counter() - start < 1.0
        assert move in position(text).legal_moves()
    # A running clock cuts the budget to a twentieth of the time left.
    start = time.perf_counter()
    OrderChaosSearch(GAME, time=30.0).choose(state, random.Random(0), time_left=2.0)
    assert time.perf_counter() - start < 1.0
    start = time.perf_counter()
    move = OrderChaosSearch(GAME, time=30.0).choose(state, random.Random(0), time_left=0.0)
    assert time.perf_counter() - start < 1.0
    assert move in state.legal_moves()


@pytest.mark.parametrize(
    "text", ["6/6/6/3X2/6/6 chaos", "6/6/2XO2/2OX2/2X3/6 chaos", "6/1O4/2XXO1/1O1X2/3X2/6 chaos"]
)
def test_chaos_with_a_time_budget_plays_its_two_ply_move(text: str) -> None:
    # Deeper searches defend worse against fallible Orders (docs/bots-orderchaos.md).
    timed = OrderChaosSearch(GAME, time=5.0).choose(position(text), random.Random(3))
    assert str(timed) == choose(text, depth=2, seed=3)


def test_search_refuses_finished_games() -> None:
    from abstractgames import IllegalMoveError

    with pytest.raises(IllegalMoveError, match="no move to choose"):
        OrderChaosSearch(GAME, depth=1).choose(position("6/6/6/6/6/XXXXX1 chaos"), random.Random())


# --- tactics --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "wins"),
    [
        ("6/6/6/6/OO4/1XXXX1 order", {"X@a1", "X@f1"}),
        ("6/6/6/6/XX4/1OOOO1 order", {"O@a1", "O@f1"}),
        ("6/6/6/6/OOO3/XXX1XX order", {"X@d1"}),  # six in a row counts
        ("O5/1O4/2O3/6/4O1/X1XXO1 order", {"O@d3"}),  # a diagonal
    ],
)
def test_order_completes_a_line(text: str, wins: set[str]) -> None:
    for depth in (1, 3):
        assert choose(text, depth) in wins


@pytest.mark.parametrize(
    ("text", "block"),
    [
        ("6/6/6/6/O5/XXXX2 chaos", "O@e1"),
        ("6/6/6/6/X5/OOOO2 chaos", "X@e1"),
        ("6/6/6/6/O5/XX1XX1 chaos", "O@c1"),
        ("X5/X5/6/X5/X5/O5 chaos", "O@a4"),
    ],
)
def test_chaos_blocks_a_four_with_the_other_symbol(text: str, block: str) -> None:
    for depth in (1, 3):
        assert choose(text, depth) == block


def test_order_makes_an_open_four_and_wins() -> None:
    state = position("6/6/6/6/O5/1XXX2 order")
    move = choose(state.position(), depth=2)
    assert move == "X@e1"  # b1-e1: Chaos cannot stop both a1 and f1
    state = state.apply(move)
    assert isinstance(state, OrderChaosState)
    for reply in state.legal_moves():
        after = state.apply(reply)
        if after.outcome() is None:
            assert after.apply(choose(after.position(), depth=1)).outcome().winner == "order"  # type: ignore[union-attr]


def test_chaos_stops_an_open_three_where_it_must() -> None:
    # Row 1 (b1-d1) and column e (e2-e4) both threaten an open four; only O@e1 stops both.
    assert choose("O5/6/4X1/4X1/4X1/1XXX2 chaos", depth=2) == "O@e1"


@pytest.mark.parametrize("depth", [2, 9])
def test_chaos_finds_its_only_saving_move(depth: int) -> None:
    # Exhaustive minimax: every Chaos move but X@e3 loses.
    state = position("XX1X1X/XOXOO1/OXOOO1/XXOO2/XXXXO1/XO1X1X chaos")
    assert choose(state.position(), depth) == "X@e3"
    assert winner_after(state, "X@e3") == "chaos"


@pytest.mark.parametrize(
    "text",
    [
        "1O3O/OXO2O/OXXXOX/1OXXOX/XOOX1O/OX1O1O order",
        "1XOOOX/OOOOX1/1XOO1X/1XXO2/XXOXXO/3XXX order",
    ],
)
def test_order_finds_a_win_in_three_moves(text: str) -> None:
    """Order wins in three of its moves and no fewer (exhaustive minimax); depth 5 sees it."""
    state = position(text)
    chaos = OrderChaosSearch(GAME, depth=5)
    while state.outcome() is None:
        if state.to_move == "order":
            move = choose(state.position(), depth=5)
            assert winner_after(state, move) == "order", (state.position(), move)
        else:
            move = str(chaos.choose(state, random.Random(0)))
        after = state.apply(move)
        assert isinstance(after, OrderChaosState)
        state = after
    assert state.outcome().winner == "order"  # type: ignore[union-attr]


def test_chaos_does_not_make_a_four_itself() -> None:
    # Any X on the free end squares of d2-d4 or in b2-d2 would hand Order a four.
    state = position("O5/6/3X2/3X2/1XXX2/O5 chaos")
    move = choose(state.position(), depth=2)
    after = state.apply(move)
    assert isinstance(after, OrderChaosState)
    assert not any(
        ((after.x & w).bit_count() == 4 and not after.o & w)
        or ((after.o & w).bit_count() == 4 and not after.x & w)
        for w in WINDOWS
    )


def endgames(count: int, empties: int, seed: int) -> list[OrderChaosState]:
    """Random positions with ``empties`` empty squares, no four and a window still live."""
    rng = random.Random(seed)
    found: list[OrderChaosState] = []
    while len(found) < count:
        state = position("6/6/6/6/6/6 order")
        while state.outcome() is None and (state.x | state.o).bit_count() < 36 - empties:
            after = state.apply(rng.choice(state.legal_moves()))
            assert isinstance(after, OrderChaosState)
            state = after
        if state.outcome() is not None:
            continue
        x, o = state.x, state.o
        live = [w for w in WINDOWS if not (x & w and o & w)]
        if live and all(max((x & w).bit_count(), (o & w).bit_count()) < 4 for w in live):
            found.append(state)
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("empties", "seed"), [(8, 1), (9, 2), (10, 3)])
def test_search_plays_won_endgames_perfectly(empties: int, seed: int) -> None:
    """At full depth the search keeps every won endgame won (checked by exhaustive minimax)."""
    memo: dict[int, bool] = {}
    won = [
        state
        for state in endgames(40, empties, seed)
        if order_wins(state.x, state.o, memo) == (state.to_move == "order")
    ][:6]
    assert len(won) == 6
    for state in won:
        move = choose(state.position(), depth=empties)
        assert winner_after(state, move) == state.to_move, (state.position(), move)
