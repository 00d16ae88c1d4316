"""A first bot: it wins at once when it can, else it plays at random."""

import random

from abstractgames import IllegalMoveError, get_game, make_player
from abstractgames.players import Player
from abstractgames.referee import Referee


class FirstWin(Player):
    """Takes a winning move when there is one, else a random move."""

    spec = "firstwin"  # how game records name the bot

    def choose(self, state, rng, time_left=None):
        if state.is_terminal() or state.is_chance():
            raise IllegalMoveError(f"no move to make in {state.position()}")
        for move in state.legal_moves():
            outcome = state.apply(move).outcome()
            if outcome is not None and outcome.winner == state.to_move:
                return move
        return rng.choice(state.legal_moves())


if __name__ == "__main__":
    game = get_game("orderchaos")

    # Order to move, and X@a1 completes a line of five.
    threat = game.from_position("6/6/6/6/OO4/1XXXX1 order")
    print("FirstWin plays", FirstWin().choose(threat, random.Random(0)))

    # Ten games as Order (player 1) against the random bot.
    wins = 0
    for seed in range(10):
        players = (FirstWin(), make_player("random", game))
        record = Referee(game, players, seed=seed).play()
        wins += record.result.winner == 1
    print(f"FirstWin won {wins} of 10 games against random")
