"""The user pages speak to users: no development history in them.

The documentation's pages (``docs/**/*.md``) and the README say what the library does now. The
history of how it got there (rounds of tuning, the commits they ran at, the issues that asked
for them) lives in ``benchmarks/RESULTS.md`` and ``CHANGELOG.md``, which are not checked here.
Each pattern is precise enough to leave real content alone: SHA-256 digests and the mail game's
commitments (longer than a commit's hash, or not where a commit is named), hex words of the
games' notation (``ABCDCBA``: letters only), player names numbered ``a#1``, an arena's "rounds
1, 2 and 3".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]

_HEX = r"(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}"  # a digit and a letter at least
_ORDINALS = (
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
    "|thirteenth|fourteenth|fifteenth|\\d+(?:st|nd|rd|th)"
)
_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten"

# Each pattern starts with a literal, so that a page is scanned in a few milliseconds; the text
# is lower-cased first, and what comes before a match is checked by `_starts_a_word`.
HEX_HASH = re.compile(
    rf"`{_HEX}`"  # alone in inline code
    rf"|commits?\s+`?{_HEX}\b"  # "at commit 8ffa33a"
    rf"|git[ \t]+(?:archive|checkout|show|diff|log|switch|reset|revert|cherry-pick)[ \t]+"
    rf"(?:\S+[ \t]+){{0,4}}?{_HEX}\b"  # "git archive 8ffa33a | tar ...", on one line
)
ROUND = re.compile(r"rounds?\b")
ORDINAL_BEFORE = re.compile(rf"\b(?:{_ORDINALS})\s+$")  # "the twelfth round"
NUMBER_AFTER = re.compile(  # "round 12", "rounds four to six"; not "rounds 1, 2 and 3"
    rf"\s+(?:\d+(?!\s*(?:,|and)\s*\d)\b(?!\s+(?:to|and|or)\s+\d)|(?:{_ORDINALS}|{_WORDS})\b)"
)
ISSUE = re.compile(
    r"(?:issues?|prs?|pull\s+requests?|tickets?)\s+#?\d+"  # "issue 27", "PR #9"
    r"|#\d+\b"  # "(#53)"; not "a#1", "&#123;" or a link's fragment (`_starts_a_word`)
    r"|the\s+issue['’]s\b"  # "the issue's tournament"
)


def _starts_a_word(text: str, start: int) -> bool:
    """Whether a match at `start` begins a word: not "a#1", "--rounds", "&#123;" or "/#2"."""
    return start == 0 or not (text[start - 1].isalnum() or text[start - 1] in "-_&#/]@")


def history_in(text: str) -> list[tuple[int, str, str]]:
    """Each place in `text` that speaks of development history: (line, what, the words).

    >>> history_in("Built at commit `8ffa33a`.\\nThe twelfth round, issue 27.")
    [(1, 'a commit hash', 'commit `8ffa33a'), (2, 'a tuning round', 'twelfth round'), \
(2, 'an issue or pull request', 'issue 27')]
    >>> history_in("`ABCDCBA`; `a#1`, `a#2`; rounds 1, 2 and 3; --rounds 6; `" + "ab12" * 16 + "`")
    []
    """
    lower = text.lower()
    found: list[tuple[int, str, int, int]] = []
    for match in HEX_HASH.finditer(lower):
        if _starts_a_word(lower, match.start()):
            found.append((match.start(), "a commit hash", match.start(), match.end()))
    for match in ROUND.finditer(lower):
        start, end = match.start(), match.end()
        if not _starts_a_word(lower, start):
            continue
        before = ORDINAL_BEFORE.search(lower, max(0, start - 30), start)
        after = NUMBER_AFTER.match(lower, end)
        if before or after:
            span = (before.start() if before else start, after.end() if after else end)
            found.append((start, "a tuning round", *span))
    for match in ISSUE.finditer(lower):
        if _starts_a_word(lower, match.start()):
            found.append((match.start(), "an issue or pull request", match.start(), match.end()))
    return [
        (lower.count("\n", 0, at) + 1, what, " ".join(text[start:end].split()))
        for at, what, start, end in sorted(found)
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_no_development_history_in_a_user_page(page: Path) -> None:
    """No commit hash, tuning round or issue number in a page: each said, with its line."""
    where = page.relative_to(ROOT).as_posix()
    found = history_in(page.read_text(encoding="utf-8"))
    assert not found, "\n".join(
        f"{where}:{number}: {what}: {text!r} (history goes to benchmarks/RESULTS.md or "
        "CHANGELOG.md)"
        for number, what, text in found
    )
