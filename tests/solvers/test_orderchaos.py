"""The Order and Chaos solver (`abstractgames.solvers.orderchaos`): exact against a plain
minimax over the engine's rules, its symmetries, table bound, checkpoints and strategies."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import get_game
from abstractgames.orderchaos import FULL, SIZE, OrderChaosGame, OrderChaosState
from abstractgames.solvers import Solution
from abstractgames.solvers.orderchaos import (
    METHODS,
    TRANSFORMS,
    CheckpointError,
    canonical_key,
    solve,
)
from tests.conftest import examples

GAME = OrderChaosGame()


_FEWEST: dict[tuple[int, int], int | None] = {}
"""The values `fewest` found, by position: its two bitboards (the side to move follows from the
count of pieces), which are cheaper to key on than the position's text."""


def fewest(state: OrderChaosState) -> int | None:
    """Plain minimax: the fewest Order moves to a forced win from `state`, or None."""
    key = (state.x, state.o)
    if key in _FEWEST:
        return _FEWEST[key]
    order = state.to_move == "order"
    best: int | None = None
    for move in state.legal_moves():
        child = state.apply(move)
        outcome = child.outcome()
        if outcome is not None:
            value = (1 if order else 0) if outcome.winner == "order" else None
        else:
            after = fewest(child)
            value = None if after is None else after + order
        if order:
            if value is not None and (best is None or value < best):
                best = value
        else:
            if value is None:
                best = None
                break
            best = value if best is None else max(best, value)
    _FEWEST[key] = best
    return best


@st.composite
def positions(draw: st.DrawFn, max_empty: int = 10) -> OrderChaosState:
    """An unfinished position with at most `max_empty` empty squares (a random game from the
    start, the pieces placed in a random order so that no five stands)."""
    seed = draw(st.integers(0, 2**32 - 1))
    empty = draw(st.integers(1, max_empty))
    rng = random.Random(seed)
    while True:
        state = GAME.initial_state()
        while (FULL & ~(state.x | state.o)).bit_count() > empty:
            moves = [m for m in state.legal_moves() if state.apply(m).outcome() is None]
            if not moves:
                break
            state = state.apply(rng.choice(moves))
        else:
            return state


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=examples(20))
@given(state=positions())
def test_the_solver_agrees_with_plain_minimax(state: OrderChaosState, method: str) -> None:
    expected = fewest(state)
    solution = solve(state, 18, method=method)
    assert solution.moves == expected
    assert solution.holds == (expected is None)
    assert solution.complete


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=examples(30))
@given(state=positions(max_empty=8), n=st.integers(1, 3))
def test_the_depth_bound_is_exact(state: OrderChaosState, n: int, method: str) -> None:
    expected = fewest(state)
    solution = solve(state, n, method=method)
    assert solution.moves == (expected if expected is not None and expected <= n else None)


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=examples(15))
@given(state=positions(max_empty=10))
def test_the_longest_resistance_is_exact(state: OrderChaosState, method: str) -> None:
    # The principal variation's Chaos moves put the win off longest: the line's length in
    # Order moves is the minimax value, and each Chaos move keeps it.
    solution = solve(state, 18, method=method)
    if not solution.won:
        return
    for move in solution.line:
        if state.to_move == "chaos" and state.apply(move).outcome() is None:
            assert fewest(state.apply(move)) == fewest(state)
        state = state.apply(move)


@settings(max_examples=examples(20))
@given(positions(max_empty=8))
def test_the_line_is_played_through_to_the_win(state: OrderChaosState) -> None:
    solution = solve(state, 18, method="pn")
    if not solution.won:
        return
    orders = 0
    for move in solution.line:
        assert state.outcome() is None
        orders += state.to_move == "order"
        state = state.apply(move)
    assert state.outcome() is not None and state.outcome().winner == "order"  # type: ignore[union-attr]
    assert orders == solution.moves


