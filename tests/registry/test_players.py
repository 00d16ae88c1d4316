"""The table of players (`abstractgames.registry.players`): player specs, as text and as values
(`PlayerSpec`), players registered in a process (and in the arena's worker processes), the built-in
OpenSpiel player, a person's seat, and `with_logs`."""

from __future__ import annotations

import importlib.metadata
import random
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abstractgames import (
    InvalidParameterError,
    available_players,
    get_game,
    make_player,
    register_game,
    register_player,
)
from abstractgames.arena import Arena, ArenaError, ProcessExecutor
from abstractgames.players import InvalidPlayerError, Player, RandomPlayer
from abstractgames.players.openspiel import MCTSPlayer
from abstractgames.registry import (
    ArgumentKind,
    PlayerEntry,
    PlayerSpec,
    describe_player,
    outside_code,
    refresh_plugins,
    with_logs,
)
from abstractgames.registry.games import _games
from abstractgames.registry.players import _players
from abstractgames.registry.players import _players as registered_players
from tests.support.toygame import DiceRace

# --- player specs and registrations ---------------------------------------------------------------


def test_player_specs() -> None:
    game = get_game("orderchaos")
    assert {"random", "greedy"} <= set(available_players())
    assert make_player("random", game).spec == "random"
    assert make_player(" Greedy ", game).spec == "Greedy"
    with pytest.raises(InvalidPlayerError, match="unknown player 'alphazero'; available players"):
        make_player("alphazero", game)
    with pytest.raises(InvalidPlayerError, match="has no option 'depth'; its options: none"):
        make_player("greedy:depth=3", game)
    with pytest.raises(InvalidPlayerError, match="use key=value"):
        make_player("random:fast", game)


def test_register_your_own_player() -> None:
    class FirstMove(Player):
        def __init__(self, game: object, offset: int = 0) -> None:
            self.offset = offset

        def choose(self, state, rng, time_left=None):  # type: ignore[no-untyped-def]
            return state.legal_moves()[self.offset]

    register_player("first", FirstMove)
    try:
        player = make_player("first:offset=1", get_game("orderchaos"))
        assert str(player.choose(get_game("orderchaos").initial_state(), random.Random())) == "O@a1"
    finally:
        registered_players.pop("first")


# --- registrations reach the arena's worker processes ---------------------------------------------


class FirstMove(Player):
    """Plays the first legal move (a module-level class, so worker processes can load it)."""

    def __init__(self, game: object) -> None:
        pass

    def choose(self, state, rng, time_left=None):  # type: ignore[no-untyped-def]
        return state.legal_moves()[0]


@pytest.fixture
def registered() -> Iterator[None]:
    yield
    _games.pop("dicerace", None)
    _players.pop("firstmove", None)
    _players.pop("local", None)


def test_registrations_reach_local_worker_processes(registered: None) -> None:
    register_game("dicerace", DiceRace)
    register_player("firstmove", FirstMove)
    arena = Arena("dicerace", ["random", "firstmove"], games=4, seed=3)
    report = arena.run(ProcessExecutor(jobs=2))
    assert report.complete and report.dumps() == arena.run().dumps()


def test_an_unpicklable_registration_is_refused_before_the_tournament(registered: None) -> None:
    class Local(FirstMove):
        pass

    register_player("local", Local)
    arena = Arena("orderchaos", ["random", "local"], games=2, seed=3)
    with pytest.raises(ArenaError, match="player 'local' was registered in this process"):
        arena.run(ProcessExecutor(jobs=2))


# --- the built-in players -------------------------------------------------------------------------


def test_openspiel_mcts_is_built_in_without_any_entry_point(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The player is in the registry's own table: it needs no installed metadata."""
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kwargs: ())
    refresh_plugins()
    try:
        assert "openspiel-mcts" in available_players()
        info = describe_player("openspiel-mcts")
        assert info.origin == "built in"
        assert info.options == {"simulations": 1000, "uct_c": 2.0, "rollouts": 1}
        game = get_game("orderchaos")
        if importlib.util.find_spec("pyspiel") is None:
            with pytest.raises(InvalidPlayerError, match="openspiel-mcts needs OpenSpiel: pip"):
                make_player("openspiel-mcts", game)
        else:
            player = make_player("openspiel-mcts:simulations=20", game)
            assert isinstance(player, MCTSPlayer) and player.simulations == 20
            state = game.initial_state()
            assert player.choose(state, random.Random(0)) in state.legal_moves()
    finally:
        monkeypatch.undo()
        refresh_plugins()


# --- specs as values ------------------------------------------------------------------------------


OPTIONS, PROGRAM, CLASS = ArgumentKind.OPTIONS, ArgumentKind.PROGRAM, ArgumentKind.CLASS


