"""Watch a match: an observer prints every move, then the result."""

from first_bot import FirstWin

from abstractgames import get_game, make_player
from abstractgames.referee import Observer, Referee


class PrintMoves(Observer):
    """Prints every move as the referee plays it, then the result."""

    def game_started(self, record, state, match):
        self.moves = record.moves  # the record grows with the game

    def move_played(self, before, move, entry, after):
        print(f"{len(self.moves)}. {before.to_move} {move}")

    def match_ended(self, record):
        print(f"player {record.result.winner} wins: {record.result.reason}")


game = get_game("orderchaos")
players = (FirstWin(), make_player("random", game))
Referee(game, players, seed=6, observer=PrintMoves()).play()
