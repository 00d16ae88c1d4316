"""Game records (`abstractgames.records`): written atomically and always as valid JSON, read
within bounds whatever the file holds (a device, a FIFO, a huge file, hostile JSON, fuzzed records),
replayed through the rules, every number checked (clocks, seeds, parameters), older formats read,
and continuing a match from its record: the one policy every front end follows."""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import get_game, make_player, parse_game_spec, records
from abstractgames.players import HUMAN, Player
from abstractgames.protocol import AbstractGamesError
from abstractgames.records import (
    CannotResume,
    ClockSettings,
    MatchRecord,
    MoveRecord,
    RecordError,
    ResumeRefusal,
)
from abstractgames.referee import Referee
from tests.conftest import StopAt, examples

MAX_RECORD_SIZE = 16 * 1024 * 1024
"""The documented largest record, in bytes."""
MAX_CLOCK_SECONDS = 365 * 86_400
"""The documented longest time for a game and largest increment: a year."""


def test_the_limits_are_the_documented_ones() -> None:
    assert getattr(records, "MAX_RECORD_SIZE", None) == MAX_RECORD_SIZE
    assert getattr(records, "MAX_CLOCK_SECONDS", None) == MAX_CLOCK_SECONDS
    playing = (Path(__file__).resolve().parents[2] / "docs" / "playing.md").read_text()
    assert "at most 16 MiB" in playing and "at most a year" in playing


class StepClock:
    """A time source that advances by ``step`` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def play(spec: str, seed: int, clock: ClockSettings | None = None, step: float = 0.0) -> str:
    game = parse_game_spec(spec)
    players = (make_player("random", game), make_player("random", game))
    referee = Referee(game, players, seed=seed, clock=clock, time_source=StepClock(step))
    return referee.play().dumps()


RECORDS = [
    play("orderchaos", 1, ClockSettings(5, 0.5), 0.3),
    play("entropy:size=5", 2, ClockSettings(3), 0.05),  # out of time: timeout moves
    play("dispersal:max_plies=30", 3),
]
"""Real records: a clock, chance events, Entropy's two games, timeout moves, a ply limit."""


def record_text(**changes: Any) -> str:
    """The first record with top-level fields replaced."""
    data = json.loads(RECORDS[0])
    data.update(changes)
    return json.dumps(data)


def bots(game_name: str, first: str = "random", second: str = "random") -> tuple[Player, Player]:
    game = get_game(game_name)
    return make_player(first, game), make_player(second, game)


# --- writing and replaying ------------------------------------------------------------------------


def test_clock_settings() -> None:
    assert ClockSettings.parse("300") == ClockSettings(300.0, 0.0)
    assert ClockSettings.parse("1.5+0.25") == ClockSettings(1.5, 0.25)
    assert str(ClockSettings.parse("300+2")) == "300+2"
    for bad in ("", "0", "-3", "5+", "abc", "1+2+3"):
        with pytest.raises(ValueError, match="bad clock"):
            ClockSettings.parse(bad)


