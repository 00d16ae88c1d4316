"""The registry: spec grammar, players from files and modules, plugins by entry points."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import random
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from abstractgames import (
    InvalidParameterError,
    UnknownGameError,
    available_games,
    available_players,
    get_game,
    make_player,
    parse_game_spec,
    register_game,
    register_player,
)
from abstractgames.arena import Arena, ArenaError, ProcessExecutor
from abstractgames.players import InvalidPlayerError, Player, RandomPlayer
from abstractgames.players.openspiel import MCTSPlayer
from abstractgames.referee import Referee
from abstractgames.registry import (
    ArgumentKind,
    OutsideCode,
    PlayerEntry,
    PlayerSpec,
    PluginError,
    PluginWarning,
    describe_game,
    describe_player,
    evaluation_for,
    outside_code,
    refresh_plugins,
    solver_for,
)
from abstractgames.registry.games import _games
from abstractgames.registry.players import _players
from abstractgames.specs import parse_options, parse_value

from .conftest import StopAt
from .toygame import DiceRace

ROOT = Path(__file__).resolve().parent.parent
CENTRE_BOT = ROOT / "examples" / "custom_bot.py"


# --- the spec grammar -----------------------------------------------------------------------------


def test_values_are_read_the_same_for_games_and_players() -> None:
    assert [parse_value(v) for v in ("3", "-2", "1.5", "1e3", "true", "False", "out/dir")] == [
        3,
        -2,
        1.5,
        1000.0,
        True,
        False,
        "out/dir",
    ]
    assert parse_options(" depth = 3 , time=0.5 ") == {"depth": 3, "time": 0.5}
    with pytest.raises(ValueError, match="use key=value"):
        parse_options("depth")
    with pytest.raises(ValueError, match="use key=value"):
        parse_options("my depth=3")
    with pytest.raises(ValueError, match="'depth' is given twice"):
        parse_options("depth=3,depth=4")


def test_game_and_player_specs_share_the_grammar() -> None:
    assert parse_game_spec("entropy:size=5").params == {"size": 5}
    assert parse_game_spec("dispersal:max_plies=12").spec == "dispersal:max_plies=12"
    with pytest.raises(InvalidParameterError, match="must be an integer"):
        parse_game_spec("entropy:size=5.5")
    with pytest.raises(InvalidParameterError, match="given twice"):
        parse_game_spec("entropy:size=5,size=7")
    game = get_game("orderchaos")
    assert make_player("search:time=0.5,depth=2", game).spec == "search:time=0.5,depth=2"
    with pytest.raises(InvalidPlayerError, match="given twice"):
        make_player("search:depth=2,depth=3", game)


def test_the_generic_players_find_what_each_game_gives_them() -> None:
    for name in available_games():
        game = get_game(name)
        assert evaluation_for(game) is not None
        assert isinstance(make_player("search:depth=1", game), Player)
    assert solver_for(get_game("dispersal")) is not None
    with pytest.raises(PluginError, match=r"no solver for 'orderchaos'.*dispersal"):
        solver_for(get_game("orderchaos"))


def test_listings_describe_every_game_and_player() -> None:
    for name in available_games():
        info = describe_game(name)
        assert info.origin == "built in" and info.roles == get_game(name).roles
        assert info.title and info.summary
    for name in available_players():
        assert describe_player(name).summary
    assert describe_player("search").options == {"time": 1.0, "depth": None}
    assert describe_player("engine").options is None


def test_built_in_names_cannot_be_taken() -> None:
    with pytest.raises(InvalidParameterError, match="'entropy' is a built-in game"):
        register_game("entropy", DiceRace)
    with pytest.raises(InvalidParameterError, match="'greedy' is a built-in player"):
        register_player("greedy", RandomPlayer)
    with pytest.raises(InvalidParameterError, match="invalid player name"):
        register_player("My Bot", RandomPlayer)


# --- players from files and modules ---------------------------------------------------------------


def test_a_bot_from_a_file_with_a_constructor_that_takes_nothing() -> None:
    game = get_game("orderchaos")
    spec = f"{CENTRE_BOT}:CentreBot"
    bot = make_player(spec, game)
    assert type(bot).__name__ == "CentreBot" and bot.spec == spec
    assert str(bot.choose(game.initial_state(), random.Random(0))) in (
        "X@c3",
        "X@c4",
        "X@d3",
        "X@d4",
    )
    assert type(make_player(spec, game)) is type(bot)  # the file runs once per process
    assert outside_code(spec) is OutsideCode.PYTHON
    assert outside_code("search:depth=2") is None
    assert outside_code("engine:./mybot") is OutsideCode.PROGRAM
    with pytest.raises(InvalidPlayerError, match="has no option 'depth'; its options: none"):
        make_player(f"{spec}:depth=3", game)


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "mybots.py"
    path.write_text(
        textwrap.dedent(
            """
            import random

            from abstractgames.players import Player
            from helper_for_mybots import pick


            class FirstBot(Player):
                def __init__(self, game, offset=0, *, greedy=False):
                    if offset < 0:
                        raise ValueError("offset must not be negative")
                    self.offset = offset

                def choose(self, state, rng, time_left=None):
                    return pick(state.legal_moves(), self.offset)


            class NeedsDepth(Player):
                def __init__(self, game, depth):
                    self.depth = depth

                def choose(self, state, rng, time_left=None):
                    return state.legal_moves()[0]


            class Crashes(Player):
                def __init__(self, game):
                    raise RuntimeError("out of memory")

                def choose(self, state, rng, time_left=None):
                    raise NotImplementedError


            class NotAPlayer:
                def choose(self, state, rng, time_left=None):
                    return state.legal_moves()[0]


            def function(game):
                return None
            """
        )
    )
    (tmp_path / "helper_for_mybots.py").write_text(
        "def pick(moves, offset):\n    return moves[offset]\n"
    )
    return path


def test_options_go_after_a_second_colon(bot_file: Path) -> None:
    game = get_game("orderchaos")
    bot = make_player(f"{bot_file}:FirstBot:offset=2,greedy=true", game)
    assert str(bot.choose(game.initial_state(), random.Random(0))) == "X@b1"
    assert bot.spec == f"{bot_file}:FirstBot:offset=2,greedy=true"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("FirstBot:speed=3", "has no option 'speed'; its options: offset, greedy"),
        ("FirstBot:offset=-1", "offset must not be negative"),
        ("FirstBot:offset", "use key=value"),
        ("NeedsDepth", "needs the option 'depth'"),
        ("Crashes", "failed: RuntimeError: out of memory"),
        ("NotAPlayer", "is not a Player"),
        ("function", "function in file .* is not a class"),
        ("Missing", "has no 'Missing'; its players: Crashes, FirstBot, NeedsDepth"),
        ("", "name the class after the colon"),
    ],
)
def test_a_bad_bot_spec_says_what_is_wrong(bot_file: Path, target: str, message: str) -> None:
    with pytest.raises(InvalidPlayerError, match=message):
        make_player(f"{bot_file}:{target}", get_game("orderchaos"))


def test_a_missing_or_broken_file_is_one_clear_error(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    with pytest.raises(InvalidPlayerError, match=r"there is no file 'nowhere/bot\.py'"):
        make_player("nowhere/bot.py:Bot", game)
    broken = tmp_path / "broken.py"
    broken.write_text("class Bot(\n")
    with pytest.raises(InvalidPlayerError, match=r"running .*broken.py' failed \(line 1\)"):
        make_player(f"{broken}:Bot", game)
    failing = tmp_path / "failing.py"
    failing.write_text("import no_such_module_anywhere\n")
    with pytest.raises(InvalidPlayerError, match="ModuleNotFoundError"):
        make_player(f"{failing}:Bot", game)
    with pytest.raises(InvalidPlayerError, match="is not a file"):
        make_player(f"{tmp_path}/:Bot", game)


def test_a_bot_from_a_module(bot_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(bot_file.parent))
    game = get_game("orderchaos")
    bot = make_player("mybots:FirstBot:offset=1", game)
    assert str(bot.choose(game.initial_state(), random.Random(0))) == "O@a1"
    assert outside_code("mybots:FirstBot") is OutsideCode.PYTHON
    with pytest.raises(InvalidPlayerError, match="there is no module 'no_such_bots'"):
        make_player("no_such_bots:Bot", game)
    with pytest.raises(InvalidPlayerError, match=r"there is no module 'no_such\.bots'"):
        make_player("no_such.bots:Bot", game)
    with pytest.raises(InvalidPlayerError, match="unknown player 'deepblue'; available players"):
        make_player("deepblue", game)


def test_a_bot_from_a_file_plays_from_the_command_line_and_in_the_arena(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    spec = "examples/custom_bot.py:CentreBot"
    play = [sys.executable, "-m", "abstractgames", "play", "orderchaos", "-1", spec, "-2", "random"]
    out = subprocess.run(
        [*play, "--seed", "2", "--record", str(record)], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "Result: player 1 (examples/custom_bot.py:CentreBot) wins" in out.stdout
    resumed = subprocess.run(
        [sys.executable, "-m", "abstractgames", "replay", str(record)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert resumed.returncode == 0, resumed.stderr
    arena = [sys.executable, "-m", "abstractgames", "arena", "orderchaos", "-q", "--seed", "1"]
    out = subprocess.run(
        [*arena, "--players", "random", spec, "--games", "4", "--jobs", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines()]
    assert ["random", "vs", spec, "4"] in [row[:4] for row in rows]  # all 4 games played


def test_a_bot_from_a_file_serves_as_an_engine_and_a_codecup_program(bot_file: Path) -> None:
    engine = subprocess.run(
        [sys.executable, "-m", "abstractgames", "engine", "--player", f"{bot_file}:FirstBot"],
        input="agp 1\ngame orderchaos\nposition startpos\ngo timeout 5\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert engine.returncode == 0, engine.stderr
    assert engine.stdout.splitlines()[0] == f"id name abstractgames {bot_file}:FirstBot"
    assert engine.stdout.splitlines()[-1] == "move X@a1"
    codecup = subprocess.run(
        [sys.executable, "-m", "abstractgames", "codecup", "--player", f"{bot_file}:FirstBot"],
        input="Start\n3\nQuit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert codecup.returncode == 0, codecup.stderr
    assert codecup.stdout.splitlines() == ["Aa"]  # the first empty square, a1


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


# --- plugins --------------------------------------------------------------------------------------


def install_plugin(site: Path, name: str, entry_points: str, module: str, code: str) -> None:
    """Distribution ``name`` 1.0 with these entry points and one module, in the folder ``site``."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    (site / f"{module}.py").write_text(textwrap.dedent(code))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    refresh_plugins()
    yield tmp_path
    monkeypatch.undo()
    refresh_plugins()


