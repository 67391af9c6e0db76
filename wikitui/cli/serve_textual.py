"""textual-serve's ``Server`` behind the door of ``serve_door``, with a page that loads nothing from elsewhere.

Written against textual-serve 1.1.3, whose ``Server`` has no hook for either: its
``aiohttp`` app is built by the private ``_make_app`` (routes ``index``,
``websocket``, ``download``, ``static``), and its page template asks
fonts.googleapis.com for Roboto Mono and gives the page absolute URLs on the
address it listens on (so a tab opened on ``localhost`` would talk to
``127.0.0.1``: another origin, without the cookie). This module is the only place
that relies on that: it wraps ``_make_app`` to lock the app, and replaces
``handle_index`` by one that renders ``wikitui/data/serve_page.html`` (textual-serve's
page, with the font served from textual-serve's own static folder and URLs on the
page's own origin). :func:`check_version` refuses any other textual-serve minor
version, and :meth:`LockedServer._make_app` refuses an app whose routes are not the
ones above, so a change there stops the server with a clear message rather than
serving an unlocked door.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Any

import aiohttp_jinja2
from aiohttp import web
from textual_serve.server import Server, to_int

from wikitui.cli.serve_door import Door, page_nonce

#: The textual-serve releases this adapter was written for (checked: 1.1.3).
SUPPORTED = "1.1."

#: The routes of textual-serve 1.1's app; the door guards all of them.
ROUTES = frozenset({"index", "websocket", "download", "static"})

#: The page (a Jinja template in wikitui/data, shipped as package data).
PAGE = "serve_page.html"
PAGES = Path(__file__).resolve().parent.parent / "data"


class UnsupportedTextualServe(RuntimeError):
    """The installed textual-serve is not the one this adapter knows: the door could not be checked."""


def check_version() -> None:
    """Refuse a textual-serve other than 1.1.x (see the module's docstring).

    Raises:
        UnsupportedTextualServe: another version is installed.
    """
    found = version("textual-serve")
    if not found.startswith(SUPPORTED):
        raise UnsupportedTextualServe(f"wikitui serve needs textual-serve {SUPPORTED}x (found {found}): "
                                      "its page and routes are what the browser door is fitted to")


class LockedServer(Server):
    """textual-serve's server with every request through ``door`` and a page with nothing from other hosts."""

    def __init__(self, command: str, door: Door, **options: Any) -> None:
        check_version()
        super().__init__(command, host=door.host, port=door.port, templates_path=PAGES, **options)
        self.door = door

    async def _make_app(self) -> web.Application:
        """textual-serve's app with the door in front of it.

        Raises:
            UnsupportedTextualServe: the app's routes are not the four the page and the door are fitted to.
        """
        app = await super()._make_app()
        names = {route.name for route in app.router.routes() if route.name}
        if names != ROUTES:
            raise UnsupportedTextualServe(f"textual-serve's routes are {sorted(names)}, not {sorted(ROUTES)}: "
                                          "the browser door is not fitted to them")
        self.door.lock(app)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Say nothing: textual-serve's banner shows its address without the token, which only gets a 403."""

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, on the origin it was asked on (the door has checked its ``Host``)."""
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "static_url": "/static/",
            "websocket_url": f"ws://{request.headers['Host']}/ws",
            "title": self.title,
            "nonce": page_nonce(request),
        }
        return aiohttp_jinja2.render_template(PAGE, request, context)
