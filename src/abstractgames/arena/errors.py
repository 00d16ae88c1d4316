"""The arena's exceptions."""

from __future__ import annotations

from ..protocol import AbstractGamesError

__all__ = ["ArenaError", "MatchInterrupted"]


class ArenaError(AbstractGamesError):
    """A tournament that cannot be set up, continued or finished."""


class MatchInterrupted(Exception):
    """A match stopped by Ctrl-C before it was decided (its result is not kept)."""
