"""Issue 21, point 6: the card and the notes agree, and a count of one reads in the singular."""

from __future__ import annotations

from tests.ui.test_review_reasons import pending_with_two_hunks, review
from tests.ui.test_chat import notes
from tests.ui.workspace_helpers import wait_for, wait_ready, workspace
from wikitui.ui.screens.outline import OutlineScreen


async def test_nothing_applied_and_one_rejected_is_not_partly_applied(sample_vault):
    app, changeset = pending_with_two_hunks(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await review(pilot, "r", "enter")  # dodo.md's hunk rejected, alice.md's left undecided
        card = app.pane.chat_log.cards[changeset.id]
        assert card.status == "pending" and "partly" not in str(card.border_subtitle)
        assert any(n.startswith("Nothing applied · 1 rejected · 1 still pending") for n in notes(app.pane))


async def test_applying_one_hunk_says_one_hunk(sample_vault):
    app, changeset = pending_with_two_hunks(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await review(pilot, "a", "enter")
        card = app.pane.chat_log.cards[changeset.id]
        assert card.status == "partial" and str(card.border_subtitle).startswith("partly applied")
        assert any(n.startswith("✓ Applied 1 hunk to") for n in notes(app.pane))


async def test_an_outline_of_one_heading_says_one_heading(sample_vault):
    (sample_vault / "wiki/one.md").write_text("---\ntitle: One\n---\n\n# Only heading\n\nText.\n", encoding="utf-8")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/one.md")
        await pilot.pause()
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, OutlineScreen), "the outline")
        box = app.screen.query_one("#outline")
        assert str(box.border_subtitle).startswith("1 heading · ")
