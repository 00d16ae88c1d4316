"""Watch a bot-versus-bot match as it is played: an observer prints every move as it happens.

Run: python examples/watch_a_match.py [GAME]   (default: orderchaos; try entropy:size=5)
"""

from __future__ import annotations

import sys
import time

from abstractgames import Move, State, make_player, parse_game_spec
from abstractgames.protocol import Match
from abstractgames.records import GameRecord, MatchRecord, MoveRecord
from abstractgames.referee import Observer, Referee


class Commentator(Observer):
    """Prints who plays what, each move with the time it took, each game's end and the result."""

    def __init__(self, names: tuple[str, str]) -> None:
        self.names = names
        self.ply = 0
        self.asked = 0.0

    def game_started(self, record: GameRecord, state: State, match: Match) -> None:
        self.ply = len(record.moves)  # a resumed game starts with its moves so far
        roles = ", ".join(f"{self.names[p - 1]} is {match.role_of(p)}" for p in (1, 2))
        print(f"Game {record.number}: {roles}")

    def turn_started(self, state: State, player: int, clocks: tuple[float | None, ...]) -> None:
        self.asked = time.perf_counter()

    def move_played(self, before: State, move: Move, entry: MoveRecord, after: State) -> None:
        self.ply += 1
        if entry.player is None:  # a chance event, e.g. a draw from Entropy's bag
            print(f"{self.ply:4}. chance   {move}")
            return
        took = (time.perf_counter() - self.asked) * 1000
        print(f"{self.ply:4}. {self.names[entry.player - 1]:<8} {move!s:<6} {took:5.1f} ms")

    def moves_taken_back(self, state: State, count: int) -> None:
        self.ply -= count

    def notice(self, text: str) -> None:
        print(f"      ({text})")

    def game_ended(self, record: GameRecord, state: State, match: Match) -> None:
        outcome, end = state.outcome(), record.ended_by  # by the rules, or resigned, time...
        how = outcome.reason if outcome is not None else end.reason if end is not None else "?"
        print(f"Game {record.number} over after {self.ply} plies: {how}")
        for fact in state.describe():
            print(f"      {fact}")

    def match_ended(self, record: MatchRecord) -> None:
        result = record.result
        assert result is not None
        winner = "a draw" if result.winner is None else f"{self.names[result.winner - 1]} wins"
        print(f"Match: {winner} ({result.reason})")


def main(spec: str = "orderchaos") -> None:
    game = parse_game_spec(spec)
    names = ("greedy", "random")
    players = (make_player(names[0], game), make_player(names[1], game))
    record = Referee(game, players, seed=7, observer=Commentator(names)).play()
    assert record.finished


if __name__ == "__main__":
    main(*sys.argv[1:2])