@pytest.mark.parametrize("method", METHODS)
def test_hand_made_table(method: str) -> None:
    cases = [
        ("6/6/6/6/6/XXXX2 order", 1, "X@e1"),
        ("6/6/6/6/6/OOOO2 order", 1, "O@e1"),
        ("6/6/3X2/2X3/1X4/X5 order", 1, "X@e5"),  # a diagonal
        ("6/6/6/6/6/1XXXX1 order", 1, "X@a1"),  # two ways; the first found
        ("6/6/6/6/6/1XXX2 chaos", None, None),  # Chaos closes the three at once
    ]
    for position, moves, first in cases:
        state = GAME.from_position(position)
        solution = solve(state, 2, method=method)
        assert solution.moves == moves, position
        if first is not None:
            assert str(solution.line[0]) == first, position


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    ("position", "expected"),
    [
        # Chaos to move facing two threats on different squares: Order wins next move.
        ("XXXX2/6/6/6/5X/OOOO2 chaos", 1),
        ("XXXX2/6/6/6/6/OOOO1X chaos", 1),
        # One square wanted by both symbols (X across, O down): Chaos cannot fill it.
        ("XXXX2/4O1/4O1/4O1/4O1/4X1 chaos", 1),
        # One threat: Chaos blocks it, and with one Order move left nothing else wins.
        ("XXXX2/6/6/6/6/5O chaos", None),
        # The last square makes five whatever Chaos puts there: Order wins in no move.
        ("XOOOXO/XXOXXX/XXOXOX/XOXXOO/1OOOOX/XXOOXX chaos", 0),
    ],
)
def test_threats(position: str, expected: int | None, method: str) -> None:
    assert solve(GAME.from_position(position), 1, method=method).moves == expected


@pytest.mark.parametrize("method", METHODS)
def test_nearly_full_boards_are_exact(method: str) -> None:
    for position in (
        "XOXOXO/XOXOXO/OXOXOX/OXOXOX/XOXOXO/XOXOX1 chaos",
        "XOXOXO/XOXOXO/OXOXOX/OXOXOX/XOXOXO/XOXO2 order",
    ):
        state = GAME.from_position(position)
        expected = fewest(state)
        solution = solve(state, 18, method=method)
        assert solution.moves == expected and solution.holds == (expected is None)


@settings(max_examples=examples(30))
@given(st.integers(0, 2**SIZE - 1), st.integers(0, 2**SIZE - 1), st.integers(0, 7))
def test_canonical_keys_are_invariant(a: int, b: int, t: int) -> None:
    x, o = a & ~b, b & ~a
    perm = TRANSFORMS[t]
    tx = sum(1 << perm[sq] for sq in range(SIZE) if x >> sq & 1)
    to = sum(1 << perm[sq] for sq in range(SIZE) if o >> sq & 1)
    key = canonical_key(x, o)
    assert key == canonical_key(tx, to) == canonical_key(to, tx)
    assert key <= (x | o << SIZE)


def test_the_transforms_are_the_eight_symmetries() -> None:
    assert len({tuple(p) for p in TRANSFORMS}) == 8
    assert TRANSFORMS[0] == list(range(SIZE))
    for perm in TRANSFORMS:
        assert sorted(perm) == list(range(SIZE))


@pytest.mark.parametrize("method", METHODS)
def test_a_small_table_still_gives_exact_answers(method: str) -> None:
    state = GAME.from_position("X1O1XX/OO1O2/XX3X/1OXX1O/XO2O1/2OXXX chaos")
    solution = solve(state, 18, memory=0.05, method=method)  # 2,200 to 3,600 entries unbounded
    assert solution.holds and solution.table is not None and solution.table.entries <= 1000


