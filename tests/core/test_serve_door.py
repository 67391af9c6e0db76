"""``wikitui serve``'s door is locked (DESIGN §8): only its own page, on its own address, with its token, gets in.

A real ``wikitui serve`` on a free port of 127.0.0.1; the requests are made by
aiohttp's client with the headers a foreign page (``Origin``), a rebound name
(``Host``) or a stranger (no or a wrong token) would send. (The real browser,
token URL to cookie to workspace: tests/e2e/test_browser.py.)
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import SAMPLE
from wikitui.cli import main
from wikitui.cli.serve_door import Door


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A running server: its port, token and the cookie its token URL gives."""

    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token
        self.base = f"http://127.0.0.1:{port}"
        self.origin = self.base
        self.cookie = f"wikitui-serve-{port}={token}"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``wikitui serve`` on a copy of the sample vault; waits (with a deadline) for its URL and its port."""
    root = tmp_path_factory.mktemp("door")
    vault = root / "sample"
    shutil.copytree(SAMPLE, vault, ignore=shutil.ignore_patterns(".wikitui"))
    port = free_port()
    log_path = root / "serve.log"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "wikitui", "serve", "--port", str(port), "--vault", str(vault)],
                                stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        token = None
        deadline = time.monotonic() + 120  # a bound on a hang, not a speed test
        while time.monotonic() < deadline:
            assert proc.poll() is None, log_path.read_text()
            found = re.search(rf"http://127\.0\.0\.1:{port}/\?token=([A-Za-z0-9_-]+)", log_path.read_text())
            with socket.socket() as s:
                if found and s.connect_ex(("127.0.0.1", port)) == 0:
                    token = found.group(1)
                    break
            time.sleep(0.1)
        assert token, f"wikitui serve printed no token URL and port {port} did not open:\n{log_path.read_text()}"
        yield Served(port, token)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the server and any app it started for a socket
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def client() -> aiohttp.ClientSession:
    """A client that sends only the headers it is given (no cookie jar) and does not follow redirects."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar(), timeout=aiohttp.ClientTimeout(total=60))


async def status(served: Served, path: str = "/", **headers: str) -> int:
    async with client() as http, http.get(served.base + path, headers=headers, allow_redirects=False) as reply:
        return reply.status


async def ws_status(served: Served, query: str = "", **headers: str) -> int:
    """101 when the socket was opened (then closed at once), else the status of the refusal."""
    async with client() as http:
        try:
            async with http.ws_connect(f"ws://127.0.0.1:{served.port}/ws?width=80&height=24{query}",
                                       headers=headers):
                return 101
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status


async def test_a_page_needs_the_token_its_own_host_and_its_own_origin(served):
    good = {"Cookie": served.cookie}
    assert await status(served) == 403
    assert await status(served, "/?token=not-the-token") == 403
    assert await status(served, Cookie=f"wikitui-serve-{served.port}=not-the-token") == 403
    assert await status(served, f"/?token={served.token}"[:-1]) == 403
    assert await status(served, "/?token=%ED%A0%80%C3%A9") == 403  # not even UTF-8
    assert await status(served, Cookie=f"wikitui-serve-{served.port + 1}={served.token}") == 403  # another port's
    assert await status(served, **good, Host=f"evil.example.com:{served.port}") == 403
    assert await status(served, f"/?token={served.token}", Host=f"evil.example.com:{served.port}") == 403
    assert await status(served, **good, Host=f"127.0.0.1:{served.port + 1}") == 403
    assert await status(served, **good, Origin="http://evil.example.com") == 403
    # Everything behind the page is behind the door too.
    assert await status(served, "/static/js/textual.js") == 403
    assert await status(served, "/download/some-key") == 403
    assert await status(served, **good) == 200
    assert await status(served, **good, Host=f"localhost:{served.port}") == 200
    assert await status(served, **good, Host=f"[::1]:{served.port}") == 200
    assert await status(served, "/static/js/textual.js", **good) == 200


async def test_the_token_url_trades_the_token_for_a_strict_http_only_cookie(served):
    async with client() as http:
        async with http.get(f"{served.base}/?token={served.token}&fontsize=20", allow_redirects=False) as reply:
            assert reply.status == 200 and reply.headers["Cache-Control"] == "no-store"
            (cookie,) = reply.headers.getall("Set-Cookie")
            exchange = await reply.text()
        assert cookie.startswith(served.cookie + ";")
        attributes = {a.strip().lower() for a in cookie.split(";")[1:]}
        assert {"httponly", "samesite=strict", "path=/"} <= attributes
        # On to the address without the token, from the server's own page (see serve_door on why not a 302).
        assert '<meta http-equiv="refresh" content="0; url=/?fontsize=20">' in exchange
        assert served.token not in exchange
        async with http.get(f"{served.base}/?fontsize=20", headers={"Cookie": served.cookie}) as reply:
            assert reply.status == 200 and 'data-font-size="20"' in await reply.text()
        # Only ever on to this server.
        for path in ("//evil.example.com", "/%5Cevil.example.com"):
            async with http.get(f"{served.base}{path}?token={served.token}") as reply:
                assert re.search(r'url=/[^/\\]', await reply.text())


