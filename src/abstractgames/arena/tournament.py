"""The tournament: plays the schedule with an executor, keeps its state, gathers the report."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from pathlib import Path

from ..files import write_atomic
from ..protocol import Game, SingleGameMatch
from ..records import MatchRecord
from .errors import ArenaError
from .executors import Executor, SerialExecutor
from .report import ArenaReport, MatchSummary
from .schedule import MatchTask, Schedule
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
        self.tasks = schedule.tasks
        """Every match of the tournament, in schedule order."""
        self._keys = {task.key: task for task in self.tasks}

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
                    write_atomic(directory / self.record_name(task), text)
                if on_progress is not None:
                    on_progress(len(done), total)
        return self.report(done)

    def report(self, records: Mapping[tuple[int, str, str], MatchRecord]) -> ArenaReport:
        """The results of the finished matches in ``records`` (by :attr:`MatchTask.key`)."""
        return ArenaReport.from_matches(
            [
                MatchSummary.from_record(task, records[task.key])
                for task in self.tasks
                if task.key in records
            ],
            game=self.game.spec,
            players=self.players,
            games=self.games,
            seed=self.seed,
            unit=self.unit,
            scheduled=len(self.tasks),
        )
