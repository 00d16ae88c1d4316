"""The game server's API: games between people by link, the lobby, their live updates.

A seat's secret travels in the `X-Seat` header of a request (and as the first message of a
WebSocket), never in an address: addresses end up in logs and browser histories. The page keeps
secrets in the `#fragment` of its seat links, which browsers do not send. Each client (by its
address) may create a few games or challenges a minute and make a few moves a second
([`RateLimits`][]); one more is answered 429.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import strictjson
from ..referee import check_start
from .accounts import Accounts
from .accounts_api import account_routes, signed_in
from .club import ClubTournaments
from .club_api import tournament_routes
from .database import Database, UnknownChallenge
from .digest import DIGEST_HOUR, Digests
from .errors import BadRequest, NotFound, TooMany, WebError
from .notices_api import notice_routes
from .online import MAX_EXTENSION_DAYS, OnlineGames, Pace, hash_secret
from .requests import board_game, client_address, follow, read_json, start_position
from .sessions import Live
from .vacation import VACATION_DAYS, Vacations
from .views import replay_view

__all__ = [
    "DEFAULT_LIMITS",
    "SEAT_HEADER",
    "UNLIMITED",
    "OnlineServer",
    "RateLimits",
    "routes",
]

SEAT_HEADER = "x-seat"
"""The request header that carries a seat's secret."""
MAX_SECRETS = 200
"""The most secrets a page may ask about at once (its list of games)."""


