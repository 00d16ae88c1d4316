"""Dispersal in a batch (`abstractgames.vector.dispersal`): the history of every lane, so that
repetition draws come at the same ply as in the protocol."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import State, get_game
from tests.support.batches import LANES, advance, assert_same, batch_of, play_choices

# --- dispersal's repetition draws ---------------------------------------------------------------


FEW = "3SS/5/5/5/OO3 O"


def test_dispersal_threefold_repetition_is_a_draw_at_the_same_ply() -> None:
    game = get_game("dispersal")
    batch = batch_of("dispersal", lanes=2)
    start = game.from_position(FEW)
    batch.set_states([start, start])
    state = start
    cycle = [5, 619, 125, 499]  # a1-a2, e5-e4, a2-a1, e4-e5: back to the start
    for action in cycle * 2:
        assert not batch.done.any()
        batch.step([action, action])
        state = state.apply_action(action)
        assert_same(batch, [state, state])
    assert state.outcome() is not None
    assert state.outcome().reason == "threefold repetition"  # type: ignore[union-attr]
    assert batch.done.all() and (batch.returns() == 0).all()


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    choices=st.lists(st.tuples(st.integers(0, 3), st.just(0)), min_size=1, max_size=60),
    seed=st.integers(0, 2**16),
)
def test_dispersal_repetitions_from_sparse_positions(
    choices: list[tuple[int, int]], seed: int
) -> None:
    """Few pieces and small choices: positions repeat often; the batch agrees at every ply."""
    game = get_game("dispersal", max_plies=40)
    batch = batch_of("dispersal:max_plies=40", seed=seed)
    states: list[State] = [game.from_position(FEW)] * LANES
    batch.set_states(states)
    assert_same(batch, states)
    play_choices(batch, states, choices, seed)


def test_set_states_keeps_a_dispersal_history() -> None:
    game = get_game("dispersal")
    state = game.from_position(FEW)
    for action in [5, 619, 125, 499, 5]:
        state = state.apply_action(action)
    batch = batch_of("dispersal", lanes=1)
    batch.set_states([state])
    (back,) = batch.to_states()
    assert back.history() == state.history()  # type: ignore[attr-defined]
    batch.step([619])
    assert_same(batch, [state.apply_action(619)])


@pytest.mark.parametrize("start", [FEW, "SS1SS/S3S/5/O3O/OO1OO O", None])
def test_dispersal_back_and_forth_games_reach_repetition_draws(start: str | None) -> None:
    """Players who often undo their last move repeat positions; the batch follows every ply."""
    game = get_game("dispersal", max_plies=60)
    lanes = 8
    batch = batch_of("dispersal:max_plies=60", lanes=lanes, seed=5)
    first = game.initial_state() if start is None else game.from_position(start)
    states: list[State] = [first] * lanes
    batch.set_states(states)
    rng = random.Random(5)
    lasts = [[-1, -1] for _ in range(lanes)]
    while not batch.done.all():
        actions = []
        for lane, state in enumerate(states):
            if state.outcome() is not None:
                actions.append(0)
                continue
            side = 0 if state.to_move == "O" else 1
            previous = lasts[lane][side]
            back = previous % 25 * 25 + previous // 25 if 0 <= previous < 625 else -1
            moves = state.legal_actions()
            action = back if back in moves and rng.random() < 0.8 else rng.choice(moves)
            lasts[lane][side] = action
            actions.append(action)
        batch.step(actions)
        states = [advance(s, a, -1) for s, a in zip(states, actions, strict=True)]
        assert_same(batch, states)
    reasons = {s.outcome().reason for s in states}  # type: ignore[union-attr]
    assert "threefold repetition" in reasons
