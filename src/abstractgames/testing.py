"""A property-based conformance kit for any game on the shared protocol (needs ``hypothesis``).

Use it on our games or on your own implementation of :class:`~abstractgames.Game`:

- :func:`states` and :func:`moves` are hypothesis strategies: states reached by random legal play
  (chance events drawn with their probabilities) and legal moves of a state;
- :func:`check_game` runs every protocol property on a game and raises ``AssertionError`` (via
  hypothesis, with a minimal failing example) when one fails;
- :func:`conformance_properties` returns the same properties by name, so a pytest suite can
  parametrize over them and see each one pass or fail on its own.

Example:
    >>> from abstractgames import get_game
    >>> from abstractgames.testing import check_game
    >>> check_game(get_game("orderchaos"), max_examples=5)
"""

from __future__ import annotations

import contextlib
import math
import random
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .protocol import (
    CHANCE,
    AbstractGamesError,
    Game,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    State,
    random_move,
)

__all__ = [
    "check_game",
    "conformance_properties",
    "moves",
    "playout",
    "states",
]


def playout(state: State, rng: random.Random, max_plies: int | None = None) -> list[State]:
    """Play random legal moves from ``state``; return every state visited, ``state`` first.

    Stops when the game is over or after ``max_plies`` plies.
    """
    visited = [state]
    while not state.is_terminal() and (max_plies is None or len(visited) <= max_plies):
        state = state.apply(random_move(state, rng))
        visited.append(state)
    return visited


def states(game: Game, max_plies: int | None = None) -> st.SearchStrategy[State]:
    """States reached from the start by random legal play (terminal states included)."""
    limit = game.max_length if max_plies is None else max_plies

    @st.composite
    def strategy(draw: st.DrawFn) -> State:
        plies = draw(st.integers(min_value=0, max_value=limit))
        rng = draw(st.randoms(use_true_random=False))
        return playout(game.initial_state(), rng, plies)[-1]

    return strategy()


def moves(state: State) -> st.SearchStrategy[Move]:
    """The legal moves of ``state`` (the strategy is empty at a terminal state)."""
    legal = state.legal_moves()
    return st.sampled_from(legal) if legal else st.nothing()


_POSITION_NOISE = "0123456789/ :-@abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _snapshot(state: State) -> tuple[object, ...]:
    outcome = state.outcome()
    return (state.position(), hash(state), state.to_move, state.legal_moves(), outcome)


