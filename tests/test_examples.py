"""Every script in examples/ runs, and prints what its page shows: the tiny engine plays through
the referee, the tutorial's listings, the learning examples of examples/rl, and the batched
simulators' self-play and scaling plot."""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from abstractgames import get_game, make_player
from abstractgames.records import MatchRecord
from abstractgames.referee import Referee

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))


def load_example(name: str) -> ModuleType:
    """The module of the script `name` in examples/ (a path below it), loaded by path."""
    spec = importlib.util.spec_from_file_location(Path(name).stem, EXAMPLES_DIR / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SLOW_EXAMPLES = {"dispersal_strength.py", "entropy_strength.py"}
"""The examples that take seconds (each plays many games)."""

EXAMPLE_ARGS = {
    "entropy_decision_quality.py": ("--games", "1", "--seed", "502"),
    "dispersal_strength.py": ("--games", "1"),
    "entropy_strength.py": ("--games", "2"),
}
"""Smaller runs than an example's own: the decision quality's quick check measures the positions
of two self-play games (10 s, most of it the reference's deep searches); one game from a seed
whose positions are still of both roles (3 of Order's, 2 of Chaos's) takes 3 s. The strength
scripts play every pairing with fewer games: dispersal's one a side, Entropy's two a pairing (the
fewest its interval is made from)."""


@pytest.mark.parametrize(
    "script",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW_EXAMPLES else p for p in EXAMPLES],
    ids=lambda p: p.name,
)
def test_example_runs(script: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(script), *EXAMPLE_ARGS.get(script.name, ())],
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,  # an engine example sees the end of input and quits
        cwd=EXAMPLES_DIR,
    )
    assert out.returncode == 0, out.stderr


def test_the_tiny_engine_plays_a_whole_game() -> None:
    game = get_game("orderchaos")
    command = shlex.join([sys.executable, str(EXAMPLES_DIR / "tiny_engine.py")])
    engine = make_player(f"engine:timeout=10:{command}", game)
    record = Referee(game, (engine, make_player("random", game)), seed=4).play()
    assert record.result is not None
    assert "illegal" not in record.result.reason and "sent" not in record.result.reason
    MatchRecord.loads(record.dumps()).replay()


# --- the tutorial's listings ----------------------------------------------------------------------

TUTORIAL_DIR = EXAMPLES_DIR / "tutorial"
TUTORIAL = sorted(TUTORIAL_DIR.glob("*.py"))
DOCS_DIR = EXAMPLES_DIR.parent / "docs"


