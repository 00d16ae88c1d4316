"""Order and Chaos solved by the pairing route: the figures of docs/orderchaos-solved.md.

Prints, as JSON on stdout: the time to solve the empty board by the pairing route (the centre
game solved and its strategy walked, in this fresh process), the certificate's size and
entries, the time to verify it (read, the geometry, the walk, the closing lemma), and the
worst case of the `perfect` player: the game in which Chaos fills the rim first (each end
answered) and then plays, in the centre, the replies the strategy takes longest to beat, with
the number of Order moves it takes (the bound from the certificate and the pairing is the
centre strategy's longest line plus one answer for each of the ten pairs).

Usage:
    python benchmarks/orderchaos_perfect.py [--certificate root.cert]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from functools import cache
from typing import Any

from abstractgames import get_game, make_player
from abstractgames.orderchaos import OrderChaosState
from abstractgames.solvers import orderchaos as solver
from abstractgames.solvers.orderchaos_certificate import check_centre_certificate, decode

GAME = get_game("orderchaos")


@cache
def _longest(key: int) -> int:
    """The most Order moves the centre strategy takes from the canonical board `key`."""
    strategy = solver.centre_strategy()
    assert strategy is not None
    code = strategy.strategy[key]
    x, o = key & 0xFFFF, key >> 16
    bit = 1 << (code >> 1)
    x, o = (x, o | bit) if code & 1 else (x | bit, o)
    if solver._centre_won(x, o):
        return 1
    return 1 + max(_longest(solver.centre_key(cx, co)) for cx, co in solver._centre_replies(x, o))


def _centre_value(state: OrderChaosState) -> int:
    """The most Order moves the centre strategy still takes, Chaos to move in the centre."""
    cx, co = solver._centre_of(state.x, state.o)
    return max(
        (_longest(solver.centre_key(x, o)) for x, o in solver._centre_replies(cx, co)), default=0
    )


def worst_case_game() -> list[str]:
    """The moves of a game `perfect` (Order) wins as late as the bound allows."""
    perfect = make_player("perfect", GAME)
    rng = random.Random(0)  # unused by the strategy: its moves depend on the position alone
    state: OrderChaosState = GAME.initial_state()
    moves: list[str] = []

    def order_moves() -> None:
        nonlocal state
        move = perfect.choose(state, rng)
        moves.append(str(move))
        state = state.apply(move)

    order_moves()

    def fill_rim(state: OrderChaosState, pairs: list[tuple[int, int]]) -> list[str] | None:
        """Chaos plays one end of each pair left, Order answers, and no five arises."""
        if not pairs:
            return []
        for a, b in pairs:
            for end in (a, b):
                for symbol in "XO":
                    after = state.apply(solver.Placement(symbol, end))
                    if after.outcome() is not None:
                        continue
                    answer = perfect.choose(after, rng)
                    answered = after.apply(answer)
                    if answered.outcome() is not None:
                        continue
                    rest = fill_rim(answered, [p for p in pairs if p != (a, b)])
                    if rest is not None:
                        return [f"{symbol}@{solver.GRID.names[end]}", str(answer), *rest]
        return None

    rim = fill_rim(state, list(solver._RIM_PAIRS))
    assert rim is not None
    for move in rim:
        state = state.apply(move)
    moves += rim
    while state.outcome() is None:  # the centre: Chaos's longest resistance
        best: tuple[int, int, str] | None = None
        for square in solver._CENTRE_SQUARES:
            if (state.x | state.o) >> square & 1:
                continue
            for symbol in "XO":
                after = state.apply(solver.Placement(symbol, square))
                if after.outcome() is not None:
                    continue
                cx, co = solver._centre_of(after.x, after.o)
                if solver._centre_won(cx, co):
                    continue
                value = _longest(solver.centre_key(cx, co))
                reply = after.apply(perfect.choose(after, rng))
                quiet = reply.outcome() is None or value == 1
                if best is None or (value, quiet) > best[:2]:
                    best = (value, quiet, f"{symbol}@{solver.GRID.names[square]}")
        assert best is not None
        moves.append(best[2])
        state = state.apply(best[2])
        order_moves()
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--certificate", help="also write the certificate to this file")
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    started = time.perf_counter()
    solution = solver.solve(GAME.initial_state(), 18)
    proof = solution.proof
    assert isinstance(proof, solver.PairingProof) and proof.centre is not None
    assert solution.certificate is not None
    figures["solve_seconds"] = round(time.perf_counter() - started, 2)
    figures["centre_positions_visited"] = solution.nodes
    started = time.perf_counter()
    data = solution.certificate()
    figures["certificate_seconds"] = round(time.perf_counter() - started, 2)
    figures["certificate_bytes"] = len(data)
    figures["certificate_entries"] = len(proof.centre.strategy)
    if args.certificate:
        with open(args.certificate, "wb") as handle:
            handle.write(data)
    started = time.perf_counter()
    report = check_centre_certificate(decode(data), GAME)
    figures["verify_seconds"] = round(time.perf_counter() - started, 2)
    figures["verify_positions"] = report.positions
    figures["centre_moves"] = report.longest
    figures["bound_order_moves"] = report.within
    game = worst_case_game()
    figures["worst_case_order_moves"] = (len(game) + 1) // 2
    figures["worst_case_game"] = " ".join(game)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
