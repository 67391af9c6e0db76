"""The lock on ``wikitui serve``'s browser door (DESIGN §8 "The browser door is locked").

A page that reaches the workspace reads the vault and types into it, so every
request must come from the person who started the server, through this server's
own address. As Jupyter does, each server has a random token, printed in the URL
it shows; the first visit with it trades it for an HttpOnly, SameSite=Strict
cookie and is redirected to the same address without it (so the token does not
stay in the address bar). That redirect is the page's own (a meta refresh), not a
302: when the URL is clicked on another site's page, a browser withholds a Strict
cookie for the whole redirect chain of that navigation, so after a 302 the first
page would be refused. Then each request, HTTP or WebSocket, is refused (403)
unless:

- its ``Host`` is a loopback name (127.0.0.1, localhost, [::1]) or the ``--host``
  given, with the server's port: a page on another name that DNS rebinding points
  here is not this server's page;
- its ``Origin``, when it has one (a browser's WebSocket always does), is this
  server's own: another site's script cannot open the terminal's socket;
- it carries the token, in its query or its cookie (compared in constant time).

Every response says it may not be framed and what the page may load: only from
this server (the page itself is made so: nothing in it comes from another host).
This module is plain aiohttp; ``serve_textual`` fits it to textual-serve's app.
"""

from __future__ import annotations

import hmac
import html
import ipaddress
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from aiohttp import web

#: Names that only this machine answers to.
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})

#: Addresses that listen on every interface: the machine's own IP addresses are then its names too.
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})

#: Where the page's script nonce is kept on its request (see :func:`page_nonce`).
_NONCE = "wikitui.serve.nonce"

#: Marks the request whose answer trades the token for the cookie.
_EXCHANGE = "wikitui.serve.exchange"

#: The page's policy: scripts only from here or inline with this response's nonce; styles from here or inline
#: (xterm.js and textual.js insert their own); fonts, images and sockets only from here; never in a frame.
PAGE_POLICY = ("default-src 'none'; script-src 'self' 'nonce-{nonce}'; style-src 'self' 'unsafe-inline'; "
               "font-src 'self'; img-src 'self'; connect-src 'self' ws://{host}; "
               "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")

#: Everything else (scripts, fonts, downloads, refusals) is no page: a file the app offers for download that
#: happens to be HTML cannot run a script in this origin.
OTHER_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox"

#: The token's exchange: no sandbox, since a sandboxed page has no origin and its refresh would be cross-site.
EXCHANGE_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

#: The exchange's page: on to the address without the token, from this origin (so the cookie goes with it).
EXCHANGE_PAGE = ('<!DOCTYPE html>\n<meta charset="utf-8">\n<meta http-equiv="refresh" content="0; url={url}">\n'
                 '<title>wikitui</title>\n<a href="{url}">Open the workspace</a>\n')

REFUSED = "403: this wikitui serve opens only with the URL it printed (http://HOST:PORT/?token=...).\n"


