"""A match started from a position (`Referee(start=...)`, `check_start`): every game of the match
starts there and its record keeps it, an Entropy match's two games with the roles swapped, a
record continued from its own start and not from another, the positions no match can start
from, and dispersal's history before the start, which does not count."""

from __future__ import annotations

import random
from pathlib import Path

import attrs
import pytest

from abstractgames import CHANCE, Move, State, get_game, make_player, parse_game_spec
from abstractgames.players import Player
from abstractgames.protocol import InvalidPositionError
from abstractgames.records import MatchRecord
from abstractgames.referee import Referee, RefereeError, check_start
from tests.support.toygame import DiceRace, RaceState, Roll


class Scripted(Player):
    """Plays the given moves in order, then the first legal move; remembers being closed."""

    def __init__(self, moves: list[str] = []) -> None:  # noqa: B006 (never changed)
        self.moves = list(moves)
        self.spec = "scripted"
        self.closed = False

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if self.moves:
            return state.game.parse_move(self.moves.pop(0), state)
        return state.legal_moves()[0]

    def close(self) -> None:
        self.closed = True


def bots(game_spec: str) -> tuple[Player, Player]:
    game = parse_game_spec(game_spec)
    return make_player("random", game), make_player("greedy", game)


def played(state: State, moves: list[str]) -> State:
    for move in moves:
        state = state.apply(move)
    return state


# --- the record keeps the start -------------------------------------------------------------------


def test_both_games_of_an_entropy_match_start_there_with_the_roles_swapped() -> None:
    game = parse_game_spec("entropy:size=5")
    start = played(game.initial_state(), ["R", "R@c3", "pass"])
    text = start.position()
    assert text == "5/5/2R2/5/5 draw" and start.to_move == CHANCE
    record = Referee(game, bots("entropy:size=5"), seed=4, start=start).play()
    assert record.finished and len(record.games) == 2
    assert [g.start for g in record.games] == [text, text]
    match = record.new_match()
    assert match.role_of(1, 1) == "chaos" and match.role_of(1, 2) == "order"
    for game_record in record.games:
        # the first move of each game is the draw due at the start, then Chaos places it
        assert game_record.moves[0].player is None
        placed = game_record.moves[1]
        assert placed.player == (1 if game_record.number == 1 else 2)
        assert len(game_record.moves) == 3 * 24 - 1  # each counter drawn, placed, moved
    # the record replays through the rules, and a saved one reads back the same
    replayed, finals = MatchRecord.loads(record.dumps()).replay()
    assert replayed.result() == record.result and len(finals) == 2
    again = Referee(game, bots("entropy:size=5"), seed=4, start=start).play()
    assert again.dumps() == record.dumps()
    default = Referee(game, bots("entropy:size=5"), seed=4).play()
    assert {g.start for g in default.games} == {game.initial_state().position()}


def test_a_saved_record_keeps_its_start_and_replays(tmp_path: Path) -> None:
    game = get_game("orderchaos")
    start = played(game.initial_state(), ["X@c3", "O@d4"])
    record = Referee(game, bots("orderchaos"), seed=2, start=start).play()
    path = tmp_path / "game.json"
    record.save(path)
    loaded = MatchRecord.load(path)
    assert loaded.games[0].start == "6/6/3O2/2X3/6/6 order"
    assert loaded.dumps() == record.dumps()
    match, finals = loaded.replay()
    assert match.result() == record.result
    assert finals[0].position() == loaded.games[0].final
    # the moves of the record are those played after the start, none before it
    assert all(m.move not in ("X@c3", "O@d4") for m in loaded.games[0].moves)


def test_a_start_given_as_the_games_own_start_is_the_usual_record() -> None:
    game = get_game("orderchaos")
    usual = Referee(game, bots("orderchaos"), seed=5).play()
    started = Referee(game, bots("orderchaos"), seed=5, start=game.initial_state()).play()
    assert started.dumps() == usual.dumps()


# --- a record continued ---------------------------------------------------------------------------


def test_a_record_continues_from_its_own_start_and_refuses_another() -> None:
    game = parse_game_spec("entropy:size=5")
    start = played(game.initial_state(), ["K", "K@e5"])
    whole = Referee(game, bots("entropy:size=5"), seed=8, start=start).play()
    # the match stopped after its first game: continued without a start, it plays the second
    # game from the record's start, as the uninterrupted match did
    cut = MatchRecord.loads(whole.dumps())
    cut.games = cut.games[:1]
    cut.result = None
    continued = Referee(game, bots("entropy:size=5"), seed=8).play(cut)
    assert continued.games[1].start == start.position()
    assert continued.dumps() == whole.dumps()
    # continued with the same start given: the same
    cut = MatchRecord.loads(whole.dumps())
    cut.games, cut.result = cut.games[:1], None
    same = Referee(game, bots("entropy:size=5"), seed=8, start=start).play(cut)
    assert same.dumps() == whole.dumps()
    # with another start: refused, before anything is played, and the players are closed
    cut = MatchRecord.loads(whole.dumps())
    cut.games, cut.result = cut.games[:1], None
    players = (Scripted(), Scripted())
    referee = Referee(game, players, seed=8, start=game.initial_state())
    with pytest.raises(RefereeError, match="its match started from 4K/5/5/5/5 order") as refused:
        referee.play(cut)
    assert "cannot continue this record from 5/5/5/5/5 draw" in str(refused.value)
    assert players[0].closed and players[1].closed
    assert len(cut.games) == 1 and cut.games[0].final == whole.games[0].final