def test_records_are_written_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = get_game("orderchaos")
    record = Referee(game, bots("orderchaos"), seed=5).play()
    path = tmp_path / "match.json"
    path.write_text("previous content")

    def broken_replace(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        record.save(path)
    assert path.read_text() == "previous content"
    assert [p.name for p in tmp_path.iterdir()] == ["match.json"]  # no temporary left behind


def _tampered(change: str) -> str:
    game = get_game("orderchaos")
    data = json.loads(Referee(game, bots("orderchaos", "greedy"), seed=5).play().dumps())
    if change == "illegal move":
        data["games"][0]["moves"][2]["move"] = data["games"][0]["moves"][0]["move"]
    elif change == "wrong result":
        data["result"]["winner"] = 2
    elif change == "wrong outcome":
        data["games"][0]["outcome"]["winner"] = "chaos"
    elif change == "wrong player":
        data["games"][0]["moves"][1]["player"] = 1
    elif change == "version":
        data["version"] = 99
    elif change == "format":
        data["format"] = "chess-pgn"
    elif change == "unknown game":
        data["game"] = "chess"
    elif change == "extra move":
        data["games"][0]["moves"].append({"move": "X@a1", "player": 1})
    elif change == "missing moves":
        del data["games"][0]["moves"][-1]
    elif change == "wrong final":
        data["games"][0]["final"] = "6/6/6/6/6/6 order"
    elif change == "players":
        data["players"] = ["random"]
    return json.dumps(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("illegal move", r"game 1, move 3 \([XO]@\w+\): illegal move .* is occupied"),
        ("wrong result", "the recorded result .* is not what the games give"),
        ("wrong outcome", "recorded outcome .* is not the rules'"),
        ("wrong player", r"game 1, move 2 .*: chaos is player 2, not 1"),
        ("version", "version 99 is not supported"),
        ("format", "not an abstractgames record"),
        ("unknown game", "unknown game 'chess'"),
        ("extra move", "the game is already over"),
        ("missing moves", "the moves stop before the recorded end"),
        ("wrong final", "recorded final position"),
        ("players", "'players' must be two player specs"),
    ],
)
def test_tampered_records_are_rejected(change: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        MatchRecord.loads(_tampered(change)).replay()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not valid JSON"),
        ('{"format": "abstractgames-record", "version": 1, "game"', "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"format": "abstractgames-record"}', "has no 'version'"),
        ('{"format": "abstractgames-record", "version": "1"}', "'version' has the wrong type"),
    ],
)
def test_unreadable_records(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        MatchRecord.loads(text)


def test_missing_record_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read record"):
        MatchRecord.load(tmp_path / "nothing.json")


def test_a_record_of_format_version_1_is_still_read() -> None:
    game = get_game("entropy", size=5)
    record = Referee(game, (make_player("random", game),) * 2, seed=2).play()
    data = json.loads(record.dumps())
    assert data["version"] == 2 and data["time_loss_forfeits"] is False
    data["version"] = 1
    data["correspondence"] = data.pop("time_loss_forfeits")
    old = MatchRecord.loads(json.dumps(data))
    assert old.dumps() == record.dumps()
    old.replay()
    data["version"] = 3
    with pytest.raises(RecordError, match="version 3 is not supported"):
        MatchRecord.loads(json.dumps(data))


# --- reading a file: bounded, never blocking ---------------------------------------------------

CHILD = """
import sys
from abstractgames.records import MatchRecord, RecordError
try:
    MatchRecord.load(sys.argv[1])
except RecordError as error:
    print("RecordError:", error)
else:
    print("read")
"""


def load_in_child(path: str, memory: int = 1 << 30) -> str:
    """What ``MatchRecord.load(path)`` says in a child process with ``memory`` bytes of address
    space at most, within 60 seconds (a hang or a crash fails the test)."""

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    result = subprocess.run(
        [sys.executable, "-c", CHILD, path],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit if sys.platform == "linux" else None,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr == ""
    return result.stdout.strip()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_dev_zero_is_refused_without_reading_it() -> None:
    said = load_in_child("/dev/zero")
    assert said == "RecordError: cannot read record '/dev/zero': it is not a regular file"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "record.json"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def load() -> None:
        try:
            MatchRecord.load(fifo)
        except BaseException as error:
            outcome.append(error)
        else:
            outcome.append(None)

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # blocked in open(): let it go, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10)
        pytest.fail("reading a FIFO waited for a writer")
    assert isinstance(outcome[0], RecordError)
    assert "not a regular file" in str(outcome[0])


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"cannot read record '.*': it is not a regular file"):
        MatchRecord.load(tmp_path)


def test_a_sparse_gigabyte_is_refused_unread(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(1 << 30)
    said = load_in_child(str(huge), memory=512 << 20)
    assert said.startswith("RecordError: record '")
    assert "is too large (1,073,741,824 bytes): a record is at most 16,777,216 bytes" in said


def test_a_file_just_over_the_limit_is_refused_and_one_at_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    text = RECORDS[0]
    path.write_text(text + " " * (MAX_RECORD_SIZE - len(text)))
    assert MatchRecord.load(path).dumps() == text
    path.write_text(text + " " * (MAX_RECORD_SIZE + 1 - len(text)))
    with pytest.raises(RecordError, match="too large"):
        MatchRecord.load(path)
    with pytest.raises(RecordError, match="too large"):
        MatchRecord.loads(text + " " * MAX_RECORD_SIZE)


def test_invalid_utf8_and_odd_names(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(RECORDS[0].encode()[:50] + b"\xff\xfe" + RECORDS[0].encode()[50:])
    with pytest.raises(RecordError, match=r"is not UTF-8 text \(at byte 51\)"):
        MatchRecord.load(path)
    with pytest.raises(RecordError, match="cannot read record"):
        MatchRecord.load(tmp_path / "with\0nul")
    with pytest.raises(RecordError) as caught:
        MatchRecord.load(tmp_path / ("\x1b]0;title\x07" + "x" * 5000))
    assert len(str(caught.value)) < 200 and "\x1b" not in str(caught.value)


# --- reading JSON: every number checked ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
        (record_text(seed=0).replace('"seed": 0', '"seed": ' + "7" * 5000), "5,000 digits"),
        (record_text(seed=0).replace('"seed": 0', '"seed": -' + "7" * 31), "31 digits"),
        (record_text(seed=0).replace('"seed": 0', '"seed": NaN'), "NaN, which JSON"),
        (record_text(seed=0).replace('"seed": 0', '"seed": -Infinity'), "-Infinity"),
        (record_text(seed=0).replace('"seed": 0', '"seed": 1e999'), "too large to use"),
        (record_text(seed=0).replace('"seed": 0', '"seed": 0, "seed": 1'), "key 'seed' twice"),
        (record_text(names=["Ann"]), "'names' must be two names"),
        (record_text(names=["Ann", "\x1b[2J"]), "'names' must be two names"),
        (record_text(names=["x" * 101, None]), "'names' must be two names"),
        (record_text(seed=2**64), "seed must be an integer between -2\\*\\*64 and 2\\*\\*64"),
        (record_text(seed=-(2**64)), "seed must be an integer"),
        (record_text(clock={"seconds": -1, "increment": 0}), "clock's seconds must be"),
        (record_text(clock={"seconds": 1e300, "increment": 0}), "at most 31536000"),
        (record_text(clock={"seconds": 60, "increment": -2}), "clock's increment must be"),
        (record_text(game="x" * 10_000), "is not a game name"),
        (record_text(game="orderchaos\x1b[2J"), "is not a game name"),
        (record_text(params={"x" * 200: 1}), "is not a parameter name"),
        (record_text(params={"size": [[[1]]]}), "parameter size must be a number"),
        (record_text(params={"size": "7" * 200}), "parameter size must be a number"),
        (record_text(result={"winner": 3, "reason": "", "scores": [1, 0]}), "winner must be"),
        ("1" * 5000, "5,000 digits"),
    ],
    ids=lambda value: value[:40] if len(value) < 60 else f"{len(value)} characters",
)
def test_hostile_json_gives_one_record_error(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message) as caught:
        MatchRecord.loads(text)
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize(("key", "value"), [("seconds", -0.5), ("clock", -1), ("clock", 1e999)])
def test_move_times_are_checked(key: str, value: float) -> None:
    data = json.loads(RECORDS[0])
    data["games"][0]["moves"][0][key] = value
    with pytest.raises(RecordError):
        MatchRecord.loads(json.dumps(data))  # 1e999 is written as Infinity here


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1.0, True, "1"])
def test_a_move_record_refuses_what_json_cannot_hold(bad: Any) -> None:
    with pytest.raises(ValueError, match="finite number of seconds"):
        MoveRecord("X@c3", 1, seconds=bad)
    with pytest.raises(ValueError, match="finite number of seconds"):
        MoveRecord("X@c3", 1, clock=bad)


