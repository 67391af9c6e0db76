"""SVG snapshots of the workspace on the sample vault: main screen (two sizes), search, palette, help.

Deterministic: the background work finishes before each snapshot, the theme is
fixed, and nothing shows a clock. Update with ``pytest --snapshot-update`` after
looking at the new images.
"""

from __future__ import annotations

import pytest

from tests.ui.workspace_helpers import wait_for, wait_ready, workspace


def _app(vault, theme: str = "wikitui-dark"):
    # No watcher: a snapshot must not depend on file-system timing.
    return workspace(vault, watch=False, theme=theme)


async def _settled(pilot) -> None:
    """Graph, index and the links panel's unlinked mentions all done."""
    await wait_ready(pilot)
    panel = pilot.app.main.query_one("#links")
    await wait_for(pilot, lambda: panel.counts()["unlinked"] is not None or not panel.display, "unlinked mentions", 10)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_main_screen(snap_compare, sample_vault, size):
    assert snap_compare(_app(sample_vault), terminal_size=size, run_before=_settled)


def test_page_with_a_link_selected(snap_compare, sample_vault):
    async def before(pilot):
        await _settled(pilot)
        pilot.app.main.open_path("wiki/characters/alice.md")
        await pilot.press("tab", "tab")
        await _settled(pilot)

    assert snap_compare(_app(sample_vault), terminal_size=(120, 40), run_before=before)


def test_light_theme(snap_compare, sample_vault):
    async def before(pilot):
        await _settled(pilot)
        pilot.app.main.open_path("wiki/characters/cheshire-cat.md")
        await _settled(pilot)

    assert snap_compare(_app(sample_vault, "wikitui-light"), terminal_size=(120, 40), run_before=before)


def test_search_screen(snap_compare, sample_vault):
    async def before(pilot):
        await _settled(pilot)
        await pilot.press("slash", *"rabbit")
        await wait_for(pilot, lambda: "result" in str(pilot.app.screen.query_one("#search-status").render()), "results")
        await pilot.app.workers.wait_for_complete()
        from textual.widgets import Input

        pilot.app.screen.query_one(Input).cursor_blink = False  # keep the image independent of timing
        await pilot.pause()

    assert snap_compare(_app(sample_vault), terminal_size=(120, 40), run_before=before)


def test_palette_quick_switcher(snap_compare, sample_vault):
    async def before(pilot):
        await _settled(pilot)
        await pilot.press("ctrl+p", *"hatter")
        from textual.command import CommandList

        hits = pilot.app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: hits.option_count >= 1 and "Hatter" in str(hits.get_option_at_index(0).prompt), "palette hits", 5)
        # Providers add hits as they find them: wait until the list has stopped changing
        # (on a loaded machine the last ones can arrive well after the first).
        seen, stable = -1, 0
        while stable < 5:
            await pilot.pause(0.1)
            count = hits.option_count
            stable = stable + 1 if count == seen else 0
            seen = count
        from textual.widgets import Input

        pilot.app.screen.query_one(Input).cursor_blink = False  # a blinking cursor made the image timing-dependent
        await pilot.pause()

    assert snap_compare(_app(sample_vault), terminal_size=(120, 40), run_before=before)


def test_help_screen(snap_compare, sample_vault):
    async def before(pilot):
        await _settled(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(_app(sample_vault), terminal_size=(120, 40), run_before=before)


def test_raw_source_viewer(snap_compare, sample_vault):
    async def before(pilot):
        await _settled(pilot)
        await pilot.press("f1", "enter")
        await _settled(pilot)

    assert snap_compare(_app(sample_vault), terminal_size=(120, 40), run_before=before)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
def test_narrow_screen_with_the_agent_raised(snap_compare, sample_vault, size):
    """Below 110 columns f5 raises the agent over the page's column (the page is never squeezed)."""

    async def before(pilot):
        await _settled(pilot)
        await pilot.press("f5")
        await wait_for(pilot, lambda: pilot.app.focused is not None and pilot.app.focused.id == "agent-input", "the agent input")
        await pilot.press(*"hello")
        pilot.app.focused.cursor_blink = False
        await pilot.pause()

    assert snap_compare(_app(sample_vault), terminal_size=size, run_before=before)
