"""Tournaments: a seeded round robin between players, run in parallel, with honest statistics.

Every pair of players plays ``games`` matches. The matches come in pairings: both matches of a
pairing are played on the same seed with the seats swapped, so each player of the pair meets the
same chance events (Entropy's bag draws) in the same roles. A match is whatever the game's match
rules say (Entropy: two games with the roles swapped; the other games: one game).

The schedule follows from the game, the players, ``games`` and the seed alone; each match is an
independent, picklable :class:`MatchTask` that a worker plays with the
:class:`~abstractgames.referee.Referee`. The results are gathered by their place in the schedule,
never by the order in which they finish, so the same seed gives the same results whichever
:class:`Executor` runs the matches: one process, local processes, or a dask.distributed cluster
(as long as the players themselves are deterministic: a time budget depends on the machine).

```pycon
>>> arena = Arena("orderchaos", ["random", "greedy"], games=2, seed=1)
>>> [(task.round, task.players) for task in arena.tasks]
[(1, ('random', 'greedy')), (1, ('greedy', 'random'))]
>>> report = arena.run()
>>> [(s.player, s.wins, s.losses) for s in report.standings]
[('greedy', 2, 0), ('random', 0, 2)]

```
"""

from __future__ import annotations

import abc
import hashlib
import importlib
import json
import os
import re
import signal
import tempfile
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing, suppress
from pathlib import Path
from types import FrameType
from typing import Any

import attrs

from . import stats
from .players import Player
from .protocol import AbstractGamesError, Game, SingleGameMatch
from .records import MatchRecord, RecordError
from .referee import Referee
from .registry import make_player, parse_game_spec

__all__ = [
    "ARENA_FORMAT",
    "ARENA_VERSION",
    "STATE_FORMAT",
    "Arena",
    "ArenaError",
    "ArenaReport",
    "ArenaState",
    "DaskExecutor",
    "Executor",
    "MatchSummary",
    "MatchTask",
    "PairResult",
    "ProcessExecutor",
    "SerialExecutor",
    "Standing",
    "default_jobs",
    "make_executor",
    "play_match",
    "plural",
    "round_seed",
]

ARENA_FORMAT = "abstractgames-arena"
"""The ``format`` of the JSON results."""
STATE_FORMAT = "abstractgames-arena-state"
"""The ``format`` in the first line of a state file."""
ARENA_VERSION = 1
CONFIDENCE = 0.95
VIRTUAL_DRAWS = 1.0


class ArenaError(AbstractGamesError):
    """A tournament that cannot be set up, continued or finished."""


class MatchInterrupted(Exception):
    """A match stopped by Ctrl-C before it was decided (its result is not kept)."""


# --- the schedule -----------------------------------------------------------------------------


@attrs.frozen
class MatchTask:
    """One match of a tournament: everything a worker needs to play it.

    Attributes:
        number: the match's place in the schedule (1, 2, …).
        round: its pairing (1, 2, …): the two matches of a pairing share the seed, seats swapped.
        game: the game spec, e.g. ``"entropy:size=5"``.
        players: the specs of player 1 and player 2.
        seed: the match seed.
    """

    number: int
    round: int
    game: str
    players: tuple[str, str]
    seed: int

    @property
    def key(self) -> tuple[int, str, str]:
        """What identifies the match across runs: its round and its players in their seats."""
        return (self.round, *self.players)


