"""How much a bot's Entropy moves lose against a deeper search, position by position.

Game results are noisy: telling two versions of the search apart by their match points takes
hundreds of matches. This measures each move instead. Positions are taken from seeded self-play
middle games; in each, the bot under test chooses a move, and so does a reference search
(`search:depth=5` for Order, `search:depth=6` for Chaos; `--order-depth` and `--chaos-depth` set
others). Each of the two moves is then valued the same way, by the reference search one ply down,
so that the reference's own choice is the best move by the valuation (as far as its search is
exact):

- an Order slide: the mean, over the colours the bag can give next, of the value of the position
  after the draw to `search:depth=4` as Chaos (one less than Order's reference depth);
- a Chaos placement: the value of the position after it to `search:depth=5` as Order (one less
  than Chaos's reference depth).

The loss of a move is how much worse its value is for the mover than the reference move's, in
Order's points (negative when the bot's move came out better). The mean loss by role, with a 95%
interval, is a paired measure: every bot faces the same positions.

Run (a quick 5×5 check, a few seconds): python examples/entropy_decision_quality.py
The measurement in docs/bots-entropy.md ("Narrow passes"): the search with and without them,
    python examples/entropy_decision_quality.py --size 7 --games 16 \\
        --player search:time=0.1 \\
        --player inprocess:examples/entropy_decision_quality.py:FullWidthsOnly:time=0.1
"""

from __future__ import annotations

import argparse
import random
import statistics

from abstractgames import get_game, make_player, random_move
from abstractgames.players.entropy import EntropySearch
from abstractgames.protocol import Game, Move, State


class FullWidthsOnly(EntropySearch):
    """The search without Order's narrow passes: every iteration at the full widths."""

    def __init__(self, game: Game, time: float = 1.0, depth: int | None = None) -> None:
        super().__init__(game, time=time, depth=depth, narrow_widths=())


def middle_game_positions(game: Game, source: str, games: int, seed: int) -> list[State]:
    """About a quarter of the positions of the middle third of `games` self-play games of
    `source` (placements from a quarter to three quarters of the board), seeds `seed`, …"""
    player = make_player(source, game)
    squares = game.initial_state().size ** 2  # type: ignore[attr-defined]
    found = []
    for k in range(games):
        rng = random.Random(seed + k)
        state = game.initial_state()
        while state.outcome() is None:
            if state.is_chance():
                state = state.apply(random_move(state, rng))
                continue
            placed = state.placements  # type: ignore[attr-defined]
            if squares // 4 <= placed <= 3 * squares // 4 and rng.random() < 0.25:
                found.append(state)
            state = state.apply(player.choose(state, rng))
    return found


class Reference:
    """Values moves by a deeper search, keeping what it found (bots share the positions).

    Order's moves are chosen at `order_depth` plies and valued by Chaos's search one ply less
    after each draw; Chaos's are chosen at `chaos_depth` and valued by Order's one ply less."""

    def __init__(self, game: Game, order_depth: int = 5, chaos_depth: int = 6) -> None:
        if order_depth < 2 or chaos_depth < 2:
            raise ValueError("the reference depths must be at least 2 (a move and a reply)")
        self.order = make_player(f"search:depth={order_depth}", game)
        self.chaos = make_player(f"search:depth={chaos_depth}", game)
        self.chaos_after_order = make_player(f"search:depth={order_depth - 1}", game)
        self.order_after_chaos = make_player(f"search:depth={chaos_depth - 1}", game)
        self.values: dict[tuple[str, str], float] = {}
        self.moves: dict[str, Move] = {}

    def move(self, state: State) -> Move:
        key = state.position()
        if key not in self.moves:
            player = self.order if state.to_move == "order" else self.chaos
            self.moves[key] = player.choose(state, random.Random(7))
        return self.moves[key]

    def value(self, state: State, move: Move) -> float:
        """Order's value of `move` in `state`, one ply down by the reference."""
        key = (state.position(), str(move))
        if key not in self.values:
            after = state.apply(move)
            if after.outcome() is not None:
                value = float(after.outcome().scores["order"])  # type: ignore[union-attr]
            elif after.is_chance():
                total = weight = 0.0
                for draw, probability in after.chance_outcomes():
                    drawn = after.apply(draw)
                    self.chaos_after_order.choose(drawn, random.Random(7))
                    info = self.chaos_after_order.info
                    assert info is not None and info.value is not None
                    total += probability * -info.value  # Chaos's info is Chaos's value
                    weight += probability
                value = total / weight
            else:
                self.order_after_chaos.choose(after, random.Random(7))
                info = self.order_after_chaos.info
                assert info is not None and info.value is not None
                value = info.value
            self.values[key] = value
        return self.values[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5, choices=(5, 7))
    parser.add_argument("--games", type=int, default=2, help="self-play games to draw from")
    parser.add_argument("--source", default="search:depth=2", help="the bot of the self-play games")
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--player", action="append", help="a bot to measure (repeatable)")
    parser.add_argument("--order-depth", type=int, default=5, help="Order's reference depth")
    parser.add_argument("--chaos-depth", type=int, default=6, help="Chaos's reference depth")
    args = parser.parse_args()
    game = get_game("entropy", size=args.size)
    try:
        reference = Reference(game, args.order_depth, args.chaos_depth)
    except ValueError as error:
        parser.error(str(error))
    positions = middle_game_positions(game, args.source, args.games, args.seed)
    for spec in args.player or ["search:depth=1", "search:depth=3"]:
        player = make_player(spec, game)
        losses: dict[str, list[float]] = {"order": [], "chaos": []}
        for index, state in enumerate(positions):
            best = reference.value(state, reference.move(state))
            chosen = reference.value(state, player.choose(state, random.Random(index)))
            role = str(state.to_move)
            losses[role].append(best - chosen if role == "order" else chosen - best)
        for role, found in losses.items():
            if len(found) < 2:
                continue
            mean = statistics.mean(found)
            half = 1.96 * statistics.stdev(found) / len(found) ** 0.5
            print(f"{spec:24} {role:5} {len(found):4} positions  loss {mean:6.3f} ± {half:.3f}")


if __name__ == "__main__":
    main()