def test_an_unfinished_game_continues_from_its_start() -> None:
    game = get_game("orderchaos")
    start = played(game.initial_state(), ["O@a1"])
    whole = Referee(game, bots("orderchaos"), seed=3, start=start).play()
    cut = MatchRecord.loads(whole.dumps())
    cut.games[0].moves = cut.games[0].moves[:5]
    cut.games[0].final = cut.games[0].outcome = None
    cut.result = None
    assert Referee(game, bots("orderchaos"), seed=3).play(cut).dumps() == whole.dumps()


# --- positions no match can start from ------------------------------------------------------------


def test_a_finished_position_is_refused_with_the_reason() -> None:
    game = get_game("orderchaos")
    five = played(game.initial_state(), ["X@a1", "O@f6", "X@b1", "O@f5", "X@c1"])
    five = played(five, ["O@f4", "X@d1", "O@f3", "X@e1"])
    assert five.outcome() is not None
    with pytest.raises(InvalidPositionError, match=r"the game is over \(five in a row\)"):
        check_start(game, five)
    with pytest.raises(InvalidPositionError, match="the game is over"):
        Referee(game, bots("orderchaos"), start=five)


def test_a_state_of_another_game_is_refused() -> None:
    game = get_game("orderchaos")
    for other in (
        get_game("dispersal").initial_state(),
        get_game("entropy").initial_state(),
        "6/6/6/6/6/6 order",  # text is not a state: read it first (`grid.read_position`)
    ):
        with pytest.raises(InvalidPositionError, match="it is not a position of orderchaos"):
            check_start(game, other)  # type: ignore[arg-type]
    entropy = get_game("entropy")
    small = parse_game_spec("entropy:size=5").initial_state()
    with pytest.raises(InvalidPositionError, match="not a position of entropy"):
        Referee(entropy, bots("entropy"), start=small)


@attrs.frozen
class StuckState(RaceState):
    """A dice race whose die has no faces: a chance node with no outcome (a broken game)."""

    def chance_outcomes(self) -> tuple[tuple[Move, float], ...]:
        if self.to_move != CHANCE:
            return super().chance_outcomes()
        game = self.game
        assert isinstance(game, StuckRace)
        return tuple((Roll(value), 0.0) for value in range(1, game.faces + 1))


class StuckRace(DiceRace):
    name = "stuckrace"

    def __init__(self, faces: int) -> None:
        self.faces = faces

    def initial_state(self) -> StuckState:
        return StuckState(self, 0, "roll", 0, "first", None)

    def from_position(self, text: str) -> StuckState:
        state = super().from_position(text)
        return StuckState(self, state.total, state.phase, state.passes, state.player, state.roll)


@pytest.mark.parametrize("faces", [0, 2])
def test_a_chance_node_with_no_chance_event_to_play_is_refused(faces: int) -> None:
    game = StuckRace(faces)  # no outcomes, or only outcomes that never happen
    with pytest.raises(InvalidPositionError, match="a chance node with no chance event to play"):
        check_start(game, game.initial_state())
    # after the roll, the player to move: a fine start
    moved = StuckState(game, 0, "move", 0, "first", 2)
    assert check_start(game, moved) == game.from_position("0 2 0 first")
    # a chance node of a sound game is a fine start
    race = DiceRace()
    assert check_start(race, race.initial_state()) == race.initial_state()


# --- dispersal's history --------------------------------------------------------------------------

CYCLE = ["a1-b2", "a4-b4", "b2-a1", "b4-a4"]
"""Four plies of dispersal that come back to the start."""


def test_dispersal_history_before_the_start_does_not_count() -> None:
    game = get_game("dispersal")
    twice = played(game.initial_state(), CYCLE)  # the start position, seen twice
    assert twice.position() == game.initial_state().position() and twice.outcome() is None
    drawn = played(twice, CYCLE)  # and a third time: drawn, by its history alone
    assert drawn.outcome() is not None and drawn.outcome().reason == "threefold repetition"  # type: ignore[union-attr]
    # a start drawn by its history is a fine start: its position, read afresh, is not
    assert check_start(game, drawn) == game.initial_state()
    assert check_start(game, drawn).outcome() is None
    for start in (twice, drawn):
        players = (Scripted(CYCLE[0::2] * 2), Scripted(CYCLE[1::2] * 2))
        record = Referee(game, players, seed=1, start=start).play()
        (only,) = record.games
        assert only.start == game.initial_state().position()
        # the cycle played once from the start is no repetition yet; twice, it is
        assert [m.move for m in only.moves] == CYCLE * 2
        assert only.outcome is not None and only.outcome.reason == "threefold repetition"
        assert MatchRecord.loads(record.dumps()).replay()[0].result() == record.result
