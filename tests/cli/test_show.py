"""`abstractgames show`: every game's start, a position given unquoted, and `--svg`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames import available_games
from abstractgames.cli import main


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.output


@pytest.mark.parametrize("game", available_games())
def test_show_every_game(game: str) -> None:
    code, out = run("show", game, "--no-color")
    assert code == 0, out
    assert " a " in out


def test_show_takes_an_unquoted_position() -> None:
    code, out = run("show", "dispersal", "S1O1S/O3O/OSSOS/S4/2OOS", "O", "--no-color")
    assert code == 0, out
    assert "O is in check: isolated c5" in out
    assert "S1O1S/O3O/OSSOS/S4/2OOS O" in out


def test_show_writes_an_svg_picture(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    path = tmp_path / "board.svg"
    code, out = run("show", "orderchaos", "6/6/6/6/6/XXXXX1", "chaos", "--svg", str(path))
    assert code == 0, out
    root = ET.fromstring(path.read_text())
    pieces = [e for e in root.iter() if e.get("class") == "piece"]
    assert len(pieces) == 5
    code, out = run("show", "orderchaos", "--svg", str(tmp_path / "missing" / "x.svg"))
    assert code == 1 and "cannot write" in out


# --- diagrams both ways (issue 54, item 4) --------------------------------------------------------

MID_GAME = {
    "dispersal": "S1O1S/O3O/OSSOS/S4/2OOS O",
    "orderchaos": "6/6/6/2X3/6/6 chaos",
    "entropy": "7/1K5/7/7/7/7/7 order",
}


@pytest.mark.parametrize("game", sorted(MID_GAME))
def test_the_board_show_draws_reads_back(game: str, tmp_path: Path) -> None:
    """The board as `show` draws it (rank numbers, `·` for an empty square, the line of facts and
    the position string below) is a diagram `show` reads again, from a file or standard input."""
    code, drawn = run("show", game, MID_GAME[game], "--no-color")
    assert code == 0 and "·" in drawn, drawn
    path = tmp_path / "board.txt"
    path.write_text(drawn, encoding="utf-8")
    for args, given in ((("--position-file", str(path)), None), (("-",), drawn)):
        code, out = run("show", game, *args, "--no-color", input=given)
        assert code == 0, out
        assert out.splitlines()[-1] == MID_GAME[game]


@pytest.mark.parametrize("game", sorted(MID_GAME))
def test_the_board_alone_reads_back_with_its_line_of_facts(game: str) -> None:
    """Without the position string below it, the terminal's line of facts says the side
    (`ply 3 of 200 · O to move`); where it cannot (Entropy before a draw), --side does."""
    code, drawn = run("show", game, MID_GAME[game], "--no-color")
    board = "\n".join(drawn.splitlines()[:-1])
    code, out = run("show", game, "-", "--no-color", input=board)
    assert code == 0, out
    assert out.splitlines()[-1] == MID_GAME[game]


def test_show_position_file_and_a_position_are_not_both_given(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("6/6/6/6/6/6 order\n")
    code, out = run("show", "orderchaos", "--position-file", str(path))
    assert code == 0 and out.splitlines()[-1] == "6/6/6/6/6/6 order"
    code, out = run("show", "orderchaos", "6/6/6/6/6/6 order", "--position-file", str(path))
    assert code == 2 and "not both" in out
    code, out = run("show", "orderchaos", "--position-file", str(tmp_path / "none.txt"))
    assert code == 1 and "cannot read" in out and "Traceback" not in out


def test_show_a_file_name_as_the_position_says_to_use_position_file(tmp_path: Path) -> None:
    path = tmp_path / "board.txt"
    path.write_text("6/6/6/6/6/6 order\n")
    code, out = run("show", "orderchaos", str(path))
    assert code == 2, out
    assert f"--position-file {path}" in out
    assert "fields" not in out


def test_a_diagram_without_its_side_names_the_side_option() -> None:
    diagram = "\n".join(["S . . . ."] + [". . . . ."] * 3 + ["O . . . ."])
    code, out = run("show", "dispersal", "-", input=diagram)
    assert code == 1
    assert "--side 'O to move'" in out and "Traceback" not in out
    code, out = run("show", "dispersal", "-", "--side", "O to move", "--no-color", input=diagram)
    assert code == 0 and out.splitlines()[-1] == "S4/5/5/5/O4 O"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "the text is empty"),
        ("\n  \n", "the text is empty"),
        ("O to move\n", "'O to move' says who is to move, but there is no diagram above it"),
    ],
)
def test_an_empty_file_or_a_side_line_alone_gets_diagram_words(
    text: str, words: str, tmp_path: Path
) -> None:
    path = tmp_path / "p.txt"
    path.write_text(text)
    for args in (("--position-file", str(path)), ("-",)):
        code, out = run("show", "dispersal", *args, input=text)
        assert code == 1
        assert words in out and "a line for each rank" in out
        assert "fields" not in out