def round_seed(seed: int, round: int) -> int:
    """The seed of every match of ``round`` in the tournament with ``seed`` (a 32-bit number).

    Every pair of players plays round ``r`` on the same seed, and different tournament seeds share
    no rounds.
    """
    digest = hashlib.sha256(f"abstractgames-arena/{seed}/{round}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def play_match(task: MatchTask) -> str:
    """Play one match of the schedule; return its record as JSON text.

    Raises:
        MatchInterrupted: Ctrl-C stopped the match.
    """
    game = parse_game_spec(task.game)
    first = make_player(task.players[0], game)
    try:
        second = make_player(task.players[1], game)
    except BaseException:
        first.close()
        raise
    players: tuple[Player, Player] = (first, second)
    record = Referee(game, players, seed=task.seed).play()
    if not record.finished:
        raise MatchInterrupted(f"match {task.number} was interrupted")
    return record.dumps()


# --- executors --------------------------------------------------------------------------------


Results = Generator[tuple[MatchTask, str], None, None]
"""What :meth:`Executor.results` returns: each match with its record, as it finishes."""


class Executor(abc.ABC):
    """Plays matches: :meth:`results` yields each task with its record, in any order."""

    @abc.abstractmethod
    def results(self, tasks: Sequence[MatchTask]) -> Results:
        """Play ``tasks``; yield ``(task, record JSON text)`` as each match finishes.

        Closing the iterator early stops the matches still running.

        Raises:
            ArenaError: a match failed (not by the rules: a bug, a lost worker); the message
                names the match.
            KeyboardInterrupt: Ctrl-C.
        """


def _failed(task: MatchTask, error: BaseException) -> ArenaError:
    what = (
        str(error) if isinstance(error, AbstractGamesError) else f"{type(error).__name__}: {error}"
    )
    return ArenaError(
        f"match {task.number} ({task.players[0]} against {task.players[1]}, seed {task.seed}) "
        f"failed: {what}"
    )


class SerialExecutor(Executor):
    """Plays the matches one after another in this process."""

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        for task in tasks:
            try:
                text = play_match(task)
            except MatchInterrupted:
                raise KeyboardInterrupt from None
            except Exception as error:
                raise _failed(task, error) from error
            yield task, text


_stop: Any = None
"""In a worker process: the event the main process sets to stop the matches."""
_running = False
"""In a worker process: whether a match is being played (Ctrl-C then stops it)."""


def _init_worker(stop: Any, pids: Any) -> None:
    global _stop
    _stop = stop
    signal.signal(signal.SIGINT, _interrupt)
    pids.put(os.getpid())


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C in a worker: stop the match being played (once); ignored between matches."""
    global _running
    if _running:
        _running = False
        raise KeyboardInterrupt


def _worker_play(task: MatchTask) -> str:
    global _running
    _running = True
    try:
        if _stop is not None and _stop.is_set():
            raise MatchInterrupted(f"match {task.number} was not started")
        return play_match(task)
    finally:
        _running = False


class ProcessExecutor(Executor):
    """Plays the matches in ``jobs`` local worker processes (started afresh, with ``spawn``).

    Ctrl-C stops the matches being played (the players are closed, external programs quit) and
    the ones not yet started.
    """

    def __init__(self, jobs: int) -> None:
        if jobs < 1:
            raise ArenaError(f"jobs must be at least 1, not {jobs}")
        self.jobs = jobs

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        if not tasks:
            return
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        stop = context.Event()
        pids = context.SimpleQueue()
        pool = ProcessPoolExecutor(
            max_workers=min(self.jobs, len(tasks)),
            mp_context=context,
            initializer=_init_worker,
            initargs=(stop, pids),
        )
        futures: dict[Future[str], MatchTask] = {}
        try:
            futures = {pool.submit(_worker_play, task): task for task in tasks}
            for future in as_completed(futures):
                task = futures[future]
                try:
                    text = future.result()
                except (MatchInterrupted, KeyboardInterrupt):
                    raise KeyboardInterrupt from None
                except BrokenProcessPool:
                    raise ArenaError(
                        "a worker process died (killed, or out of memory?) during match "
                        f"{task.number} or another one"
                    ) from None
                except Exception as error:
                    raise _failed(task, error) from error
                yield task, text
        finally:
            if not all(future.done() for future in futures):
                stop.set()
                while not pids.empty():
                    with suppress(OSError):
                        os.kill(pids.get(), signal.SIGINT)
            pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(Executor):
    """Plays the matches on a dask.distributed cluster (the ``dask`` extra).

    Every worker needs this version of abstractgames installed, and every external program the
    player specs name at the same path. Ctrl-C cancels the matches not yet started; the ones
    running finish on their workers, and their results are dropped.

    Args:
        address: the scheduler, e.g. ``"tcp://10.0.0.5:8786"``.
        timeout: seconds to wait for the connection.
    """

    def __init__(self, address: str, timeout: float = 30.0) -> None:
        self.address = address
        self.timeout = timeout

    def results(self, tasks: Sequence[MatchTask]) -> Results:
        try:
            distributed: Any = importlib.import_module("distributed")
        except ImportError:
            raise ArenaError(
                "the dask executor needs dask.distributed: pip install 'abstractgames[dask]'"
            ) from None
        try:
            client = distributed.Client(self.address, timeout=self.timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise ArenaError(
                f"cannot reach the dask scheduler at {self.address}: {error}"
            ) from None
        futures: list[Any] = []
        try:
            futures = [client.submit(play_match, task, pure=False) for task in tasks]
            owner = {future.key: task for future, task in zip(futures, tasks, strict=True)}
            for future in distributed.as_completed(futures, loop=client.loop):
                task = owner[future.key]
                try:
                    text = future.result()
                except Exception as error:
                    raise _failed(task, error) from error
                yield task, text
        finally:
            with suppress(Exception):
                client.cancel(futures)
            client.close()


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_DASK = re.compile(r"^dask://(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(?P<port>\d{1,5})$")


def make_executor(spec: str | None = None, jobs: int | None = None) -> Executor:
    """The executor named by ``spec``: ``"local"`` (the default) or ``"dask://HOST:PORT"``.

    Locally, ``jobs`` processes play at once (default: one per core); one job plays in this
    process. A dask cluster plays as many matches at once as its workers have threads.

    Raises:
        ArenaError: an unknown executor, or ``jobs`` given for a dask cluster.
    """
    if spec is None or spec.strip().lower() == "local":
        count = default_jobs() if jobs is None else jobs
        if count < 1:
            raise ArenaError(f"jobs must be at least 1, not {count}")
        return SerialExecutor() if count == 1 else ProcessExecutor(count)
    found = _DASK.match(spec.strip())
    if found is None:
        raise ArenaError(f"unknown executor {spec!r}: use 'local' or 'dask://HOST:PORT'")
    if jobs is not None:
        raise ArenaError(
            "jobs are for local processes: a dask cluster plays as many matches at once as its "
            "workers have threads"
        )
    return DaskExecutor(f"tcp://{found['host']}:{found['port']}")


# --- results ------------------------------------------------------------------------------------


@attrs.frozen
class MatchSummary:
    """How one match of the tournament ended.

    Attributes:
        number, round, players, seed: as in its :class:`MatchTask`.
        winner: 1 or 2 (the seat), or ``None`` for a draw.
        reason: the result's reason, e.g. ``"five in a row"`` or why a program failed.
        scores: each seat's score where the game has one (Entropy: the Order scores).
        games: how many games of the match were played.
        ended_by: ``(event, seat)`` when a player lost outside the rules of the game
            (``"resigned"``, ``"out of time"``, ``"forfeit"``), else ``None``.
    """

    number: int
    round: int
    players: tuple[str, str]
    seed: int
    winner: int | None
    reason: str
    scores: tuple[float | None, float | None]
    games: int
    ended_by: tuple[str, int] | None

    @classmethod
    def from_record(cls, task: MatchTask, record: MatchRecord) -> MatchSummary:
        """The summary of the finished match ``task`` from its record."""
        result = record.result
        if result is None:
            raise ArenaError(f"match {task.number} is not finished")
        ended = record.games[-1].ended_by if record.games else None
        return cls(
            number=task.number,
            round=task.round,
            players=task.players,
            seed=task.seed,
            winner=result.winner,
            reason=result.reason,
            scores=result.scores,
            games=len(record.games),
            ended_by=None if ended is None else (ended.event, ended.player),
        )

    def points(self, seat: int) -> float:
        """What the player in ``seat`` scored: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return 0.5 if self.winner is None else float(self.winner == seat)

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "round": self.round,
            "players": list(self.players),
            "seed": self.seed,
            "winner": self.winner,
            "reason": self.reason,
            "scores": list(self.scores),
            "games": self.games,
            "ended_by": None
            if self.ended_by is None
            else {"event": self.ended_by[0], "player": self.ended_by[1]},
        }


