"""The routes of the game server's tournaments for people (`abstractgames.web.club`), under
`/api/online/tournaments` (the one-person page's `/api/tournaments` are its bot arenas): the
list the lobby shows and a tournament's page, each live by WebSocket, and what signed-in
accounts do with them. Making one counts against the client's rate limit of creating games."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from .accounts_api import signed_in_account
from .club import MAX_ROUNDS, MAX_SIGNUP_HOURS, MAX_TITLE, ClubTournaments
from .database import AccountRow
from .errors import NotFound, WebError
from .online import Pace
from .requests import board_game, client_address, follow, read_json

__all__ = ["tournament_routes"]


def _online(request: Request | WebSocket) -> Any:
    online = request.app.state.web.online  # the app's OnlineServer
    if online is None:
        raise NotFound("this server plays no online games (start it with --database or --public)")
    return online


def _tournaments(request: Request | WebSocket) -> ClubTournaments:
    club: ClubTournaments = _online(request).tournaments
    return club


async def _run(request: Request | WebSocket, function: Any, *args: Any, **kwargs: Any) -> Any:
    return await request.app.state.web.run(function, *args, **kwargs)


async def _account(request: Request) -> AccountRow:
    return await signed_in_account(request, "tournaments are for accounts")


async def listing(request: Request) -> Response:
    return JSONResponse(await _run(request, _tournaments(request).listing))


async def create(request: Request) -> Response:
    fields = await read_json(request)
    title = fields.text("title", limit=MAX_TITLE * 4)
    spec = fields.text("game", limit=200)
    format = fields.text("format", "round-robin", limit=20)
    rounds = fields.integer("rounds", None, low=1, high=MAX_ROUNDS)
    pace = Pace.parse(fields.text("time_control", "none", limit=80))
    rated = fields.flag("rated", True)
    most = fields.integer("max_entrants", None, low=2, high=1000)
    hours = fields.number("signup_hours", None, low=0.01, high=MAX_SIGNUP_HOURS)
    fields.finish()
    account = await _account(request)
    _online(request).limits.take(client_address(request), "create")
    made = await _run(
        request,
        _tournaments(request).create,
        account,
        title=title,
        game=board_game(spec),
        format=format,
        rounds=rounds,
        pace=pace,
        rated=rated,
        max_entrants=most,
        signup_hours=hours,
    )
    return JSONResponse({"id": made}, status_code=201)


async def view(request: Request) -> Response:
    return JSONResponse(await _run(request, _tournaments(request).view, request.path_params["id"]))


async def _act(request: Request, action: str, *args: Any) -> Response:
    account = await _account(request)
    _online(request).limits.take(client_address(request), "move")
    club = _tournaments(request)
    await _run(request, getattr(club, action), request.path_params["id"], account, *args)
    return JSONResponse({"done": action})


async def join(request: Request) -> Response:
    (await read_json(request)).finish()
    return await _act(request, "join")


async def leave(request: Request) -> Response:
    (await read_json(request)).finish()
    return await _act(request, "leave")


async def start(request: Request) -> Response:
    (await read_json(request)).finish()
    return await _act(request, "start")


async def cancel(request: Request) -> Response:
    (await read_json(request)).finish()
    return await _act(request, "cancel")


async def add_bot(request: Request) -> Response:
    fields = await read_json(request)
    spec = fields.text("bot", limit=200)
    fields.finish()
    return await _act(request, "add_bot", spec)


async def remove(request: Request) -> Response:
    fields = await read_json(request)
    number = fields.integer("number", low=1, high=10_000)
    fields.finish()
    return await _act(request, "remove", number)


async def listing_socket(websocket: WebSocket) -> None:
    try:
        online = _online(websocket)
    except WebError:
        await websocket.close(code=4404)
        return
    club = online.tournaments
    await follow(websocket, online.club, club.listing, run=websocket.app.state.web.run, share=True)


async def view_socket(websocket: WebSocket) -> None:
    try:
        online = _online(websocket)
        tournament_id = websocket.path_params["id"]
        club = online.tournaments
        await _run(websocket, club.view, tournament_id)
    except WebError:
        await websocket.close(code=4404)
        return
    await follow(
        websocket,
        online.club,
        lambda: club.view(tournament_id),
        run=websocket.app.state.web.run,
        share=tournament_id,
    )


def tournament_routes() -> list[BaseRoute]:
    """The routes under `/api/online/tournaments` (before the games' `/api/online/{id}`)."""
    base = "/api/online/tournaments"
    return [
        Route(base, listing, methods=["GET"]),
        Route(base, create, methods=["POST"]),
        WebSocketRoute(f"{base}/ws", listing_socket),
        Route(base + "/{id}", view, methods=["GET"]),
        WebSocketRoute(base + "/{id}/ws", view_socket),
        Route(base + "/{id}/join", join, methods=["POST"]),
        Route(base + "/{id}/leave", leave, methods=["POST"]),
        Route(base + "/{id}/start", start, methods=["POST"]),
        Route(base + "/{id}/cancel", cancel, methods=["POST"]),
        Route(base + "/{id}/bots", add_bot, methods=["POST"]),
        Route(base + "/{id}/remove", remove, methods=["POST"]),
    ]
