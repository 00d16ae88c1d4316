"""Text from outside (a move typed in, a file, an external program) made safe to show and quote.

Everything the library shows or stores that it did not write itself goes through :func:`excerpt`
or :func:`quote`: control characters (a terminal escape sequence, a newline, a NUL) are escaped as
Python would write them, and the text is cut to a bounded length, so a hostile or broken input can
neither drive the terminal nor flood a message.

>>> excerpt("e2\\x1b]0;pwned\\x07")
'e2\\\\x1b]0;pwned\\\\x07'
>>> quote("x" * 100, limit=10)
'"xxxxxxxxx…"'
"""

from __future__ import annotations

__all__ = ["EXCERPT", "excerpt", "printable", "quote"]

EXCERPT = 60
"""How many characters of an outside text a message shows at most."""


def excerpt(text: object, limit: int = EXCERPT) -> str:
    """``str(text)`` cut to ``limit`` characters (an ellipsis marks the cut), control characters
    escaped."""
    shown = str(text)
    if len(shown) > limit:
        shown = shown[: max(limit - 1, 0)] + "…"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)


def printable(text: object) -> str:
    """``str(text)`` with every control character but the newline escaped, for a terminal: a
    message may hold outside text, which must not move the cursor, clear the screen or set the
    window title."""
    shown = str(text)
    if shown.isprintable():
        return shown
    return "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in shown)


def quote(text: object, limit: int = EXCERPT) -> str:
    """:func:`excerpt` in double quotes, for a message: ``sent "hello" where ...``."""
    return f'"{excerpt(text, limit)}"'