def test_progress_and_time_limit() -> None:
    steps: list[object] = []
    solution = solve(GAME.initial_state(), 18, 0.5, progress=steps.append, method="pn")
    assert not solution.complete and solution.moves is None
    assert solution.searched == len(steps) >= 1
    assert "no forced win for Order within 1 move " in str(steps[0])
    assert "undecided within 18" in str(solution)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="positive integer"):
        solve(GAME.initial_state(), 0)
    with pytest.raises(ValueError, match="game is over"):
        solve(GAME.from_position("6/6/6/6/6/XXXXX1 chaos"), 1)
    with pytest.raises(ValueError, match="Order and Chaos positions"):
        solve(get_game("dispersal").initial_state(), 1)
    with pytest.raises(ValueError, match="method='magic' must be one of auto, pn"):
        solve(GAME.initial_state(), 1, method="magic")


def test_checkpoints_resume_and_are_checked(tmp_path: Path) -> None:
    path = tmp_path / "work.ckpt"
    state = GAME.from_position("X1O1XX/OO1O2/XX3X/1OXX1O/XO2O1/2O1XX order")
    first = solve(state, 18, checkpoint=str(path))
    assert path.exists()
    again = solve(state, 18, checkpoint=str(path))
    assert again == first and again.nodes < first.nodes
    with pytest.raises(CheckpointError, match="is for"):
        solve(GAME.initial_state(), 1, checkpoint=str(path), method="pn")
    data = path.read_bytes()
    path.write_bytes(data[:8] + b"\x09\x00" + data[10:])
    with pytest.raises(CheckpointError, match="version 9"):
        solve(state, 18, checkpoint=str(path))
    path.write_bytes(b"nonsense")
    with pytest.raises(CheckpointError, match="not an Order and Chaos solver checkpoint"):
        solve(state, 18, checkpoint=str(path))
    path.write_bytes(data[:-5])
    with pytest.raises(CheckpointError, match="damaged"):
        solve(state, 18, checkpoint=str(path))


def test_a_checkpoint_of_an_empty_table_is_resumed(tmp_path: Path) -> None:
    """A win at once leaves the table empty: its checkpoint, a stream of nothing, reads back
    (it used to be refused as cut short; the solver kit's `honours_its_options` found it)."""
    path = tmp_path / "work.ckpt"
    state = GAME.from_position("6/6/6/6/6/XXXX2 order")
    first = solve(state, 3, checkpoint=str(path))
    assert path.exists() and first.table is not None and first.table.entries == 0
    assert solve(state, 3, checkpoint=str(path)) == first


def test_str() -> None:
    solution = solve(GAME.from_position("6/6/6/6/6/XXXX2 order"), 3)
    assert isinstance(solution, Solution)
    assert str(solution) == "Order wins in 1 move: X@e1"
    assert solution.winner == "order"


@pytest.mark.parametrize("method", ["pn", "pn-deepening"])
def test_proof_number_checkpoints_resume(tmp_path: Path, method: str) -> None:
    path = tmp_path / "work.ckpt"
    state = GAME.from_position("X1O1XX/OO1O2/XX3X/1OXX1O/XO2O1/2O1XX order")
    first = solve(state, 18, checkpoint=str(path), method=method)
    again = solve(state, 18, checkpoint=str(path), method=method)
    assert again == first and again.nodes < first.nodes
    # The table of one method is read by the others.
    assert solve(state, 18, checkpoint=str(path), method="deepening") == first


def test_version_1_checkpoints_are_still_read(tmp_path: Path) -> None:
    import zlib

    state = GAME.from_position("X1O1XX/OO1O2/XX3X/1OXX1O/XO2O1/2O1XX order")
    root = state.position().encode()
    # One entry, as the plain search of version 1 wrote it: the empty board, "no win within 3".
    body = (0).to_bytes(9, "little") + (3 << 5 | 31).to_bytes(2, "little")
    path = tmp_path / "old.ckpt"
    path.write_bytes(
        b"AGOCCKPT"
        + (1).to_bytes(2, "little")
        + len(root).to_bytes(2, "little")
        + root
        + zlib.compress(body)
    )
    assert solve(state, 18, checkpoint=str(path)).holds
    assert path.read_bytes()[8:10] == (2).to_bytes(2, "little")  # saved again as version 2
    bad = (1 | 1 << 36).to_bytes(9, "little") + (0).to_bytes(11, "little")  # a1 X and O
    path.write_bytes(
        b"AGOCCKPT"
        + (2).to_bytes(2, "little")
        + len(root).to_bytes(2, "little")
        + root
        + zlib.compress(bad)
    )
    with pytest.raises(CheckpointError, match="entry 0 is no position"):
        solve(state, 18, checkpoint=str(path))


