"""``wikitui clip`` and ``wikitui export`` (DESIGN §6, §9): what a person types, what lands on disk,
one-line errors and the exit statuses."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
from pathlib import Path

import frontmatter
import pytest

from tests.core import formats_samples as samples
from wikitui import cli
from tests.serving import serve_in_thread

WIKITUI = Path(sys.executable).parent / "wikitui"
DECK = "---\nmarp: true\ntitle: Field talk\naliases: [The Talk]\n---\n# One\n\n---\n\n# Two\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    assert err.startswith("wikitui: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err[len("wikitui: error: "):-1]


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    (root / "raw").mkdir(parents=True)
    (root / "wiki").mkdir()
    (root / "wiki" / "field-talk.md").write_text(DECK)
    (root / "wiki" / "plain.md").write_text("---\ntitle: Plain\n---\n# Plain\n")
    return root


class _Site(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        routes = {"/article": (200, "text/html; charset=utf-8", samples.NEWS_ARTICLE.encode()),
                  "/video": (200, "video/mp4", b"\x00" * 64)}
        status, ctype, body = routes.get(self.path, (404, "text/plain", b"gone"))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def site():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    serve_in_thread(httpd)
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


# ------------------------------------------------------------ clip
def test_clip_a_url_prints_the_new_source(capsys, vault, site):
    code, out, err = run(capsys, "clip", f"{site}/article", "--vault", str(vault))
    assert (code, out) == (0, "raw/glacier-retreat-speeds-up-in-the-alps.md\n")
    assert err == f'Clipped "Glacier retreat speeds up in the Alps" from {site}/article\n'
    post = frontmatter.load(vault / "raw" / "glacier-retreat-speeds-up-in-the-alps.md")
    assert post["source_url"] == f"{site}/article" and "Swiss glaciers" in post.content
    # The same address again is refused (it is in raw/ already); --refresh adds a copy, --name names it.
    code, out, _ = run(capsys, "clip", f"{site}/article", "--name", "alps", "--vault", str(vault))
    assert (code, out) == (2, "")
    code, out, _ = run(capsys, "clip", f"{site}/article", "--refresh", "--name", "alps", "--vault", str(vault))
    assert (code, out) == (0, "raw/alps.md\n")


def test_clip_a_file(capsys, vault, tmp_path):
    pdf = samples.make_pdf(tmp_path / "Paper.pdf")
    assert run(capsys, "clip", str(pdf), "--vault", str(vault))[:2] == (0, "raw/Paper.pdf\n")
    assert run(capsys, "clip", str(pdf), "--vault", str(vault))[:2] == (0, "raw/Paper-2.pdf\n")


@pytest.mark.parametrize("path, status, message", [
    ("/missing", 3, "the server answered 404 Not Found; nothing was written"),
    ("/video", 2, "is video/mp4: wikitui clips web pages and documents"),
])
def test_clip_errors_are_one_line_with_their_status(capsys, vault, site, path, status, message):
    code, out, err = run(capsys, "clip", f"{site}{path}", "--vault", str(vault))
    assert code == status and out == "" and message in one_error_line(err)
    assert list((vault / "raw").iterdir()) == []


def test_clip_of_nothing_there(capsys, vault):
    code, _, err = run(capsys, "clip", "example.com/article", "--vault", str(vault))
    assert code == 2 and "(a web address starts with http:// or https://)" in one_error_line(err)
    code, _, err = run(capsys, "clip", "ftp://example.com/x", "--vault", str(vault))
    assert code == 2 and "not a web address" in one_error_line(err)


# ------------------------------------------------------------ export
def test_export_a_deck_by_title_to_the_current_folder(capsys, vault, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-marp-here"))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "export", "The Talk", "--vault", str(vault))
    assert (code, out, err) == (0, f"{tmp_path / 'field-talk.html'}\n", "")
    assert (tmp_path / "field-talk.html").read_text().count("<section ") == 2


def test_export_to_a_chosen_file(capsys, vault, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-marp-here"))
    out_file = tmp_path / "slides" / "deck.html"
    out_file.parent.mkdir()
    code, out, _ = run(capsys, "export", "wiki/field-talk.md", "--out", str(out_file), "--vault", str(vault))
    assert (code, out) == (0, f"{out_file}\n") and out_file.exists()


@pytest.mark.parametrize("argv, message", [
    (["export", "Plain"], "wiki/plain.md is not a Marp deck: add `marp: true` to its frontmatter"),
    (["export", "Nothing"], "no page named 'Nothing'"),
    (["export", "field-talk", "--format", "pdf"], "exporting PDF needs marp-cli"),
    (["export", "field-talk", "--format", "docx"], "argument --format: invalid choice: 'docx'"),
])
def test_export_errors(capsys, vault, tmp_path, monkeypatch, argv, message):
    monkeypatch.setenv("PATH", str(tmp_path / "no-marp-here"))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv, "--vault", str(vault))
    assert code == 2 and out == "" and message in one_error_line(err)
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == []


def test_the_real_script_reports_a_bad_clip_in_one_line(vault):
    proc = subprocess.run([str(WIKITUI), "clip", "nope.pdf", "--vault", str(vault)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert proc.returncode == 2 and proc.stdout == ""
    assert one_error_line(proc.stderr).startswith("no such file: nope.pdf")


def test_help_lists_the_two_commands(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "clip" in out and "export" in out
    code, out, _ = run(capsys, "export", "--help")
    assert code == 0 and "--format {html,pdf,pptx}" in out
