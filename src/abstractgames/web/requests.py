"""Reading the page's requests and following what it watches: shared by every route of the app.

A body must be a JSON object of known fields with values of the right type and range
([`Fields`][]), no larger than [`MAX_BODY`][] (an uploaded record excepted); a WebSocket gets a
snapshot at once and after every change ([`follow`][]).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

from starlette.requests import Request
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import strictjson
from ..grid import read_position
from ..protocol import AbstractGamesError, Game, State
from ..referee import check_start
from ..registry import parse_game_spec
from ..text import excerpt
from .errors import BadRequest, TooLarge
from .sessions import Live
from .views import grid_or_none

__all__ = [
    "MAX_BODY",
    "MAX_POSITION",
    "PUSH_INTERVAL",
    "Fields",
    "board_game",
    "client_address",
    "follow",
    "read_body",
    "read_json",
    "start_position",
]

MAX_BODY = 64 * 1024
"""The largest request body read, in bytes, but for an uploaded record (see
[`MAX_RECORD_SIZE`][abstractgames.records.MAX_RECORD_SIZE])."""
MAX_POSITION = 4000
"""The longest start position a new game may be given (a text diagram with its caption)."""
PUSH_INTERVAL = 0.05
"""The shortest time between two updates a WebSocket sends (changes in between are merged)."""
_MISSING: Any = object()


async def read_body(request: Request, limit: int = MAX_BODY) -> str:
    """The request's body as text, refused if it is not JSON, larger than `limit` bytes, or not
    UTF-8.

    Raises:
        BadRequest: not JSON or not UTF-8.
        TooLarge: more than `limit` bytes.
    """
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise BadRequest("send the request as JSON (Content-Type: application/json)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"the request is larger than {limit:,} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise TooLarge(f"the request is larger than {limit:,} bytes")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest(f"the request is not UTF-8 (at byte {error.start + 1:,})") from None


async def read_json(request: Request, limit: int = MAX_BODY) -> Fields:
    """The request's JSON object, to read its fields from (an empty body is `{}`)."""
    text = await read_body(request, limit)
    if not text.strip():
        return Fields({})
    try:
        data = strictjson.loads(text)
    except strictjson.JSONError as error:
        raise BadRequest(f"the request is {error}") from None
    return Fields(data)


class Fields:
    """The fields of a request's JSON object, each checked as it is read; [`finish`][] refuses
    any field that was not read."""

    def __init__(self, data: Any) -> None:
        if not isinstance(data, dict):
            raise BadRequest("the request must be a JSON object")
        self.data: dict[str, Any] = data
        self.read: list[str] = []

    def _get(self, key: str, default: Any) -> Any:
        self.read.append(key)
        value = self.data.get(key, _MISSING)
        if value is _MISSING or value is None:
            if default is _MISSING:
                raise BadRequest(f"the request has no {key!r}")
            return default
        return value

    def text(self, key: str, default: Any = _MISSING, *, limit: int = 1000) -> Any:
        """A string field of at most `limit` characters."""
        value = self._get(key, default)
        if value is default:
            return value
        if not isinstance(value, str):
            raise BadRequest(f"{key!r} must be a string, not {_kind(value)}")
        if len(value) > limit:
            raise BadRequest(f"{key!r} is longer than {limit:,} characters")
        return value

    def texts(self, key: str, default: Any = _MISSING, *, count: tuple[int, int]) -> Any:
        """A list of short strings, with a number of items in the range `count`."""
        value = self._get(key, default)
        if value is default:
            return value
        low, high = count
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise BadRequest(f"{key!r} must be a list of strings")
        if not low <= len(value) <= high:
            many = f"{low}" if low == high else f"{low} to {high}"
            raise BadRequest(f"{key!r} must have {many} items, not {len(value)}")
        if any(len(v) > 1000 for v in value):
            raise BadRequest(f"an item of {key!r} is longer than 1,000 characters")
        return value

    def integer(self, key: str, default: Any = _MISSING, *, low: int, high: int) -> Any:
        """An integer field from `low` to `high`."""
        value = self._get(key, default)
        if value is default:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadRequest(f"{key!r} must be an integer, not {_kind(value)}")
        if not low <= value <= high:
            raise BadRequest(f"{key!r} must be from {low} to {high}, not {excerpt(value)}")
        return value

    def number(self, key: str, default: Any = _MISSING, *, low: float, high: float) -> Any:
        """A number field from `low` to `high`."""
        value = self._get(key, default)
        if value is default:
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadRequest(f"{key!r} must be a number, not {_kind(value)}")
        if not low <= value <= high:
            raise BadRequest(f"{key!r} must be from {low:g} to {high:g}, not {excerpt(value)}")
        return float(value)

    def flag(self, key: str, default: bool = False) -> bool:
        """A true/false field."""
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise BadRequest(f"{key!r} must be true or false, not {_kind(value)}")
        return value

    def finish(self) -> None:
        """Refuse the fields that were not read."""
        unknown = sorted(set(self.data) - set(self.read))
        if unknown:
            known = ", ".join(self.read) or "none"
            raise BadRequest(f"unknown field {excerpt(unknown[0])!r} (the fields are: {known})")


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true or false"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else "null")


