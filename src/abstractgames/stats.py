"""Statistics for tournaments: means with confidence intervals and Elo-style ratings.

Pure Python (no NumPy, no SciPy), so that every figure can be checked by hand:

- [`mean_interval`][]: a sample mean and the half-width of its 95% interval from Student's t
  distribution with `n - 1` degrees of freedom ([`t_quantile`][]).
- [`bradley_terry`][]: maximum-likelihood Bradley–Terry ratings on the Elo scale, a draw
  counting as half a win and half a loss, with one virtual draw between every two players (a
  weak prior that keeps a perfect score finite). The ratings average 0; the 95% error bars are
  ±1.96 standard errors from the inverse of the Fisher information.
- [`elo_difference`][]: the same model for two players, in closed form.

Examples:
    >>> mean, error = mean_interval([1, 2, 3, 4, 5])
    >>> mean, round(error, 4)
    (3.0, 1.9632)
    >>> difference, error = elo_difference(points=3, games=4)
    >>> round(difference, 1), round(error, 1)
    (147.2, 332.3)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import attrs

__all__ = [
    "ELO_PER_LOGIT",
    "Ratings",
    "bradley_terry",
    "elo_difference",
    "mean_interval",
    "normal_quantile",
    "t_quantile",
]

ELO_PER_LOGIT = 400 / math.log(10)
"""Elo points per unit of the logistic scale: a difference of `d` Elo gives the stronger player
an expected score of `1 / (1 + 10 ** (-d / 400))`."""


def normal_quantile(confidence: float = 0.95) -> float:
    """The two-sided critical value of the standard normal distribution (1.95996… for 95%)."""
    return NormalDist().inv_cdf((1 + confidence) / 2)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 1000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return fraction


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def _t_upper_tail(t: float, df: float) -> float:
    """P(T > t) for t >= 0 under Student's t distribution with `df` degrees of freedom."""
    return 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + t * t))


def t_quantile(confidence: float, df: float) -> float:
    """The two-sided critical value of Student's t distribution with `df` degrees of freedom.

    Examples:
        >>> round(t_quantile(0.95, 1), 3), round(t_quantile(0.95, 10), 3)
        (12.706, 2.228)
    """
    if not 0 < confidence < 1 or df <= 0:
        raise ValueError(f"need 0 < confidence < 1 and df > 0, not {confidence!r} and {df!r}")
    tail = (1 - confidence) / 2
    low, high = 0.0, 1.0
    while _t_upper_tail(high, df) > tail:
        low, high = high, high * 2
    for _ in range(200):
        middle = (low + high) / 2
        if _t_upper_tail(middle, df) > tail:
            low = middle
        else:
            high = middle
        if high - low < 1e-13 * high:
            break
    return (low + high) / 2


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float | None]:
    """The mean of `values` and the half-width of its confidence interval (Student's t).

    The half-width is `t(n - 1) * s / sqrt(n)` with `s` the sample standard deviation; it is
    `None` for fewer than two values.

    Raises:
        ValueError: no values.
    """
    n = len(values)
    if n == 0:
        raise ValueError("the mean of no values")
    mean = math.fsum(values) / n
    if n < 2:
        return mean, None
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, t_quantile(confidence, n - 1) * math.sqrt(variance / n)


def elo_difference(
    points: float, games: float, *, virtual_draws: float = 1.0, confidence: float = 0.95
) -> tuple[float, float]:
    """How much stronger a player who scored `points` in `games` is, in Elo, and the error.

    With `v` virtual draws the expected score is `p = (points + v/2) / (games + v)`, the
    difference is `400 log10(p / (1 - p))` and its standard error in logistic units is
    `1 / sqrt((games + v) p (1 - p))` (Bradley–Terry for two players). Returns the difference
    and the half-width of its confidence interval.
    """
    total = games + virtual_draws
    if total <= 0:
        raise ValueError("no games and no virtual draws: the difference is unknown")
    p = (points + virtual_draws / 2) / total
    if not 0 < p < 1:
        raise ValueError(f"a score of {points} in {games} games has no finite Elo difference")
    error = normal_quantile(confidence) / math.sqrt(total * p * (1 - p))
    return ELO_PER_LOGIT * math.log(p / (1 - p)), ELO_PER_LOGIT * error


