"""`abstractgames arena`: the schedule, pairing, determinism across executors, statistics on
hand-computed results, interruption and resumption, and a failing engine in a tournament."""

from __future__ import annotations

import json
import math
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from abstractgames import arena as arena_module
from abstractgames.arena import (
    Arena,
    ArenaError,
    ArenaState,
    MatchDone,
    MatchTask,
    ProcessExecutor,
    SerialExecutor,
    play_match,
    round_seed,
)
from abstractgames.arena import executors as executors_module
from abstractgames.cli import EXIT_INTERRUPTED, main
from abstractgames.protocol import MatchResult
from abstractgames.records import GameEnd, GameRecord, MatchRecord
from abstractgames.stats import ELO_PER_LOGIT, elo_difference

ENGINES = Path(__file__).parent / "engines"
posix_only = pytest.mark.skipif(os.name != "posix", reason="external programs need POSIX")
with_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

SLOW_BOT = """
import os
import time
from pathlib import Path

from abstractgames.players import Player

made = 0


class Slow(Player):
    \"\"\"Quick in the first match of a process; from the second one, it thinks for a minute
    (after writing its process id to thinking.pid next to this file).\"\"\"

    def __init__(self, game):
        global made
        made += 1
        self.slow = made >= 2

    def choose(self, state, rng, time_left=None):
        if self.slow:
            Path(__file__).with_name("thinking.pid").write_text(str(os.getpid()))
            time.sleep(60)
        return state.legal_moves()[0]
"""


def command(*argv: object) -> str:
    return shlex.join(str(a) for a in argv)


def our_engine(bot: str) -> str:
    return "engine:" + command(sys.executable, "-m", "abstractgames", "engine", "--player", bot)


def bad_engine(tmp_path: Path, *args: object) -> str:
    logs = tmp_path / "logs"
    return f"engine:log={logs}:" + command(sys.executable, ENGINES / "bad_engine.py", *args)


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["arena", *args], env=env)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.stdout, result.stderr


# --- the schedule -------------------------------------------------------------------------------


def test_round_robin_schedule_with_both_seats_on_one_seed_per_round() -> None:
    third = our_engine("greedy")
    arena = Arena("orderchaos", ["random", "greedy", third], games=4, seed=9)
    tasks = arena.tasks
    assert len(tasks) == 3 * 4
    assert [t.number for t in tasks] == list(range(1, 13))
    assert [t.round for t in tasks] == [1] * 6 + [2] * 6
    assert {t.seed for t in tasks if t.round == 1} == {round_seed(9, 1)}
    assert {t.seed for t in tasks if t.round == 2} == {round_seed(9, 2)}
    assert round_seed(9, 1) != round_seed(9, 2) != round_seed(10, 1)
    assert [t.players for t in tasks[:6]] == [
        ("random", "greedy"),
        ("greedy", "random"),
        ("random", third),
        (third, "random"),
        ("greedy", third),
        (third, "greedy"),
    ]
    assert all(t.game == "orderchaos" for t in tasks)
    # a pair plays the same rounds on the same seeds whoever else takes part
    other = Arena("orderchaos", ["random", "greedy"], games=4, seed=9).tasks
    assert [(t.round, t.players, t.seed) for t in other] == [
        (t.round, t.players, t.seed) for t in tasks if third not in t.players
    ]


def chance_moves(game: GameRecord) -> list[tuple[int, str]]:
    return [(ply, m.move) for ply, m in enumerate(game.moves) if m.player is None]


def order_player(record: MatchRecord, number: int) -> str:
    match = record.new_match()
    return next(record.players[p - 1] for p in (1, 2) if match.role_of(p, number) == "order")


def test_paired_seeds_really_pair_the_bag_draws_in_entropy() -> None:
    arena = Arena("entropy:size=5", ["random", "greedy"], games=4, seed=3)
    records = [MatchRecord.loads(play_match(task)) for task in arena.tasks]
    first, second, later = records[0], records[1], records[2]
    assert first.players == ("random", "greedy") and second.players == ("greedy", "random")
    assert first.seed == second.seed != later.seed
    for number in (1, 2):
        draws = chance_moves(first.games[number - 1])
        assert len(draws) == 25
        assert draws == chance_moves(second.games[number - 1])
        assert draws != chance_moves(later.games[number - 1])
    order_in = {(order_player(r, number), number) for r in (first, second) for number in (1, 2)}
    # each bot was Order once against the draws of game 1 and once against those of game 2
    assert order_in == {(bot, number) for bot in ("random", "greedy") for number in (1, 2)}
    assert first.games[0].moves != second.games[0].moves  # the bots differ, the draws do not


