"""What listings say of the games and players (`abstractgames list`, the web page's forms, the
documentation).

[`describe_game`][] and [`describe_player`][] import what they describe (a plugin's code too);
[`plugin_game`][] and [`plugin_player`][] say what the installed distributions' metadata says of a
plugin's game or player, without importing its code, so that a listing never runs (nor waits
for) a plugin it was not asked to load.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import attrs

from ..players import InvalidPlayerError
from .games import game_entry, game_plugin, get_game
from .players import ArgumentKind, factory_of, option_defaults, player_entry, player_origin
from .players import _plugins as _player_plugins
from .plugins import Plugin, quoted

__all__ = [
    "GameInfo",
    "PlayerInfo",
    "PluginInfo",
    "describe_game",
    "describe_player",
    "plugin_game",
    "plugin_player",
]


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


@attrs.frozen
class PluginInfo:
    """A plugin's game or player as its distribution's metadata describes it (its code not
    imported).

    Attributes:
        name: the entry point's name, the game's or the player's.
        origin: `"distribution NAME VERSION"`, as in [`GameInfo`][] and [`PlayerInfo`][].
        distribution: the distribution's name (`None` if the metadata does not say).
        version: the distribution's version (`None` if the metadata does not say).
        entry_point: what the entry point names, `"module:attribute"`.
    """

    name: str
    origin: str
    distribution: str | None
    version: str | None
    entry_point: str


def _plugin_info(plugin: Plugin) -> PluginInfo:
    dist = plugin.entry_point.dist
    return PluginInfo(
        name=plugin.name,
        origin=plugin.origin,
        distribution=None if dist is None else dist.name,
        version=None if dist is None else dist.version,
        entry_point=plugin.target,
    )


def plugin_game(name: str) -> PluginInfo | None:
    """What the metadata says of the plugin game `name`, without importing it; `None` when
    `name` is not a plugin's game (built in, registered or unknown)."""
    plugin = game_plugin(name)
    return None if plugin is None else _plugin_info(plugin)


def plugin_player(name: str) -> PluginInfo | None:
    """What the metadata says of the plugin player `name`, without importing it; `None` when
    `name` is not a plugin's player (built in, registered or unknown)."""
    try:
        origin = player_origin(name)
    except InvalidPlayerError:
        return None
    plugin = _player_plugins().get(name)
    if plugin is None or origin != plugin.origin:  # built in or registered
        return None
    return _plugin_info(plugin)


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
