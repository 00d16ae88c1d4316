"""A load check of the game server: simulated players over WebSockets on 127.0.0.1.

`serve --public` is started on the database given (a SQLite file by default, or a
`postgresql://` URL); `--games M` games (`--game`, by default a 5×5 Entropy match) are created
through the API, and each of their two players is a client with a WebSocket of its own.
Whenever its socket says it is to move, a player posts a legal move (the middle one of its
list, so the games are long); the time from a move's acknowledgement to the opponent's socket
showing it is the latency measured. The run lasts `--seconds`, then prints moves per second,
the latency's median and 95th percentile, and the server's resident memory (from /proc) at
the end.

Usage: python benchmarks/server_load.py [--games M] [--seconds S] [--database PATH|URL] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
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
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def memory_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Player:
    def __init__(
        self, url: str, game_id: str, seat: int, secret: str, stats: dict[str, Any]
    ) -> None:
        self.url, self.game_id, self.seat, self.secret, self.stats = (
            url,
            game_id,
            seat,
            secret,
            stats,
        )

    async def run(self, until: float, acked: dict[tuple[str, int], float]) -> None:
        address = self.url.replace("http://", "ws://") + f"/api/online/{self.game_id}/ws"
        async with websockets.connect(address, origin=self.url, max_size=2**22) as socket:
            await socket.send(json.dumps({"secret": self.secret}))
            posted = -1
            while time.monotonic() < until:
                try:
                    view = json.loads(
                        await asyncio.wait_for(socket.recv(), timeout=until - time.monotonic())
                    )
                except (TimeoutError, websockets.ConnectionClosed):
                    return
                seen = acked.pop((self.game_id, view["ply"]), None)
                if seen is not None:
                    self.stats["latencies"].append(time.monotonic() - seen)
                if view["status"] != "playing" or view["awaiting"] != self.seat:
                    continue
                if view["ply"] <= posted:
                    continue  # a second snapshot of a turn already answered
                posted = view["ply"]
                move = view["legal"][len(view["legal"]) // 2]["move"]
                try:
                    await asyncio.to_thread(
                        post,
                        self.url,
                        f"/api/online/{self.game_id}/move",
                        {"move": move, "ply": view["ply"]},
                        self.secret,
                    )
                except Exception as error:  # a 409 if a snapshot was stale: counted, not fatal
                    self.stats["refused"] += 1
                    self.stats["errors"].append(str(error))
                    continue
                acked[(self.game_id, view["ply"] + 1)] = time.monotonic()
                self.stats["moves"] += 1


async def load(url: str, games: int, seconds: float, game: str) -> dict[str, Any]:
    stats: dict[str, Any] = {"moves": 0, "refused": 0, "latencies": [], "errors": []}
    players = []
    for _ in range(games):
        made = await asyncio.to_thread(post, url, "/api/online", {"game": game, "seat": 1})
        players.append(Player(url, made["id"], 1, made["secret"], stats))
        players.append(Player(url, made["id"], 2, made["invitation"], stats))
    acked: dict[tuple[str, int], float] = {}
    began = time.monotonic()
    await asyncio.gather(*(p.run(began + seconds, acked) for p in players))
    elapsed = time.monotonic() - began
    latencies = sorted(stats["latencies"])
    return {
        "games": games,
        "players": 2 * games,
        "seconds": round(elapsed, 1),
        "moves": stats["moves"],
        "moves_per_second": round(stats["moves"] / elapsed, 1),
        "latency_median_ms": round(1000 * statistics.median(latencies), 1) if latencies else None,
        "latency_p95_ms": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1)
        if latencies
        else None,
        "refused": stats["refused"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--game", default="entropy:size=5", help="the game played (a spec)")
    parser.add_argument(
        "--database", help="a SQLite path or postgresql:// URL (default: a new file)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        database = args.database or str(Path(scratch) / "games.db")
        process, url = start(database, Path(scratch))
        try:
            result = asyncio.run(load(url, args.games, args.seconds, args.game))
            result["server_memory_mb"] = round(memory_mb(process.pid), 1)
            result["game"] = args.game
            result["database"] = "postgresql" if database.startswith("postgresql") else "sqlite"
        finally:
            process.terminate()
            process.wait(timeout=30)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20}: {value}")


if __name__ == "__main__":
    main()
