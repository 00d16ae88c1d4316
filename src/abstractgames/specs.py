"""The spec grammar that names a game or a player with its options in one token.

A spec is `NAME` or `NAME:key=value,key=value` (`entropy:size=5`, `search:time=1.5`).
Values are read the same way for games and players: an integer, else a decimal number, else
`true`/`false`, else the text itself. Keys are Python identifiers; values cannot hold a comma.
A player that runs a program takes `NAME:[OPTIONS:]COMMAND` instead
([`split_program_argument`][]).

Examples:
    >>> split_spec("search:time=1.5,depth=3")
    ('search', 'time=1.5,depth=3')
    >>> parse_options("time=1.5,depth=3,log=out,fast=true")
    {'time': 1.5, 'depth': 3, 'log': 'out', 'fast': True}
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from .text import excerpt

__all__ = [
    "IN_PROCESS",
    "ISOLATED",
    "format_options",
    "keyword_defaults",
    "parse_options",
    "parse_value",
    "split_program_argument",
    "split_spec",
]

ISOLATED = "isolated"
"""The name of the player spec `isolated:[OPTIONS:]SPEC`: SPEC in a worker process."""
IN_PROCESS = "inprocess"
"""The name of the player spec `inprocess:SPEC`: SPEC in this process."""


def split_spec(spec: str) -> tuple[str, str]:
    """`(name, options text)`: the name in lower case, both stripped."""
    name, _, rest = spec.strip().partition(":")
    return name.strip().lower(), rest.strip()


def parse_value(text: str) -> Any:
    """An option value: an `int`, else a `float`, else `True`/`False`, else the text.

    Digits too many for an `int` (Python reads at most 4300) stay text, not an infinite float.
    """
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            if kind is int and text.strip().lstrip("+-").isdigit():
                return text
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    return text


def parse_options(
    text: str,
    *,
    context: str = "the spec",
    error: type[Exception] = ValueError,
    value: Callable[[str], Any] = parse_value,
) -> dict[str, Any]:
    """Read `key=value,key=value` into a dict; raise `error` naming `context` if malformed.

    Each value is read by `value` ([`parse_value`][]; `str` keeps the text as it is). A
    message quotes at most an excerpt of the option and of `context`.

    Examples:
        >>> parse_options("depth=3", context="player 'search:depth=3'")
        {'depth': 3}
    """
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, text_value = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise error(f"bad option '{excerpt(item)}' in {excerpt(context, 120)}: use key=value")
        if key in options:
            raise error(f"option '{excerpt(key)}' is given twice in {excerpt(context, 120)}")
        options[key] = value(text_value.strip())
    return options


def format_options(options: dict[str, Any]) -> str:
    """The options as `key=value,...` in key order (the inverse of [`parse_options`][])."""
    return ",".join(f"{key}={value}" for key, value in sorted(options.items()))


def keyword_defaults(factory: Callable[..., Any]) -> dict[str, Any]:
    """The parameters of `factory` that have a default value, with it."""
    return {
        p.name: p.default
        for p in inspect.signature(factory).parameters.values()
        if p.default is not inspect.Parameter.empty
    }


_OPTIONS = re.compile(r"^\s*[A-Za-z_]\w*\s*=")


def split_program_argument(argument: str) -> tuple[str | None, str]:
    """`(options text or None, command text)` of `[OPTIONS:]COMMAND`, nothing parsed yet.

    Examples:
        >>> split_program_argument("timeout=5,log=logs:./mybot --fast")
        ('timeout=5,log=logs', './mybot --fast')
        >>> split_program_argument("./mybot")
        (None, './mybot')
    """
    text = argument.strip()
    head, colon, rest = text.partition(":")
    if text.startswith(":"):
        return "", rest
    if colon and _OPTIONS.match(head):
        return head, rest
    return None, text
