"""The package itself (`abstractgames`): its version, and what importing it imports."""

from __future__ import annotations

import subprocess
import sys

import abstractgames


def test_version() -> None:
    assert abstractgames.__version__


def test_importing_the_library_does_not_import_the_terminal_stack() -> None:
    code = "import sys, abstractgames; print(sorted({'click', 'rich'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
