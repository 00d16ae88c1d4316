"""Glicko-2 (`abstractgames.ratings`) against Glickman's published example, and its edges."""

from __future__ import annotations

import pytest

from abstractgames.ratings import Rating, game_result, update


def test_the_papers_example() -> None:
    """ "Example of the Glicko-2 system": 1500/200/0.06 against 1400/30 (won), 1550/100 (lost),
    1700/300 (lost), tau 0.5, gives 1464.06, 151.52 and 0.05999 (the paper rounds its steps)."""
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    after = update(player, results, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.05)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_one_game_a_period_moves_both_players_the_same_way_apart() -> None:
    winner = update(Rating(), [(Rating(), 1.0)])
    loser = update(Rating(), [(Rating(), 0.0)])
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.deviation < 350 and loser.deviation < 350
    drawn = update(Rating(1600, 80), [(Rating(1400, 80), 0.5)])
    assert drawn.rating < 1600  # a draw against a weaker player costs
    assert update(Rating(1500, 50), []).deviation > 50  # no game: only the doubt grows


def test_scores_and_deviations_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError):
        update(Rating(), [(Rating(), 2.0)])
    with pytest.raises(ValueError):
        update(Rating(1500, 0), [(Rating(), 1.0)])
    assert [game_result(2, 1), game_result(2, 2), game_result(None, 1)] == [0.0, 1.0, 0.5]