def board_game(spec: str) -> Game:
    """The game of `spec`, refused if it has no board the page can draw."""
    game = parse_game_spec(spec)
    if grid_or_none(game) is None:
        raise BadRequest(f"{excerpt(spec)} has no board to show on the page")
    return game


def start_position(game: Game, text: str) -> State:
    """The position a new match starts from: a position string or a text diagram (with the side
    to move below it), as `play --position` reads it."""
    try:
        return check_start(game, read_position(game, text))
    except AbstractGamesError as error:
        raise BadRequest(f"the start position: {error}") from None


async def _made_once(
    live: Live, key: Any, run: Callable[..., Awaitable[Any]], snapshot: Callable[[], Any]
) -> Any:
    """`await run(snapshot)`, once for all the pages of `live` that ask with the same `key`
    (made after the change the key's version counts, so never older than it)."""
    flight = live.flights.get(key)
    if flight is None:
        flight = live.flights[key] = asyncio.ensure_future(run(snapshot))
        flight.add_done_callback(lambda done: live.flights.pop(key, None))
    return await asyncio.shield(flight)


async def _first(*tasks: asyncio.Future[Any]) -> set[asyncio.Future[Any]]:
    """The tasks done once the first of `tasks` is."""
    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    return done


async def follow(
    websocket: WebSocket,
    live: Live,
    snapshot: Callable[[], dict[str, Any] | str],
    *,
    accepted: bool = False,
    run: Callable[..., Awaitable[Any]] | None = None,
    ready: Callable[[], str | None] | None = None,
    share: Any = None,
) -> None:
    """Send `snapshot()` (a JSON value, or its text) at once and after every change of `live`,
    until the page goes (`accepted`: the socket is open already; `run`: how to call `snapshot`
    off the event loop, for one that reads a database; `ready`: the snapshot's text if it is at
    hand, without reading anything, else `None`; `share`: the pages of `live` that give the
    same `share` are sent the same, made once after each change)."""
    if not accepted:
        await websocket.accept()
    event = live.watch()
    receiving = asyncio.ensure_future(websocket.receive())
    waiting: asyncio.Future[Any] | None = None
    try:
        while True:
            event.clear()
            data: dict[str, Any] | str | None = None if ready is None else ready()
            if data is None and run is not None and share is not None:
                data = await _made_once(live, (live.version, share), run, snapshot)
            elif data is None:
                data = snapshot() if run is None else await run(snapshot)
            if isinstance(data, str):
                await websocket.send_text(data)
            else:
                await websocket.send_json(data)
            await asyncio.sleep(PUSH_INTERVAL)
            waiting = asyncio.ensure_future(event.wait())
            while waiting not in (done := await _first(waiting, receiving)):
                if receiving in done:  # the page says nothing; the socket is watched to its end
                    if receiving.result().get("type") == "websocket.disconnect":
                        return
                    receiving = asyncio.ensure_future(websocket.receive())
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass
    finally:
        live.unwatch(event)
        for task in (receiving, waiting):
            if task is not None:
                task.cancel()
        with suppress(Exception):
            await websocket.close()


def client_address(request: Request | WebSocket) -> str:
    """The address the request came from, as the rate limits count clients ("?" if unknown)."""
    return request.client.host if request.client else "?"
