"""Games and players from installed distributions: the entry-point groups, read once per process.

A distribution adds a game through the group [`GAME_GROUP`][] and a player through
[`PLAYER_GROUP`][]; an entry point whose name is not a valid name, or is taken already, is
ignored with a [`PluginWarning`][]. What cannot be loaded is a [`PluginError`][] naming the
distribution.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from importlib import metadata
from typing import Any

import attrs

from ..protocol import AbstractGamesError, InvalidParameterError
from ..text import value_excerpt

__all__ = [
    "GAME_GROUP",
    "PLAYER_GROUP",
    "Plugin",
    "PluginError",
    "PluginWarning",
    "check_name",
    "describe_error",
    "outside_code_errors",
    "plugins",
    "quoted",
    "refresh_plugins",
]

GAME_GROUP = "abstractgames.games"
"""The entry-point group through which installed distributions add games."""
PLAYER_GROUP = "abstractgames.players"
"""The entry-point group through which installed distributions add players."""

NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
"""A game's or a player's name."""


class PluginError(AbstractGamesError, ValueError):
    """A game or player from outside (a plugin, a file, a module) that cannot be loaded or made."""


class PluginWarning(UserWarning):
    """A plugin that is ignored (a bad name, a name already taken); the message names it."""


def quoted(value: object) -> str:
    """`repr(value)` for a message: bounded (long enough for a path) and escaped."""
    return value_excerpt(value, 160)


def describe_error(error: BaseException) -> str:
    """`Type: message`, or the type alone."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def check_name(name: str, what: str) -> None:
    """Refuse a name that is not lower-case letters, digits, `_` and `-`, starting with a letter.

    Raises:
        InvalidParameterError: saying so.
    """
    if not isinstance(name, str) or not NAME.match(name):
        raise InvalidParameterError(
            f"invalid {what} name {quoted(name)}: use lower-case letters, digits, _ and -, "
            "starting with a letter"
        )


@contextmanager
def outside_code_errors(what: str) -> Iterator[None]:
    """Turn an unexpected exception of code from outside the library into a [`PluginError`][]."""
    try:
        yield
    except AbstractGamesError:
        raise
    except Exception as error:
        raise PluginError(f"{what} failed: {describe_error(error)}") from error


@attrs.frozen
class Plugin:
    """One entry point of an installed distribution."""

    entry_point: metadata.EntryPoint
    distribution: str

    @property
    def origin(self) -> str:
        """Where it comes from, for listings and messages: `"distribution NAME VERSION"`."""
        return f"distribution {self.distribution}"

    def load(self, what: str) -> Any:
        """The object the entry point names.

        Raises:
            PluginError: its module cannot be imported, or has no such object.
        """
        try:
            return self.entry_point.load()
        except Exception as error:  # a plugin's own bug must not end the program with a traceback
            raise PluginError(
                f"{what} {quoted(self.entry_point.name)} of distribution {self.distribution} "
                f"cannot be loaded from {quoted(self.entry_point.value)}: {describe_error(error)}"
            ) from error


@functools.cache
def plugins(group: str, builtin: Collection[str]) -> dict[str, Plugin]:
    """The entry points of `group` by name; bad names, clashes with `builtin` names and with
    each other are warned about and dropped (read once per process: see [`refresh_plugins`][])."""
    what = "game" if group == GAME_GROUP else "player"
    found: dict[str, Plugin] = {}
    try:
        points = metadata.entry_points(group=group)
    except Exception as error:  # damaged metadata of some installed distribution
        _warn(f"the installed {what}s from plugins cannot be read: {describe_error(error)}")
        return found
    for point in sorted(points, key=lambda p: (_distribution(p), p.name)):
        plugin = Plugin(point, _distribution(point))
        if not NAME.match(point.name):
            _warn(
                f"{what} {quoted(point.name)} of distribution {plugin.distribution} is ignored: "
                "a name is lower-case letters, digits, _ and -, starting with a letter"
            )
        elif point.name in builtin:
            _warn(
                f"{what} {quoted(point.name)} of distribution {plugin.distribution} is ignored: "
                f"{quoted(point.name)} is a built-in {what}"
            )
        elif point.name in found:
            _warn(
                f"{what} {quoted(point.name)} of distribution {plugin.distribution} is ignored: "
                f"distribution {found[point.name].distribution} already has that name"
            )
        else:
            found[point.name] = plugin
    return found


def _distribution(point: metadata.EntryPoint) -> str:
    dist = point.dist
    return "(unknown)" if dist is None else f"{dist.name} {dist.version}"


def _warn(message: str) -> None:
    warnings.warn(message, PluginWarning, stacklevel=3)


def refresh_plugins() -> None:
    """Read the installed distributions' entry points again (they are read once per process)."""
    plugins.cache_clear()
