"""The batched simulators play exactly the rules of the scalar protocol.

Hypothesis drives a batch and one protocol state per lane with the same actions (and the same
chance outcomes), and compares every lane after every step: the position, the legal actions, the
outcome, the returns and the observation.
"""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abstractgames import CHANCE, State, get_game, make_player, parse_game_spec
from abstractgames.bench import run_vector_benchmarks
from abstractgames.cli import main
from abstractgames.players import InvalidPlayerError
from abstractgames.players.greedy import GreedyPlayer
from abstractgames.registry import evaluation_for, vector_for
from abstractgames.vector import BatchSimulator, play_out, uniform_from_mask
from abstractgames.vector.entropy import EntropyBatch, score_gain_actions
from abstractgames.vector.orderchaos import OrderChaosBatch, greedy_actions

SPECS = ["orderchaos", "entropy", "entropy:size=5", "dispersal", "dispersal:max_plies=24"]
LANES = 3
FAST = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def batch_of(spec: str, lanes: int = LANES, seed: int = 0) -> BatchSimulator:
    game = parse_game_spec(spec)
    factory = vector_for(game)
    assert factory is not None
    batch: BatchSimulator = factory(lanes, seed=seed, game=game)
    return batch


def legal(state: State) -> np.ndarray:
    mask = np.zeros(state.game.num_distinct_actions, np.bool_)
    mask[list(state.legal_actions())] = True
    return mask


def assert_same(batch: BatchSimulator, states: list[State]) -> None:
    mask = batch.legal_action_mask()
    observations = batch.observations()
    returns = batch.returns()
    roles = batch.game.roles
    for lane, (mine, state) in enumerate(zip(batch.to_states(), states, strict=True)):
        assert mine.position() == state.position(), lane
        assert mine.outcome() == state.outcome(), lane
        assert bool(batch.done[lane]) == (state.outcome() is not None)
        to_move = -1 if state.to_move is None else roles.index(state.to_move)
        assert int(batch.to_move[lane]) == to_move
        assert (mask[lane] == legal(state)).all(), (lane, state.position())
        expected = [state.returns()[role] for role in roles]
        np.testing.assert_allclose(returns[lane], expected, rtol=1e-6)
        np.testing.assert_allclose(
            observations[lane].reshape(-1), state.observation(roles[0]), rtol=1e-6
        )


def advance(state: State, action: int, draw: int) -> State:
    if state.outcome() is not None:
        return state
    state = state.apply_action(action)
    if state.to_move == CHANCE:
        state = state.apply_action(draw)
    return state


def first_states(batch: BatchSimulator) -> list[State]:
    start = batch.game.initial_state()
    if start.to_move == CHANCE:  # the reset made the first draw
        return [start.apply_action(int(d)) for d in batch.last_draw]  # type: ignore[attr-defined]
    return [start] * batch.batch_size


def play_choices(
    batch: BatchSimulator, states: list[State], choices: list[tuple[int, int]], seed: int
) -> None:
    """Each step: lane i plays its legal action number `choice`, chance its outcome number."""
    rng = random.Random(seed)
    for pick, chance_pick in choices:
        if batch.done.all():
            break
        actions, draws = [], []
        for lane, state in enumerate(states):
            moves = state.legal_actions() if state.outcome() is None else (0,)
            actions.append(moves[(pick + lane * rng.randrange(7)) % len(moves)])
            draws.append(-1)
            if state.outcome() is None:
                after = state.apply_action(actions[-1])
                if after.to_move == CHANCE:
                    outcomes = after.legal_actions()
                    draws[-1] = outcomes[(chance_pick + lane) % len(outcomes)]
        batch.step(actions, chance=draws)
        states[:] = [advance(s, a, d) for s, a, d in zip(states, actions, draws, strict=True)]
        assert_same(batch, states)


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


# --- greedy policies ------------------------------------------------------------------------------


def best_moves(state: State, evaluate: object) -> set[int]:
    """The set the scalar greedy player draws from."""
    player = GreedyPlayer(state.game, evaluate)  # type: ignore[arg-type]
    role = state.to_move
    values = {a: player.evaluate(state.apply_action(a), role) for a in state.legal_actions()}  # type: ignore[arg-type]
    best = max(values.values())
    return {a for a, v in values.items() if v == best}


