"""The outline (ctrl+o, or the palette) jumps to a heading; `e` edits the page in $VISUAL/$EDITOR and shows it again."""

from __future__ import annotations

import contextlib
import os
import stat

from wikitui.ui.screens.outline import OutlineScreen
from wikitui.ui.widgets.page_view import PageView

from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace

OVERVIEW = "wiki/overview.md"


async def test_ctrl_o_lists_the_headings_and_enter_jumps_to_one(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_ready(pilot)
        app.main.open_path(OVERVIEW)
        await pilot.pause()
        page = app.main.query_one(PageView)
        assert page.scroll_y == 0
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, OutlineScreen), "the outline")
        text = screen_text(app)
        for heading in ("Plot arc", "Themes", "Characters at a glance", "Open questions"):
            assert heading in text
        await pilot.press(*"them", "enter")
        await wait_for(pilot, lambda: len(app.screen_stack) == 1, "the outline to close")
        await pilot.pause()
        assert page.scroll_y > 0
        assert "Themes" in screen_text(app).split("\n")[1]  # the heading at the top of the page pane
        assert isinstance(app.focused, PageView)
        # back returns to where the page was.
        await pilot.press("backspace")
        await pilot.pause()
        assert page.scroll_y == 0


async def test_the_outline_is_a_palette_command_too(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_ready(pilot)
        app.main.open_path(OVERVIEW)
        await pilot.press("ctrl+p", *"outline")
        await wait_for(pilot, lambda: "The page's headings" in screen_text(app), "the command")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OutlineScreen), "the outline")


def _fake_editor(tmp_path, line: str):
    script = tmp_path / "fake-editor"
    script.write_text(f"#!/bin/sh\nprintf '\\n%s\\n' '{line}' >> \"$1\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


async def test_e_opens_the_page_in_the_editor_and_shows_the_edit(sample_vault, tmp_path, monkeypatch):
    editor = _fake_editor(tmp_path, "Edited outside.")
    monkeypatch.setenv("VISUAL", f"{editor}")
    app = workspace(sample_vault, watch=False, index=False)
    suspended = []

    @contextlib.contextmanager
    def suspend():  # the headless test driver cannot suspend; a terminal can (see the tmux test)
        suspended.append(True)
        yield

    async with app.run_test(size=(120, 30)) as pilot:
        await wait_ready(pilot)
        monkeypatch.setattr(app, "suspend", suspend)
        app.main.open_path(OVERVIEW)
        await pilot.press("end", "e")
        await wait_for(pilot, lambda: suspended, "the editor", 5)
        await pilot.press("end")  # the page is shown again where it was; its new last line is just below
        await wait_for(pilot, lambda: "Edited outside." in screen_text(app), "the edited page")
        assert suspended == [True]
        assert (sample_vault / OVERVIEW).read_text(encoding="utf-8").endswith("\n\nEdited outside.\n")


async def test_e_without_an_editor_or_on_a_source_says_why_and_changes_nothing(sample_vault, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    before = (sample_vault / OVERVIEW).read_bytes()
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_ready(pilot)
        app.main.open_path(OVERVIEW)
        await pilot.press("e")
        await wait_for(pilot, lambda: any("$VISUAL or $EDITOR" in n for n in notices(app)), "the reason")
        app.main.open_path("raw/chapter-01.md")
        await pilot.press("e")
        await wait_for(pilot, lambda: any("read-only source" in n for n in notices(app)), "the refusal")
    assert (sample_vault / OVERVIEW).read_bytes() == before
    assert os.environ.get("VISUAL") is None
