"""A line-API view's scrollbars are measured again only when one of its sizes changed.

Textual's ScrollView refreshes both scrollbars at every layout pass of the screen (it
compares the region it is seen through with all its rows), and each refresh came back as
one more paint of the whole screen a frame later (the batch review's ``tab``:
bench/batch_review.py). :class:`~wikitui.ui.widgets.steady_scroll.SteadyScrollView` skips
a pass that changed none of its sizes, and still follows every change of its rows or size.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Size
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widgets import Static

from wikitui.ui.widgets.steady_scroll import SteadyScrollView


class Rows(SteadyScrollView):
    DEFAULT_CSS = "Rows { width: 30; height: 1fr; }"

    def on_mount(self) -> None:
        self.virtual_size = Size(28, 100)

    def render_line(self, y: int) -> Strip:
        return Strip.blank(self.size.width)


class RowsApp(App):
    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Rows()
            yield Static("one line", id="beside")


async def test_a_layout_pass_that_changes_none_of_its_sizes_leaves_the_scrollbars_alone(monkeypatch):
    app = RowsApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        rows = app.query_one(Rows)
        bar = rows.vertical_scrollbar
        assert rows.show_vertical_scrollbar and bar.window_virtual_size == 100 and bar.window_size == 10
        refreshed: list[ScrollBar] = []
        original = ScrollBar.refresh

        def spy(self, *args, **kwargs):
            refreshed.append(self)
            return original(self, *args, **kwargs)

        monkeypatch.setattr(ScrollBar, "refresh", spy)
        beside = app.query_one("#beside", Static)
        beside.update("two\nlines")  # a layout pass of the screen; nothing of the rows' changes
        await pilot.pause()
        assert beside.size.height == 2  # the pass ran (the text beside took a second row)
        assert refreshed == []
        # Their rows change: the scrollbar follows.
        rows.virtual_size = Size(28, 300)
        await pilot.pause()
        assert bar.window_virtual_size == 300 and bar in refreshed
        rows.scroll_to(y=290, animate=False, immediate=True)
        assert rows.scroll_y == 290
        rows.virtual_size = Size(28, 20)  # fewer rows: the offset is brought back within them
        await pilot.pause()
        assert bar.window_virtual_size == 20 and rows.scroll_y == 10
        # Its size changes: the scrollbar follows.
        await pilot.resize_terminal(60, 15)
        await pilot.pause()
        assert rows.size.height == 15 and bar.window_size == 15
