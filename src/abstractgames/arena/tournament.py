"""The tournament: plays the schedule with an executor, keeps its state, tells its progress and
gathers the report.

Its progress is each match as it finishes ([`MatchDone`][]) and an estimate of the time left
([`TimeLeft`][]), worked out pair by pair, as the players make the time: a pair of quick bots
plays hundreds of matches while two programs with a clock play one. Each pair's time per match is
the median of its last matches; the matches left of every pair, at that time each, are shared
among the matches played at once. A rate over all matches (what a progress bar estimates by
default) says "30 seconds left" while the slow pair's matches still wait, and hours before the
end when only quick ones do.

Examples:
    >>> clock = FakeClock()
    >>> left = TimeLeft({"quick": 10, "slow": 10}, clock=clock)
    >>> left.finished("quick", 0.5)
    >>> left.seconds() is None  # nothing to go by for the slow pair yet
    True
    >>> left.finished("slow", 60.0)
    >>> left.seconds()  # 9 quick ones at 0.5 s and 9 slow ones at 60 s
    544.5
    >>> clock.now += 100.0  # it counts down between two matches
    >>> left.seconds()
    444.5
"""

from __future__ import annotations

import math
import os
import statistics
import threading
import time
from array import array
from collections import deque
from collections.abc import Callable, Hashable, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Generic, TypeVar, overload

import attrs

from ..files import safe_name, write_atomic
from ..protocol import Game, SingleGameMatch, State
from ..records import ClockSettings, MatchRecord
from .errors import ArenaError
from .executors import Executor, SerialExecutor
from .report import ArenaReport, MatchSummary, MatchTable, RunningReport
from .schedule import MatchTask, Schedule, Tasks, short_names
from .state import ArenaState

__all__ = ["Arena", "FakeClock", "MatchDone", "TimeLeft", "format_duration"]


# --- progress -------------------------------------------------------------------------------------

Pair = TypeVar("Pair", bound=Hashable)

RECENT = 101
"""How many of a pair's last match times its time per match is the median of."""


@attrs.mutable
class FakeClock:
    """A clock that stands still until told (`now += seconds`): for tests and examples."""

    now: float = 0.0

    def __call__(self) -> float:
        return self.now


