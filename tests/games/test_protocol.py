"""The shared protocol (`abstractgames.protocol`): errors, games as values, outcomes, chance,
pickling, the hooks every game fills in, checked parameters, and messages that quote a bounded
excerpt of what they were given."""

from __future__ import annotations

import random
import time
from functools import partial
from typing import Any

import pytest

import abstractgames
from abstractgames import (
    CHANCE,
    AbstractGamesError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidParameterError,
    InvalidPositionError,
    UnknownGameError,
    available_games,
    get_game,
    parse_game_spec,
    random_move,
)
from abstractgames.protocol import check_int_param
from abstractgames.testing import playout
from tests.support.hostile import BIG, GAMES, HOSTILE, bounded
from tests.support.toygame import DiceRace

# --- errors, games and states as values, chance ---------------------------------------------------


def test_error_hierarchy() -> None:
    for error in (UnknownGameError, InvalidParameterError, InvalidPositionError, IllegalMoveError):
        assert issubclass(error, AbstractGamesError)
        assert issubclass(error, ValueError)
    assert issubclass(InvalidMoveError, IllegalMoveError)


def test_games_compare_by_name_and_parameters() -> None:
    assert get_game("orderchaos") == get_game("orderchaos")
    assert hash(get_game("orderchaos")) == hash(get_game("orderchaos"))
    assert repr(get_game("orderchaos")) == "get_game('orderchaos')"


def test_random_move_respects_chance_probabilities() -> None:
    state = DiceRace().initial_state()
    assert state.to_move == CHANCE
    rng = random.Random(5)
    rolls = [str(random_move(state, rng)) for _ in range(2000)]
    assert 900 < rolls.count("roll1") < 1100
    over = playout(state, random.Random(1))[-1]
    with pytest.raises(IllegalMoveError, match="the game is over"):
        random_move(over, rng)


def test_outcomes_are_immutable_values() -> None:
    outcome = get_game("orderchaos").from_position("6/6/6/6/6/XXXXX1 chaos").outcome()
    assert outcome is not None
    with pytest.raises(TypeError):
        outcome.scores["order"] = 0  # type: ignore[index]
    with pytest.raises(AttributeError):
        outcome.winner = "chaos"  # type: ignore[misc]
    assert outcome == abstractgames.Outcome("order", {"order": 1, "chaos": 0}, "five in a row")
    assert repr(outcome) == (
        "Outcome(winner='order', scores={'order': 1, 'chaos': 0}, reason='five in a row')"
    )


@pytest.mark.parametrize(
    "spec", ["orderchaos", "entropy", "entropy:size=5", "dispersal:max_plies=9"]
)
def test_games_and_states_pickle(spec: str) -> None:
    # The arena sends games and states to worker processes; Entropy's game once failed here.
    import pickle

    game = abstractgames.parse_game_spec(spec)
    again = pickle.loads(pickle.dumps(game))
    assert again == game and again.spec == game.spec
    state = playout(game.initial_state(), random.Random(3), 7)[-1]
    assert pickle.loads(pickle.dumps(state)) == state


# --- the hooks every game fills in ----------------------------------------------------------------


def test_default_hooks_and_each_games_own_words() -> None:
    from tests.support.toygame import DiceRace

    toy = DiceRace()
    assert toy.goal("first") == "" and toy.move_kinds(toy.initial_state()) == ()
    assert toy.rules_summary() == ""  # no docstring: nothing to summarise
    for name in available_games():
        game = get_game(name)
        assert game.rules_summary().count("\n") >= 2
        assert all(game.goal(role) for role in game.roles)
        state = game.initial_state()
        while state.is_chance():
            state = state.apply(state.legal_moves()[0])
        assert game.move_kinds(state)
    entropy = get_game("entropy")
    chaos = entropy.initial_state().apply("R")
    assert entropy.move_kinds(chaos) == ("a square for R, such as a1",)
    order = chaos.apply("R@d4")
    assert entropy.move_kinds(order) == ("a slide such as d4-a4", "pass")
    with pytest.raises(InvalidMoveError, match="Chaos places the drawn R: write its square"):
        chaos.apply("d4-d5-d6")
    stuck = get_game("dispersal").from_position("S4/5/5/5/O3O O")  # no O piece may move
    assert stuck.game.move_kinds(stuck) == ("pass (no other move is legal)",)