def test_paired_seeds_in_a_game_without_chance_swap_the_seats() -> None:
    arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=1)
    one, two = (MatchRecord.loads(play_match(task)) for task in arena.tasks)
    assert (one.seed, one.players) == (two.seed, tuple(reversed(two.players)))


# --- statistics on hand-computed results --------------------------------------------------------


def fake_record(task: MatchTask, result: MatchResult, ended: GameEnd | None = None) -> MatchRecord:
    record = MatchRecord(game="entropy", params={"size": 5}, players=task.players, seed=task.seed)
    record.games.append(GameRecord(number=1, start="", ended_by=ended))
    record.result = result
    return record


def test_report_statistics_by_hand() -> None:
    """Four Entropy matches of A against B with made-up results:

    round 1: A (random, player 1) wins 30-20;  B (greedy, player 1) wins 40-10
    round 2: a draw 25-25;  B (player 1) forfeits: A wins, A's Order score 35, B's none

    A: 2 wins, 1 draw, 1 loss = 2.5 points of 4; Order scores 30, 10, 25, 35: mean 25, sample
    variance (5² + 15² + 0 + 10²) / 3 = 350/3, 95% half-width t(3) sqrt(350/12) = 3.1824 * 5.4006.
    B: scores 20, 40, 25: mean 28.33. Elo: one virtual draw, p = 3 / 5 = 0.6: 400 log10(1.5).
    """
    arena = Arena("entropy:size=5", ["random", "greedy"], games=4, seed=0)
    t1, t2, t3, t4 = arena.tasks
    forfeit = GameEnd("forfeit", 1, "player 1 exited with status 1")
    records = {
        t1.key: fake_record(t1, MatchResult(1, "a", (30, 20))),
        t2.key: fake_record(t2, MatchResult(1, "b", (40, 10))),
        t3.key: fake_record(t3, MatchResult(None, "c", (25, 25))),
        t4.key: fake_record(t4, MatchResult(2, forfeit.reason, (None, 35)), forfeit),
    }
    report = arena.report(records)
    assert report.complete and report.unit == "match" and report.show_scores
    a, b = report.standings
    assert (a.player, a.games, a.wins, a.draws, a.losses, a.points) == ("random", 4, 2, 1, 1, 2.5)
    assert (b.player, b.wins, b.draws, b.losses, b.points, b.forfeits) == (
        "greedy",
        1,
        1,
        2,
        1.5,
        1,
    )
    assert a.mean_score == 25 and a.scored == 4
    assert a.score_error == pytest.approx(3.182446 * math.sqrt(350 / 12), rel=1e-6)
    assert b.mean_score == pytest.approx(85 / 3) and b.scored == 3
    difference = 400 * math.log10(1.5)
    assert a.elo == pytest.approx(difference / 2) and b.elo == pytest.approx(-difference / 2)
    z = 1.959963984540054
    assert a.elo_error == pytest.approx(z * ELO_PER_LOGIT / math.sqrt(5 * 0.24) / 2)
    (pair,) = report.pairs
    assert (pair.players, pair.wins, pair.draws, pair.losses) == (("random", "greedy"), 2, 1, 1)
    assert (pair.elo, pair.elo_error) == pytest.approx(elo_difference(2.5, 4))
    # random in seat 1: won match 1, drew match 3; in seat 2: lost match 2, won match 4.
    assert [t.players[0] for t in arena.tasks] == ["random", "greedy", "random", "greedy"]
    assert pair.by_seat == ((1, 1, 0), (1, 0, 1))
    data = report.to_json()
    assert data["standings"][0]["mean_score"] == 25.0
    assert data["matches"][3]["ended_by"] == {"event": "forfeit", "player": 1}
    assert data["pairs"][0]["by_seat"] == [[1, 1, 0], [1, 0, 1]]
    table = report.format_table()
    assert "mean score (95%)" in table and "25.0 ± 17.2" in table
    assert "in seat 1  in seat 2" in table and "1-1-0      1-0-1" in table
    assert "greedy: 1 match, e.g. match 4: player 1 exited with status 1" in table
    partial = arena.report({t1.key: records[t1.key]})
    assert not partial.complete and "(1 of 4 matches played)" in partial.format_table()


