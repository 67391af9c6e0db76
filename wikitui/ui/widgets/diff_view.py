"""A unified diff of one file change, hunk by hunk, drawn with the line API.

The review screen shows the selected file of a changeset here. Lines are
highlighted with pygments' ``diff`` lexer (token styles mapped to the theme
variables ``$wikitui-diff-added`` / ``$wikitui-diff-removed`` when the theme has
them, else ``$success`` / ``$error``) and changed words inside a replaced line are
marked (:mod:`wikitui.ui.widgets.diff_highlight`); long prose lines wrap. Only visible rows are rendered
(:meth:`DiffView.render_line`), so a file with hundreds of hunks stays fast.

The view does not decide anything: it draws the decisions and the reasons the
screen hands it (``decisions[hunk.id]`` is ``"accepted"`` or ``"rejected"``,
absent means undecided) and a cursor on one hunk.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from textual import events
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from wikitui.core.vault.visible_text import control_chars, format_chars, visible, visible_line
from wikitui.ui.markdown.wrap import wrap_content
from wikitui.ui.widgets.diff_highlight import HunkLine, highlight_hunk
from wikitui.ui.widgets.evidence_marks import evidence_rows
from wikitui.ui.widgets.link_marks import link_mark
from wikitui.ui.widgets.review_note import review_line
from wikitui.ui.widgets.steady_scroll import SteadyScrollView

#: A hunk's decision; a hunk missing from the decisions mapping is undecided.
Decision = Literal["accepted", "rejected"]
ACCEPTED: Decision = "accepted"
REJECTED: Decision = "rejected"

#: The gutter marker of a hunk by decision (None: undecided).
MARKERS: dict[str | None, str] = {ACCEPTED: "✓", REJECTED: "✗", None: "·"}

RowKind = Literal["title", "reason", "blank", "header", "note", "evidence", " ", "+", "-", "\\"]


@dataclass(frozen=True, slots=True)
class _Row:
    """One screen row of the diff (a wrapped piece of a diff line, or a decoration)."""

    kind: RowKind
    hunk: int  # index of the hunk within the file, -1 for the file's title rows
    content: Content
    old: int | None = None  # line number in the old text (first wrapped piece only)
    new: int | None = None  # line number in the new text (first wrapped piece only)
    target: tuple[str, int] | None = None  # an evidence row: the (source, line) enter opens


_BLANK = Content("")


def _number_width(lines: list[list[HunkLine]]) -> int:
    """The widest line number of a file's highlighted hunks, in digits."""
    return max([1] + [len(str(n)) for hunk in lines for _, _, o, w in hunk for n in (o, w) if n is not None])


def _gutter_cells(number_width: int) -> int:
    """Cells of a row's gutter: cursor bar, marker, space, old no., space, new no., space, sign, space."""
    return 3 + 2 * number_width + 2 + 2


def hidden_mark(hunk: Any) -> Content | None:
    """The ⚠ line under a hunk whose lines hold invisible or control characters (None when none).

    They are drawn visibly (``⟨U+202E⟩``, ``␛``); the mark says so, since a bidi override
    or a zero-width character is how a change hides what it writes (DESIGN §8).
    """
    lines = getattr(hunk, "display_lines", None) or getattr(hunk, "lines", None) or ()
    text = "\n".join(line.rstrip("\r\n") for line in lines)
    hidden = format_chars(text) + control_chars(text)
    if not hidden:
        return None
    shown = ", ".join(hidden[:4]) + (f" and {len(hidden) - 4} more" if len(hidden) > 4 else "")
    return Content.styled(f"⚠ holds invisible or control characters (shown as ⟨U+…⟩, ␛…): {shown}",
                          "bold $text-error")


