"""`abstractgames play`: bots and people through CliRunner and real processes, resuming, what a
person sees and types (stdin from a pipe; the pseudo-terminal tests are in
tests/terminal/test_session.py), external programs, and the game kept whatever happens: signals,
Ctrl-C, a crashing bot, an output path that cannot be written."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames import available_games, get_game, make_player
from abstractgames.cli import EXIT_INTERRUPTED, main
from abstractgames.records import GameEnd, MatchRecord
from abstractgames.referee import Referee
from tests.conftest import (
    Interrupting,
    StopAt,
    bad_engine,
    command,
    is_gone,
    our_engine,
    posix_only,
    posix_signals,
    wait_gone,
)


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
    assert "took back 2 moves" in out
    assert "Result: greedy wins — you resigned" in out
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
    assert "resumed after 4 moves" in " ".join(out.split())  # players' moves, wrapped to fit
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
        input="chaos:B:\n[b]\nresign\n",
    )
    assert code == 0
    assert "'chaos:B:'" in out and "\U0001f171" not in out
    assert "cannot read move '[b]'" in out or "'[b]'" in out


def test_clocks_are_shown_to_people() -> None:
    code, out = run(
        "play", "orderchaos", "--clock", "90+1", "--seed", "1", "--no-color", input="resign\n"
    )
    assert code == 0
    assert "your clock: 1:30.0" in out
    assert "clocks — player 1: 1:30.0 · player 2: 1:30.0" in out


# --- what a person sees and can type (stdin from a pipe; the pseudo-terminal tests are in
# tests/terminal/test_session.py) ---------------------------------------------------------------


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
    assert out.count("not played:") == 1
    line = " ".join(out.split("not played:")[1].split("(you)>")[0].split())  # wrapped to fit
    assert "it is Order's turn: slide a counter" in line
    assert "you can play a slide such as " in line and " or pass" in line
    assert "@" not in line  # no placement suggested
    assert "you are Order: slide a counter to make palindromes, or pass" in out


def test_quit_saves_the_game_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, out = run(
        "play", "orderchaos", "--seed", "5", "--record", str(path), input="X@a1\nquit\n"
    )
    assert code == 0  # left by choice, the game saved: only an interrupt is 130
    assert f"game saved to {path}; continue it with: abstractgames play --resume {path}" in out
    saved = MatchRecord.load(path)
    assert not saved.finished and saved.games[0].moves[0].move == "X@a1"


def test_a_hint_is_a_move_and_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    code, out = run(
        "play", "orderchaos", "--seed", "5", "--record", str(path), input="hint 0.1\nquit\n"
    )
    assert code == 0
    found = r"hint: the search bot would play [XO]@[a-f][1-6] \((value [+-]|a forced )"
    said = " ".join(out.split())  # wrapped to the width
    assert re.search(found + r".*search depth \d+\) — a learning aid", said), out
    assert MatchRecord.load(path).games[0].moves == []


@pytest.mark.parametrize("game", ["entropy:size=5", "dispersal"])
def test_every_games_hint_says_what_the_search_found(
    game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # quit saves the game in the working directory
    code, out = run("play", game, "--seed", "2", "--no-save", input="hint 0.1\nquit\n")
    assert code == 0
    said = " ".join(out.split())  # wrapped to the width
    assert re.search(r"would play \S+ \((value [+-]|a forced ).*search depth \d+\)", said), out


# --- external programs ----------------------------------------------------------------------------


def moves_of(record: MatchRecord) -> list[list[str]]:
    return [[m.move for m in g.moves] for g in record.games]


@posix_only
def test_play_against_an_engine_records_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    engine = our_engine("greedy")
    code, out = run(
        "play", "orderchaos", "-1", "random", "-2", engine, "--seed", "4", "--record", str(path)
    )
    assert code == 0, out
    assert "Result:" in out
    record = MatchRecord.load(path)
    assert record.players == ("random", engine)
    inside = Referee(
        get_game("orderchaos"),
        (
            make_player("random", get_game("orderchaos")),
            make_player("greedy", get_game("orderchaos")),
        ),
        seed=4,
    ).play()
    assert moves_of(record) == moves_of(inside)
    code, out = run("replay", str(path), "--no-color")
    assert code == 0, out
    assert "Result:" in out


@posix_only
def test_resume_never_starts_a_program_named_only_in_the_record(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    marker = tmp_path / "started"
    engine = bad_engine("good", 1, marker)

    record = Referee(game, (Interrupting(), make_player("random", game)), seed=3).play()
    record.players = ("random", engine)
    path = tmp_path / "match.json"
    record.save(path)
    code, out = run("play", "--resume", str(path))
    assert code == 1
    assert "player 2 in" in out and "is an external program" in out and "give it with -2" in out
    assert len(out.strip().splitlines()) == 1
    assert not marker.exists()
    code, out = run("play", "--resume", str(path), "-2", engine)
    assert code == 0, out
    assert marker.exists()
    assert MatchRecord.load(path).finished


@posix_only
def test_ctrl_c_in_the_referee_kills_the_engine(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "abstractgames",
            "play",
            "orderchaos",
            "-2",
            bad_engine("good", 1, pidfile),
            "--record",
            str(tmp_path / "game.json"),
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
    seen = ""
    while seen.count("order (you)>") < 2:
        seen += process.stdout.read(1)
    pid = int(pidfile.read_text().split()[0])
    assert not is_gone(pid)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == EXIT_INTERRUPTED, err
    assert wait_gone(pid)


PROGRAM = Path(__file__).resolve().parents[1] / "support" / "codecup_entropy.py"


def program(*flags: object, pidfile: Path | None = None, options: str = "") -> str:
    extra = ["--pidfile", pidfile] if pidfile is not None else []
    return f"codecup:{options}" + command(sys.executable, PROGRAM, *flags, *extra)


@posix_only
def test_play_a_codecup_program_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    result = CliRunner().invoke(
        main,
        ["play", "entropy", "-1", program(), "-2", "random", "--seed", "2", "--record", str(path)],
    )
    assert result.exit_code == 0, result.output
    assert "Result:" in result.output
    assert MatchRecord.load(path).finished


@posix_only
def test_no_undo_against_a_codecup_program() -> None:
    result = CliRunner().invoke(
        main,
        ["play", "entropy", "-1", "human", "-2", program(), "--no-color"],
        input="a1\nundo\nresign\n",
    )
    assert result.exit_code == 0, result.output
    assert "undo is only possible" in result.output
    assert "player 1 resigned" in result.output


# --- a bot from a file in a record ----------------------------------------------------------------


ROOT = Path(__file__).resolve().parents[2]
CENTRE_BOT = ROOT / "examples" / "custom_bot.py"


def test_a_record_never_runs_a_bot_file_on_resume(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    spec = f"{CENTRE_BOT}:CentreBot"
    record = Referee(game, (make_player(spec, game), StopAt(3)), seed=5).play()
    assert not record.finished
    path = tmp_path / "match.json"
    record.save(path)
    command = [sys.executable, "-m", "abstractgames", "play", "--resume", str(path)]
    out = subprocess.run([*command, "-2", "random"], capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr.strip() == (
        f"Error: {path}: player 1 in this record is a bot from a file or module ({spec}): "
        "programs, files and modules are only started from a spec you give; give it with -1 to "
        "continue"
    )
    out = subprocess.run([*command, "-1", spec, "-2", "random"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "Result: " in out.stdout


# --- in a process of its own: signals, output paths, a crashing bot, text from outside ------------


ABSTRACTGAMES = [sys.executable, "-m", "abstractgames"]


def run_process(
    *args: str, cwd: Path | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ABSTRACTGAMES, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120
    )


def start(*args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*ABSTRACTGAMES, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )


def wait_for(process: subprocess.Popen[str], text: str, times: int = 1) -> str:
    """Read the process's output until ``text`` was seen ``times`` times."""
    assert process.stdout is not None
    seen = ""
    while seen.count(text) < times:
        char = process.stdout.read(1)
        assert char, f"the process ended before {text!r}: {seen[-300:]!r}"
        seen += char
    return seen


