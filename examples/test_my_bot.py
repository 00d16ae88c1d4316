"""A hypothesis property test of your own bot, with the strategies of abstractgames.testing.

Run it with pytest (``pytest examples/test_my_bot.py``) or as a script.
"""

from __future__ import annotations

import random

from custom_bot import CentreBot  # the bot of examples/custom_bot.py
from hypothesis import given, settings
from hypothesis import strategies as st

from abstractgames import State, get_game
from abstractgames.testing import states

GAME = get_game("orderchaos")


@settings(max_examples=200, deadline=None)
@given(states(GAME), st.integers(min_value=0, max_value=2**32))
def test_bot_plays_legal_moves_and_never_misses_a_win(state: State, seed: int) -> None:
    if state.is_terminal():
        return
    before = state.position()
    move = CentreBot().choose(state, random.Random(seed))
    assert move in state.legal_moves()
    assert state.position() == before  # the bot did not change the state
    winning = [
        m
        for m in state.legal_moves()
        if state.apply(m).outcome() is not None and state.apply(m).outcome().winner == state.to_move
    ]  # type: ignore[union-attr]
    if winning:
        assert move in winning


if __name__ == "__main__":
    test_bot_plays_legal_moves_and_never_misses_a_win()
    print("CentreBot passed 200 generated positions")
