"""The package as users install it from the package index: the wheel and the source
distribution build (``python -m build``), ``twine check`` passes, the wheel holds the package's
data files (the pattern table, the web page), and installed from the wheel into a fresh virtual
environment the README's first command plays and its Python example runs. The sdist holds every
file of the project, so that the README's second command runs from it too.

CI runs this once per run: it builds and installs the wheel once."""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEFT_OUT = shutil.ignore_patterns(
    ".git", ".venv*", "venv", "__pycache__", "*.py[cod]", "site", "build", "dist", "*.egg-info",
    ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", ".benchmarks", "*.json.tmp",
)  # fmt: skip
"""What a clean clone does not have: the work of tools, caches and virtual environments."""

pytestmark = pytest.mark.slow


def run(*args: object, cwd: Path, **options: object) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, env=environment,
        timeout=600, **options,  # type: ignore[call-overload]
    )  # fmt: skip


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and the sdist, built from a copy of the project (the checkout untouched)."""
    pytest.importorskip("build", reason="the test extras have build: pip install -e '.[test]'")
    tree = tmp_path_factory.mktemp("clone") / "abstractgames"
    shutil.copytree(ROOT, tree, ignore=LEFT_OUT)
    out = tree.parent / "dist"
    built = run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, tree, cwd=tree)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


def only(folder: Path, pattern: str) -> Path:
    (found,) = folder.glob(pattern)
    return found


def test_twine_finds_the_distributions_fit_for_the_index(dist: Path) -> None:
    pytest.importorskip("twine", reason="the test extras have twine: pip install -e '.[test]'")
    checked = run(sys.executable, "-m", "twine", "check", "--strict", *dist.iterdir(), cwd=dist)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2


def test_the_wheel_holds_the_package_and_its_data_files(dist: Path) -> None:
    names = set(zipfile.ZipFile(only(dist, "*.whl")).namelist())
    package = ROOT / "src" / "abstractgames"
    files = {
        path.relative_to(package.parent).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert files - names == set()  # every module, the pattern table, the web page, py.typed
    assert "abstractgames/players/entropy/patterns.json" in names
    assert "abstractgames/web/static/index.html" in names
    assert not [n for n in names if n.startswith(("tests/", "docs/"))]


def test_the_sdist_holds_the_whole_project(dist: Path) -> None:
    with tarfile.open(only(dist, "*.tar.gz")) as sdist:
        names = {name.partition("/")[2] for name in sdist.getnames()}
    project = {
        path.relative_to(ROOT).as_posix()
        for top in ("src", "tests", "docs", "examples", "scripts", "benchmarks")
        for path in (ROOT / top).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
        and not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
        and not path.name.endswith((".pyc", ".egg-info"))
    }  # fmt: skip
    project |= {"README.md", "pyproject.toml", "mkdocs.yml", "CHANGELOG.md", "MANIFEST.in"}
    missing = {name for name in project - names if "egg-info" not in name}
    assert missing == set()


def test_installed_from_the_wheel_the_readme_commands_work(dist: Path, tmp_path: Path) -> None:
    """A fresh virtual environment (the dependencies taken from this one, so that no network
    is needed), the wheel installed into it, and run away from the checkout."""
    venv = tmp_path / "venv"
    fresh = ["-m", "venv", "--system-site-packages", "--without-pip", venv]
    made = run(sys.executable, *fresh, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = run(
        python, "-m", "pip", "install", "--no-deps", "--no-index", only(dist, "*.whl"), cwd=tmp_path
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    where = run(python, "-c", "import abstractgames; print(abstractgames.__file__)", cwd=tmp_path)
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr
    # The README's first command: an Entropy match against the greedy bot.
    played = run(venv / "bin" / "abstractgames", "play", "entropy", "--no-save", cwd=tmp_path,
                 input="hint 0.1\nresign\n")  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    assert "you are Chaos" in played.stdout
    assert "Result: greedy wins — you resigned" in played.stdout
    # Its data files, read from the installed package: the pattern table and the web page.
    data = (
        "from importlib.resources import files; from abstractgames.players import entropy;"
        "print(len(entropy.PatternTable.load(7).growth), (files('abstractgames.web') / 'static' /"
        " 'index.html').is_file())"
    )
    loaded = run(python, "-c", data, cwd=tmp_path)
    assert re.fullmatch(r"[1-9]\d* True\n", loaded.stdout), loaded.stdout + loaded.stderr
    # The README's Python example.
    readme = tmp_path / "README.md"
    shutil.copy(ROOT / "README.md", readme)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    example = (
        "import doctest, sys; sys.exit(doctest.testfile('README.md', module_relative=False, "
        f"optionflags={flags}).failed)"
    )
    checked = run(python, "-c", example, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
