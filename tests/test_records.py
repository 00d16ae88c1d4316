"""Continuing a match from its record: the one policy every front end follows."""

from __future__ import annotations

import pytest

from abstractgames import get_game, make_player
from abstractgames.players import HUMAN
from abstractgames.records import (
    CannotResume,
    ClockSettings,
    MatchRecord,
    RecordError,
    ResumeRefusal,
)
from abstractgames.referee import Referee

from .conftest import StopAt


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