class RateLimits:
    """A bucket per client and kind of request: `rate` requests a second, bursts of `burst`."""

    def __init__(self, limits: dict[str, tuple[float, float]], clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        self._buckets: dict[tuple[str, str], tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, client: str, kind: str) -> None:
        """Take one request of `kind` for `client`.

        Raises:
            TooMany: the client's bucket is empty.
        """
        rate, burst = self.limits[kind]
        now = self.clock()
        with self._lock:
            level, then = self._buckets.get((client, kind), (burst, now))
            level = min(burst, level + (now - then) * rate)
            if level < 1:
                raise TooMany(f"too many requests ({kind}): wait a moment and try again")
            self._buckets[(client, kind)] = (level - 1, now)
            if len(self._buckets) > 50_000:  # the oldest clients are forgotten
                for key in list(self._buckets)[:10_000]:
                    del self._buckets[key]


DEFAULT_LIMITS = {
    "create": (0.5, 30.0),
    "move": (5.0, 20.0),
    "account": (1 / 60, 5.0),
    "sign-in": (0.2, 10.0),
}
"""Creating games, challenges or notifications: 30 at once, then one every 2 seconds, per client
address; moves, resignations and names: 20 at once, then 5 a second, per seat; new accounts: 5
at once, then one a minute, per client address; sign-ins (by code, by link, asking for a link):
10 at once, then one every 5 seconds, per client address."""
UNLIMITED = {"create": (1e9, 1e9), "move": (1e9, 1e9), "account": (1e9, 1e9), "sign-in": (1e9, 1e9)}
"""No limits (`serve --no-rate-limits`): for a proxy that limits per address, and load tests."""


class OnlineServer:
    """The online games of a web app, their live updates and their clocks.

    Args:
        database: the store.
        games: the games (made from `database` if not given).
        limits: the rate limits (see [`DEFAULT_LIMITS`][]).
        vacation_days: the vacation days a year each account has (see
            [`abstractgames.web.vacation`][]).
        digest_hour: the hour (UTC) from which the daily digests go (see
            [`abstractgames.web.digest`][]).
    """

    def __init__(
        self,
        database: Database,
        games: OnlineGames | None = None,
        *,
        limits: dict[str, tuple[float, float]] | None = None,
        vacation_days: int = VACATION_DAYS,
        digest_hour: int = DIGEST_HOUR,
    ) -> None:
        self.database = database
        self.games = games or OnlineGames(database)
        self.accounts = Accounts(
            database,
            self.games,
            notifier=self.games.notifier,
            base_url=self.games.base_url,
            clock=self.games.clock,
        )
        """The accounts of the server's players (see [`abstractgames.web.accounts`][])."""
        self.vacations = Vacations(database, self.games, days=vacation_days)
        self.digests = Digests(database, self.games, self.games.notifier, hour=digest_hour)
        self.limits = RateLimits({**DEFAULT_LIMITS, **(limits or {})}, time.monotonic)
        self.lobby = Live()
        self.tournaments = ClubTournaments(database, self.games)
        """The tournaments for people (see [`abstractgames.web.club`][])."""
        self.club = Live()
        """What the tournaments' pages wait on: their changes are the lobby's."""
        self._lives: dict[str, Live] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._started = time.monotonic()
        self.last_sweep: float | None = None
        """When (`time.monotonic()`) this process last swept the clocks."""
        self._changes = database.listen(poll=0.25)
        with suppress(Exception):  # before any move: the sweeps try again every second
            self.games.give_back_downtime()
        self._threads = [
            threading.Thread(target=self._follow, name="abstractgames-changes", daemon=True),
            threading.Thread(target=self._sweep, name="abstractgames-clocks", daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        self.games.resume_bots()

    def sweep_lag(self) -> float:
        """Seconds since this process last swept the clocks (since it started, before)."""
        return time.monotonic() - (self.last_sweep or self._started)

    def live(self, game_id: str) -> Live:
        """What the WebSockets of one game wait on."""
        with self._lock:
            found = self._lives.get(game_id)
            if found is None:
                found = self._lives[game_id] = Live()
            return found

    def _follow(self) -> None:
        while not self._stop.is_set():
            change = self._changes.get(timeout=0.5)
            if change is None:
                continue
            if change.kind in ("lobby", "all"):
                self.lobby.changed()
                self.club.changed()
            if change.kind == "all":
                self.games.changed(None)
                with self._lock:
                    lives = list(self._lives.values())
                for live in lives:
                    live.changed()
            elif change.kind == "game" and change.game_id is not None:
                self.games.changed(change.game_id)
                with self._lock:
                    followed = self._lives.get(change.game_id)
                if followed is not None:
                    followed.changed()

    def _sweep(self) -> None:
        for second in itertools.count():
            try:
                self.games.give_back_downtime()
                self.games.sweep()
                if second % 10 == 0:
                    self.games.expire_challenges()
                    self.games.take_over_bots()
                    self.tournaments.sweep()
                self.last_sweep = time.monotonic()
            except Exception:  # the database is away for a moment: the next sweep tries again
                pass
            if second % 60 == 0:
                with suppress(Exception):  # the same: a minute later
                    self.digests.send_due()
            if self._stop.wait(1.0):
                return

    def forget(self, game_id: str, live: Live) -> None:
        """Drop the live updates of a game nobody follows any more."""
        with self._lock, live.lock:
            if not live._waiters and self._lives.get(game_id) is live:
                del self._lives[game_id]

    def close(self) -> None:
        self._stop.set()
        self._changes.close()
        for thread in self._threads:
            thread.join(timeout=5)
        self.games.close()


# --- requests ---------------------------------------------------------------------------------


def _web(request: Request | WebSocket) -> Any:
    return request.app.state.web  # the app's WebApp


def _online(request: Request | WebSocket) -> OnlineServer:
    online: OnlineServer | None = _web(request).online
    if online is None:
        raise NotFound("this server plays no online games (start it with --database or --public)")
    return online


def _secret(request: Request) -> str | None:
    secret = request.headers.get(SEAT_HEADER)
    return secret.strip() if secret else None


def _seat_key(request: Request) -> str:
    """Whose moves a request's count against: its seat (people behind one address, a
    classroom's, are limited each on their own), or its address without a secret."""
    secret = _secret(request)
    return "seat:" + hash_secret(secret) if secret else client_address(request)


async def create_game(request: Request) -> Response:
    online = _online(request)
    fields = await read_json(request)
    spec = fields.text("game", limit=200)
    pace = Pace.parse(fields.text("time_control", "none", limit=80))
    seat = fields.integer("seat", None, low=1, high=2)
    name = fields.text("name", None, limit=200)
    position = fields.text("position", None, limit=4000)
    opponent = fields.text("opponent", None, limit=200)
    fields.finish()
    online.limits.take(client_address(request), "create")
    game = board_game(spec)
    start = None if position is None or not position.strip() else start_position(game, position)
    if start is not None:
        check_start(game, start)
    web = _web(request)
    account = await signed_in(request)
    name = await web.run(online.accounts.seat_name, name, account)
    game_id, mine, theirs = await web.run(
        online.games.create, game, seat=seat, pace=pace, name=name, start=start, opponent=opponent
    )
    if account is not None:  # the creator's seat is the account's
        await web.run(online.accounts.claim, account, [mine])
    view = await web.run(online.games.snapshot, game_id, mine)
    return JSONResponse(
        {"id": game_id, "seat": view["you"], "secret": mine, "invitation": theirs, "game": view},
        status_code=201,
    )


async def get_game(request: Request) -> Response:
    online = _online(request)
    view = await _web(request).run(
        online.games.snapshot, request.path_params["id"], _secret(request)
    )
    return JSONResponse(view)


async def _as_seat(request: Request, action: Callable[..., Any], *args: Any) -> Any:
    """`action(game_id, secret, *args)` for the seat whose secret the request carries, within
    that seat's rate limit (moves, resignations, takebacks and names share one)."""
    _online(request).limits.take(_seat_key(request), "move")
    return await _web(request).run(action, request.path_params["id"], _secret(request), *args)


async def play_move(request: Request) -> Response:
    fields = await read_json(request)
    move = fields.text("move", limit=200)
    ply = fields.integer("ply", low=0, high=10**6)
    fields.finish()
    metrics = _web(request).metrics
    with metrics.move_seconds.time():
        played = await _as_seat(request, _online(request).games.play, move, ply)
    metrics.moves.inc()
    return JSONResponse({"move": played})


async def resign(request: Request) -> Response:
    fields = await read_json(request)
    ply = fields.integer("ply", None, low=0, high=10**6)
    fields.finish()
    seat = await _as_seat(request, _online(request).games.resign, ply)
    return JSONResponse({"resigned": seat})


async def takeback(request: Request) -> Response:
    fields = await read_json(request)
    ply = fields.integer("ply", low=0, high=10**6)
    fields.finish()
    done = await _as_seat(request, _online(request).games.ask_takeback, ply)
    return JSONResponse({"taken_back": done})


async def answer_takeback(request: Request) -> Response:
    fields = await read_json(request)
    ply = fields.integer("ply", low=0, high=10**6)
    accept = fields.flag("accept")
    fields.finish()
    await _as_seat(request, _online(request).games.answer_takeback, ply, accept)
    return JSONResponse({"accepted": accept})


async def claim(request: Request) -> Response:
    fields = await read_json(request)
    ply = fields.integer("ply", low=0, high=10**6)
    fields.finish()
    await _as_seat(request, _online(request).games.claim, ply)
    return JSONResponse({"claimed": True})


async def extension(request: Request) -> Response:
    fields = await read_json(request)
    ply = fields.integer("ply", low=0, high=10**6)
    days = fields.integer("days", low=1, high=MAX_EXTENSION_DAYS)
    fields.finish()
    await _as_seat(request, _online(request).games.ask_extension, ply, days)
    return JSONResponse({"asked": days})


async def answer_extension(request: Request) -> Response:
    fields = await read_json(request)
    ply = fields.integer("ply", low=0, high=10**6)
    accept = fields.flag("accept")
    fields.finish()
    await _as_seat(request, _online(request).games.answer_extension, ply, accept)
    return JSONResponse({"accepted": accept})


async def rename(request: Request) -> Response:
    fields = await read_json(request)
    name = fields.text("name", None, limit=200)
    fields.finish()
    online = _online(request)
    name = await _web(request).run(
        online.accounts.seat_name_for,
        request.path_params["id"],
        _secret(request),
        name,
        await signed_in(request),
    )
    named = await _as_seat(request, online.games.rename, name)
    return JSONResponse({"name": named})


async def rematch(request: Request) -> Response:
    online = _online(request)
    (await read_json(request)).finish()
    online.limits.take(client_address(request), "create")
    new_id = await _web(request).run(
        online.games.rematch, request.path_params["id"], _secret(request)
    )
    return JSONResponse({"id": new_id})


async def notifications(request: Request) -> Response:
    online = _online(request)
    fields = await read_json(request)
    email = fields.text("email", None, limit=320)
    webhook = fields.text("webhook", None, limit=2000)
    digest = fields.flag("digest", False)
    fields.finish()
    online.limits.take(client_address(request), "create")
    await _web(request).run(
        online.games.set_notifications,
        request.path_params["id"],
        _secret(request),
        email=email,
        webhook=webhook,
        digest=digest,
    )
    return JSONResponse({"email": email, "webhook": webhook, "digest": digest and bool(email)})


async def game_record(request: Request) -> Response:
    """A finished game's record, as `play --record` writes it (an unfinished one would tell its
    seed, and with it the chance draws to come)."""
    online = _online(request)
    game_id = request.path_params["id"]
    record = await _web(request).run(online.games.record_of, game_id)
    if not record.finished:
        raise BadRequest("the record is given once the match is over")
    return Response(
        record.dumps(),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{game_id}.json"'},
    )


async def game_replay(request: Request) -> Response:
    """A finished game's record with every position, for the page's replay."""
    online = _online(request)
    record = await _web(request).run(online.games.record_of, request.path_params["id"])
    if not record.finished:
        raise BadRequest("the replay is given once the match is over")
    return JSONResponse(await _web(request).run(replay_view, record))


async def my_games(request: Request) -> Response:
    online = _online(request)
    fields = await read_json(request)
    held = fields.texts("secrets", [], count=(0, MAX_SECRETS))
    fields.finish()
    games = await _web(request).run(online.games.games_of, held)
    return JSONResponse({"games": games})


# --- the lobby --------------------------------------------------------------------------------


def _challenges(online: OnlineServer) -> dict[str, Any]:
    return {
        "challenges": [
            {
                "id": c.id,
                "game": c.game_spec,
                "time_control": str(pace),
                "side": c.side,
                "name": c.name,
                "created": c.created_at,
            }
            for c, pace in online.games.open_challenges()
        ]
    }


async def lobby(request: Request) -> Response:
    online = _online(request)
    return JSONResponse(await _web(request).run(_challenges, online))


async def create_challenge(request: Request) -> Response:
    online = _online(request)
    fields = await read_json(request)
    spec = fields.text("game", limit=200)
    pace = Pace.parse(fields.text("time_control", "none", limit=80))
    seat = fields.integer("seat", None, low=1, high=2)
    name = fields.text("name", None, limit=200)
    fields.finish()
    online.limits.take(client_address(request), "create")
    game = board_game(spec)
    web = _web(request)
    account = await signed_in(request)
    name = await web.run(online.accounts.seat_name, name, account)
    challenge_id, secret = await web.run(
        online.games.challenge, game, pace=pace, seat=seat, name=name
    )
    if account is not None:  # the creator's seat will be the account's
        await web.run(online.accounts.bind_challenge, account, challenge_id)
    return JSONResponse({"id": challenge_id, "secret": secret}, status_code=201)


async def accept_challenge(request: Request) -> Response:
    online = _online(request)
    fields = await read_json(request)
    name = fields.text("name", None, limit=200)
    fields.finish()
    online.limits.take(client_address(request), "create")
    web = _web(request)
    account = await signed_in(request)
    name = await web.run(online.accounts.seat_name, name, account)
    try:
        game_id, secret = await web.run(online.games.accept, request.path_params["id"], name)
    except UnknownChallenge:
        raise NotFound("that challenge is gone: someone accepted it, or it was withdrawn") from None
    if account is not None:  # the acceptor's seat is the account's
        await web.run(online.accounts.claim, account, [secret])
    view = await web.run(online.games.snapshot, game_id, secret)
    return JSONResponse(
        {"id": game_id, "seat": view["you"], "secret": secret, "game": view}, status_code=201
    )


async def cancel_challenge(request: Request) -> Response:
    online = _online(request)
    secret = _secret(request) or ""
    await _web(request).run(online.games.withdraw, request.path_params["id"], secret)
    return JSONResponse({"cancelled": request.path_params["id"]})


# --- live updates -----------------------------------------------------------------------------


async def game_socket(websocket: WebSocket) -> None:
    """A game's snapshots, for the seat whose secret the first message gives
    (`{"secret": ...}`; `{}` to watch), at once and after every change."""
    try:
        online = _online(websocket)
        game_id = websocket.path_params["id"]
        web = _web(websocket)
        await web.run(online.games.seat_of, game_id, None)
    except WebError:
        await websocket.close(code=4404)
        return
    await websocket.accept()
    try:
        first = await asyncio.wait_for(websocket.receive(), timeout=10)
        text = first.get("text")  # a binary or closing frame has none: refused as a bad one
        if not isinstance(text, str):
            raise strictjson.JSONError("the first message is a JSON text")
        data = strictjson.loads(text) if text.strip() else {}
        secret = data.get("secret") if isinstance(data, dict) else None
    except (TimeoutError, WebSocketDisconnect, strictjson.JSONError, RuntimeError):
        with suppress(Exception):
            await websocket.close(code=1008)
        return
    secret = secret if isinstance(secret, str) else None
    live = online.live(game_id)
    try:
        await follow(
            websocket,
            live,
            lambda: online.games.snapshot_text(game_id, secret),
            accepted=True,
            run=web.run,
            ready=lambda: online.games.cached_snapshot_text(game_id, secret),
            share=secret,  # each seat's pages, and all the watchers', see the same
        )
    finally:
        online.forget(game_id, live)


async def lobby_socket(websocket: WebSocket) -> None:
    try:
        online = _online(websocket)
    except WebError:
        await websocket.close(code=4404)
        return
    await follow(
        websocket, online.lobby, lambda: _challenges(online), run=_web(websocket).run, share=True
    )


def routes() -> list[BaseRoute]:
    """The routes of the game server, under `/api/online` and `/api/lobby`, and those of its
    tournaments (`club_api.tournament_routes`), accounts, players and moderation
    (`accounts_api.account_routes`)."""
    return [
        *tournament_routes(),  # before /api/online/{id}
        Route("/api/online", create_game, methods=["POST"]),
        Route("/api/online/mine", my_games, methods=["POST"]),
        Route("/api/online/{id}", get_game),
        Route("/api/online/{id}/move", play_move, methods=["POST"]),
        Route("/api/online/{id}/resign", resign, methods=["POST"]),
        Route("/api/online/{id}/takeback", takeback, methods=["POST"]),
        Route("/api/online/{id}/takeback/answer", answer_takeback, methods=["POST"]),
        Route("/api/online/{id}/claim", claim, methods=["POST"]),
        Route("/api/online/{id}/extension", extension, methods=["POST"]),
        Route("/api/online/{id}/extension/answer", answer_extension, methods=["POST"]),
        Route("/api/online/{id}/name", rename, methods=["POST"]),
        Route("/api/online/{id}/rematch", rematch, methods=["POST"]),
        Route("/api/online/{id}/notifications", notifications, methods=["POST"]),
        Route("/api/online/{id}/record", game_record),
        Route("/api/online/{id}/replay", game_replay),
        WebSocketRoute("/api/online/{id}/ws", game_socket),
        Route("/api/lobby", lobby, methods=["GET"]),
        Route("/api/lobby", create_challenge, methods=["POST"]),
        Route("/api/lobby/{id}/accept", accept_challenge, methods=["POST"]),
        Route("/api/lobby/{id}", cancel_challenge, methods=["DELETE"]),
        WebSocketRoute("/api/lobby/ws", lobby_socket),
        *account_routes(),
        *notice_routes(),
    ]
