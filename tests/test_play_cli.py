"""`abstractgames play`, `replay` and `show` from the outside: CliRunner and real processes."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames import InvalidMoveError, Move, State, available_games, get_game
from abstractgames.cli import EXIT_INTERRUPTED, main
from abstractgames.players import Player
from abstractgames.records import GameEnd, MatchRecord
from abstractgames.terminal import HumanPlayer, LineReader, Session, TerminalObserver, make_console


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.output


@pytest.mark.parametrize("game", available_games())
def test_bot_game_with_seed_and_record(game: str, tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    args = ["play", game, "-1", "random", "-2", "random", "--seed", "7", "--no-color"]
    code, out_a = run(*args, "--record", str(first))
    assert code == 0, out_a
    code, out_b = run(*args, "--record", str(second))
    assert code == 0, out_b
    assert out_a == out_b
    assert "Result:" in out_a
    assert first.read_bytes() == second.read_bytes()
    record = json.loads(first.read_text())
    assert record["seed"] == 7 and record["players"] == ["random", "random"]
    code, out = run("replay", str(first), "--no-color")
    assert code == 0, out
    assert "Result:" in out


def test_human_game_through_stdin(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    script = "\n".join(["help", "moves", "X@z9", "hello", "X@c3", "undo", "X@d4", "resign"])
    code, out = run(
        "play",
        "orderchaos",
        "-2",
        "greedy",
        "--seed",
        "3",
        "--record",
        str(path),
        "--no-color",
        input=script + "\n",
    )
    assert code == 0, out
    assert "moves   list the legal moves" in out
    assert "72 legal moves: X@a1 O@a1" in out
    assert "not played: 'z9' is not a square of this board" in out
    assert "not played: cannot read move 'hello'" in out
    assert "took back 2 plies" in out
    assert "Result: player 2 (greedy) wins — player 1 resigned" in out
    record = MatchRecord.load(path)
    assert record.games[0].moves[0].move == "X@d4"
    assert record.games[0].ended_by == GameEnd("resigned", 1, "player 1 resigned")


def test_undo_is_refused_between_two_people() -> None:
    code, out = run(
        "play",
        "orderchaos",
        "-1",
        "human",
        "-2",
        "human",
        "--no-color",
        input="X@a1\nundo\nresign\n",
    )
    assert code == 0
    assert "undo is only possible in a game against bots" in out


def test_end_of_input_saves_and_resume_finishes_the_same_game(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, out = run(
        "play",
        "orderchaos",
        "-2",
        "greedy",
        "--seed",
        "5",
        "--record",
        str(path),
        "--no-color",
        input="X@a1\nX@b1\n",
    )
    assert code == EXIT_INTERRUPTED
    assert f"game saved to {path}" in out
    saved = MatchRecord.load(path)
    assert not saved.finished
    assert len(saved.games[0].moves) == 4
    code, out = run("play", "--resume", str(path), "--no-color", input="resign\n")
    assert code == 0, out
    assert "resumed after 4 plies" in out
    done = MatchRecord.load(path)
    assert done.finished
    assert [m.move for m in done.games[0].moves] == [m.move for m in saved.games[0].moves]
    code, out = run("play", "--resume", str(path))
    assert code == 1 and "already finished" in out


def test_interrupt_without_record_saves_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _ = run("play", "orderchaos", "--seed", "11", input="")
    assert code == EXIT_INTERRUPTED
    assert (tmp_path / "abstractgames-orderchaos-11.json").exists()


def test_ctrl_c_in_a_real_process_saves_the_game(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "abstractgames",
            "play",
            "orderchaos",
            "--seed",
            "2",
            "--record",
            str(path),
            "--no-color",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("X@a1\n")
    process.stdin.flush()
    # Wait for the second prompt, then press Ctrl-C.
    seen = ""
    while seen.count("order (you)>") < 2:
        seen += process.stdout.read(1)
    process.send_signal(2)
    _, err = process.communicate(timeout=30)
    assert process.returncode == EXIT_INTERRUPTED
    assert "Traceback" not in err
    assert f"game saved to {path}" in err
    assert len(MatchRecord.load(path).games[0].moves) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "orderchaos", "-2", "deepblue"], "unknown player 'deepblue'"),
        (["play", "orderchaos", "-2", "greedy:depth=2"], "has no option 'depth'"),
        (["play", "orderchaos", "--clock", "fast"], "bad clock 'fast'"),
        (["play"], "name a GAME to play"),
        (["play", "--resume", "/nonexistent/record.json"], "cannot read record"),
        (["replay", "/nonexistent/record.json"], "cannot read record"),
        (["show", "orderchaos", "6/6/6 order"], "3 ranks"),
        (["show", "nogame"], "unknown game"),
        (["play", "orderchaos", "--seed", "x"], "'x' is not a valid integer"),
    ],
)
def test_bad_input_is_one_line_and_non_zero(args: list[str], message: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", *args], capture_output=True, text=True, input=""
    )
    assert out.returncode not in (0, EXIT_INTERRUPTED), out
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_replay_rejects_a_tampered_record(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, _ = run(
        "play", "orderchaos", "-1", "random", "-2", "random", "--seed", "1", "--record", str(path)
    )
    assert code == 0
    data = json.loads(path.read_text())
    data["games"][0]["moves"][1]["move"] = data["games"][0]["moves"][0]["move"]
    path.write_text(json.dumps(data))
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "replay", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: game 1, move 2")
    path.write_text(path.read_text()[:50])
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "replay", str(path)], capture_output=True, text=True
    )
    assert out.returncode == 1 and "not valid JSON" in out.stderr


def test_replay_step_walks_every_position(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    run("play", "orderchaos", "-1", "greedy", "-2", "random", "--seed", "1", "--record", str(path))
    plies = len(MatchRecord.load(path).games[0].moves)
    code, out = run("replay", str(path), "--step", "--no-color")
    assert code == 0
    assert out.count("    a  b  c  d  e  f") == plies + 1


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


def _render(state_text: str, game: str, colour: bool) -> str:
    import io

    from abstractgames import get_game
    from abstractgames.terminal import make_console, show_position

    buffer = io.StringIO()
    console = make_console(buffer, colour=colour, force_terminal=True)
    show_position(console, get_game(game).from_position(state_text))
    return buffer.getvalue()


def has_colour(text: str) -> bool:
    """Whether ANSI text sets a foreground or background colour (bold is not a colour)."""
    import re

    for params in re.findall(r"\x1b\[([0-9;]*)m", text):
        codes = [int(p) for p in params.split(";") if p]
        if any(30 <= c <= 49 or 90 <= c <= 107 for c in codes):
            return True
    return False


def test_boards_have_colours_and_letters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    position = "WKYGRBP/7/7/7/7/7/7 chaos:W"
    assert has_colour(_render(position, "entropy", colour=True))
    plain = _render(position, "entropy", colour=False)
    assert not has_colour(plain)
    assert "W" in plain and "P" in plain  # letters, readable without colour
    monkeypatch.setenv("NO_COLOR", "1")
    assert not has_colour(_render(position, "entropy", colour=True))


def test_messages_are_shown_literally() -> None:
    # "chaos:B:" must not turn into an emoji, nor "[b]" into markup.
    code, out = run(
        "play",
        "entropy:size=5",
        "-1",
        "human",
        "-2",
        "random",
        "--seed",
        "3",
        "--no-color",
        input="a1-a2\n[b]\nresign\n",
    )
    assert code == 0
    assert "chaos:" in out and "\U0001f171" not in out
    assert "cannot read move '[b]'" in out or "'[b]'" in out


def test_clocks_are_shown_to_people() -> None:
    code, out = run(
        "play", "orderchaos", "--clock", "90+1", "--seed", "1", "--no-color", input="resign\n"
    )
    assert code == 0
    assert "your clock: 1:30.0" in out
    assert "clocks — player 1: 1:30.0 · player 2: 1:30.0" in out


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


def test_solve_dispersal_from_the_command_line() -> None:
    code, out = run("solve", "dispersal", "S1O1O/O1SOS/S4/OOSSO/S4", "S")
    assert code == 0, out
    assert out.strip() == "S wins in 1 move: d2-e1"
    code, out = run("solve", "dispersal", "SSSSS/S3S/5/O3O/OOOOO", "O", "--moves", "2")
    assert code == 0, out
    assert "no forced win for O within 2 moves" in out
    code, out = run("solve", "orderchaos", "6/6/6/6/6/6", "order")
    assert code == 1 and "there is no solver for 'orderchaos'" in out
    code, out = run("solve", "dispersal", "SOSOS/1S3/O1O1O/2S2/SOSO1", "X")
    assert code == 1 and "Error:" in out


# --- terminal play: what a person sees and can type (stdin from a pipe; the pseudo-terminal tests
# are in test_terminal.py) ------------------------------------------------------------------------


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The per-user data directory, in a temporary folder."""
    monkeypatch.setenv("ABSTRACTGAMES_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


def test_moves_are_echoed_and_listed_and_the_status_says_what_to_do(data: Path) -> None:
    script = ["X@c3", "history", "rules", "help", "resign"]
    code, out = run(
        "play", "orderchaos", "--seed", "3", "--no-color", input="\n".join(script) + "\n"
    )
    assert code == 0, out
    assert "you are Order: five in a row of X or of O · type X or O and a square" in out
    assert "'help' explains the commands" in out
    assert "  player 1 (human) plays X@c3" in out
    reply = out.split("  player 2 (greedy) plays ")[1].split()[0]
    assert f"moves: 1. X@c3 {reply}" in out
    assert out.count(f"1. X@c3 {reply}") == 2  # the move list, then 'history'
    assert "[" + reply[0] + "]" in out  # the last move marked without colour
    assert "Order wins as soon as five or more like symbols" in out
    assert "quit    save the game and leave" in out and "hint    what the search bot" in out
    assert not data.exists()  # stdin is not a terminal: nothing kept behind the user's back


def test_error_hints_name_only_the_movers_kinds_of_move() -> None:
    # Player 2 is Order in game 1 of Entropy: a plain square is no placement for Order.
    code, out = run(
        "play", "entropy:size=5", "-1", "random", "-2", "human", "--seed", "1", "--no-color",
        input="d4\nresign\n",
    )  # fmt: skip
    assert code == 0, out
    (line,) = [line for line in out.splitlines() if "not played:" in line]
    assert "it is Order's turn: slide a counter" in line
    assert "you can play a slide such as " in line and " or pass" in line
    assert "@" not in line  # no placement suggested
    assert "you are Order: slide a counter to make palindromes, or pass" in out


def test_quit_saves_the_game_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, out = run(
        "play", "orderchaos", "--seed", "5", "--record", str(path), input="X@a1\nquit\n"
    )
    assert code == EXIT_INTERRUPTED
    assert f"game saved to {path}; continue it with: abstractgames play --resume {path}" in out
    saved = MatchRecord.load(path)
    assert not saved.finished and saved.games[0].moves[0].move == "X@a1"


def test_a_hint_is_a_move_and_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, out = run(
        "play", "orderchaos", "--seed", "5", "--record", str(path), input="hint 0.1\nquit\n"
    )
    assert code == EXIT_INTERRUPTED
    found = r"hint: the search bot would play [XO]@[a-f][1-6] \((value [+-]|a forced )"
    assert re.search(found + r".*search depth \d+\) — a learning aid", out), out
    assert MatchRecord.load(path).games[0].moves == []


@pytest.mark.parametrize("game", ["entropy:size=5", "dispersal"])
def test_every_games_hint_says_what_the_search_found(game: str) -> None:
    code, out = run("play", game, "--seed", "2", "--no-save", input="hint 0.1\nquit\n")
    assert code == EXIT_INTERRUPTED
    assert re.search(r"would play \S+ \((value [+-]|a forced ).*search depth \d+\)", out), out


class Scripted(LineReader):
    """Lines typed by a test."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def read(self, prompt: str, **options: object) -> str:
        return self.lines.pop(0)

    ask = read


def test_a_game_without_a_search_bot_says_there_is_no_hint() -> None:
    from tests.toygame import DiceRace

    buffer = io.StringIO()
    session = Session(make_console(buffer, colour=False), reader=Scripted("hint", "add"))
    state = DiceRace().initial_state().apply("roll1")
    move = HumanPlayer(state.game, session).choose(state, random.Random(1))
    assert str(move) == "add"
    assert "no hint: there is no search player for 'dicerace'" in buffer.getvalue()
    assert "0 1 0 first" in buffer.getvalue()  # a game without a board shows its position


def test_default_hooks_and_each_games_own_words() -> None:
    from tests.toygame import DiceRace

    toy = DiceRace()
    assert toy.goal("first") == "" and toy.move_kinds(toy.initial_state()) == ()
    assert toy.rules_summary() == ""  # no docstring: nothing to summarise
    for name in available_games():
        game = get_game(name)
        assert game.rules_summary().count("\n") >= 2
        assert all(game.goal(role) for role in game.roles)
        state = game.initial_state()
        while state.is_chance():
            state = state.apply(state.legal_moves()[0])
        assert game.move_kinds(state)
    entropy = get_game("entropy")
    chaos = entropy.initial_state().apply("R")
    assert entropy.move_kinds(chaos) == ("a square for R, such as a1",)
    order = chaos.apply("R@d4")
    assert entropy.move_kinds(order) == ("a slide such as d4-a4", "pass")
    with pytest.raises(InvalidMoveError, match="Chaos places the drawn R: write its square"):
        chaos.apply("d4-d5-d6")
    stuck = get_game("dispersal").from_position("S4/5/5/5/O3O O")  # no O piece may move
    assert stuck.game.move_kinds(stuck) == ("pass (no other move is legal)",)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Slow(Player):
    """Plays the first legal move after a long think."""

    spec = "slow"

    def __init__(self, clock: FakeClock, seconds: float) -> None:
        self.clock, self.seconds = clock, seconds

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        self.clock.now += self.seconds
        return state.legal_moves()[0]


def test_moves_made_for_a_player_out_of_time_are_one_line() -> None:
    from abstractgames.records import ClockSettings
    from abstractgames.referee import Referee

    clock = FakeClock()
    game = get_game("entropy", size=5)
    players = (Slow(clock, 100.0), Slow(clock, 0.1))
    buffer = io.StringIO()
    session = Session(make_console(buffer, colour=False), clock=clock)
    observer = TerminalObserver(session, players, verbose=True)
    referee = Referee(
        game, players, seed=1, clock=ClockSettings(20.0), single=True, time_source=clock,
        observer=observer,
    )  # fmt: skip
    record = referee.play()
    out = buffer.getvalue()
    assert "player 1 ran out of time" in out
    auto = [m for m in record.games[0].moves if m.auto]
    assert len(auto) == 25  # every placement: the first took too long
    (line,) = [line for line in out.splitlines() if "(out of time)" in line]
    assert line.startswith(f"  25 moves played for player 1 (slow) (out of time): {auto[0].move}")
    assert line.endswith("; 24 by player 2 (slow) meanwhile")
    assert "plays" not in out  # not one line per move
    assert out.count("    a  b  c  d  e") == 1  # one board: the final position


def test_no_color_removes_bold_and_dim_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    position = "WKYGRBP/7/7/7/7/7/7 chaos:W"
    assert "\x1b[" in _render(position, "entropy", colour=True)
    assert "\x1b[" not in _render(position, "entropy", colour=False)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in _render(position, "entropy", colour=True)


def test_the_data_directory_of_each_platform(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from abstractgames import files

    monkeypatch.delenv("ABSTRACTGAMES_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "")
    monkeypatch.setattr(sys, "platform", "linux")
    assert files.data_directory() == tmp_path / ".local" / "share" / "abstractgames"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert files.data_directory() == tmp_path / "xdg" / "abstractgames"
    monkeypatch.setattr(sys, "platform", "darwin")
    expected = tmp_path / "Library" / "Application Support" / "abstractgames"
    assert files.data_directory() == expected
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "Roaming"))
    assert files.data_directory() == tmp_path / "Roaming" / "abstractgames"
    monkeypatch.setenv("ABSTRACTGAMES_DATA", str(tmp_path / "mine"))
    assert files.data_directory() == tmp_path / "mine"
    first = files.new_record_path("entropy:size=5", 7, tmp_path)
    assert re.fullmatch(r"\d{8}-\d{6}-entropy_size=5-7\.json", first.name)
    first.write_text("{}")
    taken: set[str] = set()
    second = files.new_record_path("entropy:size=5", 7, tmp_path, taken=taken)
    third = files.new_record_path("entropy:size=5", 7, tmp_path, taken=taken)
    assert len({first, second, third}) == 3 and taken == {second.name, third.name}
    assert all(path.parent == tmp_path and not path.exists() for path in (second, third))


def test_the_line_editor_is_imported_only_to_play_at_a_terminal() -> None:
    code = (
        "import sys, abstractgames, abstractgames.terminal, abstractgames.cli; "
        "print('prompt_toolkit' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
