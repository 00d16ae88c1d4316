"""The generic players, made for any game from what its
[`GameEntry`][abstractgames.registry.GameEntry] gives (`greedy`, `mc`, `search`), and the hint
a person asks for, which every front end shows.
"""

from __future__ import annotations

import random

import attrs

from ..players import InvalidPlayerError, Player, SearchInfo
from ..protocol import AbstractGamesError, Game, Move, State
from .games import evaluation_for, search_factory, vector_for
from .plugins import describe_error, quoted

__all__ = [
    "DEFAULT_SEARCH_TIME",
    "HINT_SECONDS",
    "MAX_HINT_SECONDS",
    "MAX_SEARCH_TIME",
    "Hint",
    "NoHint",
    "greedy_player",
    "hint",
    "mc_player",
    "search_player",
]

DEFAULT_SEARCH_TIME = 1.0
"""Seconds per move of the `search` player when neither `time` nor `depth` is given."""
MAX_SEARCH_TIME = 86_400.0
"""The longest time per move the `search` player takes (a day)."""
HINT_SECONDS = 1.0
"""The search bot's thinking time for a hint, unless the person asks for another."""
MAX_HINT_SECONDS = 60.0
"""The longest a hint may think."""
_LEAST_HINT_SECONDS = 0.05


def greedy_player(game: Game) -> Player:
    """The greedy player: one ply of look-ahead with the game's evaluation."""
    from ..players.greedy import GreedyPlayer

    return GreedyPlayer(game, evaluation_for(game))


def mc_player(game: Game, simulations: int = 1024) -> Player:
    """The Monte Carlo player: `simulations` random games per move, shared among the moves,
    through the game's batched simulator (flat Monte Carlo; see [`abstractgames.players.mc`][])."""
    if (
        isinstance(simulations, bool)
        or not isinstance(simulations, int)
        or not 1 <= simulations <= 10**7
    ):
        raise InvalidPlayerError(
            f"mc option simulations={quoted(simulations)} must be a whole number from 1 to 10000000"
        )
    factory = vector_for(game)
    if factory is None:
        raise InvalidPlayerError(f"there is no batched simulator for {quoted(game.name)}")
    from ..players.mc import MonteCarloPlayer

    return MonteCarloPlayer(game, factory, simulations)


def search_player(
    game: Game, time: float = DEFAULT_SEARCH_TIME, depth: int | None = None
) -> Player:
    """The search player: the game's search bot with a time budget per move or a fixed depth.

    `time` is seconds per move, more than 0 and at most `MAX_SEARCH_TIME` (a day; default 1.0);
    `depth` a fixed search depth in plies instead, from 1 to the game's `max_length`.
    """
    if (
        isinstance(time, bool)
        or not isinstance(time, int | float)
        or not 0 < time <= MAX_SEARCH_TIME  # also refuses NaN
    ):
        raise InvalidPlayerError(
            f"search option time={quoted(time)} must be a number of seconds above 0 and at most "
            f"{MAX_SEARCH_TIME:g}"
        )
    if depth is not None and (
        isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= game.max_length
    ):
        raise InvalidPlayerError(
            f"search option depth={quoted(depth)} must be a whole number from 1 to "
            f"{game.max_length}"
        )
    factory = search_factory(game)
    if factory is None:
        raise InvalidPlayerError(f"there is no search player for {quoted(game.name)}")
    player: Player = factory(game, time=float(time), depth=depth)
    return player


class NoHint(AbstractGamesError):
    """A hint cannot be given; the message says why (`"no hint: ..."`)."""


@attrs.frozen
class Hint:
    """What the search bot would play, as a learning aid (nothing is recorded).

    Attributes:
        move: the move.
        info: what its search found, if it says.
        seconds: the time it was given to think.
    """

    move: Move
    info: SearchInfo | None
    seconds: float

    @property
    def summary(self) -> str:
        """What the search found, in words (empty if it says nothing)."""
        return "" if self.info is None else self.info.summary()


def hint(state: State, seconds: float = HINT_SECONDS, *, time_left: float | None = None) -> Hint:
    """What the game's search bot plays in `state`, thinking `seconds`.

    With `time_left` (the clock of the person asking) the hint takes at most a quarter of it
    (at least 0.05 s): the hint's thinking time is the person's. A bot's own failure (a
    plugin's search, say) is a [`NoHint`][], never a crash of the game asking.

    Raises:
        NoHint: the game has no search bot, or it failed.
        ValueError: `seconds` is not above 0 and at most [`MAX_HINT_SECONDS`][].

    Examples:
        >>> from abstractgames import get_game
        >>> found = hint(get_game("orderchaos").initial_state(), 0.05)
        >>> found.info is not None and found.info.depth >= 1
        True
    """
    if not 0 < seconds <= MAX_HINT_SECONDS:  # NaN too
        raise ValueError(f"a hint thinks more than 0 and at most {MAX_HINT_SECONDS:g} seconds")
    if time_left is not None:
        seconds = max(_LEAST_HINT_SECONDS, min(seconds, time_left / 4))
    try:
        bot = search_player(state.game, time=seconds)
    except AbstractGamesError as error:
        raise NoHint(f"no hint: {error}") from None
    try:
        move = bot.choose(state, random.Random(0), None)
    except Exception as error:  # a plugin's bot: a hint must not end the game
        raise NoHint(f"no hint: the search bot failed ({describe_error(error)})") from None
    finally:
        bot.close()
    return Hint(move, bot.info, seconds)
