"""The CodeCup 2023 Entropy protocol: seating CodeCup programs, and being one."""

from __future__ import annotations

import os
import queue
import random
import re
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from abstractgames import AbstractGamesError, get_game, make_player, random_move
from abstractgames.engines.codecup_entropy import (
    CodecupPlayer,
    cell_name,
    decode_chaos_move,
    decode_order_move,
    encode_chaos_move,
    encode_order_move,
    parse_cell,
)
from abstractgames.engines.external import ExternalPlayer
from abstractgames.entropy import PASS, Draw, EntropyState, Placement, Slide
from abstractgames.players import InvalidPlayerError, Player, UndoRequest
from abstractgames.protocol import InvalidMoveError, Move, State
from abstractgames.records import MatchRecord
from abstractgames.referee import Referee
from tests.conftest import Interrupting, StopAt, assert_reaped, command, is_safe

pytestmark = pytest.mark.skipif(os.name != "posix", reason="external programs need POSIX")

PROGRAM = Path(__file__).resolve().parents[1] / "support" / "codecup_entropy.py"
ROWS, COLUMNS = "ABCDEFG", "abcdefg"
COLOURS = "WKYGRBP"


def program(*flags: object, pidfile: Path | None = None, options: str = "") -> str:
    extra = ["--pidfile", pidfile] if pidfile is not None else []
    return f"codecup:{options}" + command(sys.executable, PROGRAM, *flags, *extra)


def ours(bot: str) -> str:
    return "codecup:" + command(sys.executable, "-m", "abstractgames", "codecup", "-p", bot)


# --- notation -------------------------------------------------------------------------------------


def test_rows_are_ranks_and_columns_are_files() -> None:
    grid = get_game("entropy").initial_state()
    assert grid.size == 7
    assert cell_name(0) == "Aa"  # a1
    assert cell_name(7 * 1 + 2) == "Bc"  # c2: row B is rank 2, column c is file c
    assert cell_name(48) == "Gg"  # g7
    assert cell_name(6) == "Ag"  # g1
    assert all(parse_cell(cell_name(square)) == square for square in range(49))
    assert parse_cell("bC") == parse_cell("Bc")
    for bad in ("Hc", "Bh", "B", "Bcc", "3c"):
        with pytest.raises(InvalidMoveError, match="is not a CodeCup cell"):
            parse_cell(bad)


def test_moves_both_ways() -> None:
    game = get_game("entropy")
    placement = game.parse_move("Y@c2")
    assert isinstance(placement, Placement)
    assert encode_chaos_move(placement) == "3Bc"
    assert decode_chaos_move("3Bc") == ("Y", placement.square)
    assert encode_order_move(game.parse_move("c2-g2"), 0) == "BcBg"
    assert decode_order_move("BcBg") == game.parse_move("c2-g2")
    assert encode_order_move(PASS, parse_cell("Dd")) == "DdDd"
    assert decode_order_move("AaAa") == PASS  # any cell twice, empty or not
    assert decode_order_move("GgGg") == PASS
    assert isinstance(decode_order_move("AaAg"), Slide)
    for bad in ("8Bc", "0Bc", "3B"):
        with pytest.raises(InvalidMoveError):
            decode_chaos_move(bad)
    with pytest.raises(InvalidMoveError, match="two cells"):
        decode_order_move("BcB")


# --- seating a CodeCup program --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (program("--seed", 1, "--chatter", options="log=__LOGS__:"), "greedy"),
        ("random", program("--seed", 2)),
        (program("--seed", 3), ours("greedy")),
    ],
    ids=["program-vs-greedy", "random-vs-program", "program-vs-ours"],
)
def test_a_codecup_program_plays_whole_matches(first: str, second: str, tmp_path: Path) -> None:
    first = first.replace("__LOGS__", str(tmp_path))
    game = get_game("entropy")
    players = (make_player(first, game), make_player(second, game))
    record = Referee(game, players, seed=7).play()
    assert record.finished and record.result is not None
    assert [len(g.moves) for g in record.games] == [146, 146]  # 49 draws, 49 placements, 48 slides
    assert all(g.ended_by is None for g in record.games)
    assert MatchRecord.loads(record.dumps()).replay()[0].result() == record.result
    for player in players:
        if isinstance(player, CodecupPlayer):
            assert len(player.logs) == 2  # a fresh program for each game
    if "--chatter" in first:
        assert isinstance(players[0], CodecupPlayer)
        assert all(log.parent == tmp_path for log in players[0].logs)
        assert all("move 1: " in log.read_text() for log in players[0].logs)