def test_proven_moves() -> None:
    from abstractgames.solvers.orderchaos import ProvenMoves

    best = ProvenMoves()
    win = best(GAME.from_position("O3O1/OXX3/1OO1XX/XX1X1X/XO1XOO/3O1O order"))
    assert win is not None and (win.winner, win.moves) == ("order", 5)
    assert best(GAME.from_position("X1O1XX/OO1O2/XX3X/1OXX1O/XO2O1/2O1XX order"), 10) is None
    with pytest.raises(ValueError, match="no move to prove"):
        best(GAME.from_position("6/6/6/6/6/XXXXX1 chaos"))


def test_a_stopped_search_says_which_bound_it_was_on() -> None:
    solution = solve(GAME.initial_state(), 18, 0.5, method="pn-deepening")
    assert f"stopped the search at {solution.searched + 1}" in str(solution)
    assert solution.stopped_at == solution.searched + 1


# --- checkpoints are read like every file we are given ---------------------------------------

HOLD = "X1O1XX/OO1O2/XX3X/1OXX1O/XO2O1/2O1XX order"  # Chaos holds: 13,894 entries in the table


@pytest.fixture(scope="module")
def hold_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The checkpoint of solving HOLD (made once: the search takes half a second)."""
    path = tmp_path_factory.mktemp("checkpoint") / "work.ckpt"
    solve(GAME.from_position(HOLD), 18, checkpoint=str(path), method="pn")
    return path.read_bytes()


def _rewritten(path: Path, value_of: Any) -> None:
    """The checkpoint at `path` with each entry's value replaced by `value_of(key, value)`."""
    import zlib

    data = path.read_bytes()
    length = int.from_bytes(data[10:12], "little")
    head, body = data[: 12 + length], zlib.decompress(data[12 + length :])
    entries = bytearray()
    for i in range(0, len(body), 20):
        key, value = body[i : i + 9], int.from_bytes(body[i + 9 : i + 20], "little")
        entries += key + value_of(int.from_bytes(key, "little"), value).to_bytes(11, "little")
    path.write_bytes(head + zlib.compress(bytes(entries)))


@pytest.mark.parametrize("state", [HOLD, "XOO1XX/1XXXO1/2OOO1/OO3O/OX1OXX/1X1O2 order"])
def test_a_checkpoint_with_every_value_zeroed_is_refused_on_load(
    state: str, tmp_path: Path, hold_checkpoint: bytes
) -> None:
    path = tmp_path / "work.ckpt"
    if state == HOLD:
        path.write_bytes(hold_checkpoint)
    else:  # Order wins: a table of one entry
        solve(GAME.from_position(state), 18, checkpoint=str(path), method="pn")
    _rewritten(path, lambda key, value: 0)
    with pytest.raises(CheckpointError, match=r"checkpoint '.*work.ckpt' is damaged: entry 0 "):
        solve(GAME.from_position(state), 18, checkpoint=str(path), method="pn")


