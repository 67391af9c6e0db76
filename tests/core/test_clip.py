"""``clip``: web pages and documents into raw/, against a real HTTP server on 127.0.0.1 (DESIGN §9).

The server serves what the web serves: a news article with menus, scripts and a
footer, a redirect, a redirect loop, a 404, a 20 MB body, a body whose declared
length is over the cap, a video, a PDF, plain text and a page in Latin-1.
"""

from __future__ import annotations

import datetime as dt
import http.server
import os
import sys
import threading
import time

import frontmatter
import pytest

from tests.core import formats_samples as samples
from wikitui.core.vault.formats import clip as clipmod
from wikitui.core.vault.formats.clip import ClipError, clip_file, clip_url, slugify
from wikitui.core.vault.formats.fetch import BadAddress, FetchError, TooLarge
from wikitui.core.vault.layout import Vault
from tests.serving import serve_in_thread

TODAY = dt.date(2026, 12, 1)
BIG = 20 * 1024 * 1024


class Handler(http.server.BaseHTTPRequestHandler):
    """Routes of a small, realistic web."""

    protocol_version = "HTTP/1.1"
    sent: dict[str, int] = {}

    def log_message(self, *args) -> None:  # keep the test output clean
        pass

    def _send(self, status: int, ctype: str, body: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _stream(self, ctype: str, total: int, declare: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        if declare:
            self.send_header("Content-Length", str(total))
        self.send_header("Connection", "close")
        self.end_headers()
        block = (b"<p>" + b"x" * 1017 + b"</p>\n") * 64  # 64 KiB of page
        sent = 0
        try:
            self.wfile.write(b"<html><body>")
            while sent < total:
                self.wfile.write(block)
                sent += len(block)
        except OSError:
            pass  # the client hung up: what a size cap does
        finally:
            Handler.sent[self.path] = sent
        self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        p = self.path
        if p == "/news/glacier":
            self._send(200, "text/html; charset=utf-8", samples.NEWS_ARTICLE.encode())
        elif p == "/old-link":
            self._send(301, "text/html", b"moved", {"Location": "/news/glacier"})
        elif p == "/loop":
            self._send(302, "text/html", b"again", {"Location": "/loop"})
        elif p == "/missing":
            self._send(404, "text/html", b"<h1>Not Found</h1>")
        elif p == "/huge":
            self._stream("text/html", BIG, declare=False)
        elif p == "/huge-declared":
            self._stream("text/html", BIG, declare=True)
        elif p == "/video.mp4":
            self._send(200, "video/mp4", b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 100)
        elif p == "/papers/attention.pdf":
            self._send(200, "application/pdf", Handler.pdf)
        elif p == "/download?id=7":
            self._send(200, "application/octet-stream", Handler.pdf,
                       {"Content-Disposition": 'attachment; filename="Report 2026.pdf"'})
        elif p == "/notes.txt":
            self._send(200, "text/plain; charset=utf-8", "Plain notes\nsecond line\n".encode())
        elif p == "/latin1":
            page = "<html><head><title>Wetter in Zürich</title></head><body><article><h1>Wetter in Zürich</h1>" \
                   + "<p>Heute ist es sonnig über dem Zürichsee, mit Höchstwerten um zwölf Grad.</p>" * 5 \
                   + "</article></body></html>"
            self._send(200, "text/html; charset=iso-8859-1", page.encode("latin-1"))
        elif p == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            time.sleep(3)
        else:
            self._send(404, "text/plain", b"no")


class QuietServer(http.server.ThreadingHTTPServer):
    """The test server; a client hanging up mid-answer (what a size cap does) is expected, not an error to print."""

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    Handler.pdf = samples.make_pdf(tmp_path_factory.mktemp("web") / "a.pdf").read_bytes()
    httpd = QuietServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    serve_in_thread(httpd)
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    (root / "raw").mkdir(parents=True)
    (root / "wiki").mkdir()
    return Vault.open(root)


def raw_files(vault) -> dict[str, bytes]:
    """Every file in raw/, dot-files included (a left-over temp file would show)."""
    return {p.name: p.read_bytes() for p in vault.raw_dir.iterdir()}


# ------------------------------------------------------------ web pages
def test_a_news_article_becomes_a_markdown_source_without_menus_or_scripts(vault, server):
    result = clip_url(vault, f"{server}/news/glacier", today=TODAY)
    assert result.path == "raw/glacier-retreat-speeds-up-in-the-alps.md" and result.kind == "article"
    post = frontmatter.loads((vault.root / result.path).read_text(encoding="utf-8"))
    assert post["title"] == "Glacier retreat speeds up in the Alps"
    assert post["source_url"] == f"{server}/news/glacier"
    assert post["clipped"] == TODAY
    assert post["author"] == "Maria Rossi"
    assert post.content.startswith("# Glacier retreat speeds up in the Alps\n")
    assert "Swiss glaciers lost four percent" in post.content
    assert f"[Read more about dead ice]({server}/science/dead-ice)" in post.content  # links made absolute
    for marker in samples.CHROME_MARKERS:
        assert marker not in post.content
    assert list(raw_files(vault)) == ["glacier-retreat-speeds-up-in-the-alps.md"]


def test_clipping_an_address_again_says_where_it_is_and_refresh_adds_a_dated_copy_beside_it(vault, server):
    first = clip_url(vault, f"{server}/news/glacier", today=TODAY)
    before = (vault.root / first.path).read_bytes()
    for again in (f"{server}/news/glacier", f"{server}/news/glacier/", f"{server}/old-link"):  # a redirect to it too
        with pytest.raises(clipmod.AlreadyClipped) as info:
            clip_url(vault, again, today=TODAY)
        assert info.value.path == first.path
        assert str(info.value).count("\n") == 0 and first.path in str(info.value) and "--refresh" in str(info.value)
    assert list(raw_files(vault)) == [first.path.removeprefix("raw/")]  # nothing written, no -2 copy
    fresh = clip_url(vault, f"{server}/news/glacier", today=dt.date(2026, 12, 2), refresh=True)
    assert fresh.path == "raw/glacier-retreat-speeds-up-in-the-alps-2026-12-02.md"
    assert (vault.root / first.path).read_bytes() == before
    # A refresh of the refreshed copy is named for its own day, not slug-2026-12-02-2026-12-03.
    again = clip_url(vault, f"{server}/news/glacier", today=dt.date(2026, 12, 3), refresh=True)
    assert again.path == "raw/glacier-retreat-speeds-up-in-the-alps-2026-12-03.md"


def test_a_taken_name_still_gets_a_number_and_nothing_is_overwritten(vault, server):
    first = clip_url(vault, f"{server}/news/glacier", today=TODAY)
    (vault.root / first.path).write_text("the user's own edit of the clip\n")  # no source_url any more
    second = clip_url(vault, f"{server}/news/glacier", today=TODAY)
    assert second.path == "raw/glacier-retreat-speeds-up-in-the-alps-2.md"
    assert (vault.root / first.path).read_text() == "the user's own edit of the clip\n"


def test_the_command_refuses_an_address_already_clipped_in_one_line(vault, server, capsys):
    from wikitui.cli import main

    assert main(["clip", f"{server}/news/glacier", "--vault", str(vault.root)]) == 0
    capsys.readouterr()
    assert main(["clip", f"{server}/news/glacier", "--vault", str(vault.root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already in raw/ as raw/glacier-retreat-speeds-up-in-the-alps.md" in err
    assert main(["clip", f"{server}/news/glacier", "--refresh", "--vault", str(vault.root)]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("raw/glacier-retreat-speeds-up-in-the-alps-20") and out != "raw/glacier-retreat-speeds-up-in-the-alps.md"


def test_a_redirect_is_followed_and_the_final_address_recorded(vault, server):
    result = clip_url(vault, f"{server}/old-link", today=TODAY)
    assert result.source == f"{server}/news/glacier"
    assert frontmatter.load(vault.root / result.path)["source_url"] == f"{server}/news/glacier"


def test_a_redirect_loop_stops_with_one_line(vault, server):
    with pytest.raises(FetchError, match="more than 5 redirects; nothing was written") as info:
        clip_url(vault, f"{server}/loop")
    assert info.value.exit_code == 3 and raw_files(vault) == {}


def test_a_404_writes_nothing(vault, server):
    with pytest.raises(FetchError, match=r"the server answered 404 Not Found; nothing was written"):
        clip_url(vault, f"{server}/missing")
    assert raw_files(vault) == {}


def test_a_20_mb_body_is_cut_off_at_the_cap_while_streaming(vault, server):
    with pytest.raises(TooLarge, match="larger than the 1.0 MB limit; nothing was written"):
        clip_url(vault, f"{server}/huge", max_page_bytes=1024 * 1024)
    assert raw_files(vault) == {}
    # The client hung up soon after the cap: the server could not send the 20 MB.
    deadline = time.monotonic() + 10
    while "/huge" not in Handler.sent and time.monotonic() < deadline:
        time.sleep(0.05)
    assert Handler.sent["/huge"] < BIG / 2


def test_the_default_cap_refuses_a_20_mb_page(vault, server):
    with pytest.raises(TooLarge, match="larger than the 10.0 MB limit"):
        clip_url(vault, f"{server}/huge")
    assert raw_files(vault) == {}


def test_a_declared_length_over_the_cap_is_refused_before_reading(vault, server):
    with pytest.raises(TooLarge, match=r"\(20.0 MB\); nothing was written"):
        clip_url(vault, f"{server}/huge-declared")


def test_a_type_wikitui_does_not_read_is_refused(vault, server):
    with pytest.raises(ClipError, match="is video/mp4: wikitui clips web pages and documents") as info:
        clip_url(vault, f"{server}/video.mp4")
    assert info.value.exit_code == 2 and raw_files(vault) == {}


def test_a_pdf_from_the_web_is_saved_as_a_pdf(vault, server):
    result = clip_url(vault, f"{server}/papers/attention.pdf")
    assert (result.path, result.kind) == ("raw/attention.pdf", "document")
    assert (vault.root / result.path).read_bytes() == Handler.pdf
    named = clip_url(vault, f"{server}/download?id=7")
    assert named.path == "raw/report-2026.pdf"


def test_plain_text_and_other_encodings(vault, server):
    notes = clip_url(vault, f"{server}/notes.txt", today=TODAY)
    assert notes.path == "raw/notes.md"
    post = frontmatter.load(vault.root / notes.path)
    assert post.content == "Plain notes\nsecond line" and post["source_url"].endswith("/notes.txt")
    latin = clip_url(vault, f"{server}/latin1", today=TODAY)
    assert latin.path == "raw/wetter-in-zürich.md"
    assert "über dem Zürichsee" in (vault.root / latin.path).read_text(encoding="utf-8")


def test_a_server_that_does_not_answer_times_out(vault, server):
    with pytest.raises(FetchError, match="no answer within 0.5 s"):
        clip_url(vault, f"{server}/slow", timeout=0.5)
    assert raw_files(vault) == {}


def test_no_server_at_all_is_a_network_error(vault):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(FetchError) as info:
        clip_url(vault, f"http://127.0.0.1:{port}/x")
    assert "nothing was written" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("url", ["ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)", "http://",
                                 "not a url"])
def test_only_web_addresses_are_fetched(vault, url):
    with pytest.raises(BadAddress) as info:
        clip_url(vault, url)
    assert "not a web address" in str(info.value) and info.value.exit_code == 2


def test_credentials_in_an_address_never_reach_a_message(vault, server):
    with pytest.raises(FetchError) as info:
        clip_url(vault, server.replace("http://", "http://alice:hunter2@") + "/missing")
    assert "hunter2" not in str(info.value) and "alice" not in str(info.value)


def test_a_chosen_name_is_made_safe(vault, server):
    assert clip_url(vault, f"{server}/news/glacier", name="../../outside").path == "raw/outside.md"
    assert not (vault.root.parent / "outside.md").exists()


# ------------------------------------------------------------ local files
def test_a_local_document_is_copied_into_raw_and_the_original_left_alone(vault, tmp_path):
    src = samples.make_docx(tmp_path / "Field Report.docx")
    before = (src.read_bytes(), src.stat().st_mtime_ns)
    result = clip_file(vault, src)
    assert (result.path, result.kind) == ("raw/Field Report.docx", "document")
    assert (vault.root / result.path).read_bytes() == before[0]
    assert (src.read_bytes(), src.stat().st_mtime_ns) == before
    again = clip_file(vault, src)
    assert again.path == "raw/Field Report-2.docx"
    assert clip_file(vault, src, name="q3 report").path == "raw/q3-report.docx"
    mode = (vault.root / result.path).stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_local_files_that_cannot_be_clipped(vault, tmp_path):
    with pytest.raises(ClipError, match="no such file"):
        clip_file(vault, tmp_path / "nope.pdf")
    blob = tmp_path / "thing.bin"
    blob.write_bytes(b"\x00\x01" * 100)
    with pytest.raises(ClipError, match="not a document wikitui reads"):
        clip_file(vault, blob)
    inside = samples.make_pdf(vault.raw_dir / "in.pdf")
    with pytest.raises(ClipError, match="already in raw/"):
        clip_file(vault, inside)
    assert sorted(raw_files(vault)) == ["in.pdf"]


def test_a_file_that_appears_under_the_name_meanwhile_is_not_replaced(vault, tmp_path, monkeypatch):
    """A race: another program creates raw/x.pdf between the choice of the name and the link."""
    src = samples.make_pdf(tmp_path / "x.pdf")
    real_link = clipmod._link_new

    def racing(tmp, target):
        if target.name == "x.pdf":
            target.write_text("someone else's file")
        return real_link(tmp, target)

    monkeypatch.setattr(clipmod, "_link_new", racing)
    assert clip_file(vault, src).path == "raw/x-2.pdf"
    assert (vault.raw_dir / "x.pdf").read_text() == "someone else's file"


def test_without_hard_links_names_are_still_created_exclusively(vault, tmp_path, monkeypatch):
    src = samples.make_pdf(tmp_path / "x.pdf")
    (vault.raw_dir / "x.pdf").write_text("taken")

    def no_links(*args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    assert clip_file(vault, src).path == "raw/x-2.pdf"
    assert (vault.raw_dir / "x-2.pdf").read_bytes() == src.read_bytes()
    assert (vault.raw_dir / "x.pdf").read_text() == "taken"
    assert sorted(raw_files(vault)) == ["x-2.pdf", "x.pdf"]


def test_a_failed_write_leaves_no_temporary_file(vault, tmp_path, monkeypatch):
    src = samples.make_pdf(tmp_path / "x.pdf")

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(clipmod.shutil, "copyfileobj", broken)
    with pytest.raises(OSError):
        clip_file(vault, src)
    assert raw_files(vault) == {}


def test_slugs():
    assert slugify("Glacier retreat | The Daily Planet") == "glacier-retreat-the-daily-planet"
    assert slugify("../../etc/passwd") == "etc-passwd"
    assert slugify("\x00\ud800") == "clip"
    assert len(slugify("word " * 100)) <= 80
    assert slugify("東京の天気") == "東京の天気"


class Trickler:
    """An HTTP server on 127.0.0.1 that sends its answer one byte every ``every`` seconds (issue 20).

    ``phase`` is ``headers`` (the status line and headers trickle) or ``body`` (the
    headers come at once, without a length, and the page trickles). It serves one
    connection and stops by itself: when the client hangs up, or after ``limit`` seconds.
    """

    def __init__(self, phase: str, every: float = 0.1, limit: float = 30.0) -> None:
        import socket

        self.phase, self.every, self.limit = phase, every, limit
        self.sent = 0
        self.done = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(limit)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/drip"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
        head += b"".join(b"X-Pad-%d: %s\r\n" % (i, b"p" * 40) for i in range(40)) + b"\r\n"
        body = b"<html><body><article><h1>Drip</h1>" + b"<p>Slow words, one byte at a time.</p>" * 50
        stop = time.monotonic() + self.limit
        try:
            conn, _ = self.sock.accept()
        except OSError:
            self.done.set()
            return
        with conn:
            try:
                conn.recv(65536)
                if self.phase == "body":
                    conn.sendall(head)
                    head = b""
                for byte in head + body:
                    if time.monotonic() > stop or self.done.wait(self.every):
                        break
                    conn.sendall(bytes([byte]))
                    self.sent += 1
            except OSError:
                pass  # the client hung up: what the deadline does
        self.done.set()

    def close(self) -> None:
        self.done.set()
        self.sock.close()


@pytest.mark.parametrize("phase", ["headers", "body"])
def test_a_server_trickling_one_byte_at_a_time_is_stopped_at_the_total_deadline(vault, monkeypatch, phase, capsys):
    from wikitui.cli import main
    from wikitui.core.vault.formats import fetch

    monkeypatch.setattr(fetch, "TOTAL_S", 1.0, raising=False)  # every read is quick; the whole answer is not
    server = Trickler(phase)
    try:
        code = main(["clip", server.url, "--vault", str(vault.root)])
        assert server.done.wait(60)  # a safety net only: it stops as soon as the command hangs up
    finally:
        server.close()
    err = capsys.readouterr().err
    assert code == 3 and "no whole answer within 1 s; nothing was written" in err and err.count("\n") == 1
    assert raw_files(vault) == {}


@pytest.mark.parametrize(("url", "expected"), [
    ("https://user:secret@example.org/a?b=1", "https://example.org/a?b=1"),
    ("http://user:secret@Host:8080/x", "http://Host:8080/x"),
    ("http://user@[::1]:8000/x", "http://[::1]:8000/x"),  # IPv6 keeps its brackets
    ("http://user:secret@host:port/x", "http://host:port/x"),  # a bad port (parsing it raised ValueError)
    ("http://user:secret@/x", "http:///x"),  # no host at all (it raised TypeError)
    ("https://example.org/plain", "https://example.org/plain"),
])
def test_an_address_is_shown_without_its_credentials(url, expected):
    from wikitui.core.vault.formats.fetch import shown

    assert shown(url) == expected
