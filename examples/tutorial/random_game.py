"""A random game of Order and Chaos; a seed always plays the same game."""

import random

from abstractgames import get_game, random_move

game = get_game("orderchaos")
rng = random.Random(7)
state = game.initial_state()
moves = 0
while state.outcome() is None:
    state = state.apply(random_move(state, rng))
    moves += 1

print(state)
print(*state.describe())
outcome = state.outcome()
print(f"after {moves} moves: {outcome.winner} wins, {outcome.reason}")