def test_a_record_is_always_written_as_valid_json() -> None:
    record = MatchRecord.loads(RECORDS[0])
    record.games[0].moves[0] = MoveRecord("X@c3", 1, 0.5, 1e300)
    assert json.loads(record.dumps())["games"][0]["moves"][0]["clock"] == 1e300
    assert record.result is not None
    record.result = attrs.evolve(record.result, scores=(math.nan, 0))
    with pytest.raises(RecordError, match="cannot be written as JSON"):
        record.dumps()


@pytest.mark.parametrize(
    "seed",
    [2**64, -(2**64), 10**5000, True, 1.0, "1"],
    ids=["2**64", "-2**64", "10**5000", "True", "1.0", "'1'"],
)
def test_a_match_record_refuses_a_seed_out_of_range(seed: Any) -> None:
    with pytest.raises(RecordError, match="seed must be an integer") as caught:
        MatchRecord("orderchaos", {}, ("random", "random"), seed=seed)
    assert len(str(caught.value)) < 200
    game = get_game("orderchaos")
    players = (make_player("random", game), make_player("random", game))
    if not isinstance(seed, int) or isinstance(seed, bool):
        return
    with pytest.raises(RecordError, match="seed must be an integer"):
        Referee(game, players, seed=seed).play()  # before any move
    assert MatchRecord("orderchaos", {}, ("a", "b"), seed=2**64 - 1).seed == 2**64 - 1


