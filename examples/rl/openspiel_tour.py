"""A tour of our games in OpenSpiel: load by name, play, search with its MCTS."""

import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from abstractgames import get_game, make_player
from abstractgames.rl import openspiel

print(openspiel.register())

# Load by name, with the game's own parameters.
game = pyspiel.load_game("abstractgames_entropy(size=5)")
print(game, game.num_distinct_actions(), game.max_chance_outcomes())
print(game.get_type().chance_mode, game.observation_tensor_shape())

# A random game through OpenSpiel's API; `.state` is our own state at every step.
rng = np.random.RandomState(1)
state = game.new_initial_state()
while not state.is_terminal():
    if state.is_chance_node():
        actions, probabilities = zip(*state.chance_outcomes(), strict=True)
        action = rng.choice(actions, p=probabilities)
    else:
        action = rng.choice(state.legal_actions())
    state.apply_action(action)
print(state.returns(), state.state.returns(), state.state.outcome().reason)

# OpenSpiel's own MCTS, from a position of ours.
ours = get_game("orderchaos").initial_state().apply("X@c3")
wrapped = openspiel.openspiel_state(ours)
bot = mcts.MCTSBot(
    wrapped.get_game(),
    uct_c=2,
    max_simulations=200,
    evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(2)),
    random_state=np.random.RandomState(2),
)
action = bot.step(wrapped)
print(wrapped.action_to_string(wrapped.current_player(), action))

# The same search as a player of ours.
player = make_player("openspiel-mcts:simulations=200", ours.game)
print(player.choose(ours, random.Random(3)))
