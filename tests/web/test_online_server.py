"""The game server as a real process: a move acknowledged survives SIGKILL, again and again; two
`serve` processes on one PostgreSQL database serve the same games, a move made through one seen
on a WebSocket of the other."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")

from .postgres import postgres_url  # noqa: F401  (a fixture)

SERVING = re.compile(r"serving on (http://\S+)")


@contextmanager
def public_server(
    data: Path, database: str, *options: str
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`abstractgames serve --public OPTIONS` on `database`, and its address."""
    env = {**os.environ, "ABSTRACTGAMES_DATA": str(data), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "abstractgames",
            "serve",
            "--public",
            "--port",
            "0",
            "--database",
            database,
            *options,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        seen, url = [], None
        while url is None and (line := process.stderr.readline()):
            seen.append(line)
            found = SERVING.search(line)
            url = found.group(1).rstrip("/") if found else None
        if url is None:
            pytest.fail("the server did not start: " + "".join(seen))
        # Read what it says from then on, so that a full pipe never stops the server.
        reader = threading.Thread(target=lambda: seen.extend(process.stderr or ()), daemon=True)
        reader.start()
        process.said = seen  # type: ignore[attr-defined]
        yield process, url
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(timeout=30)


def request(url: str, path: str, body: Any = None, secret: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    made = urllib.request.Request(url + path, data=data, method="GET" if data is None else "POST")
    made.add_header("Content-Type", "application/json")
    made.add_header("Origin", url)
    if secret:
        made.add_header("X-Seat", secret)
    with urllib.request.urlopen(made, timeout=20) as answer:
        return json.loads(answer.read())


def test_a_move_acknowledged_survives_sigkill_every_time(tmp_path: Path) -> None:
    database = str(tmp_path / "games.db")
    with public_server(tmp_path, database) as (_, url):
        made = request(url, "/api/online", {"game": "orderchaos", "seat": 1})
    game_id, secrets = made["id"], {1: made["secret"], 2: made["invitation"]}
    for ply in range(6):
        with public_server(tmp_path, database) as (process, url):
            view = request(url, f"/api/online/{game_id}")
            assert view["ply"] == ply  # every move acknowledged before the kill is there
            seat = view["thinking"]
            mine = request(url, f"/api/online/{game_id}", secret=secrets[seat])
            move = mine["legal"][ply % len(mine["legal"])]["move"]
            played = request(
                url, f"/api/online/{game_id}/move", {"move": move, "ply": ply}, secrets[seat]
            )
            assert played == {"move": move}
            os.kill(process.pid, signal.SIGKILL)  # at once, after the acknowledgement
            process.wait(timeout=10)
    with public_server(tmp_path, database) as (_, url):
        assert request(url, f"/api/online/{game_id}")["ply"] == 6


def test_two_servers_on_one_postgresql_database(
    tmp_path: Path,
    postgres_url: str,  # noqa: F811
) -> None:
    import websockets

    database = postgres_url
    with (
        public_server(tmp_path / "a", database) as (_, first),
        public_server(tmp_path / "b", database) as (_, second),
    ):
        made = request(first, "/api/online", {"game": "orderchaos", "seat": 1})
        game_id, ann, bob = made["id"], made["secret"], made["invitation"]
        assert request(second, f"/api/online/{game_id}", secret=bob)["you"] == 2

        async def watch_on_second_while_first_moves() -> Any:
            address = second.replace("http://", "ws://") + f"/api/online/{game_id}/ws"
            async with websockets.connect(address, origin=second) as socket:
                await socket.send(json.dumps({"secret": bob}))
                assert json.loads(await socket.recv())["ply"] == 0
                await asyncio.to_thread(
                    request, first, f"/api/online/{game_id}/move", {"move": "X@c3", "ply": 0}, ann
                )
                while True:
                    view = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))
                    if view["ply"] == 1:
                        return view

        seen = asyncio.run(watch_on_second_while_first_moves())
        assert seen["awaiting"] == 2 and seen["plies"][-1]["move"] == "X@c3"
        with pytest.raises(urllib.error.HTTPError) as stale:  # the same move again, elsewhere
            request(second, f"/api/online/{game_id}/move", {"move": "X@c3", "ply": 0}, ann)
        assert stale.value.code == 409
        assert request(second, f"/api/online/{game_id}/move", {"move": "O@d4", "ply": 1}, bob)
        assert request(first, f"/api/online/{game_id}")["ply"] == 2


