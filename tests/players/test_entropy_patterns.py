"""The Entropy search's learned line values: line patterns, the pattern tables, the packaged file
and the script that writes it."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from abstractgames import make_player
from abstractgames.entropy import COLOURS, EntropyGame, EntropyState, line_score
from abstractgames.players import entropy as bot
from abstractgames.players.entropy import (
    HAND_WEIGHTS,
    PATTERNS_FILE,
    PatternTable,
    all_patterns,
    line_pattern,
    line_value,
    position_value,
)
from abstractgames.players.entropy.board import _Board
from abstractgames.testing import states
from tests.conftest import examples

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "train_entropy_patterns.py"


def lines(size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="." + COLOURS[:size], min_size=size, max_size=size)


# --- patterns -------------------------------------------------------------------------------------


def test_line_patterns() -> None:
    assert line_pattern("RKR....") == "ABA...."
    assert line_pattern("....RKR") == "ABA...."  # read either way
    assert line_pattern("WKWKW") == "ABABA"
    assert line_pattern(".......") == "......."
    assert line_pattern("P.P.Y.Y") == "A.A.B.B"
    assert (len(all_patterns(7)), len(all_patterns(5))) == (2152, 117)


@settings(max_examples=examples(200))
@given(st.sampled_from([5, 7]), st.data())
def test_a_pattern_ignores_which_colours_and_which_way(size: int, data: st.DataObject) -> None:
    line = data.draw(lines(size))
    colours = COLOURS[:size]
    renamed = dict(zip(colours, data.draw(st.permutations(colours)), strict=True))
    other = "".join(renamed.get(c, c) for c in line)
    assert line_pattern(line) == line_pattern(other) == line_pattern(line[::-1])
    assert line_pattern(line) in all_patterns(size)
    # The pattern is a line too, with the same score.
    letters = dict(zip("ABCDEFG", colours, strict=False))
    assert line_score("".join(letters.get(c, c) for c in line_pattern(line))) == line_score(line)


# --- tables ---------------------------------------------------------------------------------------


def flat_table(size: int, growth: float = 1.0) -> dict[str, float]:
    return {p: 0.0 if "." not in p else growth for p in all_patterns(size)}


def test_a_table_must_cover_every_pattern() -> None:
    growth = flat_table(5)
    PatternTable(5, growth, [0.0] * 6)
    with pytest.raises(ValueError, match="6 potential weights"):
        PatternTable(5, growth, [0.0] * 5)
    del growth["A.A.A"]
    with pytest.raises(ValueError, match=r"no growth for 'A\.A\.A'"):
        PatternTable(5, growth, [0.0] * 6)
    with pytest.raises(ValueError, match="a full line cannot grow"):
        PatternTable(5, flat_table(5) | {"ABCDE": 0.5}, [0.0] * 6)


def test_a_table_values_a_line_by_its_pattern_and_the_bag() -> None:
    growth = flat_table(7) | {"A.A....": 3.0}
    table = PatternTable(7, growth, [0.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    without = PatternTable(7, growth, [0.0] * 8)
    # Score 0 + growth 3.0; the open patterns are the colours' points on the empty squares.
    assert line_value("R.R....", without) == 3.0
    assert line_value("K...K..", without) == 1.0
    assert line_value("R.R....", table) > 3.0
    # A colour with no counter left opens no pattern.
    no_red = dict.fromkeys("WKYGRBP", 7) | {"R": 0}
    assert line_value("R.R....", table, no_red) < line_value("R.R....", table)
    assert line_value("WKYGRBP", table) == line_score("WKYGRBP")


@settings(max_examples=examples(60))
@given(
    st.sampled_from([5, 7]).flatmap(
        lambda n: st.tuples(lines(n), st.lists(st.integers(0, n), min_size=n, max_size=n))
    )
)
@example(("RRR.RRR", [7] * 7))  # the most points a colour adds to a line, with a full bag
@example(("RRR.RRR", [0] * 7))  # an empty bag opens no pattern
def test_a_line_value_is_its_score_growth_and_open_patterns(
    line_and_bag: tuple[str, list[int]],
) -> None:
    line, counts = line_and_bag
    size = len(line)
    table = PatternTable.load(size)
    bag = dict(zip(COLOURS[:size], counts, strict=True))
    value = line_value(line, table, bag)
    assert value == pytest.approx(expected_line_value(line, table, bag), abs=2.0**-21)
    assert value * 2**20 == int(value * 2**20)  # rounded to a multiple of 2**-20


def expected_line_value(line: str, table: PatternTable, bag: dict[str, int]) -> float:
    """A line's value worked out from its definition: its score, its pattern's growth and its
    open patterns, each colour's points on each empty square by the colour's share of `bag`."""
    total = sum(bag.values())
    now = line_score(line)
    empties = [i for i, square in enumerate(line) if square == "."]
    points = sum(
        (line_score(line[:i] + colour + line[i + 1 :]) - now) * left / total
        for i in empties
        for colour, left in bag.items()
        if left
    )
    return now + table.growth[line_pattern(line)] + table.potential[len(empties)] * points


@settings(max_examples=examples(60))
@given(st.sampled_from([5, 7]), st.data())
@example(7, None)
def test_lines_alike_but_for_their_colours_keep_each_colour_its_points(
    size: int, data: st.DataObject | None
) -> None:
    # A table works out a line's parts once for all the lines with the same squares alike; the
    # points of each colour must still come back in that colour's share of the bag.
    colours = COLOURS[:size]
    if data is None:  # a colour in the line with no counter left, and one with many
        line, order, counts = "R.RK...", "KRWYGBP", [1, 0, 7, 7, 2, 7, 7]
    else:
        line = data.draw(lines(size))
        order = "".join(data.draw(st.permutations(colours)))
        counts = data.draw(st.lists(st.integers(0, size), min_size=size, max_size=size))
    renamed = dict(zip(colours, order, strict=True))
    other = "".join(renamed.get(c, c) for c in line)
    packaged = PatternTable.load(size)
    table = PatternTable(size, packaged.growth, packaged.potential)  # nothing worked out yet
    bag = dict(zip(colours, counts, strict=True))
    for each in (line, other, line[::-1]):
        expected = expected_line_value(each, table, bag)
        assert line_value(each, table, bag) == pytest.approx(expected, abs=2.0**-21)


def test_the_packaged_tables() -> None:
    data = json.loads(
        resources.files("abstractgames.players.entropy").joinpath(PATTERNS_FILE).read_text("utf-8")
    )
    assert set(data["tables"]) == {"5", "7"}
    for size in (5, 7):
        table = PatternTable.load(size)
        assert table is PatternTable.load(size)
        assert set(table.growth) == set(all_patterns(size))
        assert table.potential[0] == 0.0 and all(w > 0.0 for w in table.potential[1:size])
    # What the fit learned, in the words of the old hand-set terms.
    assert line_value("R.R....") > line_value("R.K....")  # a hole between alike counters
    assert line_value("RKR....") > line_value("RKW....")  # a palindrome begun
    assert line_value("RR.....") > line_value("RK.....")  # alike neighbours
    assert line_value(".......") > line_value("RKWYG..")  # room to build


@settings(max_examples=examples(40))
@given(st.sampled_from([EntropyGame(), EntropyGame(size=5)]).flatmap(states))
def test_position_values_add_up_the_lines(state: EntropyState) -> None:
    table = PatternTable.load(state.size)
    n = state.size
    ranks = [state.board[k * n : k * n + n] for k in range(n)]
    files = [state.board[k::n] for k in range(n)]
    bag = state.bag()
    expected = sum(line_value(line, table, bag) for line in [*ranks, *files])
    assert position_value(state) == pytest.approx(expected)
    if state.placements == state.size**2:
        assert position_value(state) == state.score()


@settings(max_examples=examples(40))
@given(st.sampled_from([EntropyGame(), EntropyGame(size=5)]).flatmap(states), st.data())
def test_a_position_value_is_exact_however_the_search_reached_it(
    state: EntropyState, data: st.DataObject
) -> None:
    # Line values lie on a grid of 2**-20, so the search's running sum never rounds: the
    # training games' depth-2 player does not depend on the order it adds values in.
    board = _Board(state, PatternTable.load(state.size))
    colours = [k + 1 for k, left in enumerate(board.bag) if left] or [1]
    placed = []
    for square in data.draw(st.permutations(range(state.size**2)))[:12]:
        if board.cells[square] == 0:
            board.place(square, data.draw(st.sampled_from(colours)))
            placed.append(square)
            lines = [*board.lr, *board.lf]
            assert board.value == sum(lines) == sum(reversed(lines))
    for square in reversed(placed):
        board.remove(square)
    assert board.value == _Board(state, PatternTable.load(state.size)).value


def test_greedy_keeps_the_hand_set_weights() -> None:
    game = EntropyGame()
    state = game.from_position("7/7/7/7/7/7/R1R4 order")
    assert bot.evaluate(state, "order") == position_value(state, HAND_WEIGHTS)


# --- the training script --------------------------------------------------------------------------


def script() -> Any:
    """The training script, imported."""
    spec = importlib.util.spec_from_file_location("train_entropy_patterns", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_training_script_writes_and_checks_a_table(tmp_path: Path) -> None:
    output = tmp_path / "patterns.json"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(SCRIPT), "--size", "5", "--games", "24", "--jobs", "1"]
        return subprocess.run(
            [*command, "--output", str(output), *args], capture_output=True, text=True, timeout=300
        )

    written = run("--write")
    assert written.returncode == 0, written.stderr
    data = json.loads(output.read_text(encoding="utf-8"))
    table = data["tables"]["5"]
    PatternTable(5, table["growth"], table["potential"])
    assert (data["seed"], data["games"], data["scale"]) == (27, {"5": 24}, {"5": 1.0})
    assert data["digest"]["5"] == script().first_games_digest(5)  # as the test below plays them
    assert run("--check").returncode == 0  # the same seed gives the same table
    table["growth"]["A.A.A"] += 1.0
    output.write_text(json.dumps(data), encoding="utf-8")
    checked = run("--check")
    assert checked.returncode == 1
    assert "size 5: values differ by up to 1.000" in checked.stderr
    assert "scale of size 5: 1.0 in the file, 0.5 fitted" in run("--scale", "0.5", "--check").stderr


def test_a_scaled_table_multiplies_every_value_to_three_decimals() -> None:
    table = PatternTable.load(5)
    shrunk = table.scaled(0.9)
    assert shrunk.potential == tuple(round(w * 0.9, 3) for w in table.potential)
    assert shrunk.growth == {p: round(v * 0.9, 3) for p, v in table.growth.items()}
    apart = table.scaled(0.5, 2.0)
    assert apart.potential == tuple(round(w * 2.0, 3) for w in table.potential)
    assert apart.growth == {p: round(v * 0.5, 3) for p, v in table.growth.items()}
    same = table.scaled(1.0)
    assert (same.growth, same.potential) == (table.growth, table.potential)


def test_the_packaged_tables_carry_the_scripts_scale() -> None:
    data = json.loads(
        resources.files("abstractgames.players.entropy").joinpath(PATTERNS_FILE).read_text("utf-8")
    )
    assert data["scale"] == {str(size): factor for size, factor in script().SCALE.items()}


def test_a_check_of_one_size_ignores_the_others_in_the_file() -> None:
    training = script()
    data = json.loads(
        resources.files("abstractgames.players.entropy").joinpath(PATTERNS_FILE).read_text("utf-8")
    )
    fitted = {
        "seed": data["seed"],
        **{key: {"5": data[key]["5"]} for key in ("games", "digest", "scale")},
        "tables": {"5": data["tables"]["5"]},
    }
    assert training.differences(data, fitted) == []
    fitted["scale"] = {"5": 0.5}
    assert training.differences(data, fitted) == ["scale of size 5: 1.0 in the file, 0.5 fitted"]


@pytest.mark.slow
def test_the_search_still_plays_the_games_the_table_was_fitted_on() -> None:
    # The table is fitted on the games of the depth-2 search: a change to that search changes
    # them, and the table no longer regenerates from the script until it is written again.
    data = json.loads(
        resources.files("abstractgames.players.entropy").joinpath(PATTERNS_FILE).read_text("utf-8")
    )
    training = script()
    for size in (7, 5):
        assert training.first_games_digest(size, data["seed"]) == data["digest"][str(size)], (
            f"the depth-2 search no longer plays the {size}x{size} games the packaged table was "
            "fitted on: run `python scripts/train_entropy_patterns.py --write` and measure the "
            "bot again (docs/bots-entropy.md)"
        )


def test_a_search_with_the_table_plays_both_sizes() -> None:
    for game in (EntropyGame(), EntropyGame(size=5)):
        player = bot.EntropySearch(game, depth=3)
        state = game.initial_state().apply(game.parse_move("R")).apply(game.parse_move("R@c3"))
        assert player.choose(state, random.Random(0)) in state.legal_moves()


def test_the_evaluations_example_plays_a_scaled_table_from_a_file(tmp_path: Path) -> None:
    packaged = resources.files("abstractgames.players.entropy").joinpath(PATTERNS_FILE)
    path = tmp_path / "tables.json"
    path.write_text(packaged.read_text("utf-8"), encoding="utf-8")
    example_file = SCRIPT.parents[1] / "examples" / "entropy_evaluations.py"
    game = EntropyGame(size=5)
    player = make_player(f"inprocess:{example_file}:FromFile:depth=1,path={path},growth=0.5", game)
    assert isinstance(player, bot.EntropySearch) and isinstance(player.evaluation, PatternTable)
    table = PatternTable.load(5)
    assert player.evaluation.potential == table.potential
    assert player.evaluation.growth == {p: round(v * 0.5, 3) for p, v in table.growth.items()}
    state = game.initial_state().apply(game.parse_move("R"))
    assert player.choose(state, random.Random(0)) in state.legal_moves()