def test_the_running_report_is_the_report_of_the_matches_added_so_far() -> None:
    arena = Arena("entropy:size=5", ["random", "greedy"], games=4, seed=0)
    t1, t2, t3, t4 = arena.tasks
    forfeit = GameEnd("forfeit", 1, "player 1 exited with status 1")
    records = {
        t1.key: fake_record(t1, MatchResult(1, "a", (30, 20))),
        t2.key: fake_record(t2, MatchResult(1, "b", (40, 10))),
        t3.key: fake_record(t3, MatchResult(None, "c", (25, 25))),
        t4.key: fake_record(t4, MatchResult(2, forfeit.reason, (None, 35)), forfeit),
    }
    summaries = {
        task.number: arena_module.MatchSummary.from_record(task, records[task.key])
        for task in arena.tasks
    }
    running = arena.running_report()
    empty = running.report()
    assert not empty.matches and all(s.games == 0 for s in empty.standings)
    running.add(summaries[3])
    after_one = running.report()
    # a result replaced (as a later line of a state file replaces one) leaves no trace
    running.add(arena_module.MatchSummary.from_record(t4, fake_record(t4, MatchResult(1, "x"))))
    for number in (4, 1, 2):
        running.add(summaries[number])
    assert len(running) == 4
    report = running.report()
    assert report == arena.report(records)
    assert report.format_table() == arena.report(records).format_table()
    assert report.dumps() == arena.report(records).dumps()
    # an earlier report is a report of its own: the matches added after it do not change it
    assert after_one == arena.report({t3.key: records[t3.key]})
    assert len(after_one.matches) == 1 and "(1 of 4 matches played)" in after_one.format_table()
    assert "matches" not in report.to_json(matches=False)
    assert report.to_json(matches=False)["standings"] == report.to_json()["standings"]


def test_each_finished_match_comes_with_its_record_and_the_results_so_far(tmp_path: Path) -> None:
    arena = Arena("orderchaos", ["random", "greedy", "search:depth=1"], games=2, seed=6)
    told: list[tuple[MatchDone, arena_module.ArenaReport]] = []
    final = arena.run(records=tmp_path, on_match=lambda done: told.append((done, done.report())))
    assert [done.match.number for done, _ in told] == list(range(1, 7))
    for done, report in told:
        assert done.record == tmp_path / arena.record_name(arena.tasks[done.match.number - 1])
        result = MatchRecord.load(done.record).result
        assert result is not None and result.winner == done.match.winner
        assert done.match == final.matches[done.match.number - 1]
        assert len(report.matches) == done.done
        assert sum(s.games for s in report.standings) == 2 * done.done
    assert told[-1][1] == final and told[-1][1].format_table() == final.format_table()
    plain = arena.run(on_match=lambda done: told.append((done, done.report())))
    assert plain == final and told[-1][0].record is None
    with pytest.raises(ArenaError, match="does not come from a tournament"):
        MatchDone(final.matches[0], ("a", "b"), None, 1, 6, None).report()


# --- the command line ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["orderchaos", "-p", "random", "-p", "nobody"], "unknown player 'nobody'"),
        (["orderchaos", "-p", "random", "-p", "greedy:depth=2"], "has no option 'depth'"),
        (["orderchaos", "-p", "random", "-p", "engine:"], "give the command to run"),
        (["orderchaos", "-p", "random", "-p", "random"], "'random' is given twice"),
        (["orderchaos", "-p", "random"], "at least two players"),
        (["orderchaos", "-p", "random", "greedy", "-n", "0"], "positive even number"),
        (["orderchaos", "-p", "random", "greedy", "-n", "3"], "positive even number"),
        (["chess", "-p", "random", "greedy"], "unknown game 'chess'"),
        (["orderchaos", "-p", "random", "greedy", "--executor", "mpi"], "unknown executor"),
        (
            ["orderchaos", "-p", "random", "greedy", "--executor", "dask://h:1", "-j", "2"],
            "jobs are for local processes",
        ),
    ],
)
def test_bad_arguments_are_one_line_errors(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(*args)
    assert code != 0 and out == ""
    assert err.startswith("Error: ") and message in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


def test_missing_dask_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "distributed", None)
    code, _, err = run(
        "orderchaos", "-p", "random", "greedy", "-n", "2", "--executor", "dask://h:1"
    )
    assert code == 1
    assert "pip install 'abstractgames[dask]'" in err and err.count("\n") == 1