@pytest.mark.slow
def test_serve_starts_and_flags_fall_past_a_game_it_cannot_read(tmp_path: Path) -> None:
    import time

    from abstractgames import get_game
    from abstractgames.records import MatchRecord
    from abstractgames.web.database import Database

    database = str(tmp_path / "games.db")
    game = get_game("orderchaos")
    long_ago = time.time() - 3 * 86_400
    with Database.open(database) as store:
        damaged = store.create_game(  # a bot's game, its pace as the server once stored it
            game.spec,
            "9e-05 days a move",
            [("a" * 64, None, None), (None, None, "greedy")],
            None,
            long_ago,
            deadline=long_ago,
            record=MatchRecord("orderchaos", {}, ("human", "greedy"), seed=1).dumps(),
        )
    with public_server(tmp_path, database) as (process, url):
        made = request(
            url, "/api/online", {"game": "orderchaos", "seat": 1, "time_control": "0.01+0"}
        )
        assert made["id"] != damaged
        with pytest.raises(urllib.error.HTTPError) as slow:  # a public server's bots are quick
            request(url, "/api/online", {"game": "orderchaos", "opponent": "search:time=30"})
        assert slow.value.code == 400
    with public_server(tmp_path, database) as (process, url):
        deadline = time.monotonic() + 20
        while request(url, f"/api/online/{made['id']}")["status"] != "finished":
            assert time.monotonic() < deadline, "the flag did not fall"
            time.sleep(0.2)
        process.terminate()
        process.wait(timeout=30)
    said = "".join(process.said)  # type: ignore[attr-defined]
    assert f"game {damaged} is damaged" in said and "Traceback" not in said, said


@pytest.mark.slow
def test_a_servers_downtime_comes_off_no_clock(tmp_path: Path) -> None:
    import time

    database = str(tmp_path / "games.db")
    with public_server(tmp_path, database) as (process, url):
        made = request(url, "/api/online", {"game": "orderchaos", "seat": 1, "time_control": "1+0"})
        game_id = made["id"]
        time.sleep(1.5)  # a sweep or two while it runs
        before = request(url, f"/api/online/{game_id}")["clocks"][0]
        killed = time.monotonic()
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    time.sleep(5)  # no server
    with public_server(tmp_path, database) as (_, url):
        down = time.monotonic() - killed
        after = request(url, f"/api/online/{game_id}")["clocks"][0]
    assert down > 5
    assert before - after < 3.0 + 1.5, (before, after, down)  # the outage's slack and a start


def _creates(url: str, count: int, forwarded: bool) -> list[int]:
    """The statuses of `count` new games, each from a forged X-Forwarded-For address."""
    statuses = []
    for number in range(count):
        made = urllib.request.Request(
            url + "/api/online",
            data=json.dumps({"game": "orderchaos"}).encode(),
            headers={"Content-Type": "application/json", "Origin": url},
        )
        if forwarded:
            made.add_header("X-Forwarded-For", f"203.0.113.{number + 1}")
        try:
            with urllib.request.urlopen(made, timeout=20) as answer:
                statuses.append(answer.status)
        except urllib.error.HTTPError as error:
            statuses.append(error.code)
    return statuses


@pytest.mark.slow
def test_a_client_cannot_pass_for_many_with_x_forwarded_for(tmp_path: Path) -> None:
    database = str(tmp_path / "games.db")
    with public_server(tmp_path, database) as (_, url):  # clients straight to the server
        statuses = _creates(url, 35, forwarded=True)
    assert statuses.count(201) == 30 and statuses[30:] == [429] * 5, statuses
    with public_server(tmp_path, database, "--forwarded-allow-ips", "127.0.0.1") as (_, url):
        assert set(_creates(url, 35, forwarded=True)) == {201}  # a proxy's clients, each its own
