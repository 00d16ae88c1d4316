"""The package itself (`abstractgames`): its version, and what importing it imports."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import abstractgames


def test_version_is_the_installed_distributions() -> None:
    assert abstractgames.__version__ == metadata.version("abstractgames")
    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    assert abstractgames.__version__ == project["project"]["version"]


def test_importing_the_library_does_not_import_the_terminal_stack() -> None:
    code = "import sys, abstractgames; print(sorted({'click', 'rich'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