def new_token() -> str:
    """A fresh random token for one server (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def page_nonce(request: web.Request) -> str:
    """The script nonce of the page this request gets (made on first use, then the same for that request)."""
    if _NONCE not in request:
        request[_NONCE] = secrets.token_urlsafe(16)
    return request[_NONCE]


def _host_and_port(authority: str) -> tuple[str, int] | None:
    """``name:port`` (or ``[v6]:port``, or a name alone: port 80) split and lowercased; None when malformed."""
    if not authority or any(c in authority for c in "/?#@\\ \t") or not authority.isascii():
        return None
    try:
        parts = urlsplit(f"//{authority}")
        port = 80 if parts.port is None else parts.port
    except ValueError:
        return None
    return (parts.hostname, port) if parts.hostname else None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Door:
    """The checks every request to one server passes (see the module's docstring).

    Attributes:
        token: The server's secret, printed in its URL.
        port: The port it listens on; a ``Host`` or ``Origin`` naming another port is not it.
        host: The ``--host`` it listens on (127.0.0.1 unless told): a name requests may use besides loopback.
    """

    token: str
    port: int
    host: str = "127.0.0.1"

    @property
    def cookie_name(self) -> str:
        """The cookie holding the token: one per port, as cookies do not tell ports apart."""
        return f"wikitui-serve-{self.port}"

    def host_allowed(self, authority: str | None) -> bool:
        """Whether a ``Host`` header names this server: loopback or ``--host``, on its port.

        On a wildcard address (0.0.0.0, ::) the machine's IP addresses name it too; a name other than
        loopback is never taken then, since only a name can be rebound to this machine by DNS.
        """
        parsed = _host_and_port(authority or "")
        if parsed is None or parsed[1] != self.port:
            return False
        name = parsed[0]
        given = self.host.strip("[]").lower()
        return name in LOOPBACK_NAMES or name == given or (given in WILDCARD_HOSTS and _is_ip(name))

    def origin_allowed(self, origin: str | None, authority: str) -> bool:
        """Whether an ``Origin`` (None: a client that is no browser page) is the page this ``Host`` serves."""
        if origin is None:
            return True
        parts = urlsplit(origin)
        if parts.scheme != "http" or parts.path or parts.query or parts.username:
            return False
        return _host_and_port(parts.netloc) == _host_and_port(authority)

    def _matches(self, candidate: str | None) -> bool:
        # Bytes: compare_digest takes only ASCII str, and a query may carry anything.
        return candidate is not None and hmac.compare_digest(candidate.encode("utf-8", "replace"), self.token.encode())

    def _exchange(self, request: web.Request) -> web.Response:
        """The answer to a first visit with the token: its cookie, and on to the same address without the token."""
        query = request.rel_url.query.copy()
        del query["token"]
        request[_EXCHANGE] = True
        # One leading slash: "//host" or "/\\host" would leave this server.
        url = html.escape("/" + str(request.rel_url.with_query(query)).lstrip("/\\"), quote=True)
        response = web.Response(text=EXCHANGE_PAGE.format(url=url), content_type="text/html")
        response.set_cookie(self.cookie_name, self.token, httponly=True, samesite="Strict", path="/")
        return response

    @web.middleware
    async def middleware(self, request: web.Request, handler) -> web.StreamResponse:
        """Refuse (403) what is not this server's own page with its token; trade a URL token for the cookie."""
        authority = request.headers.get("Host", "")  # (no Host: refused, as an empty one)
        if not self.host_allowed(authority) or not self.origin_allowed(request.headers.get("Origin"), authority):
            return web.Response(status=403, text=REFUSED)
        if self._matches(request.query.get("token")):
            if request.method in ("GET", "HEAD") and request.headers.get("Upgrade", "").lower() != "websocket":
                return self._exchange(request)
            return await handler(request)
        if self._matches(request.cookies.get(self.cookie_name)):
            return await handler(request)
        return web.Response(status=403, text=REFUSED)

    async def on_response_prepare(self, request: web.Request, response: web.StreamResponse) -> None:
        """Put the frame and load headers on every response (the page's policy names its nonce)."""
        headers = response.headers
        headers["X-Frame-Options"] = "DENY"
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Referrer-Policy"] = "no-referrer"
        headers["Cross-Origin-Opener-Policy"] = "same-origin"
        if _NONCE in request and response.status == 200:
            headers["Content-Security-Policy"] = PAGE_POLICY.format(nonce=request[_NONCE],
                                                                    host=request.headers["Host"])
        else:
            headers["Content-Security-Policy"] = EXCHANGE_POLICY if _EXCHANGE in request else OTHER_POLICY
        if _EXCHANGE in request or response.status == 403:
            headers["Cache-Control"] = "no-store"

    def lock(self, app: web.Application) -> None:
        """Put this door in front of every route of ``app`` (before it starts)."""
        app.middlewares.insert(0, self.middleware)
        app.on_response_prepare.append(self.on_response_prepare)
