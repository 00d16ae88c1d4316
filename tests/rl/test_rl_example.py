"""The learning examples of examples/rl run, learn, and print what docs/rl.md shows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "rl"
PAGE = ROOT / "docs" / "rl.md"

NUMBER = re.compile(r"[-+]?\d[\d,.]*%?")


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=EXAMPLES,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def shape(text: str) -> list[str]:
    """The lines of `text` with every number replaced by `#` and runs of spaces by one."""
    return [re.sub(r" +", " ", NUMBER.sub("#", line)) for line in text.splitlines()]


def results(text: str) -> list[tuple[float, float]]:
    """(share of wins, mean return) of each evaluation line."""
    found = re.findall(r"wins +([\d.]+)% of \d+ games, mean return ([-+][\d.]+)", text)
    return [(float(won) / 100, float(mean)) for won, mean in found]


@pytest.fixture(scope="module")
def tiny() -> str:
    return run("q_learning.py", "--episodes", "300", "--eval", "50", "--seed", "3")


def test_q_learning_runs_with_a_tiny_budget(tiny: str) -> None:
    lines = tiny.splitlines()
    assert lines[0].endswith("chaos learns against the random player, seed 3")
    assert lines[1].startswith("random policy:") and lines[-2].startswith("learned policy:")
    assert len(results(tiny)) == 7  # before, five times while learning, after
    for won, mean in results(tiny):
        assert 0 <= won <= 1 and -1 <= mean <= 1
        assert mean == pytest.approx(2 * won - 1)  # no draws in Order and Chaos: +1 or -1
    assert re.fullmatch(r"\(300 training games in \d+ s\)", lines[-1])


def test_q_learning_is_reproducible(tiny: str) -> None:
    again = run("q_learning.py", "--episodes", "300", "--eval", "50", "--seed", "3")
    assert again.splitlines()[:-1] == tiny.splitlines()[:-1]  # all but the time taken


def test_q_learning_runs_on_another_game_and_role() -> None:
    out = run(
        "q_learning.py",
        "--episodes",
        "10",
        "--eval",
        "5",
        "--game",
        "entropy:size=5",
        "--role",
        "order",
    )
    assert "Entropy: order learns" in out.splitlines()[0] and len(results(out)) == 7


def test_the_page_shows_the_full_run_of_this_script(tiny: str) -> None:
    """The output on the page (q_learning.out, made with the default budget) has the lines the
    script prints today, and shows a real improvement over the random policy."""
    shown = (EXAMPLES / "q_learning.out").read_text(encoding="utf-8")
    assert shape(shown) == shape(tiny)
    assert shown.splitlines()[0].endswith("seed 0") and "of 1000 games" in shown
    (random_won, random_mean), *_, (learned_won, learned_mean) = results(shown)
    assert learned_won > random_won + 0.3 and learned_mean > random_mean + 0.6
    page = PAGE.read_text(encoding="utf-8")
    for name in ("q_learning.py", "q_learning.out"):
        assert f'--8<-- "examples/rl/{name}"' in page
    assert "python examples/rl/q_learning.py --episodes 20000 --seed 0" in page


def test_env_speed_runs() -> None:
    out = run("env_speed.py", "orderchaos", "--moves", "300", "--rounds", "1")
    lines = out.splitlines()
    assert lines[0].startswith("orderchaos: moves per second")
    ways = [line.split()[0] for line in lines[1:]]
    assert ways == ["protocol", "actions", "raw_env", "pettingzoo"]


def test_the_openspiel_tour_prints_what_the_page_shows() -> None:
    printed = run("openspiel_tour.py")
    assert printed == (EXAMPLES / "openspiel_tour.out").read_text(encoding="utf-8")
    assert '--8<-- "examples/rl/openspiel_tour.py"' in PAGE.read_text(encoding="utf-8")
