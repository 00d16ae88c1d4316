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
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from abstractgames.cli import main
from abstractgames.records import MatchRecord

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")

from tests.conftest import bad_engine, wait_gone


def kept_records(data: Path) -> list[MatchRecord]:
    """The records the page kept in the server's default database in `data`."""
    from abstractgames.web.database import Database

    with Database.open(data / "games.db") as database:
        return [MatchRecord.loads(database.record(name)) for name, _ in database.records(50)]


READY = re.compile(r"serving on (http://\S+/\?token=[\w-]+)")


@contextmanager
def server(
    data: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[str], str, list[str]]]:
    """`abstractgames serve --port 0 ARGS` with its data in `data` (and `env` added to its
    environment), the page's address (with its `?token=`), and the lines it wrote before it."""
    env = {**os.environ, "ABSTRACTGAMES_DATA": str(data), "PYTHONUNBUFFERED": "1", **(env or {})}
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


def split(url: str) -> tuple[str, str]:
    """The server's address (`http://HOST:PORT`) and its token, from the page's address."""
    base, _, token = url.partition("/?token=")
    return base, token


def call(url: str, path: str, body: dict[str, Any] | None = None, method: str | None = None) -> Any:
    """The JSON answer to `path` on the server of the page's address `url` (with its token)."""
    base, token = split(url)
    data = None if body is None else json.dumps(body).encode()
    method = method or ("GET" if data is None else "POST")
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", f"Bearer {token}")
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
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        page = browser.open(url, timeout=10).read().decode()  # the token, then its cookie
        assert "abstractgames" in page
        game = call(url, "/api/games", {"game": "orderchaos", "players": ["human", engine]})
        until(url, game["id"], lambda s: s["awaiting"] == 1)
        call(url, f"/api/games/{game['id']}/move", {"move": "X@c3"})
        until(url, game["id"], lambda s: s["awaiting"] == 1 and len(s["plies"]) == 2)
        engine_pid = int(pidfile.read_text().split()[0])
        process.send_signal(how)
        _, errors = process.communicate(timeout=30)
    assert process.returncode == status, errors
    assert "1 game in progress kept in the database" in errors
    assert "Traceback" not in errors
    assert not list((tmp_path / "data" / "games").glob("*.json"))  # the page's are in the DB
    (record,) = kept_records(tmp_path / "data")
    assert not record.finished and record.games[0].moves[0].move == "X@c3"
    assert wait_gone(engine_pid)


def test_a_move_shown_on_the_page_survives_sigkill(tmp_path: Path) -> None:
    with server(tmp_path / "data") as (process, url, _):
        game = call(url, "/api/games", {"game": "orderchaos", "players": ["human", "greedy"]})
        until(url, game["id"], lambda s: s["awaiting"] == 1)
        call(url, f"/api/games/{game['id']}/move", {"move": "X@c3"})
        shown = until(url, game["id"], lambda s: s["awaiting"] == 1 and len(s["plies"]) == 2)
        process.kill()
        process.communicate(timeout=30)
    (record,) = kept_records(tmp_path / "data")
    moves = [m.move for m in record.games[0].moves]
    assert moves == [p["move"] for p in shown["plies"]]  # the bot's reply too


def test_serving_beyond_this_machine_warns(tmp_path: Path) -> None:
    with server(tmp_path / "data", "--host", "0.0.0.0", "--no-save") as (process, url, before):
        base, token = split(url)
        port = base.rpartition(":")[2]
        catalog = call(f"http://127.0.0.1:{port}/?token={token}", "/api/catalog")
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
    assert len(opened) == 1 and opened[0].startswith("file://")  # not the token on a command line
    opener = Path(urllib.parse.urlsplit(opened[0]).path)
    assert (opener.stat().st_mode & 0o777) == 0o600
    assert (opener.parent.stat().st_mode & 0o777) == 0o700
    found = re.search(r'content="0;url=([^"]+)"', opener.read_text())
    assert found is not None
    url = found.group(1)
    game = call(url, "/api/games", {"game": "dispersal", "players": ["human", "random"]})
    until(url, game["id"], lambda s: s["awaiting"] == 1)
    stop.set()
    thread.join(30)
    assert not thread.is_alive()
    assert url.startswith("http://127.0.0.1:") and f"serving on {url}" in told.getvalue()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{43}", url)
    assert [Path(path).parent for path in result[0]] == [tmp_path / "games"]
    assert f"1 game in progress kept in {tmp_path / 'games'}" in told.getvalue()
    assert not opener.parent.exists()  # removed at the end