def run_in_copy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``args`` in a fresh copy of examples/tutorial, as a reader runs the files they saved
    (hypothesis's example database and __pycache__ land in the copy, not in the repository)."""
    work = tmp_path / "tutorial"
    if not work.exists():
        ignore = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.out")
        shutil.copytree(TUTORIAL_DIR, work, ignore=ignore)
    return subprocess.run(
        args,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        cwd=work,
        env=dict(os.environ, NO_COLOR="1"),
    )


SLOW_LISTINGS = {"check_a_game.py", "check_a_player.py", "test_conformance.py", "test_first_bot.py"}
"""The listings that take a second or more (the conformance kits, pytest)."""


@pytest.mark.parametrize(
    "listing",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW_LISTINGS else p for p in TUTORIAL],
    ids=lambda p: p.name,
)
def test_tutorial_listing_prints_what_its_page_shows(listing: Path, tmp_path: Path) -> None:
    """A listing ``test_*.py`` passes under pytest; any other runs and prints exactly its
    ``.out`` file, which the page shows under it."""
    if listing.name.startswith("test_"):
        done = run_in_copy(
            tmp_path, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", listing.name
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return
    done = run_in_copy(tmp_path, sys.executable, listing.name)
    assert done.returncode == 0, done.stderr
    expected = listing.with_suffix(".out")
    assert expected.exists(), f"{expected.name} is missing: the page shows the output"
    assert done.stdout == expected.read_text(encoding="utf-8")


def test_every_tutorial_listing_is_on_a_page() -> None:
    pages = "".join(p.read_text(encoding="utf-8") for p in DOCS_DIR.rglob("*.md"))
    for path in sorted(TUTORIAL_DIR.glob("*.py")) + sorted(TUTORIAL_DIR.glob("*.out")):
        assert f'--8<-- "examples/tutorial/{path.name}"' in pages, f"{path.name} is on no page"


@pytest.mark.slow
def test_the_tutorial_bot_plays_from_the_command_line(tmp_path: Path) -> None:
    """The commands of the page 'Your first bot', with the bot as a file: FILE:CLASS."""
    cli = (sys.executable, "-m", "abstractgames")
    bot = "first_bot.py:FirstWin"
    played = run_in_copy(tmp_path, *cli, "play", "orderchaos", "-1", bot, "-2", "random")
    assert played.returncode == 0 and "Result: " in played.stdout, played.stdout + played.stderr
    arena = run_in_copy(
        tmp_path, *cli, "arena", "orderchaos", "--players", "random", bot, "--games", "2", "-q"
    )
    assert arena.returncode == 0 and "FirstWin" in arena.stdout, arena.stdout + arena.stderr


# --- the batched simulators' examples -------------------------------------------------------------


def test_the_self_play_example_runs() -> None:
    script = Path(__file__).resolve().parent.parent / "examples" / "vector" / "selfplay.py"
    out = subprocess.run(
        [sys.executable, str(script), "entropy:size=5", "16", "20"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "mean returns" in out.stdout


def test_the_scaling_plot_is_drawn_from_the_figures_on_the_page() -> None:
    root = Path(__file__).resolve().parent.parent
    module = load_example("vector/plot_scaling.py")
    figures = json.loads((root / "docs" / "images" / "vector-bench.json").read_text())
    drawn = module.plot(figures)
    assert drawn == (root / "docs" / "images" / "vector-scaling.svg").read_text(encoding="utf-8")
    page = (root / "docs" / "vector.md").read_text(encoding="utf-8")
    for game, row in figures.items():  # the page's table shows the same figures
        cells = [
            f"{row['scalar']:,}",
            *(f"{row['vector'][b]:,}" for b in ("1", "64", "1024", "4096")),
        ]
        assert f"| `{game}` | " + " | ".join(cells) in page, game


# --- the decision-quality measurement ----------------------------------------------------------


def test_the_decision_quality_reference_values_its_own_choice_best() -> None:
    """Each move is valued by the reference search one ply down, so the reference's own move
    comes out best for the mover: always for Chaos, whose search and valuation see the same tree
    and bag; for Order, in all but a few positions, as its search values every line with the
    root's bag and the valuation searches after each draw with the bag left. The valuations were
    once a ply off (Order's slides valued by Chaos's search at Order's reference depth, Chaos's
    placements by Order's at two less than Chaos's): then 3 of these 17 Chaos choices and 10 of
    the 14 Order ones came out worse than another move."""
    module = load_example("entropy_decision_quality.py")
    game = get_game("entropy", size=5)
    positions = module.middle_game_positions(game, "search:depth=2", 4, 502)
    reference = module.Reference(game, order_depth=2, chaos_depth=3)
    worse = {"order": 0, "chaos": 0}
    seen = {"order": 0, "chaos": 0}
    for state in positions:
        chosen = reference.value(state, reference.move(state))
        values = [reference.value(state, move) for move in state.legal_moves()]
        role = str(state.to_move)
        seen[role] += 1
        if (chosen < max(values) - 1e-9) if role == "order" else (chosen > min(values) + 1e-9):
            worse[role] += 1
    assert seen == {"order": 14, "chaos": 17}
    assert worse["chaos"] == 0
    assert worse["order"] <= 2


def test_the_decision_quality_of_the_reference_itself_loses_nothing() -> None:
    """The depth options reach the reference: a bot that is the reference loses nothing."""
    script = EXAMPLES_DIR / "entropy_decision_quality.py"
    args = ["--games", "1", "--seed", "502", "--order-depth", "2", "--chaos-depth", "2"]
    out = subprocess.run(
        [sys.executable, str(script), *args, "--player", "search:depth=2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = out.stdout.splitlines()
    assert [line.split()[1] for line in lines] == ["order", "chaos"]
    for line in lines:
        assert line.split()[-3:] in (["0.000", "±", "0.000"], ["-0.000", "±", "0.000"]), line


def test_the_decision_quality_refuses_a_reference_too_shallow_to_value_a_move() -> None:
    script = EXAMPLES_DIR / "entropy_decision_quality.py"
    out = subprocess.run(
        [sys.executable, str(script), "--order-depth", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert "at least 2" in out.stderr and "Traceback" not in out.stderr