PLUGIN_GAMES = """
    from abstractgames.registry import GameEntry
    from tests.toygame import DiceRace

    class Race(DiceRace):
        name = "race"

    class Misnamed(DiceRace):
        name = "something_else"

    def crashes():
        raise RuntimeError("disk on fire")

    def evaluate(state, role):
        return 0.0

    RACE = GameEntry(Race, evaluation=evaluate)
    NOT_A_FACTORY = 42
"""


def test_plugins_add_games_and_players(site: Path) -> None:
    install_plugin(
        site,
        "racing",
        """
        [abstractgames.games]
        race = racing_plugin:RACE
        [abstractgames.players]
        firstmove = tests.test_registry:FirstMove
        """,
        "racing_plugin",
        PLUGIN_GAMES,
    )
    refresh_plugins()
    assert "race" in available_games() and "firstmove" in available_players()
    game = get_game("race")
    assert describe_game("race").origin == "distribution racing 1.0"
    assert evaluation_for(game) is not None
    rolled = game.initial_state().apply("roll1")
    assert (
        make_player("firstmove", game).choose(rolled, random.Random(0)) == rolled.legal_moves()[0]
    )
    assert outside_code("firstmove") is None  # installed code is trusted in a record


def test_broken_plugins_are_named_and_never_hide_the_built_in_games(site: Path) -> None:
    install_plugin(
        site,
        "badgames",
        """
        [abstractgames.games]
        entropy = bad_games:RACE
        misnamed = bad_games:Misnamed
        crashing = bad_games:crashes
        notafactory = bad_games:NOT_A_FACTORY
        missing = bad_games:Nothing
        Bad-Name = bad_games:RACE
        """,
        "bad_games",
        PLUGIN_GAMES,
    )
    install_plugin(
        site,
        "unimportable",
        """
        [abstractgames.games]
        broken = unimportable_plugin:Game
        """,
        "unimportable_plugin",
        "raise ImportError('needs numpy 9')\n",
    )
    refresh_plugins()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = available_games()
    messages = sorted(str(w.message) for w in caught if w.category is PluginWarning)
    assert messages == [
        "game 'Bad-Name' of distribution badgames 1.0 is ignored: a name is lower-case letters, "
        "digits, _ and -, starting with a letter",
        "game 'entropy' of distribution badgames 1.0 is ignored: 'entropy' is a built-in game",
    ]
    assert {"dispersal", "entropy", "orderchaos", "broken", "crashing"} <= set(names)
    assert type(get_game("entropy")).__module__.startswith("abstractgames.")  # still the built-in
    problems = {
        "broken": "game 'broken' of distribution unimportable 1.0 cannot be loaded from "
        "'unimportable_plugin:Game': ImportError: needs numpy 9",
        "crashing": r"game 'crashing' \(distribution badgames 1.0\) failed: RuntimeError: disk",
        "misnamed": "made a game called 'something_else'",
        "notafactory": "is 42: its entry point must name a Game",
        "missing": "cannot be loaded from 'bad_games:Nothing': AttributeError",
    }
    for name, message in problems.items():
        with pytest.raises(PluginError, match=message):
            get_game(name)
    with pytest.raises(UnknownGameError):
        get_game("nothing")