def test_a_record_with_a_huge_ply_limit_is_refused_at_once() -> None:
    data = json.loads(RECORDS[2])
    for value in (10**18, 10_001, 0, "1e18", 1e18):
        data["params"] = {"max_plies": value}
        started = time.perf_counter()
        with pytest.raises(RecordError, match="with a bad parameter: parameter max_plies"):
            MatchRecord.loads(json.dumps(data)).replay()
        assert time.perf_counter() - started < 1


# --- clocks -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("9" * 400, "at most 31536000 seconds"),
        ("1+" + "9" * 400, "at most 31536000 seconds"),
        ("31536001", "at most 31536000 seconds"),
    ],
)
def test_clock_settings_refuse_huge_and_non_finite_values(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"bad clock '.*': .*{message}"):
        ClockSettings.parse(text)


def test_clock_limits() -> None:
    assert ClockSettings.parse("31536000+31536000") == ClockSettings(
        MAX_CLOCK_SECONDS, MAX_CLOCK_SECONDS
    )
    assert ClockSettings.parse(" 300 + 2 ") == ClockSettings(300, 2)
    for text in ("nan", "inf", "1e400", "-1"):
        with pytest.raises(ValueError, match="bad clock"):
            ClockSettings.parse(text)
    for seconds, increment in [
        (math.nan, 0),
        (math.inf, 0),
        (0, 0),
        (-1, 0),
        (60, math.nan),
        (60, -1),
        (MAX_CLOCK_SECONDS + 1, 0),
        (True, 0),
    ]:
        with pytest.raises(ValueError, match="the clock's"):
            ClockSettings(seconds, increment)


@pytest.mark.parametrize(
    "text",
    ["1" + " " * 30_000 + "x", "1 +" + " " * 30_000 + "x", "\x1b[2J" + "9" * 10_000_000],
    ids=["spaces", "spaces after +", "escape and digits"],
)
def test_a_bad_clock_is_refused_quickly_with_a_short_message(text: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ValueError, match="bad clock") as caught:
        ClockSettings.parse(text)
    assert time.perf_counter() - started < 1
    assert len(str(caught.value)) < 200 and "\x1b" not in str(caught.value)


