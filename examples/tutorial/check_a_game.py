"""Check a whole game against every property of the game protocol."""

from abstractgames import get_game
from abstractgames.testing import check_game

check_game(get_game("orderchaos"), max_examples=20)
print("orderchaos keeps the game protocol")
