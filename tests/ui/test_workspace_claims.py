"""Staleness at the claim, in the workspace (DESIGN §11 "Evidence"): the links panel lists a page's claims whose
evidence lines changed in the source, and only those; a page whose claims all still hold is not stale."""

from __future__ import annotations

from tests.core.test_evidence import LONG, apply_edit, body_line_of, long_source
from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace
from wikitui.ui.widgets.links_panel import LinksPanel
from wikitui.ui.widgets.page_view import PageView

MOUSE = "wiki/characters/mouse.md"
DODO = "wiki/characters/dodo.md"


def _claims(root) -> None:
    """The Dodo's page draws on line 100 of a long source, the Mouse's on line 200; then line 200 changes."""
    lines = long_source(root)
    for page, n in ((DODO, 100), (MOUSE, 200)):
        text = (root / page).read_text()
        body = body_line_of(text)
        apply_edit(root, {"source": LONG, "quote": f"fact number {n} about"}, old=body,
                    new=body + f" It also states fact {n}.", path=page)
    lines[199] = "Line 200 now says something else entirely."
    (root / LONG).write_text("\n".join(lines) + "\n")


async def test_the_links_panel_lists_the_claims_whose_evidence_vanished(sample_vault):
    _claims(sample_vault)
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path(MOUSE)
        await wait_for(pilot, lambda: app.main.current_path == MOUSE, "the Mouse")
        await pilot.pause()
        await wait_for(pilot, lambda: "⚠ Stale claims (1)" in screen_text(app), "the Stale claims tab")
        page = app.query_one(PageView)
        assert "stale" not in str(page.border_title)  # judged at the claim, not as a whole page
        await pilot.press("f4", "s")
        panel = app.query_one(LinksPanel)
        await wait_for(pilot, lambda: panel.tab == "claims", "the list to show")
        assert f"⚠ vanished {LONG}:200 “" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == LONG, "the source, where the lines were")
        app.main.open_path(DODO)  # its claim's line did not change: nothing listed
        await wait_for(pilot, lambda: app.main.current_path == DODO, "the Dodo")
        await pilot.pause()
        assert "Stale claims" not in screen_text(app) and "stale" not in str(page.border_title)


async def test_the_stale_claims_show_on_a_small_terminal(sample_vault):
    _claims(sample_vault)
    app = workspace(sample_vault)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        app.main.open_path(MOUSE)
        await wait_for(pilot, lambda: app.main.current_path == MOUSE, "the Mouse")
        await pilot.press("f4")  # on a small screen the links panel shows when focused
        await wait_for(pilot, lambda: "⚠ Stale claims (1)" in screen_text(app), "the Stale claims tab")
