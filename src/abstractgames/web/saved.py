"""The game records kept in the data directory, listed and opened for replay by name."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from ..records import MatchRecord, RecordError
from ..text import excerpt
from .errors import BadRequest, NotFound
from .views import replay_view

__all__ = ["MAX_LISTED", "SavedGames"]

MAX_LISTED = 300
"""The most records the list shows (the newest)."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.json")


class SavedGames:
    """The records in `directory` (`None`: there is none): only plain names of files in it are
    ever opened, never a path."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self._summaries: dict[tuple[str, int, int], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def path(self, name: str) -> Path:
        """The file of the record `name`.

        Raises:
            NotFound: no such record (or a name that is not a plain record file name).
        """
        if self.directory is None or not _NAME.fullmatch(name):
            raise NotFound(f"no saved game {excerpt(name)!r}")
        path = self.directory / name
        if not path.is_file():
            raise NotFound(f"no saved game {excerpt(name)!r}")
        return path

    def listing(self) -> list[dict[str, Any]]:
        """The newest records, newest first, each with its game, players and result."""
        if self.directory is None:
            return []
        try:
            files = [(p, p.stat()) for p in self.directory.iterdir() if _NAME.fullmatch(p.name)]
        except OSError:
            return []
        files = [(p, s) for p, s in files if p.is_file()]
        files.sort(key=lambda item: (item[1].st_mtime_ns, item[0].name), reverse=True)
        out = []
        for path, status in files[:MAX_LISTED]:
            key = (path.name, status.st_mtime_ns, status.st_size)
            with self._lock:
                summary = self._summaries.get(key)
            if summary is None:
                summary = _summary(path)
                with self._lock:
                    self._summaries[key] = summary
            out.append({**summary, "name": path.name, "modified": status.st_mtime})
        return out

    def replay(self, name: str) -> dict[str, Any]:
        """The replay of the record `name`.

        Raises:
            NotFound: no such record.
            BadRequest: the record cannot be read or breaks the rules (as `replay` says).
        """
        path = self.path(name)
        try:
            return replay_view(MatchRecord.load(path))
        except RecordError as error:
            raise BadRequest(str(error)) from None


def _summary(path: Path) -> dict[str, Any]:
    try:
        record = MatchRecord.load(path)
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
