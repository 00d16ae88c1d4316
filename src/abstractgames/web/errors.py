"""The errors the web app answers with: each is a JSON `{"error": message}` and an HTTP status."""

from __future__ import annotations

from ..protocol import AbstractGamesError

__all__ = [
    "BadRequest",
    "Busy",
    "Conflict",
    "Forbidden",
    "NotFound",
    "TooLarge",
    "TooMany",
    "WebError",
]


class WebError(AbstractGamesError):
    """A request the app refuses; `status` is the HTTP status of the answer."""

    status = 400


class BadRequest(WebError):
    """A malformed request: not JSON, a missing or wrong field, a bad move or spec."""

    status = 400


class Forbidden(WebError):
    """A request from another site, or one asking for what this server does not allow."""

    status = 403


class NotFound(WebError):
    """No game, tournament or record by that name (ids are unguessable, so a typo is this)."""

    status = 404


class Conflict(WebError):
    """A request that cannot be done now, e.g. a move while the other player is to move."""

    status = 409


class TooLarge(WebError):
    """A request body larger than the app reads."""

    status = 413


class TooMany(WebError):
    """More requests from one client than the server takes (games created, moves): wait."""

    status = 429


class Busy(WebError):
    """A request the server has no room for now (too many uploads at once): send it again."""

    status = 503
