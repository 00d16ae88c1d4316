"""The routes of accounts, players' pages and the operator's moderation (see
[`abstractgames.web.accounts`][] and [`abstractgames.web.moderation`][]).

A session travels in a cookie (HttpOnly, SameSite=Lax, Secure when the page is served over
HTTPS) holding a random token, never in an address; [`signed_in`][] reads it for every route
that acts for the account (the online routes too). Making accounts and signing in are limited
per client address ([`RateLimits`][abstractgames.web.online_api.RateLimits]'s kinds `account`
and `sign-in`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .accounts import MAX_TOKEN, Accounts, SignedIn
from .database import AccountRow
from .errors import Forbidden, NotFound
from .moderation import Moderation
from .requests import client_address, read_json

if TYPE_CHECKING:
    from .online_api import OnlineServer

__all__ = ["SESSION_COOKIE", "account_routes", "session_cookie", "signed_in", "signed_in_account"]

SESSION_COOKIE = "abstractgames-account"
"""The name of the session's cookie (with the server's port after it, as the token's)."""
MAX_CLAIMED = 200
"""The most secrets one claim presents."""


def _server(request: Request) -> OnlineServer:
    online: OnlineServer | None = request.app.state.web.online
    if online is None:
        raise NotFound("this server has no accounts (start it with --database or --public)")
    return online


def _accounts(request: Request) -> Accounts:
    return _server(request).accounts


async def _run(request: Request, function: Any, *args: Any, **kwargs: Any) -> Any:
    return await request.app.state.web.run(function, *args, **kwargs)


def session_cookie(request: Request) -> str:
    """The session cookie's name for the server that `request` reached (its port in it)."""
    port = request.url.port
    return SESSION_COOKIE if port is None else f"{SESSION_COOKIE}-{port}"


def _token(request: Request) -> str | None:
    token = request.cookies.get(session_cookie(request))
    return token if token and len(token) <= MAX_TOKEN else None


async def signed_in(request: Request) -> AccountRow | None:
    """The account whose session the request's cookie holds, if any (an expired session, a
    blocked account's or a forged cookie is none)."""
    token = _token(request)
    if token is None or request.app.state.web.online is None:
        return None
    account: AccountRow | None = await _run(request, _accounts(request).session, token)
    return account


async def signed_in_account(request: Request, why: str = "") -> AccountRow:
    """The signed-in account of the request; else 403, "sign in first" and `why`."""
    account = await signed_in(request)
    if account is None:
        raise Forbidden(f"sign in first: {why}" if why else "sign in first")
    return account


def _shown(account: AccountRow) -> dict[str, Any]:
    return {
        "name": account.name,
        "email": account.email,
        "operator": account.operator,
        "created": account.created_at,
    }


