"""What the learning environments share: the game they run and its action mask.

[`learning_game`][] makes the game of an environment from a name, a spec or a game, and refuses
one without integer actions or observations ([`UnsupportedGameError`][]); [`action_mask`][]
marks a state's legal actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..protocol import AbstractGamesError, Game, InvalidParameterError, State, UnknownGameError
from ..registry import available_games, get_game
from ..specs import parse_options, split_spec
from ..text import value_excerpt

__all__ = ["UnsupportedGameError", "action_mask", "learning_game"]


class UnsupportedGameError(AbstractGamesError, ValueError):
    """A game the environments cannot run: it has no integer actions or no observations."""


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
