"""A fake SearXNG instance and the web pages its results point at, on 127.0.0.1, for the research tests.

``GET /search?q=...&format=json`` answers SearXNG's JSON shape with the results a test
set (``web.results``); ``GET /brave?q=...`` answers the Brave Search API's shape (and
records the key header); ``GET /pages/NAME`` serves an article page (``web.pages``).
Every request's path and query is recorded (``web.requests``), so a test can say
exactly what was fetched. ``web.status`` makes ``/search`` answer an error; ``web.hold``
(an Event) makes it wait until released (a slow engine), at most ``hold_s`` seconds.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.serving import serve_in_thread

ARTICLE = """<!doctype html><html><head><title>{title}</title></head><body>
<nav>menu menu menu</nav><article><h1>{title}</h1>
<p>{body}</p><p>{body} It goes on for a while so that the extractor keeps it as the article's text.</p>
</article></body></html>"""


class FakeWeb:
    """The server and what it serves."""

    def __init__(self) -> None:
        self.results: list[dict] = []
        self.pages: dict[str, tuple[str, str]] = {}
        self.requests: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.status = 200
        self.hold: threading.Event | None = None
        self.hold_s = 30.0
        self.raw_body: bytes | None = None
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def page_url(self, name: str) -> str:
        return f"{self.url}/pages/{name}"

    def add_page(self, name: str, title: str, body: str) -> str:
        """Serve an article at ``/pages/NAME`` and list it among the search results; returns its address."""
        self.pages[name] = (title, body)
        self.results.append({"url": self.page_url(name), "title": title, "content": body[:80]})
        return self.page_url(name)

    def fetched_pages(self) -> list[str]:
        """The /pages/ paths requested so far, in order."""
        return [r for r in self.requests if r.startswith("/pages/")]

    def start(self) -> "FakeWeb":
        self._thread = serve_in_thread(self._server)
        return self

    def stop(self) -> None:
        if self.hold is not None:
            self.hold.set()
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        web = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format, *args):  # noqa: A002 - quiet
                pass

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                parts = urlsplit(self.path)
                web.requests.append(self.path)
                web.headers.append({k.lower(): v for k, v in self.headers.items()})
                query = parse_qs(parts.query)
                if parts.path in ("/search", "/brave"):
                    if web.hold is not None:
                        web.hold.wait(web.hold_s)
                    if web.status != 200:
                        self._send(web.status, b"engine failure", "text/plain")
                        return
                    if web.raw_body is not None:
                        self._send(200, web.raw_body, "application/json")
                        return
                    if parts.path == "/brave":
                        doc = {"web": {"results": [{"url": r["url"], "title": r["title"],
                                                    "description": r.get("content", "")} for r in web.results]}}
                    else:
                        doc = {"query": query.get("q", [""])[0], "results": web.results}
                    self._send(200, json.dumps(doc).encode(), "application/json")
                elif parts.path.startswith("/pages/") and parts.path[7:] in web.pages:
                    title, body = web.pages[parts.path[7:]]
                    self._send(200, ARTICLE.format(title=title, body=body).encode(), "text/html; charset=utf-8")
                else:
                    self._send(404, b"not found", "text/plain")

        return Handler


@pytest.fixture
def fake_web():
    """A running fake search engine and web site on 127.0.0.1."""
    web = FakeWeb().start()
    try:
        yield web
    finally:
        web.stop()


def research_config(vault_root, web: FakeWeb, extra: str = "") -> None:
    """Point the vault's config at the fake SearXNG."""
    cfg = vault_root / ".wikitui" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    old = cfg.read_text() if cfg.exists() else ""
    cfg.write_text(old + f'\n[research]\nsearxng_url = "{web.url}"\n{extra}')
