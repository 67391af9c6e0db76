"""The wiki checks itself, in the workspace (DESIGN §11): a page's contradictions, a stale page, "Mark reviewed"."""

from __future__ import annotations

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.staleness import SourceRecords
from wikitui.ui.widgets.links_panel import LinksPanel
from wikitui.ui.widgets.page_view import PageView

from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace


async def test_the_links_panel_lists_a_pages_contradictions_and_opens_one(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/characters/dodo.md")  # no callout: no Contradictions list
        await wait_for(pilot, lambda: app.main.current_path == "wiki/characters/dodo.md", "the Dodo")
        assert "Contradictions" not in screen_text(app)
        app.main.open_path("wiki/themes/time.md")
        await wait_for(pilot, lambda: "⚠ Contradictions (1)   Backlinks" in screen_text(app), "the Contradictions tab")
        await pilot.press("f4", "c")
        panel = app.query_one(LinksPanel)
        await wait_for(pilot, lambda: panel.tab == "contradictions", "the list to show")
        assert "⚠ It has been six o'clock since" in screen_text(app)
        await pilot.press("enter")
        page = app.query_one(PageView)
        await wait_for(pilot, lambda: isinstance(app.focused, PageView), "the page, at the callout")
        assert page.scroll_y > 0


async def test_a_page_whose_source_changed_says_so_until_marked_reviewed(sample_vault):
    vault = Vault.open(sample_vault)
    SourceRecords(vault).stale(LinkGraph.load(vault))  # wikitui has seen the sources: recorded
    with (sample_vault / "raw/chapter-07.md").open("a", encoding="utf-8") as fh:
        fh.write("\nA paragraph added to the source.\n")
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/characters/dormouse.md")
        page = app.query_one(PageView)
        await wait_for(pilot, lambda: "stale: raw/chapter-07.md changed" in str(page.border_title), "the stale line")
        await pilot.press("ctrl+p", *"mark reviewed")
        await wait_for(pilot, lambda: "Mark reviewed" in screen_text(app), "the palette command")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "stale" not in str(page.border_title), "the stale line to go")
        assert str(page.border_title) == "Dormouse · entity"
    graph = LinkGraph.load(vault)
    assert SourceRecords(vault).stale_sources("wiki/characters/dormouse.md", graph) == []
    assert "wiki/characters/mad-hatter.md" in {p for p, _s in SourceRecords(vault).stale(graph)}  # others stay stale
