"""`abstractgames play` at a real terminal: a pseudo-terminal, keys typed, the screen read back.

Each test runs the command line in a process whose standard input and output are a pseudo-terminal
(its controlling terminal), as a person's shell would, with ``ABSTRACTGAMES_DATA`` pointing to a
temporary folder. A small screen model applies the cursor movements of the output, so what a test
reads is what a person would see, the clock of a prompt redrawn in place included. The live clock
runs on a fake clock, faster than real time (``abstractgames.terminal.now``).
"""

from __future__ import annotations

import os
import re
import select
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from abstractgames.records import MatchRecord

fcntl = pytest.importorskip("fcntl", reason="pseudo-terminals need POSIX")
termios = pytest.importorskip("termios", reason="pseudo-terminals need POSIX")

FAST_CLOCK = """\
import sys, time
import abstractgames.terminal as terminal
start = time.monotonic()
terminal.now = lambda: start + {speed} * (time.monotonic() - start)
from abstractgames.cli import main
main(sys.argv[1:], prog_name="abstractgames")
"""
"""The command line with a clock ``speed`` times as fast as real time."""

ENTER, TAB, LEFT, UP, BACKSPACE = "\r", "\t", "\x1b[D", "\x1b[A", "\x7f"
SGR = re.compile(r"\x1b\[([0-9;]*)m")
_CONTROL = re.compile(
    r"\x1b\[([?0-9;]*)([@-~])|\x1b[\]P][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.|[\r\n\b]"
)


class Screen:
    """The text a terminal shows, kept as unbounded lines (nothing scrolls away): characters,
    CR, LF, backspace, cursor moves and erasures; other sequences (styles, modes) are ignored."""

    def __init__(self) -> None:
        self.lines: list[list[str]] = [[]]
        self.row = self.column = 0

    def feed(self, text: str) -> None:
        position = 0
        for control in _CONTROL.finditer(text):
            self._write(text[position : control.start()])
            self._control(control)
            position = control.end()
        self._write(text[position:])

    def _write(self, text: str) -> None:
        for char in text:
            line = self.lines[self.row]
            line.extend(" " * (self.column + 1 - len(line)))
            line[self.column] = char
            self.column += 1

    def _control(self, control: re.Match[str]) -> None:
        token, final = control.group(0), control.group(2)
        count = int(control.group(1)) if control.group(1) and control.group(1).isdigit() else 1
        if token == "\r":
            self.column = 0
        elif token == "\n":
            self.row += 1
        elif token == "\b":
            self.column = max(0, self.column - 1)
        elif final == "A":
            self.row = max(0, self.row - count)
        elif final == "B":
            self.row += count
        elif final == "C":
            self.column += count
        elif final == "D":
            self.column = max(0, self.column - count)
        elif final == "K":
            del self.lines[self.row][self.column :]
        elif final == "J":
            del self.lines[self.row][self.column :]
            del self.lines[self.row + 1 :]
        while len(self.lines) <= self.row:
            self.lines.append([])

    def text(self) -> str:
        return "\n".join("".join(line).rstrip() for line in self.lines)


