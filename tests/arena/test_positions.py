"""An openings suite (`Arena(positions=...)`): every pair plays every position from both seats on
paired seeds, positions given as states, strings or diagrams, the positions refused (naming
which), the start of every match in the records, the reports and their JSON, and a state file
that keeps the positions and refuses others on resume."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import attrs
import pytest

from abstractgames import State, get_game, parse_game_spec
from abstractgames.arena import (
    Arena,
    ArenaError,
    ArenaReport,
    ArenaState,
    MatchSummary,
    ProcessExecutor,
    play_match,
)
from abstractgames.arena.state import _digest
from abstractgames.grid import diagram
from abstractgames.protocol import InvalidPositionError
from abstractgames.records import MatchRecord

SUITE = ["6/6/6/2X3/6/6 chaos", "6/6/6/6/2O3/6 chaos", "6/6/3O2/2X3/6/6 order"]
"""Three openings of Order and Chaos."""


def chance_moves(record: MatchRecord, number: int) -> list[tuple[int, str]]:
    return [
        (ply, m.move) for ply, m in enumerate(record.games[number - 1].moves) if m.player is None
    ]


# --- the schedule ---------------------------------------------------------------------------------


def test_every_pair_plays_every_position_from_both_seats() -> None:
    players = ["random", "greedy", "search:depth=1"]
    arena = Arena("orderchaos", players, games=4, seed=3, positions=SUITE)
    tasks = list(arena.tasks)
    assert arena.positions == tuple(SUITE) and arena.games == 4
    assert len(tasks) == len(arena.tasks) == 3 * 4 * len(SUITE)  # 3 pairs, 4 games from each
    assert [t.number for t in tasks] == list(range(1, len(tasks) + 1))
    assert [arena.tasks[i] for i in range(len(tasks))] == tasks  # indexing agrees with iterating
    assert arena.tasks[-1] == tasks[-1] and arena.tasks[2:5] == tasks[2:5]
    seats = Counter((t.players, t.start) for t in tasks)
    # every pair, in each seat, plays each position games / 2 times: once in each pairing
    assert seats == {
        ((a, b), start): 2 for a in players for b in players if a != b for start in SUITE
    }
    # the positions take turns round by round, each round on its own seed
    assert [t.start for t in tasks[::6]] == SUITE * 2
    assert len({t.seed for t in tasks}) == len({t.round for t in tasks}) == 6
    for task in tasks:
        assert arena.task(task.key) == task
    # the seeds are paired: both seats of a pair on a position play on the same seed
    by_pairing = Counter((frozenset(t.players), t.start, t.seed) for t in tasks)
    assert set(by_pairing.values()) == {2}


def test_without_positions_the_matches_start_from_the_games_start() -> None:
    arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=1)
    assert arena.positions == () and [t.start for t in arena.tasks] == [None, None]
    record = MatchRecord.loads(play_match(arena.tasks[0]))
    assert record.games[0].start == get_game("orderchaos").initial_state().position()


def test_positions_as_states_strings_and_diagrams() -> None:
    game = get_game("orderchaos")
    states = [game.from_position(text) for text in SUITE]
    given: list[str | State] = [states[0], SUITE[1], diagram(states[2])]
    arena = Arena(game, ["random", "greedy"], games=2, seed=1, positions=given)
    assert arena.positions == tuple(SUITE)
    # a position string not in its canonical form is kept in it
    entropy = Arena(
        "entropy:size=5", ["random", "greedy"], games=2, positions=["  5/5/2R2/5/5   draw "]
    )
    assert entropy.positions == ("5/5/2R2/5/5 draw",)


def test_games_from_each_position_must_be_even_and_positive() -> None:
    with pytest.raises(ArenaError, match="even"):
        Arena("orderchaos", ["random", "greedy"], games=3, positions=SUITE)
    with pytest.raises(ArenaError):
        Arena("orderchaos", ["random", "greedy"], games=0, positions=SUITE)


# --- positions refused ----------------------------------------------------------------------------


def test_a_position_given_twice_is_refused_naming_both() -> None:
    game = get_game("orderchaos")
    given: list[str | State] = [SUITE[0], SUITE[1], game.from_position(SUITE[0])]
    with pytest.raises(ArenaError, match=r"position 3 \(6/6/6/2X3/6/6 chaos\) is position 1 again"):
        Arena(game, ["random", "greedy"], games=2, positions=given)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("6/6/6/6/6 order", r"position 2: .*"),
        ("6/6/6/6/6/6 nobody", r"position 2: .*"),
        ("XXXXX1/OOOO2/6/6/6/6 chaos", r"position 2: a match cannot start from .*game is over"),
        (None, r"position 2: a position is text"),
    ],
)
def test_an_unreadable_or_finished_position_is_refused_naming_it(bad: object, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        Arena("orderchaos", ["random", "greedy"], games=2, positions=[SUITE[0], bad])  # type: ignore[list-item]


def test_a_position_of_another_game_or_a_lone_string_is_refused() -> None:
    other = get_game("dispersal").initial_state()
    with pytest.raises(InvalidPositionError, match=r"position 1: .*not a position of orderchaos"):
        Arena("orderchaos", ["random", "greedy"], games=2, positions=[other])
    small = parse_game_spec("entropy:size=5").initial_state()
    with pytest.raises(InvalidPositionError, match=r"position 1: .*not a position of entropy"):
        Arena("entropy", ["random", "greedy"], games=2, positions=[small])
    with pytest.raises(ArenaError, match="as a list"):
        Arena("orderchaos", ["random", "greedy"], games=2, positions=SUITE[0])
    with pytest.raises(ArenaError, match="as a list"):
        Arena("orderchaos", ["random", "greedy"], games=2, positions=other)  # type: ignore[arg-type]


# --- the matches, the records and the reports -----------------------------------------------------


def test_each_match_starts_from_its_position_and_the_reports_say_so(tmp_path: Path) -> None:
    arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=4, positions=SUITE[:2])
    report = arena.run(records=tmp_path)
    assert report.complete and len(report.matches) == 4
    assert report.positions == tuple(SUITE[:2]) and report.games == 4
    for task, match in zip(arena.tasks, report.matches, strict=True):
        assert match.start == task.start
        record = MatchRecord.load(tmp_path / arena.record_name(task))
        assert [g.start for g in record.games] == [task.start]
        assert record.replay()[0].result() == record.result
        assert MatchSummary.from_record(task, record) == match
    assert [m.start for m in report.matches] == [SUITE[0], SUITE[0], SUITE[1], SUITE[1]]
    data = json.loads(report.dumps())
    assert data["positions"] == SUITE[:2] and data["games_per_pair"] == 4
    assert [m["start"] for m in data["matches"]] == [m.start for m in report.matches]
    assert sum(p["games"] for p in data["pairs"]) == 4
    title = report.format_table().splitlines()[0]
    assert title == "orderchaos: 2 players, 4 games per pair (2 from each of 2 positions), seed 4"
    one = Arena("orderchaos", ["random", "greedy"], games=2, seed=4, positions=SUITE[:1]).run()
    assert one.format_table().splitlines()[0] == (
        "orderchaos: 2 players, 2 games per pair from one position, seed 4"
    )
    # without positions: no start, as before
    plain = Arena("orderchaos", ["random", "greedy"], games=2, seed=4).run()
    assert plain.positions == () and {m.start for m in plain.matches} == {None}
    assert json.loads(plain.dumps())["positions"] == []
    assert plain.format_table().splitlines()[0] == "orderchaos: 2 players, 2 games per pair, seed 4"


def test_a_report_from_matches_keeps_the_positions() -> None:
    arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=4, positions=SUITE[:2])
    report = arena.run()
    again = ArenaReport.from_matches(
        list(report.matches),
        game=report.game,
        players=report.players,
        games=report.games,
        seed=report.seed,
        unit=report.unit,
        scheduled=report.scheduled,
        positions=report.positions,
    )
    assert again.dumps() == report.dumps()


def test_both_seats_meet_the_same_draws_from_an_entropy_position() -> None:
    start = "5/5/2R2/5/5 draw"
    arena = Arena("entropy:size=5", ["random", "greedy"], games=4, seed=2, positions=[start])
    records = [MatchRecord.loads(play_match(task)) for task in arena.tasks]
    assert [r.players for r in records[:2]] == [("random", "greedy"), ("greedy", "random")]
    for record in records:
        assert [g.start for g in record.games] == [start, start]
    first, second, later = records[0], records[1], records[2]
    for number in (1, 2):
        assert chance_moves(first, number) == chance_moves(second, number)
        assert chance_moves(first, number) != chance_moves(later, number)
        assert len(chance_moves(first, number)) == 24  # the counters left to draw
    assert first.seed == second.seed != later.seed


def test_matches_from_positions_play_in_worker_processes() -> None:
    arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=4, positions=SUITE)
    assert arena.run(ProcessExecutor(2)) == arena.run()


# --- the state file -------------------------------------------------------------------------------


def test_the_state_file_keeps_the_positions_and_refuses_others(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    players = ["random", "greedy"]
    arena = Arena("orderchaos", players, games=2, seed=5, positions=SUITE)
    state = ArenaState.create(path, arena)
    expected = arena.run(state=state)
    state.close()
    header = json.loads(path.read_text().splitlines()[0])
    assert header["positions"] == SUITE
    # the same positions, however given: the same tournament, nothing played again
    game = get_game("orderchaos")
    same = Arena(
        game, players, games=2, seed=5, positions=[diagram(game.from_position(p)) for p in SUITE]
    )
    state = ArenaState.resume(path, same)
    assert len(state.finished) == 6
    assert same.run(state=state) == expected
    state.close()
    assert len(path.read_text().splitlines()) == 1 + 6
    for others, words in [
        ([], "holds a tournament from 3 positions, not from the game's start"),
        (SUITE[:2], "holds a tournament from 3 positions, not from 2 positions"),
        (
            [SUITE[0], SUITE[2], SUITE[1]],
            "holds a tournament whose position 2 is 6/6/6/6/2O3/6 chaos, not 6/6/3O2/2X3/6/6 "
            "order: resume it with the same positions, in the same order",
        ),
    ]:
        other = Arena("orderchaos", players, games=2, seed=5, positions=others)
        with pytest.raises(ArenaError, match=r"state\.jsonl") as refused:
            ArenaState.resume(path, other)
        assert words in str(refused.value)
    # more games from the same positions: the matches played are kept, the new ones played
    more = Arena("orderchaos", players, games=4, seed=5, positions=SUITE)
    state = ArenaState.resume(path, more)
    assert [m.number for m in state.finished] == list(range(1, 7))
    report = more.run(state=state)
    state.close()
    assert report == Arena("orderchaos", players, games=4, seed=5, positions=SUITE).run()


def test_a_state_file_from_before_openings_is_from_the_games_start(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=5)
    state = ArenaState.create(path, arena)
    expected = arena.run(state=state)
    state.close()
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    assert header["positions"] == []
    del header["positions"]
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    state = ArenaState.resume(path, arena)
    assert len(state.finished) == 2 and arena.run(state=state) == expected
    state.close()
    suite = Arena("orderchaos", ["random", "greedy"], games=2, seed=5, positions=SUITE[:1])
    with pytest.raises(ArenaError, match="from the game's start, not from 1 position"):
        ArenaState.resume(path, suite)


def test_a_match_in_the_state_file_that_started_elsewhere_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=5, positions=SUITE[:2])
    ArenaState.create(path, arena).close()
    # match 1 as it would be played on its seed, but from the other position: a sound record
    # of this game, seed and players, with a valid digest
    task = attrs.evolve(arena.tasks[0], start=SUITE[1])
    record = json.loads(play_match(task))
    line = {"digest": _digest(task.round, record), "record": record, "round": task.round}
    with path.open("a") as handle:
        handle.write(json.dumps(line) + "\n")
    with pytest.raises(ArenaError) as refused:
        ArenaState.resume(path, arena)
    assert str(refused.value) == (
        f"{path}, line 2: match 1 did not start from its position (6/6/6/2X3/6/6 chaos)"
    )