@posix_signals
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_saves_the_game_and_stops_the_engine(tmp_path: Path, signum: int) -> None:
    pidfile, record = tmp_path / "pids", tmp_path / "game.json"
    engine = bad_engine("good", 1, pidfile)
    game = start("play", "orderchaos", "-2", engine, "--record", str(record), "--no-color")
    assert game.stdin is not None
    game.stdin.write("X@a1\n")
    game.stdin.flush()
    wait_for(game, "order (you)>", 2)  # the engine has answered and is still running
    pid = int(pidfile.read_text().split()[0])
    assert not is_gone(pid)
    game.send_signal(signum)
    _, err = game.communicate(timeout=30)
    assert game.returncode == 128 + signum, err
    assert f"game saved to {record}" in err and "Traceback" not in err
    saved = MatchRecord.load(record)
    assert not saved.finished and [m.move for m in saved.games[0].moves][:1] == ["X@a1"]
    assert wait_gone(pid)
    resumed = run_process("play", "--resume", str(record), "-2", "greedy", stdin="resign\n")
    assert resumed.returncode == 0, resumed.stderr


@posix_signals
@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("{tmp}/missing/game.json", "there is no directory"),
        ("", "the file name is empty"),
        ("{tmp}/" + "x" * 300 + ".json", "too long"),
        ("/proc/game.json", "cannot create a file in '/proc'"),
        ("{tmp}", "is a directory"),
    ],
)
def test_an_unwritable_record_fails_before_any_move(
    tmp_path: Path, where: str, message: str
) -> None:
    pidfile = tmp_path / "pids"
    path = where.format(tmp=tmp_path)
    done = run_process("play", "orderchaos", "-1", "random", "-2", bad_engine("good", 1, pidfile),
                       "--record", path)  # fmt: skip
    assert done.returncode == 2, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    assert message in line and "Traceback" not in done.stderr
    assert not pidfile.exists()  # no program was started, no move was played