class DiffView(SteadyScrollView, can_focus=False):
    """The unified diff of one file change, with a hunk cursor and decision markers.

    The widget takes no keys itself (the review screen owns them) but scrolls with
    the mouse, and a click on a hunk posts :class:`DiffView.HunkClicked`.

    Rows: a title (action, path, +/−), the agent's reason, then per hunk its
    ``@@`` header (with the marker ✓ accepted / ✗ rejected / · undecided in the
    gutter), the user's note for the agent when there is one, and the lines with
    old and new line numbers.
    """

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
    }
    """

    cursor: reactive[int | None] = reactive(None, init=False)
    """Index of the hunk under the cursor within the shown file (None: no hunk)."""

    class HunkClicked(Message):
        """A hunk was clicked; the screen moves its cursor there."""

        def __init__(self, diff_view: "DiffView", index: int) -> None:
            super().__init__()
            self.diff_view = diff_view
            self.index = index
            """Index of the clicked hunk within the shown file."""

        @property
        def control(self) -> "DiffView":
            """The diff view that was clicked."""
            return self.diff_view

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._change: Any = None
        self._decisions: Mapping[str, str] = {}
        self._notes: Mapping[str, str] = {}
        self.link_marks: Mapping[str, list[str]] = {}  # hunk id -> unresolved links it adds (DESIGN §11)
        self._evidence: Mapping[str, Any] = {}  # hunk id -> its evidence to show (evidence_marks)
        self._evidence_serial = 0
        self._evidence_row: int | None = None  # the evidence line under the v cursor (a row index)
        self._lines: list[list[HunkLine]] = []
        self._rows: list[_Row] = []
        self._hunk_rows: list[tuple[int, int]] = []
        self._wrap_width = 0
        self._number_width = 1
        # Rendered rows by what they show (the row's content, by identity, its numbers and gutter width,
        # selected, decision, width): revisiting a file is cheap, and so is a file laid out again around
        # hunks that did not change (a batch page re-derived after a rejection). The value keeps the
        # content, so the id in the key cannot be reused while the entry lives.
        self._strips: LRUCache[tuple, tuple[Content, Strip]] = LRUCache(4096)
        # Highlighted lines by hunk (keyed by identity; the hunk is kept to check it).
        self._highlighted: dict[int, tuple[Any, list]] = {}
        # Laid-out rows of files already shown, for going back and forth.
        self._layouts: LRUCache[tuple, tuple[Any, list[_Row], list[tuple[int, int]]]] = LRUCache(32)
        self._layout_notes: tuple[str | None, ...] = ()  # the notes the rows were laid out with
        # What each row on the screen was last drawn as (its strip's key), so a decision redraws the rows whose
        # drawing it changes. bench/batch_review.py at 2,000 hunks (2026-12-03, machine loop 3.0-3.2 ms): see
        # refresh_hunk.
        # (The row's content is kept with its key: the key names it by id, which must not be reused while kept.)
        self._drawn: dict[int, tuple[tuple, Content | None]] = {}
        self._added = "success"
        self._removed = "error"

    # ------------------------------------------------------------------ public API
    @property
    def evidence_marks(self) -> Mapping[str, Any]:
        """Hunk id to the evidence shown under it (:func:`~wikitui.ui.widgets.evidence_marks.find_evidence_marks`)."""
        return self._evidence

    @evidence_marks.setter
    def evidence_marks(self, marks: Mapping[str, Any]) -> None:
        self._evidence = marks
        self._evidence_serial += 1

    @property
    def selected_evidence(self) -> tuple[str, int] | None:
        """The (source, line) of the evidence line under the ``v`` cursor, or None."""
        if self._evidence_row is None or self._evidence_row >= len(self._rows):
            return None
        return self._rows[self._evidence_row].target

    def shown_rows(self, kind: str) -> list[tuple[int, str]]:
        """(hunk index, plain text) of each row of ``kind`` (``"evidence"``, ``"note"``...) as laid out now."""
        return [(row.hunk, row.content.plain) for row in self._rows if row.kind == kind]

    def next_evidence(self) -> bool:
        """Move the evidence cursor to the current hunk's next evidence line (past the last: none);
        whether the hunk has any."""
        if self.cursor is None or not 0 <= self.cursor < len(self._hunk_rows):
            return False
        start, end = self._hunk_rows[self.cursor]
        stops = [i for i in range(start, end) if self._rows[i].target is not None]
        if not stops:
            return False
        old = self._evidence_row
        later = [i for i in stops if old is None or i > old]
        self._evidence_row = later[0] if later else None
        for row in (old, self._evidence_row):
            if row is not None:
                self.refresh_lines(row, 1)
        if self._evidence_row is not None:
            self._scroll_to_row(self._evidence_row)
        return True

    def clear_evidence(self) -> None:
        """Take the evidence cursor away."""
        if self._evidence_row is not None:
            row, self._evidence_row = self._evidence_row, None
            self.refresh_lines(row, 1)

    @property
    def change(self) -> Any:
        """The FileChange shown (None before :meth:`show`)."""
        return self._change

    @property
    def hunk_count(self) -> int:
        """Number of hunks of the shown file."""
        return len(self._lines)

    @property
    def colour_variables(self) -> tuple[str, str]:
        """The theme variables the added and removed lines are tinted with."""
        return self._added, self._removed

    def show(
        self,
        change: Any,
        decisions: Mapping[str, str],
        notes: Mapping[str, str] | None = None,
        *,
        cursor: int | None = 0,
    ) -> None:
        """Show ``change`` (a FileChange) with the hunk ``cursor`` selected.

        Args:
            change: The file change (path, action, new_path, reason, hunks).
            decisions: Hunk id to ``"accepted"`` / ``"rejected"``; read at render
                time, so the caller keeps it and calls :meth:`refresh_hunk` on change.
            notes: Hunk id to the user's reason for the agent (shown under the header).
            cursor: The selected hunk, or None.

        Another file starts at its top; the file shown, changed (a batch page re-derived after a
        rejection), keeps the view where it is and redraws the rows that look different.
        """
        same_file = self._change is not None and self._rows and getattr(self._change, "path", None) == change.path
        self._change = change
        self._decisions = decisions
        self._notes = notes if notes is not None else {}
        self._pick_colours()
        self._lines = [self._highlighted_lines(hunk) for hunk in change.hunks]
        self._number_width = _number_width(self._lines)
        hunks = len(self._lines)
        self.set_reactive(DiffView.cursor, None if cursor is None or not hunks else min(max(cursor, 0), hunks - 1))
        self._build_rows(redraw_all=not same_file)
        if not same_file:
            self.scroll_to(y=0, animate=False, immediate=True)
        self._scroll_to_cursor()

    def refresh_hunk(self, index: int) -> None:
        """Redraw hunk ``index`` after its decision or note changed."""
        if not 0 <= index < len(self._hunk_rows):
            return
        if self._layout_notes[index] != self._notes.get(self._change.hunks[index].id):
            self._build_rows()  # the note changed: rows shift
            return
        # Only the rows on the screen whose drawing changes: an acceptance changes the header row alone (an
        # accepted line is drawn as an undecided one), so `o` and `A` redraw a row a hunk, not all of them.
        # Rows off the screen are drawn as they scroll in. bench/batch_review.py: see _drawn in __init__.
        start, end = self._hunk_rows[index]
        top = self.scroll_offset.y
        height = self.scrollable_content_region.height or self.size.height
        self._refresh_changed(max(start, top), min(end, top + height))

    def hunk_region(self, index: int) -> tuple[int, int]:
        """First row and end row (exclusive) of hunk ``index`` in the view's lines."""
        return self._hunk_rows[index]

    # ------------------------------------------------------------------ reactives
    def watch_cursor(self, old: int | None, new: int | None) -> None:
        self._evidence_row = None  # the evidence cursor stays with its hunk
        for index in (old, new):
            if index is not None and 0 <= index < len(self._hunk_rows):
                start, end = self._hunk_rows[index]
                self.refresh_lines(start, end - start)
        self._scroll_to_cursor()

    # ------------------------------------------------------------------ building rows
    def _pick_colours(self) -> bool:
        """Use the theme's diff variables, else ``$success`` / ``$error``; True when that changed."""
        variables = self.app.theme_variables if self.is_attached else {}
        added = "wikitui-diff-added" if "wikitui-diff-added" in variables else "success"
        removed = "wikitui-diff-removed" if "wikitui-diff-removed" in variables else "error"
        if (added, removed) == (self._added, self._removed):
            return False
        self._added, self._removed = added, removed
        self._highlighted.clear()  # the styles name the variables
        self._layouts.clear()
        return True

    def _highlighted_lines(self, hunk: Any) -> list[HunkLine]:
        entry = self._highlighted.get(id(hunk))
        if entry is None or entry[0] is not hunk:
            entry = self._highlighted[id(hunk)] = (hunk, highlight_hunk(hunk, self._added, self._removed))
        return entry[1]

    async def prewarm(self, changes: Iterable[Any]) -> None:
        """Highlight the hunks of ``changes`` ahead of time, one hunk per event-loop turn.

        Run it as a worker after mounting: moving to another file then only lays
        rows out, and a key press waits for at most one hunk's highlighting.
        """
        import asyncio

        self._pick_colours()
        for change in changes:
            for hunk in change.hunks:
                self._highlighted_lines(hunk)
                await asyncio.sleep(0)

    def gutter_width(self) -> int:
        """The cells before a row's text in the shown file (bar, marker, line numbers, sign)."""
        return _gutter_cells(self._number_width)

    def warm(self, change: Any, *, cursor: int = 0, decisions: Mapping[str, str] | None = None) -> Iterator[None]:
        """Lay ``change`` out and render the rows its first screen will show, a row per step.

        A generator: run it a step at a time in idle moments (the batch review warms the
        page ``n`` goes to next, and the page as ``r`` will re-derive it), and :meth:`show` of
        ``change`` with hunk ``cursor`` selected then finds its rows highlighted, laid out and
        painted, scrolled as :meth:`show` scrolls them. ``decisions``: the decisions it will be
        shown with (default: the ones shown now). Nothing shown changes. The file's notes, link
        marks and evidence are taken to be none (as the batch review has them).
        """
        self._pick_colours()
        lines = []
        for hunk in change.hunks:
            entry = self._highlighted.get(id(hunk))
            lines.append(self._highlighted_lines(hunk))
            if entry is None or entry[0] is not hunk:
                yield  # a hunk highlighted now (Pygments): a step of its own
        width = max(self.scrollable_content_region.width, 20)
        number_width = _number_width(lines)
        rows, hunk_rows = self._laid_out(change, lines, number_width, width, {})
        yield
        decided = self._decisions if decisions is None else decisions
        height = self.scrollable_content_region.height or self.size.height
        # Where show() scrolls: the top, then to the cursor's hunk.
        top = self._top_for(hunk_rows[cursor], 0, len(rows)) if 0 <= cursor < len(hunk_rows) else 0
        for row in rows[top:top + height]:
            decision = decided.get(change.hunks[row.hunk].id) if row.hunk >= 0 else None
            self._strip(row, row.hunk == cursor and row.hunk >= 0, decision, False, width, number_width)
            yield

    def visible_hunks(self) -> list[int]:
        """The indexes of the shown file's hunks with a row on the screen now."""
        top = self.scroll_offset.y
        bottom = top + (self.scrollable_content_region.height or self.size.height)
        return [i for i, (start, end) in enumerate(self._hunk_rows) if start < bottom and end > top]

    def warm_hunk(self, index: int, *, selected: bool, decision: str | None) -> Iterator[None]:
        """Render the rows of the shown file's hunk ``index`` as they look ``selected`` (or not) with
        ``decision``, a row per step, for the key that will show them so (the review warms the next
        hunk under the cursor, and the current one accepted). Nothing shown changes."""
        if self._change is None or not 0 <= index < len(self._hunk_rows):
            return
        width = max(self.scrollable_content_region.width, 20)
        if width != self._wrap_width:
            return  # laid out for another width: a resize lays the rows out again first
        start, end = self._hunk_rows[index]
        rows = self._rows
        for row in rows[start:end]:
            self._strip(row, selected, decision, False, width, self._number_width)
            yield

    def _build_rows(self, *, redraw_all: bool = True) -> None:
        """Lay the shown file out in rows for the current width (wrapping long lines).

        ``redraw_all=False``: the view stays where it is, so only the rows on the screen that
        look different are drawn again (the others are what they were).
        """
        width = max(self.scrollable_content_region.width, 20)
        self._wrap_width = width
        self._evidence_row = None
        self._rows, self._hunk_rows = self._laid_out(
            self._change, self._lines, self._number_width, width, self._notes)
        self._layout_notes = tuple(self._notes.get(h.id) for h in self._change.hunks)
        self.virtual_size = Size(width, len(self._rows))
        if redraw_all:
            self._drawn.clear()
            self.refresh()
            return
        top = self.scroll_offset.y
        height = self.scrollable_content_region.height or self.size.height
        self._refresh_changed(top, top + height)

    def _refresh_changed(self, start: int, end: int) -> None:
        """Redraw the rows from ``start`` to ``end`` (on the screen) whose drawing changed since they were drawn."""
        run: int | None = None
        for row_index in range(start, end + 1):
            stale = row_index < end and self._drawn.get(row_index, ((), None))[0] != self._row_key(row_index)
            if stale and run is None:
                run = row_index
            elif not stale and run is not None:
                self.refresh_lines(run, row_index - run)
                run = None

    def _laid_out(self, change: Any, lines: list[list[HunkLine]], number_width: int, width: int,
                  notes: Mapping[str, str]) -> tuple[list[_Row], list[tuple[int, int]]]:
        """``change``'s rows at ``width`` and the rows of each hunk (cached)."""
        layout_notes = tuple(notes.get(h.id) for h in change.hunks)
        key = (id(change), width, layout_notes, tuple(str(self.link_marks.get(h.id)) for h in change.hunks),
               self._evidence_serial)
        cached = self._layouts.get(key)
        if cached is not None and cached[0] is change:
            return cached[1], cached[2]
        text_width = max(width - _gutter_cells(number_width), 10)
        rows: list[_Row] = []
        rows.extend(self._title_rows(change, width))
        hunk_rows: list[tuple[int, int]] = []
        for index, (hunk, hunk_lines) in enumerate(zip(change.hunks, lines)):
            rows.append(_Row("blank", -1, _BLANK))
            start = len(rows)
            rows.append(_Row("header", index, hunk_lines[0][1]))
            review = getattr(hunk, "review", None)
            if isinstance(review, dict) and review.get("verdict"):
                rows.extend(_Row("note", index, piece) for piece in review_line(review).wrap(text_width))
            flag = hidden_mark(hunk)
            if flag is not None:
                rows.extend(_Row("note", index, piece) for piece in flag.wrap(text_width))
            note = notes.get(hunk.id)
            if note:
                for piece in Content.styled(f"✎ {visible_line(note)}", "italic $text-warning").wrap(text_width):
                    rows.append(_Row("note", index, piece))
            if hunk.id in self.link_marks:
                for piece in link_mark(self.link_marks[hunk.id]).wrap(text_width):
                    rows.append(_Row("note", index, piece))
            if hunk.id in self._evidence:
                for content, target in evidence_rows(self._evidence[hunk.id], text_width):
                    pieces = content.wrap(text_width) if target is None else [content]
                    rows.extend(_Row("evidence", index, piece, target=target) for piece in pieces)
            for kind, content, old, new in hunk_lines[1:]:
                pieces = wrap_content(content, text_width) if content.cell_length > text_width else [content]
                for n, piece in enumerate(pieces):
                    # (kind: "header", " ", "+", "-" or "\\", as highlight_hunk makes them)
                    rows.append(_Row(cast(RowKind, kind), index, piece, old if n == 0 else None,
                                     new if n == 0 else None))
            hunk_rows.append((start, len(rows)))
        if not change.hunks:
            rows.append(_Row("blank", -1, _BLANK))
            rows.append(_Row("reason", -1, Content.styled("(no content change)", "$text-muted italic")))
        self._layouts[key] = (change, rows, hunk_rows)
        return rows, hunk_rows

    def _title_rows(self, change: Any, width: int) -> list[_Row]:
        added = sum(h.added for h in change.hunks)
        removed = sum(h.removed for h in change.hunks)
        path = change.path if not getattr(change, "new_path", None) else f"{change.path} → {change.new_path}"
        path = visible_line(path)
        title = Content.assemble(
            (f"{change.action} ", "bold $text-accent"),
            (path, "bold"),
            "  ",
            *(["binary"] if getattr(change, "binary", False) else [
                (f"+{added}", f"${self._added}"), " ", (f"−{removed}", f"${self._removed}")]),
        )
        rows = [_Row("title", -1, piece) for piece in title.wrap(width - 2)]
        reason = visible((getattr(change, "reason", "") or "").strip())
        if reason:
            for piece in Content.styled(reason, "italic $text-muted").wrap(width - 3):
                rows.append(_Row("reason", -1, Content(" ") + piece))
        return rows

    # ------------------------------------------------------------------ rendering
    def notify_style_update(self) -> None:
        """The theme changed: re-pick the colours and redraw everything."""
        super().notify_style_update()
        self._strips.clear()
        self._drawn.clear()
        if self._change is not None and self.is_attached and self._pick_colours():
            self._lines = [self._highlighted_lines(hunk) for hunk in self._change.hunks]
            self._build_rows()

    def on_resize(self, event: events.Resize) -> None:
        if self._change is not None and self.scrollable_content_region.width != self._wrap_width:
            self._build_rows()
            self._scroll_to_cursor()

    def render_line(self, y: int) -> Strip:
        """Render row ``y`` of the visible region (line API)."""
        scroll_y = self.scroll_offset.y
        width = self.scrollable_content_region.width
        row_index = scroll_y + y
        if row_index >= len(self._rows):
            self._drawn[row_index] = (("blank", width), None)
            return Strip.blank(width, self.visual_style.rich_style)
        row = self._rows[row_index]
        decision = None
        if row.hunk >= 0:
            decision = self._decisions.get(self._change.hunks[row.hunk].id)
        selected = row.hunk == self.cursor and row.hunk >= 0
        pointed = row_index == self._evidence_row
        key = self._key(row, selected, decision, pointed, width, self._number_width)
        self._drawn[row_index] = (key, row.content)
        return self._strip(row, selected, decision, pointed, width, self._number_width).apply_offsets(0, row_index)

    def _row_key(self, row_index: int) -> tuple:
        """The key of the strip row ``row_index`` would be drawn with now (as :meth:`render_line` draws it)."""
        if row_index >= len(self._rows):
            return ("blank", self.scrollable_content_region.width)
        row = self._rows[row_index]
        decision = self._decisions.get(self._change.hunks[row.hunk].id) if row.hunk >= 0 else None
        return self._key(row, row.hunk == self.cursor and row.hunk >= 0, decision, row_index == self._evidence_row,
                         self.scrollable_content_region.width, self._number_width)

    @staticmethod
    def _key(row: _Row, selected: bool, decision: str | None, pointed: bool, width: int, number_width: int) -> tuple:
        """What a row's drawing depends on. A decision shows on the hunk's header row; of the other rows, only a
        rejected hunk's lines look different (faded), so an accepted line shares the undecided line's strip."""
        if row.kind != "header":
            decision = REJECTED if decision == REJECTED and row.kind not in ("note", "evidence") else None
        return (id(row.content), row.kind, row.hunk < 0, row.old, row.new, number_width, selected, decision,
                pointed, width)

    def _strip(self, row: _Row, selected: bool, decision: str | None, pointed: bool, width: int,
               number_width: int) -> Strip:
        """``row`` rendered, from the cache when a row showing the same is there."""
        key = self._key(row, selected, decision, pointed, width, number_width)
        cached = self._strips.get(key)
        if cached is not None:
            return cached[1]
        strip = self._render_row(row, selected, key[7], width, pointed, number_width)
        self._strips[key] = (row.content, strip)
        return strip

    def _render_row(self, row: _Row, selected: bool, decision: str | None, width: int,
                    pointed: bool, number_width: int) -> Strip:
        if row.hunk < 0:  # the file's title and reason run the full width
            line = Content(" ") + row.content
            return Strip(line.render_segments(self.visual_style), line.cell_length).adjust_cell_length(
                width, self.visual_style.rich_style
            )
        gutter = self._gutter(row, selected, decision, number_width)
        line = gutter + row.content
        text_end = line.cell_length
        if row.kind in ("+", "-", "header") or selected:
            line = line.pad_right(max(width - line.cell_length, 0))
        if row.kind in ("+", "-"):
            # The text's background comes from the lexer's token style; the sign and
            # the rest of the row take the same tint so the band runs the full width.
            tint = f"on ${self._added if row.kind == '+' else self._removed} 12%"
            line = line.stylize_before(tint, gutter.cell_length - 2, gutter.cell_length)
            line = line.stylize_before(tint, text_end)
        elif row.kind == "header":
            line = line.stylize_before("on $foreground 6%", 3)
            if decision is not None:
                label = "accepted" if decision == ACCEPTED else "rejected"
                colour = self._added if decision == ACCEPTED else self._removed
                tag = Content.styled(f" {label} ", f"bold ${colour}")
                if line.cell_length > width:
                    line = line.truncate(width)
                line = line[: max(width - tag.cell_length, 0)] + tag
        if pointed:  # the evidence line enter opens
            line = line.pad_right(max(width - line.cell_length, 0)).stylize_before("reverse", gutter.cell_length)
        if decision == REJECTED and row.kind not in ("header", "note", "evidence"):
            # A rejected hunk fades: it will not be written.
            line = line.stylize("$foreground 40%", gutter.cell_length - 2)
        if selected:
            line = line.stylize_before("on $primary 10%", 1)
        segments = line.render_segments(self.visual_style)
        return Strip(segments, line.cell_length).adjust_cell_length(width, self.visual_style.rich_style)

    def _gutter(self, row: _Row, selected: bool, decision: str | None, width: int) -> Content:
        """Cursor bar, marker, space, old no., space, new no., space, sign, space (numbers ``width`` wide)."""
        bar = Content.styled("▌", "$accent") if selected else Content(" ")
        if row.kind == "header":
            colours: dict[str | None, str] = {ACCEPTED: f"bold ${self._added}", REJECTED: f"bold ${self._removed}"}
            colour = colours.get(decision, "$text-muted")
            marker = Content.styled(MARKERS[decision], colour)
        else:
            marker = Content(" ")
        if row.kind in (" ", "+", "-", "\\"):
            old = "" if row.old is None else str(row.old)
            new = "" if row.new is None else str(row.new)
            numbers = Content.styled(f"{old:>{width}} {new:>{width}} ", "$text-muted")
            sign_style = {"+": f"bold ${self._added}", "-": f"bold ${self._removed}"}.get(row.kind, "")
            sign = Content.styled(f"{row.kind if row.kind in '+-' else ' '} ", sign_style)
            if row.old is None and row.new is None and row.kind != "\\":
                sign = Content("  ")  # a wrapped continuation
            return Content.assemble(bar, marker, " ", numbers, sign)
        return Content.assemble(bar, marker, " ", " " * (2 * width + 1), "   ")

    # ------------------------------------------------------------------ scrolling and mouse
    def _scroll_to_cursor(self) -> None:
        """Bring the cursor hunk into view when it is not wholly visible.

        The hunk then goes to the top (its blank separator line above it), so the
        next hunks follow below it and moving on rarely has to scroll (and redraw
        the whole view) again.
        """
        if self.cursor is None or not self._hunk_rows or not self.is_attached:
            return
        top = self.scroll_offset.y
        new_top = self._top_for(self._hunk_rows[self.cursor], top, len(self._rows))
        if new_top != top:
            self.scroll_to(y=new_top, animate=False, immediate=True)

    def _top_for(self, hunk_rows: tuple[int, int], top: int, rows: int) -> int:
        """The view's top once a hunk (its rows ``start``, ``end``) is brought into view from ``top``.

        The same when the hunk is wholly visible, or when the view cannot scroll yet (Textual
        scrolls only once the scrollbar shows); else its blank separator goes to the top, as far
        as ``rows`` allow.
        """
        start, end = hunk_rows
        height = self.scrollable_content_region.height or self.size.height
        if (start >= top and end <= top + height) or not self.allow_vertical_scroll:
            return top
        return min(max(start - 1, 0), max(rows - height, 0))

    def _scroll_to_row(self, row: int) -> None:
        """Bring one row into view (the evidence cursor's)."""
        height = self.scrollable_content_region.height or self.size.height
        top = self.scroll_offset.y
        if not top <= row < top + height:
            self.scroll_to(y=max(row - height // 2, 0), animate=False, immediate=True)

    def on_click(self, event: events.Click) -> None:
        row_index = self.scroll_offset.y + event.y
        if 0 <= row_index < len(self._rows) and self._rows[row_index].hunk >= 0:
            self.post_message(self.HunkClicked(self, self._rows[row_index].hunk))
