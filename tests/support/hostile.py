"""Hostile text for the rules' messages: huge, with control characters; and the check that a
message quotes only a bounded, escaped excerpt of it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from abstractgames.protocol import AbstractGamesError

GAMES = ["orderchaos", "entropy", "entropy:size=5", "dispersal"]
BIG = 10_000_000
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\n"


def bounded(call: Callable[[], object], error: type[Exception] = AbstractGamesError) -> str:
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    # An excerpt is 60 characters before escaping; "\\x00" takes four.
    assert len(message) < 400, message[:400]
    assert not any(c in message for c in "\x1b\x07\n\r\0"), message[:300]
    return message
