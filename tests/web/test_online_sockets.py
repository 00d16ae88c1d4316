"""The game server's connections on a real uvicorn server: a socket's handler ends with its
socket (a finished game's watchers that leave cannot fill the server), a healthy socket is never
cut by the request timer of the connection it was upgraded from, and a request head is bounded
however it arrives."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
websockets = pytest.importorskip("websockets", reason="the test extra installs websockets")

from .test_online_server import request  # noqa: E402  (after the extra is known to be there)


@contextmanager
def public_server(tmp_path: Path, **options: Any) -> Iterator[str]:
    """`serve(public=True)` on a SQLite database in a thread of this process; its address."""
    from abstractgames.web import serve

    stop = threading.Event()
    ready: list[str] = []
    thread = threading.Thread(
        target=serve,
        kwargs={
            "port": 0,
            "database": tmp_path / "games.db",
            "public": True,
            "out": open(os.devnull, "w"),  # noqa: SIM115  # closed with the process
            "on_ready": ready.append,
            "stop": stop,
            **options,
        },
    )
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not ready:
            assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
            time.sleep(0.02)
        yield ready[0].rstrip("/")
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()


@pytest.mark.slow
def test_watchers_of_a_finished_game_that_leave_do_not_fill_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from abstractgames.web import server

    monkeypatch.setattr(server, "MAX_CONNECTIONS", 12)  # what 520 clients did to 512
    with public_server(tmp_path) as url:
        made = request(url, "/api/online", {"game": "orderchaos", "seat": 1})
        game_id = made["id"]
        request(url, f"/api/online/{game_id}/resign", {}, made["secret"])
        time.sleep(1.0)  # long finished: no change of the game is on its way to wake a handler
        address = url.replace("http://", "ws://") + f"/api/online/{game_id}/ws"

        async def watch_say_something_and_leave() -> None:
            async with websockets.connect(address, origin=url) as socket:
                await socket.send("{}")
                assert json.loads(await socket.recv())["status"] == "finished"
                await socket.send("one more frame")

        async def many() -> None:
            for _ in range(3):
                await asyncio.gather(*(watch_say_something_and_leave() for _ in range(10)))

        asyncio.run(many())
        deadline = time.monotonic() + 10
        while True:  # the handlers end as their sockets close, not at the game's next change
            try:
                assert request(url, f"/api/online/{game_id}")["status"] == "finished"
                break
            except urllib.error.HTTPError as error:
                assert error.code == 503 and time.monotonic() < deadline, error
                time.sleep(0.1)


def test_a_binary_first_frame_is_refused_as_a_bad_message(tmp_path: Path) -> None:
    with public_server(tmp_path) as url:
        made = request(url, "/api/online", {"game": "orderchaos", "seat": 1})
        address = url.replace("http://", "ws://") + f"/api/online/{made['id']}/ws"

        async def send_bytes() -> Any:
            async with websockets.connect(address, origin=url) as socket:
                await socket.send(b'{"secret": ""}')
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(socket.recv(), timeout=10)
                return closed.value.rcvd

        received = asyncio.run(send_bytes())
        assert received is not None and received.code == 1008


@pytest.mark.slow
def test_a_healthy_socket_outlives_the_request_timeout(tmp_path: Path) -> None:
    with public_server(tmp_path, request_timeout=1.0) as url:
        made = request(url, "/api/online", {"game": "orderchaos", "seat": 1})
        game_id, ann, bob = made["id"], made["secret"], made["invitation"]
        address = url.replace("http://", "ws://") + f"/api/online/{game_id}/ws"

        async def follow_past_the_timeout() -> Any:
            async with websockets.connect(address, origin=url) as socket:
                await socket.send(json.dumps({"secret": bob}))
                assert json.loads(await socket.recv())["ply"] == 0
                await asyncio.sleep(2.5)  # the timer of the upgraded request would fire at 1 s
                await asyncio.to_thread(
                    request, url, f"/api/online/{game_id}/move", {"move": "X@c3", "ply": 0}, ann
                )
                while True:
                    view = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))
                    if view["ply"] == 1:
                        return view

        seen = asyncio.run(follow_past_the_timeout())
        assert seen["plies"][-1]["move"] == "X@c3"


def test_a_request_head_is_bounded_however_it_arrives(tmp_path: Path) -> None:
    import socket

    from abstractgames.web.server import MAX_HEAD

    with public_server(tmp_path) as url:
        port = int(url.rpartition(":")[2])

        def head(pad: int) -> bytes:
            lines = ["GET /api/lobby HTTP/1.1", f"Host: 127.0.0.1:{port}", "X-Pad: " + "a" * pad]
            return ("\r\n".join(lines) + "\r\n\r\n").encode()

        def answers(data: bytes, count: int) -> list[bytes]:
            """The statuses of the answers to `data`, once there are `count` or it closes."""
            with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
                client.sendall(data)
                received = b""
                while len(statuses := re.findall(rb"HTTP/1\.1 (\d{3}) ", received)) < count:
                    if not (chunk := client.recv(65536)):
                        break
                    received += chunk
            return statuses

        assert answers(head(MAX_HEAD // 2), 1) == [b"200"]
        assert answers(head(MAX_HEAD + 1), 1) == [b"400"]  # whole, in one packet
        assert answers(head(100) + head(4 * MAX_HEAD), 2) == [b"200", b"400"]  # behind another


def test_health_and_metrics_say_how_the_server_is(tmp_path: Path) -> None:
    with public_server(tmp_path) as url:
        made = request(url, "/api/online", {"game": "orderchaos", "seat": 1})
        request(url, f"/api/online/{made['id']}/move", {"move": "X@c3", "ply": 0}, made["secret"])
        address = url.replace("http://", "ws://") + f"/api/online/{made['id']}/ws"

        async def watch_and_ask() -> tuple[Any, str]:
            async with websockets.connect(address, origin=url) as socket:
                await socket.send("{}")
                await socket.recv()
                health = await asyncio.to_thread(request, url, "/healthz")
                with urllib.request.urlopen(url + "/metrics", timeout=20) as answer:
                    return health, answer.read().decode()

        health, metrics = asyncio.run(watch_and_ask())
    assert health["status"] == "ok" and health["open_sockets"] == 1
    assert 0 <= health["sweep_lag"] < 5
    assert "abstractgames_moves_total 1.0" in metrics
    assert "abstractgames_open_sockets 1.0" in metrics
    assert 'abstractgames_move_seconds_bucket{le="+Inf"} 1.0' in metrics
    assert "abstractgames_sweep_lag_seconds" in metrics


def test_healthz_says_when_the_clocks_are_not_swept(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from abstractgames.web.app import create_app
    from abstractgames.web.database import Database
    from abstractgames.web.online_api import OnlineServer

    with Database.open(tmp_path / "games.db") as database:
        online = OnlineServer(database)
        app = create_app(online=online, public=True)
        with TestClient(app) as client:
            assert client.get("/healthz").json()["status"] == "ok"
            online._stop.set()  # its sweeps stop, as if stuck for a minute
            for thread in online._threads:
                thread.join(10)
            online.last_sweep = time.monotonic() - 60
            stuck = client.get("/healthz")
            assert stuck.status_code == 503
            assert "swept 6" in stuck.json()["problems"][0]
