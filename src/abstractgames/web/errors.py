"""The errors the web app answers with: each is a JSON `{"error": message}` and an HTTP status;
and the one mapping to them of a record's match that cannot be continued ([`resume_refused`][])."""

from __future__ import annotations

from ..protocol import AbstractGamesError
from ..records import CannotResume, ResumeRefusal

__all__ = [
    "BadRequest",
    "Busy",
    "Conflict",
    "Forbidden",
    "NotFound",
    "TooLarge",
    "TooMany",
    "WebError",
    "resume_refused",
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


def resume_refused(refused: CannotResume, *, record: str | None = None, then: str) -> WebError:
    """The answer to a request to continue a record's match that
    [`MatchRecord.resume_plan`][abstractgames.records.MatchRecord.resume_plan] refused: 409 for
    a match that is over, 403 for a program, file or module only the record names (`then`
    says what to do instead), 400 for the rest; `record` names the record, if it has a name.

    Examples:
        >>> from abstractgames.records import CannotResume, ResumeRefusal
        >>> over = CannotResume("the match is already finished", ResumeRefusal.FINISHED)
        >>> answer = resume_refused(over, record="mine.json", then="name the players")
        >>> answer.status, str(answer)
        (409, 'mine.json: the match is already finished')
    """
    text = str(refused) if record is None else f"{record}: {refused}"
    if refused.refusal is ResumeRefusal.FINISHED:
        return Conflict(text)
    if refused.refusal is ResumeRefusal.OUTSIDE_CODE:
        return Forbidden(f"{text}; {then}")
    return BadRequest(text)