@pytest.mark.parametrize(
    ("text", "name", "kind", "options", "argument"),
    [
        ("search", "search", OPTIONS, (), None),
        ("Search:time=1.5, depth=2", "search", OPTIONS, (("time", "1.5"), ("depth", "2")), None),
        ("engine:./bot --fast", "engine", PROGRAM, (), "./bot --fast"),
        (
            "engine:timeout=5,log=d:./bot",
            "engine",
            PROGRAM,
            (("timeout", "5"), ("log", "d")),
            "./bot",
        ),
        ("engine::A=1:./bot", "engine", PROGRAM, (), "A=1:./bot"),
        ("codecup:./prog", "codecup", PROGRAM, (), "./prog"),
        ("bots/mine.py:Mine:depth=3", "bots/mine.py:Mine", CLASS, (("depth", "3"),), None),
        ("mybots.strong:Bot", "mybots.strong:Bot", CLASS, (), None),
    ],
)
def test_a_spec_is_read_into_its_parts_and_written_back(
    text: str, name: str, kind: ArgumentKind, options: tuple[tuple[str, str], ...], argument: str
) -> None:
    spec = PlayerSpec.parse(text)
    assert (spec.name, spec.kind, spec.options, spec.argument) == (name, kind, options, argument)
    assert PlayerSpec.parse(str(spec)) == spec


@given(
    name=st.sampled_from(["search", "greedy", "mc", "engine", "codecup", "bot.py:Bot", "m.n:B"]),
    options=st.lists(
        st.tuples(
            st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True),
            st.from_regex(r"[A-Za-z0-9./=+-]{0,8}", fullmatch=True),
        ),
        max_size=4,
        unique_by=lambda item: item[0],
    ),
    command=st.from_regex(r"[A-Za-z0-9./ =:-]{1,20}", fullmatch=True).filter(str.strip),
)
def test_str_inverts_parse(name: str, options: list[tuple[str, str]], command: str) -> None:
    kind = ArgumentKind.PROGRAM if name in ("engine", "codecup") else ArgumentKind.OPTIONS
    if ":" in name:
        kind = ArgumentKind.CLASS
    pairs = tuple((k, v) for k, v in options if kind is not ArgumentKind.PROGRAM or ":" not in v)
    spec = PlayerSpec(name, kind, pairs, command.strip() if kind is ArgumentKind.PROGRAM else None)
    assert PlayerSpec.parse(str(spec)) == spec


def test_options_are_edited_as_values() -> None:
    spec = PlayerSpec.parse("engine:timeout=5,name=v2:./bot")
    assert str(spec.without_option("name")) == "engine:timeout=5:./bot"
    assert str(spec.with_option("timeout", "9")) == "engine:timeout=9,name=v2:./bot"
    assert spec.with_logs("d").option("log") == "d"
    assert spec.with_option("log", "mine").with_logs("d").option("log") == "mine"
    assert PlayerSpec.parse("search:depth=2").values() == {"depth": 2}
    with pytest.raises(InvalidPlayerError, match="holds a comma or a colon"):
        spec.with_option("log", "C:/logs")
    with pytest.raises(InvalidPlayerError, match="holds a comma"):
        PlayerSpec.parse("search").with_option("name", "a,b")


def test_a_person_is_seated_by_a_front_end_never_made() -> None:
    with pytest.raises(InvalidPlayerError, match="is a person: the front end"):
        make_player("Human", get_game("orderchaos"))
    with pytest.raises(InvalidParameterError, match="a person's seat"):
        register_player("human", RandomPlayer)
    assert outside_code("human") is None and "human" not in available_players()


def test_a_plugin_player_entry_says_how_its_argument_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[str] = []

    def echo(game: object, text: str) -> Player:
        made.append(text)
        return RandomPlayer(get_game("orderchaos"))

    monkeypatch.setitem(_players, "echo", PlayerEntry(echo, ArgumentKind.RAW))
    assert PlayerSpec.parse("echo:a=1:b,c").argument == "a=1:b,c"
    make_player("echo:a=1:b,c", get_game("orderchaos"))
    assert made == ["a=1:b,c"] and describe_player("echo").options is None


# --- the programs' logs ---------------------------------------------------------------------------


def test_with_logs_gives_a_program_a_log_directory() -> None:
    assert with_logs("engine:./bot --fast", "/var/logs") == "engine:log=/var/logs:./bot --fast"
    assert with_logs("ENGINE:grace=1:./bot", "d") == "engine:grace=1,log=d:./bot"
    assert with_logs("engine::A=1:./bot", "d") == "engine:log=d:A=1:./bot"
    assert with_logs("engine:log=mine:./bot", "d") == "engine:log=mine:./bot"
    for spec in ("random", "search:depth=2", "mybot.py:Bot", "engine", "engine:", "nonsense:x"):
        assert with_logs(spec, "d") == spec
    with pytest.raises(InvalidPlayerError, match="comma or a colon"):
        with_logs("engine:./bot", "C:/logs")
