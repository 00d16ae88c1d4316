"""The tournament's report (`abstractgames.arena.report`): statistics on results worked out by
hand, and the running report of the matches so far."""

from __future__ import annotations

import math

import pytest

from abstractgames import arena as arena_module
from abstractgames.arena import Arena, MatchTask
from abstractgames.protocol import MatchResult
from abstractgames.records import GameEnd, GameRecord, MatchRecord
from abstractgames.stats import ELO_PER_LOGIT, elo_difference

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
