"""Batches beside protocol states: a batched simulator of a game spec, and the check that every
lane is the protocol state it stands for (position, outcome, mover, mask, returns, observation)."""

from __future__ import annotations

import random

import numpy as np

from abstractgames import CHANCE, State, parse_game_spec
from abstractgames.players.greedy import GreedyPlayer
from abstractgames.registry import vector_for
from abstractgames.vector import BatchSimulator

LANES = 3


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


def best_moves(state: State, evaluate: object) -> set[int]:
    """The set the scalar greedy player draws from."""
    player = GreedyPlayer(state.game, evaluate)  # type: ignore[arg-type]
    role = state.to_move
    values = {a: player.evaluate(state.apply_action(a), role) for a in state.legal_actions()}  # type: ignore[arg-type]
    best = max(values.values())
    return {a for a, v in values.items() if v == best}
