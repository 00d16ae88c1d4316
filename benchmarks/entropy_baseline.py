"""The Entropy search against its frozen baseline: make the baseline, and sum up the arenas.

The baseline is the library as it was before the Entropy search was made faster and its line
values learned (commit 8ffa33a, 2 December 2026: a plain expectimax over the bag with hand-set
line weights). docs/strength.md measures the packaged `search` against it. This script takes
that version's source from the repository's history (`git archive`), so it runs in a clone, and
installs it in a virtual environment of its own, where it stays whatever the working tree
becomes:

    python benchmarks/entropy_baseline.py baseline

The baseline then plays as an external engine, one arena a seed with its JSON results:

    abstractgames arena entropy -j 2 --games 40 --seed 4402 --json 4402.json \\
        --players search:time=0.1 \\
        "engine:name=baseline:baseline/venv/bin/abstractgames engine --player search:time=0.1"

and `--summary` reads the JSON results of one or more arenas and prints the row of the strength
page's table: the other player's match points against the baseline (won-drawn-lost matches),
its mean Order score, the baseline's mean Order score against its Chaos ("Chaos concedes"), and
the paired difference of the two Order scores match by match, each mean with the half-width of
its 95% interval (Student's t, as the arena's own mean score):

    python benchmarks/entropy_baseline.py --summary 4402.json 4403.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import venv
from pathlib import Path

from abstractgames.stats import mean_interval

BASELINE = "8ffa33a"  # the commit of the frozen baseline, the one benchmarks/RESULTS.md used
REPOSITORY = Path(__file__).resolve().parent.parent
NAME = "baseline"  # the baseline's name in the arena (engine:name=baseline:...)


def freeze(target: Path) -> str:
    """Install the baseline in `target` (its source) and `target/venv`; its program's path."""
    if target.exists() and any(target.iterdir()):
        raise SystemExit(f"{target} is not empty")
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(REPOSITORY), "archive", BASELINE], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(
            f"git archive {BASELINE} failed (run this in a clone of the repository): "
            + archive.stderr.decode(errors="replace").strip()
        )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    venv.create(target / "venv", with_pip=True)
    subprocess.run([str(target / "venv" / "bin" / "pip"), "install", str(target)], check=True)
    return str(target / "venv" / "bin" / "abstractgames")


def _mean(values: list[float], sign: bool = False) -> str:
    mean, half = mean_interval(values)
    text = f"{mean:+.1f}" if sign else f"{mean:.1f}"
    return text if half is None else f"{text} ± {half:.1f}"


def summary(paths: list[Path]) -> str:
    """The row of the strength page's table for the arenas' JSON results in `paths`."""
    won = drawn = lost = 0
    order: list[float] = []
    conceded: list[float] = []
    new = ""
    for path in paths:
        results = json.loads(path.read_text(encoding="utf-8"))
        if results.get("game") != "entropy" or len(results.get("names", ())) != 2:
            raise SystemExit(f"{path}: not the JSON results of an Entropy arena of two players")
        if NAME not in results["names"]:
            raise SystemExit(f"{path}: no player named {NAME!r}")
        by_spec = dict(zip(results["players"], results["names"], strict=True))
        new = next(name for name in results["names"] if name != NAME)
        for match in results["matches"]:
            names = [by_spec[spec] for spec in match["players"]]
            scores = dict(zip(names, match["scores"], strict=True))
            order.append(scores[new])
            conceded.append(scores[NAME])
            if match["winner"] is None:
                drawn += 1
            elif names[match["winner"] - 1] == new:
                won += 1
            else:
                lost += 1
    matches = won + drawn + lost
    if matches == 0:
        raise SystemExit("no matches")
    points = 100 * (won + drawn / 2) / matches
    paired = [a - b for a, b in zip(order, conceded, strict=True)]
    return (
        f"{new} against {NAME}: {matches} matches, match points {points:.1f}% "
        f"({won}-{drawn}-{lost}); Order {_mean(order)}; Chaos concedes {_mean(conceded)}; "
        f"paired {_mean(paired, sign=True)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, help="where to put the baseline")
    parser.add_argument("--summary", nargs="+", type=Path, metavar="JSON", help="arena results")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(args.summary))
    elif args.directory:
        program = freeze(args.directory.resolve())
        print(f"the baseline: {program} engine --player search:time=T")
    else:
        parser.error("give a directory for the baseline, or --summary with arena results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
