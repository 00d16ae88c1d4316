"""What listings say of the games and players (`abstractgames list`, the web page's forms, the
documentation)."""

from __future__ import annotations

import inspect
import re
from typing import Any

import attrs

from ..players import InvalidPlayerError
from .games import game_entry, get_game
from .players import ArgumentKind, factory_of, option_defaults, player_entry
from .plugins import quoted

__all__ = ["GameInfo", "PlayerInfo", "describe_game", "describe_player"]


@attrs.frozen
class GameInfo:
    """A game as listings show it.

    Attributes:
        name: the registered name.
        title: the game's name for people.
        origin: `"built in"`, `"registered"` or the distribution it comes from.
        roles: the roles in turn order.
        params: each parameter with its default value.
        summary: the first line of the game class's docstring.
    """

    name: str
    title: str
    origin: str
    roles: tuple[str, ...]
    params: dict[str, Any]
    summary: str


@attrs.frozen
class PlayerInfo:
    """A player as listings show it.

    Attributes:
        name: the registered name.
        origin: `"built in"`, `"registered"` or the distribution it comes from.
        options: each option with its default value (`None` for a player that takes its
            argument whole, such as a command).
        summary: the first line of the factory's docstring.
    """

    name: str
    origin: str
    options: dict[str, Any] | None
    summary: str


def _summary(target: Any) -> str:
    """The first paragraph of a docstring as plain text: code marks and cross-references gone."""
    text = (inspect.getdoc(target) or "").strip().split("\n\n")[0].replace("\n", " ")
    return re.sub(r"\[([^\]]+)\]\[[^\]]*\]", r"\1", text).replace("`", "")


def describe_game(name: str) -> GameInfo:
    """What listings say of the game `name` (it is made with its default parameters).

    Raises:
        UnknownGameError: no such game.
        PluginError: a plugin game that cannot be loaded or made.
    """
    entry = game_entry(name)
    game = get_game(name)
    return GameInfo(
        name=name,
        title=game.title or name,
        origin=entry.origin,
        roles=tuple(game.roles),
        params=dict(game.params),
        summary=_summary(type(game)),
    )


def describe_player(name: str) -> PlayerInfo:
    """What listings say of the player `name`.

    Raises:
        InvalidPlayerError: no such player.
        PluginError: a plugin player that cannot be loaded.
    """
    entry = player_entry(name)
    if entry is None:
        raise InvalidPlayerError(f"unknown player {quoted(name)}")
    factory = factory_of(entry, name)
    options = None
    if entry.argument in (ArgumentKind.OPTIONS, ArgumentKind.CLASS):
        options = option_defaults(factory)
    return PlayerInfo(name=name, origin=entry.origin, options=options, summary=_summary(factory))