# --- game parameters ----------------------------------------------------------------------------


def test_check_int_param_takes_a_maximum_and_quotes_briefly() -> None:
    assert check_int_param("n", 10, minimum=1, maximum=10) == 10
    with pytest.raises(InvalidParameterError, match="parameter n=11 must be at most 10"):
        check_int_param("n", 11, maximum=10)
    for value in (10**5000, -(10**100_000)):
        with pytest.raises(InvalidParameterError, match=r"an integer of (about )?[0-9,]+ digits"):
            check_int_param("n", value, minimum=1, maximum=10)
    with pytest.raises(InvalidParameterError, match="must be an integer") as caught:
        check_int_param("n", "\x1b[2J" + "x" * 10_000_000)
    assert len(str(caught.value)) < 200 and "\x1b" not in str(caught.value)


# --- messages of the rules quote a bounded excerpt ------------------------------------------------


def first_state(spec: str) -> Any:
    """A state where a player moves (Entropy: after the first draw)."""
    state = parse_game_spec(spec).initial_state()
    return state.apply(state.legal_moves()[0]) if state.is_chance() else state


@pytest.mark.parametrize("spec", GAMES)
def test_a_huge_move_gets_a_short_message(spec: str) -> None:
    state = first_state(spec)
    game = state.game
    for text in ["x" * BIG, HOSTILE + "a" * BIG, "X@" + "c" * BIG, "a1-" + "1" * BIG, "\0" * BIG]:
        assert bounded(partial(state.apply, text), IllegalMoveError).startswith(
            "cannot read move '"
        )
        bounded(partial(game.parse_move, text, state))
    message = bounded(lambda: state.apply(HOSTILE))
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\n" in message


@pytest.mark.slow
@pytest.mark.parametrize("spec", GAMES)
def test_a_huge_position_gets_a_short_message(spec: str) -> None:
    game = parse_game_spec(spec)
    ranks, side = game.initial_state().position().split()
    first, _, rest = ranks.partition("/")
    for text in [
        "x" * BIG,
        HOSTILE + "x" * BIG,
        f"{ranks} {HOSTILE}{'x' * BIG}",
        f"{'x' * BIG} {side}",
        f"{ranks} chaos:{'x' * BIG}",
        f"{ranks} {side} {'x' * BIG}",
        f"{'/' * BIG} {side}",
        f"{'X' * BIG}/{rest} {side}",
        f"{'1' * BIG}/{rest} {side}",
        f"{first}\x1b[2J/{rest} {side}",
        " ".join(["a"] * (BIG // 2)),
    ]:
        bounded(partial(game.from_position, text))


@pytest.mark.parametrize("spec", GAMES)
@pytest.mark.parametrize(
    "shape", ["x{s}@c3!", "R{s}@d4!", "a1{s}-{s}a2!", "{s}x{s}", "a1{s}a2{s}!", "pass{s}!"]
)
def test_no_move_text_makes_the_parser_backtrack_for_long(spec: str, shape: str) -> None:
    state = first_state(spec)
    text = shape.format(s=" " * 30_000)
    started = time.perf_counter()
    bounded(lambda: state.game.parse_move(text, state))
    assert time.perf_counter() - started < 1


def test_moves_and_values_from_code_are_quoted_briefly() -> None:
    from abstractgames.dispersal import Slide
    from abstractgames.entropy import Placement as EntropyPlacement
    from abstractgames.orderchaos import Placement

    long_text, long_int = "\x1b[2J" + "x" * BIG, 10**5000
    for call in [
        lambda: Placement(long_text, 3),
        lambda: Placement("X", long_int),
        lambda: Slide(long_int, 3),
        lambda: EntropyPlacement(long_text, 3),
        lambda: EntropyPlacement("R", long_int),
    ]:
        bounded(call, ValueError)
    for spec in GAMES:
        state = first_state(spec)
        bounded(partial(state.apply, [long_text]))
    match = get_game("orderchaos").new_match()
    bounded(lambda: match.resign(long_int))
    bounded(lambda: match.player_of(long_text))
    bounded(lambda: get_game("entropy").new_match().role_of(1, long_int))
