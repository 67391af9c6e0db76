"""Reading the wiki by keyboard: launch, follow links, come back, switch pages, search."""

from __future__ import annotations

from wikitui.ui.widgets.page_view import PageView

from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace


async def test_launch_opens_the_index_with_the_focus_in_the_page(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert app.main.current_path == "wiki/index.md"
        assert isinstance(app.focused, PageView)
        text = screen_text(app)
        for title in ("Sources", "Wiki", "Links", "Agent", "Backlinks"):
            assert title in text
        assert "● chapter-01.md" in text
        assert "No model configured" in text


async def test_following_a_link_and_coming_back_restores_the_scroll(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        page = app.query_one(PageView)
        await pilot.press("pagedown", "pagedown")
        await wait_for(pilot, lambda: page.scroll_y > 0, "the index to scroll")
        scrolled = page.scroll_y

        await pilot.press("tab")
        await wait_for(pilot, lambda: page.selected_link is not None, "a selected link")
        link = page.links[page.selected_link]
        target = app.workspace.graph.resolve(link, "wiki/index.md")
        assert target is not None
        # The border tells where the selected link goes.
        title = app.workspace.graph.pages[target].title
        await wait_for(pilot, lambda: title in str(page.border_subtitle), "the border to name the link's page")

        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == target, f"{target} to open")
        assert isinstance(app.focused, PageView)
        assert page.scroll_y == 0 or link.anchor

        await pilot.press("backspace")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/index.md", "going back to the index")
        await wait_for(pilot, lambda: page.scroll_y == scrolled, f"scroll {scrolled} restored")

        await pilot.press("alt+right")
        await wait_for(pilot, lambda: app.main.current_path == target, "going forward")
        await pilot.press("alt+left")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/index.md", "alt+left going back")
        assert page.scroll_y == scrolled


async def test_back_and_forward_are_greyed_out_at_the_ends_of_the_history(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        main = app.main
        assert main.check_action("back", ()) is None
        assert main.check_action("forward", ()) is None
        main.open_path("wiki/characters/alice.md")
        await pilot.pause()
        assert main.check_action("back", ()) is True
        await pilot.press("backspace")
        await wait_for(pilot, lambda: main.check_action("forward", ()) is True, "forward to become possible")
        assert main.check_action("back", ()) is None


async def test_quick_switcher_opens_a_page_by_part_of_its_title(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"cheshire")
        await wait_for(pilot, lambda: "Cheshire Cat" in screen_text(app), "the switcher to list the Cheshire Cat")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/characters/cheshire-cat.md", "the page to open")
        assert isinstance(app.focused, PageView)
        assert "Cheshire Cat" in str(app.query_one(PageView).border_title)


async def test_quick_switcher_matches_aliases(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p", *"little alice")
        await wait_for(pilot, lambda: "Little Alice" in screen_text(app), "the alias hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/characters/alice.md", "Alice to open")


async def test_search_shows_results_as_you_type_and_opens_the_hit_at_its_line(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("slash", *"treacle")
        await wait_for(pilot, lambda: "result" in screen_text(app), "search results")
        text = screen_text(app)
        assert "treacle" in text.lower()
        hits = app.screen._hits
        assert hits, "no hits for treacle"
        first = hits[0]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == first.path, "the hit to open")
        assert isinstance(app.focused, PageView)
        if first.line and first.kind == "page":
            page = app.query_one(PageView)
            top = page.document.line_for_source(first.line)
            assert top is not None and abs(page.scroll_y - top) <= max(0, page.max_scroll_y)


async def test_tree_opens_pages_and_focuses_the_page(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("f2")
        tree = app.main.query_one("#wiki-tree")
        assert app.focused is tree
        # f jumps to the filter; enter opens the best match.
        await pilot.press("f", *"mock turtle", "enter")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/characters/mock-turtle.md", "the filtered page")
        assert isinstance(app.focused, PageView)


async def test_backlinks_panel_opens_the_linking_page(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/characters/dinah.md")
        await pilot.pause()
        backlinks = app.workspace.graph.backlinks("wiki/characters/dinah.md")
        assert backlinks
        assert f"Backlinks ({len(backlinks)})" in screen_text(app)
        await pilot.press("f4", "enter")
        await wait_for(pilot, lambda: app.main.current_path == backlinks[0].source, "the backlink's page")
        assert isinstance(app.focused, PageView)


async def test_last_page_is_remembered_for_the_next_launch(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/places/pool-of-tears.md")
        await pilot.pause()
    again = workspace(sample_vault, watch=False, index=False)
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert again.main.current_path == "wiki/places/pool-of-tears.md"
        assert isinstance(again.focused, PageView)
