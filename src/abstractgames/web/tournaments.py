"""Tournaments started from the page: `abstractgames arena` run as a program, watched live.

The tournament is the command line's own (`abstractgames arena GAME --players ... --records DIR
--verbose`), in a process of its own, so that its bots use their own core and a stop is the
arena's Ctrl-C: it keeps its state and stops its engines. Each match's record appears in the
records directory as the match finishes; the page is told of each one, with a running tally of
wins, draws and losses, and at the end with the arena's own table (ratings and all).
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..protocol import Game
from ..records import MatchRecord, RecordError
from ..text import excerpt
from .errors import Conflict, NotFound
from .sessions import Live
from .views import replay_view

__all__ = ["MAX_RUNNING", "STOP_GRACE", "Tournament", "Tournaments"]

MAX_RUNNING = 4
"""The most tournaments played at once (each is a process)."""
STOP_GRACE = 10.0
"""Seconds a stopped tournament has to end before its process is killed."""
MAX_LOG = 40
"""The most lines of the arena's output a tournament keeps for the page."""


class Tournament(Live):
    """One round robin between `players`, `games` matches per pair, played by `abstractgames
    arena` in `directory` (records, state file and results are kept there)."""

    def __init__(
        self,
        game: Game,
        players: list[str],
        games: int,
        seed: int,
        directory: Path,
        *,
        tournament_id: str | None = None,
    ) -> None:
        super().__init__()
        self.id = secrets.token_urlsafe(18) if tournament_id is None else tournament_id
        self.game = game
        self.players = players
        self.games = games
        self.seed = seed
        self.directory = directory
        self.records = directory / "records"
        count = len(players)
        self.total = games * count * (count - 1) // 2
        self.matches: dict[int, dict[str, Any]] = {}
        self.status = "starting"
        self.table = ""
        self.error: str | None = None
        self.log: list[str] = []
        self._process: subprocess.Popen[str] | None = None
        self._output: list[str] = []
        self.done = threading.Event()

    def command(self) -> list[str]:
        """The arena's command line."""
        command = [sys.executable, "-m", "abstractgames", "arena", self.game.spec]
        for player in self.players:
            command += ["--players", player]
        command += [
            "--games",
            str(self.games),
            "--seed",
            str(self.seed),
            "--jobs",
            "1",
            "--records",
            str(self.records),
            "--state",
            str(self.directory / "state.jsonl"),
            "--json",
            str(self.directory / "results.json"),
            "--quiet",
            "--verbose",
        ]
        return command

    def start(self) -> None:
        """Start the arena and the threads that follow it."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self._process = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,  # a Ctrl-C at the server's terminal is the server's to pass on
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        with self.lock:
            self.status = "running"
        self.changed()
        threading.Thread(target=self._follow, name="abstractgames-arena-log", daemon=True).start()

    def _follow(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None and process.stdout is not None
        output = process.stdout
        reader = threading.Thread(target=lambda: self._output.extend(output), daemon=True)
        reader.start()
        for line in process.stderr:
            with self.lock:
                self.log = [*self.log[-(MAX_LOG - 1) :], excerpt(line.rstrip("\n"), 300)]
            self._scan()
            self.changed()
        status = process.wait()
        reader.join(5)
        self._scan()
        with self.lock:
            self.table = "".join(self._output)
            if status == 0:
                self.status = "finished"
            elif self.status == "stopping" or status in (130, 143):
                self.status = "stopped"
            else:
                self.status = "failed"
                self.error = "\n".join(self.log[-5:]) or f"the arena ended with status {status}"
        self.done.set()
        self.changed()

    def _scan(self) -> None:
        """Add the matches whose records appeared since the last look."""
        try:
            names = sorted(p.name for p in self.records.glob("*.json"))
        except OSError:
            return
        for name in names:
            number = _number(name)
            if number is None or number in self.matches:
                continue
            try:
                record = MatchRecord.load(self.records / name)
            except RecordError:
                continue
            result = record.result
            summary = {
                "number": number,
                "file": name,
                "players": list(record.players),
                "winner": None if result is None else result.winner,
                "reason": "" if result is None else result.reason,
                "scores": [None, None] if result is None else list(result.scores),
            }
            with self.lock:
                self.matches[number] = summary

    def stop(self) -> None:
        """Stop the arena as Ctrl-C does (it keeps its state); kill it if it does not end."""
        process = self._process
        if process is None or process.poll() is not None:
            return
        with self.lock:
            self.status = "stopping"
        self.changed()
        with _gone():
            os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            with _gone():
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def standings(self) -> list[dict[str, Any]]:
        """Each player's wins, draws, losses and points so far, most points first."""
        table: dict[str, dict[str, Any]] = {}
        for match in self.matches.values():
            for seat, spec in enumerate(match["players"], start=1):
                row = table.setdefault(
                    spec, {"player": spec, "played": 0, "wins": 0, "draws": 0, "losses": 0}
                )
                row["played"] += 1
                winner = match["winner"]
                key = "draws" if winner is None else "wins" if winner == seat else "losses"
                row[key] += 1
        rows = [{**row, "points": row["wins"] + row["draws"] / 2} for row in table.values()]
        return sorted(rows, key=lambda row: (-row["points"], row["player"]))

    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows of the tournament now."""
        with self.lock:
            matches = [self.matches[n] for n in sorted(self.matches)]
            return {
                "id": self.id,
                "version": self.version,
                "status": self.status,
                "game": self.game.spec,
                "players": list(self.players),
                "games": self.games,
                "seed": self.seed,
                "total": self.total,
                "done": len(matches),
                "matches": matches,
                "standings": self.standings(),
                "latest": matches[-1]["number"] if matches else None,
                "table": self.table,
                "log": list(self.log),
                "error": self.error,
                "directory": str(self.directory),
            }

    def match(self, number: int) -> dict[str, Any]:
        """The replay of match `number`.

        Raises:
            NotFound: it has not finished (or does not exist).
        """
        with self.lock:
            summary = self.matches.get(number)
        if summary is None:
            raise NotFound(f"match {number} of this tournament has not finished")
        return replay_view(MatchRecord.load(self.records / summary["file"]))


class _gone:
    """Ignore a process that is already gone."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: object, trace: object) -> bool:
        return isinstance(error, ProcessLookupError | PermissionError)