@posix_signals
def test_an_unwritable_working_directory_is_refused_when_no_record_is_given() -> None:
    done = run_process("play", "orderchaos", "-1", "random", "-2", "random", cwd=Path("/proc"))
    assert done.returncode == 2
    assert "give --record PATH" in done.stderr and "Traceback" not in done.stderr


@posix_signals
def test_a_record_that_cannot_be_written_at_the_end_goes_to_a_fallback_file(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    record = folder / "game.json"
    game = start("play", "orderchaos", "-2", "greedy", "--record", str(record), "--no-color")
    assert game.stdin is not None
    wait_for(game, "order (you)>")
    folder.rmdir()  # the folder is gone before the game ends (a disk pulled out, say)
    _, err = game.communicate("resign\n", timeout=60)
    assert game.returncode == 74, err
    assert f"cannot write {record}" in err and "the game is saved to" in err
    fallback = Path(err.split("the game is saved to ")[1].split()[0])
    try:
        assert MatchRecord.load(fallback).finished
    finally:
        fallback.unlink()


@posix_signals
def test_a_crashing_bot_leaves_the_game_on_disk(tmp_path: Path) -> None:
    bot = tmp_path / "fragile.py"
    bot.write_text(
        textwrap.dedent(
            """
            from abstractgames.players import Player


            class Fragile(Player):
                def choose(self, state, rng, time_left=None):
                    if len(state.cells().replace(".", "")) >= 4:
                        raise RuntimeError("out of ideas")
                    return state.legal_moves()[0]
            """
        )
    )
    record = tmp_path / "game.json"
    # In this process (inprocess:), a bot's error stops the match; run apart, it forfeits.
    done = run_process("play", "orderchaos", "-1", f"inprocess:{bot}:Fragile", "-2", "random",
                       "--seed", "1", "--record", str(record))  # fmt: skip
    assert done.returncode == 1
    assert (
        f"player 1 (inprocess:{bot}:Fragile) failed: RuntimeError: out of ideas (at fragile.py"
        in (done.stderr)
    )
    assert "Traceback" not in done.stderr and f"game saved to {record}" in done.stderr
    saved = MatchRecord.load(record)
    assert not saved.finished and len(saved.games[0].moves) == 4
    resumed = run_process("play", "--resume", str(record), "-1", "random")
    assert resumed.returncode == 0, resumed.stderr
    assert MatchRecord.load(record).finished


@posix_signals
def test_a_crafted_record_cannot_drive_the_terminal(tmp_path: Path) -> None:
    done = run_process("play", "orderchaos", "-1", "random", "-2", "random", "--seed", "3",
                       "--record", str(tmp_path / "game.json"))  # fmt: skip
    assert done.returncode == 0
    data = json.loads((tmp_path / "game.json").read_text())
    hostile = "\x1b]0;pwned\x07\x1b[2J"
    data["players"] = [hostile, "random"]
    data["result"]["reason"] = f"five in a row{hostile}"
    (tmp_path / "crafted.json").write_text(json.dumps(data))
    shown = run_process("replay", str(tmp_path / "crafted.json"))
    assert shown.returncode == 1 and "is not what the games give" in shown.stderr
    resumed = run_process("play", "--resume", str(tmp_path / "crafted.json"))
    for output in (shown.stdout, shown.stderr, resumed.stdout, resumed.stderr):
        assert "\x1b" not in output and "\x07" not in output


@posix_signals
def test_play_keeps_every_program_log_in_logs_dir(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    engine = bad_engine("stderr", 1, tmp_path / "pids").replace(f",log={tmp_path / 'logs'}", "")
    done = run_process("play", "orderchaos", "-1", "random", "-2", engine, "--seed", "2",
                       "--logs", str(logs))  # fmt: skip
    assert done.returncode == 0, done.stderr
    (log,) = logs.glob("abstractgames-engine-*.log")
    assert log.read_text().strip()
    empty = run_process("play", "orderchaos", "-1", "random", "-2", "random", "--logs", "")
    assert empty.returncode == 2 and "the directory name is empty" in empty.stderr