class Terminal:
    """``abstractgames ARGS`` on a pseudo-terminal of 100 columns (or `columns`) and 40 rows."""

    def __init__(
        self,
        *args: str,
        data: Path,
        speed: float | None = None,
        columns: int = 100,
        **env: str,
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        environment = {
            k: v
            for k, v in os.environ.items()
            if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")
        }
        environment.update(
            TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1", ABSTRACTGAMES_DATA=str(data), **env
        )
        program = (
            ["-m", "abstractgames"] if speed is None else ["-c", FAST_CLOCK.format(speed=speed)]
        )
        self.process = subprocess.Popen(
            [sys.executable, *program, *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            cwd=data.parent,
            start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(slave)
        self.master = master
        self.raw = ""
        self.screen = Screen()
        self.seen = 0

    def _pump(self, timeout: float) -> bool:
        """Read what the program printed within ``timeout`` seconds; False at its end."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536).decode("utf-8", "replace")
        except OSError:  # EIO: the program has ended
            return False
        if not chunk:
            return False
        self.raw += chunk
        self.screen.feed(chunk)
        return True

    def expect(self, text: str, timeout: float = 30.0) -> str:
        """Wait until ``text`` shows after what was expected before; the screen up to it."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen.text()
            found = shown.find(text, self.seen)
            if found >= 0:
                before = shown[self.seen : found + len(text)]
                self.seen = found + len(text)
                return before
            if time.monotonic() > deadline or not self._pump(0.05):
                raise AssertionError(f"{text!r} not shown; the screen ends with:\n{shown[-1500:]}")

    def line_with(self, text: str) -> str:
        """The last line on the screen holding ``text``."""
        self._pump(0.05)
        return [line for line in self.screen.text().splitlines() if text in line][-1]

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def finish(self, timeout: float = 30.0) -> int:
        """Wait for the program to end; its exit status."""
        deadline = time.monotonic() + timeout
        while self._pump(0.05) and time.monotonic() < deadline:
            pass
        try:
            return self.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        finally:
            os.close(self.master)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    started: list[Terminal] = []
    yield started
    for terminal in started:
        terminal.kill()


def start(terminals: list[Terminal], *args: str, **options: object) -> Terminal:
    terminal = Terminal(*args, **options)  # type: ignore[arg-type]
    terminals.append(terminal)
    return terminal


def saved(data: Path) -> MatchRecord:
    (path,) = (data / "games").iterdir()
    return MatchRecord.load(path)


def test_moves_are_echoed_and_the_last_one_highlighted(
    terminals: list[Terminal], data: Path
) -> None:
    game = start(terminals, "play", "orderchaos", "--seed", "3", data=data)
    game.expect("you are Order: five in a row of X or of O · type X or O and a square")
    game.expect("'help' explains the commands")
    game.expect("order (you)>")
    game.type("x@c3" + ENTER)
    game.expect("player 1 (human) plays X@c3")
    reply = game.expect("moves: 1. X@c3 ")
    bot = re.search(r"player 2 \(greedy\) plays O@([a-f])([1-6])", reply)
    assert bot is not None
    board = reply[bot.end() :]
    # The bot's square in brackets, the only one: a marker that needs no colour.
    assert board.count("[") == 1
    rank = next(line for line in board.splitlines() if line.startswith(f" {bot[2]} "))
    assert rank[3 + 3 * "abcdef".index(bot[1]) :].startswith("[O]")
    assert "\x1b[1;7m[O]" in game.raw  # and in colour: bold, reversed
    game.expect("order (you)>")
    game.type("history" + ENTER)
    game.expect(f"1. X@c3 O@{bot[1]}{bot[2]}")
    game.type("quit" + ENTER)
    game.expect("game saved to")
    assert game.finish() == 0  # left by choice, saved: only an interrupt is 130
    assert [m.move for m in saved(data).games[0].moves] == ["X@c3", f"O@{bot[1]}{bot[2]}"]


@pytest.mark.parametrize("how", [("--no-color",), ("NO_COLOR",)])
def test_no_color_removes_every_style(
    terminals: list[Terminal], data: Path, how: tuple[str]
) -> None:
    if how == ("NO_COLOR",):
        game = start(terminals, "play", "entropy:size=5", "--seed", "2", data=data, NO_COLOR="1")
    else:
        game = start(terminals, "play", "entropy:size=5", "--seed", "2", *how, data=data)
    game.expect("chaos (you)>")
    game.type("a1" + ENTER)
    game.expect("chaos (you)>")
    game.type("quit" + ENTER)
    assert game.finish() == 0
    # Only resets: no colour, bold, dim or reverse anywhere, the board's marks included.
    assert {params for params in SGR.findall(game.raw)} <= {"0", ""}
    assert "[·]" in game.screen.text() or re.search(r"\[[WKYGR]\]", game.screen.text())


def test_editing_keys_history_and_completion(terminals: list[Terminal], data: Path) -> None:
    game = start(terminals, "play", "orderchaos", "--seed", "3", data=data)
    game.expect("order (you)>")
    game.type("X@c4" + LEFT + BACKSPACE + "d" + ENTER)  # X@c4 -> X@4 -> X@d4
    game.expect("player 1 (human) plays X@d4")
    game.expect("order (you)>")
    game.type(UP + ENTER)  # the last line again
    game.expect("not played: illegal move X@d4")
    game.expect("d4 is occupied")
    game.expect("order (you)>")
    game.type("resi" + TAB)
    game.expect("resign")  # completed
    game.type(ENTER)
    game.expect("resign this game? y/N")  # in a game of one too
    game.type("y" + ENTER)
    game.expect("Result: greedy wins — you resigned")
    game.expect("game saved to")
    game.expect("play again (sides swapped)? y/N")
    game.type(ENTER)
    assert game.finish() == 0
    record = saved(data)
    assert record.finished and record.games[0].moves[0].move == "X@d4"


def test_resigning_a_match_asks_first(terminals: list[Terminal], data: Path) -> None:
    game = start(terminals, "play", "entropy:size=5", "-2", "random", "--seed", "1", data=data)
    game.expect("chaos (you)>")
    game.type("resign" + ENTER)
    game.expect("resign the whole match? y/N")
    game.type("n" + ENTER)
    game.expect("not resigned: play on")
    game.type("resign" + ENTER)
    game.expect("resign the whole match? y/N")
    game.type("y" + ENTER)
    game.expect("Result: random wins — you resigned")
    game.expect("play again (sides swapped)? y/N")
    game.type(ENTER)
    assert game.finish() == 0


@pytest.mark.slow
def test_the_clock_counts_down_and_the_flag_falls_without_enter(
    terminals: list[Terminal], data: Path
) -> None:
    # A clock ten times as fast: 20 seconds are 2 real ones, and nothing is typed.
    game = start(
        terminals, "play", "entropy:size=5", "-2", "random", "--seed", "1", "--clock", "20",
        data=data, speed=10,
    )  # fmt: skip
    game.expect("your clock: 0:20.0")
    game.expect("chaos (you)>")
    first = game.line_with("chaos (you)>")
    time.sleep(0.4)
    later = game.line_with("chaos (you)>")
    clock = re.compile(r"^(\d+):(\d\d\.\d) chaos \(you\)>")
    readings = [clock.match(line) for line in (first, later)]
    assert all(readings), (first, later)
    seconds = [int(m[1]) * 60 + float(m[2]) for m in readings if m]
    assert 0 < seconds[1] < seconds[0] <= 20
    game.expect("time is up: your flag fell")
    game.expect("player 1 ran out of time: their moves are made for them")
    summary = game.expect("(out of time):")
    assert summary.count("[") <= 1  # no board between the flag and the summary
    assert "moves played for you" in summary
    game.expect("— game 1 over")
    game.expect("press Enter for game 2")
    game.type(ENTER)
    game.expect("— game 2:")
    game.expect("order (you)>")
    game.type("quit" + ENTER)
    game.expect("game saved to")
    assert game.finish() == 0
    record = saved(data)
    first_game = record.games[0]
    assert first_game.outcome is not None and len(record.games) == 2
    assert any(m.auto for m in first_game.moves)


@pytest.mark.slow
def test_a_flag_fall_loses_a_game_without_timeout_moves(
    terminals: list[Terminal], data: Path
) -> None:
    game = start(
        terminals, "play", "orderchaos", "--seed", "1", "--clock", "20", data=data, speed=40
    )
    game.expect("time is up: your flag fell")
    game.expect("Result: greedy wins — you ran out of time")
    game.expect("play again (sides swapped)? y/N")
    game.type(ENTER)
    assert game.finish() == 0
    assert saved(data).games[0].ended_by is not None


def test_a_hint_shows_the_search_bots_move_and_records_nothing(
    terminals: list[Terminal], data: Path
) -> None:
    game = start(terminals, "play", "dispersal", "--seed", "1", data=data)
    game.expect("O (you)>")
    game.type("hint 0.2" + ENTER)
    hint = game.expect("nothing is recorded")
    assert re.search(r"hint: the search bot would play [a-e][1-5]-[a-e][1-5] \(value [+-]\d", hint)
    game.type("quit" + ENTER)
    assert game.finish() == 0
    assert saved(data).games[0].moves == []


@pytest.mark.slow
def test_games_at_a_terminal_are_kept_unless_no_save(terminals: list[Terminal], data: Path) -> None:
    game = start(terminals, "play", "orderchaos", "--seed", "4", "--no-save", data=data)
    game.expect("order (you)>")
    game.type("resign" + ENTER)
    game.expect("resign this game? y/N")
    game.type("y" + ENTER)
    game.expect("Result:")
    game.expect("play again (sides swapped)? y/N")
    game.type(ENTER)
    assert game.finish() == 0
    assert "game saved" not in game.screen.text()
    assert not (data / "games").exists() or not list((data / "games").iterdir())
    # An interrupted game is never lost: with --no-save it goes where it always went.
    game = start(terminals, "play", "orderchaos", "--seed", "4", "--no-save", data=data)
    game.expect("order (you)>")
    game.type("\x03")  # Ctrl-C
    game.expect("game saved to abstractgames-orderchaos-4.json")
    assert game.finish() == 130
    assert (data.parent / "abstractgames-orderchaos-4.json").exists()


def test_an_unusable_data_directory_is_refused_before_the_game(
    terminals: list[Terminal], tmp_path: Path
) -> None:
    game = start(terminals, "play", "orderchaos", data=Path("/proc/abstractgames"))
    shown = game.expect("--no-save")
    assert "cannot keep the game in '/proc/abstractgames/games'" in shown
    assert game.finish() == 2
    assert "(you)>" not in game.screen.text()


def test_a_signal_at_the_prompt_saves_the_game_and_gives_the_terminal_back(
    terminals: list[Terminal], data: Path
) -> None:
    game = start(terminals, "play", "orderchaos", "--seed", "6", "--clock", "600", data=data)
    game.expect("order (you)>")
    game.type("X@a1" + ENTER)
    game.expect("order (you)>")
    time.sleep(0.2)  # the line editor has the terminal in raw mode
    game.process.send_signal(signal.SIGTERM)
    game.expect("game saved to")
    modes = termios.tcgetattr(game.master)
    assert game.finish() == 128 + signal.SIGTERM
    assert modes[3] & termios.ECHO and modes[3] & termios.ICANON  # cooked mode again
    assert len(saved(data).games[0].moves) == 2


def test_a_finished_game_offers_another_with_the_sides_swapped(
    terminals: list[Terminal], data: Path
) -> None:
    game = start(terminals, "play", "orderchaos", "--seed", "4", data=data)
    game.expect("order (you)>")
    game.type("resign" + ENTER)
    game.expect("resign this game? y/N")
    game.type("y" + ENTER)
    game.expect("Result: greedy wins — you resigned")
    game.expect("play again (sides swapped)? y/N")
    game.type("y" + ENTER)
    game.expect("player 1 (greedy) is order, player 2 (human) is chaos")
    game.expect("chaos (you)>")
    game.type("quit" + ENTER)
    game.expect("game saved to")
    assert game.finish() == 0
    records = [MatchRecord.load(path) for path in (data / "games").iterdir()]
    assert sorted(r.players for r in records) == [("greedy", "human"), ("human", "greedy")]


# --- every line fits the terminal (issue 54, item 2) ----------------------------------------------


def cut_lines(screen: str, columns: int) -> list[str]:
    """The lines a terminal of `columns` would break at its edge, cutting a word (or breaking
    between two words at a place the program did not choose): every line longer than the width,
    but for a single word longer than any line (a long path), which nothing could fit."""
    return [line for line in screen.splitlines() if len(line) > columns and len(line.split()) > 1]


@pytest.mark.parametrize("columns", [80, 60, 40])
def test_no_word_is_cut_at_80_60_and_40_columns(
    terminals: list[Terminal], data: Path, tmp_path: Path, columns: int
) -> None:
    """`play` (the board, the role line, an error, a hint, help, the history, the result and
    the saved game's path), `mail show`, `list` and errors, in pseudo-terminals of 80, 60 and
    40 columns: no line is wider than the terminal, so the terminal cuts no word."""
    screens = []
    game = start(terminals, "play", "entropy:size=5", "--seed", "2", data=data, columns=columns)
    game.expect("chaos (you)>")
    for line in ["zz", "hint 0.1", "help", "a1"]:
        game.type(line + ENTER)
        game.expect("chaos (you)>" if line != "a1" else "moves: 1.")
    game.expect("(you)>")
    game.type("history" + ENTER)
    game.expect("(you)>")
    game.type("resign" + ENTER)
    game.expect("resign the whole match? y/N")
    game.type("y" + ENTER)
    game.expect("play again (sides swapped)? y/N")
    game.type(ENTER)
    assert game.finish() == 0
    screens.append(game.screen.text())
    game = start(terminals, "play", "orderchaos", "--seed", "3", data=data, columns=columns)
    game.expect("order (you)>")
    for line in ["c3", "x", "X@c3", "quit"]:
        game.type(line + ENTER)
        if line == "c3":
            game.expect("X or O?")
        elif line != "quit":
            game.expect("order (you)>")
    game.expect("game saved to")
    assert game.finish() == 0
    screens.append(game.screen.text())
    from click.testing import CliRunner

    from abstractgames.cli import main

    mail = str(tmp_path / "mail.txt")  # written in this process: only `mail show` needs a pty
    done = CliRunner().invoke(
        main, ["mail", "new", "orderchaos", "-1", "Ann", "-2", "Bob", "--me", "both", "-o", mail]
    )
    assert done.exit_code == 0, done.output
    for move in ["X@c3", "O@d4", "X@a1", "O@b2", "X@e5", "O@f6", "X@a6", "O@b5"]:
        done = CliRunner().invoke(main, ["mail", "move", mail, move, "-o", mail])
        assert done.exit_code == 0, done.output
    diagram = tmp_path / "diagram.txt"
    diagram.write_text("S . . . .\n. . . . .\n. . . . .\n. . . . .\nO . . . .\n")
    for args in (
        ["mail", "show", str(mail)],
        ["list"],
        ["show", "dispersal", str(diagram)],
        ["show", "dispersal", "--position-file", str(diagram)],
        ["play", "nosuchgame"],
    ):
        shown = start(terminals, *args, data=data, columns=columns)
        shown.finish()
        screens.append(shown.screen.text())
    text = "\n".join(screens)
    for expected in ("not played:", "hint:", "Result:", "game saved to", "5. order X@e5"):
        assert expected in text
    assert cut_lines(text, columns) == []
