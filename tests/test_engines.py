"""External programs as players: the engine protocol, robustness, and the command line."""

from __future__ import annotations

import copy
import io
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames import available_players, get_game, make_player, parse_game_spec
from abstractgames.cli import EXIT_INTERRUPTED, main
from abstractgames.engines.agp import (
    EnginePlayer,
    format_go,
    format_position,
    is_seed_token,
    parse_go,
    parse_position,
    serve,
)
from abstractgames.engines.external import ExternalPlayer
from abstractgames.engines.process import Process, ProcessEnded, ProcessError, ProcessTimeout
from abstractgames.players import InvalidPlayerError, SeededRandom
from abstractgames.records import ClockSettings, GameEnd, MatchRecord
from abstractgames.referee import Referee, chance_rng, player_rng

from .conftest import (
    BAD_ENGINE,
    Interrupting,
    StopAt,
    assert_reaped,
    bad_engine,
    command,
    is_gone,
    our_engine,
    wait_gone,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="external programs need POSIX")


def moves_of(record: MatchRecord) -> list[list[str]]:
    return [[m.move for m in g.moves] for g in record.games]


SPY = (
    "import subprocess, sys\n"
    "log = open(sys.argv[1], 'w')\n"
    "child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, text=True)\n"
    "for line in sys.stdin:\n"
    "    log.write(line); log.flush()\n"
    "    child.stdin.write(line); child.stdin.flush()\n"
    "child.stdin.close(); child.wait()\n"
)


def spied_engine(transcript: Path, game: str, bot: str) -> str:
    """The spec of our engine behind a spy that writes what the referee sends to ``transcript``."""
    engine = [sys.executable, "-m", "abstractgames", "engine", game, "-p", bot]
    return "engine:" + command(sys.executable, "-c", SPY, transcript, *engine)


# --- our bots as engines play exactly as in-process -----------------------------------------------


@pytest.mark.parametrize(
    ("spec", "bot", "both"),
    [
        ("orderchaos", "random", True),
        ("orderchaos", "greedy", False),
        ("dispersal", "random", False),
        ("dispersal", "greedy", True),
        ("entropy:size=5", "random", True),
        ("entropy", "random", False),
        ("entropy", "greedy", False),
    ],
)
def test_our_bots_as_engines_play_identical_matches(spec: str, bot: str, both: bool) -> None:
    game = parse_game_spec(spec)
    first = make_player(our_engine(bot) if both else "random", game)
    second = make_player(our_engine(bot), game)
    external = Referee(game, (first, second), seed=11).play()
    inside = Referee(
        game, (make_player("random" if not both else bot, game), make_player(bot, game)), seed=11
    ).play()
    assert external.finished
    assert moves_of(external) == moves_of(inside)
    assert MatchRecord.loads(external.dumps()).replay()[0].result() == external.result
    external.players = inside.players
    assert external.dumps() == inside.dumps()  # byte for byte, but for the players' specs
    assert isinstance(second, EnginePlayer) and second.engine_name == f"abstractgames {bot}"


def test_the_engine_is_told_every_move_and_draw(tmp_path: Path) -> None:
    """A spy between the referee and our engine sees the whole game, chance draws included."""
    transcript = tmp_path / "transcript.txt"
    game = get_game("entropy", size=5)
    spec = spied_engine(transcript, "entropy:size=5", "random")
    record = Referee(game, (make_player("random", game), make_player(spec, game)), seed=2).play()
    lines = transcript.read_text().splitlines()
    assert lines[:3] == ["agp 1", "game entropy:size=5", "newgame"]
    assert lines[3] == "isready"
    assert lines[-1] == "quit"
    positions = [line for line in lines if line.startswith("position")]
    gos = [line for line in lines if line.startswith("go ")]
    assert (
        len(positions) == len(gos) == sum(1 for g in record.games for m in g.moves if m.player == 2)
    )
    # Player 2 is Order in game 1: its first request holds the draw and Chaos's placement.
    game_one = record.games[0].moves
    assert positions[0] == f"position startpos moves {game_one[0].move} {game_one[1].move}"
    assert gos[0] == "go timeout 30 seed 2/1/2/player2"
    # Every request carries the label of the generator the referee hands player 2 at that ply.
    assert [g.rpartition(" seed ")[2] for g in gos] == [
        f"2/{g.number}/{ply}/player2"
        for g in record.games
        for ply, entry in enumerate(g.moves)
        if entry.player == 2
    ]
    assert lines.count("newgame") == 2  # game 2 of the match