@attrs.frozen
class Ratings:
    """Bradley–Terry ratings on the Elo scale (they average 0) and their error bars.

    Attributes:
        elo: each player's rating.
        error: the half-width of each rating's confidence interval.
        covariance: the ratings' covariance matrix in logistic units (Elo / `ELO_PER_LOGIT`).
    """

    elo: tuple[float, ...]
    error: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve `matrix @ x = vector` by Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for column in range(n):
        pivot = max(range(column, n), key=lambda r: abs(rows[r][column]))
        if abs(rows[pivot][column]) < 1e-300:
            raise ValueError("singular matrix")
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for r in range(n):
            if r != column:
                factor = rows[r][column] / rows[column][column]
                if factor:
                    rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def _laplacian_inverse(weights: list[list[float]]) -> list[list[float]]:
    """The pseudo-inverse `L+ = (L + J/n)^-1 - J/n` of the weighted graph Laplacian `L`."""
    n = len(weights)
    shifted = [
        [(sum(weights[i]) - weights[i][i] if i == j else -weights[i][j]) + 1 / n for j in range(n)]
        for i in range(n)
    ]
    columns = [_solve(shifted, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[columns[j][i] - 1 / n for j in range(n)] for i in range(n)]


def _log_likelihood(ratings: list[float], points: list[list[float]]) -> float:
    total = 0.0
    for i, row in enumerate(points):
        for j, score in enumerate(row):
            if i != j and score:
                total -= score * math.log1p(math.exp(ratings[j] - ratings[i]))
    return total


def bradley_terry(
    points: Sequence[Sequence[float]],
    games: Sequence[Sequence[float]],
    *,
    virtual_draws: float = 1.0,
    confidence: float = 0.95,
) -> Ratings:
    """Maximum-likelihood Bradley–Terry ratings of players from their results.

    Player `i` beats `j` with probability `1 / (1 + exp(r_j - r_i))`. A draw counts as half
    a win and half a loss, and `virtual_draws` draws are added between every two players. The
    ratings are found by Newton's method (the log-likelihood is concave) and centred on 0; their
    covariance is the pseudo-inverse of the Fisher information, a graph Laplacian with weight
    `n_ij p_ij p_ji` between `i` and `j`.

    Args:
        points: `points[i][j]`: what `i` scored against `j` (wins + draws / 2).
        games: `games[i][j]`: how many games `i` and `j` played (symmetric).
        virtual_draws: the prior; 0 gives the plain maximum likelihood, which is infinite for a
            player who won or lost every game.
        confidence: the coverage of the error bars.

    Raises:
        ValueError: inconsistent input, or ratings that are not finite (without a prior).
    """
    n = len(points)
    if n < 2 or len(games) != n or any(len(r) != n for r in (*points, *games)):
        raise ValueError("give square matrices of points and games for at least two players")
    for i in range(n):
        for j in range(n):
            if i != j and not (
                0 <= points[i][j] <= games[i][j] == games[j][i]
                and math.isclose(points[i][j] + points[j][i], games[i][j], abs_tol=1e-9)
            ):
                raise ValueError(
                    f"players {i} and {j}: {points[i][j]} and {points[j][i]} points "
                    f"in {games[i][j]} games"
                )
    score = [
        [0.0 if i == j else points[i][j] + virtual_draws / 2 for j in range(n)] for i in range(n)
    ]
    played = [[0.0 if i == j else games[i][j] + virtual_draws for j in range(n)] for i in range(n)]
    reached, frontier = {0}, [0]
    while frontier:
        i = frontier.pop()
        for j in range(n):
            if played[i][j] > 0 and j not in reached:
                reached.add(j)
                frontier.append(j)
    if len(reached) < n:
        raise ValueError("some players are not compared to the others: no common scale")
    ratings = [0.0] * n
    likelihood = _log_likelihood(ratings, score)
    for _ in range(200):
        expected = [
            [1 / (1 + math.exp(ratings[j] - ratings[i])) for j in range(n)] for i in range(n)
        ]
        gradient = [
            math.fsum(score[i][j] - played[i][j] * expected[i][j] for j in range(n) if j != i)
            for i in range(n)
        ]
        weights = [
            [played[i][j] * expected[i][j] * expected[j][i] for j in range(n)] for i in range(n)
        ]
        try:
            inverse = _laplacian_inverse(weights)
        except ValueError:
            inverse = []
        if not inverse or max(map(abs, ratings)) > 50:
            raise ValueError("the ratings are not finite: a player won or lost every game")
        step = [math.fsum(inverse[i][j] * gradient[j] for j in range(n)) for i in range(n)]
        size = 1.0
        while True:
            trial = [r + size * s for r, s in zip(ratings, step, strict=True)]
            trial_likelihood = _log_likelihood(trial, score)
            if trial_likelihood >= likelihood or size < 1e-9:
                break
            size /= 2
        ratings, likelihood = trial, trial_likelihood
        if max(map(abs, step)) * size < 1e-12:
            break
    expected = [[1 / (1 + math.exp(ratings[j] - ratings[i])) for j in range(n)] for i in range(n)]
    weights = [[played[i][j] * expected[i][j] * expected[j][i] for j in range(n)] for i in range(n)]
    covariance = _laplacian_inverse(weights)
    z = normal_quantile(confidence)
    mean = math.fsum(ratings) / n
    return Ratings(
        elo=tuple(ELO_PER_LOGIT * (r - mean) for r in ratings),
        error=tuple(ELO_PER_LOGIT * z * math.sqrt(max(covariance[i][i], 0.0)) for i in range(n)),
        covariance=tuple(tuple(row) for row in covariance),
    )
