"""Bots from outside the library: a class in a Python file (`path/to/bot.py:MyBot`) or in an
importable module (`package.module:MyBot`).

A file is run once per process as a module of its own (its folder importable while it runs);
whatever goes wrong while it runs or is imported becomes one [`InvalidPlayerError`][] naming
the spec, never a traceback.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from types import ModuleType
from typing import Any

from ..players import InvalidPlayerError, Player
from .plugins import describe_error, quoted

__all__ = ["is_import_target", "load_class"]


def is_import_target(head: str, rest: str) -> bool:
    """Whether the spec `head:rest` names a class in a file or a module rather than a player."""
    head = head.strip()
    if head.endswith(".py") or "/" in head or "\\" in head:
        return True
    target = rest.partition(":")[0].strip()
    return target.isidentifier() and all(part.isidentifier() for part in head.split("."))


def _is_file(where: str) -> bool:
    return where.endswith(".py") or "/" in where or "\\" in where


def load_class(
    where: str, name: str, spec: str, available_players: Callable[[], Sequence[str]]
) -> Any:
    """The class `name` of the file or module `where`, for the player `spec`.

    `available_players` lists the players' names for the message when `where` is neither a
    module nor a player.

    Raises:
        InvalidPlayerError: no such file, module or class, or running it failed.
    """
    if not name.isidentifier():
        raise InvalidPlayerError(
            f"player {quoted(spec)}: name the class after the colon, e.g. {where}:MyBot"
        )
    if _is_file(where):
        module = _load_file(Path(where).expanduser(), spec)
        place = f"file {where}"
    else:
        module = _load_module(where, spec, available_players)
        place = f"module {where}"
    try:
        found = getattr(module, name)
    except AttributeError:
        players = sorted(
            n
            for n, value in vars(module).items()
            if inspect.isclass(value)
            and issubclass(value, Player)
            and value is not Player
            and value.__module__ == module.__name__
        )
        listed = f"; its players: {', '.join(players)}" if players else "; it defines no Player"
        raise InvalidPlayerError(
            f"player {quoted(spec)}: {place} has no {quoted(name)}{listed}"
        ) from None
    if not inspect.isclass(found):
        raise InvalidPlayerError(f"player {quoted(spec)}: {name} in {place} is not a class")
    return found


_files: dict[Path, ModuleType] = {}


def _load_file(path: Path, spec: str) -> ModuleType:
    """Run a Python file as a module once per process (its folder is importable while it runs)."""
    try:
        resolved = path.resolve(strict=True)
    except OSError:
        raise InvalidPlayerError(
            f"player {quoted(spec)}: there is no file {quoted(str(path))}"
        ) from None
    if not resolved.is_file():
        raise InvalidPlayerError(f"player {quoted(spec)}: {quoted(str(path))} is not a file")
    if resolved in _files:
        return _files[resolved]
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:10]
    stem = re.sub(r"\W", "_", resolved.stem)
    module_name = f"abstractgames_bot_{stem}_{digest}"
    loader_spec = importlib.util.spec_from_file_location(module_name, resolved)
    if loader_spec is None or loader_spec.loader is None:
        raise InvalidPlayerError(
            f"player {quoted(spec)}: cannot load {quoted(str(path))} as Python"
        )
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    folder = str(resolved.parent)
    sys.path.insert(0, folder)
    try:
        loader_spec.loader.exec_module(module)
    except BaseException as error:
        del sys.modules[module_name]
        if not isinstance(error, Exception):
            raise
        where = ""
        if isinstance(error, SyntaxError) and error.lineno is not None:
            where = f" (line {error.lineno})"
        raise InvalidPlayerError(
            f"player {quoted(spec)}: running {quoted(str(path))} failed{where}: "
            f"{describe_error(error)}"
        ) from error
    finally:
        with suppress(ValueError):
            sys.path.remove(folder)
    _files[resolved] = module
    return module


def _load_module(
    name: str, spec: str, available_players: Callable[[], Sequence[str]]
) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            raise InvalidPlayerError(
                f"player {quoted(spec)}: there is no module {quoted(name)} (and no player called "
                f"{quoted(name)}; available players: {', '.join(available_players())})"
            ) from None
        raise InvalidPlayerError(
            f"player {quoted(spec)}: importing {name} failed: {describe_error(error)}"
        ) from error
    except Exception as error:
        raise InvalidPlayerError(
            f"player {quoted(spec)}: importing {name} failed: {describe_error(error)}"
        ) from error