def test_a_resumed_game_sends_the_whole_game_to_the_engine(tmp_path: Path) -> None:
    """Dispersal's repetition history survives: the engine hears every move from the start."""
    game = get_game("dispersal")
    stopped = Referee(game, (make_player("random", game), StopAt(6)), seed=6).play()
    assert not stopped.finished
    recorded = [m.move for m in stopped.games[0].moves]
    assert len(recorded) == 11  # player 2 was about to make its sixth move
    in_process = MatchRecord.loads(stopped.dumps())
    transcript = tmp_path / "transcript.txt"
    engine = make_player(spied_engine(transcript, "dispersal", "random"), game)
    resumed = Referee(game, (make_player("random", game), engine), seed=6).play(stopped)
    lines = transcript.read_text().splitlines()
    assert lines[2:5] == ["newgame", "isready", "position startpos moves " + " ".join(recorded)]
    assert lines[5] == "go timeout 30 seed 6/1/11/player2"
    bots = (make_player("random", game), make_player("random", game))
    inside = Referee(game, bots, seed=6).play(in_process)
    assert resumed.finished
    resumed.players = inside.players
    assert resumed.dumps() == inside.dumps()


def test_an_engine_player_without_the_referee(tmp_path: Path) -> None:
    """``choose`` alone: the position by itself as a new game, and a seed only from a label."""
    game = get_game("dispersal")
    transcript = tmp_path / "transcript.txt"
    engine = make_player(spied_engine(transcript, "dispersal", "random"), game)
    state = game.initial_state()
    first = engine.choose(state, random.Random(3))
    after = state.apply(first)
    later = after.apply(after.legal_moves()[0])
    engine.choose(later, SeededRandom("my-label"))
    engine.close()
    lines = transcript.read_text().splitlines()
    assert lines[2:] == [
        "newgame",
        "isready",
        "position startpos",
        "go timeout 30",
        "newgame",
        "isready",
        f"position fen {later.position()}",
        "go timeout 30 seed my-label",
        "quit",
    ]


def test_the_engine_server_dialogue() -> None:
    commands = [
        "agp 1",
        "game orderchaos",
        "newgame",
        "isready",
        "position startpos moves X@c3",
        "go timeout 5 seed 12",
        "position fen 6/6/6/6/6/6 order moves X@a1 O@a2",
        "go time 3.5",
        "frobnicate",
        "go",
        "position startpos moves X@z9",
        "position startpos moves X@a1 X@a1",
        "quit",
        "isready",
    ]
    output = io.StringIO()
    code = serve(
        lambda game: make_player("random", game),
        commands,
        output,
        read_game=parse_game_spec,
        name="abstractgames random",
        rng=random.Random(1),
    )
    assert code == 0
    lines = output.getvalue().splitlines()
    assert lines[:5] == [
        "id name abstractgames random",
        "id author abstractgames",
        "agpok",
        "gameok",
        "readyok",
    ]
    game = get_game("orderchaos")
    first = game.initial_state().apply("X@c3")
    expected = make_player("random", game).choose(first, random.Random("12"))
    assert lines[5] == f"move {expected}"
    assert lines[6].startswith("move ")
    assert lines[7] == 'error unknown command "frobnicate"'
    assert lines[8].startswith("move ")  # 'go' without a seed uses the engine's own generator
    assert lines[9].startswith("error ") and "z9" in lines[9]
    assert lines[10].startswith("error ") and "occupied" in lines[10]
    assert len(lines) == 11  # nothing after quit


