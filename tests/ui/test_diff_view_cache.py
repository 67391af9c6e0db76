"""The diff view paints a row once: a file laid out again, or warmed ahead, is painted from what was drawn.

A row is drawn (its gutter, its highlighted text, its tint) once for what it shows; a
file laid out anew around hunks that did not change (a batch page re-derived after a
rejection: its later source's hunks are new, the others the same objects) draws only
the new hunks' rows, and :meth:`DiffView.warm` draws a file's first screen ahead, so
showing it draws nothing at all. The screen it paints is the same either way.
"""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from wikitui.core.changes.model import make_file_change
from wikitui.ui.widgets.diff_view import DiffView

BASE = "".join(f"Line {n} of the page, with a [[link]] in it.\n" for n in range(200))


def _change(index: int, edits: dict[int, str]):
    lines = BASE.splitlines(keepends=True)
    for n, text in edits.items():
        lines[n] = text
    return make_file_change(index, f"wiki/page-{index}.md", "edit", "h", BASE, "".join(lines))


class _DiffApp(App[None]):
    def compose(self) -> ComposeResult:
        yield DiffView(id="diff")


def _screen(view: DiffView) -> list[str]:
    return [view.render_line(y).text for y in range(view.size.height)]


async def _cold_screen(change, *, cursor: int, size: tuple[int, int]) -> list[str]:
    """What a fresh view, nothing drawn before, paints for ``change``."""
    app = _DiffApp()
    async with app.run_test(size=size) as pilot:
        view = app.query_one(DiffView)
        view.show(change, {}, cursor=cursor)
        await pilot.pause()
        return _screen(view)


def _counting(view: DiffView, monkeypatch) -> list[object]:
    drawn: list[object] = []
    real = view._render_row

    def render_row(row, *args):
        drawn.append(row)
        return real(row, *args)

    monkeypatch.setattr(view, "_render_row", render_row)
    return drawn


async def test_a_file_laid_out_again_draws_only_the_rows_of_its_new_hunks(monkeypatch):
    first = _change(0, {n: f"Line {n} changed by the first source.\n" for n in (3, 30, 60)})
    app = _DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(first, {}, cursor=0)
        await pilot.pause()
        before = _screen(view)
        drawn = _counting(view, monkeypatch)
        # The same hunks again (the later source's, re-derived, are a new hunk list): only new rows draw.
        again = replace(first, hunks=[first.hunks[0], first.hunks[1], replace(first.hunks[2])])
        view.show(again, {}, cursor=0)
        await pilot.pause()
        assert _screen(view) == before
        assert drawn and all(row.hunk in (-1, 2) for row in drawn)  # the title, and the third hunk's rows
        assert not any(row.kind == "header" and row.hunk < 2 for row in drawn)


async def test_a_warmed_file_is_shown_without_drawing_a_row(monkeypatch):
    first = _change(0, {3: "Line 3, the first file.\n"})
    second = _change(1, {n: f"Line {n} of the second file, edited.\n" for n in range(2, 40, 4)})
    app = _DiffApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.show(first, {}, cursor=0)
        await pilot.pause()
        shown_first = _screen(view)
        for _ in view.warm(second):
            pass
        assert _screen(view) == shown_first  # warming shows nothing
        drawn = _counting(view, monkeypatch)
        view.show(second, {}, cursor=0)
        await pilot.pause()
        assert drawn == []
        warmed = _screen(view)
        assert "of the second file, edited." in "\n".join(warmed)
    assert await _cold_screen(second, cursor=0, size=(100, 30)) == warmed  # the same screen as painted cold


async def test_the_next_hunk_warmed_selected_is_painted_from_the_cache_when_the_cursor_moves(monkeypatch):
    change = _change(0, {n: f"Line {n}, edited.\n" for n in (2, 12, 22)})
    app = _DiffApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(DiffView)
        view.show(change, {}, cursor=0)
        await pilot.pause()
        for step in (view.warm_hunk(0, selected=False, decision=None), view.warm_hunk(1, selected=True, decision=None)):
            for _ in step:
                pass
        drawn = _counting(view, monkeypatch)
        view.cursor = 1  # `j`
        await pilot.pause()
        assert drawn == []
        moved = _screen(view)
    assert await _cold_screen(change, cursor=1, size=(100, 40)) == moved
