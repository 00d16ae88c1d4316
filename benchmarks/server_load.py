"""A load check of the game server: simulated players over WebSockets on 127.0.0.1.

`serve --public` is started on the database given (a SQLite file by default, or a
`postgresql://` URL; `--processes 2` starts two servers on it, which needs PostgreSQL);
`--games M` games (`--game`, by default a 5×5 Entropy match) are created through the API, and
each of their two players is a client with a WebSocket of its own, on one of the servers in
turn. Whenever its socket says it is to move, a player thinks for a time drawn between the two
`--think` bounds (seconds; 0 0: at once), then posts a legal move (the middle one of its list,
so the games are long); the time from a move's sending to the opponent's socket showing it is
the latency measured. `--watchers W` more pages follow the games (spread over them),
each a WebSocket that only reads. The run lasts `--seconds`, then prints moves per second, the
latency's median and 95th percentile, the errors (refused moves, sockets refused or cut), and
the servers' resident memory (from /proc) at the end. A finished game is replaced by a new one,
so that every player keeps playing.

Usage: python benchmarks/server_load.py [--games M] [--seconds S] [--think MIN MAX]
       [--watchers W] [--processes P] [--database PATH|URL] [--seed N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets

SERVING = re.compile(r"serving on (http://\S+)")


def start(database: str, data: Path) -> tuple[subprocess.Popen[str], str]:
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
            "--no-rate-limits",
        ],  # every simulated player is 127.0.0.1, as behind a proxy
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stderr is not None
    while line := process.stderr.readline():
        found = SERVING.search(line)
        if found:
            return process, found.group(1).rstrip("/")
    raise SystemExit("the server did not start")


def post(url: str, path: str, body: Any, secret: str | None = None) -> Any:
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Origin", url)
    if secret:
        request.add_header("X-Seat", secret)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def memory_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Stats:
    def __init__(self) -> None:
        self.moves = 0
        self.latencies: list[float] = []
        self.errors: dict[str, int] = {}
        self.sent: dict[tuple[str, int], tuple[float, str]] = {}
        """When each move was sent, by game and the ply after it, and by whom."""
        self.frames = 0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class Player:
    """One seat: it follows its game on a socket, thinks, moves; on to the rematch at the end."""

    def __init__(self, url: str, game_id: str, secret: str, think: tuple[float, float]) -> None:
        self.url, self.game_id, self.secret, self.think = url, game_id, secret, think

    async def run(self, until: float, stats: Stats, rng: random.Random) -> None:
        while time.monotonic() < until:
            rematch = await self._play(until, stats, rng)
            if rematch is None:
                return
            self.game_id = rematch

    async def _play(self, until: float, stats: Stats, rng: random.Random) -> str | None:
        address = self.url.replace("http://", "ws://") + f"/api/online/{self.game_id}/ws"
        try:
            socket = await websockets.connect(address, origin=self.url, max_size=2**22)
        except Exception:  # refused (503) or failed
            stats.error("socket refused")
            return None
        async with socket:
            await socket.send(json.dumps({"secret": self.secret}))
            posted = -1
            while time.monotonic() < until:
                try:
                    view = json.loads(
                        await asyncio.wait_for(socket.recv(), timeout=until - time.monotonic())
                    )
                except TimeoutError:
                    return None
                except websockets.ConnectionClosed:
                    stats.error("socket closed by the server")
                    return None
                sent = stats.sent.get((self.game_id, view["ply"]))
                if sent is not None and sent[1] != self.secret:  # the opponent's move, shown
                    del stats.sent[(self.game_id, view["ply"])]
                    stats.latencies.append(time.monotonic() - sent[0])
                if view["status"] == "finished":
                    try:
                        made = await asyncio.to_thread(
                            post, self.url, f"/api/online/{self.game_id}/rematch", {}, self.secret
                        )
                    except Exception:
                        stats.error("rematch refused")
                        return None
                    return str(made["id"])
                if view["awaiting"] != view["you"] or view["ply"] <= posted:
                    continue  # the opponent's turn, or a second snapshot of a turn answered
                posted = view["ply"]
                await asyncio.sleep(rng.uniform(*self.think))
                move = view["legal"][len(view["legal"]) // 2]["move"]
                stats.sent[(self.game_id, view["ply"] + 1)] = (time.monotonic(), self.secret)
                try:
                    await asyncio.to_thread(
                        post,
                        self.url,
                        f"/api/online/{self.game_id}/move",
                        {"move": move, "ply": view["ply"]},
                        self.secret,
                    )
                except Exception:
                    stats.error("move refused")
                    continue
                stats.moves += 1
        return None


async def watch(url: str, game_id: str, until: float, stats: Stats) -> None:
    address = url.replace("http://", "ws://") + f"/api/online/{game_id}/ws"
    try:
        socket = await websockets.connect(address, origin=url, max_size=2**22)
    except Exception:
        stats.error("socket refused")
        return
    async with socket:
        await socket.send("{}")
        while (left := until - time.monotonic()) > 0:
            try:
                await asyncio.wait_for(socket.recv(), timeout=left)
                stats.frames += 1
            except TimeoutError:
                return
            except websockets.ConnectionClosed:
                stats.error("socket closed by the server")
                return


async def load(
    urls: list[str],
    games: int,
    seconds: float,
    game: str,
    think: tuple[float, float],
    watchers: int,
    seed: int,
) -> dict[str, Any]:
    stats = Stats()
    rng = random.Random(seed)
    players, game_ids = [], []
    servers = itertools.cycle(urls)
    for _ in range(games):
        url = next(servers)
        made = await asyncio.to_thread(post, url, "/api/online", {"game": game, "seat": 1})
        game_ids.append(made["id"])
        players.append(Player(url, made["id"], made["secret"], think))
        players.append(Player(next(servers), made["id"], made["invitation"], think))
    began = time.monotonic()
    until = began + seconds
    tasks = [p.run(until, stats, random.Random(rng.random())) for p in players]
    tasks += [
        watch(next(servers), game_ids[number % len(game_ids)], until, stats)
        for number in range(watchers)
    ]
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - began
    latencies = sorted(stats.latencies)
    return {
        "games": games,
        "players": 2 * games,
        "watchers": watchers,
        "think_seconds": list(think),
        "seconds": round(elapsed, 1),
        "moves": stats.moves,
        "moves_per_second": round(stats.moves / elapsed, 1),
        "latency_median_ms": round(1000 * statistics.median(latencies), 1) if latencies else None,
        "latency_p95_ms": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1)
        if latencies
        else None,
        "watcher_frames": stats.frames,
        "errors": sum(stats.errors.values()),
        "error_kinds": stats.errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--game", default="entropy:size=5", help="the game played (a spec)")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(0.0, 0.0),
        metavar=("MIN", "MAX"),
        help="seconds a player thinks before each move, drawn between these (default: 0 0)",
    )
    parser.add_argument("--watchers", type=int, default=0, help="pages that only watch")
    parser.add_argument("--processes", type=int, default=1, help="servers (2: PostgreSQL)")
    parser.add_argument("--seed", type=int, default=1, help="the players' thinking times")
    parser.add_argument(
        "--database", help="a SQLite path or postgresql:// URL (default: a new file)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a socket is a file, here and there
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory() as scratch:
        database = args.database or str(Path(scratch) / "games.db")
        if args.processes > 1 and not database.startswith("postgresql"):
            raise SystemExit("several processes share a PostgreSQL database: give --database")
        servers = [start(database, Path(scratch) / str(n)) for n in range(args.processes)]
        try:
            result = asyncio.run(
                load(
                    [url for _, url in servers],
                    args.games,
                    args.seconds,
                    args.game,
                    tuple(args.think),
                    args.watchers,
                    args.seed,
                )
            )
            result["server_memory_mb"] = [round(memory_mb(p.pid), 1) for p, _ in servers]
            result["game"] = args.game
            result["processes"] = args.processes
            result["database"] = "postgresql" if database.startswith("postgresql") else "sqlite"
        finally:
            for process, _ in servers:
                process.terminate()
                process.wait(timeout=30)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20}: {value}")


if __name__ == "__main__":
    main()
