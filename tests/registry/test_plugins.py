"""Plugins (`abstractgames.registry.plugins`): games and players added by the entry points of
installed distributions, broken plugins named and never hiding the built-in games, and the example
plugin (examples/plugin_game) installed into a fresh virtual environment, with broken plugins seen
through that environment's command line.

A module fixture makes the environment once: ``python -m venv --system-site-packages``, so the
plugin finds abstractgames and its dependencies, then ``pip install --no-deps --no-build-isolation
--no-index`` of a copy of the example (pip builds in the source tree; the copy keeps build/ and
*.egg-info out of examples/). Two things make that work offline:

- When the running interpreter is itself in a virtual environment (a developer's venv, CI's
  .venv-ci), ``--system-site-packages`` reaches the base interpreter's site-packages, not that
  environment's: a ``.pth`` file in the new environment adds the running environment's
  site-packages (with their own ``.pth`` files, such as the editable install of abstractgames).
- Without build isolation, pip builds with the setuptools it finds: the test extras bring one
  (70.1 or later) that builds wheels by itself, without the ``wheel`` package.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from abstractgames import (
    UnknownGameError,
    available_games,
    available_players,
    get_game,
    make_player,
)
from abstractgames.registry import (
    PluginError,
    PluginWarning,
    describe_game,
    evaluation_for,
    outside_code,
    refresh_plugins,
)
from abstractgames.testing import conformance_properties, player_properties

# --- plugins --------------------------------------------------------------------------------------


def install_plugin(
    site: Path, name: str, entry_points: str, module: str, code: str, version: str = "1.0"
) -> None:
    """Distribution ``name`` with these entry points and one module, in the folder ``site``, as
    an installer leaves it: the module, and the distribution's metadata beside it."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
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
    from tests.support.toygame import DiceRace

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
        firstmove = tests.registry.test_players:FirstMove
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

    monkeypatch.setattr("importlib.metadata.entry_points", broken)
    refresh_plugins()
    try:
        with pytest.warns(PluginWarning, match="cannot be read: ValueError: bad entry_points"):
            assert available_games() == ("dispersal", "entropy", "orderchaos")
        assert get_game("entropy").name == "entropy"
    finally:
        monkeypatch.undo()
        refresh_plugins()


# --- the example plugin in a fresh virtual environment --------------------------------------------


ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "plugin_game"
DOCS_PAGE = ROOT / "docs" / "add-a-game.md"
DISTRIBUTION = "distribution abstractgames-tictactoe 0.1.0"
BUILTIN_GAMES = ("dispersal", "entropy", "orderchaos")


