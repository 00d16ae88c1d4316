"""Write your own bot and seat it in the referee: a one-ply bot for Order and Chaos.

Run: python examples/custom_bot.py
"""

from __future__ import annotations

import random

from abstractgames import IllegalMoveError, Move, State, get_game, make_player
from abstractgames.grid import grid_of
from abstractgames.players import Player
from abstractgames.referee import Referee


class CentreBot(Player):
    """Wins at once when it can; otherwise plays the empty square nearest the centre."""

    spec = "centre"

    def choose(self, state: State, rng: random.Random, time_left: float | None = None) -> Move:
        if state.is_terminal() or state.is_chance():
            raise IllegalMoveError(f"no move to choose in {state.position()}")
        moves = state.legal_moves()
        for move in moves:
            outcome = state.apply(move).outcome()
            if outcome is not None and outcome.winner == state.to_move:
                return move

        board = grid_of(state)  # square names and indices, files and ranks
        centre_file, centre_rank = (board.width - 1) / 2, (board.height - 1) / 2

        def distance(move: Move) -> float:
            square = board.move_squares(move)[-1]  # where the move puts a piece
            file, rank = board.file(square), board.rank(square)
            return abs(file - centre_file) + abs(rank - centre_rank) + rng.random() / 10

        return min(moves, key=distance)


def main() -> None:
    game = get_game("orderchaos")
    wins = 0
    for seed in range(20):
        record = Referee(game, (CentreBot(), make_player("random", game)), seed=seed).play()
        assert record.result is not None
        wins += record.result.winner == 1
    print(f"CentreBot as Order won {wins} of 20 games against random Chaos")


if __name__ == "__main__":
    main()