def _with_cookie(request: Request, answer: dict[str, Any], signed: SignedIn) -> Response:
    response = JSONResponse(answer)
    response.set_cookie(
        session_cookie(request),
        signed.token,
        max_age=180 * 86_400,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


async def whoami(request: Request) -> Response:
    account = await signed_in(request)
    online = request.app.state.web.online
    return JSONResponse(
        {
            "account": None if account is None else _shown(account),
            "accounts": online is not None,
            "sends_links": online is not None and online.accounts.sends_links,
        }
    )


async def create_account(request: Request) -> Response:
    accounts = _accounts(request)
    fields = await read_json(request)
    name = fields.text("name", limit=100)
    email = fields.text("email", None, limit=320)
    fields.finish()
    _server(request).limits.take(client_address(request), "account")
    signed = await _run(request, accounts.create, name, email)
    answer = {"account": _shown(signed.account), "recovery_code": signed.recovery_code}
    return _with_cookie(request, answer, signed)


async def sign_in(request: Request) -> Response:
    accounts = _accounts(request)
    fields = await read_json(request)
    name = fields.text("name", limit=100)
    code = fields.text("code", limit=MAX_TOKEN)
    fields.finish()
    _server(request).limits.take(client_address(request), "sign-in")
    signed = await _run(request, accounts.sign_in, name, code)
    return _with_cookie(request, {"account": _shown(signed.account)}, signed)


async def send_link(request: Request) -> Response:
    accounts = _accounts(request)
    fields = await read_json(request)
    name = fields.text("name", limit=100)
    fields.finish()
    _server(request).limits.take(client_address(request), "sign-in")
    await _run(request, accounts.send_link, name)
    return JSONResponse({"sent": True})


async def redeem(request: Request) -> Response:
    accounts = _accounts(request)
    fields = await read_json(request)
    token = fields.text("token", limit=MAX_TOKEN)
    fields.finish()
    _server(request).limits.take(client_address(request), "sign-in")
    signed = await _run(request, accounts.redeem, token)
    return _with_cookie(request, {"account": _shown(signed.account)}, signed)


async def sign_out(request: Request) -> Response:
    (await read_json(request)).finish()
    token = _token(request)
    if token is not None and request.app.state.web.online is not None:
        await _run(request, _accounts(request).sign_out, token)
    response = JSONResponse({"account": None})
    response.delete_cookie(session_cookie(request), path="/")
    return response


async def set_email(request: Request) -> Response:
    fields = await read_json(request)
    email = fields.text("email", None, limit=320)
    fields.finish()
    account = await signed_in_account(request)
    kept = await _run(request, _accounts(request).set_email, account, email)
    return JSONResponse({"email": kept})


async def new_recovery_code(request: Request) -> Response:
    (await read_json(request)).finish()
    account = await signed_in_account(request)
    code = await _run(request, _accounts(request).new_recovery_code, account)
    return JSONResponse({"recovery_code": code})


async def my_games(request: Request) -> Response:
    account = await signed_in_account(request)
    games = await _run(request, _accounts(request).account_games, account)
    return JSONResponse({"games": games})


async def claim(request: Request) -> Response:
    fields = await read_json(request)
    held = fields.texts("secrets", count=(1, MAX_CLAIMED))
    fields.finish()
    account = await signed_in_account(request)
    _server(request).limits.take(client_address(request), "create")
    games = await _run(request, _accounts(request).claim, account, held)
    return JSONResponse({"claimed": games})


async def player(request: Request) -> Response:
    found = await _run(request, _accounts(request).player, request.path_params["name"])
    return JSONResponse(found)


async def player_page(request: Request) -> Response:
    """`/players/NAME`: the page's player view (the page routes by its address's fragment)."""
    return RedirectResponse(f"/#/players/{quote(request.path_params['name'], safe='')}", 303)


# --- moderation -------------------------------------------------------------------------------


async def _operator(request: Request) -> Moderation:
    account = await signed_in_account(request)
    if not account.operator:
        raise Forbidden("the moderation page is for the server's operator")
    return Moderation(_server(request).database, games=_server(request).games)


async def moderation(request: Request) -> Response:
    tools = await _operator(request)
    return JSONResponse(
        {
            "games": await _run(request, tools.games, 100),
            "accounts": await _run(request, tools.accounts, 200),
        }
    )


async def abort_game(request: Request) -> Response:
    (await read_json(request)).finish()
    tools = await _operator(request)
    await _run(request, tools.abort, request.path_params["id"])
    return JSONResponse({"aborted": request.path_params["id"]})


async def block_account(request: Request) -> Response:
    fields = await read_json(request)
    blocked = fields.flag("blocked", True)
    fields.finish()
    tools = await _operator(request)
    name = request.path_params["name"]
    await _run(request, tools.block if blocked else tools.unblock, name)
    return JSONResponse({"name": name, "blocked": blocked})


def account_routes() -> list[BaseRoute]:
    """The routes of accounts (`/api/account`), players (`/api/players`, `/players`) and the
    operator's moderation (`/api/moderation`)."""
    return [
        Route("/api/account", whoami, methods=["GET"]),
        Route("/api/account", create_account, methods=["POST"]),
        Route("/api/account/sign-in", sign_in, methods=["POST"]),
        Route("/api/account/link", send_link, methods=["POST"]),
        Route("/api/account/token", redeem, methods=["POST"]),
        Route("/api/account/sign-out", sign_out, methods=["POST"]),
        Route("/api/account/email", set_email, methods=["POST"]),
        Route("/api/account/recovery", new_recovery_code, methods=["POST"]),
        Route("/api/account/games", my_games, methods=["GET"]),
        Route("/api/account/claim", claim, methods=["POST"]),
        Route("/api/players/{name}", player),
        Route("/players/{name}", player_page),
        Route("/api/moderation", moderation, methods=["GET"]),
        Route("/api/moderation/games/{id}/abort", abort_game, methods=["POST"]),
        Route("/api/moderation/accounts/{name}/block", block_account, methods=["POST"]),
    ]
