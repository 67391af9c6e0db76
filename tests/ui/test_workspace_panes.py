"""Panes: function keys focus them, keys hide and resize them, a small terminal collapses them; remapped keys."""

from __future__ import annotations

from textual.widgets import OptionList, TextArea

from wikitui.ui.widgets.page_view import PageView
from wikitui.ui.widgets.source_tree import SourceTree

from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace


async def test_function_keys_focus_each_pane(sample_vault):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("f1")
        assert isinstance(app.focused, SourceTree)
        await pilot.press("f2")
        assert app.focused.id == "wiki-tree"
        await pilot.press("f3")
        assert isinstance(app.focused, PageView)
        await pilot.press("f4")
        assert isinstance(app.focused, OptionList) and app.focused.id == "links-list"
        await pilot.press("f5")
        assert isinstance(app.focused, TextArea) and app.focused.id == "agent-input"
        # Keys that are commands elsewhere type normally in a text input.
        await pilot.press("slash", "question_mark", "i", "left_square_bracket")
        assert app.focused.value == "/?i["
        assert len(app.screen_stack) == 1
        # alt+left is the input's, not Back.
        assert app.main.check_action("back", ()) is False


async def test_panes_hide_show_and_resize_by_keyboard(sample_vault):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        left = app.main.query_one("#left")
        links = app.main.query_one("#links")
        agent = app.main.query_one("#agent")
        assert left.display and links.display and agent.display
        await pilot.press("ctrl+b")
        assert not left.display
        await pilot.press("ctrl+l")
        assert not links.display
        await pilot.press("ctrl+a")
        assert not agent.display
        await pilot.press("ctrl+b", "ctrl+l", "ctrl+a")
        assert left.display and links.display and agent.display

        await pilot.press("f1")
        width = left.outer_size.width
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert left.outer_size.width > width
        await pilot.press("left_square_bracket", "left_square_bracket")
        await pilot.pause()
        assert left.outer_size.width < width

        # f1 on a hidden column shows it again.
        await pilot.press("ctrl+b", "f1")
        assert left.display and isinstance(app.focused, SourceTree)


async def test_a_small_terminal_collapses_the_agent_and_links(sample_vault):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        main = app.main
        assert not main.query_one("#agent").display
        assert not main.query_one("#links").display
        assert main.query_one("#left").display
        page = main.query_one(PageView)
        assert page.size.width >= 40
        # Still reachable: f5 brings the agent pane back.
        await pilot.press("f5")
        assert main.query_one("#agent").display and app.focused.id == "agent-input"


async def test_a_remapped_key_works_and_the_help_screen_shows_it(sample_vault, isolated_home):
    """`[keymap] search = "ctrl+f"` in the user's config: ctrl+f searches, and `?` says so."""
    from wikitui.ui.screens.search import SearchScreen

    config = isolated_home / ".config" / "wikitui" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[keymap]\nsearch = "ctrl+f"\n')
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: "Keys" in screen_text(app), "the help screen")
        search_rows = [line for line in screen_text(app).splitlines() if "Full-text search" in line and "^f" in line]
        assert search_rows, "the help screen shows the remapped key"
        await pilot.press("escape")
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen), "the search screen")
