"""The match records the server keeps: those of the one-person page (in the database, or as
files when there is none) and the record files of the data directory, listed, opened for
replay and continued by name."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

from ..files import new_record_name
from ..records import MatchRecord, RecordError
from ..text import excerpt
from .database import Database, UnknownRecord
from .errors import BadRequest, NotFound
from .views import replay_view

__all__ = ["MAX_LISTED", "SavedGames"]

MAX_LISTED = 300
"""The most records the list shows (the newest)."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.json")


class SavedGames:
    """The records kept by name: in `database` and as files in `directory` (either may be
    `None`). The page's matches are kept in the database if there is one, in the directory
    otherwise; a match continued from a file in the directory (one `play` began) stays in its
    file. Only plain record names are ever opened, never a path."""

    def __init__(self, directory: Path | None, database: Database | None = None) -> None:
        self.directory = directory
        self.database = database
        self._summaries: dict[tuple[str, float, int], dict[str, Any]] = {}
        self._taken: set[str] = set()
        self._lock = threading.Lock()

    @property
    def keeping(self) -> bool:
        """Whether records are kept at all."""
        return self.directory is not None or self.database is not None

    def where(self) -> str | None:
        """Where the page's records go, for people (`None`: nowhere)."""
        if self.database is not None:
            return f"the database {self.database.shown}"
        return None if self.directory is None else str(self.directory)

    def keep(self, name: str | None, record: MatchRecord) -> str:
        """Keep `record` under `name` (`None`: a new name), atomically; return the name.

        Raises:
            OSError, DatabaseError: it could not be written.
        """
        if name is None:
            name = self._new_name(record.game, record.seed)
        if self.database is not None and not self._is_file(name):
            self.database.save_record(
                name,
                record.dumps(),
                game_spec=record.game,
                finished=record.finished,
                now=time.time(),
            )
        else:
            assert self.directory is not None
            self.directory.mkdir(parents=True, exist_ok=True)
            record.save(self.directory / name)
        return name

    def shown(self, name: str) -> str:
        """Where the record `name` is, for people: its file, or its name in the database."""
        if self._is_file(name) or self.database is None:
            assert self.directory is not None
            return str(self.directory / name)
        return name

    def _new_name(self, game: str, seed: int) -> str:
        def taken(name: str) -> bool:
            return (
                name in self._taken
                or self._is_file(name)
                or (self.database is not None and self.database.has_record(name))
            )

        with self._lock:
            name = new_record_name(game, seed, taken)
            self._taken.add(name)
        return name

    def _is_file(self, name: str) -> bool:
        return self.directory is not None and (self.directory / name).is_file()

    def _find(self, name: str) -> str | Path:
        """The text of the record `name` kept in the database, or its file."""
        if _NAME.fullmatch(name):
            if self.database is not None:
                try:
                    return self.database.record(name)
                except UnknownRecord:
                    pass
            if self._is_file(name):
                assert self.directory is not None
                return self.directory / name
        raise NotFound(f"no saved game {excerpt(name)!r}")

    def data(self, name: str) -> bytes:
        """The record `name` as it is kept.

        Raises:
            NotFound: no such record (or a name that is not a plain record file name).
        """
        found = self._find(name)
        if isinstance(found, str):
            return found.encode()
        try:
            return found.read_bytes()
        except OSError:
            raise NotFound(f"no saved game {excerpt(name)!r}") from None

    def load(self, name: str) -> MatchRecord:
        """The record `name`.

        Raises:
            NotFound: no such record.
            BadRequest: it cannot be read (the message says why).
        """
        try:
            return _read(self._find(name))
        except RecordError as error:
            raise BadRequest(str(error)) from None

    def listing(self) -> list[dict[str, Any]]:
        """The newest records, newest first, each with its game, players and result."""
        found: dict[str, tuple[float, int]] = {}
        if self.directory is not None:
            try:
                files = [p for p in self.directory.iterdir() if _NAME.fullmatch(p.name)]
            except OSError:
                files = []
            for path in files:
                try:
                    status = path.stat()
                except OSError:
                    continue
                if path.is_file():
                    found[path.name] = (status.st_mtime, status.st_size)
        if self.database is not None:
            for name, updated in self.database.records(MAX_LISTED):
                found[name] = (updated, -1)
        newest = sorted(found.items(), key=lambda item: (item[1][0], item[0]), reverse=True)
        out = []
        for name, (modified, size) in newest[:MAX_LISTED]:
            key = (name, modified, size)
            with self._lock:
                summary = self._summaries.get(key)
            if summary is None:
                try:
                    summary = _summary(self._find(name))
                except NotFound:
                    continue
                with self._lock:
                    self._summaries[key] = summary
            out.append({**summary, "name": name, "modified": modified})
        return out

    def replay(self, name: str) -> dict[str, Any]:
        """The replay of the record `name`.

        Raises:
            NotFound: no such record.
            BadRequest: the record cannot be read or breaks the rules (as `replay` says).
        """
        record = self.load(name)
        try:
            return replay_view(record)
        except RecordError as error:
            raise BadRequest(str(error)) from None


def _read(found: str | Path) -> MatchRecord:
    return MatchRecord.loads(found) if isinstance(found, str) else MatchRecord.load(found)


def _summary(found: str | Path) -> dict[str, Any]:
    try:
        record = _read(found)
    except RecordError as error:
        return {"error": excerpt(str(error), 200)}
    result = record.result
    params = ",".join(f"{k}={v}" for k, v in sorted(record.params.items()))
    return {
        "game": record.game,
        "params": params,
        "players": list(record.players),
        "finished": record.finished,
        "result": None
        if result is None
        else {"winner": result.winner, "reason": result.reason, "scores": list(result.scores)},
        "plies": sum(len(g.moves) for g in record.games),
    }
