"""The web app: the page, its JSON API and its WebSockets, as one Starlette (ASGI) application.

Every request is checked before anything is done: a body must be a JSON object of known fields
with values of the right type and range (else 400 and `{"error": message}`), a move goes through
the game's own `parse_move` and `apply` (a bad one gets their message, as the terminal shows it),
an unknown id is 404, and a request that cannot be done now (a move while a bot thinks) is 409.
Requests that change something must come from the page itself: another site's page cannot play,
start programs or read games through the browser of the person who runs the server (the `Origin`
header is checked), and on 127.0.0.1 a request must name this machine as its `Host` (so a DNS
name that points here cannot be used to reach it either).

And every request, the page itself and its files included, must carry the server's secret token
(see [`TokenGate`][]): `abstractgames serve` prints the page's address with `?token=...`, whose
first visit sets a cookie, so that no other program or person on the machine can play, start
programs or read games without it.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import logging
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from ..files import record_file_name
from ..players import HUMAN
from ..protocol import AbstractGamesError
from ..records import (
    MAX_RECORD_SIZE,
    SEED_LIMIT,
    CannotResume,
    ClockSettings,
    MatchRecord,
    ResumePlan,
)
from ..registry import NoHint
from ..registry import hint as suggest
from .database import Database, DatabaseError
from .errors import BadRequest, Busy, Conflict, Forbidden, WebError, resume_refused
from .metrics import MAX_SWEEP_LAG, ServerMetrics, SocketCounter
from .online_api import OnlineServer
from .online_api import routes as online_routes
from .requests import (
    MAX_BODY,
    MAX_POSITION,
    board_game,
    client_address,
    follow,
    read_body,
    read_json,
    start_position,
)
from .saved import SavedGames
from .seats import bot_spec
from .sessions import GameSession, Sessions
from .tournaments import Tournaments
from .views import catalog, game_view, grid_or_none, position_view, replay_view, squares_of

__all__ = [
    "MAX_BODY",
    "MAX_PUBLIC_UPLOAD",
    "MAX_UPLOADS",
    "STATIC",
    "TOKEN_COOKIE",
    "ClientGone",
    "TokenGate",
    "WebApp",
    "client_left",
    "cookie_name",
    "create_app",
    "new_token",
]

STATIC = Path(__file__).resolve().parent / "static"
"""The page's files: HTML, CSS and JavaScript modules, served as they are (no build step)."""
MAX_PLAYERS = 8
"""The most players of a tournament started from the page."""
MAX_TOURNAMENT_GAMES = 200
"""The most matches per pair of players of a tournament started from the page."""
WORKERS = 8
"""The threads that answer requests off the event loop (reading and writing the database, the
rules): most of their time is spent waiting on the database, a PostgreSQL server's above all."""
MAX_UPLOADS = 2
"""The most records (up to [`MAX_RECORD_SIZE`][abstractgames.records.MAX_RECORD_SIZE] each)
read and replayed at once; one more is answered 503 until one of them is done, so that uploads
cannot make the server's memory grow without a bound."""
MAX_PUBLIC_UPLOAD = 1024 * 1024
"""The largest record a public server replays for anyone (over 10,000 moves); each client
address's uploads count against its limit of new games (see
[`DEFAULT_LIMITS`][abstractgames.web.online_api.DEFAULT_LIMITS])."""
STOP_WAIT = 10.0
"""Seconds `POST /api/games/ID/stop` waits for the match to end before it answers (a bot
written in Python is interrupted at once; see
[`GuardedBot`][abstractgames.web.sessions.GuardedBot])."""
TOKEN_COOKIE = "abstractgames-token"
"""The name of the cookie that carries the token (with the server's port after it: cookies do
not tell ports apart, two servers on one machine must not share one)."""
TOKEN_BYTES = 32
"""The token's length in random bytes (256 bits, from `secrets`)."""

TOURNAMENT_BOTS = "a tournament is played between bots: name a bot for each player"

logger = logging.getLogger(__name__)
_T = TypeVar("_T")


