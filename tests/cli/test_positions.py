"""Positions on the command line: position strings and text diagrams wherever a position is
taken (`show`, `solve`, `play`, `arena`, `check`), read from an argument, a file or standard
input; `show --diagram`; and what a person starting or resuming a game sees (`play --resume`
without a file, the rule on time, `list` in the terminal's width)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames import available_games, get_game
from abstractgames.cli import main
from abstractgames.grid import diagram
from abstractgames.records import MatchRecord

FIG_1 = """\
Start a game of e-mail Entropy from the FAQ's first figure:

                   S     S     S     S     S  <---5

                   S     .     .     .     S  <---4

                   .     .     .     .     .  <---3

                   O     .     .     .     O  <---2

                   O     O     O     O     O  <---1
                   _________________________

                   a     b     c     d     e

O to move

--
Ann
""".replace("--\n", "-- \n")  # the signature marker ends with a space
OPENINGS = ["6/6/6/2X3/6/6 chaos", "6/6/6/6/2O3/6 chaos"]


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input, env=env)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.output


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ABSTRACTGAMES_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.mark.parametrize("name", available_games())
def test_show_prints_a_diagram_that_every_command_reads_back(name: str) -> None:
    game = get_game(name)
    state = game.initial_state().apply(game.initial_state().legal_moves()[0])
    code, out = run("show", name, state.position(), "--diagram")
    assert code == 0, out
    assert out == diagram(state) + "\n"
    for args, given in [(["-"], out), ([out], None)]:  # from standard input, as one argument
        code, shown = run("show", name, *args, input=given)
        assert code == 0, shown
        assert shown.splitlines()[-1] == state.position()


def test_a_diagram_without_its_side_needs_side() -> None:
    bare = FIG_1.replace("O to move", "")
    code, out = run("show", "dispersal", bare)
    assert code == 1 and "does not say who is to move" in out and "Traceback" not in out
    code, out = run("show", "dispersal", bare, "--side", "O to move")
    assert code == 0 and out.splitlines()[-1] == "SSSSS/S3S/5/O3O/OOOOO O"
    code, out = run("show", "dispersal", FIG_1, "--side", "S to move")
    assert code == 1 and "do not agree" in out


def test_solve_reads_a_diagram_from_standard_input() -> None:
    position = "S1O1O/O1SOS/S4/OOSSO/S4 S"  # the FAQ's Fig. 3, S to move
    picture = diagram(get_game("dispersal").from_position(position))
    code, from_string = run("solve", "dispersal", position, "-q")
    assert code == 0, from_string
    code, from_diagram = run(
        "solve", "dispersal", "-", "-q", input=f"> {picture}\n".replace("\n", "\n> ")
    )
    assert code == 0, from_diagram
    assert from_diagram == from_string and "wins" in from_string


def test_play_starts_from_the_faqs_figure_and_the_record_keeps_it(tmp_path: Path) -> None:
    figure = tmp_path / "fig1.txt"
    figure.write_text(
        FIG_1.replace("S     .     .     .     S", "S     .     O     .     S", 1).replace(
            "O     .     .     .     O  <---2", ".     .     .     .     O  <---2"
        )
    )
    record = tmp_path / "game.json"
    code, out = run(
        "play", "dispersal", "-1", "random", "-2", "random", "--seed", "1",
        "--position-file", str(figure), "--record", str(record),
    )  # fmt: skip
    assert code == 0, out
    kept = MatchRecord.load(record)
    assert kept.games[0].start == "SSSSS/S1O1S/5/4O/OOOOO O"
    kept.replay()


def test_every_game_of_an_entropy_match_starts_from_the_position(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    start = "5/5/2W2/5/5 order"
    code, out = run(
        "play", "entropy:size=5", "-1", "random", "-2", "random", "--position", start,
        "--record", str(record),
    )  # fmt: skip
    assert code == 0, out
    kept = MatchRecord.load(record)
    assert [game.start for game in kept.games] == [start, start]
    kept.replay()


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("XXXXX1/6/6/6/6/6 chaos", "the game is over"),
        ("6/6/6/6/6 chaos", "ranks"),
        (FIG_1, "has 5 squares; a rank of this board has 6"),
        (
            diagram(get_game("orderchaos").initial_state()).replace(".", "Q", 1),
            "'Q' is not a piece",
        ),
    ],
)
def test_a_position_that_cannot_start_a_game_is_refused_with_the_reason(
    position: str, message: str
) -> None:
    code, out = run("play", "orderchaos", "-1", "random", "--position", position)
    assert code == 1 and message in out and "Traceback" not in out, out


def test_position_and_resume_do_not_go_together(tmp_path: Path) -> None:
    code, out = run("play", "--resume", str(tmp_path / "x.json"), "--position", "6/6/6/6/6/6 order")
    assert code == 2 and "give --resume or --position" in out
    code, out = run("play", "orderchaos", "--side", "X to move")
    assert code == 2 and "--side goes with a position" in out


def test_resume_without_a_file_continues_the_latest_unfinished_game(data: Path) -> None:
    code, out = run("play", "--resume")
    assert code == 2 and "no unfinished game is kept in" in out
    games = data / "games"
    games.mkdir(parents=True)
    older, newer = games / "older.json", games / "newer.json"
    for path, move in [(older, "O@a1"), (newer, "X@c3")]:
        code, out = run("play", "orderchaos", "--record", str(path), input=f"{move}\nquit\n")
        assert not MatchRecord.load(path).finished
    code, out = run(
        "play", "orderchaos", "-1", "random", "-2", "random", "--record", str(games / "done.json")
    )
    assert MatchRecord.load(games / "done.json").finished
    (games / "junk.json").write_text("{not a record")
    code, out = run("play", "--resume", input="resign\n")
    assert code == 0, out
    said = " ".join(out.split())  # wrapped to the width
    assert f"the latest unfinished game: {newer}" in said
    assert "orderchaos: human against greedy, game 1 after 2 moves" in said
    assert "resumed after 2 moves" in " ".join(out.split()) and "1. X@c3" in out
    assert MatchRecord.load(newer).finished


@pytest.mark.parametrize(
    ("game", "rule"),
    [
        ("orderchaos", "clock: a player out of time loses the game"),
        ("entropy", "clock: a player out of time does not lose"),
    ],
)
def test_the_rule_on_time_is_said_before_the_first_move(game: str, rule: str) -> None:
    _, out = run("play", game, "--clock", "60", "--no-save", input="resign\ny\n")
    assert rule in out
    assert out.index(rule) < out.index("resign")


def test_the_rule_on_time_in_correspondence() -> None:
    _, out = run(
        "play", "entropy", "--clock", "60", "--correspondence", "--no-save", input="resign\n"
    )
    assert "clock: a player out of time loses the whole match" in out


def test_arena_plays_every_opening_from_both_seats(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    second = diagram(get_game("orderchaos").from_position(OPENINGS[1]))
    openings.write_text(f"# two openings\n{OPENINGS[0]}\n\n{second}\n")
    results = tmp_path / "results.json"
    code, out = run(
        "arena", "orderchaos", "random", "greedy", "-n", "2", "--position-file", str(openings),
        "--json", str(results), "-q", "--state", str(tmp_path / "state.jsonl"),
    )  # fmt: skip
    assert code == 0, out
    report = json.loads(results.read_text())
    assert report["positions"] == OPENINGS
    played = sorted((m["start"], tuple(m["players"])) for m in report["matches"])
    assert played == sorted(
        (start, seats)
        for start in OPENINGS
        for seats in [("random", "greedy"), ("greedy", "random")]
    )


def test_arena_refuses_an_opening_twice_and_one_that_cannot_start(tmp_path: Path) -> None:
    code, out = run(
        "arena", "orderchaos", "random", "greedy", "--position", OPENINGS[0],
        "--position", OPENINGS[0], "--state", str(tmp_path / "s.jsonl"),
    )  # fmt: skip
    assert code == 1 and "position 2" in out and "again" in out
    code, out = run(
        "arena", "orderchaos", "random", "greedy", "--position", "XXXXX1/6/6/6/6/6 chaos",
        "--state", str(tmp_path / "s.jsonl"),
    )  # fmt: skip
    assert code == 1 and "position 1" in out and "over" in out


def test_check_plays_its_random_games_from_the_positions() -> None:
    code, out = run(
        "check", "dispersal", "-n", "2", "-p", "greedy", "--position", "S1O1S/O3O/OSSOS/S4/2OOS O"
    )
    assert code == 0, out
    assert "FAIL" not in out and "ok   plays_only_legal_moves" in out
    code, out = run("check", "dispersal", "--position", "S1O1S/O3O/OSSOS/S4/2OOS")
    assert code == 1 and "fields" in out


@pytest.mark.parametrize("width", [80, 50])
def test_list_fits_the_terminals_width(width: int) -> None:
    code, out = run("list", env={"COLUMNS": str(width)})
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= width
    assert "search" in out and "The search player" in out
