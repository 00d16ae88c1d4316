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
