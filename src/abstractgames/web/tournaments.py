"""Tournaments started from the page: the arena's [`Arena`][abstractgames.arena.Arena], run in a
thread of the server and watched live.

The tournament is the one `abstractgames arena` plays, through the arena's library: the same
`Arena`, its matches played one at a time in a worker process of their own
([`ProcessExecutor`][abstractgames.arena.ProcessExecutor] with one job), so that the bots think
on their own core, not in the server's; the finished matches kept in a state file, every
match's record in the records directory and, at the end, the JSON results, all in the
tournament's directory. The page hears of each match through the arena's own event
([`MatchDone`][abstractgames.arena.MatchDone]): its result, its record's file, its line
(`match 3/8: greedy vs random: greedy won (five in a row), 0.2 s`) and the arena's report of the
matches so far, whose standings the page shows; at the end, the arena's own table (ratings and
all), of every match or of those played before a stop.

A stop is the arena's own: the event given to [`Arena.run`][abstractgames.arena.Arena.run], which
interrupts the worker's match as Ctrl-C does (its players are closed, its programs quit) and
keeps every finished match in the state file; `abstractgames arena --resume` can finish the
tournament from there. Nothing is left running once [`Tournaments.shutdown`][] returns.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from pathlib import Path
from typing import Any

from ..arena import Arena, ArenaReport, ArenaState, MatchDone, ProcessExecutor
from ..files import safe_name
from ..protocol import AbstractGamesError, Game
from ..records import MatchRecord
from ..text import excerpt
from .errors import Conflict, NotFound
from .sessions import Live
from .views import replay_view

__all__ = ["MAX_RUNNING", "STOP_GRACE", "Tournament", "Tournaments"]

MAX_RUNNING = 4
"""The most tournaments played at once (each has a worker process)."""
STOP_GRACE = 20.0
"""Seconds [`Tournament.stop`][] waits for a stopped tournament to end. It ends within a second
or so; a worker whose match does not stop is killed after ten seconds (the arena's own grace)."""
MAX_LOG = 40
"""The most lines about the tournament (its matches, its end) kept for the page."""

logger = logging.getLogger(__name__)


class Tournament(Live):
    """One round robin between `players`, `games` matches per pair, played by the arena in a
    thread, with its records, state file and results in `directory`."""

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
        self.state_path = directory / "state.jsonl"
        self.results_path = directory / "results.json"
        count = len(players)
        self.total = games * count * (count - 1) // 2
        self.matches: dict[int, dict[str, Any]] = {}
        self.standings: list[dict[str, Any]] = []
        """The arena's standings after the last match finished (strongest first)."""
        self.status = "starting"
        self.table = ""
        self.error: str | None = None
        self.log: list[str] = []
        self.time_left: float | None = None
        self.done = threading.Event()
        """Set once the tournament has ended (finished, stopped or failed)."""
        self._stop = threading.Event()

    def start(self) -> None:
        """Start the arena in a thread of its own (the tournament is running from now on: it
        can be stopped while its players are checked and its worker starts)."""
        with self.lock:
            self.status = "running"
        threading.Thread(
            target=self._run, name=f"abstractgames-arena-{self.id[:6]}", daemon=True
        ).start()
        self.changed()

    def _run(self) -> None:
        state: ArenaState | None = None
        try:
            arena = Arena(self.game, self.players, games=self.games, seed=self.seed)
            self.directory.mkdir(parents=True, exist_ok=True)
            state = ArenaState.create(self.state_path, arena)
            report = arena.run(
                ProcessExecutor(1),
                state=state,
                records=self.records,
                on_match=self._finished,
                stop=self._stop,
            )
            if report.complete:
                report.save(self.results_path)
            self._end(report)
        except KeyboardInterrupt:  # Ctrl-C at the server's terminal reached the worker
            self._end(None)
        except AbstractGamesError as error:
            self._fail(str(error))
        except Exception as error:
            logger.exception("tournament %s failed", self.id)
            self._fail(f"{type(error).__name__}: {error}")
        finally:
            if state is not None:
                state.close()
            self.done.set()
            self.changed()

    def _finished(self, done: MatchDone) -> None:
        """The arena's event for each finished match: its line, result and the standings."""
        match = done.match
        summary = {
            "number": match.number,
            "file": None if done.record is None else done.record.name,
            "players": list(match.players),
            "names": list(done.names),
            "winner": match.winner,
            "reason": match.reason,
            "scores": list(match.scores),
            "seconds": done.seconds,
        }
        standings = _standings(done.report())
        with self.lock:
            self.matches[match.number] = summary
            self.standings = standings
            self.time_left = done.time_left
            self._say(done.line())
        self.changed()

    def _end(self, report: ArenaReport | None) -> None:
        with self.lock:
            played = len(self.matches)
            if report is not None and report.complete:
                self.status = "finished"
                self.table = report.format_table()
                self._say(f"finished: the results are in {self.results_path}")
            else:
                self.status = "stopped"
                if report is not None and report.matches:
                    self.table = report.format_table()
                self._say(
                    f"stopped after {played} of {self.total} matches: they are kept in "
                    f"{self.state_path}"
                )
            self.time_left = None

    def _fail(self, reason: str) -> None:
        with self.lock:
            self.status = "failed"
            self.error = excerpt(reason, 2000)
            self._say(f"failed: {reason}")
            self.time_left = None

    def _say(self, line: str) -> None:
        """Keep a line for the page (with the lock held)."""
        self.log = [*self.log[-(MAX_LOG - 1) :], excerpt(line, 300)]

    def stop(self) -> None:
        """Stop the tournament as Ctrl-C stops the arena (it keeps its state) and wait, up to
        [`STOP_GRACE`][] seconds, for it to end."""
        self._stop.set()
        if self.done.is_set():
            return
        with self.lock:
            if self.status in ("starting", "running"):
                self.status = "stopping"
        self.changed()
        self.done.wait(STOP_GRACE)

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
                "standings": list(self.standings),
                "latest": matches[-1]["number"] if matches else None,
                "table": self.table,
                "log": list(self.log),
                "error": self.error,
                "directory": str(self.directory),
                "time_left": self.time_left,
            }

    def match(self, number: int) -> dict[str, Any]:
        """The replay of match `number`.

        Raises:
            NotFound: it has not finished (or does not exist).
        """
        with self.lock:
            summary = self.matches.get(number)
        if summary is None or summary["file"] is None:
            raise NotFound(f"match {number} of this tournament has not finished")
        return replay_view(MatchRecord.load(self.records / summary["file"]))


def _standings(report: ArenaReport) -> list[dict[str, Any]]:
    """The arena's standings as JSON (rank, name, games, wins, …, Elo and its interval), each
    with `played`, its number of matches, as the page reads it."""
    return [{**row, "played": row["games"]} for row in report.to_json(matches=False)["standings"]]


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
        stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{safe_name(game.spec)}-{seed}-{tournament_id[:6]}"
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
        """Stop every tournament that is running, all at once, and wait for them to end (their
        worker processes are gone when this returns)."""
        with self._lock:
            tournaments = list(self._tournaments.values())
        threads = [threading.Thread(target=t.stop, daemon=True) for t in tournaments]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(STOP_GRACE + 5)
