"""Play one seeded random game of each registered game and print how it ended.

Run: python examples/random_game.py
"""

from __future__ import annotations

import random

from abstractgames import available_games, get_game, random_move


def main(seed: int = 1) -> None:
    for name in available_games():
        state = get_game(name).initial_state()
        rng = random.Random(seed)
        plies = 0
        while (outcome := state.outcome()) is None:
            state = state.apply(random_move(state, rng))
            plies += 1
        print(f"{name:<12} {plies:>4} plies  winner={outcome.winner}  ({outcome.reason})")


if __name__ == "__main__":
    main()
