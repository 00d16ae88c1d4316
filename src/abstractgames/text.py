"""Text from outside (a move typed in, a file, an external program) made safe to show and quote.

Everything the library shows or stores that it did not write itself goes through [`excerpt`][]
or [`quote`][]: control characters (a terminal escape sequence, a newline, a NUL) are escaped as
Python would write them, and the text is cut to a bounded length, so a hostile or broken input can
neither drive the terminal nor flood a message.

Examples:
    >>> excerpt("e2\\x1b]0;pwned\\x07")
    'e2\\\\x1b]0;pwned\\\\x07'
    >>> quote("x" * 100, limit=10)
    '"xxxxxxxxx…"'

It also has the few words and layouts that messages share: plurals, counts ([`counted`][]), and
text fitted to a width ([`wrap`][]).
"""

from __future__ import annotations

import textwrap
import traceback
from pathlib import Path

__all__ = [
    "EXCERPT",
    "counted",
    "described",
    "excerpt",
    "plural",
    "printable",
    "quote",
    "value_excerpt",
    "wrap",
]

EXCERPT = 60
"""How many characters of an outside text a message shows at most."""


def excerpt(text: object, limit: int = EXCERPT) -> str:
    """`str(text)` with its control characters escaped, cut to at most `limit` characters (an
    ellipsis marks the cut)."""
    shown = value_excerpt(text) if isinstance(text, int) else str(text)
    head = shown[:limit]
    escaped = head if head.isprintable() else "".join(map(_escape, head))
    if len(shown) > limit or len(escaped) > limit:
        escaped = escaped[: max(limit - 1, 0)] + "…"
    return escaped


def _escape(char: str) -> str:
    return char if char.isprintable() else repr(char)[1:-1]


def value_excerpt(value: object, limit: int = EXCERPT) -> str:
    """`repr(value)` for a message, bounded and escaped as [`excerpt`][]; an integer too long
    to show, by its number of digits.

    Examples:
        >>> print(value_excerpt("move " * 20))
        'move move move move move move move move move move move mov…
        >>> print(value_excerpt(10**5000))
        <an integer of about 5,000 digits>
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return _int_excerpt(value)
    return excerpt(repr(value), limit)


def _int_excerpt(value: int) -> str:
    """`value` in a message: a long one by its number of digits (writing an int of thousands of
    digits is slow, and Python refuses it beyond 4300)."""
    if value.bit_length() <= 192:
        return str(value)
    bits = value.bit_length()
    digits = len(str(abs(value))) if bits <= 14_000 else bits * 30103 // 100_000
    return f"<an integer of {'about ' if bits > 14_000 else ''}{digits:,} digits>"


def printable(text: object) -> str:
    """`str(text)` with every control character but the newline escaped, for a terminal: a
    message may hold outside text, which must not move the cursor, clear the screen or set the
    window title."""
    shown = str(text)
    if shown.isprintable():
        return shown
    return "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in shown)


def quote(text: object, limit: int = EXCERPT) -> str:
    """[`excerpt`][] in double quotes, for a message: `sent "hello" where ...`."""
    return f'"{excerpt(text, limit)}"'


def plural(noun: str) -> str:
    """The plural of a regular English noun.

    Examples:
        >>> plural("game"), plural("match")
        ('games', 'matches')
    """
    return noun + ("es" if noun.endswith(("ch", "sh", "s", "x")) else "s")


def counted(count: int, noun: str) -> str:
    """`count` and its noun, in the plural unless it is one.

    Examples:
        >>> counted(1, "move"), counted(3, "move"), counted(1_000, "game")
        ('1 move', '3 moves', '1,000 games')
    """
    return f"{count:,} {noun if count == 1 else plural(noun)}"


def wrap(text: str, width: int, *, indent: str = "", hang: str = "") -> str:
    """`text` in lines of at most `width` columns, broken between words only (a word longer
    than a line stands alone on its own); the first line starts with `indent`, the others with
    `hang`. A line break in `text` stays one.

    Examples:
        >>> print(wrap("take back your last move", 12, indent="  ", hang="  "))
          take back
          your last
          move
    """
    lines: list[str] = []
    for line in text.split("\n"):
        wrapper = textwrap.TextWrapper(
            width=max(width, 1),
            initial_indent=hang if lines else indent,
            subsequent_indent=hang,
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines.extend(wrapper.wrap(line) or [wrapper.initial_indent.rstrip()])
    return "\n".join(lines)


def described(error: BaseException) -> str:
    """`Type: message (at file, line N)`: an error of outside code in one line, with where in
    the code it was raised (the file's name alone), its message escaped and cut."""
    where = ""
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        where = f" (at {Path(frames[-1].filename).name}, line {frames[-1].lineno})"
    text = excerpt(str(error), 200)
    return f"{type(error).__name__}: {text}{where}" if text else f"{type(error).__name__}{where}"
