"""The referee (`abstractgames.referee`): a match between two players, resignations, undo,
interruptions, clocks and timeouts, failing players, Entropy's two-game match, the players'
hooks, and the generators it hands out (the command line has its own tests)."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from abstractgames import Move, State, available_games, get_game, make_player, parse_game_spec
from abstractgames.engines.agp import is_seed_token
from abstractgames.players import Player, PlayerFailed, Resign, UndoRequest
from abstractgames.records import ClockSettings, GameEnd, MatchRecord, RecordError
from abstractgames.referee import Referee, chance_rng, player_rng
from tests.conftest import posix_only
from tests.support.toygame import DiceRace


class FakeClock:
    """A time source that advances only when a player 'thinks'."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Scripted(Player):
    """Plays the given moves in order (then the first legal move), spending ``think`` seconds."""

    def __init__(
        self, moves: list[str | type[Exception]], clock: FakeClock | None = None, think: float = 0.0
    ) -> None:
        self.moves = list(moves)
        self.clock = clock
        self.think = think
        self.spec = "scripted"
        self.asked: list[str] = []

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        self.asked.append(state.position())
        if self.clock is not None:
            self.clock.now += self.think
        if self.moves:
            item = self.moves.pop(0)
            if isinstance(item, type):
                raise item()
            return state.game.parse_move(item, state)
        return state.legal_moves()[0]


def bots(game_name: str, first: str = "random", second: str = "random") -> tuple[Player, Player]:
    game = get_game(game_name)
    return make_player(first, game), make_player(second, game)


@pytest.mark.parametrize("game_name", available_games())
def test_same_seed_same_record(game_name: str) -> None:
    game = get_game(game_name)
    first = Referee(game, bots(game_name), seed=42).play()
    second = Referee(game, bots(game_name), seed=42).play()
    assert first.finished
    assert first.dumps() == second.dumps()
    other = Referee(game, bots(game_name), seed=43).play()
    assert other.dumps() != first.dumps()
    again = MatchRecord.loads(first.dumps())
    assert again.dumps() == first.dumps()
    match, finals = again.replay()
    assert match.result() == first.result
    assert all(state.is_terminal() for state in finals)


def test_resignation_ends_the_match() -> None:
    game = get_game("orderchaos")
    record = Referee(game, (Scripted(["X@a1", Resign]), make_player("random", game)), seed=1).play()
    assert record.result is not None
    assert record.result.winner == 2
    assert record.result.reason == "player 1 resigned"
    assert record.games[0].ended_by == GameEnd("resigned", 1, "player 1 resigned")
    assert MatchRecord.loads(record.dumps()).replay()[0].result() == record.result


def test_undo_goes_back_to_the_players_previous_turn() -> None:
    game = get_game("orderchaos")
    human = Scripted(["X@a1", "X@b1", UndoRequest, "X@f6", Resign])
    record = Referee(game, (human, make_player("random", game)), seed=1).play()
    moves = [m.move for m in record.games[0].moves]
    assert moves[0] == "X@a1"
    assert moves[2] == "X@f6"  # X@b1 and the reply to it were taken back
    assert len(moves) == 4
    # The bot's reply after the undo is the one it gave the first time: same seed, same ply.
    assert human.asked[3] == human.asked[1]


def test_an_undo_for_the_other_seat_goes_back_to_that_players_turn() -> None:
    """A person at another screen takes back their move; the one to move passes it on."""

    class TakeBackPlayer2(UndoRequest):
        def __init__(self) -> None:
            super().__init__(2)

    game = get_game("orderchaos")
    one = Scripted(["X@a1", TakeBackPlayer2, "X@b1", Resign])
    two = Scripted(["O@f6", "O@e5"])
    record = Referee(game, (one, two), seed=1).play()
    moves = [m.move for m in record.games[0].moves]
    assert moves[:3] == ["X@a1", "O@e5", "X@b1"]  # O@f6 was taken back, nothing else
    assert two.asked[1] == two.asked[0]  # player 2 to move again, where they were


def test_undo_on_the_first_move_is_refused_politely() -> None:
    game = get_game("orderchaos")
    human = Scripted([UndoRequest, Resign])
    record = Referee(game, (human, make_player("random", game)), seed=1).play()
    assert record.games[0].moves == []


