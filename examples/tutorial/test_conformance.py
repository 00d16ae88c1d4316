"""A pytest test per property of a game and of a bot.

Run: pytest test_conformance.py
"""

import pytest

from abstractgames import get_game
from abstractgames.testing import conformance_properties, player_properties

GAME = get_game("orderchaos")  # or your own game, e.g. MyGame()
GAME_PROPERTIES = conformance_properties(GAME, max_examples=20)
BOT = "first_bot.py:FirstWin"  # or your own bot, as on the command line
BOT_PROPERTIES = player_properties(BOT, GAME, max_examples=20)


@pytest.mark.parametrize("name", sorted(GAME_PROPERTIES))
def test_the_game_keeps_the_protocol(name):
    GAME_PROPERTIES[name]()


@pytest.mark.parametrize("name", sorted(BOT_PROPERTIES))
def test_the_bot_keeps_the_player_properties(name):
    BOT_PROPERTIES[name]()
