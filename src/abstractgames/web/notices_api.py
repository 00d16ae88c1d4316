"""The routes of an account's vacations ([`abstractgames.web.vacation`][]) and daily digest
([`abstractgames.web.digest`][]): each acts for the account signed in by the request's session
cookie, and for no other; changes count against the client address's limit of new games
(`RateLimits`'s kind `create`).

| request | what it does |
| --- | --- |
| `GET /api/account/vacation` | `{"days_per_year", "used", "left", "until"}` |
| `POST /api/account/vacation` `{"days"}` | start a vacation of that many days now |
| `POST /api/account/vacation/end` | end it now |
| `GET /api/account/digest`, `POST /api/account/digest` `{"digest"}` | the daily digest, or not |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .accounts_api import signed_in_account
from .database import AccountRow
from .errors import BadRequest, NotFound
from .requests import client_address, read_json
from .vacation import MAX_VACATION_DAYS

if TYPE_CHECKING:
    from .online_api import OnlineServer

__all__ = ["notice_routes"]


def _server(request: Request) -> OnlineServer:
    online: OnlineServer | None = request.app.state.web.online
    if online is None:
        raise NotFound("this server has no accounts (start it with --database or --public)")
    return online


async def _account(request: Request) -> AccountRow:
    _server(request)
    return await signed_in_account(request)


async def _run(request: Request, function: Any, *args: Any) -> Any:
    return await request.app.state.web.run(function, *args)


async def vacation(request: Request) -> Response:
    account = await _account(request)
    return JSONResponse(await _run(request, _server(request).vacations.status, account))


async def start_vacation(request: Request) -> Response:
    fields = await read_json(request)
    days = fields.integer("days", low=1, high=MAX_VACATION_DAYS)
    fields.finish()
    account = await _account(request)
    _server(request).limits.take(client_address(request), "create")
    return JSONResponse(await _run(request, _server(request).vacations.start, account, days))


async def end_vacation(request: Request) -> Response:
    (await read_json(request)).finish()
    account = await _account(request)
    _server(request).limits.take(client_address(request), "create")
    return JSONResponse(await _run(request, _server(request).vacations.end, account))


async def digest(request: Request) -> Response:
    account = await _account(request)
    chosen = await _run(request, _server(request).database.account_digest, account.id)
    return JSONResponse({"digest": chosen, "email": account.email})


async def set_digest(request: Request) -> Response:
    fields = await read_json(request)
    chosen = fields.flag("digest")
    fields.finish()
    account = await _account(request)
    _server(request).limits.take(client_address(request), "create")
    if chosen and not account.email:
        raise BadRequest("give your account an e-mail address first: the digest goes there")
    online = _server(request)
    if chosen and (online.games.notifier is None or not online.games.notifier.sends_email):
        raise BadRequest("this server sends no e-mail (its operator gave no SMTP server)")
    await _run(request, online.database.set_account_digest, account.id, chosen)
    return JSONResponse({"digest": chosen, "email": account.email})


def notice_routes() -> list[BaseRoute]:
    """The routes of vacations and the daily digest, under `/api/account`."""
    return [
        Route("/api/account/vacation", vacation, methods=["GET"]),
        Route("/api/account/vacation", start_vacation, methods=["POST"]),
        Route("/api/account/vacation/end", end_vacation, methods=["POST"]),
        Route("/api/account/digest", digest, methods=["GET"]),
        Route("/api/account/digest", set_digest, methods=["POST"]),
    ]
