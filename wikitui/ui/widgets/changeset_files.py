"""The file list of the review screen: each file of a changeset and how much of it is decided.

An entry reads ``M wiki/concepts/bert.md`` (the action's letter: A create, M edit,
D delete, R move) over ``edit   +12 −3  2/4 decided``; a move adds where the
page comes from. Long paths lose leading folders first, since the file name says
the most.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from textual import events
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip

from wikitui.core.vault.visible_text import visible_line
from wikitui.ui.widgets.steady_scroll import SteadyScrollView

_ACTION_BADGES = {
    "create": ("A", "$text-success"),
    "edit": ("M", "$text-warning"),
    "delete": ("D", "$text-error"),
    "move": ("R", "$text-primary"),
}


def _fit_path(path: str, room: int) -> str:
    """``path`` in at most ``room`` cells, dropping leading folders first (the name says most)."""
    room = max(room, 8)
    parts = path.split("/")
    while len(path) > room and len(parts) > 1:
        parts = parts[1:]
        path = "…/" + "/".join(parts)
    if len(path) > room:
        path = "…" + path[-(room - 1) :]
    return path


#: What a file's state on disk means for the review (see :mod:`wikitui.core.changes.disk_status`).
DISK_LABELS = {
    "changed": ("• changed on disk", "$text-muted"),
    "merges": ("⚠ changed on disk — will merge", "$text-warning"),
    "conflict": ("✗ changed on disk — conflict", "bold $text-error"),
}


def _file_prompt(change: Any, decided: int, width: int, disk: str = "same") -> Content:
    """The file list's entry: badge and path, then action, +/− and how much is decided.

    A move shows where the page goes, and a third line says where it comes from. A
    file that changed on disk since the proposal says so, and what ``enter`` would do.
    """
    letter, colour = _ACTION_BADGES.get(change.action, ("?", "$text-muted"))
    moved_to = getattr(change, "new_path", None) if change.action == "move" else None
    added = sum(h.added for h in change.hunks)
    removed = sum(h.removed for h in change.hunks)
    total = len(change.hunks)
    done_style = "$text-success" if decided == total and total else "$text-muted"
    parts: list[Any] = [
        (f"{letter} ", f"bold {colour}"),
        (_fit_path(visible_line(moved_to or change.path), width - 2), "bold" if decided < total else ""),
        "\n  ",
        (f"{change.action:<7}", "$text-muted"),
        *(["binary"] if getattr(change, "binary", False) else [
            (f"+{added}", "$text-success"), " ", (f"−{removed}", "$text-error")]),
        "  ",
        (f"{decided}/{total} decided", done_style),
    ]
    if moved_to:
        parts += ["\n  ", ("from ", "$text-muted"), (_fit_path(visible_line(change.path), width - 7), "$text-muted")]
    if disk in DISK_LABELS:
        label, style = DISK_LABELS[disk]
        room = max(width - 2, 4)
        parts += ["\n  ", (label if len(label) <= room else label[: room - 1].rstrip() + "…", style)]
    return Content.assemble(*parts)


class ChangesetFileList(SteadyScrollView, can_focus=False):
    """The files of a changeset, one entry each, with one of them selected.

    The widget takes no keys (the review screen owns them); a click posts
    :class:`ChangesetFileList.Clicked`. Drawn with the line API, so a key that
    changes one entry redraws two or three lines.

    Args:
        files: The FileChanges (path, action, new_path, hunks).
    """

    DEFAULT_CSS = """
    ChangesetFileList {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
    }
    """

    class Clicked(Message):
        """A file was clicked."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index
            """Index of the clicked file."""

    def __init__(self, files: Sequence[Any], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._files = list(files)
        self._decided = [0] * len(self._files)
        self._disk = ["same"] * len(self._files)
        self._selected = 0
        # Drawn entries by what they show (file, selected, decided, disk state): a batch review draws the
        # entries a key will show ahead of it (warm_entry), and the key then paints them from here.
        self._entries: LRUCache[tuple[int, bool, int, str], list[Strip]] = LRUCache(4096)
        self._drawn: dict[int, Strip] = {}  # what each row on the screen was last drawn as (see _redraw)
        self._lines: list[tuple[int, int]] = []  # (file, line within its entry) per row
        self._starts: list[int] = []
        self._width = 0

    @property
    def selected(self) -> int:
        """Index of the highlighted file."""
        return self._selected

    def entry_text(self, index: int) -> str:
        """The text file ``index``'s entry shows."""
        return "\n".join(strip.text.rstrip() for strip in self._entry(index, index == self._selected))

    def _entry(self, index: int, selected: bool, decided: int | None = None) -> list[Strip]:
        decided = self._decided[index] if decided is None else decided
        key = (index, selected, decided, self._disk[index])
        strips = self._entries.get(key)
        if strips is None:
            width = self._width
            prompt = _file_prompt(self._files[index], decided, width - 2, self._disk[index])
            base = self.visual_style
            strips = []
            for line in prompt.split("\n"):
                line = (Content(" ") + line).pad_right(max(width - line.cell_length - 1, 0))
                if selected:
                    line = line.stylize_before("on $primary 25%")
                strips.append(Strip(line.render_segments(base), line.cell_length).adjust_cell_length(width, base.rich_style))
            self._entries[key] = strips
        return strips

    def visible_entries(self) -> list[int]:
        """The indexes of the entries with a row on the screen now."""
        if not self._starts:
            return []
        top = self.scroll_offset.y
        rows = self._lines[top:top + self.size.height]
        return sorted({index for index, _ in rows})

    def warm_entry(self, index: int, decided: int) -> Iterator[None]:
        """Draw entry ``index`` as it will look with ``decided`` hunks decided, for the key that will show it so
        (the batch review's ``o``); a step. Nothing shown changes."""
        if not self._starts or not 0 <= index < len(self._files):
            return
        strips = self._entry(index, index == self._selected, decided)
        start, count = self.rows_of(index)
        for k, strip in enumerate(strips[:count]):
            strip.apply_offsets(0, start + k)  # (kept by the strip: render_line asks it the same)
        yield

    def _height(self, index: int) -> int:
        """How many rows entry ``index`` takes (as :func:`_file_prompt` lays it out), without drawing it."""
        change = self._files[index]
        moved = change.action == "move" and getattr(change, "new_path", None)
        return 2 + (1 if moved else 0) + (1 if self._disk[index] in DISK_LABELS else 0)

    def _layout(self) -> None:
        # Entries are drawn when they are painted: a batch's 200 pages were 95 ms drawn here at each resize
        # (a ContentSwitcher showing the list again is one).
        self._width = max(self.scrollable_content_region.width, 12)
        self._entries.clear()
        self._drawn.clear()
        self._lines, self._starts = [], []
        for index in range(len(self._files)):
            self._starts.append(len(self._lines))
            self._lines.extend((index, k) for k in range(self._height(index)))
        self.virtual_size = Size(self._width, len(self._lines))

    def on_resize(self) -> None:
        width = self.scrollable_content_region.width
        if width and (max(width, 12) != self._width or not self._starts):  # (hidden, it is 0 wide: no layout)
            self._layout()
            self.refresh()

    def set_decided(self, index: int, decided: int) -> None:
        """Show that ``decided`` hunks of file ``index`` are decided."""
        if self._decided[index] != decided:
            self._decided[index] = decided
            self._redraw(index)

    def disk_state(self, index: int) -> str:
        """What file ``index``'s entry says about the file on disk (``"same"`` when nothing)."""
        return self._disk[index]

    def set_disk_state(self, index: int, state: str) -> None:
        """Mark file ``index`` as changed on disk (``"changed"``, ``"merges"``, ``"conflict"``) or not (``"same"``)."""
        if self._disk[index] != state:
            self._disk[index] = state
            if self._width:
                self._layout()  # the entry's height may change: the rows below it move
                self.refresh()

    def select(self, index: int) -> None:
        """Highlight file ``index`` and scroll it into view."""
        if index == self._selected:
            return
        old, self._selected = self._selected, index
        self._redraw(old)
        self._redraw(index)
        if self._starts:
            start, count = self.rows_of(index)
            top = self.scroll_offset.y
            if start < top or start + count > top + self.size.height:
                # Out of sight: to the middle, so the next entries are in sight too and the list moves once for
                # half a screen of them, not at each one (each move repaints every row of the list).
                # bench/batch_review.py at 2,000 hunks, n: 10.1-14.3 ms at the bottom edge, 6.7-7.6 in the middle.
                self.scroll_to_region(Region(0, start, 1, count), animate=False, immediate=True, center=True)

    def rows_of(self, index: int) -> tuple[int, int]:
        """(first row, row count) of entry ``index`` as laid out (counted, not drawn)."""
        start = self._starts[index]
        end = self._starts[index + 1] if index + 1 < len(self._starts) else len(self._lines)
        return start, end - start

    def _redraw(self, index: int) -> None:
        # The entry is drawn again when it is next painted, if it is (its strips are kept by what they show: a
        # new count is a new entry): ``o`` in a batch review changes 200 entries, and drawing each here was ~45
        # of its 60-120 ms (bench/batch_review.py); its height stays.
        if self._starts:
            start, count = self.rows_of(index)
            top = self.scroll_offset.y
            # Off screen it is drawn when it comes: ``o`` in a batch review changes 200 entries, and refreshing
            # each was ~30 ms of its answer (bench/batch_review.py: ``o`` 49-65 -> 25-32 ms). On the screen, the
            # rows that look different: a new count changes the entry's second row, rarely its first.
            if start + count > top and start < top + self.size.height:
                strips = self._entry(index, index == self._selected)
                for k in range(count):
                    if k >= len(strips) or self._drawn.get(start + k) != strips[k]:
                        self.refresh_lines(start + k, 1)

    def render_line(self, y: int) -> Strip:
        """One row of the list (line API)."""
        row = self.scroll_offset.y + y
        if row >= len(self._lines) or not self._width:
            return Strip.blank(self.scrollable_content_region.width, self.visual_style.rich_style)
        index, k = self._lines[row]
        strips = self._entry(index, index == self._selected)
        if k >= len(strips):  # (never: _height counts the entry's lines)
            return Strip.blank(self.scrollable_content_region.width, self.visual_style.rich_style)
        self._drawn[row] = strips[k]
        return strips[k].apply_offsets(0, row)

    def on_click(self, event: events.Click) -> None:
        row = self.scroll_offset.y + event.y
        if 0 <= row < len(self._lines):
            self.post_message(self.Clicked(self._lines[row][0]))