class Venv:
    """A throwaway virtual environment that sees the abstractgames the tests run with."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.work = path.parent  # the working directory of every command, for any files
        subprocess.run(
            [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(path)],
            check=True,
            capture_output=True,
        )
        bin_dir = "Scripts" if os.name == "nt" else "bin"
        self.python = path / bin_dir / ("python.exe" if os.name == "nt" else "python")
        if sys.prefix != sys.base_prefix:  # see the module docstring
            purelib = Path(self.run("-c", "import sysconfig; print(sysconfig.get_path('purelib'))"))
            lines = {
                f"import site; site.addsitedir({directory!r})\n"
                for directory in {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
            }
            (purelib / "_abstractgames_tests_parent.pth").write_text("".join(sorted(lines)))

    def command(
        self, *args: str, stdin: str = "", check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
        env.update(NO_COLOR="1", COLUMNS="120", PYTHONIOENCODING="utf-8", PIP_NO_INPUT="1")
        done = subprocess.run(
            [str(self.python), *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=self.work,
            env=env,
            timeout=120,
        )
        if check and done.returncode != 0:
            pytest.fail(f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return done

    def run(self, *args: str) -> str:
        """Run the environment's Python; its standard output, stripped."""
        return self.command(*args).stdout.strip()

    def cli(
        self, *args: str, stdin: str = "", check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run ``abstractgames ARGS`` of this environment."""
        return self.command("-m", "abstractgames", *args, stdin=stdin, check=check)

    def install(self, *projects: Path) -> None:
        """Install the projects offline, without their dependencies (see the module docstring)."""
        flags = ["--no-deps", "--no-build-isolation", "--no-index"]
        targets = [str(p) for p in projects]
        self.command(
            "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *flags, *targets
        )


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """A fresh environment with the example plugin installed."""
    root = tmp_path_factory.mktemp("plugin")
    project = root / "plugin_game"
    shutil.copytree(
        EXAMPLE, project, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".*")
    )
    environment = Venv(root / "venv")
    environment.install(project)
    return environment


# --- the example plugin ---------------------------------------------------------------------------


@pytest.mark.slow
def test_list_shows_the_game_and_the_player_with_their_distribution(venv: Venv) -> None:
    done = venv.cli("list")  # from the metadata, the plugin's code not imported
    assert done.stderr == ""
    game = listed_row(done.stdout, "tictactoe")  # its cells wrapped within their columns
    assert {*DISTRIBUTION.split(), "?", "(not", "loaded)"} <= set(game.split())
    assert "(not loaded)" in game
    player = listed_row(done.stdout, "minimax")
    assert {*DISTRIBUTION.split(), "?", "(not", "loaded)"} <= set(player.split())
    done = venv.cli("list", "--load")
    assert done.stderr == ""
    game = listed_row(done.stdout, "tictactoe")  # name, from, parameters, title
    assert {*DISTRIBUTION.split(), "-", "Tic-tac-toe"} <= set(game.split())
    assert re.split(r" {2,}", game.splitlines()[0])[-2:] == ["-", "Tic-tac-toe"]
    player = listed_row(done.stdout, "minimax")
    assert {*DISTRIBUTION.split(), "-"} <= set(player.split()) and "(not loaded)" not in player
    listing = json.loads(venv.cli("list", "--json", "--load").stdout)
    games = {game["name"]: game for game in listing["games"]}
    assert set(games) == {*BUILTIN_GAMES, "tictactoe"}
    assert games["tictactoe"]["roles"] == ["x", "o"]
    assert games["tictactoe"]["origin"] == DISTRIBUTION
    unloaded = json.loads(venv.cli("list", "--json").stdout)["games"]
    assert {g["name"]: g["entry_point"] for g in unloaded if not g["loaded"]} == {
        "tictactoe": "abstractgames_tictactoe:ENTRY"
    }


@pytest.mark.slow
def test_play_a_recorded_game_and_replay_it(venv: Venv) -> None:
    done = venv.cli(
        "play", "tictactoe", "-1", "random", "-2", "greedy", "--seed", "3", "--record", "game.json"
    )
    assert "Result: player 2 (greedy) wins — three in a row" in done.stdout
    record = json.loads((venv.work / "game.json").read_text(encoding="utf-8"))
    assert record["game"] == "tictactoe" and record["players"] == ["random", "greedy"]
    replayed = venv.cli("replay", "game.json")
    assert "game 1: three in a row" in replayed.stdout
    assert "Result: player 2 wins — three in a row" in replayed.stdout


@pytest.mark.slow
def test_arena_plays_the_game_in_worker_processes(venv: Venv) -> None:
    done = venv.cli(
        "arena", "tictactoe", "--players", "random", "greedy",
        "--games", "4", "--seed", "1", "--jobs", "2", "-q",
    )  # fmt: skip
    assert done.stderr == ""
    table = done.stdout
    assert table.startswith("tictactoe: 2 players, 4 games per pair, seed 1\n")
    assert re.search(r"^random vs greedy +4 ", table, re.M), table


@pytest.mark.slow
def test_show_draws_a_position(venv: Venv) -> None:
    done = venv.cli("show", "tictactoe", "XXX/OO1/3", "o")
    assert done.stdout.splitlines() == [
        " 3  X  X  X ",
        " 2  O  O  · ",
        " 1  ·  ·  · ",
        "    a  b  c ",
        "three in a row: a3 b3 c3",
        "XXX/OO1/3 o",
    ]


@pytest.mark.slow
def test_bench_measures_random_games(venv: Venv) -> None:
    done = venv.cli("bench", "tictactoe", "-n", "20", "-r", "1")
    assert re.match(r"tictactoe +[\d,]+ random games/s", done.stdout), done.stdout


@pytest.mark.slow
def test_the_plugin_player_and_the_search_player(venv: Venv) -> None:
    venv.cli(
        "play", "tictactoe", "-1", "random", "-2", "minimax", "--seed", "2", "--record", "p.json"
    )
    record = json.loads((venv.work / "p.json").read_text(encoding="utf-8"))
    assert record["players"] == ["random", "minimax"]
    assert record["result"]["winner"] in (2, None)
    # GameEntry(search=...) makes the search player the perfect one: two of them always draw.
    done = venv.cli("play", "tictactoe", "-1", "search", "-2", "minimax", "--seed", "2")
    assert "Result: a draw — board full without three in a row" in done.stdout


@pytest.mark.slow
def test_a_person_plays_at_the_terminal(venv: Venv) -> None:
    squares = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]  # in turn, until one is free
    typed = ["help", "moves", "zz", *squares]
    done = venv.cli(
        "play", "tictactoe", "-1", "human", "-2", "random", "--seed", "5",
        stdin="\n".join(typed) + "\n",
    )  # fmt: skip
    out = done.stdout
    assert "Type a move in the notation shown by 'moves'" in out
    assert "9 legal moves: a1 b1 c1 a2 b2 c2 a3 b3 c3" in out
    assert "not played: cannot read move 'zz': name the square to mark, a1 to c3" in out
    assert "x (you)> " in out
    assert "Result: " in out


@pytest.mark.slow
def test_the_examples_own_tests_pass(venv: Venv) -> None:
    tests = venv.work / "plugin_game" / "tests"
    done = venv.command("-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests))
    assert " passed" in done.stdout and "failed" not in done.stdout


@pytest.mark.slow
def test_the_game_in_python_passes_the_conformance_kit(venv: Venv) -> None:
    script = """
        from abstractgames import available_games, get_game, make_player
        from abstractgames.testing import check_game
        import abstractgames_tictactoe

        assert "tictactoe" in available_games(), available_games()
        game = get_game("tictactoe")
        check_game(game, max_examples=20)
        assert make_player("greedy", game).evaluate is abstractgames_tictactoe.evaluate
        print(type(game).__module__, game.initial_state().position())
    """
    assert venv.run("-c", textwrap.dedent(script)) == "abstractgames_tictactoe.game 3/3/3 x"
    checked = venv.cli("check", "tictactoe", "-n", "10", "--player", "minimax").stdout
    assert "game tictactoe" in checked and "player minimax" in checked
    expected = len(conformance_properties("orderchaos")) + len(
        player_properties("random", "orderchaos")
    )
    assert "FAIL" not in checked and checked.count("  ok   ") == expected


# --- broken plugins -------------------------------------------------------------------------------

BROKEN = {
    "abstractgames-broken-import": (
        "brokenimport = broken_import:Game",
        'raise RuntimeError("the rules are not written yet")\n',
    ),
    "abstractgames-fake-entropy": (
        "entropy = fake_entropy:Game",
        "from abstractgames.orderchaos import OrderChaosGame as Game\n",
    ),
    "abstractgames-bad-factory": (
        "badfactory = bad_factory:make_game",
        'def make_game():\n    raise RuntimeError("no board today")\n',
    ),
}


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Venv]:
    """For each broken plugin, its own distribution installed in its own fresh environment."""
    root = tmp_path_factory.mktemp("broken")
    environments = {}
    for name, (entry_point, code) in BROKEN.items():
        module = name.removeprefix("abstractgames-").replace("-", "_")
        environment = environments[name] = Venv(root / name / "venv")
        site = Path(environment.run("-c", "import sysconfig; print(sysconfig.get_path('purelib'))"))
        # Written as pip installs it (the example plugin above is installed by pip itself).
        entry_points = f"[abstractgames.games]\n{entry_point}\n"
        install_plugin(site, name, entry_points, module, code, version="0.1")
    return environments


def one_line(text: str) -> str:
    """The only line of ``text`` (a message on stderr: one line, never a traceback)."""
    lines = text.splitlines()
    assert len(lines) == 1, text
    return lines[0]


def listed_row(listing: str, name: str) -> str:
    """The lines of the row of ``name`` in a table of ``abstractgames list``: from its name to
    the next row (a line whose text starts after two spaces) or the table's end."""
    after = listing.split(f"\n  {name} ", 1)[1]
    return name + " " + re.split(r"\n(?:  \S|\n)", after, maxsplit=1)[0]


def games_listed(listing: str) -> dict[str, str]:
    """The games of ``abstractgames list``: each name with where it is from (its second
    column)."""
    table = listing.split("\n\n")[0].splitlines()[2:]
    return {line.split()[0]: re.split(r" {2,}", line.strip())[1] for line in table}


@pytest.mark.slow
def test_a_plugin_that_fails_to_import(broken: dict[str, Venv]) -> None:
    venv = broken["abstractgames-broken-import"]
    done = venv.cli("play", "brokenimport", "-1", "random", "-2", "random", check=False)
    assert done.returncode == 1
    assert one_line(done.stderr) == (
        "Error: game 'brokenimport' of distribution abstractgames-broken-import 0.1 cannot be "
        "loaded from 'broken_import:Game': RuntimeError: the rules are not written yet"
    )
    listing = venv.cli("list")  # from the metadata: the module is not imported
    assert listing.stderr == ""
    assert games_listed(listing.stdout) == {
        **{name: "built in" for name in BUILTIN_GAMES},
        "brokenimport": "distribution abstractgames-broken-import 0.1",
    }
    listing = venv.cli("list", "--load")
    assert games_listed(listing.stdout) == {name: "built in" for name in BUILTIN_GAMES}
    assert one_line(listing.stderr) == (
        "abstractgames: warning: game 'brokenimport' of distribution abstractgames-broken-import "
        "0.1 cannot be loaded from 'broken_import:Game': RuntimeError: the rules are not written "
        "yet"
    )


@pytest.mark.slow
def test_a_plugin_claiming_a_builtin_name_is_ignored(broken: dict[str, Venv]) -> None:
    venv = broken["abstractgames-fake-entropy"]
    warning = (
        "abstractgames: warning: game 'entropy' of distribution abstractgames-fake-entropy 0.1 "
        "is ignored: 'entropy' is a built-in game"
    )
    listing = venv.cli("list")
    assert one_line(listing.stderr) == warning
    assert games_listed(listing.stdout) == {name: "built in" for name in BUILTIN_GAMES}
    # The built-in game plays (a command that does not read the plugins does not warn).
    done = venv.cli("play", "entropy:size=5", "-1", "random", "-2", "random", "--seed", "1")
    assert "— game 2:" in done.stdout and "Result: " in done.stdout  # Entropy's two-game match
    assert set(done.stderr.splitlines()) <= {warning}


@pytest.mark.slow
def test_a_plugin_whose_factory_fails(broken: dict[str, Venv]) -> None:
    venv = broken["abstractgames-bad-factory"]
    done = venv.cli("play", "badfactory", "-1", "random", "-2", "random", check=False)
    assert done.returncode == 1
    assert one_line(done.stderr) == (
        "Error: game 'badfactory' (distribution abstractgames-bad-factory 0.1) failed: "
        "RuntimeError: no board today"
    )


# --- the documentation page -----------------------------------------------------------------------


def test_the_docs_listings_are_the_example_code() -> None:
    """Every listing of the page that starts with a comment naming a file of the example is an
    excerpt of it: its parts between ``...`` lines appear in the file, in order."""
    page = DOCS_PAGE.read_text(encoding="utf-8")
    pattern = r"^```(?:python|toml)\n# ((?:src|tests)/\S+|pyproject\.toml)\n(.*?)^```$"
    blocks = re.findall(pattern, page, re.M | re.S)
    assert len(blocks) >= 5
    for name, body in blocks:
        text = (EXAMPLE / name).read_text(encoding="utf-8")
        position = 0
        for part in filter(None, re.split(r"^ *\.\.\.\n", body, flags=re.M)):
            found = text.find(part, position)
            assert found >= 0, f"{name}: not in the file (or not in order):\n{part}"
            position = found + len(part)


@pytest.mark.slow
def test_register_game_without_packaging(tmp_path: Path) -> None:
    """The page's script registers the game in its own process (the game's package next to it,
    not installed); the arena's worker processes see the registration too."""
    page = DOCS_PAGE.read_text(encoding="utf-8")
    (script,) = re.findall(r"^```python\n(# play_tictactoe\.py\n.*?)^```$", page, re.M | re.S)
    (tmp_path / "play_tictactoe.py").write_text(script)
    package = "abstractgames_tictactoe"
    shutil.copytree(EXAMPLE / "src" / package, tmp_path / package)
    env = dict(os.environ, NO_COLOR="1")

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "play_tictactoe.py", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    assert "Result: " in run("play", "tictactoe", "-1", "random", "-2", "greedy", "--seed", "3")
    table = run("arena", "tictactoe", "--players", "random", "greedy", "-n", "2", "-j", "2", "-q")
    assert "greedy" in table


@pytest.mark.slow
def test_the_docs_list_the_installed_game(venv: Venv) -> None:
    hooks = ROOT / "docs"
    code = (
        f"import sys; sys.path.insert(0, {str(hooks)!r}); import hooks; print(hooks.games_table())"
    )
    table = venv.run("-c", code).splitlines()
    assert table[0].endswith("| In one line | From |")
    (row,) = [line for line in table if "`tictactoe`" in line]
    assert "| 3×3 |" in row and row.endswith(f"| {DISTRIBUTION} |")
    assert any("`entropy`" in line and line.endswith("| built in |") for line in table)
