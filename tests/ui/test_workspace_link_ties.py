"""Following ``[[Security and privacy]]`` from a Publish note opens the Publish note, not the Sync one (issue 24.4)."""

from __future__ import annotations

from wikitui.ui.widgets.page_view import PageView

from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace

PUBLISH = "Obsidian Publish/Security and privacy.md"
SYNC = "Obsidian Sync/Security and privacy.md"


async def test_enter_on_a_link_from_a_publish_note_opens_the_publish_note(twin_vault):
    app = workspace(twin_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("Obsidian Publish/Publish overview.md")
        await wait_for(pilot, lambda: app.main.current_path == "Obsidian Publish/Publish overview.md", "the overview")
        page = app.query_one(PageView)
        page.focus()
        await pilot.press("tab")
        await wait_for(pilot, lambda: page.selected_link is not None, "a selected link")
        # The border names where the link goes: the note in this folder.
        await wait_for(pilot, lambda: "Obsidian Publish" in str(page.border_subtitle), "the border to name the folder")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == PUBLISH, f"{PUBLISH} to open")
        await wait_for(pilot, lambda: "A published site can have a password." in screen_text(app), "its text")
        # The backlinks panel lists the Publish overview only.
        text = screen_text(app)
        assert "Publish overview" in text and "Sync overview" not in text

        app.main.open_path("Obsidian Sync/Sync overview.md")
        await wait_for(pilot, lambda: app.main.current_path == "Obsidian Sync/Sync overview.md", "the Sync overview")
        page.focus()
        await pilot.press("tab")
        await wait_for(pilot, lambda: page.selected_link is not None, "a selected link")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == SYNC, f"{SYNC} to open")
        await wait_for(pilot, lambda: "Sync encrypts your notes end to end." in screen_text(app), "its text")