@pytest.mark.parametrize(
    ("seat", "flags", "reason"),
    [
        (2, ("--illegal", 3), r'^illegal move "AaGg" by player 2: .* not on one rank or file'),
        (1, ("--illegal", 2), r'^illegal move "\w\w" by player 1: .* is occupied$'),
        pytest.param(
            1, ("--hang", 4), r"^player 1 did not answer within 1\.0 s$", marks=pytest.mark.slow
        ),
    ],
    ids=["illegal-slide", "illegal-placement", "hang"],
)
def test_a_misbehaving_codecup_program_loses(
    seat: int, flags: tuple[object, ...], reason: str, tmp_path: Path
) -> None:
    game = get_game("entropy")
    pidfile = tmp_path / "pids"
    bad = make_player(program(*flags, pidfile=pidfile, options="timeout=1:"), game)
    players = (
        (bad, make_player("random", game)) if seat == 1 else (make_player("random", game), bad)
    )
    started = time.monotonic()
    record = Referee(game, players, seed=4).play()
    assert time.monotonic() - started < 1.0 + 3.0
    assert record.result is not None and record.result.winner == 3 - seat
    assert re.match(reason, record.result.reason), record.result.reason
    for pid in pidfile.read_text().split():
        assert_reaped(int(pid))


def test_codecup_is_for_seven_by_seven_entropy_only() -> None:
    for spec in ("orderchaos", "dispersal"):
        with pytest.raises(InvalidPlayerError, match=f"7×7 board only, not {spec}"):
            make_player(program(), get_game(spec))
    with pytest.raises(InvalidPlayerError, match="not entropy:size=5"):
        make_player(program(), get_game("entropy", size=5))


def test_a_codecup_program_cannot_join_a_game_in_progress(tmp_path: Path) -> None:
    game = get_game("entropy")
    record = Referee(game, (make_player("random", game), Interrupting()), seed=3).play()
    assert not record.finished and record.games[0].moves
    pidfile = tmp_path / "pids"
    players = (make_player("random", game), make_player(program(pidfile=pidfile), game))
    with pytest.raises(AbstractGamesError, match="cannot join a game in progress"):
        Referee(game, players, seed=3).play(record)
    assert not pidfile.exists()  # nothing was started


def test_a_codecup_program_takes_over_a_game_where_it_has_not_moved() -> None:
    """Stopped at Order's first move: the program hears the game from its start, as at the
    CodeCup, and plays on."""
    game = get_game("entropy")
    stopper = StopAt(1)
    record = Referee(game, (make_player("random", game), stopper), seed=3).play()
    assert [m.player for m in record.games[0].moves] == [None, 1]
    players = (make_player("random", game), make_player(program(), game))
    done = Referee(game, players, seed=3).play(record)
    assert done.finished and [len(g.moves) for g in done.games] == [146, 146]
    assert all(g.ended_by is None for g in done.games)


class UndoAtThirdMove(Player):
    """Plays the first legal move, and asks to take back its third."""

    spec = "human"

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        self.calls += 1
        if self.calls == 3:
            raise UndoRequest()
        return state.legal_moves()[0]


def test_a_codecup_program_cannot_take_moves_back(tmp_path: Path) -> None:
    game = get_game("entropy")
    pidfile = tmp_path / "pids"
    players = (UndoAtThirdMove(), make_player(program(pidfile=pidfile), game))
    with pytest.raises(
        AbstractGamesError, match="cannot join a game in progress or take moves back"
    ):
        Referee(game, players, seed=3).play()
    (pid,) = pidfile.read_text().split()
    assert_reaped(int(pid))


# --- our bots as CodeCup programs, driven exactly as the CodeCup referee did ---------------------