def test_a_plugin_player_that_clashes_is_ignored(site: Path) -> None:
    install_plugin(
        site,
        "clash",
        """
        [abstractgames.players]
        greedy = clash_plugin:Bot
        """,
        "clash_plugin",
        "Bot = None\n",
    )
    refresh_plugins()
    with pytest.warns(PluginWarning, match="player 'greedy' of distribution clash 1.0 is ignored"):
        assert "greedy" in available_players()
    assert type(make_player("greedy", get_game("orderchaos"))).__name__ == "GreedyPlayer"


def test_unreadable_plugin_metadata_never_hides_the_built_in_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(**kwargs: object) -> object:
        raise ValueError("bad entry_points.txt")

    monkeypatch.setattr("abstractgames.registry.plugins.metadata.entry_points", broken)
    refresh_plugins()
    try:
        with pytest.warns(PluginWarning, match="cannot be read: ValueError: bad entry_points"):
            assert available_games() == ("dispersal", "entropy", "orderchaos")
        assert get_game("entropy").name == "entropy"
    finally:
        monkeypatch.undo()
        refresh_plugins()


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


LIST_WITHOUT_OPENSPIEL = """
import json, sys
{block}
def imported():
    return sorted(m for m in ("pyspiel", "open_spiel") if sys.modules.get(m) is not None)
import abstractgames.players.openspiel
on_import = imported()
from abstractgames import get_game, make_player
from abstractgames.cli import main
from abstractgames.players import InvalidPlayerError
try:
    main(["list", "--json"])
except SystemExit as done:
    assert not done.code, done.code
print("---")
print(json.dumps([on_import, imported()]))
try:
    make_player("openspiel-mcts", get_game("orderchaos"))
except InvalidPlayerError as error:
    print(error)
"""