def test_same_seed_same_table_and_json_whatever_jobs(tmp_path: Path) -> None:
    players = ["random", "greedy", our_engine("greedy")]
    outputs = []
    for jobs in ("1", "2"):
        path = tmp_path / f"jobs{jobs}.json"
        code, out, err = run(
            "orderchaos",
            "-p",
            *players,
            "-n",
            "2",
            "--seed",
            "4",
            "-j",
            jobs,
            "--json",
            str(path),
            "--state",
            str(tmp_path / f"state{jobs}.jsonl"),
        )
        assert code == 0, err
        outputs.append((out, path.read_bytes()))
    assert outputs[0] == outputs[1]
    out, raw = outputs[0]
    data = json.loads(raw)
    assert data["format"] == "abstractgames-arena" and data["version"] == 1
    assert (data["game"], data["players"], data["seed"]) == ("orderchaos", players, 4)
    assert data["scheduled"] == data["played"] == len(data["matches"]) == 6
    assert {s["player"] for s in data["standings"]} == set(players)
    assert sum(s["wins"] for s in data["standings"]) == sum(s["losses"] for s in data["standings"])
    assert [m["number"] for m in data["matches"]] == list(range(1, 7))
    assert out.startswith("orderchaos: 3 players, 2 games per pair, seed 4\n")
    assert "Elo (95%)" in out and "mean score" not in out


def test_dask_local_cluster_gives_the_same_results_as_local_processes(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    args = ["entropy:size=5", "-p", "random", "greedy", "-n", "4", "--seed", "8"]
    code, local, err = run(
        *args,
        "-j",
        "1",
        "--json",
        str(tmp_path / "local.json"),
        "--state",
        str(tmp_path / "local.jsonl"),
    )
    assert code == 0, err
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        protocol="tcp",
        dashboard_address=None,
    ) as cluster:
        port = cluster.scheduler_address.rsplit(":", 1)[1]
        code, remote, err = run(
            *args,
            "--executor",
            f"dask://127.0.0.1:{port}",
            "--json",
            str(tmp_path / "dask.json"),
            "--state",
            str(tmp_path / "dask.jsonl"),
        )
    assert code == 0, err
    assert remote == local
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert "mean score (95%)" in local and "matches per pair" in local


@posix_only
def test_a_crashing_engine_loses_its_matches_with_reasons_and_the_rest_go_on(
    tmp_path: Path,
) -> None:
    crasher = bad_engine(tmp_path, "--mode", "crash", "--at", "2")
    path = tmp_path / "results.json"
    code, out, err = run(
        "orderchaos",
        "-p",
        "random",
        "greedy",
        crasher,
        "-n",
        "2",
        "-j",
        "2",
        "--json",
        str(path),
        "--state",
        str(tmp_path / "state.jsonl"),
    )
    assert code == 0, err
    data = json.loads(path.read_text())
    assert data["played"] == 6
    for match in data["matches"]:
        if crasher in match["players"]:
            seat = match["players"].index(crasher) + 1
            assert match["winner"] == 3 - seat
            assert match["ended_by"] == {"event": "forfeit", "player": seat}
            assert f"player {seat} exited with status 1" in match["reason"]
        else:
            assert match["ended_by"] is None and match["winner"] in (1, 2)
    crashed = next(s for s in data["standings"] if s["player"] == crasher)
    assert (crashed["losses"], crashed["forfeits"], crashed["wins"]) == (4, 4, 0)
    assert data["standings"][-1]["player"] == crasher
    short = "engine:" + crasher.partition(":")[2].partition(":")[2]  # without log=
    assert data["standings"][-1]["name"] == short and crasher not in out
    assert f"{short}: 4 games, e.g. match 3: player 2 exited with status 1" in out


def test_records_on_request(tmp_path: Path) -> None:
    records = tmp_path / "records"
    code, _, err = run(
        "dispersal",
        "-p",
        "random",
        "greedy",
        "-n",
        "2",
        "-j",
        "1",
        "--records",
        str(records),
        "--json",
        str(tmp_path / "r.json"),
        "--state",
        str(tmp_path / "s.jsonl"),
    )
    assert code == 0, err
    files = sorted(records.iterdir())
    assert [f.name for f in files] == ["00001-random-vs-greedy.json", "00002-greedy-vs-random.json"]
    matches = json.loads((tmp_path / "r.json").read_text())["matches"]
    for file, match in zip(files, matches, strict=True):
        record = MatchRecord.load(file)
        record.replay()
        assert list(record.players) == match["players"] and record.seed == match["seed"]
        assert record.result is not None and record.result.winner == match["winner"]


