"""A small web for the inbox tests, on 127.0.0.1: feeds (RSS 2.0, Atom, relative links and entities, broken,
a 500, a slow one) and the article pages their entries and the exports link to.

The export fixtures under tests/data/inbox/ name their links ``{base}/articles/...``;
:func:`export_copy` copies one with the server's address put in.
"""

from __future__ import annotations

import http.server
import shutil
import sys
import threading
import time
from pathlib import Path
from tests.serving import serve_in_thread

DATA = Path(__file__).resolve().parent.parent / "data" / "inbox"

_WORDS = ("Swiss glaciers lost four percent of their remaining volume in a single year, the monitoring network "
          "reported, after a winter with little snow and a summer of record heat. ")


def article(title: str, marker: str) -> str:
    """An article page as sites serve it: a menu, scripts, the article, a footer."""
    return f"""<!DOCTYPE html><html><head><title>{title} | The Daily</title>
<meta name="author" content="Jane Reporter"><meta property="article:published_time" content="2024-03-04">
<script>var tracker = 1;</script></head><body>
<nav><ul><li><a href="/sport">MENU-SPORT-MARKER</a></li><li><a href="/weather">Weather</a></li></ul></nav>
<article><h1>{title}</h1><p>{marker}. {_WORDS * 4}</p><p>{_WORDS * 3}</p><p>Scientists said the trend would
continue unless emissions fell sharply, and that smaller glaciers may vanish within decades.</p></article>
<footer>FOOTER-MARKER Copyright The Daily</footer></body></html>"""


PAGES = {
    "/articles/glacier": article("Glacier retreat speeds up", "GLACIER-ARTICLE-TEXT"),
    "/articles/ocean": article("Oceans warm faster", "OCEAN-ARTICLE-TEXT"),
    "/articles/soil": article("Soil carbon, measured", "SOIL-ARTICLE-TEXT"),
    "/articles/summary-only": article("Permafrost thaws", "PERMAFROST-ARTICLE-TEXT"),
}

LONG_CONTENT = "<p>" + ("Full text of the post, as the feed carries it whole. " * 40) + "</p>"

RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
  <title>Glacier Watch</title>
  <link>{base}/</link>
  <description>News about ice</description>
  <item>
    <title>Rhone glacier: a record melt</title>
    <link>{base}/posts/rhone-record</link>
    <guid isPermaLink="false">rhone-1</guid>
    <dc:creator>Alice Martin</dc:creator>
    <pubDate>Mon, 04 Mar 2024 08:00:00 +0000</pubDate>
    <category>glaciers</category>
    <description>Short summary.</description>
    <content:encoded><![CDATA[<p>RHONE-FULL-TEXT.</p>""" + LONG_CONTENT + """]]></content:encoded>
  </item>
  <item>
    <title>Permafrost thaws</title>
    <link>{base}/articles/summary-only</link>
    <author>bob@example.org (Bob Stone)</author>
    <pubDate>Tue, 05 Mar 2024 08:00:00 +0000</pubDate>
    <description>Only a teaser: read the rest on the site.</description>
  </item>
</channel>
</rss>
"""

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Soil Notes</title>
  <link href="{base}/"/>
  <updated>2024-03-06T10:00:00Z</updated>
  <author><name>Carol Diaz</name></author>
  <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
  <entry>
    <title type="html">Carbon in &lt;em&gt;deep&lt;/em&gt; soil</title>
    <link rel="alternate" href="{base}/soil/deep"/>
    <id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
    <updated>2024-03-06T10:00:00Z</updated>
    <content type="html">&lt;p&gt;ATOM-DEEP-SOIL-TEXT.&lt;/p&gt;""" + LONG_CONTENT.replace("<", "&lt;").replace(">", "&gt;") + """</content>
  </entry>
</feed>
"""