async def test_the_terminal_socket_opens_only_for_its_own_page(served):
    own = {"Cookie": served.cookie, "Origin": served.origin}
    assert await ws_status(served) == 403
    assert await ws_status(served, Origin=served.origin) == 403
    assert await ws_status(served, "&token=not-the-token", Origin=served.origin) == 403
    assert await ws_status(served, Cookie=f"wikitui-serve-{served.port}=nope", Origin=served.origin) == 403
    assert await ws_status(served, Cookie=served.cookie, Origin="http://evil.example.com") == 403
    assert await ws_status(served, Cookie=served.cookie, Origin=f"http://localhost:{served.port + 1}") == 403
    assert await ws_status(served, Cookie=served.cookie, Origin="null") == 403
    assert await ws_status(served, **own, Host=f"evil.example.com:{served.port}") == 403
    assert await ws_status(served, Cookie=served.cookie, Host=f"evil.example.com:{served.port}",
                           Origin=f"http://evil.example.com:{served.port}") == 403  # DNS rebinding
    assert await ws_status(served, **own) == 101


async def test_every_answer_forbids_frames_and_the_page_loads_only_from_its_server(served):
    async with client() as http:
        for path, headers in (("/", {}), ("/", {"Cookie": served.cookie}),
                              ("/static/css/xterm.css", {"Cookie": served.cookie})):
            async with http.get(served.base + path, headers=headers, allow_redirects=False) as reply:
                assert reply.headers["X-Frame-Options"] == "DENY"
                assert "frame-ancestors 'none'" in reply.headers["Content-Security-Policy"]
                # What is not the page (a refusal, a file) is no page: a served HTML file runs no script here.
                assert ("sandbox" in reply.headers["Content-Security-Policy"]) is (reply.status == 403 or
                                                                                   path != "/")
        async with http.get(served.base, headers={"Cookie": served.cookie}) as reply:
            page = await reply.text()
            policy = dict(d.strip().split(" ", 1) for d in reply.headers["Content-Security-Policy"].split(";"))
        assert policy["default-src"] == policy["frame-ancestors"] == "'none'"
        # Whatever the page may load comes from here (its inline script only with this answer's nonce).
        assert {source for sources in policy.values() for source in sources.split()
                if not source.startswith("'nonce-")} <= {"'none'", "'self'", "'unsafe-inline'",
                                                         f"ws://127.0.0.1:{served.port}"}
        # No address on another host in the page; the font, style, script and image it names are served here.
        assert not [url for url in re.findall(r"\b(?:https?|wss?)://[^\s\"'<>)]+", page)
                    if not url.startswith(f"ws://127.0.0.1:{served.port}/")]
        assert "googleapis" not in page
        local = set(re.findall(r'(?:href|src)="(/[^"]+)"|url\("(/[^"]+)"\)', page))
        local = {a or b for a, b in local}
        assert {p.rsplit("/", 1)[-1] for p in local} >= {"xterm.css", "textual.js", "RobotoMono-VariableFont_wght.ttf"}
        for path in local:
            async with http.get(served.base + path, headers={"Cookie": served.cookie}) as reply:
                assert reply.status == 200, path


@pytest.mark.parametrize(("listening", "host", "allowed"), [
    ("127.0.0.1", "127.0.0.1:8000", True),
    ("127.0.0.1", "LOCALHOST:8000", True),
    ("127.0.0.1", "[::1]:8000", True),
    ("127.0.0.1", "127.0.0.1:8001", False),
    ("127.0.0.1", "127.0.0.1", False),  # port 80
    ("127.0.0.1", "evil.example.com:8000", False),
    ("127.0.0.1", "localhost.:8000", False),
    ("127.0.0.1", "evil.example.com@127.0.0.1:8000", False),
    ("127.0.0.1", "", False),
    ("127.0.0.1", None, False),
    ("192.168.1.5", "192.168.1.5:8000", True),
    ("192.168.1.5", "192.168.1.6:8000", False),
    ("wiki.lan", "wiki.lan:8000", True),
    ("0.0.0.0", "192.168.1.5:8000", True),  # any address of this machine: an address cannot be rebound
    ("0.0.0.0", "[fe80::1]:8000", True),
    ("0.0.0.0", "wiki.lan:8000", False),  # but a name can
])
def test_the_host_must_name_this_server(listening, host, allowed):
    assert Door("t", 8000, listening).host_allowed(host) is allowed


def test_another_textual_serve_is_refused_clearly(sample_vault, monkeypatch, capsys):
    from textual_serve.server import Server

    from wikitui.cli import serve_textual

    monkeypatch.setattr(serve_textual, "version", lambda name: "2.0.0")
    monkeypatch.setattr(Server, "serve", lambda self, debug=False: pytest.fail("served an unchecked door"))
    assert main(["serve", "--vault", str(sample_vault)]) == 2
    assert "needs textual-serve 1.1.x (found 2.0.0)" in capsys.readouterr().err


async def test_an_app_with_routes_the_door_does_not_know_is_not_served(monkeypatch):
    from aiohttp import web
    from textual_serve.server import Server

    from wikitui.cli.serve_textual import LockedServer, UnsupportedTextualServe

    made = Server._make_app

    async def api(request):
        return web.Response()

    async def with_another_route(self):
        app = await made(self)
        app.router.add_get("/api", api, name="api")
        return app

    monkeypatch.setattr(Server, "_make_app", with_another_route)
    with pytest.raises(UnsupportedTextualServe, match="routes"):
        await LockedServer("true", Door("t", 8000))._make_app()