@attrs.frozen
class Standing:
    """One player's results over the whole tournament.

    Attributes:
        player: the spec.
        games: matches played (an Entropy match is two games).
        wins, draws, losses: match results.
        points: wins + draws / 2.
        elo, elo_error: the Bradley–Terry rating (the players average 0) and the half-width of
            its 95% interval.
        mean_score, score_error: the mean of the player's scores (Entropy: Order scores, one per
            match) and the half-width of its 95% interval (Student's t); ``None`` without scores.
        scored: how many scores the mean is of.
        forfeits: matches lost outside the rules (resigned, out of time, a failing program).
    """

    player: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    elo: float
    elo_error: float
    mean_score: float | None
    score_error: float | None
    scored: int
    forfeits: int

    @property
    def score(self) -> float | None:
        """The fraction of the points available, or ``None`` before any match."""
        return self.points / self.games if self.games else None


@attrs.frozen
class PairResult:
    """The results of one pair of players, from the first one's point of view.

    ``elo`` is how much stronger the first player is, with the half-width ``elo_error`` of its
    95% interval, from these matches alone (:func:`~abstractgames.stats.elo_difference`).
    ``by_seat`` splits the first player's ``(wins, draws, losses)`` by the seat it played in:
    as player 1 (the game's first role in the match's first game), then as player 2.
    """

    players: tuple[str, str]
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    elo: float
    elo_error: float
    by_seat: tuple[tuple[int, int, int], tuple[int, int, int]]