@pytest.mark.parametrize(
    ("value", "wrong"),
    [
        (0, "a win within 0"),
        (19, "a win within 19"),
        (31 | 19 << 5, "no win within 19"),
        (5 | 5 << 5, "a win within 5 and none within 5"),
        (31 | 3 << 10, "search numbers without both"),
        (31 | 3 << 10 | 1 << 15, "search numbers without both"),
        (31 | 19 << 10 | 1 << 15 | 1 << 48, "search numbers for 19"),
        (31 | 3 << 10 | (1 << 32) << 15 | 1 << 48, "search numbers out of range"),
        (31 | 1 << 15, "search numbers for no bound"),
    ],
)
def test_each_value_of_a_checkpoint_is_checked(
    value: int, wrong: str, tmp_path: Path, hold_checkpoint: bytes
) -> None:
    path = tmp_path / "work.ckpt"
    path.write_bytes(hold_checkpoint)
    first = True

    def spoil(key: int, old: int) -> int:
        nonlocal first
        spoilt, first = value if first else old, False
        return spoilt

    _rewritten(path, spoil)
    with pytest.raises(CheckpointError, match=f"entry 0 .*{wrong}"):
        solve(GAME.from_position(HOLD), 18, checkpoint=str(path), method="pn")


def test_a_checkpoint_whose_plausible_values_lie_is_refused_not_asserted(
    tmp_path: Path, hold_checkpoint: bytes
) -> None:
    # Every position "won within 1": each value in range, but no such win exists.
    path = tmp_path / "work.ckpt"
    path.write_bytes(hold_checkpoint)
    _rewritten(path, lambda key, value: 1)
    with pytest.raises(CheckpointError, match=r"'.*work.ckpt' .*contradict"):
        solve(GAME.from_position(HOLD), 18, checkpoint=str(path), method="pn")


@pytest.mark.parametrize("kind", ["fifo", "directory"])  # /dev/zero: tests/cli/test_solve.py
def test_a_checkpoint_that_is_not_a_regular_file_is_refused_unread(
    kind: str, tmp_path: Path
) -> None:
    from tests.support.hostile_files import without_blocking

    path = tmp_path / "work.ckpt"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    state = GAME.from_position(HOLD)
    with pytest.raises(CheckpointError, match=r"checkpoint '.*work.ckpt': .*not a regular file"):
        without_blocking(lambda: solve(state, 18, checkpoint=str(path), method="pn"), path)


def test_a_checkpoint_that_is_a_compression_bomb_is_refused_in_bounded_memory(
    tmp_path: Path,
) -> None:
    import time
    import tracemalloc

    from tests.support.hostile_files import zlib_bomb

    path = tmp_path / "work.ckpt"
    root = HOLD.encode()
    header = b"AGOCCKPT" + (2).to_bytes(2, "little") + len(root).to_bytes(2, "little") + root
    path.write_bytes(header + zlib_bomb())  # four gigabytes of entries
    started = time.monotonic()
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError, match=r"'.*work.ckpt' .*more than the 9,090 entries"):
            solve(GAME.from_position(HOLD), 18, memory=1, checkpoint=str(path), method="pn")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000 and time.monotonic() - started < 10


def test_a_checkpoint_larger_than_the_table_is_refused(
    tmp_path: Path, hold_checkpoint: bytes
) -> None:
    path = tmp_path / "work.ckpt"
    state = GAME.from_position(HOLD)
    path.write_bytes(hold_checkpoint)  # 13,894 entries
    with pytest.raises(CheckpointError, match=r"more than the 9,090 entries a table of 1 MB holds"):
        solve(state, 18, memory=1, checkpoint=str(path), method="pn")
    assert solve(state, 18, memory=2, checkpoint=str(path), method="pn").holds


@pytest.mark.parametrize("memory", [float("inf"), float("nan"), -1.0, 0.0])
def test_the_memory_must_be_a_finite_positive_number(memory: float) -> None:
    with pytest.raises(ValueError, match="must be a positive number of MB"):
        solve(GAME.from_position(HOLD), 1, memory=memory)


def test_a_checkpoint_that_cannot_be_written_is_refused_before_the_search(tmp_path: Path) -> None:
    state = GAME.from_position(HOLD)
    with pytest.raises(CheckpointError, match=r"cannot write checkpoint '.*missing/work.ckpt'"):
        solve(state, 18, 1.0, checkpoint=str(tmp_path / "missing" / "work.ckpt"))
