"""A big source laid out in the page pane is kept out of the garbage collector's full passes.

Each full collection walks every tracked object; a 4 MB text laid out is some 130,000
of them, and each pass paused the view for 50-190 ms (``bench/sources_tui.py``). The
background layout freezes its lines as it goes, so the collector never walks them, and
they are still freed when another page is shown. Counted, never timed.
"""

from __future__ import annotations

import gc

from textual.app import App, ComposeResult

from wikitui.ui.markdown.document import render_page
from wikitui.ui.markdown.line import Line
from wikitui.ui.widgets.background_layout import FREEZE_LINES
from wikitui.ui.widgets.page_view import PageView

#: A plain-text source of about 1.2 MB: several freezes' worth of lines.
BIG_TEXT = "".join(
    f"Station {n} measured the glacier's tongue again; it had thinned by {n % 97} cm since the survey.\n"
    for n in range(4 * FREEZE_LINES)
)


class SourceApp(App):
    """One page pane, as the source viewer uses it."""

    def compose(self) -> ComposeResult:
        yield PageView()


def tracked_lines(lines: list[Line]) -> int:
    """How many of ``lines`` a full collection would walk (frozen objects are in no generation)."""
    mine = {id(line) for line in lines}
    return sum(1 for obj in gc.get_objects() if type(obj) is Line and id(obj) in mine)


async def _laid_out(pilot, view: PageView) -> None:
    while view.laying_out or not view.document.complete:
        await pilot.pause(0.05)


async def test_a_big_source_laid_out_in_the_background_leaves_its_lines_frozen():
    app = SourceApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(PageView)
        view.show(BIG_TEXT, path="raw/survey.txt", read_only_source="text")
        await _laid_out(pilot, view)
        doc = view.document
        assert len(doc.lines) >= 4 * FREEZE_LINES
        assert tracked_lines(doc.lines) == 0  # without the freezes: every one of them
        assert gc.isenabled()  # the collector still runs for everything else
        # Behaviour unchanged: the same lines as a layout with no collector tuning at all.
        expected = render_page(BIG_TEXT, doc.width, path="raw/survey.txt", source_lexer="text")
        assert [line.text for line in doc.lines] == [line.text for line in expected.lines]


async def test_frozen_lines_are_still_freed_when_another_page_is_shown():
    app = SourceApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(PageView)
        view.show(BIG_TEXT, path="raw/survey.txt", read_only_source="text")
        await _laid_out(pilot, view)
        lines = len(view.document.lines)
        frozen = gc.get_freeze_count()
        view.show_message("Nothing here", "Another page.")
        await pilot.pause()
        # Reference counting frees frozen objects too: the page's lines and their segment lists went.
        assert frozen - gc.get_freeze_count() >= lines


async def test_a_new_width_lays_out_and_freezes_again():
    app = SourceApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(PageView)
        view.show(BIG_TEXT, path="raw/survey.txt", read_only_source="text")
        await _laid_out(pilot, view)
        await pilot.resize_terminal(60, 30)
        await pilot.pause()
        await _laid_out(pilot, view)
        assert view.document.width < 100
        assert tracked_lines(view.document.lines) == 0


async def test_a_small_page_is_left_to_the_collector():
    small = "".join(f"Line {n} of a short note.\n" for n in range(200))
    app = SourceApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(PageView)
        frozen = gc.get_freeze_count()
        view.show(small, path="raw/note.txt", read_only_source="text")
        await _laid_out(pilot, view)
        assert tracked_lines(view.document.lines) == len(view.document.lines)
        assert gc.get_freeze_count() == frozen
