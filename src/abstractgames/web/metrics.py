"""What an operator watches of a server: `GET /healthz` and Prometheus metrics at `GET /metrics`.

Each server process keeps its own metrics (a Prometheus server scrapes every process):

| metric | what |
| --- | --- |
| `abstractgames_moves_total` | moves played through the online API by this process |
| `abstractgames_move_seconds` | a histogram of the seconds to answer a move |
| `abstractgames_open_sockets` | WebSockets open now, the page's and the game server's |
| `abstractgames_sweep_lag_seconds` | seconds since this process last swept the clocks |
| `abstractgames_damaged_games` | stored games this process found it cannot read |

`/healthz` answers 200 `{"status": "ok", ...}` while the database answers and the clocks are
swept, and 503 `{"status": "unhealthy", "problems": [...]}` otherwise, for a load balancer or a
supervisor to act on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["MAX_SWEEP_LAG", "ServerMetrics", "SocketCounter"]

MAX_SWEEP_LAG = 10.0
"""Seconds without a sweep of the clocks after which `/healthz` says the server is unhealthy."""

_MOVE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class ServerMetrics:
    """The metrics of one server process, in a registry of its own.

    Args:
        sweep_lag: seconds since the clocks were last swept (`None`: no game server here).
        damaged: how many stored games cannot be read.
    """

    content_type = CONTENT_TYPE_LATEST

    def __init__(
        self,
        sweep_lag: Callable[[], float] | None = None,
        damaged: Callable[[], int] | None = None,
    ) -> None:
        self.registry = CollectorRegistry()
        self.moves = Counter(
            "abstractgames_moves", "Moves played through the online API", registry=self.registry
        )
        self.move_seconds = Histogram(
            "abstractgames_move_seconds",
            "Seconds to answer a move through the online API",
            buckets=_MOVE_BUCKETS,
            registry=self.registry,
        )
        self.sockets = 0
        """WebSockets open now (counted by [`SocketCounter`][], on the event loop)."""
        Gauge(
            "abstractgames_open_sockets", "WebSockets open now", registry=self.registry
        ).set_function(lambda: self.sockets)
        self.sweep_lag = sweep_lag
        if sweep_lag is not None:
            lag = Gauge(
                "abstractgames_sweep_lag_seconds",
                "Seconds since this process last swept the clocks",
                registry=self.registry,
            )
            lag.set_function(sweep_lag)
        if damaged is not None:
            found = Gauge(
                "abstractgames_damaged_games",
                "Stored games this process cannot read",
                registry=self.registry,
            )
            found.set_function(damaged)

    def render(self) -> bytes:
        """The metrics in Prometheus's text format."""
        return generate_latest(self.registry)


class SocketCounter:
    """ASGI middleware: counts the WebSockets open in `metrics.open_sockets`."""

    def __init__(
        self, app: Callable[[Scope, Receive, Send], Awaitable[None]], metrics: ServerMetrics
    ) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        self.metrics.sockets += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.metrics.sockets -= 1
