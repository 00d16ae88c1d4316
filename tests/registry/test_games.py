"""The table of games (`abstractgames.registry.games`): the names, specs and parameters, games
registered in a process, what the generic players find for each game, and hostile specs."""

from __future__ import annotations

import time
from functools import partial

import pytest

from abstractgames import (
    InvalidParameterError,
    UnknownGameError,
    available_games,
    get_game,
    make_player,
    parse_game_spec,
    register_game,
    register_player,
)
from abstractgames.players import Player, RandomPlayer
from abstractgames.registry import PluginError, evaluation_for, solver_for, vector_for
from abstractgames.registry.games import _games as _registered
from tests.support.hostile import BIG, GAMES, HOSTILE, bounded
from tests.support.toygame import DiceRace

# --- names, specs and registrations ---------------------------------------------------------------


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


def test_game_specs() -> None:
    assert parse_game_spec("orderchaos") == get_game("orderchaos")
    assert parse_game_spec(" OrderChaos ") == get_game("orderchaos")
    with pytest.raises(InvalidParameterError, match="use key=value"):
        parse_game_spec("orderchaos:size")
    with pytest.raises(UnknownGameError):
        parse_game_spec("go:size=19")


def test_register_a_game_of_your_own() -> None:
    register_game("dicerace", DiceRace)
    try:
        assert "dicerace" in available_games()
        assert isinstance(get_game("dicerace"), DiceRace)
    finally:
        _registered.pop("dicerace")
    with pytest.raises(InvalidParameterError, match="invalid game name"):
        register_game("Dice Race", DiceRace)


def test_a_registered_game_may_bring_its_batched_simulator() -> None:
    def simulator(batch_size: int, seed: int = 0, game: object = None) -> str:
        return f"{batch_size} lanes"

    register_game("dicerace", DiceRace, vector=simulator)
    try:
        assert vector_for(get_game("dicerace")) is simulator
        assert _registered["dicerace"].vector is simulator
    finally:
        _registered.pop("dicerace")
    assert vector_for(DiceRace()) is None  # no longer registered


def test_import_object_finds_table_entries_or_says_none() -> None:
    from abstractgames.registry import import_object

    assert import_object("abstractgames.orderchaos:OrderChaosGame").name == "orderchaos"
    assert import_object("abstractgames.orderchaos:NoSuchThing") is None
    assert import_object("abstractgames.no_such_module:Thing") is None


def test_the_generic_players_find_what_each_game_gives_them() -> None:
    for name in available_games():
        game = get_game(name)
        assert evaluation_for(game) is not None
        assert isinstance(make_player("search:depth=1", game), Player)
    assert solver_for(get_game("dispersal")) is not None
    assert solver_for(get_game("orderchaos")) is not None
    with pytest.raises(PluginError, match=r"no solver for 'entropy'.*dispersal, orderchaos"):
        solver_for(get_game("entropy"))


def test_a_bare_solver_is_given_an_entry_that_declares_no_options() -> None:
    from abstractgames.registry import solver_entry_for
    from abstractgames.solvers import SolverEntry

    def plain(state: object, max_moves: int, time_limit: float | None) -> str:
        return "nothing"

    register_game("dicerace", DiceRace, solver=plain)
    try:
        entry = solver_entry_for(get_game("dicerace"))
        assert entry == SolverEntry(plain) and entry.options == () and not entry.certificates
        assert solver_for(get_game("dicerace")) is plain
    finally:
        _registered.pop("dicerace")
    register_game("dicerace", DiceRace, solver=42)  # type: ignore[arg-type]
    try:
        with pytest.raises(PluginError, match="is 42: a SolverEntry or a function"):
            solver_entry_for(get_game("dicerace"))
    finally:
        _registered.pop("dicerace")
    declared = SolverEntry(plain, progress=True)
    register_game("dicerace", DiceRace, solver=declared)
    try:
        assert solver_entry_for(get_game("dicerace")) is declared
    finally:
        _registered.pop("dicerace")


def test_built_in_names_cannot_be_taken() -> None:
    with pytest.raises(InvalidParameterError, match="'entropy' is a built-in game"):
        register_game("entropy", DiceRace)
    with pytest.raises(InvalidParameterError, match="'greedy' is a built-in player"):
        register_player("greedy", RandomPlayer)
    with pytest.raises(InvalidParameterError, match="invalid player name"):
        register_player("My Bot", RandomPlayer)


# --- hostile specs --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("dispersal:max_plies=1000000000000000000", "=1000000000000000000 must be at most 10000$"),
        ("dispersal:max_plies=" + "9" * 5000, "must be an integer, not '9999"),
        ("entropy:size=" + "7" * 5000, "must be an integer, not '7777"),
    ],
    ids=lambda value: value[:40],
)
def test_huge_game_parameters_are_refused_at_once(spec: str, message: str) -> None:
    started = time.perf_counter()
    with pytest.raises(InvalidParameterError, match=message) as caught:
        parse_game_spec(spec)
    assert time.perf_counter() - started < 1
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("spec", GAMES)
def test_a_huge_spec_gets_a_short_message(spec: str) -> None:
    name = spec.partition(":")[0]
    for text in [
        f"{name}:{'x' * BIG}",
        f"{name}:{HOSTILE}{'x' * BIG}",
        f"{name}:a=1,a={'x' * BIG}",
    ]:
        bounded(partial(parse_game_spec, text))
    parameter = {"entropy": "size", "dispersal": "max_plies"}.get(name)
    if parameter is not None:
        bounded(lambda: parse_game_spec(f"{name}:{parameter}={HOSTILE}{'x' * BIG}"))
