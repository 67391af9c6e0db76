"""The `/` screen tells the person when a query was run differently from how it was typed."""

from __future__ import annotations

from tests.ui.workspace_helpers import wait_for, wait_ready, workspace


async def test_a_capped_fuzzy_distance_is_noted_in_the_status_line(sample_vault):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("slash", *"rabbit~9")
        status = lambda: str(pilot.app.screen.query_one("#search-status").render())  # noqa: E731
        await wait_for(pilot, lambda: "searched as rabbit~2" in status(), "the note")
        assert "result" in status()  # the hits are still counted beside the note
        assert "rabbit~9: fuzzy search allows at most 2 edits" in status()
        await pilot.press("backspace")  # "rabbit~": one edit, as asked: no note
        await wait_for(pilot, lambda: "searched as" not in status() and "result" in status(), "no note")