@settings(max_examples=10, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**16))
def test_orderchaos_greedy_matches_the_scalar_greedy(seed: int) -> None:
    game = get_game("orderchaos")
    evaluate = evaluation_for(game)
    batch = OrderChaosBatch(6, seed=seed)
    rng = np.random.default_rng(seed)
    while not batch.done.all():
        actions = greedy_actions(batch, rng)
        for lane, state in enumerate(batch.to_states()):
            if state.outcome() is None:
                assert int(actions[lane]) in best_moves(state, evaluate)
        # Mix in random moves so that the positions are not all greedy's own.
        batch.step(np.where(rng.random(6) < 0.5, actions, batch.random_actions()))


def order_score(state: State, role: str) -> float:
    score = float(state.score())  # type: ignore[attr-defined]
    return score if role == "order" else -score


@pytest.mark.parametrize("size", [7, 5])
def test_entropy_score_gain_greedy_matches_the_scalar_greedy(size: int) -> None:
    game = get_game("entropy", size=size)
    batch = EntropyBatch(4, seed=size, game=game)  # type: ignore[arg-type]
    rng = np.random.default_rng(size)
    while not batch.done.all():
        actions = score_gain_actions(batch, rng)
        for lane, state in enumerate(batch.to_states()):
            if state.outcome() is None:
                assert int(actions[lane]) in best_moves(state, order_score)
        batch.step(np.where(rng.random(4) < 0.5, actions, batch.random_actions()))


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


# --- the mc player, the benchmark, the example ---------------------------------------------------


@pytest.mark.parametrize("spec", ["orderchaos", "entropy:size=5", "dispersal"])
def test_mc_player_chooses_legal_moves_reproducibly(spec: str) -> None:
    game = parse_game_spec(spec)
    player = make_player("mc:simulations=64", game)
    state = game.initial_state()
    if state.to_move == CHANCE:
        state = state.apply_action(state.legal_actions()[0])
    first = player.choose(state, random.Random(3))
    assert first in state.legal_moves()
    assert player.choose(state, random.Random(3)) == first


def test_mc_player_takes_a_win() -> None:
    game = get_game("orderchaos")
    state = game.from_position("6/6/6/6/6/XXXX2 order")
    move = make_player("mc:simulations=200", game).choose(state, random.Random(0))
    assert state.apply(move).outcome().winner == "order"  # type: ignore[union-attr]


def test_mc_player_options() -> None:
    with pytest.raises(InvalidPlayerError):
        make_player("mc:simulations=0", get_game("orderchaos"))


def test_vector_benchmark_reports_every_batch_size() -> None:
    table = run_vector_benchmarks(
        ["entropy:size=5"], sizes=(1, 8), games=3, repeats=1, min_seconds=0.01
    )
    row = table["entropy:size=5"]
    assert set(row) == {"scalar", "vector", "bytes_per_lane"}
    assert set(row["vector"]) == {"1", "8"}  # type: ignore[arg-type]
    assert row["bytes_per_lane"] > 0  # type: ignore[operator]


def test_bench_vector_json_on_the_command_line() -> None:
    result = CliRunner().invoke(
        main, ["bench", "orderchaos", "--vector", "--json", "-n", "5", "-r", "1"]
    )
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)
    assert set(table) == {"orderchaos"}
    assert set(table["orderchaos"]["vector"]) == {"1", "64", "1024", "4096"}


def test_the_self_play_example_runs() -> None:
    script = Path(__file__).resolve().parent.parent / "examples" / "vector" / "selfplay.py"
    out = subprocess.run(
        [sys.executable, str(script), "entropy:size=5", "16", "20"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "mean returns" in out.stdout


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


def test_the_scaling_plot_is_drawn_from_the_figures_on_the_page() -> None:
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location(
        "plot_scaling", root / "examples" / "vector" / "plot_scaling.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures = json.loads((root / "docs" / "images" / "vector-bench.json").read_text())
    drawn = module.plot(figures)
    assert drawn == (root / "docs" / "images" / "vector-scaling.svg").read_text(encoding="utf-8")
    page = (root / "docs" / "vector.md").read_text(encoding="utf-8")
    for game, row in figures.items():  # the page's table shows the same figures
        cells = [
            f"{row['scalar']:,}",
            *(f"{row['vector'][b]:,}" for b in ("1", "64", "1024", "4096")),
        ]
        assert f"| `{game}` | " + " | ".join(cells) in page, game
