"""Tournaments played a round at a time, as people play them: the round robin's rounds, Swiss
pairings and the ranking by points, for any front end that makes its games itself (the game
server's tournaments for people). Pure functions of the players and the finished matches.

- [`round_robin_rounds`][]: every pair of players meets once, by the circle method (Berger
  tables): `n - 1` rounds for an even number `n` of players, `n` rounds for an odd one, where
  each player sits out one round (a pair with `None`). Seat 1 alternates as far as it can.
- [`swiss_pairings`][]: the next round of a Swiss tournament. The players are ranked by points
  (entry order breaking ties), the one ranked lowest who has not had a bye sits out when their
  number is odd, and each player in turn meets the highest-ranked player they have not met, a
  rematch allowed only when no pairing without one exists. Of the two, the one who had seat 1
  less often takes it (the higher ranked, when even).
- [`ranking`][]: the [`Standing`][] of every player, as the arena's report computes it
  ([`ArenaReport.from_matches`][]), ranked by points, byes counted as [`BYE_POINTS`][] in Swiss,
  the Bradley–Terry rating breaking ties.

Examples:
    >>> round_robin_rounds(["a", "b", "c"])
    [[('a', None), ('c', 'b')], [('b', None), ('c', 'a')], [('c', None), ('a', 'b')]]
    >>> swiss_pairings(["a", "b", "c", "d"], [])
    [('a', 'b'), ('c', 'd')]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from .errors import ArenaError
from .report import ArenaReport, MatchSummary, Standing

__all__ = ["BYE_POINTS", "ranking", "round_robin_rounds", "swiss_pairings", "swiss_points"]

BYE_POINTS = 1.0
"""What a bye is worth in a Swiss tournament (a round robin's byes are worth nothing: everyone
has as many)."""
_SEARCH_STEPS = 200_000
"""How many tries the search of a pairing without rematches makes before it allows some."""

Pair = tuple[str, str | None]
"""Two players, in seats 1 and 2; `(player, None)`: the player sits out the round (a bye)."""


def round_robin_rounds(players: Sequence[str]) -> list[list[Pair]]:
    """The rounds of a round robin of `players` (different names), each a list of pairs.

    Raises:
        ArenaError: fewer than two players, or the same one twice.
    """
    _check(players)
    order: list[str | None] = [*players, *([None] if len(players) % 2 else [])]
    size = len(order)
    rounds = []
    for number in range(size - 1):
        pairs: list[Pair] = []
        for board in range(size // 2):
            first, second = order[board], order[size - 1 - board]
            if (number + board) % 2:
                first, second = second, first
            if first is None:
                first, second = second, None
            assert first is not None
            pairs.append((first, second))
        rounds.append(sorted(pairs, key=lambda pair: pair[1] is not None))  # the bye first
        order = [order[0], order[-1], *order[1:-1]]
    return rounds


def swiss_points(
    players: Sequence[str], matches: Iterable[MatchSummary], byes: Iterable[str] = ()
) -> dict[str, float]:
    """Each player's points: 1 a win, 1/2 a draw, [`BYE_POINTS`][] a bye."""
    points = dict.fromkeys(players, 0.0)
    for match in matches:
        for seat, player in enumerate(match.players, start=1):
            points[player] += match.points(seat)
    for player in byes:
        points[player] += BYE_POINTS
    return points


def swiss_pairings(
    players: Sequence[str], matches: Iterable[MatchSummary], byes: Iterable[str] = ()
) -> list[Pair]:
    """The pairs of the next Swiss round of `players` (in entry order), after the finished
    `matches` and the `byes` given so far (a name once for each bye).

    Raises:
        ArenaError: fewer than two players, or the same one twice.
    """
    _check(players)
    played = list(matches)
    had_bye = list(byes)
    points = swiss_points(players, played, had_bye)
    entry = {player: index for index, player in enumerate(players)}
    ranked = sorted(players, key=lambda p: (-points[p], entry[p]))
    met = {frozenset(match.players) for match in played}
    first_seats = Counter(match.players[0] for match in played)
    pairs: list[Pair] = []
    if len(ranked) % 2:
        sitting = min(ranked[::-1], key=lambda p: had_bye.count(p))  # the lowest without one
        ranked.remove(sitting)
        pairs.append((sitting, None))
    found = _pair(ranked, met) or _pair(ranked, set())
    assert found is not None
    for first, second in found:
        if (first_seats[second], entry[second]) < (first_seats[first], entry[first]):
            first, second = second, first
        pairs.append((first, second))
    return pairs


def _pair(ranked: list[str], met: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    """Pairs of all of `ranked`, none of them in `met`, each player with the highest-ranked
    one possible; `None` if there is none (or the search gives up)."""
    steps = 0

    def search(free: list[str]) -> list[tuple[str, str]] | None:
        nonlocal steps
        if not free:
            return []
        first, rest = free[0], free[1:]
        for index, second in enumerate(rest):
            steps += 1
            if steps > _SEARCH_STEPS:
                return None
            if frozenset((first, second)) in met:
                continue
            tail = search(rest[:index] + rest[index + 1 :])
            if tail is not None:
                return [(first, second), *tail]
        return None

    return search(ranked)


def ranking(report: ArenaReport, byes: Mapping[str, int] | None = None) -> list[Standing]:
    """The standings of `report`, ranked by points and, when `byes` are given (Swiss: each
    player's count of byes), by points with the byes'; ties broken by the report's order (its
    Bradley–Terry rating), then by the order of its players."""
    byes = byes or {}
    order = {standing.player: index for index, standing in enumerate(report.standings)}
    return sorted(
        report.standings,
        key=lambda s: (-(s.points + BYE_POINTS * byes.get(s.player, 0)), order[s.player]),
    )


def _check(players: Sequence[str]) -> None:
    if len(players) < 2:
        raise ArenaError("a tournament needs at least two players")
    if len(set(players)) != len(players):
        raise ArenaError("each player plays once in a tournament")