def test_the_engine_server_refuses_what_it_cannot_do() -> None:
    output = io.StringIO()
    commands = ["agp 2", "go", "game chess", "game entropy", "go", "position startpos", "go"]
    make = lambda game: make_player("random", game)  # noqa: E731
    serve(make, commands, output, read_game=parse_game_spec, game=get_game("orderchaos"))
    lines = output.getvalue().splitlines()
    assert lines[0] == "error this engine speaks protocol version 1"
    assert lines[1] == "error no game: send 'game <spec>' first"
    assert lines[2].startswith("error unknown game 'chess'")
    assert lines[3] == "error this engine plays orderchaos, not entropy"
    assert lines[4] == "error no game: send 'game <spec>' first"
    assert lines[5] == "error no game: send 'game <spec>' first"


def test_an_engine_speaking_another_version(tmp_path: Path) -> None:
    script = "import sys\nfor line in sys.stdin:\n    print('error I speak version 2', flush=True)"
    game = get_game("orderchaos")
    engine = make_player("engine:" + command(sys.executable, "-c", script), game)
    result = Referee(game, (make_player("random", game), engine)).play().result
    assert result is not None
    assert result.reason == "player 2 does not speak engine protocol 1: I speak version 2"


def test_the_referees_generators_carry_their_labels() -> None:
    rng = player_rng(42, 1, 17, 2)
    assert isinstance(rng, random.Random) and rng.label == "42/1/17/player2"
    plain = random.Random("42/1/17/player2")
    assert [rng.random() for _ in range(5)] == [plain.random() for _ in range(5)]
    copied = copy.deepcopy(rng)
    assert copied.label == rng.label and copied.random() == rng.random()
    assert chance_rng(42, 2, 0).label == "42/2/0/chance"
    assert is_seed_token(rng.label)
    assert not any(map(is_seed_token, ["", "two words", "tab\there", "new\nline"]))


def test_command_formats() -> None:
    assert format_position(None, []) == "position startpos"
    assert (
        format_position("6/6/6/6/6/6 order", ["X@a1"])
        == "position fen 6/6/6/6/6/6 order moves X@a1"
    )
    assert parse_position("fen 6/6/6/6/6/6 order moves X@a1") == ("6/6/6/6/6/6 order", ["X@a1"])
    assert parse_position("startpos") == (None, [])
    with pytest.raises(ValueError, match="position startpos"):
        parse_position("somewhere")
    assert (
        format_go(12.3456, 14.5, "4/1/7/player1")
        == "go time 12.346 timeout 14.5 seed 4/1/7/player1"
    )
    assert format_go(None, 30, None) == "go timeout 30"
    with pytest.raises(ValueError, match="cannot be a seed token"):
        format_go(None, 30, "two words")
    assert parse_go("time 1.5 timeout 3 seed 9") == {"time": "1.5", "timeout": "3", "seed": "9"}
    with pytest.raises(ValueError, match="has no value"):
        parse_go("time")


# --- misbehaving engines --------------------------------------------------------------------------

FAILURES = [
    ("crash", 1, r"^player 2 exited with status 1; its error output is in .*\.log$"),
    ("crash", 3, r"^player 2 exited with status 1; its error output is in .*\.log$"),
    ("sleep", 2, r"^player 2 did not answer within 1\.0 s$"),
    ("spawn", 1, r"^player 2 did not answer within 1\.0 s$"),
    ("garbage", 2, r'^player 2 sent "hello world" where "move \.\.\." was expected$'),
    ("illegal", 2, r'^illegal move "[XO]@\w\d" by player 2: .* is occupied$'),
    ("extra", 1, r'^player 2 sent "move O@f6" when no answer was expected$'),
    ("exit", 2, r"^player 2 exited with status 0$"),
]


