"""The web interface (`abstractgames serve`, the `web` extra): play, watch and replay in a browser.

A local web app on Starlette, served by uvicorn: the page (plain HTML, CSS and JavaScript
modules shipped in the package, no build step, nothing fetched from elsewhere) draws the board
from the JSON the app sends and turns clicks into moves, which the app checks with the game's
own rules. Every match is played by the [`Referee`][abstractgames.referee.Referee], as
`abstractgames play` plays it, and saved as the same game record; tournaments are
`abstractgames arena` itself. Nothing here knows a particular game.

- [`create_app`][abstractgames.web.app.create_app]: the ASGI application.
- [`serve`][abstractgames.web.server.serve]: run it until Ctrl-C, saving the games in progress.
"""

from __future__ import annotations

from .app import WebApp, create_app
from .server import ServeError, serve

__all__ = ["ServeError", "WebApp", "create_app", "serve"]