def _triple(counts: list[int]) -> tuple[int, int, int]:
    return counts[0], counts[1], counts[2]


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits) + 0.0  # no -0.0


@attrs.frozen
class ArenaReport:
    """The results of a tournament (of its finished matches, if it was not completed).

    Attributes:
        game: the game spec.
        players: the player specs, as given.
        games: matches per pair of players.
        seed: the tournament seed.
        unit: ``"game"``, or ``"match"`` where a match has several games (Entropy).
        scheduled: the number of matches in the schedule.
        matches: the finished matches in schedule order.
        standings: the players, strongest (highest rating) first.
        pairs: every pair of players in the order given.
        show_scores: whether the games' scores say more than the results (Entropy).
    """

    game: str
    players: tuple[str, ...]
    games: int
    seed: int
    unit: str
    scheduled: int
    matches: tuple[MatchSummary, ...]
    standings: tuple[Standing, ...]
    pairs: tuple[PairResult, ...]
    show_scores: bool

    @property
    def complete(self) -> bool:
        """Whether every match of the schedule was played."""
        return len(self.matches) == self.scheduled

    def to_json(self) -> dict[str, Any]:
        """The results as JSON data (see the arena documentation for the format)."""
        return {
            "format": ARENA_FORMAT,
            "version": ARENA_VERSION,
            "game": self.game,
            "players": list(self.players),
            "games_per_pair": self.games,
            "seed": self.seed,
            "unit": self.unit,
            "scheduled": self.scheduled,
            "played": len(self.matches),
            "confidence": CONFIDENCE,
            "virtual_draws": VIRTUAL_DRAWS,
            "standings": [
                {
                    "rank": rank,
                    "player": s.player,
                    "games": s.games,
                    "wins": s.wins,
                    "draws": s.draws,
                    "losses": s.losses,
                    "points": s.points,
                    "score": _round(s.score, 4),
                    "elo": _round(s.elo, 1),
                    "elo_error": _round(s.elo_error, 1),
                    "mean_score": _round(s.mean_score, 3),
                    "mean_score_error": _round(s.score_error, 3),
                    "scored": s.scored,
                    "forfeits": s.forfeits,
                }
                for rank, s in enumerate(self.standings, start=1)
            ],
            "pairs": [
                {
                    "players": list(p.players),
                    "games": p.games,
                    "wins": p.wins,
                    "draws": p.draws,
                    "losses": p.losses,
                    "points": p.points,
                    "elo_difference": _round(p.elo, 1),
                    "elo_error": _round(p.elo_error, 1),
                    "by_seat": [list(results) for results in p.by_seat],
                }
                for p in self.pairs
            ],
            "matches": [m.to_json() for m in self.matches],
        }

    def dumps(self) -> str:
        """The results as JSON text with sorted keys: the same results give the same bytes."""
        return json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`dumps` to ``path`` atomically."""
        _write_atomic(Path(path), self.dumps())

    def format_table(self) -> str:
        """The standings, the pairs and any losses outside the rules, as plain-text tables."""
        units = plural(self.unit)
        title = (
            f"{self.game}: {len(self.players)} players, {self.games} {units} per pair, "
            f"seed {self.seed}"
        )
        if not self.complete:
            title += f" ({len(self.matches)} of {self.scheduled} {units} played)"
        header = ["#", "player", f"{units}", "won", "drawn", "lost", "points", "Elo (95%)"]
        if self.show_scores:
            header.append("mean score (95%)")
        rows = []
        for rank, s in enumerate(self.standings, start=1):
            row = [str(rank), s.player, str(s.games), str(s.wins), str(s.draws), str(s.losses)]
            row += [_percent(s.score), _elo(s.elo, s.elo_error)]
            if self.show_scores:
                row.append(_mean(s.mean_score, s.score_error))
            rows.append(row)
        pair_header = ["pair", f"{units}", "won", "drawn", "lost", "points", "Elo difference (95%)"]
        pair_header += ["in seat 1", "in seat 2"]
        pair_rows = [
            [
                f"{p.players[0]} vs {p.players[1]}",
                str(p.games),
                str(p.wins),
                str(p.draws),
                str(p.losses),
                _percent(p.points / p.games if p.games else None),
                _elo(p.elo, p.elo_error),
                *("-".join(map(str, results)) for results in p.by_seat),
            ]
            for p in self.pairs
        ]
        parts = [
            title,
            "",
            _table(header, rows, left=2),
            "",
            _table(pair_header, pair_rows, left=1),
        ]
        notes = self._forfeit_notes()
        if notes:
            parts += ["", "Lost outside the rules of the game:", *notes]
        return "\n".join(parts) + "\n"

    def _forfeit_notes(self) -> list[str]:
        notes = []
        for player in self.players:
            lost = [
                m
                for m in self.matches
                if m.ended_by is not None and m.players[m.ended_by[1] - 1] == player
            ]
            if lost:
                noun = self.unit if len(lost) == 1 else plural(self.unit)
                example = f"match {lost[0].number}: {lost[0].reason}"
                notes.append(f"  {player}: {len(lost)} {noun}, e.g. {example}")
        return notes


def plural(unit: str) -> str:
    """``"games"`` or ``"matches"``."""
    return unit + ("es" if unit.endswith("ch") else "s")


def _elo(elo: float, error: float) -> str:
    return f"{round(elo):+d} ± {round(error)}"


def _percent(fraction: float | None) -> str:
    return "-" if fraction is None else f"{100 * fraction:.1f}%"


def _mean(mean: float | None, error: float | None) -> str:
    if mean is None:
        return "-"
    return f"{mean:.1f}" + ("" if error is None else f" ± {error:.1f}")


def _table(header: list[str], rows: list[list[str]], *, left: int) -> str:
    """Columns separated by two spaces; the first ``left`` columns aligned left, others right."""
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(width) if c < left else cell.rjust(width)
            for c, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join(line(r) for r in [header, *rows])


def _scores_say_more(match: MatchSummary) -> bool:
    """Whether the match's scores are more than its points (Entropy's Order scores are)."""
    if match.scores == (None, None):
        return False
    return match.scores != (match.points(1), match.points(2))


# --- the state file ---------------------------------------------------------------------------


class ArenaState:
    """The finished matches of a tournament, kept in a file as they finish (JSON lines).

    The first line names the game and the seed; each further line holds one finished match, its
    round and its whole record. Lines are appended in one write each, so a tournament stopped at
    any moment (Ctrl-C, a crash, a kill) keeps every match that finished.

    Use :meth:`create` for a new tournament and :meth:`resume` to continue one.
    """

    def __init__(self, path: Path, finished: dict[tuple[int, str, str], MatchRecord]) -> None:
        self.path = path
        self.finished = finished
        """The records of the matches read from the file, by :attr:`MatchTask.key`."""
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_APPEND)

    @classmethod
    def create(cls, path: str | os.PathLike[str], arena: Arena) -> ArenaState:
        """Start a new state file for ``arena``.

        Raises:
            ArenaError: the file exists (it may hold a tournament to resume), or cannot be written.
        """
        target = Path(path)
        header = {
            "format": STATE_FORMAT,
            "version": ARENA_VERSION,
            "game": arena.game.spec,
            "seed": arena.seed,
        }
        try:
            with open(target, "x", encoding="utf-8") as handle:
                handle.write(json.dumps(header, sort_keys=True) + "\n")
        except FileExistsError:
            raise ArenaError(
                f"{target} already holds a tournament: resume it, or delete the file"
            ) from None
        except OSError as error:
            raise ArenaError(f"cannot write {target}: {error.strerror or error}") from None
        return cls(target, {})

    @classmethod
    def resume(cls, path: str | os.PathLike[str], arena: Arena) -> ArenaState:
        """Open the state file of ``arena`` to continue it; read the matches that finished.

        Matches of the file that are not in ``arena``'s schedule (other players, fewer games)
        are kept in the file but not used.

        Raises:
            ArenaError: no such file, or one of another game or seed, or damaged.
        """
        target = Path(path)
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            raise ArenaError(f"there is no tournament to resume in {target}") from None
        except OSError as error:
            raise ArenaError(f"cannot read {target}: {error.strerror or error}") from None
        complete = data[: data.rfind(b"\n") + 1]
        lines = complete.decode("utf-8", errors="replace").splitlines()
        try:
            header = json.loads(lines[0]) if lines else None
        except json.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or header.get("format") != STATE_FORMAT:
            raise ArenaError(f"{target} is not an arena state file")
        if header.get("game") != arena.game.spec or header.get("seed") != arena.seed:
            raise ArenaError(
                f"{target} holds the tournament of {header.get('game')} with seed "
                f"{header.get('seed')}, not of {arena.game.spec} with seed {arena.seed}"
            )
        finished = {}
        for number, line in enumerate(lines[1:], start=2):
            try:
                entry = json.loads(line)
                record = MatchRecord.loads(json.dumps(entry["record"]))
                round_number = entry["round"]
            except (json.JSONDecodeError, KeyError, TypeError, RecordError) as error:
                raise ArenaError(
                    f"{target}, line {number}: not a finished match: {error}"
                ) from None
            if (
                not record.finished
                or record.make_game() != arena.game
                or not isinstance(round_number, int)
                or record.seed != round_seed(arena.seed, round_number)
            ):
                raise ArenaError(
                    f"{target}, line {number}: not a finished match of this tournament"
                )
            finished[(round_number, *record.players)] = record
        if len(complete) < len(data):  # a line cut short by a crash: drop it
            with open(target, "r+b") as handle:
                handle.truncate(len(complete))
        return cls(target, finished)

    def add(self, task: MatchTask, record_text: str) -> None:
        """Append a finished match (its record as JSON text)."""
        if self._fd is None:
            raise ArenaError(f"{self.path} is closed")
        line = json.dumps(
            {"round": task.round, "record": json.loads(record_text)},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        os.write(self._fd, (line + "\n").encode("utf-8"))

    def close(self) -> None:
        """Close the file (it stays on disk)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


