"""Plugins that misbehave when imported (`abstractgames.registry.plugins`): a plugin calling
``sys.exit``, raising ``KeyboardInterrupt`` or an exception, or never finishing its import, is
one line naming its distribution, never the end (or the hang) of a command that did not ask for
it; and a Ctrl-C during a plugin's import still stops the program.

The plugins are throwaway distributions: a ``NAME-1.0.dist-info`` folder (its metadata and entry
points) and a module, in a folder that a command line in a subprocess gets on ``PYTHONPATH``,
where ``importlib.metadata`` finds them as it finds any installed distribution. Each plugin's
module first writes a file ``imported-MODULE`` into the working directory, so a test sees
whether the command imported it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from abstractgames import available_games, get_game
from abstractgames.registry import (
    PluginError,
    plugin_game,
    plugin_player,
    refresh_plugins,
)
from tests.registry.test_plugins import install_plugin, site  # noqa: F401 (a fixture)

BUILTIN_GAMES = ("dispersal", "entropy", "orderchaos")

MARK = "open('imported-{module}', 'w').close()\n"
"""The first line of every plugin module: it says that the module was imported."""

BODIES = {
    "exiting": "import sys\nsys.exit(3)\n",
    "interrupting": "raise KeyboardInterrupt\n",
    "crashing": "raise RuntimeError('the rules are not written yet')\n",
    "hanging": "import time\ntime.sleep(60)\n",
    "execing": "exec('raise KeyboardInterrupt', {})\n",  # inside code run from a string
}


def plugin(folder: Path, name: str) -> None:
    """Distribution ``name`` 1.0: the game ``NAME-game`` and the player ``NAME-bot``, both in
    the module ``NAME_plugin``, whose import does what ``BODIES[name]`` says."""
    module = f"{name}_plugin"
    install_plugin(
        folder,
        name,
        f"""
        [abstractgames.games]
        {name}-game = {module}:Game
        [abstractgames.players]
        {name}-bot = {module}:Bot
        """,
        module,
        MARK.format(module=module) + BODIES[name],
    )


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    """A folder with every misbehaving plugin in it (the working directory of the commands)."""
    for name in BODIES:
        plugin(tmp_path / "site", name)
    return tmp_path


def environment(folder: Path) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(folder / "site"), os.environ.get("PYTHONPATH")]))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=path, NO_COLOR="1", COLUMNS="200", PYTHONIOENCODING="utf-8")
    return env


def cli(folder: Path, *args: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    """``abstractgames ARGS`` with the plugins installed; a command that hangs fails the test."""
    return subprocess.run(
        [sys.executable, "-m", "abstractgames", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        env=environment(folder),
        timeout=timeout,
        check=False,
    )


def imported(folder: Path) -> set[str]:
    """The plugin modules the commands imported."""
    return {p.name.removeprefix("imported-") for p in folder.glob("imported-*")}


def cells(line: str) -> list[str]:
    """The columns of a row of `list` (two spaces or more between them)."""
    return re.split(r" {2,}", line.strip())


def listed_row(listing: str, name: str) -> str:
    """The lines of the row of `name` in a table of `list`, up to the next row."""
    after = listing.split(f"\n  {name} ", 1)[1]
    return f"  {name} " + re.split(r"\n(?:  \S|\n)", after, maxsplit=1)[0]


def error_line(name: str, kind: str, error: str) -> str:
    what, suffix = ("game", "game") if kind == "game" else ("player", "bot")
    return (
        f"{what} '{name}-{suffix}' of distribution {name} 1.0 cannot be loaded from "
        f"'{name}_plugin:{kind.title() if kind == 'game' else 'Bot'}': {error}"
    )


# --- list: the metadata, never the code -----------------------------------------------------------


def test_list_shows_the_plugins_from_their_metadata_without_importing_them(plugins: Path) -> None:
    # Before: `list` imported every plugin: it ended with status 3 and no word at the first
    # one's sys.exit, or hung for ever in the hanging one's import.
    done = cli(plugins, "list")
    assert (done.returncode, done.stderr) == (0, "")
    assert imported(plugins) == set()
    lines = done.stdout.splitlines()
    for name in BODIES:
        for kind in ("game", "bot"):  # name, from, parameters or options, what it is
            row = listed_row(done.stdout, f"{name}-{kind}")  # cells wrapped in their columns
            first = cells(row.splitlines()[0])
            assert first[0] == f"{name}-{kind}" and first[1].startswith("distribution")
            assert {"distribution", name, "1.0", "?", "(not", "loaded)"} <= set(row.split())
            assert "(not loaded)" in row
    assert "abstractgames list --load imports them" in " ".join(lines)
    listing = json.loads(cli(plugins, "list", "--json").stdout)
    games = {game["name"]: game for game in listing["games"]}
    assert set(games) == {*BUILTIN_GAMES, *(f"{name}-game" for name in BODIES)}
    assert games["exiting-game"] == {
        "name": "exiting-game",
        "origin": "distribution exiting 1.0",
        "distribution": "exiting",
        "version": "1.0",
        "entry_point": "exiting_plugin:Game",
        "loaded": False,
        "title": None,
        "roles": None,
        "params": None,
        "summary": None,
    }
    assert games["entropy"]["loaded"] is True
    assert games["entropy"]["roles"] == ["chaos", "order"]
    assert imported(plugins) == set()


def test_a_plugin_whose_import_hangs_does_not_hang_list(tmp_path: Path) -> None:
    # Before: `list` waited for ever in the plugin's import (here: for its minute of sleep).
    plugin(tmp_path / "site", "hanging")
    for args in (["list"], ["list", "--json"]):
        done = cli(tmp_path, *args, timeout=10)
        assert (done.returncode, done.stderr) == (0, "")
        assert "hanging-game" in done.stdout and "hanging-bot" in done.stdout
    done = cli(tmp_path, "play", "entropy:size=5", "-1", "random", "-2", "random", timeout=10)
    assert (done.returncode, done.stderr) == (0, "")
    assert imported(tmp_path) == set()


def test_list_load_names_each_plugin_that_fails_to_import(tmp_path: Path) -> None:
    # Before: the plugin's sys.exit ended `list` with status 3 and no word; its KeyboardInterrupt
    # ended it as if the person had pressed Ctrl-C ("interrupted", status 130).
    for name in ("exiting", "interrupting", "crashing"):
        plugin(tmp_path / "site", name)
    done = cli(tmp_path, "list", "--load")
    assert done.returncode == 0, done.stderr
    assert imported(tmp_path) == {
        f"{name}_plugin" for name in ("exiting", "interrupting", "crashing")
    }
    errors = {
        "exiting": "SystemExit: 3",
        "interrupting": "KeyboardInterrupt",
        "crashing": "RuntimeError: the rules are not written yet",
    }
    expected = [
        f"abstractgames: warning: {error_line(name, kind, error)}"
        for kind in ("game", "player")
        for name, error in sorted(errors.items())
    ]
    assert done.stderr.splitlines() == expected
    games = done.stdout.split("\n\n")[0].splitlines()[2:]
    assert [line.split()[0] for line in games] == list(BUILTIN_GAMES)
    assert "(not loaded)" not in done.stdout


def test_an_interrupt_caught_from_code_run_from_a_string_does_not_kill_the_command(
    tmp_path: Path,
) -> None:
    # Before: under `python -m abstractgames`, CPython remembers a KeyboardInterrupt that ends a
    # string `exec` even when it is caught, and kills itself with SIGINT once it has exited:
    # `play` said what was wrong and then died of the signal (return code -2, not 1). A Ctrl-C
    # that lands in such code (a dataclass being made) did it to `arena` now and then.
    plugin(tmp_path / "site", "execing")
    for args in (["play", "execing-game"], ["show", "execing-game"]):
        done = cli(tmp_path, *args)
        assert done.returncode == 1, done.stderr
        assert done.stderr == f"Error: {error_line('execing', 'game', 'KeyboardInterrupt')}\n"


# --- play and arena: only the plugin named is imported --------------------------------------------


@pytest.mark.parametrize("name", ["exiting", "interrupting", "crashing"])
def test_a_plugin_that_fails_to_import_is_one_error_line(tmp_path: Path, name: str) -> None:
    # Before: sys.exit ended `play` with status 3 and no word, a KeyboardInterrupt with
    # "interrupted" (status 130), as if the person had stopped it.
    plugin(tmp_path / "site", name)
    error = {
        "exiting": "SystemExit: 3",
        "interrupting": "KeyboardInterrupt",
        "crashing": "RuntimeError: the rules are not written yet",
    }[name]
    done = cli(tmp_path, "play", f"{name}-game", "-1", "random", "-2", "random")
    assert (done.returncode, done.stderr) == (1, f"Error: {error_line(name, 'game', error)}\n")
    done = cli(tmp_path, "play", "orderchaos", "-1", f"{name}-bot", "-2", "random")
    assert (done.returncode, done.stderr) == (1, f"Error: {error_line(name, 'player', error)}\n")


@pytest.mark.slow
def test_arena_names_a_plugin_that_exits_at_import(plugins: Path) -> None:
    # Before: the plugin's sys.exit ended the arena with status 3 and no word.
    done = cli(plugins, "arena", "exiting-game", "--players", "random", "greedy", "-n", "2", "-q")
    assert (done.returncode, done.stderr) == (
        1,
        f"Error: {error_line('exiting', 'game', 'SystemExit: 3')}\n",
    )
    assert imported(plugins) == {"exiting_plugin"}
    done = cli(plugins, "arena", "orderchaos", "--players", "random", "greedy", "-n", "2", "-q")
    assert (done.returncode, done.stderr) == (0, "")
    assert imported(plugins) == {"exiting_plugin"}  # the others are never imported


def test_the_built_in_games_play_without_importing_any_plugin(plugins: Path) -> None:
    done = cli(plugins, "play", "orderchaos", "-1", "random", "-2", "greedy", "--seed", "1")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert "Result: " in done.stdout
    assert imported(plugins) == set()


# --- a Ctrl-C during a plugin's import is the person's --------------------------------------------


@pytest.mark.parametrize(
    ("signum", "status"),
    [(signal.SIGINT, 130), *([(signal.SIGTERM, 143)] if hasattr(signal, "SIGTERM") else [])],
    ids=["SIGINT", "SIGTERM"],
)
@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_a_signal_during_a_hanging_import_stops_the_program(
    tmp_path: Path, signum: int, status: int
) -> None:
    # The plugin named waits for ever in its import: that is the person's choice of plugin,
    # and Ctrl-C (or kill) stops it, as it stops any command; it is not taken for the plugin's.
    plugin(tmp_path / "site", "hanging")
    process = subprocess.Popen(
        [sys.executable, "-m", "abstractgames", "play", "hanging-game", "-1", "random"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=environment(tmp_path),
    )
    try:
        deadline = time.monotonic() + 20
        while not (tmp_path / "imported-hanging_plugin").exists():
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.02)
        time.sleep(0.1)  # into its sleep
        process.send_signal(signum)
        _, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == status, err
    assert "cannot be loaded" not in err and "interrupted" in err


# --- in this process ------------------------------------------------------------------------------


PLUGIN_CODE = {
    "exits": "import sys\nsys.exit('no rules today')\n",
    "interrupts": "raise KeyboardInterrupt('raised by the plugin')\n",
    "generator": "raise GeneratorExit\n",
    "recursion": "def f():\n    return f()\nf()\n",
}


def test_every_base_exception_of_an_import_is_a_plugin_error(site: Path) -> None:  # noqa: F811
    for name, code in PLUGIN_CODE.items():
        install_plugin(
            site / name,
            name,
            f"[abstractgames.games]\n{name} = {name}_mod:Game\n",
            f"{name}_mod",
            code,
        )
        sys.path.insert(0, str(site / name))
    try:
        refresh_plugins()
        assert set(PLUGIN_CODE) <= set(available_games())
        assert plugin_game("exits") is not None and "exits_mod" not in sys.modules
        messages = {
            "exits": "SystemExit: no rules today",
            "interrupts": "KeyboardInterrupt: raised by the plugin",
            "generator": "GeneratorExit",
            "recursion": "RecursionError: maximum recursion depth exceeded",
        }
        for name, message in messages.items():
            with pytest.raises(PluginError, match=f"of distribution {name} 1.0 cannot be loaded "):
                get_game(name)
            with pytest.raises(PluginError, match=message):
                get_game(name)
    finally:
        for name in PLUGIN_CODE:
            sys.path.remove(str(site / name))


def test_a_signal_during_an_import_goes_on_and_a_thread_never_takes_one_for_a_signal(
    site: Path,  # noqa: F811
) -> None:
    code = "import signal, time\nsignal.raise_signal(signal.SIGINT)\ntime.sleep(5)\n"
    install_plugin(
        site, "signalled", "[abstractgames.games]\nsignalled = sig_mod:Game\n", "sig_mod", code
    )
    install_plugin(
        site, "raising", "[abstractgames.games]\nraising = raising_mod:Game\n", "raising_mod",
        "raise KeyboardInterrupt\n",
    )  # fmt: skip
    refresh_plugins()
    swallowing = (
        "import signal, sys, time\n"
        "try:\n    signal.raise_signal(signal.SIGINT)\n    time.sleep(5)\n"
        "except KeyboardInterrupt:\n    sys.exit(0)\n"
    )
    install_plugin(
        site, "swallowing", "[abstractgames.games]\nswallowing = swallow_mod:Game\n",
        "swallow_mod", swallowing,
    )  # fmt: skip
    refresh_plugins()
    # Ctrl-C as Python handles it, whatever the tests before this one left in the process.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    handler = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        get_game("signalled")
    with pytest.raises(KeyboardInterrupt):  # turned into sys.exit by the plugin: still Ctrl-C
        get_game("swallowing")
    assert signal.getsignal(signal.SIGINT) is handler  # put back
    caught: list[BaseException] = []

    def load() -> None:
        try:
            get_game("raising")
        except BaseException as error:
            caught.append(error)

    thread = threading.Thread(target=load)
    thread.start()
    thread.join(10)
    assert [type(error) for error in caught] == [PluginError]
    assert plugin_player("raising") is None  # a game, not a player