@pytest.mark.parametrize(
    ("mode", "at", "reason"), FAILURES, ids=[f"{mode}-at-{at}" for mode, at, _ in FAILURES]
)
def test_a_misbehaving_engine_loses_the_match(
    mode: str, at: int, reason: str, tmp_path: Path
) -> None:
    game = get_game("orderchaos")
    pidfile = tmp_path / "pids"
    engine = make_player(bad_engine(mode, at, pidfile), game)
    assert isinstance(engine, ExternalPlayer)
    started = time.monotonic()
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    elapsed = time.monotonic() - started
    assert record.result is not None and record.result.winner == 1
    assert re.match(reason, record.result.reason), record.result.reason
    assert record.games[-1].ended_by is not None
    assert record.games[-1].ended_by.event == "forfeit"
    assert elapsed < 1.0 + 3.0  # the timeout, plus room for a busy machine
    pids = [int(p) for p in pidfile.read_text().split()]
    assert_reaped(pids[0])
    assert all(wait_gone(pid) for pid in pids[1:])  # 'spawn': the child it started is killed too
    assert MatchRecord.loads(record.dumps()).replay()[0].result() == record.result
    if mode == "crash":
        log = Path(record.result.reason.rpartition(" is in ")[2])
        assert log.parent == tmp_path / "logs"
        assert "ValueError: oops" in log.read_text()


