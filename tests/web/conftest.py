"""The browser of the page tests: one Chromium a module, each test in contexts of its own."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def find_chromium() -> str | None:
    """Debian's chromium, another Chromium on the PATH, or the one CHROMIUM names."""
    named = os.environ.get("CHROMIUM")
    if named:
        return named if Path(named).exists() else shutil.which(named)
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium, started once a module: the tests open contexts of their own in it, which share
    no cookies, storage or pages. Not once a session: Playwright's event loop runs while it is
    open, and the tests of other modules that run one of their own (`asyncio.run`) would fail."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="no playwright (pip install playwright; no browser download)"
    )
    chromium = find_chromium()
    if chromium is None:
        pytest.skip("no Chromium installed (apt-get install chromium, or set CHROMIUM=PATH)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the page tests' screenshots go: ABSTRACTGAMES_SCREENSHOTS, else a temporary folder."""
    wanted = os.environ.get("ABSTRACTGAMES_SCREENSHOTS")
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
