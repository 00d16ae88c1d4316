"""The shared protocol: registry, errors, specs, and the conformance kit on a user's own game."""

from __future__ import annotations

import random
import subprocess
import sys

import attrs
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
    register_game,
)
from abstractgames.registry.games import _games as _registered
from abstractgames.testing import check_game, conformance_properties, playout

from .toygame import DiceRace, RaceState


def test_available_games_is_sorted_and_complete() -> None:
    names = available_games()
    assert names == tuple(sorted(names))
    assert "orderchaos" in names
    for name in names:
        assert get_game(name).name == name


def test_unknown_game_lists_the_valid_names() -> None:
    with pytest.raises(UnknownGameError) as info:
        get_game("chess")
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "'chess'" in message
    for name in available_games():
        assert name in message


def test_unknown_parameter_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match=r"has no parameter 'colour'.*none"):
        get_game("orderchaos", colour=3)


def test_error_hierarchy() -> None:
    for error in (UnknownGameError, InvalidParameterError, InvalidPositionError, IllegalMoveError):
        assert issubclass(error, AbstractGamesError)
        assert issubclass(error, ValueError)
    assert issubclass(InvalidMoveError, IllegalMoveError)


def test_game_specs() -> None:
    assert parse_game_spec("orderchaos") == get_game("orderchaos")
    assert parse_game_spec(" OrderChaos ") == get_game("orderchaos")
    with pytest.raises(InvalidParameterError, match="use key=value"):
        parse_game_spec("orderchaos:size")
    with pytest.raises(UnknownGameError):
        parse_game_spec("go:size=19")


def test_games_compare_by_name_and_parameters() -> None:
    assert get_game("orderchaos") == get_game("orderchaos")
    assert hash(get_game("orderchaos")) == hash(get_game("orderchaos"))
    assert repr(get_game("orderchaos")) == "get_game('orderchaos')"


def test_importing_the_library_does_not_import_the_terminal_stack() -> None:
    code = "import sys, abstractgames; print(sorted({'click', 'rich'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_register_a_game_of_your_own() -> None:
    register_game("dicerace", DiceRace)
    try:
        assert "dicerace" in available_games()
        assert isinstance(get_game("dicerace"), DiceRace)
    finally:
        _registered.pop("dicerace")
    with pytest.raises(InvalidParameterError, match="invalid game name"):
        register_game("Dice Race", DiceRace)


def test_random_move_respects_chance_probabilities() -> None:
    state = DiceRace().initial_state()
    assert state.to_move == CHANCE
    rng = random.Random(5)
    rolls = [str(random_move(state, rng)) for _ in range(2000)]
    assert 900 < rolls.count("roll1") < 1100
    over = playout(state, random.Random(1))[-1]
    with pytest.raises(IllegalMoveError, match="the game is over"):
        random_move(over, rng)


def test_the_kit_passes_on_a_correct_user_game() -> None:
    check_game(DiceRace(), max_examples=50)


class _NoPassesInPosition(DiceRace):
    """Forgets the pass count when reading a position: the round trip must catch it."""

    def from_position(self, text: str) -> RaceState:
        return attrs.evolve(super().from_position(text), passes=0)


class _RefusesPass(DiceRace):
    def initial_state(self) -> RaceState:
        return _RefusingState(self, 0, "roll", 0, "first", None)


@attrs.frozen
class _RefusingState(RaceState):
    """Lists "pass" as legal but refuses it: the kit must catch it."""

    def apply(self, move: object) -> RaceState:
        if str(move) == "pass":
            raise IllegalMoveError("pass refused")
        state = super().apply(move)  # type: ignore[arg-type]
        return _RefusingState(*attrs.astuple(state, recurse=False))


@pytest.mark.parametrize(
    ("game", "failing"),
    [(_NoPassesInPosition(), "position_round_trip"), (_RefusesPass(), "legal_moves_round_trip")],
)
def test_the_kit_catches_broken_games(game: DiceRace, failing: str) -> None:
    prop = conformance_properties(game, max_examples=200)[failing]
    with pytest.raises(Exception):  # noqa: B017 - the property may fail while drawing states
        prop()
    with pytest.raises(AssertionError):
        check_game(game, max_examples=200)


def test_version() -> None:
    assert abstractgames.__version__


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


def test_import_object_finds_table_entries_or_says_none() -> None:
    from abstractgames.registry import import_object

    assert import_object("abstractgames.orderchaos:OrderChaosGame").name == "orderchaos"
    assert import_object("abstractgames.orderchaos:NoSuchThing") is None
    assert import_object("abstractgames.no_such_module:Thing") is None


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
