"""`abstractgames serve` as a real process: it listens where it says, warns beyond this machine,
and stops on SIGTERM and Ctrl-C with the games in progress saved and its engines stopped."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from abstractgames.cli import main
from abstractgames.records import MatchRecord

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")

from tests.conftest import bad_engine, wait_gone

READY = re.compile(r"serving on (http://\S+/)")


@contextmanager
def server(data: Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], str, list[str]]]:
    """`abstractgames serve --port 0 ARGS` with its data in `data`, the page's address, and the
    lines it wrote before it."""
    env = {**os.environ, "ABSTRACTGAMES_DATA": str(data), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "abstractgames", "serve", "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        seen, url = [], None
        assert process.stderr is not None
        while url is None and (line := process.stderr.readline()):
            seen.append(line)
            found = READY.search(line)
            url = found.group(1) if found else None
        if url is None:
            pytest.fail("the server did not start: " + "".join(seen))
        yield process, url, seen
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def call(url: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    method = "GET" if data is None else "POST"
    request = urllib.request.Request(url.rstrip("/") + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=20) as response:
        return json.loads(response.read())


def until(url: str, game_id: str, ready: Any, seconds: float = 20) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        snapshot = call(url, f"/api/games/{game_id}")
        if ready(snapshot):
            return snapshot
        assert time.monotonic() < deadline, snapshot
        time.sleep(0.05)


def test_serve_is_a_command() -> None:
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    assert "--host" in result.output and "--port" in result.output and "--open" in result.output


def test_without_the_web_extra_serve_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "abstractgames.web", None)
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 1
    assert "pip install 'abstractgames[web]'" in result.output


def test_a_port_in_use_is_an_error(tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--port", str(port), "--no-save"])
        assert result.exit_code == 1
        assert f"cannot listen on 127.0.0.1 port {port}" in result.output
    finally:
        taken.close()


@pytest.mark.parametrize(
    ("how", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)]
)
def test_a_stop_saves_the_games_in_progress_and_stops_the_engines(
    tmp_path: Path, how: signal.Signals, status: int
) -> None:
    pidfile = tmp_path / "engine.pid"
    engine = bad_engine("good", 1, pidfile, timeout=5)
    with server(tmp_path / "data") as (process, url, _):
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "abstractgames" in page
        game = call(url, "/api/games", {"game": "orderchaos", "players": ["human", engine]})
        until(url, game["id"], lambda s: s["awaiting"] == 1)
        call(url, f"/api/games/{game['id']}/move", {"move": "X@c3"})
        until(url, game["id"], lambda s: s["awaiting"] == 1 and len(s["plies"]) == 2)
        engine_pid = int(pidfile.read_text().split()[0])
        process.send_signal(how)
        _, errors = process.communicate(timeout=30)
    assert process.returncode == status, errors
    assert "1 game in progress saved in" in errors
    assert "Traceback" not in errors
    saved = list((tmp_path / "data" / "games").glob("*-orderchaos-*.json"))
    assert len(saved) == 1
    record = MatchRecord.load(saved[0])
    assert not record.finished and record.games[0].moves[0].move == "X@c3"
    assert wait_gone(engine_pid)


def test_serving_beyond_this_machine_warns(tmp_path: Path) -> None:
    with server(tmp_path / "data", "--host", "0.0.0.0", "--no-save") as (process, url, before):
        port = url.rstrip("/").rpartition(":")[2]
        catalog = call(f"http://127.0.0.1:{port}", "/api/catalog")
        assert catalog["allow_programs"] is False and catalog["saving"] is False
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    assert "abstractgames: warning: serving on 0.0.0.0" in "".join(before)


def test_serve_opens_the_page_and_stops_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import threading
    import webbrowser

    from abstractgames.web import serve

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    stop = threading.Event()
    told = io.StringIO()
    ready = threading.Event()
    result: list[Any] = []

    def run() -> None:
        result.append(
            serve(
                port=0,
                open_browser=True,
                save_dir=tmp_path / "games",
                out=told,
                on_ready=lambda url: ready.set(),
                stop=stop,
            )
        )

    thread = threading.Thread(target=run)
    thread.start()
    assert ready.wait(20)
    url = opened[0]
    game = call(url, "/api/games", {"game": "dispersal", "players": ["human", "random"]})
    until(url, game["id"], lambda s: s["awaiting"] == 1)
    stop.set()
    thread.join(30)
    assert not thread.is_alive()
    assert url.startswith("http://127.0.0.1:") and f"serving on {url}" in told.getvalue()
    assert [path.parent for path in result[0]] == [tmp_path / "games"]
    assert "1 game in progress saved" in told.getvalue()
