"""What the learning environments share: the game they run and its action mask.

[`learning_game`][] makes the game of an environment from a name, a spec or a game, and refuses
one without integer actions or observations ([`UnsupportedGameError`][]); [`action_mask`][]
marks a state's legal actions; [`check_seed`][] is what every environment's `reset` accepts as a
seed.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import numpy.typing as npt

from ..protocol import AbstractGamesError, Game, InvalidParameterError, State, UnknownGameError
from ..records import SEED_LIMIT
from ..registry import available_games, get_game
from ..specs import parse_options, split_spec
from ..text import value_excerpt

__all__ = ["InvalidSeedError", "UnsupportedGameError", "action_mask", "check_seed", "learning_game"]


class UnsupportedGameError(AbstractGamesError, ValueError):
    """A game the environments cannot run: it has no integer actions or no observations."""


class InvalidSeedError(InvalidParameterError):
    """A seed an environment's `reset` does not take: not `None` or an integer in
    `0 .. 2**64 - 1`."""


def check_seed(seed: object) -> int | None:
    """`seed` as an `int` (or `None`) if it is a seed of the environments, else raise
    [`InvalidSeedError`][].

    A seed is `None` (a fresh one from the operating system, or the generator goes on) or an
    integer, a numpy one too, from 0 to `2**64 - 1`: Gymnasium and numpy take no negative seed,
    and the library's seeds are below [`SEED_LIMIT`][abstractgames.records.SEED_LIMIT]. Booleans,
    floats and strings are refused, rather than hashed or rounded into some other seed.

    Examples:
        >>> check_seed(7), check_seed(None)
        (7, None)
        >>> check_seed(1.5)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        abstractgames.rl.games.InvalidSeedError: a seed is None or an integer ... not 1.5
    """
    if seed is None:
        return None
    try:
        if isinstance(seed, bool | np.bool_):
            raise TypeError
        number = operator.index(seed)  # type: ignore[arg-type]  # int or numpy integer
    except TypeError:
        number = -1
    if not 0 <= number < SEED_LIMIT:
        raise InvalidSeedError(
            f"a seed is None or an integer from 0 to 2**64 - 1, not {value_excerpt(seed)}"
        )
    return number


def learning_game(game: str | Game, **params: Any) -> Game:
    """The game an environment runs: a name (`"entropy"`), a spec (`"entropy:size=5"`) or a
    [`Game`][abstractgames.Game], with `params` for a name.

    Raises:
        UnknownGameError: no game has that name.
        InvalidParameterError: a parameter the game does not have or rejects, or the same
            parameter in the spec and in `params`.
        UnsupportedGameError: the game has no integer actions or no observations.

    Examples:
        >>> learning_game("entropy:size=5") == learning_game("entropy", size=5)
        True
    """
    if isinstance(game, Game):
        if params:
            raise InvalidParameterError(
                f"parameters {', '.join(sorted(params))} are for a game given by its name, "
                f"not for the game {game.spec}"
            )
        made = game
    elif isinstance(game, str):
        name, option_text = split_spec(game)
        options = parse_options(
            option_text, context=f"game {value_excerpt(game)}", error=InvalidParameterError
        )
        twice = sorted(set(options) & set(params))
        if twice:
            raise InvalidParameterError(
                f"parameter {', '.join(twice)} is given twice: in {value_excerpt(game)} and "
                "as a keyword"
            )
        made = get_game(name, **options, **params)
    else:
        raise UnknownGameError(
            f"a game is a name such as 'orderchaos' or a Game, not {value_excerpt(game)}; "
            f"available games: {', '.join(available_games())}"
        )
    if made.num_distinct_actions <= 0 or not made.observation_shape:
        raise UnsupportedGameError(
            f"{made.spec} has no integer actions or observations (Game.num_distinct_actions, "
            "Game.observation_shape), which the learning environments need"
        )
    return made


def action_mask(state: State) -> npt.NDArray[np.int8]:
    """A new `int8` array of `Game.num_distinct_actions`: 1 for each of
    [`State.legal_actions`][abstractgames.protocol.State.legal_actions], 0 elsewhere (all 0 at the
    end of the game and at a chance node)."""
    mask = np.zeros(state.game.num_distinct_actions, np.int8)
    if state.to_move is not None and not state.is_chance():
        mask[list(state.legal_actions())] = 1
    return mask
