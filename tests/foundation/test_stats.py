"""The tournament statistics against figures worked out by hand (and printed tables)."""

from __future__ import annotations

import math

import pytest

from abstractgames.stats import (
    ELO_PER_LOGIT,
    bradley_terry,
    elo_difference,
    mean_interval,
    normal_quantile,
    t_quantile,
)

Z = 1.959963984540054  # the 97.5% point of the standard normal distribution


@pytest.mark.parametrize(
    ("df", "table"),
    [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423), (100, 1.9840)],
)
def test_t_quantiles_match_the_printed_table(df: int, table: float) -> None:
    assert t_quantile(0.95, df) == pytest.approx(table, abs=5e-5)


def test_t_quantiles_approach_the_normal_and_other_confidences() -> None:
    assert normal_quantile() == pytest.approx(Z, abs=1e-12)
    assert t_quantile(0.95, 10**7) == pytest.approx(Z, abs=1e-5)
    assert t_quantile(0.99, 10) == pytest.approx(3.1693, abs=5e-5)
    assert t_quantile(0.90, 4) == pytest.approx(2.1318, abs=5e-5)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        t_quantile(0.95, 0)


def test_mean_interval_by_hand() -> None:
    # mean 3, sample variance (4 + 1 + 0 + 1 + 4) / 4 = 2.5, t(4) = 2.7764: 2.7764 * sqrt(2.5 / 5)
    mean, error = mean_interval([5, 1, 4, 2, 3])
    assert mean == 3
    assert error == pytest.approx(2.7764451 * math.sqrt(0.5), rel=1e-6)
    # 10 and 20: mean 15, s = sqrt(50), t(1) = 12.7062: 12.7062 * sqrt(50 / 2) = 63.531
    assert mean_interval([10, 20]) == (15, pytest.approx(63.531, abs=1e-3))
    assert mean_interval([7, 7, 7]) == (7, 0)
    assert mean_interval([42]) == (42, None)
    with pytest.raises(ValueError):
        mean_interval([])


def test_elo_difference_by_hand() -> None:
    # 3 points of 4, one virtual draw: p = 3.5 / 5 = 0.7; 400 log10(0.7 / 0.3) = 147.19;
    # standard error 1 / sqrt(5 * 0.7 * 0.3) = 0.97590 logistic units = 169.54 Elo
    difference, error = elo_difference(3, 4)
    assert difference == pytest.approx(400 * math.log10(7 / 3))
    assert difference == pytest.approx(147.19, abs=0.01)
    assert error == pytest.approx(Z * 169.54, abs=0.05)
    # a perfect 10 of 10 stays finite: p = 10.5 / 11
    assert elo_difference(10, 10)[0] == pytest.approx(400 * math.log10(10.5 / 0.5))
    assert elo_difference(5, 10) == (0, pytest.approx(Z * ELO_PER_LOGIT / math.sqrt(11 * 0.25)))
    # without the prior: plain logistic Elo of the score, and a perfect score has none
    assert elo_difference(3, 4, virtual_draws=0)[0] == pytest.approx(400 * math.log10(3))
    with pytest.raises(ValueError):
        elo_difference(4, 4, virtual_draws=0)


def test_two_players_bradley_terry_is_the_elo_difference() -> None:
    ratings = bradley_terry([[0, 3], [1, 0]], [[0, 4], [4, 0]])
    difference, error = elo_difference(3, 4)
    assert ratings.elo == pytest.approx((difference / 2, -difference / 2))
    # r1 = d / 2 has half the standard error of d
    assert ratings.error == pytest.approx((error / 2, error / 2))
    assert ratings.covariance[0][0] == pytest.approx(1 / (4 * 5 * 0.7 * 0.3))


def test_draws_count_half() -> None:
    # 2 wins, 2 draws, 0 losses is 3 points of 4, like 3 wins and a loss
    ratings = bradley_terry([[0, 3], [1, 0]], [[0, 4], [4, 0]])
    with_draws = bradley_terry([[0, 2 + 1], [0 + 1, 0]], [[0, 4], [4, 0]])
    assert with_draws == ratings
    only_draws = bradley_terry([[0, 2], [2, 0]], [[0, 4], [4, 0]])
    assert only_draws.elo == pytest.approx((0, 0), abs=1e-9)