def test_an_engine_writing_to_stderr_plays_on_and_its_log_is_kept(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    engine = make_player(bad_engine("stderr", 1, tmp_path / "pids", timeout=5), game)
    assert isinstance(engine, ExternalPlayer)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.result is not None and record.result.reason == "five in a row"
    assert record.games[0].ended_by is None
    (log,) = engine.logs
    assert log.parent == tmp_path / "logs"
    assert "thinking about move 1: blah" in log.read_text()


def test_an_engine_may_resign(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    engine = make_player(bad_engine("resign", 2, tmp_path / "pids"), game)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.result is not None and record.result.reason == "player 2 resigned"
    assert record.games[0].ended_by == GameEnd("resigned", 2, "player 2 resigned")


@pytest.mark.parametrize(
    ("grace", "reason"),
    [(2.0, "player 2 ran out of time"), (0.2, "player 2 did not answer within 1.2 s")],
)
def test_with_a_clock_an_engine_has_its_time_left_and_a_grace(
    grace: float, reason: str, tmp_path: Path
) -> None:
    game = get_game("orderchaos")
    slow = command(sys.executable, BAD_ENGINE, "--mode", "slow", "--delay", 1.6)
    engine = make_player(f"engine:grace={grace}:{slow}", game)
    clock = ClockSettings(1.0)
    record = Referee(game, (make_player("random", game), engine), seed=5, clock=clock).play()
    assert record.result is not None and record.result.reason == reason


def test_an_engine_that_ignores_quit_is_killed(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    pidfile = tmp_path / "pids"
    engine = make_player(bad_engine("noquit", 1, pidfile), game)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.result is not None and record.result.reason == "five in a row"
    assert_reaped(int(pidfile.read_text().split()[0]))


def test_an_engine_that_refuses_the_game(tmp_path: Path) -> None:
    game = get_game("entropy", size=5)
    engine = make_player(bad_engine("good", 1, tmp_path / "pids"), game)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.result is not None
    assert record.result.reason == "player 2 does not play entropy:size=5: only orderchaos"


def test_a_program_that_cannot_start(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    script = tmp_path / "bot"
    script.write_text("#!/nonexistent/interpreter\n")
    script.chmod(0o755)
    record = Referee(game, (make_player("random", game), make_player(f"engine:{script}", game)))
    result = record.play().result
    assert result is not None and result.winner == 1
    assert result.reason.startswith("player 2 could not be started: ")


def test_interrupting_the_referee_stops_the_engine(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    pidfile = tmp_path / "pids"
    engine = make_player(bad_engine("good", 1, pidfile), game)
    record = Referee(game, (Interrupting(), engine), seed=1).play()
    assert not record.finished
    assert_reaped(int(pidfile.read_text().split()[0]))


# --- player specs ---------------------------------------------------------------------------------


def test_engine_specs() -> None:
    game = get_game("orderchaos")
    python = sys.executable
    player = make_player(f"engine:timeout=2.5,grace=0:{python} -c 'print(1)'", game)
    assert isinstance(player, EnginePlayer)
    assert player.argv == [python, "-c", "print(1)"]
    assert (player.timeout, player.grace) == (2.5, 0.0)
    assert player.spec == f"engine:timeout=2.5,grace=0:{python} -c 'print(1)'"
    raw = make_player(f"engine::{python} x=1:y", game)
    assert isinstance(raw, EnginePlayer) and raw.argv == [python, "x=1:y"]
    upper = make_player(f"ENGINE:{python}", game)
    assert isinstance(upper, EnginePlayer) and upper.argv == [python]
    for spec, message in [
        ("engine", "give the command to run"),
        ("engine:", "give the command to run"),
        ("engine:timeout=3:", "give the command to run"),
        ("engine:/no/such/bot --fast", "cannot run '/no/such/bot': no such program"),
        ("engine:no-such-bot-anywhere", "no such program"),
        (f"engine:'{python}", "cannot read the engine command"),
        (f"engine:speed=3:{python}", "engine has no option 'speed'"),
        (f"engine:timeout=0:{python}", "timeout=0 must be a positive number"),
        (f"engine:grace=-1:{python}", "grace=-1 must be a non-negative number"),
        (f"engine:timeout=abc:{python}", "timeout=abc must be a positive number"),
    ]:
        with pytest.raises(InvalidPlayerError, match=message):
            make_player(spec, game)


# --- the process layer ----------------------------------------------------------------------------


def python_process(code: str, tmp_path: Path) -> Process:
    return Process([sys.executable, "-c", code], log_path=tmp_path / "log")


def test_lines_partial_broken_and_not_utf8(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "out = sys.stdout.buffer\n"
        "out.write(b'one\\r\\ntw'); out.flush(); time.sleep(0.2)\n"
        "out.write(b'o\\n\\xff\\xfe bad\\nlast'); out.flush()\n"
    )
    process = python_process(code, tmp_path)
    deadline = time.monotonic() + 10
    assert process.read_line(deadline) == "one"
    assert process.read_line(deadline) == "two"
    assert process.read_line(deadline) == "\ufffd\ufffd bad"
    assert process.read_line(deadline) == "last"
    with pytest.raises(ProcessEnded):
        process.read_line(deadline)
    assert process.wait(5) == 0
    assert not process.running


def test_reading_and_writing_have_deadlines(tmp_path: Path) -> None:
    process = python_process("import time; time.sleep(60)", tmp_path)
    started = time.monotonic()
    with pytest.raises(ProcessTimeout):
        process.read_line(time.monotonic() + 0.3)
    with pytest.raises(ProcessTimeout):  # it never reads: the pipe fills up
        process.send("x" * 1_000_000, time.monotonic() + 0.3)
    assert time.monotonic() - started < 3
    assert process.stop("quit", grace=0.2) is None  # killed
    assert_reaped(process.pid)


def test_a_flood_without_newlines_is_an_error(tmp_path: Path) -> None:
    process = python_process(
        "import sys; sys.stdout.write('x' * 200000); sys.stdout.flush()", tmp_path
    )
    with pytest.raises(ProcessError, match="longer than"):
        process.read_line(time.monotonic() + 10)
    process.kill()
    assert_reaped(process.pid)


# --- the command line -----------------------------------------------------------------------------


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


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


def test_engine_command_errors_are_one_line() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "abstractgames", "engine", "orderchaos", "--player", "deepblue"],
        capture_output=True,
        text=True,
        input="",
    )
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        "Error: unknown player 'deepblue'; available players: " + ", ".join(available_players())
    ]
