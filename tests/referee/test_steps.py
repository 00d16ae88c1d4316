"""The match engine (`abstractgames.steps`): whose turn it is, each action, what it refuses."""

from __future__ import annotations

import pytest

from abstractgames import get_game
from abstractgames.records import ClockSettings, MatchRecord, MoveRecord
from abstractgames.steps import (
    ActionRefused,
    Automatic,
    ChanceDraw,
    Forfeit,
    GameEnded,
    GameStarted,
    MatchEnded,
    MatchInPlay,
    MovePlayed,
    MoveRefused,
    MovesTakenBack,
    Notice,
    OutOfTime,
    PlayMove,
    RefereeError,
    Resignation,
    TakeBack,
)


def new(game_name: str, **options: object) -> MatchInPlay:
    game = get_game(game_name)
    record = MatchRecord(game.name, game.params, ("a", "b"), seed=7, **options)  # type: ignore[arg-type]
    return MatchInPlay(game, record)


def test_a_new_match_opens_its_first_game() -> None:
    match = new("orderchaos")
    [started] = match.opening
    assert isinstance(started, GameStarted) and started.record.number == 1
    assert len(match.record.games) == 1
    turn = match.turn()
    assert turn is not None
    assert (turn.kind, turn.player, turn.role, turn.ply, turn.clocks) == (
        "player",
        1,
        "order",
        0,
        (None, None),
    )


def test_an_illegal_move_is_refused_and_changes_nothing() -> None:
    match = new("orderchaos")
    match.step(PlayMove("X@a1"))
    before = match.record.dumps()
    with pytest.raises(MoveRefused, match=r'illegal move "X@a1" by player 2') as refused:
        match.step(PlayMove("X@a1"))
    assert refused.value.player == 2 and isinstance(refused.value, ValueError)
    with pytest.raises(MoveRefused):
        match.step(PlayMove("nonsense"))
    assert match.record.dumps() == before


def test_the_clock_loses_the_time_taken_and_gains_the_increment() -> None:
    match = new("orderchaos", clock=ClockSettings(60.0, 2.0))
    [played] = match.step(PlayMove("X@a1", 10.0))
    assert isinstance(played, MovePlayed)
    assert (played.entry.seconds, played.entry.clock) == (10.0, 52.0)
    turn = match.turn()
    assert turn is not None and turn.clocks == (52.0, 60.0) and turn.time_left == 60.0


def test_a_move_after_the_flag_fell_loses_the_match() -> None:
    match = new("orderchaos", clock=ClockSettings(5.0))
    events = match.step(PlayMove("X@a1", 6.0))
    assert [type(event) for event in events] == [Notice, GameEnded, MatchEnded]
    result = match.record.result
    assert result is not None and result.winner == 2
    assert match.record.games[0].ended_by is not None
    assert match.record.games[0].ended_by.event == "out of time"
    assert match.turn() is None
    with pytest.raises(ActionRefused, match="the match is over"):
        match.step(Resignation(1))


def test_entropy_draws_chance_from_the_seed_or_from_outside() -> None:
    drawn = new("entropy")
    turn = drawn.turn()
    assert turn is not None and turn.kind == "chance" and turn.player is None
    with pytest.raises(ActionRefused, match="a chance event"):
        drawn.step(PlayMove("a1"))
    [played] = drawn.step(Automatic())
    assert isinstance(played, MovePlayed) and played.entry.player is None
    given = new("entropy")
    given.step(ChanceDraw(played.entry.move))
    assert given.record.dumps() == drawn.record.dumps()
    with pytest.raises(ActionRefused, match="no chance event is due"):
        given.step(ChanceDraw(played.entry.move))


def test_a_flag_in_entropy_makes_the_moves_for_the_player_out_of_time() -> None:
    match = new("entropy", clock=ClockSettings(5.0))
    match.step(Automatic())  # the first draw
    turn = match.turn()
    assert turn is not None and turn.kind == "player"
    events = match.step(OutOfTime(7.5))
    assert isinstance(events[0], Notice) and "made for them" in events[0].text
    assert isinstance(events[1], MovePlayed) and events[1].entry.auto
    while (turn := match.turn()) is not None and turn.player != 1:
        if turn.kind == "chance":
            match.step(Automatic())
        else:
            match.step(PlayMove(str(turn.state.legal_moves()[0]), 1.0))
    assert turn is not None and turn.kind == "timeout"
    with pytest.raises(ActionRefused, match="a move made for them"):
        match.step(PlayMove(str(turn.state.legal_moves()[0])))
    [made] = match.step(Automatic())
    assert isinstance(made, MovePlayed) and made.entry.auto and made.entry.seconds == 0.0