def test_progress_bar_only_on_a_terminal_and_not_when_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1"]
    code, out, err = run(*args)
    assert code == 0 and err == ""
    terminal = {"FORCE_COLOR": "1", "TERM": "xterm", "COLUMNS": "120"}
    code, out_tty, err = run(*args, env=terminal)
    assert code == 0 and out_tty == out
    assert "games" in err and "4/4" in err and "/s" in err
    code, _, err = run(*args, "--quiet", env=terminal)
    assert code == 0 and err == ""


# --- interruption and resumption ----------------------------------------------------------------


def test_ctrl_c_keeps_the_finished_matches_and_resume_finishes_the_same_tournament(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["dispersal", "-p", "random", "greedy", "-n", "6", "--seed", "2", "-j", "1"]
    code, expected, _ = run(*args, "--json", "expected.json")
    assert code == 0
    assert list(tmp_path.iterdir()) == [tmp_path / "expected.json"]  # the state file is gone

    real_play = arena_module.play_match
    calls = []

    def interrupted_at_the_third(task: MatchTask) -> str:
        calls.append(task.number)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_play(task)

    # -j 1: the serial executor calls the play_match of its own module
    monkeypatch.setattr(executors_module, "play_match", interrupted_at_the_third)
    code, out, err = run(*args)
    state = tmp_path / "abstractgames-arena-dispersal-2.jsonl"
    assert code == EXIT_INTERRUPTED and out == ""
    assert f"interrupted: the finished games are kept in {state.name}" in err
    lines = state.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["format"] == "abstractgames-arena-state"

    code, _, err = run(*args)
    assert code == 1 and "already holds a tournament: resume it, or delete the file" in err

    monkeypatch.setattr(executors_module, "play_match", real_play)
    calls.clear()
    with open(state, "a") as handle:  # a line cut short by a crash is dropped
        handle.write('{"round": 2, "rec')
    code, out, err = run(*args, "--resume", "--json", "resumed.json")
    assert code == 0, err
    assert out == expected
    assert (tmp_path / "resumed.json").read_bytes() == (tmp_path / "expected.json").read_bytes()
    assert not state.exists()


def test_resume_checks_the_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.jsonl"
    base = ["orderchaos", "-p", "random", "greedy", "-n", "2", "-j", "1", "--state", str(state)]
    code, _, err = run(*base, "--resume")
    assert code == 1 and "there is no tournament to resume in" in err
    code, first, _ = run(*base, "--seed", "5")
    assert code == 0 and state.exists()  # kept: it was named
    code, _, err = run(*base, "--seed", "6", "--resume")
    assert code == 1 and "holds the tournament of orderchaos with seed 5" in err
    code, again, _ = run(*base, "--seed", "5", "--resume")
    assert code == 0 and again == first
    # more games: the matches played are reused, only the new ones are played
    more = ["orderchaos", "-p", "random", "greedy", "-n", "4", "-j", "1", "--state", str(state)]
    code, _, err = run(*more, "--seed", "5", "--resume")
    assert code == 0, err
    assert len(state.read_text().splitlines()) == 1 + 4
    state.write_text("not json\n")
    code, _, err = run(*base, "--seed", "5", "--resume")
    assert code == 1 and "is not an arena state file" in err


@posix_only
def test_a_real_ctrl_c_stops_the_worker_processes_and_keeps_what_finished(tmp_path: Path) -> None:
    slow = bad_engine(tmp_path, "--mode", "slow", "--delay", "0.5", "--at", "1")
    args = ["orderchaos", "-p", "random", slow, "-n", "4", "--seed", "3", "--quiet"]
    process = subprocess.Popen(
        [sys.executable, "-m", "abstractgames", "arena", *args, "-j", "2"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    state = tmp_path / "abstractgames-arena-orderchaos-3.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if state.exists() and len(state.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == EXIT_INTERRUPTED, err
    assert "interrupted: the finished games are kept" in err and "Traceback" not in err
    kept = len(state.read_text().splitlines()) - 1
    assert 1 <= kept < 4
    code, resumed, err = run(*args, "-j", "1", "--resume", "--state", str(state))
    assert code == 0, err
    code, straight, err = run(*args, "-j", "2", "--state", str(tmp_path / "straight.jsonl"))
    assert code == 0, err
    assert resumed == straight


# --- stopping from another thread ----------------------------------------------------------------


def spawned_workers() -> list[int]:
    """The processes this one started with multiprocessing's spawn that still run (from /proc):
    the arena's local workers."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command_line = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        state, parent = stat.rpartition(")")[2].split()[:2]
        if int(parent) == os.getpid() and state not in "ZX" and b"spawn_main" in command_line:
            found.append(int(entry.name))
    return found


def is_gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def test_a_stop_event_ends_the_tournament_between_matches_and_resume_finishes_it(
    tmp_path: Path,
) -> None:
    players = ["random", "greedy", "search:depth=1"]
    straight = Arena("orderchaos", players, games=2, seed=9).run()
    arena = Arena("orderchaos", players, games=2, seed=9)
    path = tmp_path / "state.jsonl"
    stop = threading.Event()

    def stop_after_the_second(done: MatchDone) -> None:
        if done.done == 2:
            stop.set()

    state = ArenaState.create(path, arena)
    try:
        report = arena.run(SerialExecutor(), state=state, on_match=stop_after_the_second, stop=stop)
    finally:
        state.close()
    assert not report.complete and [m.number for m in report.matches] == [1, 2]
    assert len(path.read_text().splitlines()) == 1 + 2
    assert (
        report.standings
        == arena.report(
            {t.key: MatchRecord.loads(play_match(t)) for t in arena.tasks[:2]}
        ).standings
    )
    # set before the run: nothing is played, whatever the executor
    for executor in (SerialExecutor(), ProcessExecutor(2)):
        assert not Arena("orderchaos", players, games=2, seed=9).run(executor, stop=stop).matches
    state = ArenaState.resume(path, arena)
    try:
        resumed = arena.run(SerialExecutor(), state=state, stop=threading.Event())
    finally:
        state.close()
    assert resumed.complete and resumed.dumps() == straight.dumps()


@with_proc
def test_a_stop_event_interrupts_the_workers_match_at_once_and_keeps_the_finished_ones(
    tmp_path: Path,
) -> None:
    """The stop the web app uses: set from another thread while a bot thinks in a worker
    process, the match is interrupted as Ctrl-C interrupts it, at once; the match that finished
    is in the state file, and no worker process is left."""
    bot = tmp_path / "slowbot.py"
    bot.write_text(SLOW_BOT)
    thinking = tmp_path / "thinking.pid"
    arena = Arena("orderchaos", ["random", f"{bot}:Slow"], games=4, seed=1)
    path = tmp_path / "state.jsonl"
    stop = threading.Event()
    stopped_at: list[float] = []
    during: list[list[int]] = []

    def stop_while_it_thinks() -> None:
        deadline = time.monotonic() + 60
        while not thinking.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        during.append(spawned_workers())
        stopped_at.append(time.monotonic())
        stop.set()

    stopper = threading.Thread(target=stop_while_it_thinks)
    stopper.start()
    told: list[MatchDone] = []
    state = ArenaState.create(path, arena)
    try:
        report = arena.run(
            ProcessExecutor(1),
            state=state,
            records=tmp_path / "records",
            on_match=told.append,
            stop=stop,
        )
    finally:
        state.close()
        stop.set()
        stopper.join()
    took = time.monotonic() - stopped_at[0]
    assert took < 5, f"the stopped tournament took {took:.1f} s to end"
    pid = int(thinking.read_text())
    assert during == [[pid]]  # the bot thought in the one worker
    assert is_gone(pid) and spawned_workers() == []
    assert not report.complete and [m.number for m in report.matches] == [1]
    assert [done.match.number for done in told] == [1]
    assert told[0].record is not None and told[0].record.parent == tmp_path / "records"
    assert len(path.read_text().splitlines()) == 1 + 1
    assert [p.name for p in (tmp_path / "records").iterdir()] == [told[0].record.name]


def test_arena_errors_from_the_library() -> None:
    with pytest.raises(ArenaError, match="even"):
        Arena("orderchaos", ["random", "greedy"], games=1)
    with pytest.raises(ArenaError, match="jobs"):
        arena_module.make_executor("local", 0)
    assert isinstance(arena_module.make_executor("local", 1), arena_module.SerialExecutor)
    executor = arena_module.make_executor("dask://127.0.0.1:8786")
    assert isinstance(executor, arena_module.DaskExecutor)
    assert executor.address == "tcp://127.0.0.1:8786"