@pytest.mark.parametrize("blocked", [False, True], ids=["as-installed", "openspiel-blocked"])
def test_the_openspiel_player_is_listed_without_importing_openspiel(blocked: bool) -> None:
    # Without OpenSpiel (its imports blocked) the module imports and the listing is whole.
    block = "sys.modules['pyspiel'] = sys.modules['open_spiel'] = None" if blocked else ""
    code = LIST_WITHOUT_OPENSPIEL.format(block=block)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    listing, rest = done.stdout.split("\n---\n")
    imported, *error = rest.splitlines()
    players = {p["name"]: p["origin"] for p in json.loads(listing)["players"]}
    assert players["openspiel-mcts"] == "built in"
    assert json.loads(imported) == [[], []]  # neither on import nor for the listing
    if blocked:
        assert error == ["openspiel-mcts needs OpenSpiel: pip install 'abstractgames[rl]'"]


def test_a_record_never_runs_a_bot_file_on_resume(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    spec = f"{CENTRE_BOT}:CentreBot"
    record = Referee(game, (make_player(spec, game), StopAt(3)), seed=5).play()
    assert not record.finished
    path = tmp_path / "match.json"
    record.save(path)
    command = [sys.executable, "-m", "abstractgames", "play", "--resume", str(path)]
    out = subprocess.run([*command, "-2", "random"], capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr.strip() == (
        f"Error: {path}: player 1 in this record is a bot from a file or module ({spec}): "
        "programs, files and modules are only started from a spec you give; give it with -1 to "
        "continue"
    )
    out = subprocess.run([*command, "-1", spec, "-2", "random"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "Result: " in out.stdout


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
