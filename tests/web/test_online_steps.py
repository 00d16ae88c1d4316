"""The game server's step (`web.online._Step`): a stored match advanced by the match engine."""

from __future__ import annotations

import random

from abstractgames import Move, State, get_game
from abstractgames.players import Player
from abstractgames.records import MatchRecord
from abstractgames.web.online import Action, _Step


class Follower(Player):
    """A bot that follows the game through the hooks and checks it was told every ply."""

    spec = "follower"

    def __init__(self) -> None:
        self.told: State | None = None

    def game_started(self, seat: int, game_number: int, start: State) -> None:
        self.told = start

    def move_played(self, move: Move, state: State) -> None:
        self.told = state

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        assert self.told is not None and self.told.position() == state.position()
        return state.legal_moves()[0]


def test_a_bot_is_told_every_ply_up_to_its_turn_chance_draws_included() -> None:
    game = get_game("entropy")
    record = MatchRecord(game.name, game.params, ("human", "follower"), seed=3)
    step = _Step(game, record.dumps(), None)  # the first draw made: player 1 places it
    assert step.waiting is not None and step.waiting[0] == 1
    placed = str(step.waiting[1].legal_moves()[0])
    step = _Step(game, step.record.dumps(), None, Action(1, "move", placed))
    assert step.waiting is not None and step.waiting[0] == 2  # Order's turn, after no draw
    bot = Follower()
    step = _Step(game, step.record.dumps(), None, Action(2, "bot"), bot=bot)
    assert step.moved is not None
    assert step.waiting is not None and step.waiting[0] == 1
    assert [entry.player for entry in step.record.games[0].moves] == [None, 1, 2, None]
    assert bot.told is not None and bot.told.position() == step.state.position()
