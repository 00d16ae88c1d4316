"""The batched simulators play exactly the rules of the scalar protocol (`abstractgames.vector`).

Hypothesis drives a batch and one protocol state per lane with the same actions (and the same
chance outcomes), and compares every lane after every step: the position, the legal actions, the
outcome, the returns and the observation. The simulators' own policies and dispersal's history
have their tests beside their games in tests/vector/.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abstractgames import CHANCE, IllegalMoveError, InvalidMoveError, parse_game_spec
from abstractgames.text import value_excerpt
from abstractgames.vector import BatchSimulator, as_actions, play_out, uniform_from_mask
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
            if out.size:
                error: type[ValueError] = InvalidMoveError
                message = (
                    rf"^action {wrong[first]} in lane {first} is not in "
                    rf"0\.\.{batch.num_actions - 1} of {batch.game.spec} \(-1 skips a lane\)$"
                )
            else:
                error = IllegalMoveError
                message = rf"^illegal action {wrong[first]} in lane {first}$"
            with pytest.raises(error, match=message) as raised:
                batch.step(wrong)
            assert type(raised.value) is error
            assert_unchanged(batch, before)
            refused += 1
        positions = [state.position() for state in batch.to_states()]
        batch.step(np.full(lanes, -1))
        assert [state.position() for state in batch.to_states()] == positions
        batch.step(actions)
    assert refused > 30


NOT_ACTIONS = st.one_of(
    st.floats().filter(lambda x: not (math.isfinite(x) and x.is_integer())),  # 1.9, nan, ±inf
    st.floats(min_value=2.0**63, allow_infinity=False).map(lambda x: -x if x % 2 else x),
    st.integers(max_value=-2),  # -1 skips; less is not an action
    st.integers(min_value=2**63) | st.integers(max_value=-(2**63) - 1),  # beyond int64
    st.text(max_size=3),
    st.none(),
)
"""What `step` must refuse in any lane, whether it checks legality or not."""


@pytest.mark.parametrize("spec", SPECS)
@FAST
@given(
    bad=NOT_ACTIONS,
    lane=st.integers(0, 3),
    steps=st.integers(0, 30),
    check=st.booleans(),
    finished=st.booleans(),
)
def test_what_is_not_an_action_is_refused_naming_its_lane_and_value(
    spec: str, bad: object, lane: int, steps: int, check: bool, finished: bool
) -> None:
    """A fraction, NaN, an infinity, an integer below -1 or beyond int64, a string or None in
    one lane (a finished lane too) is refused with `InvalidMoveError`, naming that lane and the
    value, and no lane changes: nothing is truncated into an action or read as a skip."""
    batch = batch_of(spec, lanes=4, seed=steps)
    for _ in range(steps):
        batch.step(batch.random_actions())
        batch.reset_done()
    if finished:
        play_out(batch)
    actions: list[object] = [int(a) for a in batch.random_actions()]
    actions[lane] = bad
    before = snapshot(batch)
    with pytest.raises(InvalidMoveError, match=rf"^action .* in lane {lane} ") as raised:
        batch.step(actions, check=check)
    assert value_excerpt(bad) in str(raised.value)
    assert_unchanged(batch, before)


@pytest.mark.parametrize("spec", SPECS)
def test_integers_of_any_dtype_and_whole_floats_are_the_same_actions(spec: str) -> None:
    """Only the dtype differs: int8, uint16, int32 and whole floats (2.0, -1.0 to skip) play
    the same games as int64 actions; booleans, strings and complex numbers are refused."""
    runs = []
    for dtype in (
        np.int64,
        np.int8 if batch_of(spec).num_actions < 128 else np.int16,
        np.uint16,
        np.int32,
        np.float64,
        np.float32,
        object,
    ):
        batch = batch_of(spec, lanes=4, seed=9)
        rng = np.random.default_rng(9)
        for _ in range(12):
            actions = batch.random_actions()
            actions[rng.random(4) < 0.3] = -1
            if np.dtype(dtype).kind == "u":
                actions[actions < 0] = 0  # no -1 in unsigned integers: play lane's lowest
                actions = np.where(actions == 0, np.argmax(batch.legal_action_mask(), 1), actions)
            batch.step(actions.astype(dtype))
            batch.reset_done()
        runs.append([state.position() for state in batch.to_states()])
    assert runs[0] == runs[1] == runs[3] == runs[4] == runs[5] == runs[6]
    batch = batch_of(spec, lanes=3)
    for wrong in (np.ones(3, np.bool_), np.array(["0", "1", "2"]), np.zeros(3, np.complex128)):
        with pytest.raises(InvalidMoveError, match=r"^action .* in lane 0 is not an integer$"):
            batch.step(wrong)
    with pytest.raises(InvalidMoveError, match=r"^action 'x' in lane 2 is not an integer$"):
        batch.step([0, 0, "x"])
    # Before: numpy read [True, 2, 0] as [1, 2, 0], and the boolean was played as action 1.
    with pytest.raises(InvalidMoveError, match=r"^action True in lane 0 is not an integer$"):
        batch.step([True, 2, 0])
    with pytest.raises(InvalidMoveError, match=r"^action False in lane 2 is not an integer$"):
        batch.step((0, 1, np.False_))
    with pytest.raises(InvalidMoveError, match=r"in lane 1 is out of range$"):
        batch.step(np.array([0, 2**64 - 1, 0], np.uint64))
    with pytest.raises(InvalidMoveError, match=r"must have shape \(3,\), not \(3, 1\)"):
        batch.step(np.zeros((3, 1), np.int64))
    with pytest.raises(InvalidMoveError, match="one integer per lane"):
        batch.step([0, [1, 2], 0])


def test_as_actions_returns_an_int64_array_as_it_is() -> None:
    actions = np.array([3, -1, 0], np.int64)
    assert as_actions(actions, 3) is actions
    assert as_actions([1.0, -1.0, 2.0], 3).tolist() == [1, -1, 2]


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
