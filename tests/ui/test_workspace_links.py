"""Following every kind of link: a missing page, an external URL, a raw source; and the Sources pane."""

from __future__ import annotations

from wikitui.ui.screens.dialogs import ConfirmScreen, CreatePageScreen, suggest_page_path
from wikitui.ui.widgets.agent_pane import AgentPane
from wikitui.ui.widgets.page_view import PageView

from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace

NOTES = """---
title: Reading Notes
type: note
---

# Reading Notes

The poem about the [[Walrus and the Carpenter]] is in the sequel.
Carroll's biography is [online](https://example.org/carroll).
The first chapter's text: [[raw/chapter-01.md]].
"""


def _with_notes(vault):
    (vault / "wiki" / "notes.md").write_text(NOTES, encoding="utf-8")
    return vault


async def _select_link(pilot, page: PageView, predicate) -> None:
    """Press tab until the selected link satisfies ``predicate``."""
    for _ in range(len(page.links) + 1):
        await pilot.press("tab")
        await wait_for(pilot, lambda: page.selected_link is not None, "a selected link")
        if predicate(page.links[page.selected_link]):
            return
    raise AssertionError("no such link on the page")


async def test_an_unresolved_link_offers_to_create_the_page(sample_vault):
    vault = _with_notes(sample_vault)
    app = workspace(vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        page = app.query_one(PageView)
        await _select_link(pilot, page, lambda link: link.target == "Walrus and the Carpenter")
        await wait_for(pilot, lambda: "no such page" in str(page.border_subtitle), "the border to say the page is missing")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CreatePageScreen), "the create-page dialog")
        assert "wiki/Walrus and the Carpenter.md" in screen_text(app)
        await pilot.press("enter")  # the focused "Create blank page" button
        created = vault / "wiki" / "Walrus and the Carpenter.md"
        await wait_for(pilot, created.exists, "the page on disk")
        text = created.read_text(encoding="utf-8")
        assert text.startswith('---\ntitle: "Walrus and the Carpenter"\n---\n')
        await wait_for(pilot, lambda: app.main.current_path == "wiki/Walrus and the Carpenter.md", "the new page to open")
        assert isinstance(app.focused, PageView)
        # The link now resolves, and the new page knows who links to it.
        assert app.workspace.graph.find_page("Walrus and the Carpenter") == "wiki/Walrus and the Carpenter.md"
        assert [b.source for b in app.workspace.graph.backlinks("wiki/Walrus and the Carpenter.md")] == ["wiki/notes.md"]


async def test_an_unresolved_link_can_be_handed_to_the_agent(sample_vault):
    vault = _with_notes(sample_vault)
    app = workspace(vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        page = app.query_one(PageView)
        await _select_link(pilot, page, lambda link: link.target == "Walrus and the Carpenter")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CreatePageScreen), "the create-page dialog")
        await pilot.click("#ask")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "agent-input", "the agent input")
        assert "[[Walrus and the Carpenter]]" in app.focused.value
        assert not (vault / "wiki" / "Walrus and the Carpenter.md").exists()


async def test_cancelling_the_dialog_writes_nothing(sample_vault):
    vault = _with_notes(sample_vault)
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        page = app.query_one(PageView)
        await _select_link(pilot, page, lambda link: link.target == "Walrus and the Carpenter")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CreatePageScreen), "the create-page dialog")
        await pilot.press("escape")
        assert len(app.screen_stack) == 1
        assert sorted(p.name for p in (vault / "wiki").glob("walrus*")) == []


async def test_an_external_link_opens_the_browser_only_after_confirmation(sample_vault):
    vault = _with_notes(sample_vault)
    urls: list[str] = []
    app = workspace(vault, urls=urls, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        page = app.query_one(PageView)
        await _select_link(pilot, page, lambda link: link.kind == "url")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        assert "https://example.org/carroll" in screen_text(app)
        await pilot.press("n")
        assert urls == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation again")
        await pilot.press("y")
        assert urls == ["https://example.org/carroll"]


async def test_a_link_to_a_raw_file_opens_it_read_only(sample_vault):
    vault = _with_notes(sample_vault)
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        page = app.query_one(PageView)
        await _select_link(pilot, page, lambda link: "chapter-01" in link.target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "raw/chapter-01.md", "the source to open")
        assert app.main.current_kind == "source"
        assert "read-only" in str(page.border_title)
        await pilot.press("backspace")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/notes.md", "back to the notes")


async def test_enter_in_the_sources_pane_opens_the_source_with_the_pages_citing_it(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("f1", "enter")
        await wait_for(pilot, lambda: app.main.current_path == "raw/chapter-01.md", "the first source")
        page = app.query_one(PageView)
        assert isinstance(app.focused, PageView)
        assert page.border_title == "raw/chapter-01.md · read-only source"
        assert "CHAPTER I. Down the Rabbit-Hole" in screen_text(app)
        citing = app.main.citations["raw/chapter-01.md"]
        assert "wiki/sources/chapter-01.md" in citing
        assert f"Cited by ({len(citing)})" in screen_text(app)
        # Nothing in raw/ can be edited from here: the file is unchanged.
        assert (sample_vault / "raw" / "chapter-01.md").read_text(encoding="utf-8").startswith("# CHAPTER I.")


async def test_i_on_a_source_asks_for_an_ingest(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("f1", "down", "i")
        await wait_for(
            pilot, lambda: any("ingest raw/chapter-02.md: no model configured" in n for n in notices(app)), "the ingest notice"
        )
        assert "/ingest raw/chapter-02.md" in screen_text(app)
        assert isinstance(app.main.query_one(AgentPane), AgentPane)


def test_new_pages_are_named_as_typed_like_obsidian_and_go_where_new_pages_go(tmp_path):
    from wikitui.core.vault.new_page import obsidian_location

    assert suggest_page_path("Walrus and the Carpenter", "wiki/characters/alice.md", "wiki") == (
        "wiki/characters/Walrus and the Carpenter.md"
    )
    assert suggest_page_path("places/Tea Party", "wiki/characters/alice.md", "wiki") == "wiki/places/Tea Party.md"
    assert suggest_page_path("Übersicht", None, "") == "Übersicht.md"
    assert suggest_page_path("Nonexistent Page", "Notes/today.md", "") == "Notes/Nonexistent Page.md"
    assert suggest_page_path("What? A: B*", "wiki/a.md", "wiki") == "wiki/What A B.md"  # no forbidden characters
    # Obsidian's "Default location for new notes".
    (tmp_path / ".obsidian").mkdir()
    app_json = tmp_path / ".obsidian" / "app.json"
    assert obsidian_location(tmp_path) is None
    app_json.write_text('{"newFileLocation": "folder", "newFileFolderPath": "Inbox"}', encoding="utf-8")
    assert suggest_page_path("Nonexistent Page", "Notes/today.md", "", obsidian_location(tmp_path)) == (
        "Inbox/Nonexistent Page.md")
    assert suggest_page_path("Nonexistent Page", "wiki/a/b.md", "wiki", obsidian_location(tmp_path)) == (
        "wiki/Inbox/Nonexistent Page.md")  # kept inside the wiki folder
    app_json.write_text('{"newFileLocation": "root"}', encoding="utf-8")
    assert suggest_page_path("Nonexistent Page", "Notes/today.md", "", obsidian_location(tmp_path)) == (
        "Nonexistent Page.md")