def test_interrupted_match_can_be_resumed(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    human = Scripted(["X@a1", "X@b1", KeyboardInterrupt])
    record = Referee(game, (human, make_player("greedy", game)), seed=9).play()
    assert not record.finished
    assert len(record.games[0].moves) == 4
    path = tmp_path / "game.json"
    record.save(path)
    loaded = MatchRecord.load(path)
    finish = Scripted([])
    done = Referee(game, (finish, make_player("greedy", game)), seed=loaded.seed).play(loaded)
    assert done.finished
    moves = [m.move for m in done.games[0].moves]
    assert moves[:4] == [m.move for m in record.games[0].moves]
    assert (
        finish.asked[0]
        == game.initial_state()
        .apply(moves[0])
        .apply(moves[1])
        .apply(moves[2])
        .apply(moves[3])
        .position()
    )
    # Continuing gives the same game as playing through without the interruption.
    straight = Referee(
        game, (Scripted(["X@a1", "X@b1"]), make_player("greedy", game)), seed=9
    ).play()
    assert [m.move for m in straight.games[0].moves] == moves


def test_out_of_time_loses_where_the_game_has_no_timeout_moves() -> None:
    game = get_game("orderchaos")
    clock = FakeClock()
    slow = Scripted([], clock, think=4.0)
    fast = Scripted([], clock, think=1.0)
    record = Referee(
        game, (slow, fast), seed=0, clock=ClockSettings(10, 0.5), time_source=clock
    ).play()
    assert record.result is not None
    assert record.result.winner == 2
    assert record.result.reason == "player 1 ran out of time"
    moves = record.games[0].moves
    # 10 s, then 4 s a move with 0.5 s back: 6.5, 3.0, and the third move overruns.
    assert [m.clock for m in moves if m.player == 1] == [6.5, 3.0]
    assert [m.seconds for m in moves if m.player == 1] == [4.0, 4.0]
    assert MatchRecord.loads(record.dumps()).replay()[0].result() == record.result


def test_an_illegal_move_loses_the_match_and_is_recorded() -> None:
    game = get_game("orderchaos")
    cheat = Scripted(["X@a1", "X@a1"])
    record = Referee(game, (cheat, Scripted(["O@b2"])), seed=0).play()
    assert record.result is not None
    assert record.result.winner == 2
    assert record.result.reason.startswith('illegal move "X@a1" by player 1: ')
    assert record.result.reason.endswith("a1 is occupied")
    assert record.games[0].ended_by is not None
    assert record.games[0].ended_by.event == "forfeit"
    assert MatchRecord.loads(record.dumps()).replay()[0].result() == record.result


def test_a_failing_player_loses_with_its_reason() -> None:
    class Crashing(Player):
        spec = "crashing"

        def choose(self, state, rng, time_left=None):  # type: ignore[no-untyped-def]
            raise PlayerFailed("player 2 exited with status 1")

    game = get_game("entropy", size=5)
    record = Referee(game, (make_player("random", game), Crashing()), seed=0).play()
    assert record.result is not None
    assert record.result.winner == 1
    assert record.result.reason == "player 2 exited with status 1"


# --- Entropy through the referee: the match, timeout moves, clocks --------------------------------


class LastMove(Player):
    """Plays the last legal move (never what a timeout would play), thinking ``think`` seconds."""

    def __init__(self, clock: FakeClock, think: float, resign_at: int | None = None) -> None:
        self.clock = clock
        self.think = think
        self.resign_at = resign_at
        self.spec = f"last:{think}"
        self.calls = 0

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        self.calls += 1
        if self.calls == self.resign_at:
            raise Resign()
        self.clock.now += self.think
        return state.legal_moves()[-1]


def test_entropy_live_timeouts_and_clock_reset_at_the_swap() -> None:
    game = get_game("entropy", size=5)
    clock = FakeClock()
    slow, quick = LastMove(clock, 3.0), LastMove(clock, 0.1)
    record = Referee(game, (slow, quick), seed=4, clock=ClockSettings(10), time_source=clock).play()
    assert record.result is not None
    assert [g.number for g in record.games] == [1, 2]
    for number, role in ((1, "chaos"), (2, "order")):
        moves = [m for m in record.games[number - 1].moves if m.player == 1]
        # 10 s at 3 s a move: three moves in time, the fourth overruns; then automatic moves.
        assert [m.auto for m in moves[:5]] == [False, False, False, True, True]
        assert all(m.auto for m in moves[3:])
        assert [m.clock for m in moves[:4]] == pytest.approx([7.0, 4.0, 1.0, 0.0])  # reset
        state = game.from_position(record.games[number - 1].start)
        for entry in record.games[number - 1].moves:
            if entry.auto:
                assert state.to_move == role
                assert entry.move == str(game.timeout_move(state))
                if role == "chaos":  # the first empty square in index order
                    first_empty = "abcde"[state.cells().index(".") % 5] + str(
                        state.cells().index(".") // 5 + 1
                    )
                    assert entry.move.endswith(f"@{first_empty}")
                else:
                    assert entry.move == "pass"
            state = state.apply(entry.move)
    replayed, _ = MatchRecord.loads(record.dumps()).replay()
    assert replayed.result() == record.result


def test_entropy_correspondence_time_loss_forfeits_the_match() -> None:
    game = get_game("entropy", size=5)
    clock = FakeClock()
    record = Referee(
        game,
        (LastMove(clock, 0.1), LastMove(clock, 4.0)),
        seed=4,
        clock=ClockSettings(10),
        time_loss_forfeits=True,
        time_source=clock,
    ).play()
    assert record.result is not None
    assert record.result.winner == 1
    assert record.result.reason == "player 2 ran out of time"
    assert len(record.games) == 1
    assert record.games[0].ended_by == GameEnd("out of time", 2, "player 2 ran out of time")
    assert MatchRecord.loads(record.dumps()).replay()[0].result() == record.result


def test_entropy_resignation_in_game_two_ends_the_match() -> None:
    game = get_game("entropy", size=5)
    clock = FakeClock()
    resigner = LastMove(clock, 0.0, resign_at=30)
    record = Referee(game, (resigner, LastMove(clock, 0.0)), seed=1).play()
    assert record.result is not None
    assert record.result.winner == 2
    assert record.result.reason == "player 1 resigned"
    assert len(record.games) == 2
    assert record.games[0].outcome is not None
    assert record.games[1].ended_by == GameEnd("resigned", 1, "player 1 resigned")
    assert record.result.scores[1] == record.games[0].outcome.scores["order"]


def test_entropy_match_scores_and_single_game() -> None:
    game = get_game("entropy", size=5)
    full = Referee(game, (make_player("random", game), make_player("random", game)), seed=8).play()
    assert len(full.games) == 2
    assert full.result is not None
    order_scores = [g.outcome.scores["order"] for g in full.games if g.outcome is not None]
    assert full.result.scores == (order_scores[1], order_scores[0])  # player 1 is Order in game 2
    single = Referee(
        game, (make_player("random", game), make_player("random", game)), seed=8, single=True
    ).play()
    assert len(single.games) == 1
    assert single.result is not None and single.result.winner is None


# --- the players' hooks ---------------------------------------------------------------------------


class Recording(Player):
    """Leaves its moves to ``inner``, and records every hook call and every move asked for."""

    def __init__(self, inner: Player) -> None:
        self.inner = inner
        self.spec = inner.spec
        self.calls: list[tuple[object, ...]] = []

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        self.calls.append(("choose", state.position()))
        return self.inner.choose(state, rng, time_left)

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        self.calls.append(("game_started", seat, game_number, start.position()))

    def move_played(self, move: Move, state: State) -> None:
        self.calls.append(("move_played", str(move), state.position()))

    def moves_taken_back(self, state: State) -> None:
        self.calls.append(("moves_taken_back", state.position()))

    def game_ended(self, state: State) -> None:
        self.calls.append(("game_ended", state.position()))

    def names(self) -> list[object]:
        return [call[0] for call in self.calls]


def heard(record: MatchRecord, seat: int, replayed: int = 0) -> list[tuple[object, ...]]:
    """The calls a player in ``seat`` should get in the games of ``record`` (without an undo),
    when the first ``replayed`` plies of its first game come from a record (so are not asked)."""
    game = record.make_game()
    calls: list[tuple[object, ...]] = []
    for game_record in record.games:
        state = game.from_position(game_record.start)
        calls.append(("game_started", seat, game_record.number, state.position()))
        for ply, entry in enumerate(game_record.moves):
            if entry.player == seat and not (ply < replayed and game_record is record.games[0]):
                calls.append(("choose", state.position()))
            state = state.apply(entry.move)
            calls.append(("move_played", entry.move, state.position()))
        calls.append(("game_ended", state.position()))
    return calls


class StopAt(Player):
    """Leaves its moves to ``inner``, and presses Ctrl-C when asked for its ``at``-th move."""

    def __init__(self, inner: Player, at: int) -> None:
        self.inner = inner
        self.spec = inner.spec
        self.at = at

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        self.at -= 1
        if self.at == 0:
            raise KeyboardInterrupt
        return self.inner.choose(state, rng, time_left)


@pytest.mark.parametrize("game_name", [*available_games(), "entropy:size=5"])
def test_players_hear_every_ply_in_order(game_name: str) -> None:
    game = parse_game_spec(game_name)
    players = (Recording(make_player("random", game)), Recording(make_player("greedy", game)))
    record = Referee(game, players, seed=5).play()
    assert players[0].calls == heard(record, 1)
    assert players[1].calls == heard(record, 2)
    if game.name == "entropy":
        assert [c[2] for c in players[0].calls if c[0] == "game_started"] == [1, 2]
        assert any(c[0] == "move_played" and len(str(c[1])) == 1 for c in players[0].calls)
    # The hooks change nothing: the same match without them.
    plain = Referee(game, (make_player("random", game), make_player("greedy", game)), seed=5)
    assert plain.play().dumps() == record.dumps()


def test_players_hear_an_undo() -> None:
    game = get_game("orderchaos")
    human = Recording(Scripted(["X@a1", "X@b1", UndoRequest, "X@f6", Resign]))
    bot = Recording(make_player("random", game))
    record = Referee(game, (human, bot), seed=1).play()
    moves = [m.move for m in record.games[0].moves]
    after_two = game.initial_state().apply(moves[0]).apply(moves[1]).position()
    assert human.names() == [
        "game_started",
        "choose",
        *["move_played"] * 2,
        "choose",
        *["move_played"] * 2,
        "choose",  # the undo
        "moves_taken_back",
        "choose",
        *["move_played"] * 2,
        "choose",  # the resignation
        "game_ended",
    ]
    assert human.calls[8] == ("moves_taken_back", after_two)
    assert bot.calls[7] == ("moves_taken_back", after_two)
    assert human.calls[5:7] == bot.calls[4:5] + bot.calls[6:7]  # X@b1 and the reply, undone
    assert human.calls[5][1] == "X@b1"
    # Apart from the plies taken back, the bot heard what a game played straight through gives.
    assert bot.calls[:4] + bot.calls[8:] == heard(record, 2)


def test_players_hear_a_resumed_game_from_its_start() -> None:
    game = get_game("entropy", size=5)
    stopper = StopAt(make_player("random", game), 30)
    interrupted = Referee(game, (make_player("random", game), stopper), seed=2).play()
    assert not interrupted.finished and len(interrupted.games) == 2
    replayed = len(interrupted.games[1].moves)
    assert replayed > 0
    plain = MatchRecord.loads(interrupted.dumps())
    players = (Recording(make_player("random", game)), Recording(make_player("random", game)))
    record = Referee(game, players, seed=2).play(interrupted)
    assert record.finished
    game_two = MatchRecord.loads(record.dumps())
    del game_two.games[0]  # finished before the interruption: not played again, not told
    for seat, player in enumerate(players, start=1):
        assert player.calls == heard(game_two, seat, replayed)
        assert player.names()[: replayed + 1] == ["game_started", *["move_played"] * replayed]
    bots = (make_player("random", game), make_player("random", game))
    assert Referee(game, bots, seed=2).play(plain).dumps() == record.dumps()


def test_the_referee_plays_a_game_it_cannot_find_by_name() -> None:
    game = DiceRace()  # never registered
    players = (make_player("random", game), make_player("greedy", game))
    record = Referee(game, players, seed=1).play()
    assert record.finished
    match, _ = MatchRecord.loads(record.dumps()).replay(game)
    assert match.result() == record.result
    with pytest.raises(RecordError, match="unknown game 'dicerace'"):
        record.replay()
    with pytest.raises(RecordError, match="not of get_game"):
        record.replay(get_game("orderchaos"))


# --- the generators of the players and of chance --------------------------------------------------


@posix_only
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
