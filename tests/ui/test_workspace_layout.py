"""Width decides the layout: three columns from 110 columns, else the agent shares the page's column.

Also the footer: at any width it shows whole key hints and the palette key, nothing stray.
"""

from __future__ import annotations

import re

import pytest

from wikitui.ui.screens.layout import PAGE_MIN, SIZES, WIDE, plan_layout
from wikitui.ui.widgets.page_view import PageView

from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace


def _panes(app):
    main = app.main
    return {name: main.query_one(f"#{name}") for name in ("left", "centre", "agent", "links")}


def _focus_column(app) -> str:
    return app.main.panes.focused_column()


@pytest.mark.parametrize("width", [56, 64, 70, 80, 90, 100, 109, 110, 120, 160])
def test_the_page_keeps_forty_columns_at_every_width_and_size(width):
    defaults = {name: size[0] for name, size in SIZES.items()}
    widest = {name: size[2] for name, size in SIZES.items()}
    for sizes in (defaults, widest):
        for raised in (False, True):
            layout = plan_layout(width, 40, shown={"left": None, "links": None, "agent": None}, sizes=sizes, agent_raised=raised)
            assert layout.wide == (width >= WIDE)
            beside = (layout.left_width if layout.left else 0) + (layout.agent_width or 0 if layout.agent else 0)
            if layout.centre:
                assert width - beside >= PAGE_MIN, (width, sizes, raised, layout)
            if not layout.wide:  # the agent and the page share one column: one of them shows
                assert layout.agent != layout.centre


async def test_at_80_columns_f5_raises_the_agent_over_the_page_and_f3_brings_the_page_back(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        panes = _panes(app)
        page = app.main.query_one(PageView)
        assert panes["centre"].display and not panes["agent"].display
        assert page.outer_size.width >= PAGE_MIN

        await pilot.press("f5")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "agent-input", "the agent's input")
        await pilot.pause()
        assert panes["agent"].display and not panes["centre"].display
        assert panes["agent"].outer_size.width >= PAGE_MIN  # the page's whole column, not 38 cells
        await pilot.press(*"hello")
        assert app.focused.value == "hello"

        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.focused, PageView)
        assert panes["centre"].display and not panes["agent"].display
        assert page.outer_size.width >= PAGE_MIN

        # ctrl+a raises it too (and from the page, ctrl+a again lowers it).
        await pilot.press("ctrl+a")
        await pilot.pause()
        assert panes["agent"].display and _focus_column(app) == "agent"
        await pilot.press("f2")  # the left column stays; the agent keeps the page's column
        await pilot.pause()
        assert panes["agent"].display and not panes["centre"].display
        await pilot.press("enter")  # open a page from the tree: the page comes back
        await pilot.pause()
        assert panes["centre"].display and not panes["agent"].display and isinstance(app.focused, PageView)


async def test_resizing_live_switches_between_three_columns_and_a_shared_column(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        panes = _panes(app)
        page = app.main.query_one(PageView)
        assert panes["centre"].display and panes["agent"].display and panes["left"].display

        await pilot.press("f5")
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        # Narrower with the focus in the agent: the agent keeps the column, the page waits under it.
        assert panes["agent"].display and not panes["centre"].display
        assert panes["agent"].outer_size.width >= PAGE_MIN

        await pilot.press("f3")
        await pilot.pause()
        assert panes["centre"].display and not panes["agent"].display
        assert page.outer_size.width >= PAGE_MIN

        await pilot.resize_terminal(130, 40)
        await pilot.pause()
        assert panes["centre"].display and panes["agent"].display and panes["left"].display
        assert page.outer_size.width >= PAGE_MIN

        # A widened left column never squeezes the page below 40 columns.
        await pilot.press("f1", *["right_square_bracket"] * 12)
        await pilot.resize_terminal(110, 40)
        await pilot.pause()
        assert panes["agent"].display and page.outer_size.width >= PAGE_MIN


@pytest.mark.parametrize("size", [(80, 24), (90, 30), (100, 30), (110, 30), (120, 40)])
async def test_the_footer_shows_whole_hints_and_the_palette_key_at_every_width(sample_vault, size):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=size) as pilot:
        await wait_ready(pilot)
        await pilot.pause()
        footer_line = screen_text(app).splitlines()[-1]
        hints, _, rest = footer_line.partition("▏")
        assert re.match(r"\^p palette {2,}\S", rest), footer_line  # nothing stray after the palette key
        shown = hints.strip()
        # What shows is a run of whole hints, in order.
        from wikitui.ui.widgets.workspace_footer import WorkspaceFooter

        keys = [k for k in app.main.query_one(WorkspaceFooter).children if not k.has_class("-command-palette")]
        assert keys, "some hints fit"
        assert shown == " ".join(f"{k.key_display} {k.description}" for k in keys)
        assert "Search" in shown


