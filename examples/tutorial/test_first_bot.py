"""Tests of the first bot: run pytest test_first_bot.py"""

import random

from first_bot import FirstWin
from hypothesis import given, settings

from abstractgames import get_game
from abstractgames.testing import check_player, states

GAME = get_game("orderchaos")


def wins(state, role):
    outcome = state.outcome()
    return outcome is not None and outcome.winner == role


def test_firstwin_keeps_the_player_properties():
    check_player(FirstWin, GAME, max_examples=20)


@settings(max_examples=50, deadline=None)
@given(states(GAME))
def test_firstwin_never_misses_a_win_in_one(state):
    if state.is_terminal():
        return
    move = FirstWin().choose(state, random.Random(0))
    role = state.to_move
    winning = [m for m in state.legal_moves() if wins(state.apply(m), role)]
    if winning:
        assert move in winning
