"""Our engine protocol (`abstractgames.engines.agp`), both sides: our bots as engines play as
in-process, the engine hears the whole game, the server's dialogue, the command formats, and
engines that resign, refuse a game or speak another version."""

from __future__ import annotations

import io
import math
import os
import random
import sys
from pathlib import Path

import pytest

from abstractgames import get_game, make_player, parse_game_spec
from abstractgames.engines.agp import (
    EnginePlayer,
    format_go,
    format_position,
    parse_go,
    parse_position,
    serve,
)
from abstractgames.players import SeededRandom
from abstractgames.records import ClockSettings, GameEnd, MatchRecord
from abstractgames.referee import Referee
from tests.conftest import (
    BAD_ENGINE,
    StopAt,
    bad_engine,
    command,
    hostile_engine,
    is_safe,
    our_engine,
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


# --- the engine side: the server ------------------------------------------------------------------


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


# --- what engines say: versions, formats, resignations, times, names ------------------------------


def test_an_engine_speaking_another_version(tmp_path: Path) -> None:
    script = "import sys\nfor line in sys.stdin:\n    print('error I speak version 2', flush=True)"
    game = get_game("orderchaos")
    engine = make_player("engine:" + command(sys.executable, "-c", script), game)
    result = Referee(game, (make_player("random", game), engine)).play().result
    assert result is not None
    assert result.reason == "player 2 does not speak engine protocol 1: I speak version 2"


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


def test_an_engine_that_refuses_the_game(tmp_path: Path) -> None:
    game = get_game("entropy", size=5)
    engine = make_player(bad_engine("good", 1, tmp_path / "pids"), game)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.result is not None
    assert record.result.reason == "player 2 does not play entropy:size=5: only orderchaos"


def test_go_tells_times_within_the_range() -> None:
    assert format_go(1e300, math.inf, None) == "go time 1000000000 timeout 1000000000"
    assert format_go(math.nan, 5, None) == "go time 0 timeout 5"


def test_the_engine_name_is_escaped_and_bounded(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    engine = make_player(hostile_engine("hostile-name", tmp_path), game)
    record = Referee(game, (make_player("random", game), engine), seed=5).play()
    assert record.finished
    assert isinstance(engine, EnginePlayer) and engine.engine_name is not None
    assert engine.engine_name.startswith(r"\x1b]0;pwned\x07")
    assert is_safe(engine.engine_name) and len(engine.engine_name) <= 100