async def test_at_80_columns_a_second_ctrl_a_puts_the_page_back(sample_vault):
    # Issue 21.11: ctrl+a raised the agent and focused its input, which took the second ctrl+a (line start).
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        panes = _panes(app)
        await pilot.press("ctrl+a")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "agent-input", "the agent's input")
        await pilot.pause()
        assert panes["agent"].display and not panes["centre"].display
        await pilot.press(*"hi", "ctrl+a")
        await pilot.pause()
        assert panes["centre"].display and not panes["agent"].display and isinstance(app.focused, PageView)
        await pilot.press("ctrl+a")  # and up again, the draft kept
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "agent-input", "the agent's input")
        assert panes["agent"].display and app.focused.text == "hi"
        await pilot.press("home", "x")  # home still moves to the line's start
        assert app.focused.text == "xhi"


async def test_wide_ctrl_a_in_the_agent_input_hides_the_agent_and_focuses_the_page(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        panes = _panes(app)
        await pilot.press("f5")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "agent-input", "the agent's input")
        await pilot.press("ctrl+a")
        await pilot.pause()
        assert not panes["agent"].display and isinstance(app.focused, PageView)
        await pilot.press("ctrl+a")
        await pilot.pause()
        assert panes["agent"].display


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_footer_offers_search_only_where_slash_searches(sample_vault, size):
    # Issue 21.11: with the agent's input focused, "/" types in it: the footer must not say "/ Search".
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=size) as pilot:
        await wait_ready(pilot)
        await pilot.pause()
        footer = lambda: screen_text(app).splitlines()[-1]  # noqa: E731
        assert "/ Search" in footer()
        await pilot.press("f5")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "agent-input", "the agent's input")
        await wait_for(pilot, lambda: "/ Search" not in footer(), "the footer without / Search")
        await pilot.press("slash")
        assert app.focused.text == "/"
        await pilot.press("backspace", "f3")
        await wait_for(pilot, lambda: "/ Search" in footer(), "/ Search back on the page")


async def test_the_footer_redraws_its_hints_only_when_they_change(sample_vault):
    from wikitui.ui.widgets.workspace_footer import WorkspaceFooter

    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        footer = app.main.query_one(WorkspaceFooter)
        page_hints = list(footer.children)
        assert isinstance(app.focused, PageView) and page_hints
        app.main.refresh_bindings()  # the bindings in force announced again, unchanged
        await pilot.pause()
        await pilot.pause()
        assert list(footer.children) == page_hints  # the same hint widgets: nothing removed and mounted again
        await pilot.press("f2")  # the wiki tree: its own keys
        await wait_for(pilot, lambda: list(footer.children) != page_hints, "the tree's hints")
        await pilot.press("f3")  # the page again: its hints as before
        await wait_for(pilot, lambda: [(k.key_display, k.description) for k in footer.children]
                       == [(k.key_display, k.description) for k in page_hints], "the page's hints again")
