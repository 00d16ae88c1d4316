"""Lint, format, types and the documentation site stay clean: part of the one test command."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; install the test extras: pip install -e '.[test]'")
    return found


def test_ruff_lint() -> None:
    out = run(tool("ruff"), "check", "src", "tests", "examples", "docs")
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format() -> None:
    out = run(tool("ruff"), "format", "--check", "src", "tests", "examples", "docs")
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy() -> None:
    out = run(sys.executable, "-m", "mypy")
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_guarantees_page_names_tests_that_exist() -> None:
    """docs/guarantees.md names the test of each promise; each must be a test of the suite."""
    import re

    page = (ROOT / "docs" / "guarantees.md").read_text(encoding="utf-8")
    named = re.findall(r"`(?:tests/)?((?:\w+/)*test_\w+\.py)(?:::(\w+))?`", page)
    assert named
    for module, test in named:
        path = ROOT / "tests" / module
        assert path.exists(), f"docs/guarantees.md names {module}, which is not in tests/"
        if test:
            assert f"def {test}(" in path.read_text(encoding="utf-8"), f"{module}::{test}"
    tests = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py"))
    for test in re.findall(r"`::(\w+)`", page):  # a test of the module named before it
        assert f"def {test}(" in tests, f"docs/guarantees.md names ::{test}, which is no test"
