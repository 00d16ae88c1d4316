"""The batched simulators play exactly the rules of the scalar protocol (`abstractgames.vector`).

Hypothesis drives a batch and one protocol state per lane with the same actions (and the same
chance outcomes), and compares every lane after every step: the position, the legal actions, the
outcome, the returns and the observation. The simulators' own policies and dispersal's history
have their tests beside their games in tests/vector/.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abstractgames import CHANCE, parse_game_spec
from abstractgames.vector import BatchSimulator, play_out, uniform_from_mask
from tests.support.batches import advance, assert_same, batch_of, first_states, play_choices

SPECS = ["orderchaos", "entropy", "entropy:size=5", "dispersal", "dispersal:max_plies=24"]
FAST = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


# --- every lane is the protocol state it stands for -----------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
@FAST
@given(
    choices=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 6)), min_size=1, max_size=100),
    seed=st.integers(0, 2**16),
)
def test_the_batch_plays_the_rules_of_the_protocol(
    spec: str, choices: list[tuple[int, int]], seed: int
) -> None:
    batch = batch_of(spec, seed=seed)
    states = first_states(batch)
    assert_same(batch, states)
    play_choices(batch, states, choices, seed)


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=6, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**16))
def test_random_games_to_the_end_agree_with_the_protocol(spec: str, seed: int) -> None:
    """Random actions and draws of the batch itself, replayed through the protocol."""
    batch = batch_of(spec, lanes=4, seed=seed)
    states = first_states(batch)
    while not batch.done.all():
        actions = batch.random_actions()
        live = ~batch.done
        assert batch.legal_action_mask()[live.nonzero()[0], actions[live]].all()
        batch.step(actions)
        draws = getattr(batch, "last_draw", np.full(batch.batch_size, -1))
        states = [
            advance(s, int(a), int(d)) for s, a, d in zip(states, actions, draws, strict=True)
        ]
        assert_same(batch, states)


# --- shared behaviour -----------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_the_same_seed_gives_the_same_games(spec: str) -> None:
    def run(seed: int) -> list[str]:
        batch = batch_of(spec, lanes=8, seed=seed)
        play_out(batch)
        return [s.position() for s in batch.to_states()]

    assert run(7) == run(7)
    assert run(7) != run(8)


@pytest.mark.parametrize("spec", SPECS)
def test_reset_done_restarts_finished_lanes_only(spec: str) -> None:
    batch = batch_of(spec, lanes=16, seed=3)
    while not batch.done.any():
        batch.step(batch.random_actions())
    finished = batch.done.copy()
    before = batch.to_states()
    assert batch.reset_done() == int(finished.sum())
    assert not batch.done.any()
    after = batch.to_states()
    start = batch.game.initial_state()
    for lane in range(16):
        if finished[lane]:
            assert after[lane].outcome() is None
            if start.to_move != CHANCE:
                assert after[lane] == start
        else:
            assert after[lane].position() == before[lane].position()


@pytest.mark.parametrize("spec", SPECS)
def test_illegal_actions_are_refused(spec: str) -> None:
    batch = batch_of(spec, lanes=2)
    mask = batch.legal_action_mask()
    illegal = np.flatnonzero(~mask[1])
    bad = int(illegal[0]) if illegal.size else batch.num_actions
    with pytest.raises(ValueError, match="lane 1"):
        batch.step([int(np.flatnonzero(mask[0])[0]), bad])
    with pytest.raises(ValueError):
        batch.step([0])


def snapshot(batch: BatchSimulator) -> dict[str, object]:
    """Every array of the batch, copied, and its generator's state."""
    found: dict[str, object] = {
        name: value.copy() for name, value in vars(batch).items() if isinstance(value, np.ndarray)
    }
    found["rng"] = batch.rng.bit_generator.state
    return found


def assert_unchanged(batch: BatchSimulator, before: dict[str, object]) -> None:
    after = snapshot(batch)
    assert after.keys() == before.keys()
    for name, value in before.items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(after[name], value), name  # type: ignore[arg-type]
        else:
            assert after[name] == value, name