def conformance_properties(game: Game, *, max_examples: int = 100) -> dict[str, Callable[[], None]]:
    """The protocol properties for ``game``, by name; call each to run it with hypothesis."""
    config = settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
        report_multiple_bugs=False,
    )
    any_state = states(game)

    @config
    @given(any_state, st.data())
    def apply_never_mutates(state: State, data: st.DataObject) -> None:
        if state.is_terminal():
            return
        move = data.draw(moves(state))
        before = _snapshot(state)
        child = state.apply(move)
        assert _snapshot(state) == before, f"apply({move}) changed {before[0]}"
        assert child is not state
        if not child.is_terminal():
            child.apply(random_move(child, random.Random(0)))
        assert _snapshot(state) == before, f"applying to the child of {before[0]} changed it"

    @config
    @given(any_state)
    def legal_moves_round_trip(state: State) -> None:
        legal = state.legal_moves()
        assert isinstance(legal, tuple)
        assert legal == state.legal_moves(), "legal_moves() is not stable"
        texts = [str(m) for m in legal]
        assert len(set(texts)) == len(texts), f"duplicate moves in {state.position()}"
        for move, text in zip(legal, texts, strict=True):
            parsed = game.parse_move(text, state)
            assert parsed == move, f"{text!r} parses to {parsed!r}, not {move!r}"
            assert hash(parsed) == hash(move)
            try:
                assert state.apply(move) == state.apply(text)
            except AbstractGamesError as error:
                raise AssertionError(
                    f"legal {move} refused in {state.position()}: {error}"
                ) from None

    @config
    @given(any_state)
    def position_round_trip(state: State) -> None:
        # Only the position must survive: history a game keeps beside it (e.g. for repetition
        # draws) is not part of the position string, so a reread state may continue differently.
        text = state.position()
        again = game.from_position(text)
        assert again == state, f"{text!r} reads back as {again.position()!r}"
        assert hash(again) == hash(state)
        assert again.position() == text
        assert state.game == game

    @config
    @given(st.randoms(use_true_random=False))
    def playouts_end_within_max_length(rng: random.Random) -> None:
        visited = playout(game.initial_state(), rng, game.max_length + 1)
        assert visited[-1].is_terminal(), f"no end after {game.max_length} plies"
        assert len(visited) - 1 <= game.max_length

    @config
    @given(any_state)
    def outcome_exactly_at_terminal(state: State) -> None:
        outcome = state.outcome()
        assert state.to_move is None or state.to_move == CHANCE or state.to_move in game.roles
        if state.to_move is None:
            assert outcome is not None, f"{state.position()}: no one to move but no outcome"
            assert state.legal_moves() == ()
            assert outcome.winner is None or outcome.winner in game.roles
            assert set(outcome.scores) == set(game.roles)
            assert outcome.reason
            try:
                state.apply(random_move(game.initial_state(), random.Random(0)))
            except IllegalMoveError:
                pass
            else:
                raise AssertionError(f"a move was accepted after the end in {state.position()}")
        else:
            assert outcome is None, f"{state.position()}: outcome while {state.to_move} moves"
            assert state.legal_moves(), f"{state.position()}: no legal move and no outcome"

    @config
    @given(any_state)
    def chance_outcomes_are_probabilities(state: State) -> None:
        if state.to_move != CHANCE:
            return
        outcomes = state.chance_outcomes()
        assert tuple(m for m, _ in outcomes) == state.legal_moves()
        assert all(p > 0 for _, p in outcomes)
        assert math.isclose(sum(p for _, p in outcomes), 1.0, rel_tol=1e-9)

    @config
    @given(st.integers(min_value=0, max_value=2**32))
    def same_seed_same_game(seed: int) -> None:
        first = [s.position() for s in playout(game.initial_state(), random.Random(seed))]
        second = [s.position() for s in playout(game.initial_state(), random.Random(seed))]
        assert first == second

    @config
    @given(any_state, any_state)
    def apply_accepts_exactly_legal_moves(state: State, other: State) -> None:
        legal = set(state.legal_moves())
        for move in other.legal_moves()[:20]:
            try:
                state.apply(move)
            except IllegalMoveError as error:
                assert move not in legal, f"legal {move} refused in {state.position()}: {error}"
                assert str(move) in str(error) or state.is_terminal(), str(error)
            else:
                assert move in legal, f"{move} is not legal but accepted in {state.position()}"

    @config
    @given(any_state, st.text(max_size=30))
    def junk_text_raises_only_our_errors(state: State, text: str) -> None:
        with contextlib.suppress(IllegalMoveError):
            game.parse_move(text, state)
        with contextlib.suppress(IllegalMoveError):
            state.apply(text)
        try:
            parsed = game.from_position(text)
        except InvalidPositionError:
            pass
        else:
            assert game.from_position(parsed.position()) == parsed

    @config
    @given(any_state, st.data())
    def mangled_positions_raise_only_our_errors(state: State, data: st.DataObject) -> None:
        text = state.position()
        index = data.draw(st.integers(min_value=0, max_value=len(text)))
        insert = data.draw(st.text(alphabet=_POSITION_NOISE, max_size=3))
        cut = data.draw(st.integers(min_value=0, max_value=3))
        mangled = text[:index] + insert + text[index + cut :]
        try:
            parsed = game.from_position(mangled)
        except AbstractGamesError as error:
            assert isinstance(error, InvalidPositionError), repr(error)
        else:
            assert parsed.position() == game.from_position(parsed.position()).position()

    properties: list[Callable[[], None]] = [
        apply_never_mutates,
        legal_moves_round_trip,
        position_round_trip,
        playouts_end_within_max_length,
        outcome_exactly_at_terminal,
        chance_outcomes_are_probabilities,
        same_seed_same_game,
        apply_accepts_exactly_legal_moves,
        junk_text_raises_only_our_errors,
        mangled_positions_raise_only_our_errors,
    ]
    return {p.__name__: p for p in properties}


def check_game(game: Game, *, max_examples: int = 100) -> None:
    """Run every conformance property on ``game``; raise ``AssertionError`` on the first failure."""
    for name, prop in conformance_properties(game, max_examples=max_examples).items():
        try:
            prop()
        except AssertionError:
            raise
        except Exception as error:
            raise AssertionError(f"{name} failed on {game!r}: {error!r}") from error
