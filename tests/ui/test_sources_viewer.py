"""The source viewer on sources that are not markdown: a PDF's converted text (converted in a worker, keys
still answered meanwhile), a citation ``[[raw/x.pdf#page=3]]`` followed to its page, an unreadable PDF's line."""

from __future__ import annotations

from tests.core import formats_samples as samples
from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint import run_lint
from wikitui.ui.widgets.page_view import PageView

NOTES = """---
title: Reading Notes
type: note
---

# Reading Notes

Results are on the third page: [[raw/paper.pdf#page=3]].
"""

#: Words on each page, each page long enough that page 3 starts below the first screen.
LONG_PAGES = tuple(f"{words}. " + "Filler sentence for the page. " * 60 for words in samples.PAGE_WORDS)


def _vault(sample_vault):
    samples.make_pdf(sample_vault / "raw" / "paper.pdf", LONG_PAGES)
    samples.make_encrypted_pdf(sample_vault / "raw" / "locked.pdf")
    (sample_vault / "wiki" / "notes.md").write_text(NOTES, encoding="utf-8")
    return sample_vault


async def test_a_pdf_opens_as_its_text_and_a_page_citation_opens_at_that_page(sample_vault):
    vault = _vault(sample_vault)
    assert not [p for p in run_lint(Vault.open(vault), LinkGraph.load(Vault.open(vault))).problems
                if p.check == "broken-link" and p.path == "wiki/notes.md"]  # the citation resolves
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        page = app.query_one(PageView)
        await pilot.pause()
        await pilot.press("tab")  # the citation is the page's one link
        await wait_for(pilot, lambda: page.selected_link is not None, "the link selected")
        await wait_for(pilot, lambda: "▤ raw/paper.pdf (source) › page 3" in str(page.border_subtitle),
                       "the border to name the cited page")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "raw/paper.pdf", "the PDF to open")
        await wait_for(pilot, lambda: "Section 3" in screen_text(app), "the converted text at page 3", timeout=30)
        text = screen_text(app)
        assert "[page 3]" in text and samples.PAGE_WORDS[2] in text
        assert "Section 1" not in text  # scrolled to page 3: page 1 is above the screen
        assert "raw/paper.pdf · read-only source" in str(page.border_title)
        assert "3 pages" in str(page.border_subtitle)
        await pilot.press("backspace")  # back to the notes
        await wait_for(pilot, lambda: app.main.current_path == "wiki/notes.md", "back to the notes")


async def test_an_encrypted_pdf_says_so_in_one_line(sample_vault):
    vault = _vault(sample_vault)
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/locked.pdf")
        await wait_for(pilot, lambda: "Cannot show this source" in screen_text(app), "the one line", timeout=30)
        assert "locked.pdf is encrypted" in screen_text(app)
        # A notice is a message the app handles after this frame: wait for it, do not race it.
        await wait_for(pilot, lambda: any("encrypted" in n for n in notices(app)), "the notice")


async def test_keys_are_answered_while_a_pdf_converts(sample_vault):
    vault = _vault(sample_vault)
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/paper.pdf")
        await pilot.pause()
        assert "Converting…" in screen_text(app)  # shown at once; the conversion runs in a worker
        app.main.open_path("wiki/notes.md")  # move on before it finishes
        await pilot.pause()
        assert app.main.current_path == "wiki/notes.md"
        await wait_for(pilot, lambda: not app.workers._workers, "the conversion worker to end", timeout=30)
        assert "Reading Notes" in screen_text(app)  # the late text did not replace the page shown


async def test_a_huge_text_source_is_read_in_a_worker_and_cut_with_a_note(sample_vault):
    line = "The survey counted glaciers in the northern range, station by station.\n"
    (sample_vault / "raw" / "log.txt").write_text("FIRST-LINE\n" + line * 80_000)  # ~5.6 MB
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/log.txt")  # read in a worker: "Reading…" until its text arrives
        await wait_for(pilot, lambda: "FIRST-LINE" in screen_text(app), "its first lines", timeout=30)
        shown = app.query_one(PageView).document.source
        assert shown.startswith("[note: only the first 4.0 MB of 5.4 MB were read]")
        assert len(shown) < 4_300_000
        assert "large file · cut" in str(app.query_one(PageView).border_subtitle)


async def test_a_search_hit_in_a_pdf_opens_its_text_at_the_hit(sample_vault):
    vault = _vault(sample_vault)
    app = workspace(vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, timeout=60)
        await pilot.press("slash", *"translation benchmarks")
        await wait_for(pilot, lambda: "raw/paper.pdf" in screen_text(app), "the PDF among the hits", timeout=20)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "raw/paper.pdf", "the PDF to open")
        await wait_for(pilot, lambda: samples.PAGE_WORDS[2] in screen_text(app), "the hit's line", timeout=30)
        assert "Section 1" not in screen_text(app)  # opened at the hit on page 3, not at the top


async def test_a_pdf_deleted_while_shown_says_so(sample_vault):
    vault = _vault(sample_vault)
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/paper.pdf")
        await wait_for(pilot, lambda: "[page 1]" in screen_text(app), "the text", timeout=30)
        (vault / "raw" / "paper.pdf").unlink()
        app.main.open_path("raw/paper.pdf")
        await pilot.pause()
        assert "Page deleted" in screen_text(app) and "raw/paper.pdf · deleted" in screen_text(app)