class Harness:
    """The CodeCup side of the dialogue: lines to the program, its answers with a timeout."""

    def __init__(self, bot: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "abstractgames", "codecup", "--player", bot, "--seed", "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.answers: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(line.rstrip("\n"))
        self.answers.put(None)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def receive(self) -> str:
        answer = self.answers.get(timeout=30)
        assert answer is not None, "the program ended its output"
        return answer

    def quit(self) -> tuple[int, str]:
        self.send("Quit")
        _, err = self.process.communicate(timeout=10)
        assert self.answers.get(timeout=10) is None  # nothing more was written
        return self.process.returncode, err


def square_of(cell: str) -> int:
    return ROWS.index(cell[0]) * 7 + COLUMNS.index(cell[1])


def cell_of(square: int) -> str:
    return ROWS[square // 7] + COLUMNS[square % 7]


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_our_program_as_chaos(bot: str) -> None:
    rng = random.Random(5)
    state: EntropyState = get_game("entropy").initial_state()
    harness = Harness(bot)
    harness.send("Start")
    while True:
        draw = random_move(state, rng)
        assert isinstance(draw, Draw)
        state = state.apply(draw)
        harness.send(str(COLOURS.index(draw.colour) + 1))
        answer = harness.receive()
        assert re.fullmatch("[A-G][a-g]", answer), answer
        state = state.apply(Placement(draw.colour, square_of(answer)))
        if state.is_terminal():
            break
        placed = square_of(answer)
        move = rng.choice(state.legal_moves())
        if isinstance(move, Slide):
            harness.send(cell_of(move.origin) + cell_of(move.target))
        else:
            harness.send(cell_of(placed) * 2)
        state = state.apply(move)
    assert harness.quit() == (0, "")


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_our_program_as_order(bot: str) -> None:
    rng = random.Random(6)
    state: EntropyState = get_game("entropy").initial_state()
    harness = Harness(bot)
    passes = 0
    while True:
        draw = random_move(state, rng)
        assert isinstance(draw, Draw)
        state = state.apply(draw)
        square = rng.choice([i for i, c in enumerate(state.cells()) if c == "."])
        state = state.apply(Placement(draw.colour, square))
        harness.send(f"{COLOURS.index(draw.colour) + 1}{cell_of(square)}")
        if state.is_terminal():
            break
        answer = harness.receive()
        assert re.fullmatch("[A-G][a-g][A-G][a-g]", answer), answer
        if answer[:2] == answer[2:]:
            assert answer[:2] == cell_of(square)  # a pass names the counter just placed
            state = state.apply(PASS)
            passes += 1
        else:
            state = state.apply(Slide(square_of(answer[:2]), square_of(answer[2:])))
    assert harness.quit() == (0, "")
    if bot == "greedy":
        assert passes > 0


def test_our_program_reports_input_it_cannot_play() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "codecup", "--player", "random"],
        input="Start\n9\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 1
    assert out.stdout == ""
    assert out.stderr.startswith('abstractgames codecup: cannot play "9"')


def test_our_program_as_order_against_the_codecup_program_through_the_referee() -> None:
    """Both sides speak CodeCup: the independent program and ours, each seated by ``codecup:``."""
    game = get_game("entropy")
    players = (make_player(ours("random"), game), make_player(program("--seed", 9), game))
    record = Referee(game, players, seed=1, single=True).play()
    assert record.finished and len(record.games) == 1
    assert len(record.games[0].moves) == 146
    assert shlex.split(players[0].spec.partition(":")[2])[-1] == "random"


# --- text from a program --------------------------------------------------------------------------


HOSTILE_CODECUP = """
import sys
sys.stdin.readline()
print("\\x1b]0;pwned\\x07\\x1b[2J" + "A" * 60000, flush=True)
sys.stdin.readline()
"""


def test_a_codecup_programs_move_is_escaped_and_bounded(tmp_path: Path) -> None:
    game = get_game("entropy")
    program = make_player("codecup:" + command(sys.executable, "-c", HOSTILE_CODECUP), game)
    assert isinstance(program, ExternalPlayer)
    record = Referee(game, (program, make_player("random", game)), seed=1).play()
    assert record.result is not None and record.result.winner == 2
    reason = record.result.reason
    assert reason.startswith(r'illegal move "\x1b]0;pwned\x07\x1b[2JAAA'), reason
    assert is_safe(reason) and len(reason) <= 500


def test_under_a_game_clock_the_bot_is_told_the_time_left() -> None:
    import io

    from abstractgames.engines.codecup_entropy import serve_codecup

    told: list[float | None] = []

    class Spy(Player):
        spec = "spy"

        def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
            told.append(time_left)
            time.sleep(0.01)
            return random_move(state, rng)

    out = io.StringIO()
    code = serve_codecup(lambda game: Spy(), ["Start", "3", "GgGg", "5", "Quit"], out, clock=30.0)
    assert code == 0 and len(told) == 2
    assert told[0] is not None and told[1] is not None and 29 < told[1] < told[0] <= 30
    told.clear()
    serve_codecup(lambda game: Spy(), ["Start", "3", "Quit"], io.StringIO())
    assert told == [None]  # no clock, nothing told


def test_the_codecup_command_takes_a_game_clock() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "abstractgames", "codecup", "-p", "random", "--clock", "10"],
        input="Start\n3\nQuit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"[A-G][a-g]\n", done.stdout)
