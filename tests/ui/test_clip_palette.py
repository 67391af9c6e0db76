"""The palette's "Clip a web page or file into raw/…": a web page served locally and a local PDF are
clipped in a worker, the user is told, and the new source opens; a bad address changes nothing."""

from __future__ import annotations

import http.server

import pytest

from tests.core import formats_samples as samples
from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace
from wikitui.ui.screens.clip import ClipScreen
from tests.serving import serve_in_thread


@pytest.fixture
def news_site():
    """A local web server with a news article (menus, scripts, footer) at /glaciers, and 404 elsewhere."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's naming
            if self.path != "/glaciers":
                self.send_error(404)
                return
            body = samples.NEWS_ARTICLE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serve_in_thread(server)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def clip(pilot, app, source: str) -> None:
    await pilot.press("ctrl+p", *"clip a web")
    await wait_for(pilot, lambda: "Clip a web page or file into raw/" in screen_text(app), "the palette command")
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, ClipScreen), "the clip dialog")
    await pilot.press(*source, "enter")


async def test_a_web_page_is_clipped_from_the_palette_and_opened(sample_vault, news_site):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        before = sorted(p.name for p in (sample_vault / "raw").iterdir())
        await clip(pilot, app, f"{news_site}/glaciers")
        clipped = sample_vault / "raw" / "glacier-retreat-speeds-up-in-the-alps.md"
        await wait_for(pilot, clipped.exists, "the clipped page in raw/", timeout=20)
        await wait_for(pilot, lambda: app.main.current_path == "raw/glacier-retreat-speeds-up-in-the-alps.md",
                       "the new source to open")
        # A notice is a message the app handles after this frame: wait for it, do not race it.
        await wait_for(pilot, lambda: any("Clipped “Glacier retreat speeds up in the Alps”" in n for n in notices(app)), "the notice")
        text = clipped.read_text()
        assert f"source_url: {news_site}/glaciers" in text and "Swiss glaciers lost four percent" in text
        assert "MENU-SPORT-MARKER" not in text
        after = sorted(p.name for p in (sample_vault / "raw").iterdir())
        assert sorted(set(after) - set(before)) == [clipped.name]


async def test_clipping_the_same_address_again_offers_a_fresh_copy_instead_of_a_silent_dash_2(sample_vault, news_site):
    from wikitui.ui.screens.dialogs import ConfirmScreen

    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await clip(pilot, app, f"{news_site}/glaciers")
        clipped = sample_vault / "raw" / "glacier-retreat-speeds-up-in-the-alps.md"
        await wait_for(pilot, clipped.exists, "the first clip", timeout=20)
        before = sorted(p.name for p in (sample_vault / "raw").iterdir())
        await clip(pilot, app, f"{news_site}/glaciers")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the offer to refresh", timeout=20)
        assert "Already clipped" in screen_text(app) and "already in raw/ as" in " ".join(screen_text(app).split())
        assert sorted(p.name for p in (sample_vault / "raw").iterdir()) == before  # no -2 copy
        await pilot.press("y")
        await wait_for(pilot, lambda: len(list((sample_vault / "raw").iterdir())) == len(before) + 1,
                       "the fresh copy", timeout=20)
        (fresh,) = set(p.name for p in (sample_vault / "raw").iterdir()) - set(before)
        assert fresh.startswith("glacier-retreat-speeds-up-in-the-alps-20") and not fresh.endswith("-2.md")


async def test_a_local_pdf_is_copied_into_raw_and_opened_as_text(sample_vault, tmp_path):
    pdf = samples.make_pdf(tmp_path / "Paper.pdf")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await clip(pilot, app, str(pdf))
        await wait_for(pilot, lambda: app.main.current_path is not None and app.main.current_path.endswith(".pdf"),
                       "the PDF to open", timeout=20)
        copied = sample_vault / app.main.current_path
        assert copied.read_bytes() == pdf.read_bytes()
        await wait_for(pilot, lambda: "[page 2]" in screen_text(app), "its converted text", timeout=30)


async def test_a_missing_page_clips_nothing_and_says_why(sample_vault, news_site):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        before = sorted(p.name for p in (sample_vault / "raw").iterdir())
        shown = app.main.current_path
        await clip(pilot, app, f"{news_site}/gone")
        await wait_for(pilot, lambda: any("Nothing was clipped" in n for n in notices(app)), "the error", timeout=20)
        assert any("404" in n for n in notices(app) if "Nothing was clipped" in n)
        assert sorted(p.name for p in (sample_vault / "raw").iterdir()) == before
        assert app.main.current_path == shown
