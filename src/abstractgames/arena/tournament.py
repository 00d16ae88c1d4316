"""The tournament: plays the schedule with an executor, keeps its state, gathers the report."""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import overload

import attrs

from ..files import write_atomic
from ..protocol import Game, SingleGameMatch
from ..records import MatchRecord
from .errors import ArenaError
from .executors import Executor, SerialExecutor
from .report import ArenaReport, MatchSummary, MatchTable
from .schedule import MatchTask, Schedule, Tasks
from .state import ArenaState

__all__ = ["Arena"]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", text).strip("_")[:40] or "player"


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
        schedule = Schedule.round_robin(game, players, games=games, seed=seed)
        self.game = schedule.game
        self.players = schedule.players
        self.games = games
        self.seed = seed
        self.unit = "game" if isinstance(self.game.new_match(), SingleGameMatch) else "match"
        """What one result is: ``"game"``, or ``"match"`` where a match has several games."""
        self.tasks: Tasks = schedule.tasks
        """Every match of the tournament, in schedule order (made as they are asked for)."""

    def record_name(self, task: MatchTask) -> str:
        """The file name of ``task``'s record, e.g. ``00007-greedy-vs-random.json``."""
        return f"{task.number:05d}-{_slug(task.players[0])}-vs-{_slug(task.players[1])}.json"

    def task(self, key: tuple[object, ...]) -> MatchTask | None:
        """The match of the schedule whose :attr:`MatchTask.key` is ``key``, if there is one."""
        number = self.tasks.number(key)
        return None if number is None else self.tasks[number - 1]

    def run(
        self,
        executor: Executor | None = None,
        *,
        state: ArenaState | None = None,
        records: str | os.PathLike[str] | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> ArenaReport:
        """Play the matches not yet finished in ``state``; return the results of all of them.

        Only a summary of each match stays in memory; the records go to ``state`` and
        ``records``.

        Args:
            executor: what plays the matches (default: one after another, in this process).
            state: where finished matches are kept as they finish, and read from on resume.
            records: a directory for every match's record (:meth:`record_name`).
            on_progress: called with (matches finished, matches scheduled), at the start and
                after every match.

        Raises:
            KeyboardInterrupt: Ctrl-C; the matches that finished are in ``state``.
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
        done = MatchTable(self.tasks)
        if state is not None:
            for match in state.finished:
                task = self.task((match.round, *match.players))
                if task is not None:
                    done.add(attrs.evolve(match, number=task.number, seed=task.seed))
            if directory is not None:
                for read, record in state.records():
                    task = self.task(read.key)
                    if task is not None:
                        self._save(directory, task, record.dumps())
        total = len(self.tasks)
        if on_progress is not None:
            on_progress(len(done), total)
        pending = _Pending(self.tasks, done)
        if pending:
            with closing(executor.results(pending)) as results:
                for task, text in results:
                    record = MatchRecord.loads(text)
                    if state is not None:
                        state.add(task, text)
                    done.add(MatchSummary.from_record(task, record))
                    if directory is not None:
                        self._save(directory, task, text)
                    if on_progress is not None:
                        on_progress(len(done), total)
        return self._report(done)

    def _save(self, directory: Path, task: MatchTask, text: str) -> None:
        path = directory / self.record_name(task)
        try:
            write_atomic(path, text)
        except OSError as error:
            raise ArenaError(
                f"cannot write the record of match {task.number} to {path}: "
                f"{error.strerror or error}"
            ) from None

    def report(self, records: Mapping[tuple[int, str, str], MatchRecord]) -> ArenaReport:
        """The results of the finished matches in ``records`` (by :attr:`MatchTask.key`)."""
        done = MatchTable(self.tasks)
        for key, record in records.items():
            task = self.task(key)
            if task is not None:
                done.add(MatchSummary.from_record(task, record))
        return self._report(done)

    def _report(self, done: MatchTable) -> ArenaReport:
        return ArenaReport.from_matches(
            done,
            game=self.game.spec,
            players=self.players,
            games=self.games,
            seed=self.seed,
            unit=self.unit,
            scheduled=len(self.tasks),
        )


class _Pending(Sequence[MatchTask]):
    """The matches of a schedule not yet finished (a number each)."""

    def __init__(self, tasks: Tasks, done: MatchTable) -> None:
        self._tasks = tasks
        self._numbers = array("q", (n for n in range(1, len(tasks) + 1) if not done.has(n)))

    def __len__(self) -> int:
        return len(self._numbers)

    @overload
    def __getitem__(self, index: int) -> MatchTask: ...

    @overload
    def __getitem__(self, index: slice) -> list[MatchTask]: ...

    def __getitem__(self, index: int | slice) -> MatchTask | list[MatchTask]:
        if isinstance(index, slice):
            return [self._tasks[n - 1] for n in self._numbers[index]]
        return self._tasks[self._numbers[index] - 1]
