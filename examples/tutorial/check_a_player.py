"""Check two bots, a built-in one and your own, with the player kit."""

from first_bot import FirstWin

from abstractgames.testing import check_player

check_player("greedy", "orderchaos", max_examples=20)
check_player(FirstWin, "entropy:size=5", max_examples=20)
print("greedy and FirstWin keep the player properties")
