"""Glicko-2 ratings of people: a rating, its deviation and its volatility, updated by results.

Mark Glickman's system as his paper "Example of the Glicko-2 system" (2013) sets it out, step by
step, in pure Python: the ratings are kept on the Glicko scale (1500 for a newcomer, with a
deviation of 350 and a volatility of 0.06), converted to the Glicko-2 scale for the update and
back. The game server rates each finished game between two accounts as a rating period of its
own ([`update`][] with one result), so that a rating moves after every game, as on game sites.

Examples:
    The paper's example: a player of 1500 (deviation 200) beats a player of 1400 (30) and loses
    to players of 1550 (100) and 1700 (300), with τ = 0.5:

    >>> player = Rating(1500, 200, 0.06)
    >>> after = update(player, [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
    ...                         (Rating(1700, 300), 0.0)], tau=0.5)
    >>> round(after.rating, 2), round(after.deviation, 2), round(after.volatility, 6)
    (1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

__all__ = ["DEFAULT_TAU", "SCALE", "Rating", "game_result", "update"]

SCALE = 173.7178
"""The factor between the Glicko scale and the Glicko-2 scale (400 / ln 10)."""
DEFAULT_TAU = 0.5
"""The system constant τ, which bounds how fast the volatility changes (0.3 to 1.2 are usual;
the paper's example uses 0.5)."""
_EPSILON = 0.000001
"""The convergence tolerance of the volatility's iteration (the paper's)."""


@attrs.frozen
class Rating:
    """A player's rating on the Glicko scale: newcomers start at 1500 ± 350, volatility 0.06."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(
    player: Rating, results: Sequence[tuple[Rating, float]], *, tau: float = DEFAULT_TAU
) -> Rating:
    """`player`'s rating after one rating period with `results`: each opponent's rating (as it
    was before the period) and the score against them (1 a win, 0.5 a draw, 0 a loss). Without
    results only the deviation grows (step 6 of the paper).

    Raises:
        ValueError: a score outside 0 to 1, or a deviation or volatility that is not positive.
    """
    if player.deviation <= 0 or player.volatility <= 0:
        raise ValueError(f"a rating's deviation and volatility are positive: {player}")
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        grown = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, grown * SCALE, sigma)
    inverse_v = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score is between 0 and 1, not {score!r}")
        if opponent.deviation <= 0:
            raise ValueError(f"a rating's deviation is positive: {opponent}")
        mu_j = (opponent.rating - 1500.0) / SCALE
        phi_j = opponent.deviation / SCALE
        expected = _expected(mu, mu_j, phi_j)
        g = _g(phi_j)
        inverse_v += g * g * expected * (1.0 - expected)
        delta_sum += g * (score - expected)
    v = 1.0 / inverse_v
    delta = v * delta_sum
    sigma = _volatility(delta, phi, v, sigma, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu = mu + phi * phi * delta_sum
    return Rating(1500.0 + SCALE * mu, SCALE * phi, sigma)


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5 of the paper: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        top = ex * (delta * delta - phi * phi - v - ex)
        bottom = 2.0 * (phi * phi + v + ex) ** 2
        return top / bottom - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(200):  # converges in a few dozen steps at most
        if abs(big_b - big_a) <= _EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def game_result(winner: int | None, seat: int) -> float:
    """The score of seat `seat` (1 or 2) in a match won by `winner` (`None`: a draw).

    Examples:
        >>> game_result(1, 1), game_result(1, 2), game_result(None, 2)
        (1.0, 0.0, 0.5)
    """
    if winner is None:
        return 0.5
    return 1.0 if winner == seat else 0.0