@pytest.mark.parametrize("spec", SPECS)
def test_step_checks_the_playing_lanes_against_the_mask(spec: str) -> None:
    """Among finished lanes, skipping lanes and lanes that play, `step` refuses an illegal action
    (outside the mask, or out of range) in a lane that plays, names the first such lane (the
    first out of range if any) and changes nothing; finished and skipping lanes are not checked,
    and a step where no lane plays moves no lane."""
    lanes = 8
    batch = batch_of(spec, lanes=lanes, seed=5)
    rng = np.random.default_rng(5)
    refused = 0
    for _ in range(60):
        if batch.done.all():
            batch.reset_done()
        mask = batch.legal_action_mask()
        actions = batch.random_actions()
        actions[rng.random(lanes) < 0.3] = -1
        actions[batch.done] = batch.num_actions + 3  # finished lanes ignore theirs
        playing = np.flatnonzero(~batch.done & (actions >= 0))
        if playing.size:
            bad = np.sort(rng.choice(playing, size=min(2, playing.size), replace=False))
            wrong = actions.copy()
            for lane in bad:
                illegal = np.flatnonzero(~mask[lane])
                pick = rng.integers(illegal.size + 1)
                wrong[lane] = illegal[pick] if pick < illegal.size else batch.num_actions
            before = snapshot(batch)
            out = bad[wrong[bad] >= batch.num_actions]  # out of range: named first
            first = int(out[0] if out.size else bad[0])
            message = rf"^illegal action {wrong[first]} in lane {first}$"
            with pytest.raises(ValueError, match=message):
                batch.step(wrong)
            assert_unchanged(batch, before)
            refused += 1
        positions = [state.position() for state in batch.to_states()]
        batch.step(np.full(lanes, -1))
        assert [state.position() for state in batch.to_states()] == positions
        batch.step(actions)
    assert refused > 30


@pytest.mark.parametrize("spec", SPECS)
def test_set_states_round_trips(spec: str) -> None:
    game = parse_game_spec(spec)
    rng = random.Random(1)
    states = []
    for length in (0, 5, 17):
        state = game.initial_state()
        for _ in range(length):
            if state.outcome() is not None:
                break
            state = state.apply_action(rng.choice(state.legal_actions()))
        if state.to_move == CHANCE:
            state = state.apply_action(state.legal_actions()[0])
        states.append(state)
    batch = batch_of(spec)
    batch.set_states(states)
    assert_same(batch, states)


@pytest.mark.parametrize(
    ("spec", "first"),
    [("entropy:size=5", 12), ("entropy", 24), ("dispersal", 136), ("orderchaos", 28)],
)
def test_random_actions_are_uniform_over_the_legal_actions(spec: str, first: int) -> None:
    lanes = 20_000
    batch = batch_of(spec, lanes=lanes, seed=2)
    batch.step(np.full(lanes, first))  # the same first move in every lane
    counts = np.bincount(batch.random_actions(), minlength=batch.num_actions)
    legal_actions = np.flatnonzero(batch.legal_action_mask()[0])
    assert set(np.flatnonzero(counts)) == set(legal_actions)
    expected = lanes / legal_actions.size
    assert (np.abs(counts[legal_actions] - expected) < 5 * np.sqrt(expected)).all()


def test_uniform_from_mask() -> None:
    mask = np.array([[False, True, True], [False, False, False]])
    picks = uniform_from_mask(mask, np.random.default_rng(0))
    assert picks[0] in (1, 2) and picks[1] == -1


def test_bytes_per_lane() -> None:
    assert batch_of("orderchaos").bytes_per_lane < 200
    assert batch_of("dispersal").bytes_per_lane > 8 * 201  # the history row


@pytest.mark.parametrize("spec", SPECS)
def test_tile_copies_states_and_draws_chance_afresh(spec: str) -> None:
    game = parse_game_spec(spec)
    state = game.initial_state()
    rng = random.Random(2)
    for _ in range(6):
        state = state.apply_action(rng.choice(state.legal_actions()))
    if state.to_move != CHANCE and game.max_chance_outcomes:
        state = state.apply_action(state.legal_actions()[-1])  # Order passes: a draw is due
    other = game.initial_state()
    batch = batch_of(spec, lanes=64, seed=1)
    batch.tile([state, other], 32)
    states = batch.to_states()
    if state.to_move == CHANCE:
        drawn = {s.position() for s in states[0::2]}
        assert len(drawn) > 1  # each copy drew its own counter
        for s in states[0::2]:
            assert s.position().split()[0] == state.position().split()[0]
            assert s.to_move == "chaos"
    else:
        assert all(s == state for s in states[0::2])
    assert all(s.position() == states[1].position() or s.to_move == "chaos" for s in states[1::2])
    play_out(batch)  # and the copies play on
    assert batch.done.all()