class WebApp:
    """What the app holds: the matches, the tournaments, the saved games and the threads that
    think for bots and hints.

    Args:
        save_dir: the directory of record files: listed for replay, and where the page's
            records are kept when there is no `database` (`None`: none).
        allow_programs: whether the page may start external programs and bots from files.
        bot_timeout: seconds a bot without a clock has for a move before it forfeits.
        tournament_dir: where tournaments keep their records (default: `save_dir/tournaments`,
            or a new private temporary directory, removed by [`shutdown`][]).
        online: the game server's games between people (closed by [`shutdown`][]).
        database: where the page's own matches are kept, each record written after every move
            (`None`: as files in `save_dir`).
    """

    def __init__(
        self,
        *,
        save_dir: Path | None = None,
        allow_programs: bool = True,
        bot_timeout: float = 300.0,
        tournament_dir: Path | None = None,
        online: OnlineServer | None = None,
        public: bool = False,
        database: Database | None = None,
    ) -> None:
        self.online = online
        self.public = public
        """A game server for others: games are played online; the one-person page's own
        matches against bots, tournaments and continued records are not offered."""
        """The games between people by link and the lobby (`None`: this server has none)."""
        self.saved = SavedGames(save_dir, database)
        self.sessions = Sessions(
            records=self.saved if self.saved.keeping else None,
            allow_programs=allow_programs,
            bot_timeout=bot_timeout,
        )
        self._scratch: Path | None = None
        """The private temporary directory of the tournaments when nothing is saved."""
        if tournament_dir is None:
            if save_dir is not None:
                tournament_dir = save_dir / "tournaments"
            else:  # a directory of this server's own (0700, a new name), never a fixed path
                self._scratch = Path(tempfile.mkdtemp(prefix="abstractgames-web-"))
                tournament_dir = self._scratch / "tournaments"
        self.tournaments = Tournaments(tournament_dir)
        self.allow_programs = allow_programs
        self.executor = ThreadPoolExecutor(  # most of their time is the database's
            max_workers=WORKERS, thread_name_prefix="abstractgames-web"
        )
        self._catalog: dict[str, Any] | None = None
        self._saved_on_shutdown: list[str] | None = None
        self._shutdown_lock = asyncio.Lock()
        self.uploads = threading.BoundedSemaphore(MAX_UPLOADS)
        """One for each record being read and replayed (see [`MAX_UPLOADS`][])."""
        self.metrics = ServerMetrics(
            sweep_lag=None if online is None else online.sweep_lag,
            damaged=None if online is None else lambda: len(online.games.damaged),
        )
        """What `/metrics` and `/healthz` say (see [`abstractgames.web.metrics`][])."""

    def health(self) -> tuple[bool, dict[str, Any]]:
        """Whether this server is healthy, and what `/healthz` says of it."""
        problems = []
        said: dict[str, Any] = {}
        if self.online is not None:
            try:
                self.online.database.ping()
            except DatabaseError as error:
                problems.append(f"the database does not answer: {error}")
            lag = self.online.sweep_lag()
            said["sweep_lag"] = round(lag, 3)
            if lag > MAX_SWEEP_LAG:
                problems.append(f"the clocks were last swept {lag:.0f} seconds ago")
        said["open_sockets"] = self.metrics.sockets
        if problems:
            return False, {"status": "unhealthy", "problems": problems, **said}
        return True, {"status": "ok", **said}

    async def run(self, function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """Call `function` in a worker thread, off the event loop."""
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(
                self.executor, functools.partial(function, *args, **kwargs)
            )
        except RuntimeError:  # the threads were shut down
            raise Conflict("the server is shutting down") from None
        return await future

    def shutdown(self) -> list[str]:
        """Stop every match (saving its record) and tournament; return the records saved of the
        matches that were still being played. Safe to call more than once."""
        if self._saved_on_shutdown is None:
            saved = self.sessions.shutdown()
            self.tournaments.shutdown()
            if self.online is not None:
                self.online.close()
            self.executor.shutdown(wait=False, cancel_futures=True)
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
            self._saved_on_shutdown = saved
        return self._saved_on_shutdown

    def catalog(self) -> dict[str, Any]:
        """The games and players for the page's forms (made once)."""
        if self._catalog is None:
            self._catalog = catalog()
        return {
            **self._catalog,
            "allow_programs": self.allow_programs,
            "saving": self.saved.keeping,
            "online": self.online is not None,
            "public": self.public,
        }

    def check_private(self, what: str) -> None:
        """Refuse what only the one-person page does, on a public server.

        Raises:
            Forbidden: this is a public server.
        """
        if self.public:
            raise Forbidden(
                f"this is a public game server: {what} is for the one-person page "
                "('abstractgames serve' without --public); play in the Online section"
            )


# --- the API ----------------------------------------------------------------------------------


def _web(request: Request | WebSocket) -> WebApp:
    web: WebApp = request.app.state.web
    return web


def _session(request: Request | WebSocket) -> GameSession:
    return _web(request).sessions.get(request.path_params["id"])


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def get_catalog(request: Request) -> Response:
    web = _web(request)
    return JSONResponse(await web.run(web.catalog))


async def game_start(request: Request) -> Response:
    """A game (`?game=SPEC`, a variant too) as the page draws it, with its starting position."""
    web = _web(request)
    spec = request.query_params.get("game", "")
    if not spec.strip() or len(spec) > 200:
        raise BadRequest("name the game: ?game=SPEC (at most 200 characters)")

    def view() -> dict[str, Any]:
        game = board_game(spec)
        return {**game_view(game), "start": position_view(game.initial_state())}

    return JSONResponse(await web.run(view))


async def list_games(request: Request) -> Response:
    return JSONResponse({"games": _web(request).sessions.watchable()})


async def create_game(request: Request) -> Response:
    web = _web(request)
    _web(request).check_private("a match started here")
    fields = await read_json(request)
    resume = fields.text("resume", None, limit=300)
    spec = fields.text("game", None, limit=200)
    players = fields.texts("players", None, count=(2, 2))
    seed = fields.integer("seed", None, low=-SEED_LIMIT + 1, high=SEED_LIMIT - 1)
    clock_text = fields.text("clock", None, limit=40)
    single = fields.flag("single")
    time_loss_forfeits = fields.flag("time_loss_forfeits")
    pace = fields.number("pace", 0.0, low=0.0, high=10.0)
    position = fields.text("position", None, limit=MAX_POSITION)
    fields.finish()
    if players is not None and any(not p.strip() for p in players):
        raise BadRequest("a player spec is empty: write human, greedy, search:time=1, …")
    if resume is not None:
        session = await web.run(_resume, web, resume, players, pace)
        return JSONResponse(session.snapshot(), status_code=201)
    if spec is None:
        raise BadRequest("the request has no 'game' (or 'resume': a saved game to continue)")
    players = [HUMAN, "greedy"] if players is None else players
    clock = None
    if clock_text is not None and clock_text.strip():
        try:
            clock = ClockSettings.parse(clock_text)
        except ValueError as error:
            raise BadRequest(str(error)) from None
    game = board_game(spec)
    start = None if position is None or not position.strip() else start_position(game, position)
    session = await web.run(
        web.sessions.create,
        game,
        players,
        seed=seed,
        clock=clock,
        single=single,
        time_loss_forfeits=time_loss_forfeits,
        pace=pace,
        start=start,
    )
    return JSONResponse(session.snapshot(), status_code=201)


async def continue_record(request: Request) -> Response:
    """Continue the unfinished match of an uploaded record, saved as a new game of this server."""
    _web(request).check_private("continuing a record")
    web = _web(request)
    if not web.uploads.acquire(blocking=False):
        raise Busy(f"{MAX_UPLOADS} records are being read: send this one again in a moment")
    try:
        text = await read_body(request, MAX_RECORD_SIZE)

        def resume() -> GameSession:
            record = MatchRecord.loads(text)
            then = "the page continues games of built-in players only"
            plan = _page_plan(record, None, then=then)
            return web.sessions.resume(plan)

        session = await web.run(resume)
        return JSONResponse(session.snapshot(), status_code=201)
    finally:
        web.uploads.release()


def _resume(web: WebApp, name: str, players: list[str] | None, pace: float) -> GameSession:
    """Continue the unfinished match of the saved record `name` (as `play --resume` does)."""
    record = web.saved.load(name)
    plan = _page_plan(record, players, name=name, then="name the players to continue")
    return web.sessions.resume(plan, name=name, pace=pace)


def _page_plan(
    record: MatchRecord, players: list[str] | None, *, name: str | None = None, then: str
) -> ResumePlan:
    """How the page continues the match of `record` (named `name`, if it is kept): the plan of
    [`MatchRecord.resume_plan`][abstractgames.records.MatchRecord.resume_plan] for a game with
    a board, its refusal answered as [`resume_refused`][abstractgames.web.errors.resume_refused]
    says (`then`: what to do about a program the record names)."""
    try:
        plan = record.resume_plan((None, None) if players is None else players)
    except CannotResume as refused:
        raise resume_refused(refused, record=name, then=then) from None
    if grid_or_none(plan.game) is None:
        raise BadRequest(f"{plan.game.spec} has no board to show on the page")
    return plan


async def get_game(request: Request) -> Response:
    return JSONResponse(_session(request).snapshot())


async def play_move(request: Request) -> Response:
    session = _session(request)
    fields = await read_json(request)
    text = fields.text("move", limit=200)
    fields.finish()
    move = session.play(text)
    return JSONResponse({"move": move, "version": session.version})


async def undo(request: Request) -> Response:
    session = _session(request)
    (await read_json(request)).finish()
    session.undo()
    return JSONResponse({"version": session.version}, status_code=202)


async def resign(request: Request) -> Response:
    session = _session(request)
    fields = await read_json(request)
    player = fields.integer("player", None, low=1, high=2)
    fields.finish()
    number = session.resign(player)
    return JSONResponse({"player": number, "version": session.version}, status_code=202)


async def proceed(request: Request) -> Response:
    session = _session(request)
    (await read_json(request)).finish()
    session.proceed_to_next_game()
    return JSONResponse({"version": session.version}, status_code=202)


async def stop_game(request: Request) -> Response:
    session = _session(request)
    (await read_json(request)).finish()
    if session.done.is_set():
        raise Conflict("the match is over" if session.record.finished else "the match was stopped")
    session.close()
    deadline = time.monotonic() + STOP_WAIT
    while not session.done.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    return JSONResponse(session.snapshot())


async def hint(request: Request) -> Response:
    web = _web(request)
    session = _session(request)
    (await read_json(request)).finish()
    state, time_left = session.hint_position()
    try:
        found = await web.run(suggest, state, time_left=time_left)
    except NoHint as refused:
        raise Conflict(str(refused)) from None
    squares = squares_of(grid_or_none(state.game), found.move)
    return JSONResponse(
        {
            "move": str(found.move),
            "squares": squares,
            "seconds": found.seconds,
            "info": None if found.info is None else found.info.to_json(),
            "summary": found.summary,
        }
    )


async def game_record(request: Request) -> Response:
    session = _session(request)
    text = session.record.dumps()
    name = record_file_name(session.game.name, session.record.seed)
    return Response(
        text,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


async def list_records(request: Request) -> Response:
    web = _web(request)
    records = await web.run(web.saved.listing)
    directory = web.saved.directory
    return JSONResponse(
        {
            "directory": None if directory is None else str(directory),
            "database": None if web.saved.database is None else web.saved.database.shown,
            "records": records,
        }
    )


async def open_record(request: Request) -> Response:
    web = _web(request)
    return JSONResponse(await web.run(web.saved.replay, request.path_params["name"]))


async def record_file(request: Request) -> Response:
    web = _web(request)
    name = request.path_params["name"]
    data = await web.run(web.saved.data, name)
    return Response(
        data,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


async def healthz(request: Request) -> Response:
    web = _web(request)
    healthy, said = await web.run(web.health)
    return JSONResponse(said, status_code=200 if healthy else 503)


async def metrics(request: Request) -> Response:
    web = _web(request)
    return Response(web.metrics.render(), media_type=web.metrics.content_type)


async def upload_record(request: Request) -> Response:
    web = _web(request)
    limit = MAX_RECORD_SIZE
    if web.public and web.online is not None:  # anyone's: smaller, and as often as new games
        limit = MAX_PUBLIC_UPLOAD
        web.online.limits.take(client_address(request), "create")
    if not web.uploads.acquire(blocking=False):
        raise Busy(f"{MAX_UPLOADS} records are being read: send this one again in a moment")
    try:
        text = await read_body(request, limit)

        def replay() -> dict[str, Any]:
            return replay_view(MatchRecord.loads(text))

        return JSONResponse(await web.run(replay))
    finally:
        web.uploads.release()


async def list_tournaments(request: Request) -> Response:
    return JSONResponse({"tournaments": _web(request).tournaments.listing()})


async def create_tournament(request: Request) -> Response:
    _web(request).check_private("a tournament")
    web = _web(request)
    fields = await read_json(request)
    spec = fields.text("game", limit=200)
    players = [p.strip() for p in fields.texts("players", count=(2, MAX_PLAYERS))]
    games = fields.integer("games", 2, low=2, high=MAX_TOURNAMENT_GAMES)
    seed = fields.integer("seed", 0, low=-SEED_LIMIT + 1, high=SEED_LIMIT - 1)
    fields.finish()
    if games % 2:
        raise BadRequest(f"'games' must be even (each seed is played in both seats), not {games}")
    if len(set(players)) != len(players):
        raise BadRequest("a player is named twice: every player of a tournament is different")
    game = board_game(spec)

    def check() -> None:
        for player in players:
            bot_spec(player, game, refuse=web.sessions.refuse, person=TOURNAMENT_BOTS)

    await web.run(check)
    tournament = web.tournaments.create(game, players, games, seed)
    return JSONResponse(tournament.snapshot(), status_code=201)


async def get_tournament(request: Request) -> Response:
    return JSONResponse(_web(request).tournaments.get(request.path_params["id"]).snapshot())


async def stop_tournament(request: Request) -> Response:
    web = _web(request)
    tournament = web.tournaments.get(request.path_params["id"])
    await web.run(tournament.stop)
    return JSONResponse(tournament.snapshot())


async def tournament_match(request: Request) -> Response:
    web = _web(request)
    tournament = web.tournaments.get(request.path_params["id"])
    return JSONResponse(await web.run(tournament.match, request.path_params["number"]))


async def game_socket(websocket: WebSocket) -> None:
    try:
        session = _session(websocket)
    except WebError:
        await websocket.close(code=4404)
        return
    await follow(websocket, session, session.snapshot)


async def tournament_socket(websocket: WebSocket) -> None:
    try:
        tournament = _web(websocket).tournaments.get(websocket.path_params["id"])
    except WebError:
        await websocket.close(code=4404)
        return
    await follow(websocket, tournament, tournament.snapshot)


# --- errors -----------------------------------------------------------------------------------


async def _refused(request: Request, error: Exception) -> Response:
    status = error.status if isinstance(error, WebError) else 400  # a bad move, spec, record…
    return JSONResponse({"error": str(error)}, status_code=status)


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    return JSONResponse({"error": error.detail}, status_code=error.status_code)


ANYIO_GONE = frozenset({"BrokenResourceError", "ClosedResourceError", "EndOfStream"})
"""The errors of anyio (under Starlette) that say the other end of a stream has gone."""


def client_left(error: BaseException) -> bool:
    """Whether `error` says only that the client went away in the middle of its request (it
    closed the page, a script was stopped): normal, not a bug."""
    if isinstance(error, ClientDisconnect):
        return True
    kind = type(error)
    return kind.__module__.partition(".")[0] == "anyio" and kind.__name__ in ANYIO_GONE


async def _gone(request: Request, error: Exception) -> Response:
    logger.debug("the client left during %s %s", request.method, request.url.path)
    return Response(status_code=400)  # nobody reads it


class ClientGone:
    """Let a request whose client went away end quietly: nobody is there to answer, and it is
    no error of the server's (Starlette would log it as one)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except Exception as error:
            if not client_left(error):
                raise
            logger.debug("the client left during %s", scope.get("path"))


async def _internal(request: Request, error: Exception) -> Response:
    logger.error("internal error on %s %s", request.method, request.url.path, exc_info=error)
    return JSONResponse(
        {"error": f"internal error ({type(error).__name__}): this is a bug"}, status_code=500
    )


class SameOrigin:
    """Refuse requests that do not come from the page itself (see
    [the module][abstractgames.web.app]).

    Args:
        app: the application.
        hosts: the host names a request may be addressed to (`None`: any).
    """

    def __init__(self, app: ASGIApp, hosts: Sequence[str] | None) -> None:
        self.app = app
        self.hosts = None if hosts is None else {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        problem = None
        if self.hosts is not None and _hostname(host) not in self.hosts:
            problem = "this server answers requests to this machine only (unexpected Host)"
        origin = headers.get("origin")
        changes = scope["type"] == "websocket" or scope["method"] not in ("GET", "HEAD")
        if problem is None and changes and origin is not None and urlsplit(origin).netloc != host:
            problem = "requests from another site's page are refused"
        if problem is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": problem})
        else:
            await JSONResponse({"error": problem}, status_code=403)(scope, receive, send)


def new_token() -> str:
    """A new secret token: [`TOKEN_BYTES`][] random bytes from `secrets`, URL-safe."""
    return secrets.token_urlsafe(TOKEN_BYTES)


class TokenGate:
    """Answer only requests that carry the server's secret token, as notebook servers do: every
    request, the page and its files, the API and the WebSockets alike.

    The page's address with `?token=TOKEN` (the one `abstractgames serve` prints and `--open`
    opens) sets a cookie holding the token (HttpOnly, SameSite=Strict, so that the page's
    scripts cannot read it and no other site's page can send it) and redirects to the address
    without it (or, when a file or another site's page opened the address, answers a page that
    goes there itself: see [`HOP`][]). A request is then let in with that cookie, or the token in an
    `Authorization: Bearer TOKEN` or an `X-Token: TOKEN` header (for scripts). Without any it is
    answered 401, with a wrong one 403 (`{"error": ...}`; a WebSocket is closed with code 1008).
    Tokens are compared in constant time.

    Args:
        app: the application.
        token: the token.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        if len(token) < 16:
            raise ValueError("the token is too short to be a secret: use new_token()")
        self.app = app
        self.token = token.encode("utf-8")

    def _matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        cookie = cookie_name(scope)
        if scope["type"] == "http" and scope["path"] == "/":
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            if "token" in query:
                if not any(self._matches(value) for value in query["token"]):
                    await self._refuse(scope, receive, send, 403, WRONG_TOKEN)
                    return
                welcome = _welcome(Headers(scope=scope))
                welcome.set_cookie(cookie, self.token.decode(), httponly=True, samesite="strict")
                welcome.headers["Cache-Control"] = "no-store"
                welcome.headers["Referrer-Policy"] = "no-referrer"
                await welcome(scope, receive, send)
                return
        given = _presented(Headers(scope=scope), cookie)
        if given is None:
            await self._refuse(scope, receive, send, 401, NO_TOKEN)
        elif not self._matches(given):
            await self._refuse(scope, receive, send, 403, WRONG_TOKEN)
        else:
            await self.app(scope, receive, send)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, status: int, why: str
    ) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": why})
        else:
            await JSONResponse({"error": why}, status_code=status)(scope, receive, send)


HOP = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>abstractgames</title>
<meta name="referrer" content="no-referrer"></head>
<body><p><a href="/">Open the page</a></p>
<script>location.replace("/" + location.hash);</script></body></html>
"""
"""The page's first visit when it was opened from another page or a file: the browser does not
send a SameSite=Strict cookie along a redirect that another site started, so the page goes on
to the address without the token by itself (a navigation of this site's own)."""


def _welcome(headers: Headers) -> Response:
    """The answer to the first visit: a redirect to the address without the token, or, when
    another site (a file, another page) opened the address, [`HOP`][] there."""
    if headers.get("sec-fetch-site", "none") in ("none", "same-origin"):
        return RedirectResponse("/", status_code=303)
    return Response(HOP, media_type="text/html")


NO_TOKEN = (
    "this server answers only with its token: open the address 'abstractgames serve' printed "
    "(the one with ?token=), or send the token as 'Authorization: Bearer TOKEN'"
)
WRONG_TOKEN = (
    "this is not the token of this server (it has a new one each time it starts): open the "
    "address 'abstractgames serve' printed"
)


def cookie_name(scope: Scope) -> str:
    """The token's cookie for the server that `scope` reached (its port in the name)."""
    server = scope.get("server")
    port = server[1] if server and len(server) > 1 and server[1] else None
    return TOKEN_COOKIE if port is None else f"{TOKEN_COOKIE}-{port}"


def _presented(headers: Headers, cookie: str) -> str | None:
    """The token a request carries: its `Authorization: Bearer`, `X-Token` or cookie."""
    scheme, _, credentials = headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    if headers.get("x-token"):
        return headers["x-token"].strip()
    for part in headers.get("cookie", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == cookie:
            return value.strip().strip('"')
    return None


def _hostname(host: str) -> str:
    """The name in a Host header, without the port."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if ":" in host else host


def create_app(
    *,
    save_dir: Path | None = None,
    allow_programs: bool = True,
    bot_timeout: float = 300.0,
    hosts: Sequence[str] | None = None,
    tournament_dir: Path | None = None,
    token: str | None = None,
    online: OnlineServer | None = None,
    public: bool = False,
    database: Database | None = None,
) -> Starlette:
    """The web app (an ASGI application; `abstractgames serve` runs it with uvicorn).

    Args:
        save_dir: the directory of record files the replay list shows, and where every
            match's record is kept when there is no `database` (`None`: no directory).
        allow_programs: whether the page may start external programs (`engine:CMD`) and bots
            from files or modules.
        bot_timeout: seconds a bot without a clock has for a move before it forfeits.
        hosts: the host names requests may be addressed to (`None`: any; the server passes
            the loopback names when it listens on a loopback address).
        tournament_dir: where tournaments keep their records (default: in `save_dir`, or a
            private temporary directory removed at the end).
        token: the secret every request must carry (see [`TokenGate`][]; default: a new one
            from [`new_token`][]). The page's first address is `/?token=TOKEN`.
        online: the games between people by link and the lobby (`None`: none); see
            [`abstractgames.web.online`][].
        public: a game server for others: no token (seat secrets guard the games), and never
            a program started.
        database: where the page's own matches are kept, each record rewritten after every
            move (`None`: as files in `save_dir`); usually the online games' database.

    The app's [`WebApp`][] is `app.state.web`, its token `app.state.token`; the web app's
    `shutdown()` stops every match, saving it.
    """
    web = WebApp(
        save_dir=None if public else save_dir,  # the operator's own records stay theirs
        allow_programs=allow_programs and not public,
        bot_timeout=bot_timeout,
        tournament_dir=tournament_dir,
        online=online,
        public=public,
        database=None if public else database,
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await asyncio.get_running_loop().run_in_executor(None, web.shutdown)

    routes = [
        Route("/", index),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/api/catalog", get_catalog),
        Route("/healthz", healthz),
        Route("/metrics", metrics),
        Route("/api/start", game_start),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/from-record", continue_record, methods=["POST"]),
        Route("/api/games/{id}", get_game),
        Route("/api/games/{id}/move", play_move, methods=["POST"]),
        Route("/api/games/{id}/undo", undo, methods=["POST"]),
        Route("/api/games/{id}/resign", resign, methods=["POST"]),
        Route("/api/games/{id}/hint", hint, methods=["POST"]),
        Route("/api/games/{id}/continue", proceed, methods=["POST"]),
        Route("/api/games/{id}/stop", stop_game, methods=["POST"]),
        Route("/api/games/{id}/record", game_record),
        WebSocketRoute("/api/games/{id}/ws", game_socket),
        Route("/api/records", list_records),
        Route("/api/records/{name}", open_record),
        Route("/api/records/{name}/file", record_file),
        Route("/api/replay", upload_record, methods=["POST"]),
        Route("/api/tournaments", list_tournaments, methods=["GET"]),
        Route("/api/tournaments", create_tournament, methods=["POST"]),
        Route("/api/tournaments/{id}", get_tournament, methods=["GET"]),
        Route("/api/tournaments/{id}", stop_tournament, methods=["DELETE"]),
        Route("/api/tournaments/{id}/matches/{number:int}", tournament_match),
        WebSocketRoute("/api/tournaments/{id}/ws", tournament_socket),
        *online_routes(),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            AbstractGamesError: _refused,
            HTTPException: _http_error,
            ClientDisconnect: _gone,
            Exception: _internal,
        },
    )
    app.state.web = web
    app.state.token = new_token() if token is None else token
    app.add_middleware(SocketCounter, metrics=web.metrics)
    app.add_middleware(ClientGone)
    if not public:
        app.add_middleware(TokenGate, token=app.state.token)
    app.add_middleware(SameOrigin, hosts=hosts)
    return app
