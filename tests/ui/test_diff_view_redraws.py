"""A decision redraws the rows whose look it changes, and no others (issue 23: keys within a frame at 2,000 hunks).

Each row of the diff on the screen costs Textual ~0.1 ms to paint even from the strip
cache; accepting every ``ok`` hunk of a screen redrew ~70 rows where ~20 changed. An
accepted hunk changes its header row alone (its lines are drawn as an undecided hunk's);
a rejected one fades all its lines; the page list redraws the row that shows a new count.
"""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from tests.ui.test_diff_view_cache import BASE, _change, _DiffApp, _screen
from wikitui.core.changes.model import make_file_change
from wikitui.ui.widgets.changeset_files import ChangesetFileList
from wikitui.ui.widgets.diff_view import DiffView


def _drawn_lines(widget, monkeypatch) -> list[int]:
    """The screen lines ``widget`` draws from now on (a line painted from Textual's cache is not drawn)."""
    lines: list[int] = []
    real = widget.render_line

    def render_line(y: int):
        lines.append(y)
        return real(y)

    monkeypatch.setattr(widget, "render_line", render_line)
    return lines


async def _cold(change, decisions, *, cursor, size, scroll_y: int = 0) -> list[str]:
    app = _DiffApp()
    async with app.run_test(size=size) as pilot:
        view = app.query_one(DiffView)
        view.show(change, decisions, cursor=cursor)
        await pilot.pause()
        view.scroll_to(y=scroll_y, animate=False, immediate=True)
        await pilot.pause()
        assert view.scroll_offset.y == scroll_y
        return _screen(view)


async def test_accepting_a_hunk_redraws_its_header_row_and_rejecting_it_every_row(monkeypatch):
    change = _change(0, {n: f"Line {n}, edited.\n" for n in (3, 20, 37)})
    decisions: dict[str, str] = {}
    app = _DiffApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(DiffView)
        view.show(change, decisions, cursor=None)
        await pilot.pause()
        start, end = view.hunk_region(1)
        drawn = _drawn_lines(view, monkeypatch)
        decisions[change.hunks[1].id] = "accepted"
        view.refresh_hunk(1)
        await pilot.pause()
        assert drawn == [start]  # the header: its mark and label
        assert "accepted" in _screen(view)[start]
        drawn.clear()
        decisions[change.hunks[1].id] = "rejected"
        view.refresh_hunk(1)
        await pilot.pause()
        assert sorted(drawn) == list(range(start, end))  # every line fades
        screen = _screen(view)
    assert await _cold(change, decisions, cursor=None, size=(100, 40)) == screen  # as a fresh view paints it


async def test_the_file_shown_again_changed_keeps_its_place_and_redraws_only_what_changed(monkeypatch):
    edits = {n: f"Line {n}, edited.\n" for n in range(3, 190, 18)}  # eleven hunks, one screen holds two
    change = _change(0, edits)
    assert len(change.hunks) == 11
    app = _DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(change, {}, cursor=0)
        await pilot.pause()
        view.cursor = 5  # hunk 5 at the top, hunk 6 below it
        await pilot.pause()
        top = view.scroll_offset.y
        start5, _ = view.hunk_region(5)
        start6, end6 = view.hunk_region(6)
        assert top == start5 - 1 and end6 <= top + 30
        drawn = _drawn_lines(view, monkeypatch)
        # The page re-derived (a later source's hunk 6 is a new object), the cursor on to it: as `r` does.
        again = replace(change, hunks=[*change.hunks[:6], replace(change.hunks[6]), *change.hunks[7:]])
        view.show(again, {}, cursor=6)
        await pilot.pause()
        assert view.scroll_offset.y == top  # not back to the top, nor on to hunk 6
        assert drawn and all(start5 - top <= y < end6 - top for y in drawn)  # hunks 5 and 6 only
        screen = _screen(view)
    assert await _cold(again, {}, cursor=6, size=(100, 30), scroll_y=top) == screen


async def test_another_file_starts_at_its_top():
    change = _change(0, {n: f"Line {n}, edited.\n" for n in range(3, 190, 18)})
    other = make_file_change(1, "wiki/other.md", "edit", "h", BASE, BASE.replace("Line 150 of", "Line 150, edited, of"))
    app = _DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(change, {}, cursor=0)
        await pilot.pause()
        view.cursor = 5
        await pilot.pause()
        assert view.scroll_offset.y > 0
        view.show(other, {}, cursor=0)
        await pilot.pause()
        assert view.scroll_offset.y == 0 and "other.md" in _screen(view)[0]


class _ListApp(App[None]):
    def __init__(self, files) -> None:
        super().__init__()
        self.files = files

    def compose(self) -> ComposeResult:
        yield ChangesetFileList(self.files)


async def test_a_new_count_redraws_the_entry_row_that_shows_it(monkeypatch):
    files = [_change(i, {n: f"Line {n}, edited.\n" for n in (3, 20, 37)}) for i in range(3)]
    app = _ListApp(files)
    async with app.run_test(size=(40, 20)) as pilot:
        listing = app.query_one(ChangesetFileList)
        await pilot.pause()
        start, count = listing.rows_of(1)
        assert count == 2
        drawn = _drawn_lines(listing, monkeypatch)
        listing.set_decided(1, 1)  # "1/3 decided": the second row
        await pilot.pause()
        assert drawn == [start + 1] and "1/3 decided" in listing.entry_text(1)
        drawn.clear()
        listing.set_decided(1, 3)  # every hunk decided: the path is no longer bold either
        await pilot.pause()
        assert sorted(drawn) == [start, start + 1] and "3/3 decided" in listing.entry_text(1)


async def test_the_selection_going_out_of_sight_brings_half_a_screen_of_entries_with_it():
    """``n`` through a batch's 200 pages: the list moves once for several entries, not at each (a move repaints it all)."""
    files = [_change(i, {3: "Line 3, edited.\n"}) for i in range(40)]
    app = _ListApp(files)
    async with app.run_test(size=(40, 21)) as pilot:  # ten entries (two rows each) in sight
        listing = app.query_one(ChangesetFileList)
        await pilot.pause()
        moves = 0
        for index in [*range(40), *range(39, -1, -1)]:  # down the list, and back up
            before = listing.scroll_offset.y
            listing.select(index)
            start, count = listing.rows_of(index)
            top = listing.scroll_offset.y
            assert top <= start and start + count <= top + listing.size.height  # always in sight
            moves += top != before
        assert moves <= 16, moves  # (11 here; moving at each entry that went out of sight: 60)