def test_three_players_by_hand() -> None:
    """A beats B 5.5 of 7, B beats C 5.5 of 7, A beats C 8.5 of 9; one virtual draw each.

    With the draw: A-B 6 of 8 (p = 3/4), B-C 6 of 8, A-C 9 of 10 (p = 9/10). The ratings
    (ln 3, 0, -ln 3) give exactly these expectations (3/4, 3/4 and 9/10), so they are the
    maximum: A and C are 400 log10(3) = 190.85 Elo from B.

    The Fisher information is the Laplacian of a network with conductances 8 (3/4)(1/4) = 1.5
    (A-B, B-C) and 10 (9/10)(1/10) = 0.9 (A-C). Resistances: R_AB = R_BC = 1 / (1.5 + 1 / (1/0.9
    + 1/1.5)) = 1 / 2.0625, R_AC = 1 / (0.9 + 0.75) = 1 / 1.65. The variance of a rating
    centred on the mean is (L+)_ii = (sum_j R_ij) / 3 - (sum of all R) / 9.
    """
    points = [[0, 5.5, 8.5], [1.5, 0, 5.5], [0.5, 1.5, 0]]
    games = [[0, 7, 9], [7, 0, 7], [9, 7, 0]]
    ratings = bradley_terry(points, games)
    elo = 400 * math.log10(3)
    assert ratings.elo == pytest.approx((elo, 0, -elo), abs=1e-9)
    r_ab, r_ac = 1 / 2.0625, 1 / 1.65
    total = 2 * r_ab + r_ac
    var_a = (r_ab + r_ac) / 3 - total / 9
    var_b = (2 * r_ab) / 3 - total / 9
    assert ratings.covariance[0][0] == pytest.approx(var_a)
    assert ratings.covariance[1][1] == pytest.approx(var_b)
    assert var_a == pytest.approx(0.188552, abs=1e-6) and var_b == pytest.approx(4 / 27)
    assert ratings.error == pytest.approx(
        [Z * ELO_PER_LOGIT * math.sqrt(v) for v in (var_a, var_b, var_a)]
    )


def test_a_cycle_rates_everyone_equal() -> None:
    """A beats B, B beats C, C beats A, 2-0 each: all equal. With the virtual draw every pair has
    3 games at p = 1/2, weight w = 3/4; the Laplacian w (3I - J) has the pseudo-inverse
    (I - J/3) / (3w), so each rating's variance is 2 / (9w) = 8/27."""
    points = [[0, 2, 0], [0, 0, 2], [2, 0, 0]]
    games = [[0, 2, 2], [2, 0, 2], [2, 2, 0]]
    ratings = bradley_terry(points, games)
    assert ratings.elo == pytest.approx((0, 0, 0), abs=1e-9)
    assert ratings.error == pytest.approx((Z * ELO_PER_LOGIT * math.sqrt(8 / 27),) * 3)


def test_the_maximum_likelihood_solves_the_score_equations() -> None:
    points = [[0, 7, 3, 9], [3, 0, 4, 6], [5, 4, 0, 2.5], [1, 4, 5.5, 0]]
    games = [[0, 10, 8, 10], [10, 0, 8, 10], [8, 8, 0, 8], [10, 10, 8, 0]]
    ratings = bradley_terry(points, games)
    assert sum(ratings.elo) == pytest.approx(0, abs=1e-9)
    r = [e / ELO_PER_LOGIT for e in ratings.elo]
    for i in range(4):
        expected = sum((games[i][j] + 1) / (1 + math.exp(r[j] - r[i])) for j in range(4) if j != i)
        assert expected == pytest.approx(sum(points[i]) + 1.5)


def test_bradley_terry_rejects_what_it_cannot_rate() -> None:
    with pytest.raises(ValueError, match="not finite"):
        bradley_terry([[0, 4], [0, 0]], [[0, 4], [4, 0]], virtual_draws=0)
    with pytest.raises(ValueError, match="points"):
        bradley_terry([[0, 5], [0, 0]], [[0, 4], [4, 0]])
    with pytest.raises(ValueError):
        bradley_terry([[0]], [[0]])
    with pytest.raises(ValueError, match="not compared"):
        bradley_terry(
            [[0, 1, 0], [1, 0, 0], [0, 0, 0]], [[0, 2, 0], [2, 0, 0], [0, 0, 0]], virtual_draws=0
        )
