"""Docstrings are written in the syntax the API reference renders (mkdocstrings, Google style).

Cross-references are Markdown, as in [`Game`][] or [`Game`][abstractgames.protocol.Game], not
Sphinx roles, which the reference would show as raw text; code is in single backticks, not reST's
double ones; examples sit under an `Examples:` section (or in a fenced block) so that they render
as code, not as quoted text run into one line.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from abstractgames.registry import available_players, describe_player

SOURCE = Path(__file__).resolve().parent.parent / "src" / "abstractgames"
SPHINX_ROLE = re.compile(r":(class|func|meth|mod|data|attr|exc|obj):`")
DOUBLE_BACKTICK = re.compile(r"(?<!`)``(?!`)")
SECTION = re.compile(r"^[A-Z][A-Za-z ]*:$")


def statements(nodes: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement in `nodes` and the blocks nested in them (expressions are not walked:
    a docstring is a statement, and walking every node of the package doubles the test's time)."""
    for node in nodes:
        yield node
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, block, None)
            if isinstance(inner, list):
                yield from statements(inner)


def docstrings() -> Iterator[tuple[str, str]]:
    """`(where, text)` of every string statement of the package: module, class, function and
    attribute docstrings (the string right after an assignment, which mkdocstrings also shows)."""
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in statements(tree.body):
            if (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                yield f"{path.relative_to(SOURCE.parent)}:{node.lineno}", node.value.value


@pytest.fixture(scope="module")
def package_docstrings() -> list[tuple[str, str]]:
    """Every docstring of the package, read once for the tests of this module that check them
    (not at import: each worker of the suite imports this module; reading them is a second)."""
    return list(docstrings())


def test_the_package_has_docstrings(package_docstrings: list[tuple[str, str]]) -> None:
    assert len(package_docstrings) > 500


def test_no_sphinx_roles(package_docstrings: list[tuple[str, str]]) -> None:
    found = [
        f"{where}: {match.group(0)}"
        for where, text in package_docstrings
        for match in SPHINX_ROLE.finditer(text)
    ]
    assert not found, "Sphinx roles render as raw text; use [`Name`][] cross-references"


def test_no_rest_double_backticks(package_docstrings: list[tuple[str, str]]) -> None:
    found = [where for where, text in package_docstrings if DOUBLE_BACKTICK.search(text)]
    assert not found, "``code`` is reST; Markdown code is `code`"


def examples_out_of_place(text: str) -> list[str]:
    """The doctest lines of a docstring that are neither under `Examples:` nor in a fence, and the
    `Example:` headings (a Google `Example:` section renders as a note, its code run together)."""
    problems = []
    section, fence = "", False
    for line in inspect.cleandoc(text).split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        if line and not line[0].isspace():
            section = line if SECTION.match(line) else ""
            if line == "Example:":
                problems.append(line)
        if stripped.startswith(">>>") and not (section == "Examples:" and line[0].isspace()):
            problems.append(line)
    return problems


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        ("Summary.\n\nExamples:\n    >>> 1 + 1\n    2\n", []),
        ("Summary.\n\n```pycon\n>>> 1 + 1\n2\n\n```\n", []),
        ("Summary.\n\n>>> 1 + 1\n2\n", [">>> 1 + 1"]),
        ("Summary.\n\nExample:\n    >>> 1 + 1\n    2\n", ["Example:", ">>> 1 + 1"]),
        ("Summary.\n\nExamples:\n    >>> 1\n    1\n\nRaises:\n    >>> 2\n", [">>> 2"]),
    ],
)
def test_examples_out_of_place_finds_them(text: str, problems: list[str]) -> None:
    assert [line.strip() for line in examples_out_of_place(text)] == problems


def test_examples_render_as_code(package_docstrings: list[tuple[str, str]]) -> None:
    found = [
        f"{where}: {line.strip()}"
        for where, text in package_docstrings
        for line in examples_out_of_place(text)
    ]
    assert not found, "put doctests under an indented `Examples:` section or in a fence"


@pytest.mark.parametrize(
    "name", [n for n in available_players() if describe_player(n).origin == "built in"]
)
def test_player_summaries_are_plain_text(name: str) -> None:
    """`abstractgames list` prints the first paragraph of a player's docstring as it is."""
    summary = describe_player(name).summary
    assert "`" not in summary and "][" not in summary, summary