RELATIVE = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel>
  <title>Rel &amp; Entities</title>
  <link>/</link>
  <item>
    <title>Caf&#233; talk: ice &amp; fire &#8212; &lt;notes&gt;</title>
    <link>/posts/cafe-talk</link>
    <pubDate>Wed, 06 Mar 2024 08:00:00 +0000</pubDate>
    <content:encoded><![CDATA[<p>RELATIVE-TEXT &mdash; see <a href="/posts/earlier">the earlier post</a> and
      <img src="img/chart.png" alt="chart">.</p>""" + LONG_CONTENT + """]]></content:encoded>
  </item>
</channel>
</rss>
"""

BROKEN = """<?xml version="1.0"?><rss version="2.0"><channel><title>Half a feed</title><item><title>Unclo"""


class Handler(http.server.BaseHTTPRequestHandler):
    """The routes; ``hits`` counts the requests per path."""

    protocol_version = "HTTP/1.1"
    hits: dict[str, int] = {}
    stop = threading.Event()
    #: /together/* pages answer only once two of them are asked for at the same time.
    together = threading.Barrier(2, timeout=5)

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, ctype: str, body: str) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path
        Handler.hits[path] = Handler.hits.get(path, 0) + 1
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        feeds = {"/rss.xml": RSS, "/atom.xml": ATOM, "/relative/feed.xml": RELATIVE, "/broken.xml": BROKEN}
        if path in feeds:
            kind = "application/atom+xml" if path == "/atom.xml" else "application/rss+xml"
            self._send(200, f"{kind}; charset=utf-8", feeds[path].replace("{base}", base))
        elif path == "/not-a-feed":
            self._send(200, "text/html", "<html><body><p>Hello, this is a web page.</p></body></html>")
        elif path == "/error.xml":
            self._send(500, "text/plain", "Internal Server Error")
        elif path == "/slow.xml":
            self.send_response(200)
            self.send_header("Content-Type", "application/rss+xml")
            self.end_headers()
            try:
                self.wfile.write(b"<?xml version='1.0'?><rss version='2.0'><channel>")
                while not Handler.stop.wait(0.1):  # a byte now and then, for ever
                    self.wfile.write(b" ")
                    self.wfile.flush()
            except OSError:
                pass
            self.close_connection = True
        elif path.startswith("/together/"):
            try:
                Handler.together.wait()
            except threading.BrokenBarrierError:
                self._send(503, "text/plain", "alone")
                return
            self._send(200, "text/html; charset=utf-8", article(path.rsplit("/", 1)[-1].title(), "TOGETHER"))
        elif path in PAGES:
            self._send(200, "text/html; charset=utf-8", PAGES[path])
        else:
            self._send(404, "text/html", "<h1>Not Found</h1>")


class QuietServer(http.server.ThreadingHTTPServer):
    """A client hanging up mid-answer (what a deadline does) is expected, not an error to print."""

    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def start_server() -> tuple[QuietServer, str]:
    """The server, started, and its base address."""
    Handler.stop.clear()
    httpd = QuietServer(("127.0.0.1", 0), Handler)
    serve_in_thread(httpd)
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def stop_server(httpd: QuietServer) -> None:
    """Stop it (and the slow feed's endless answer)."""
    Handler.stop.set()
    httpd.shutdown()
    httpd.server_close()


def export_copy(tmp: Path, name: str, base: str) -> Path:
    """A copy of tests/data/inbox/NAME (a file or a folder) under ``tmp``, ``{base}`` replaced by ``base``."""
    src = DATA / name
    dest = tmp / "exports" / name
    if src.is_dir():
        shutil.copytree(src, dest)
        files = [p for p in dest.rglob("*") if p.is_file()]
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        files = [dest]
    for file in files:
        data = file.read_bytes()
        if b"{base}" in data:
            file.write_bytes(data.replace(b"{base}", base.encode()))
    return dest


def elapsed(since: float) -> float:
    """Seconds since ``since`` (time.monotonic)."""
    return time.monotonic() - since