def _number(name: str) -> int | None:
    head = name.partition("-")[0]
    return int(head) if head.isdigit() else None


class Tournaments:
    """Every tournament started from the page, by its unguessable id."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._tournaments: dict[str, Tournament] = {}
        self._lock = threading.Lock()

    def create(self, game: Game, players: list[str], games: int, seed: int) -> Tournament:
        """Start a tournament (its players were checked by the caller).

        Raises:
            Conflict: [`MAX_RUNNING`][] tournaments are being played.
        """
        with self._lock:
            running = [t for t in self._tournaments.values() if not t.done.is_set()]
        if len(running) >= MAX_RUNNING:
            raise Conflict(f"{len(running)} tournaments are being played: stop one first")
        tournament_id = secrets.token_urlsafe(18)
        slug = re.sub(r"[^A-Za-z0-9_-]+", "_", game.spec)
        stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}-{seed}-{tournament_id[:6]}"
        tournament = Tournament(
            game, players, games, seed, self.directory / stem, tournament_id=tournament_id
        )
        with self._lock:
            self._tournaments[tournament.id] = tournament
        tournament.start()
        return tournament

    def get(self, tournament_id: str) -> Tournament:
        """The tournament with this id.

        Raises:
            NotFound: there is none.
        """
        with self._lock:
            tournament = self._tournaments.get(tournament_id)
        if tournament is None:
            raise NotFound("no such tournament here")
        return tournament

    def listing(self) -> list[dict[str, Any]]:
        """A line about each tournament, newest first."""
        with self._lock:
            tournaments = list(self._tournaments.values())
        return [
            {
                "id": t.id,
                "game": t.game.spec,
                "players": t.players,
                "status": t.status,
                "done": len(t.matches),
                "total": t.total,
            }
            for t in reversed(tournaments)
        ]

    def shutdown(self) -> None:
        """Stop every tournament that is running."""
        with self._lock:
            tournaments = list(self._tournaments.values())
        threads = [threading.Thread(target=t.stop, daemon=True) for t in tournaments]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(STOP_GRACE + 5)
