"""JSON from outside (a game record, a tournament's state file) read within bounds.

[`loads`][] is `json.loads` that refuses what would cost without bound or cannot be written
back: integers of more than [`MAX_DIGITS`][] digits (Python converts a long one in quadratic
time, and refuses those over 4,300 digits), numbers too large for a float, `NaN` and
`Infinity` (which JSON does not allow), nesting too deep for the parser, and an object that
gives one key twice (readers disagree on which one counts: one check could see the first and
the code the second). Each refusal is a
[`JSONError`][] saying what, without saying where: the caller names the file and the line.

Examples:
    >>> loads('{"seed": 12}')
    {'seed': 12}
    >>> loads('[1e999]')
    Traceback (most recent call last):
    abstractgames.strictjson.JSONError: a number too large to use (1e999)
    >>> loads('{"move": "X@a1", "move": "O@b2"}')
    Traceback (most recent call last):
    abstractgames.strictjson.JSONError: an object with the key 'move' twice
"""

from __future__ import annotations

import json
import math
from typing import Any

from .text import excerpt

__all__ = ["MAX_DIGITS", "JSONError", "loads"]

MAX_DIGITS = 30
"""The most digits of an integer read (a seed has at most 20)."""


class JSONError(ValueError):
    """JSON that [`loads`][] refuses; the message says why."""


def loads(text: str) -> Any:
    """The value of the JSON `text`.

    Raises:
        JSONError: not JSON, or JSON out of bounds (see [the module][abstractgames.strictjson]).
    """
    try:
        return json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_no_constant,
            object_pairs_hook=_object,
        )
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise JSONError(f"not valid JSON ({error.msg} at {where})") from None
    except RecursionError:
        raise JSONError("JSON nested too deeply") from None


def _parse_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_DIGITS:
        raise JSONError(
            f"an integer of {digits:,} digits ({excerpt(text, 20)}): a number has at most "
            f"{MAX_DIGITS}"
        )
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONError(f"a number too large to use ({excerpt(text, 20)})")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise JSONError(f"an object with the key {excerpt(key, 40)!r} twice")
        found[key] = value
    return found


def _no_constant(text: str) -> Any:
    raise JSONError(f"{text}, which JSON does not allow")