@pytest.mark.slow
def test_no_save_keeps_tournaments_in_a_private_directory_not_a_planted_link(
    tmp_path: Path,
) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (temporary / "abstractgames-web-tournaments").symlink_to(victim)  # the old fixed path
    env = {"TMPDIR": str(temporary)}
    with server(tmp_path / "data", "--no-save", env=env) as (process, url, _):
        body = {"game": "orderchaos", "players": ["random", "greedy"], "games": 2}
        tournament = call(url, "/api/tournaments", body)
        deadline = time.monotonic() + 30
        while tournament["status"] not in ("finished", "failed"):
            assert time.monotonic() < deadline, tournament
            time.sleep(0.1)
            tournament = call(url, f"/api/tournaments/{tournament['id']}")
        assert tournament["status"] == "finished", tournament
        directory = Path(tournament["directory"])
        scratch = directory.parent.parent
        assert scratch.parent == temporary and scratch.name.startswith("abstractgames-web-")
        assert (scratch.stat().st_mode & 0o777) == 0o700
        assert list((directory / "records").glob("*.json"))
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=30)
    assert process.returncode == 143, errors
    assert list(victim.iterdir()) == []  # nothing went through the link
    assert not scratch.exists()  # removed at the end
    assert [p.name for p in temporary.iterdir()] == ["abstractgames-web-tournaments"]


@pytest.mark.slow
def test_a_client_that_leaves_in_the_middle_of_a_request_is_no_error(tmp_path: Path) -> None:
    with server(tmp_path / "data", "--no-save") as (process, url, _):
        base, token = split(url)
        port = int(base.rpartition(":")[2])
        game = call(url, "/api/games", {"game": "orderchaos", "players": ["human", "random"]})
        until(url, game["id"], lambda s: s["awaiting"] == 1)
        for path, length in [("/api/replay", 1_000_000), (f"/api/games/{game['id']}/move", 500)]:
            for _ in range(3):
                with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
                    client.sendall(
                        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {length}\r\n\r\n".encode()
                        + b'{"move": "'
                        + b" " * 100
                    )
                    time.sleep(0.05)  # the app is reading the body: the client leaves
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            client.sendall(  # and one that asks for a WebSocket, then leaves at once
                f"GET /api/games/{game['id']}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Authorization: Bearer {token}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n".encode()
            )
        time.sleep(0.2)
        assert call(url, f"/api/games/{game['id']}")["awaiting"] == 1  # the server goes on
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=30)
    assert process.returncode == 143, errors
    assert "bug" not in errors and "Traceback" not in errors and "Exception" not in errors, errors


def test_slow_clients_are_cut_off_and_the_page_still_answers(tmp_path: Path) -> None:
    import resource
    import threading

    from abstractgames.web import serve

    stop = threading.Event()
    ready: list[str] = []
    thread = threading.Thread(
        target=serve,
        kwargs={
            "port": 0,
            "save_dir": None,
            "out": open(os.devnull, "w"),  # noqa: SIM115  # closed with the process
            "on_ready": ready.append,
            "stop": stop,
            "request_timeout": 1.0,
        },
    )
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not ready:
            assert time.monotonic() < deadline and thread.is_alive()
            time.sleep(0.02)
        url = ready[0]
        base, token = split(url)
        port = int(base.rpartition(":")[2])
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        count = max(30, min(300, (soft - 100) // 2)) // 3 * 3
        head = f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        body = f"{head}X-Token: {token}\r\nContent-Type: application/json\r\n"
        slow = []
        for number in range(count):
            client = socket.create_connection(("127.0.0.1", port), timeout=10)
            part = ["", head + "X-Slow: ", body + "Content-Length: 999\r\n\r\n{"][number % 3]
            if part:  # nothing, half a head, or a head and a little of the body
                client.sendall(part.encode())
            slow.append(client)
        started = time.monotonic()
        assert call(url, "/api/catalog")["saving"] is False  # answered meanwhile
        for client in slow:
            client.settimeout(max(0.1, started + 10 - time.monotonic()))
            with suppress(ConnectionResetError):
                assert client.recv(4096) == b""  # closed by the server: nothing, or no answer
            client.close()
        assert time.monotonic() - started < 5  # within the request timeout, give or take
        assert call(url, "/api/catalog")["saving"] is False
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()
