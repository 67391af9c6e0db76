"""Edits made outside wikitui (an editor, git pull) show up without a restart."""

from __future__ import annotations

from wikitui.ui.widgets.page_view import PageView

from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace

#: Seconds a change on disk may take to reach the screen (the spec says about one).
LIVE = 3.0


async def test_a_page_written_outside_appears_in_the_tree_and_the_backlinks(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/characters/dinah.md")
        await pilot.pause()
        before = len(app.workspace.graph.backlinks("wiki/characters/dinah.md"))
        (sample_vault / "wiki" / "cats.md").write_text(
            "---\ntitle: Cats of Wonderland\n---\n\n[[Dinah]] and the [[Cheshire Cat]].\n", encoding="utf-8"
        )
        await wait_for(pilot, lambda: "wiki/cats.md" in app.workspace.graph.pages, "the graph to learn the page", LIVE)
        await wait_for(pilot, lambda: "Cats of Wonderland" in screen_text(app), "the tree to show it", LIVE)
        await wait_for(pilot, lambda: f"Backlinks ({before + 1})" in screen_text(app), "the backlink count", LIVE)
        # The search index follows too.
        await wait_for(
            pilot,
            lambda: app.workspace.search_index is not None
            and any(h.path == "wiki/cats.md" for h in app.workspace.search_index.search("Wonderland cats", limit=20)),
            "the search index",
            LIVE,
        )


async def test_the_open_page_follows_an_outside_edit_and_keeps_its_scroll(sample_vault):
    app = workspace(sample_vault, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/characters/alice.md")
        page = app.query_one(PageView)
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: page.scroll_y > 0, "a scrolled page")
        scrolled = page.scroll_y
        path = sample_vault / "wiki" / "characters" / "alice.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("# Alice\n", "# Alice\n\nEDITED ELSEWHERE: a new first paragraph.\n", 1), encoding="utf-8")
        await wait_for(pilot, lambda: "EDITED ELSEWHERE" in page.document.source, "the new text", LIVE)
        assert page.scroll_y == scrolled
        assert app.main.current_path == "wiki/characters/alice.md"


async def test_deleting_the_open_page_shows_a_clear_state(sample_vault):
    app = workspace(sample_vault, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/characters/dodo.md")
        await pilot.pause()
        (sample_vault / "wiki" / "characters" / "dodo.md").unlink()
        await wait_for(pilot, lambda: "Page deleted" in screen_text(app), "the deleted state", LIVE)
        await wait_for(pilot, lambda: any("dodo.md was deleted" in n for n in notices(app)), "the notice")
        assert "Dodo" not in [info.title for info in app.workspace.graph.pages.values()]
        # Back still works from here.
        await pilot.press("backspace")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/index.md", "going back")


async def test_a_change_made_while_another_process_writes_the_index_is_indexed_after(sample_vault):
    """`wikitui index` running in a terminal holds the index: the workspace's own update waits, then retries."""
    from wikitui.core.search.results import UpdateStats

    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        index = app.workspace.search_index
        real = index.update_paths
        calls: list[list[str]] = []

        def held_once(paths, graph=None):
            calls.append(list(paths))
            if len(calls) == 1:
                return UpdateStats(busy=True)  # what update_paths reports when another process holds the lock
            return real(paths, graph)

        index.update_paths = held_once
        (sample_vault / "wiki" / "owls.md").write_text(
            "---\ntitle: Owls of Wonderland\n---\n\nThe owl and the panther shared a pie.\n", encoding="utf-8"
        )
        await wait_for(
            pilot,
            lambda: any(h.path == "wiki/owls.md" for h in index.search("panther pie", limit=20)),
            "the retried update",
            LIVE + 3,
        )
        assert calls[0] == calls[1] and "wiki/owls.md" in calls[0]
