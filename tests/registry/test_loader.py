"""Bots from files and modules (`abstractgames.registry.loader`): `FILE:CLASS` and
`module:Class` specs, their options, every way they can be wrong, and such bots in `play`,
`arena`, `engine` and `codecup`."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from abstractgames import get_game, make_player
from abstractgames.players import InvalidPlayerError
from abstractgames.registry import OutsideCode, outside_code

ROOT = Path(__file__).resolve().parents[2]
CENTRE_BOT = ROOT / "examples" / "custom_bot.py"


# --- players from files and modules ---------------------------------------------------------------


def test_a_bot_from_a_file_with_a_constructor_that_takes_nothing() -> None:
    game = get_game("orderchaos")
    spec = f"inprocess:{CENTRE_BOT}:CentreBot"
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
    assert outside_code(f"{CENTRE_BOT}:CentreBot") is OutsideCode.PYTHON
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


@pytest.mark.slow
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
    state = ["--state", str(tmp_path / "state.jsonl")]  # not in the repository (cwd)
    out = subprocess.run(
        [*arena, "--players", "random", spec, "--games", "4", "--jobs", "2", *state],
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