# --- the tournament -------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", text).strip("_")[:40] or "player"


def _write_atomic(path: Path, text: str) -> None:
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class Arena:
    """A round robin between ``players``: every pair plays ``games`` matches.

    Args:
        game: the game, or its spec (``"entropy:size=5"``).
        players: two or more different player specs (``random``, ``search:depth=2``,
            ``engine:./mybot``…); each is checked by making the player once.
        games: matches per pair of players: a positive even number, half of them with each
            player as player 1, in pairings on the same seed.
        seed: the tournament seed; round ``r`` is played on :func:`round_seed` ``(seed, r)``.

    Raises:
        ArenaError: fewer than two players, the same one twice, or a bad number of games.
        AbstractGamesError: a bad game or player spec.
    """

    def __init__(self, game: Game | str, players: Sequence[str], *, games: int, seed: int = 0):
        self.game = parse_game_spec(game) if isinstance(game, str) else game
        self.players = tuple(spec.strip() for spec in players)
        if len(self.players) < 2:
            raise ArenaError("a tournament needs at least two players")
        repeated = sorted({p for p in self.players if self.players.count(p) > 1})
        if repeated:
            raise ArenaError(f"player {repeated[0]!r} is given twice: give each player once")
        if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
            raise ArenaError(
                f"games must be a positive even number (every seed is played with the players in "
                f"both seats), not {games!r}"
            )
        for spec in self.players:
            make_player(spec, self.game).close()
        self.games = games
        self.seed = seed
        self.unit = "game" if isinstance(self.game.new_match(), SingleGameMatch) else "match"
        """What one result is: ``"game"``, or ``"match"`` where a match has several games."""
        self.tasks = self._schedule()
        """Every match of the tournament, in schedule order."""
        self._keys = {task.key: task for task in self.tasks}

    def _schedule(self) -> tuple[MatchTask, ...]:
        tasks: list[MatchTask] = []
        spec = self.game.spec
        for round_number in range(1, self.games // 2 + 1):
            seed = round_seed(self.seed, round_number)
            for i, first in enumerate(self.players):
                for second in self.players[i + 1 :]:
                    for seats in ((first, second), (second, first)):
                        tasks.append(MatchTask(len(tasks) + 1, round_number, spec, seats, seed))
        return tuple(tasks)

    def record_name(self, task: MatchTask) -> str:
        """The file name of ``task``'s record, e.g. ``00007-greedy-vs-random.json``."""
        return f"{task.number:05d}-{_slug(task.players[0])}-vs-{_slug(task.players[1])}.json"

    def run(
        self,
        executor: Executor | None = None,
        *,
        state: ArenaState | None = None,
        records: str | os.PathLike[str] | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> ArenaReport:
        """Play the matches not yet finished in ``state``; return the results of all of them.

        Args:
            executor: what plays the matches (default: one after another, in this process).
            state: where finished matches are kept as they finish, and read from on resume.
            records: a directory for every match's record (:meth:`record_name`).
            on_progress: called with (matches finished, matches scheduled), at the start and
                after every match.

        Raises:
            KeyboardInterrupt: Ctrl-C; the matches that finished are in ``state``.
            ArenaError: a match failed outside the rules (the message names it).
        """
        executor = executor or SerialExecutor()
        directory = None if records is None else Path(records)
        if directory is not None:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ArenaError(f"cannot write records in {directory}: {error}") from None
        done: dict[tuple[int, str, str], MatchRecord] = {}
        if state is not None:
            done = {key: r for key, r in state.finished.items() if key in self._keys}
            if directory is not None:
                for key, record in done.items():
                    record.save(directory / self.record_name(self._keys[key]))
        total = len(self.tasks)
        if on_progress is not None:
            on_progress(len(done), total)
        pending = [task for task in self.tasks if task.key not in done]
        if not pending:
            return self.report(done)
        with closing(executor.results(pending)) as results:
            for task, text in results:
                record = MatchRecord.loads(text)
                if state is not None:
                    state.add(task, text)
                done[task.key] = record
                if directory is not None:
                    _write_atomic(directory / self.record_name(task), text)
                if on_progress is not None:
                    on_progress(len(done), total)
        return self.report(done)

    def report(self, records: Mapping[tuple[int, str, str], MatchRecord]) -> ArenaReport:
        """The results of the finished matches in ``records`` (by :attr:`MatchTask.key`)."""
        matches = tuple(
            MatchSummary.from_record(task, records[task.key])
            for task in self.tasks
            if task.key in records
        )
        index = {player: i for i, player in enumerate(self.players)}
        n = len(self.players)
        wins = [[0] * n for _ in range(n)]
        draws = [[0] * n for _ in range(n)]
        scores: list[list[float]] = [[] for _ in range(n)]
        forfeits = [0] * n
        # by_seat[i][j][seat]: player i's [wins, draws, losses] against j from that seat.
        by_seat = [[[[0, 0, 0], [0, 0, 0]] for _ in range(n)] for _ in range(n)]
        for match in matches:
            seats = [index[p] for p in match.players]
            if match.winner is None:
                draws[seats[0]][seats[1]] += 1
                draws[seats[1]][seats[0]] += 1
            else:
                wins[seats[match.winner - 1]][seats[2 - match.winner]] += 1
            for seat in (0, 1):
                result = 1 if match.winner is None else 0 if match.winner == seat + 1 else 2
                by_seat[seats[seat]][seats[1 - seat]][seat][result] += 1
            for seat, who in enumerate(seats):
                score = match.scores[seat]
                if score is not None:
                    scores[who].append(score)
            if match.ended_by is not None:
                forfeits[seats[match.ended_by[1] - 1]] += 1
        games = [[wins[i][j] + wins[j][i] + draws[i][j] for j in range(n)] for i in range(n)]
        points = [[wins[i][j] + draws[i][j] / 2 for j in range(n)] for i in range(n)]
        ratings = stats.bradley_terry(
            points, games, virtual_draws=VIRTUAL_DRAWS, confidence=CONFIDENCE
        )
        standings = []
        for i, player in enumerate(self.players):
            mean, error = stats.mean_interval(scores[i], CONFIDENCE) if scores[i] else (None, None)
            standings.append(
                Standing(
                    player=player,
                    games=sum(games[i]),
                    wins=sum(wins[i]),
                    draws=sum(draws[i]),
                    losses=sum(wins[j][i] for j in range(n)),
                    points=sum(points[i]),
                    elo=ratings.elo[i],
                    elo_error=ratings.error[i],
                    mean_score=mean,
                    score_error=error,
                    scored=len(scores[i]),
                    forfeits=forfeits[i],
                )
            )
        ranked = sorted(range(n), key=lambda i: (-round(ratings.elo[i], 6), i))
        pairs = []
        for i in range(n):
            for j in range(i + 1, n):
                elo, elo_error = stats.elo_difference(
                    points[i][j], games[i][j], virtual_draws=VIRTUAL_DRAWS, confidence=CONFIDENCE
                )
                pairs.append(
                    PairResult(
                        players=(self.players[i], self.players[j]),
                        games=games[i][j],
                        wins=wins[i][j],
                        draws=draws[i][j],
                        losses=wins[j][i],
                        points=points[i][j],
                        elo=elo,
                        elo_error=elo_error,
                        by_seat=(_triple(by_seat[i][j][0]), _triple(by_seat[i][j][1])),
                    )
                )
        return ArenaReport(
            game=self.game.spec,
            players=self.players,
            games=self.games,
            seed=self.seed,
            unit=self.unit,
            scheduled=len(self.tasks),
            matches=matches,
            standings=tuple(standings[i] for i in ranked),
            pairs=tuple(pairs),
            show_scores=any(_scores_say_more(m) for m in matches),
        )
