"""The resumable state of a tournament: its finished matches, kept in a file as they finish."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Protocol

from ..protocol import Game
from ..records import MatchRecord, RecordError
from .errors import ArenaError
from .schedule import ARENA_VERSION, MatchTask, round_seed

__all__ = ["STATE_FORMAT", "ArenaState", "Tournament"]

STATE_FORMAT = "abstractgames-arena-state"
"""The ``format`` in the first line of a state file."""


class Tournament(Protocol):
    """What a state file needs of its tournament (an :class:`~abstractgames.arena.Arena`)."""

    @property
    def game(self) -> Game:
        """The game."""

    @property
    def seed(self) -> int:
        """The tournament seed."""


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
    def create(cls, path: str | os.PathLike[str], arena: Tournament) -> ArenaState:
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
    def resume(cls, path: str | os.PathLike[str], arena: Tournament) -> ArenaState:
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