class TimeLeft(Generic[Pair]):
    """Estimates the seconds a tournament has left from the time its matches took, pair by pair.

    Args:
        remaining: the matches left of every pair of players (any keys).
        slots: how many matches are played at once (`slots` may change as they go).
        clock: seconds from any start, e.g. `time.monotonic`.

    A pair's time per match is the median of its last `RECENT` (101) matches. The estimate is
    the sum over the pairs of matches left × time per match, divided by the slots, but never
    less than the slowest match left. There is none until every pair with matches left has
    finished one: the time of a pair not yet seen is anybody's guess (two quick bots and two
    programs on a clock differ a thousandfold), and a guess from the quick pairs that finish
    first is the estimate that says "30 seconds left" of a quarter of an hour.
    """

    def __init__(
        self,
        remaining: Mapping[Pair, int],
        slots: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.remaining = dict(remaining)
        """The matches left of each pair."""
        self.slots = slots
        self._clock = clock
        self._times: dict[Pair, deque[float]] = {}
        self._medians: dict[Pair, float] = {}
        self._estimate: float | None = None
        self._at = clock()

    def finished(self, pair: Pair, seconds: float | None) -> None:
        """A match of `pair` finished after `seconds` of play (`None`: not known)."""
        if self.remaining.get(pair, 0) > 0:
            self.remaining[pair] -= 1
        if seconds is not None and math.isfinite(seconds) and seconds >= 0:
            times = self._times.setdefault(pair, deque(maxlen=RECENT))
            times.append(seconds)
            self._medians[pair] = statistics.median(times)
        self._estimate = self._work()
        self._at = self._clock()

    def per_match(self, pair: Pair) -> float | None:
        """The time per match of `pair` (seconds), or `None` before one of its matches is
        timed."""
        return self._medians.get(pair)

    def seconds(self) -> float | None:
        """The seconds left now: the estimate made when the last match finished, less the time
        since; `None` while a pair with matches left has not been timed."""
        if self._estimate is None:
            return None
        return max(self._estimate - (self._clock() - self._at), 0.0)

    def _work(self) -> float | None:
        total = longest = 0.0
        for pair, count in self.remaining.items():
            if count > 0:
                each = self.per_match(pair)
                if each is None:
                    return None
                total += count * each
                longest = max(longest, each)
        return max(total / max(self.slots, 1), longest)


@attrs.frozen
class MatchDone:
    """A match that has just finished, with the tournament's progress.

    Attributes:
        match: how it ended.
        names: the short names of its player 1 and player 2.
        seconds: how long it took to play, or `None` if not known.
        done: the matches finished so far (those of a resumed tournament's state file too).
        total: the matches of the tournament.
        time_left: the estimated seconds left ([`TimeLeft`][]), or `None`.
        record: the file its record was written to, when [`Arena.run`][] was given a records
            directory (the file is there when the event comes), else `None`.
    """

    match: MatchSummary
    names: tuple[str, str]
    seconds: float | None
    done: int
    total: int
    time_left: float | None
    record: Path | None = None
    _running: RunningReport | None = attrs.field(default=None, repr=False, eq=False)

    def report(self) -> ArenaReport:
        """The results of every match finished so far (those of a resumed tournament's state file
        too), as the tournament's [`ArenaReport`][] gives them at the end: its standings, pairs
        and `format_table()`.

        It is made from the counts the tournament keeps as its matches finish (a
        [`RunningReport`][]), so it costs the ratings alone, not a pass over the matches; it is
        the state when it is called: called while the event is handled, it is the results up to
        this match.

        Raises:
            ArenaError: the event was not made by [`Arena.run`][].
        """
        if self._running is None:
            raise ArenaError("this MatchDone does not come from a tournament: it has no results")
        return self._running.report()

    def line(self) -> str:
        """One line about the match, e.g. `match 3/8: greedy vs random: greedy won (five in a
        row), 0.2 s`."""
        first, second = self.names
        winner = self.match.winner
        result = "drawn" if winner is None else f"{self.names[winner - 1]} won"
        took = "" if self.seconds is None else f", {format_duration(self.seconds, short=True)}"
        return (
            f"match {self.match.number}/{self.total}: {first} vs {second}: {result} "
            f"({self.match.reason}){took}"
        )


def format_duration(seconds: float, *, short: bool = False) -> str:
    """`H:MM:SS`, or with `short` a few characters (`0.42 s`, `12.3 s`, `2 min 05 s`).

    Examples:
        >>> format_duration(3725.2), format_duration(59.96, short=True)
        ('1:02:06', '1 min 00 s')
        >>> format_duration(0.0421, short=True), format_duration(125, short=True)
        ('0.042 s', '2 min 05 s')
    """
    if short:
        if seconds < 1:
            return f"{seconds:.2g} s" if seconds >= 0.1 else f"{seconds:.3f} s"
        if round(seconds, 1) < 60:
            return f"{seconds:.1f} s"
        minutes, rest = divmod(round(seconds), 60)
        return f"{minutes} min {rest:02d} s"
    minutes, rest = divmod(math.ceil(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{rest:02d}"


# --- the tournament -------------------------------------------------------------------------------


class Arena:
    """A round robin between `players`: every pair plays `games` matches.

    Args:
        game: the game, or its spec (`"entropy:size=5"`).
        players: two or more different player specs (`random`, `search:depth=2`,
            `engine:./mybot`…); each is checked by making the player once. A `name=`
            option names the player in the tables ([`short_names`][]).
        games: matches per pair of players: a positive even number, half of them with each
            player as player 1, in pairings on the same seed.
        seed: the tournament seed; round `r` is played on [`round_seed`][] `(seed, r)`.
        clock: each player's time per game (`ClockSettings` or `"SECONDS[+INCREMENT]"`), or
            `None` for no clock.
        time_loss_forfeits: running out of time loses the match (correspondence play).
        logs: a directory that keeps every log of the external programs (those with a `log`
            option of their own keep theirs there); by default only the logs of programs that
            failed are kept, in the temporary directory.
        positions: an openings suite: the positions the matches start from, each a state, a
            position string or a text diagram ([`read_position`][abstractgames.grid.read_position]).
            Every pair plays `games` matches from each, half of them in each seat, the positions
            taking turns from round to round (see [`Tasks`][]). By default the matches start
            from the game's own start.

    Raises:
        ArenaError: fewer than two players, the same one twice, a bad number of games, a
            bad clock, or the same position twice.
        AbstractGamesError: a bad game or player spec.
        InvalidPositionError: a position that cannot be read or that a match cannot start from
            (a finished game), naming it.
    """

    def __init__(
        self,
        game: Game | str,
        players: Sequence[str],
        *,
        games: int,
        seed: int = 0,
        clock: ClockSettings | str | None = None,
        time_loss_forfeits: bool = False,
        logs: str | os.PathLike[str] | None = None,
        positions: Sequence[str | State] = (),
    ):
        if isinstance(clock, str):
            try:
                clock = ClockSettings.parse(clock)
            except ValueError as error:
                raise ArenaError(str(error)) from None
        schedule = Schedule.round_robin(
            game,
            players,
            games=games,
            seed=seed,
            clock=clock,
            time_loss_forfeits=time_loss_forfeits,
            logs=None if logs is None else os.fspath(logs),
            positions=positions,
        )
        self.game = schedule.game
        self.players = schedule.players
        self.names = short_names(self.players)
        """The players' short names ([`short_names`][]), in the same order."""
        self._name = dict(zip(self.players, self.names, strict=True))
        self.games = games
        self.positions = schedule.positions
        """The position strings the matches start from, in turn (none: the game's start)."""
        self.seed = seed
        self.clock = clock
        self.time_loss_forfeits = time_loss_forfeits
        self.logs = None if logs is None else os.fspath(logs)
        self.unit = "game" if isinstance(self.game.new_match(), SingleGameMatch) else "match"
        """What one result is: `"game"`, or `"match"` where a match has several games."""
        self.tasks: Tasks = schedule.tasks
        """Every match of the tournament, in schedule order (made as they are asked for)."""

    def record_name(self, task: MatchTask) -> str:
        """The file name of `task`'s record, e.g. `00007-greedy-vs-random.json` (from the
        players' short names)."""
        first, second = self.names_of(task)
        names = (safe_name(name, 40, default="player") for name in (first, second))
        return f"{task.number:05d}-{'-vs-'.join(names)}.json"

    def names_of(self, task: MatchTask) -> tuple[str, str]:
        """The short names of `task`'s player 1 and player 2."""
        return self._name[task.players[0]], self._name[task.players[1]]

    def task(self, key: tuple[object, ...]) -> MatchTask | None:
        """The match of the schedule whose [`MatchTask.key`][] is `key`, if there is one."""
        number = self.tasks.number(key)
        return None if number is None else self.tasks[number - 1]

    def running_report(self) -> RunningReport:
        """An empty [`RunningReport`][] of this tournament: add its matches as they finish."""
        return RunningReport(
            self.tasks,
            game=self.game.spec,
            players=self.players,
            games=self.games * max(len(self.positions), 1),
            seed=self.seed,
            unit=self.unit,
            names=self.names,
            clock=self.clock,
            time_loss_forfeits=self.time_loss_forfeits,
            positions=self.positions,
        )

    def run(
        self,
        executor: Executor | None = None,
        *,
        state: ArenaState | None = None,
        records: str | os.PathLike[str] | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        on_match: Callable[[MatchDone], None] | None = None,
        stop: threading.Event | None = None,
    ) -> ArenaReport:
        """Play the matches not yet finished in `state`; return the results of all of them.

        Only a summary of each match stays in memory; the records go to `state` and
        `records`.

        Args:
            executor: what plays the matches (default: one after another, in this process).
            state: where finished matches are kept as they finish, and read from on resume.
            records: a directory for every match's record ([`record_name`][]).
            on_progress: called with (matches finished, matches scheduled), at the start and
                after every match.
            on_match: called with each match played, as it finishes, with the time it took,
                an estimate of the time left ([`TimeLeft`][]), its record's file and the
                results so far ([`MatchDone.report`][]).
            stop: an event that stops the tournament when it is set, from any thread: no
                further match is started, and the executor stops the matches being played
                as Ctrl-C does (the local processes' are interrupted; see
                [`Executor.timed_results`][]); `run` then returns the results of the matches
                that finished, every one of them in `state` (`complete` is false unless all
                were played). A match being played in this process ([`SerialExecutor`][])
                is finished first.

        Raises:
            KeyboardInterrupt: Ctrl-C; the matches that finished are in `state`.
            ArenaError: a match failed outside the rules (the message names it), or a record
                or the state file cannot be written.
        """
        executor = executor or SerialExecutor()
        directory = None if records is None else Path(records)
        if directory is not None:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ArenaError(f"cannot write records in {directory}: {error}") from None
        done = self.running_report()
        if state is not None:
            for match in state.finished:
                task = self.task((match.round, *match.players))
                if task is not None:
                    done.add(
                        attrs.evolve(match, number=task.number, seed=task.seed, start=task.start)
                    )
            if directory is not None:
                for read, record in state.records():
                    task = self.task(read.key)
                    if task is not None:
                        self._save(directory, task, record.dumps())
        total = len(self.tasks)
        if on_progress is not None:
            on_progress(len(done), total)
        pending = _Pending(self.tasks, done.matches)
        if pending and not (stop is not None and stop.is_set()):
            left = TimeLeft(pending.per_pair(), executor.slots)
            # an executor of one's own that overrides timed_results without `stop` still works
            # without one
            played = (
                executor.timed_results(pending)
                if stop is None
                else executor.timed_results(pending, stop=stop)
            )
            with closing(played) as results:
                for task, text, seconds in results:
                    record = MatchRecord.loads(text)
                    if state is not None:
                        state.add(task, text)
                    summary = MatchSummary.from_record(task, record)
                    done.add(summary)
                    saved = None if directory is None else self._save(directory, task, text)
                    left.slots = executor.slots
                    left.finished(self.tasks.pair(task.number), seconds)
                    if on_progress is not None:
                        on_progress(len(done), total)
                    if on_match is not None:
                        names = self.names_of(task)
                        estimate = left.seconds()
                        event = MatchDone(
                            summary, names, seconds, len(done), total, estimate, saved, running=done
                        )
                        on_match(event)
                    if stop is not None and stop.is_set():
                        break
        return done.final()

    def _save(self, directory: Path, task: MatchTask, text: str) -> Path:
        path = directory / self.record_name(task)
        try:
            write_atomic(path, text)
        except OSError as error:
            raise ArenaError(
                f"cannot write the record of match {task.number} to {path}: "
                f"{error.strerror or error}"
            ) from None
        return path

    def report(self, records: Mapping[tuple[int, str, str], MatchRecord]) -> ArenaReport:
        """The results of the finished matches in `records` (by [`MatchTask.key`][])."""
        done = self.running_report()
        for key, record in records.items():
            task = self.task(key)
            if task is not None:
                done.add(MatchSummary.from_record(task, record))
        return done.final()


class _Pending(Sequence[MatchTask]):
    """The matches of a schedule not yet finished (a number each)."""

    def __init__(self, tasks: Tasks, done: MatchTable) -> None:
        self._tasks = tasks
        self._numbers = array("q", (n for n in range(1, len(tasks) + 1) if not done.has(n)))

    def __len__(self) -> int:
        return len(self._numbers)

    def per_pair(self) -> dict[int, int]:
        """How many matches each pair of players has left ([`Tasks.pair`][])."""
        counts = dict.fromkeys(range(self._tasks.pairs), 0)
        for number in self._numbers:
            counts[self._tasks.pair(number)] += 1
        return counts

    @overload
    def __getitem__(self, index: int) -> MatchTask: ...

    @overload
    def __getitem__(self, index: slice) -> list[MatchTask]: ...

    def __getitem__(self, index: int | slice) -> MatchTask | list[MatchTask]:
        if isinstance(index, slice):
            return [self._tasks[n - 1] for n in self._numbers[index]]
        return self._tasks[self._numbers[index] - 1]