# --- fuzzing the record reader ------------------------------------------------------------------

RAW = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1e999",
    "9" * 5000,
    "-" + "9" * 31,
    "1" + "0" * 400 + ".5",
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 5000 + "0" + "}" * 5000,
    '"\\ud800"',
    '"\\u001b]0;x\\u0007"',
    "-0",
    "0.1",
    "1e-400",
    "2147483648",
    "18446744073709551616",
    "-1",
    "3",
    "true",
    "null",
    "{}",
    "[]",
    '""',
    '"' + "x" * 10_000 + '"',
]
"""JSON text (some of it not strictly JSON) to put in place of a value."""

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**25), 10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


def paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``data``, the whole included."""
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += paths(value, (*prefix, index))
    return found


def replaced(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[path[0]] = replaced(data[path[0]], path[1:], value)
    return copy


MARK = "\ue000mark\ue000"


def check_reader(text: str) -> None:
    """Reading ``text`` gives a record or one of our errors; a record read replays or gives one
    of our errors, and writes valid JSON that reads back the same."""
    try:
        record = MatchRecord.loads(text)
    except AbstractGamesError:
        return
    with contextlib.suppress(AbstractGamesError):
        record.replay()
    written = record.dumps()
    json.loads(written, parse_constant=lambda name: pytest.fail(f"{name} written"))
    assert MatchRecord.loads(written).dumps() == written


def _at(data: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        data = data[step]
    return data


MUTATIONS = [*'{}[]",:0123456789-.eE \\tnulfasr', "\x00", "\udcff", "é"]


@st.composite
def damaged_records(draw: st.DrawFn) -> str:
    """A real record, truncated, with characters changed, a value replaced (by JSON of another
    type or size, or by raw text such as ``NaN`` or deep nesting), or a key taken or added."""
    text = RECORDS[draw(st.integers(0, len(RECORDS) - 1))]
    tree = json.loads(text)
    how = draw(st.sampled_from(["truncate", "mutate", "value", "raw", "keys"]))
    if how == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if how == "mutate":
        for _ in range(draw(st.integers(1, 6))):
            at = draw(st.integers(0, len(text)))
            change = draw(st.sampled_from(["replace", "insert", "delete"]))
            char = draw(st.sampled_from(MUTATIONS))
            keep = at + (change != "insert")
            text = text[:at] + ("" if change == "delete" else char) + text[keep:]
        return text
    if how == "keys":
        path = draw(st.sampled_from([p for p in paths(tree) if isinstance(_at(tree, p), dict)]))
        target = dict(_at(tree, path))
        delete: bool = draw(st.booleans())
        if target and delete:
            del target[draw(st.sampled_from(sorted(target)))]
        else:
            target[draw(st.text(max_size=10))] = draw(JSON_VALUES)
        return json.dumps(replaced(tree, path, target))
    path = draw(st.sampled_from(paths(tree)))
    if how == "value":
        return json.dumps(replaced(tree, path, draw(JSON_VALUES)))
    return json.dumps(replaced(tree, path, MARK)).replace(
        json.dumps(MARK), draw(st.sampled_from(RAW))
    )


@pytest.mark.slow
@settings(max_examples=examples(500))
@given(damaged_records())
def test_fuzz_the_record_reader(text: str) -> None:
    check_reader(text)


@settings(max_examples=examples(30))
@given(
    spec=st.sampled_from(["orderchaos", "entropy:size=5", "dispersal:max_plies=40"]),
    seed=st.integers(-(2**64) + 1, 2**64 - 1),
    clock=st.none()
    | st.builds(
        ClockSettings,
        st.integers(1, MAX_CLOCK_SECONDS) | st.floats(0.001, MAX_CLOCK_SECONDS),
        st.integers(0, MAX_CLOCK_SECONDS) | st.floats(0, MAX_CLOCK_SECONDS),
    ),
    step=st.floats(0, 100),
)
def test_valid_records_round_trip(
    spec: str, seed: int, clock: ClockSettings | None, step: float
) -> None:
    import tempfile

    text = play(spec, seed, clock, step)
    record = MatchRecord.loads(text)
    assert record.dumps() == text
    record.replay()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "record.json"
        record.save(path)
        assert MatchRecord.load(path).dumps() == text


# --- continuing a match from its record: the one policy every front end follows -------------------


def unfinished(players: tuple[str, str] = ("random", "greedy")) -> MatchRecord:
    """A match of Order and Chaos stopped after a few moves, with a clock, recorded with
    `players`."""
    game = get_game("orderchaos")
    clock = ClockSettings(300, 2)
    record = Referee(
        game, (StopAt(3), make_player("greedy", game)), seed=11, clock=clock, single=True
    ).play()
    assert not record.finished
    record.players = players
    return record


def test_a_plan_keeps_the_records_settings_and_its_players() -> None:
    record = unfinished((HUMAN, "greedy"))
    plan = record.resume_plan()
    assert plan.players == (HUMAN, "greedy")
    assert (plan.seed, plan.clock, plan.single, plan.time_loss_forfeits) == (
        11,
        ClockSettings(300, 2),
        True,
        False,
    )
    assert plan.game == get_game("orderchaos") and plan.record.games == record.games


def test_players_given_replace_the_recorded_ones_and_nothing_else() -> None:
    record = unfinished()
    plan = record.resume_plan((None, "search:depth=2"), game=get_game("orderchaos"))
    assert plan.players == ("random", "search:depth=2")
    assert plan.record.players == plan.players and record.players == ("random", "greedy")
    assert plan.seed == 11


def test_a_finished_match_is_not_continued() -> None:
    game = get_game("orderchaos")
    record = Referee(game, (make_player("random", game), make_player("random", game))).play()
    with pytest.raises(CannotResume, match="already finished") as refused:
        record.resume_plan()
    assert refused.value.refusal is ResumeRefusal.FINISHED and refused.value.seat is None


def test_a_record_of_another_game_is_refused() -> None:
    with pytest.raises(CannotResume, match="a record of orderchaos, not of entropy") as refused:
        unfinished().resume_plan(game=get_game("entropy"))
    assert refused.value.refusal is ResumeRefusal.OTHER_GAME


@pytest.mark.parametrize(
    ("recorded", "what"),
    [
        ("engine:./not-run --fast", "an external program"),
        ("codecup:./not-run", "an external program"),
        ("examples/custom_bot.py:CentreBot", "a bot from a file or module"),
        ("mybots.strong:Bot:depth=3", "a bot from a file or module"),
    ],
)
def test_outside_code_named_only_in_the_record_is_never_started(recorded: str, what: str) -> None:
    record = unfinished(("random", recorded))
    with pytest.raises(CannotResume, match=f"player 2 in this record is {what}") as refused:
        record.resume_plan()
    assert refused.value.refusal is ResumeRefusal.OUTSIDE_CODE and refused.value.seat == 2
    assert record.resume_plan((None, "random")).players == ("random", "random")


def test_a_record_that_breaks_the_rules_is_refused_before_anything_starts() -> None:
    record = unfinished()
    record.games[0].moves[0] = type(record.games[0].moves[0])("X@z9", 1)
    with pytest.raises(RecordError, match="game 1, move 1"):
        record.resume_plan()


def test_the_players_names_are_kept_when_they_have_any() -> None:
    plain = MatchRecord.loads(RECORDS[0])
    assert plain.names == (None, None) and '"names"' not in plain.dumps()  # the same bytes
    assert plain.who(1) == plain.players[0]
    named = MatchRecord.loads(record_text(names=["Ann", None]))
    assert named.names == ("Ann", None) and named.who(1) == "Ann"
    assert named.who(2) == named.players[1]
    assert MatchRecord.loads(named.dumps()) == named
