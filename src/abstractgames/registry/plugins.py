"""Games and players from installed distributions: the entry-point groups, read once per process.

A distribution adds a game through the group [`GAME_GROUP`][] and a player through
[`PLAYER_GROUP`][]; an entry point whose name is not a valid name, or is taken already, is
ignored with a [`PluginWarning`][]. Reading the groups reads the distributions' metadata only: a
plugin's code is imported when its game or player is asked for by name ([`Plugin.load`][]).

What cannot be loaded is a [`PluginError`][] naming the distribution, whatever the import raised:
an exception, but also `SystemExit` (a plugin calling `sys.exit`), `KeyboardInterrupt` raised by
the plugin's own code, `GeneratorExit`. A Ctrl-C (or SIGTERM, SIGHUP) that arrives while the
plugin is imported still stops the program: its `KeyboardInterrupt` goes on (see
[`Plugin.load`][]).
"""

from __future__ import annotations

import functools
import re
import signal
import threading
import warnings
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any

import attrs

from ..interrupts import STOP_SIGNALS, Terminated
from ..protocol import AbstractGamesError, InvalidParameterError
from ..text import value_excerpt

if TYPE_CHECKING:
    from importlib import metadata

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
    """The distribution's name and version, `"NAME VERSION"` (`"(unknown)"` if not known)."""

    @property
    def name(self) -> str:
        """The entry point's name: the game's or the player's."""
        return self.entry_point.name

    @property
    def target(self) -> str:
        """What the entry point names, `"module:attribute"` (read from the metadata)."""
        return self.entry_point.value

    @property
    def origin(self) -> str:
        """Where it comes from, for listings and messages: `"distribution NAME VERSION"`."""
        return f"distribution {self.distribution}"

    def load(self, what: str) -> Any:
        """The object the entry point names, its module imported (once per process).

        Whatever the import raises is a [`PluginError`][] naming the distribution and its
        version: an exception, `SystemExit` (the plugin called `sys.exit`), a `KeyboardInterrupt`
        the plugin's code raised itself. A `KeyboardInterrupt` is the person's, and goes on,
        when a SIGINT, SIGTERM or SIGHUP handler ran during the import (in the main thread,
        where Python runs them; in another thread no signal can raise one); whatever else the
        import ends with after such a signal is that signal's interrupt
        ([`Terminated`][abstractgames.interrupts.Terminated] for SIGTERM and SIGHUP). What no
        process can catch in itself, such as `os._exit` or a crash of the interpreter, ends it.

        Raises:
            PluginError: its module cannot be imported, or has no such object.
            KeyboardInterrupt: a signal arrived while its module was imported.
        """
        signalled: list[int] = []
        try:
            with _signals_seen(signalled):
                return self.entry_point.load()
        except BaseException as error:  # a plugin's own bug or exit must not end the program
            if signalled:  # Ctrl-C (or SIGTERM, SIGHUP): the person stops the program
                if isinstance(error, KeyboardInterrupt):
                    raise
                first = signalled[0]  # the plugin turned it into something else (sys.exit)
                raise (
                    KeyboardInterrupt() if first == signal.SIGINT else Terminated(first)
                ) from error
            raise PluginError(
                f"{what} {quoted(self.name)} of distribution {self.distribution} "
                f"cannot be loaded from {quoted(self.target)}: {describe_error(error)}"
            ) from error


@contextmanager
def _signals_seen(seen: list[int]) -> Iterator[None]:
    """Within the block, each SIGINT/SIGTERM/SIGHUP whose handler is a Python function is
    appended to `seen` before that handler runs (and raises, as Ctrl-C's does).

    Outside the main thread nothing changes: Python runs signal handlers in the main thread
    only, so there a `KeyboardInterrupt` never comes from a signal.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    watchers = {}
    for signum in STOP_SIGNALS:
        handler = signal.getsignal(signum)
        if not callable(handler):  # ignored, or the system's default: never a KeyboardInterrupt
            continue

        def watch(signum: int, frame: FrameType | None, handler: Any = handler) -> None:
            seen.append(signum)
            handler(signum, frame)

        signal.signal(signum, watch)
        watchers[signum] = (watch, handler)
    try:
        yield
    finally:
        for signum, (watch, handler) in watchers.items():
            if signal.getsignal(signum) is watch:  # not changed by the plugin meanwhile
                signal.signal(signum, handler)


@functools.cache
def plugins(group: str, builtin: Collection[str]) -> dict[str, Plugin]:
    """The entry points of `group` by name; bad names, clashes with `builtin` names and with
    each other are warned about and dropped (read once per process: see [`refresh_plugins`][])."""
    from importlib import metadata  # 20 ms to import: only where a name is not built in

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