def test_time_loss_forfeits_where_correspondence_says_so() -> None:
    match = new("entropy", clock=ClockSettings(5.0), time_loss_forfeits=True)
    match.step(Automatic())
    events = match.step(OutOfTime(7.5))
    assert isinstance(events[0], Notice) and events[0].text == "player 1 ran out of time"
    assert match.turn() is None


def test_a_flag_may_say_why_and_fall_at_a_chance_draw_where_time_loss_forfeits() -> None:
    match = new("orderchaos", time_loss_forfeits=True)
    events = match.step(OutOfTime(0.0, reason="player 1 ran out of time (3 days a move)"))
    assert events[0] == Notice("player 1 ran out of time (3 days a move)")
    assert match.record.games[0].ended_by is not None
    assert match.record.games[0].ended_by.reason == "player 1 ran out of time (3 days a move)"
    waiting = new("entropy", time_loss_forfeits=True)  # a draw waits on player 2's message
    waiting.step(OutOfTime(0.0, reason="late", player=2))
    assert waiting.turn() is None and waiting.record.result is not None
    assert waiting.record.result.winner == 1
    free = new("entropy")
    with pytest.raises(ActionRefused, match="time loss does not forfeit"):
        free.step(OutOfTime(0.0, player=2))
    assert free.turn() is not None and free.turn().kind == "chance"  # type: ignore[union-attr]


def test_a_take_back_goes_to_the_players_previous_turn() -> None:
    match = new("orderchaos")
    assert match.step(TakeBack(1)) == [
        Notice("nothing to undo: this is your first move of the game")
    ]
    match.step(PlayMove("X@a1"))
    match.step(PlayMove("O@b2"))
    [back] = match.step(TakeBack(1))
    assert isinstance(back, MovesTakenBack) and back.count == 2
    assert match.record.games[0].moves == []
    turn = match.turn()
    assert turn is not None and turn.player == 1


def test_the_two_games_of_an_entropy_match_and_a_forfeit() -> None:
    match = new("entropy")
    events: list[object] = []
    while (turn := match.turn()) is not None and turn.game_number == 1:
        if turn.kind == "chance":
            events = match.step(Automatic())
        else:
            events = match.step(PlayMove(str(turn.state.legal_moves()[0])))
    assert [type(event) for event in events] == [MovePlayed, GameEnded, GameStarted]
    assert match.record.games[0].outcome is not None and len(match.record.games) == 2
    assert turn is not None and turn.game_number == 2
    assert (match.role_of(1), match.role_of(2)) == ("order", "chaos")
    events = match.step(Forfeit(1, "the program crashed"))
    assert [type(event) for event in events] == [Notice, GameEnded, MatchEnded]
    assert match.record.result is not None and match.record.result.winner == 2


def test_a_match_built_from_its_record_goes_on_where_it_stood() -> None:
    match = new("orderchaos", clock=ClockSettings(60.0))
    match.step(PlayMove("X@a1", 3.0))
    again = MatchInPlay(get_game("orderchaos"), MatchRecord.loads(match.record.dumps()))
    [started] = again.opening
    assert isinstance(started, GameStarted) and [str(m) for m in started.moves] == ["X@a1"]
    assert again.clocks == match.clocks == (57.0, 60.0)
    finished = new("orderchaos")
    finished.step(Resignation(1))
    over = MatchInPlay(get_game("orderchaos"), MatchRecord.loads(finished.record.dumps()))
    assert [type(event) for event in over.opening] == [MatchEnded] and over.finished


def test_a_record_the_rules_refuse_cannot_be_continued() -> None:
    match = new("orderchaos")
    match.step(PlayMove("X@a1"))
    match.record.games[0].moves[0] = MoveRecord("X@z9", 1)
    with pytest.raises(RefereeError, match="cannot continue this record"):
        MatchInPlay(get_game("orderchaos"), match.record)


def test_there_are_two_players() -> None:
    match = new("orderchaos")
    with pytest.raises(ActionRefused, match="there is no player 3"):
        match.step(Resignation(3))
