"""Entropy's match: two games with the roles swapped, won on the Order scores.

The match knows the game by the object it is given (`EntropyGame.new_match` passes itself), so
it needs nothing of the rules but the protocol: a finished game's Order score is in its outcome.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..protocol import Game, Match, MatchError, MatchResult, State, check_seat
from ..text import value_excerpt
from .board import CHAOS, ORDER

if TYPE_CHECKING:
    from .rules import EntropyGame

__all__ = ["EntropyMatch"]


def _entropy_game(instance: Any, attribute: Any, game: Any) -> None:
    if not isinstance(game, Game) or tuple(game.roles) != (CHAOS, ORDER):
        raise ValueError(f"an Entropy match is played in Entropy, not in {value_excerpt(game)}")


@attrs.frozen
class EntropyMatch(Match):
    """A match of two games with the roles swapped; immutable, each event returns a new match.

    Player 1 is Chaos in game 1 and Order in game 2; player 2 the other way round. Each player's
    Order score is compared after both games: the higher wins, equal scores draw. A resignation ends
    the whole match at once, and so does running out of time where time loss forfeits the match
    (correspondence play; in a live match a player out of time keeps playing by [`timeout_move`][]
    instead). The result's `scores` are player 1's and player 2's Order scores (`None` for a game
    not played).

    Attributes:
        game: the game both games are played in (7×7 or 5×5 Entropy).
        time_loss_forfeits: whether running out of time loses the match.
        order_scores: Order's final score of each finished game, in game order.
        forfeited: the player who lost the whole match at once (resigned, out of time where
            that forfeits, …) and why, if any.

    Examples:
        >>> from abstractgames import get_game
        >>> match = EntropyMatch(get_game("entropy"))
        >>> match.role_of(1), match.player_of("order")
        ('chaos', 2)
    """

    _game: EntropyGame = attrs.field(alias="game", validator=_entropy_game)
    time_loss_forfeits: bool = False
    order_scores: tuple[int, ...] = ()
    forfeited: tuple[int, str] | None = None

    @property
    def game(self) -> EntropyGame:
        """The game both games of the match are played in."""
        return self._game

    @property
    def size(self) -> int:
        """The board size of both games."""
        return self._game.size

    @property
    def game_number(self) -> int | None:
        """1 or 2: the game being played, or `None` when the match is over."""
        return None if self.is_over() else len(self.order_scores) + 1

    def role_of(self, seat: int, game_number: int | None = None) -> str:
        """The role (`"chaos"` or `"order"`) of player `seat` in a game (default: the current
        one).

        Raises:
            MatchError: no such player or game, or the match is over and no game is given.
        """
        number = self._number(game_number)
        return CHAOS if (check_seat(seat) == 1) == (number == 1) else ORDER

    def order_score_of(self, seat: int) -> int | None:
        """The Order score of player `seat` (game 2 for player 1, game 1 for player 2), if
        played."""
        index = 1 if check_seat(seat) == 1 else 0
        return self.order_scores[index] if index < len(self.order_scores) else None

    def record_game(self, final: State) -> EntropyMatch:
        """The match after the current game ended in `final` (a finished state of this size).

        Raises:
            MatchError: the match is over, or `final` is not a finished game of this size.
        """
        if self.is_over():
            raise MatchError("the match is over; no further game can be recorded")
        if final.game != self._game:
            raise MatchError(f"{value_excerpt(final)} is not a state of {self.game!r}")
        outcome = final.outcome()
        if outcome is None:
            raise MatchError(f"game {self.game_number} is not over in {final.position()}")
        score = int(outcome.scores[ORDER])
        return attrs.evolve(self, order_scores=(*self.order_scores, score))

    def is_over(self) -> bool:
        """Whether both games are finished, or a player resigned or lost on time."""
        return len(self.order_scores) == 2 or self.forfeited is not None

    def forfeit(self, seat: int, reason: str) -> EntropyMatch:
        """The match after player `seat` lost it at once for `reason`: the other player wins.

        Raises:
            MatchError: the match is already over, or there is no such player.
        """
        self._check_going_on()
        return attrs.evolve(self, forfeited=(check_seat(seat), reason))

    def lose_on_time(self, seat: int) -> EntropyMatch:
        """The match after player `seat` ran out of time where that forfeits the match: they
        lose it.

        Raises:
            MatchError: a live match (there timeout moves are played instead), the match is
                already over, or there is no such player.
        """
        if not self.time_loss_forfeits:
            raise MatchError(
                "in a live match a player out of time keeps playing by timeout moves; only a "
                "match where time loss forfeits (correspondence play) is lost on time"
            )
        return self.forfeit(seat, f"player {check_seat(seat)} ran out of time")

    def result(self) -> MatchResult | None:
        """`None` while the match goes on, else its winner, reason and Order scores."""
        scores = (self.order_score_of(1), self.order_score_of(2))
        if self.forfeited is not None:
            loser, reason = self.forfeited
            return MatchResult(3 - loser, reason, scores)
        if len(self.order_scores) < 2:
            return None
        one, two = self.order_scores[1], self.order_scores[0]
        if one == two:
            return MatchResult(None, f"both players scored {one} as Order", scores)
        winner, loser = (1, 2) if one > two else (2, 1)
        high, low = max(one, two), min(one, two)
        return MatchResult(
            winner, f"player {winner} scored {high} as Order, player {loser} scored {low}", scores
        )

    def _number(self, game_number: int | None) -> int:
        if game_number is None:
            if self.game_number is None:
                raise MatchError("the match is over; name the game (1 or 2)")
            return self.game_number
        if game_number not in (1, 2) or isinstance(game_number, bool):
            raise MatchError(f"a match has games 1 and 2, not {value_excerpt(game_number)}")
        return game_number

    def _check_going_on(self) -> None:
        if self.is_over():
            raise MatchError("the match is already over")
