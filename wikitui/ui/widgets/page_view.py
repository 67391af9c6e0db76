"""The page pane: a markdown page painted line by line, with a keyboard link cursor.

Textual's ``Markdown`` widget mounts one widget per block (seconds for a long page)
and cannot focus links (Textual issue #3554). ``PageView`` uses the line API instead:
the page is parsed by chunks into a :class:`~wikitui.ui.markdown_lines.PageDocument`,
only the lines in view are painted (and cached), and the rest of a long page is laid
out between key presses.
"""

from __future__ import annotations

import asyncio
from time import perf_counter
from typing import Callable

from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from wikitui.core.vault.links import Link
from wikitui.core.vault.page import PageInfo
from wikitui.ui.markdown_lines import PageDocument
from wikitui.ui.widgets.page_styles import COMPONENT_ROLES, PAGE_VIEW_CSS, LinkStates, RoleStyles

#: Seconds of layout work per slice while the rest of a long page is laid out.
_SLICE = 0.006
#: Seconds between updates of the scrollable size while laying out in the background.
_SYNC_EVERY = 0.25
#: Lines a huge page is laid out ahead of the top of the view.
_LOOKAHEAD = 1000


class PageView(LinkStates, ScrollView, can_focus=True):
    """A rendered markdown page (or a highlighted raw file) with a link cursor.

    The tab stops are exactly the page's outgoing links in reading order
    (:attr:`links`, the list the core's parser gives the Outgoing panel). The cursor
    starts on no link; the first ``tab`` takes the first link at or below the top of
    the view, ``shift+tab`` the last one above its bottom; both wrap around.
    """

    BINDINGS: list[BindingType] = [
        Binding("tab", "next_link", "Next link", show=False),
        Binding("shift+tab", "previous_link", "Previous link", show=False),
        Binding("enter", "follow", "Follow link"),
        Binding("up,k", "scroll_up", "Scroll up", show=False),
        Binding("down,j", "scroll_down", "Scroll down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "Bottom", show=False),
        Binding("e", "screen.edit_page", "Edit in $EDITOR", show=False, id="edit-page"),
    ]
    """
    | Key(s) | Description |
    | :- | :- |
    | tab | Select the next link. |
    | shift+tab | Select the previous link. |
    | enter | Follow the selected link. |
    | up, k / down, j | Scroll one line. |
    | pageup / pagedown, space | Scroll one page. |
    | home / end | Go to the top / the bottom of the page. |
    | e | Edit the page in ``$VISUAL``/``$EDITOR`` (the screen's ``edit_page``). |
    """

    COMPONENT_CLASSES = {f"page-view--{role}" for role in COMPONENT_ROLES}
    """One class per role of the rendered lines (links, headings, code tokens, ...)."""

    DEFAULT_CSS = PAGE_VIEW_CSS

    selected_link: reactive[int | None] = reactive(None, init=False)
    """Index in :attr:`links` of the link under the cursor, or None."""

    class LinkActivated(Message):
        """The user followed a link (``enter`` on the selected link, or a click).

        Attributes:
            link_index: Index of the link in :attr:`PageView.links`.
            link: The link.
        """

        def __init__(self, page_view: PageView, link_index: int, link: Link) -> None:
            super().__init__()
            self.page_view = page_view
            self.link_index = link_index
            self.link = link

        @property
        def control(self) -> PageView:
            """The page view the link is on."""
            return self.page_view

    class LinkHighlighted(Message):
        """The link cursor moved (``link`` is None when no link is selected).

        Attributes:
            link_index: Index of the selected link, or None.
            link: The selected link, or None.
        """

        def __init__(self, page_view: PageView, link_index: int | None, link: Link | None) -> None:
            super().__init__()
            self.page_view = page_view
            self.link_index = link_index
            self.link = link

        @property
        def control(self) -> PageView:
            """The page view the cursor is on."""
            return self.page_view

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.links: list[Link] = []
        """The tab stops: the page's links in reading order."""
        self._doc = PageDocument.message("", "")
        self._resolve: Callable[[Link], str | None] | None = None
        self._targets: dict[int, str | None] = {}
        self._strips: LRUCache[int, Strip] = LRUCache(1024)
        self._styles = RoleStyles(self, "page-view--")
        self._pending: tuple[float, str | None] | None = None
        self._stick_to_end = False
        self._layout_running = False

    # ------------------------------------------------------------------ public API
    @property
    def document(self) -> PageDocument:
        """The page being shown, as laid out so far."""
        return self._doc

    def show(
        self,
        text: str,
        *,
        path: str | None,
        info: PageInfo | None = None,
        resolve: Callable[[Link], str | None] | None = None,
        scroll_y: float = 0,
        anchor: str | None = None,
        read_only_source: str | None = None,
        valid_utf8: bool | None = None,
    ) -> None:
        """Show a page (or, with ``read_only_source``, a raw file as highlighted source).

        Args:
            text: The file's text.
            path: Its vault-relative path (None for text that is not a file).
            info: Its parsed metadata for the header (parsed from ``text`` when None).
            resolve: Returns a link's target path, or None when it is unresolved.
            scroll_y: Line to scroll to (a position remembered in history).
            anchor: A heading or ``^block`` to scroll to instead.
            read_only_source: A pygments lexer name: show ``text`` as source. Links are
                still tab stops in markdown files.
            valid_utf8: Whether the bytes decoded cleanly (None: guess from ``�``).
        """
        doc = PageDocument(text, path=path, info=info, source_lexer=read_only_source, valid_utf8=valid_utf8)
        self._set_document(doc, resolve, (scroll_y, anchor))

    def show_message(self, title: str, body: str) -> None:
        """Show an empty or error state instead of a page ("Page deleted", "Binary file")."""
        self._set_document(PageDocument.message(title, body), None, (0, None))

    def select_link(self, index: int | None) -> None:
        """Put the link cursor on link ``index`` (None: no link) and bring it into view."""
        if index is not None:
            if not 0 <= index < len(self.links):
                raise IndexError(f"no link {index} on this page ({len(self.links)} links)")
            self._doc.ensure_link(index)
            self._sync_size()
        if index == self.selected_link and index is not None:
            self._scroll_to_link(index)
        self.selected_link = index

    def link_target(self, index: int) -> str | None:
        """Where link ``index`` leads: its resolved path, its URL, or None when unresolved."""
        if index not in self._targets:
            link = self.links[index]
            if link.kind == "url":
                self._targets[index] = link.target
            else:
                self._targets[index] = self._resolve(link) if self._resolve else link.target
        return self._targets[index]

    def scroll_to_line(self, source_line: int) -> bool:
        """Scroll so the block holding file line ``source_line`` is at the top; whether it exists."""
        y = self._doc.line_for_source(source_line)
        if y is None:
            return False
        self._sync_size()
        self._stick_to_end = False
        self.scroll_to(y=y, animate=False, immediate=True)
        return True

    def scroll_to_anchor(self, anchor: str) -> bool:
        """Scroll to a heading (case-insensitive, Obsidian-style) or a ``^block``; whether found."""
        y = self._doc.find_anchor(anchor)
        if y is None:
            return False
        self._sync_size()
        self._stick_to_end = False
        self.scroll_to(y=y, animate=False, immediate=True)
        return True

    # ------------------------------------------------------------------ layout
    @property
    def _width(self) -> int:
        return self.scrollable_content_region.width

    @property
    def _height(self) -> int:
        return self.scrollable_content_region.height

    def _set_document(
        self, doc: PageDocument, resolve: Callable[[Link], str | None] | None, pending: tuple[float, str | None]
    ) -> None:
        old = self.selected_link
        self._doc = doc
        self.links = doc.links
        self._resolve = resolve
        self._targets = {}
        self._strips.clear()
        self._stick_to_end = False
        self._layout_running = False
        self.set_reactive(PageView.selected_link, None)
        if old is not None:
            self.post_message(self.LinkHighlighted(self, None, None))
        self._pending = pending
        if self._width > 0:
            self._lay_out()
        self.refresh()

    def _lay_out(self) -> None:
        """Lay out the first screen (and a remembered position or anchor) now, the rest later."""
        doc = self._doc
        doc.set_width(self._width)
        self._strips.clear()
        scroll_y, anchor = self._pending or (0, None)
        self._pending = None
        y = int(scroll_y)
        if anchor:
            found = doc.find_anchor(anchor)
            y = found if found is not None else 0
        doc.ensure_lines(y + self._height + 1)
        self._sync_size()
        self.scroll_to(y=y, animate=False, immediate=True)
        if not doc.complete:
            # Only once the first screen is painted: layout slices must not delay it.
            self.call_after_refresh(self._start_background_layout, doc)

    def _wants_layout(self, doc: PageDocument) -> bool:
        """Whether to keep laying out: always for ordinary pages; near the view for huge ones.

        A huge page laid out whole holds millions of objects, and Python's garbage
        collector then pauses for a noticeable time; so it is laid out a few thousand
        lines ahead of the reader (and whole only when asked: ``end``, wrapping links).
        """
        if doc is not self._doc or doc.complete:
            return False
        return not doc.huge or self._stick_to_end or len(doc.lines) < self.scroll_offset.y + _LOOKAHEAD

    def _start_background_layout(self, doc: PageDocument) -> None:
        if not self._layout_running and self._wants_layout(doc):
            self._layout_running = True
            self.run_worker(self._lay_out_rest(doc), exclusive=True, group="page-view-layout")

    async def _lay_out_rest(self, doc: PageDocument) -> None:
        """Lay out the rest of the page in short slices, so keys are handled in between."""
        synced = perf_counter()
        try:
            while self._wants_layout(doc):
                end = perf_counter() + _SLICE
                while perf_counter() < end and doc.step():
                    pass
                # A new virtual size makes Textual lay the screen out again: not every slice.
                if perf_counter() - synced > _SYNC_EVERY or self._stick_to_end or doc.complete:
                    self._sync_size()
                    synced = perf_counter()
                if self._stick_to_end:
                    self.scroll_end(animate=False, immediate=True)
                await asyncio.sleep(0)
            self._sync_size()
        finally:
            if doc is self._doc:
                self._layout_running = False

    def watch_scroll_y(self, old: float, new: float) -> None:
        """Scrolling through a huge page lays out more of it ahead of the view."""
        super().watch_scroll_y(old, new)
        if new > old and not self._doc.complete:
            self._start_background_layout(self._doc)

    def _sync_size(self) -> None:
        lines = len(self._doc.lines)
        if self.virtual_size.height != lines:
            grew_into_view = self.virtual_size.height < self.scroll_offset.y + self._height
            self.virtual_size = Size(self._width, lines)
            if grew_into_view:
                self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        """Re-wrap for the new width, keeping the block at the top of the view in place."""
        width = self._width
        if width <= 0:
            return
        if self._pending is not None:
            self._lay_out()
            return
        doc = self._doc
        if doc.width == width:  # only the height changed: fill a taller view
            doc.ensure_lines(self.scroll_offset.y + self._height + 1)
            self._sync_size()
            return
        top = self.scroll_offset.y
        source_line = doc.line_sources[top] if top < len(doc.line_sources) else 0
        self._pending = (0, None)
        self._lay_out()
        if source_line:
            self.scroll_to_line(source_line)
        self._strips.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        """The theme or the focus changed: drop cached styles and painted lines."""
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    # ------------------------------------------------------------------ painting
    def render_line(self, y: int) -> Strip:
        """Paint line ``y`` of the view (lines are cached until the page or theme changes)."""
        index = self.scroll_offset.y + y
        width = self._width
        strip = self._strips.get(index)
        if strip is None or strip.cell_length != width:
            strip = self._paint(index, width)
            if index < len(self._doc.lines):  # lines still to be laid out are not cached blank
                self._strips[index] = strip
        return strip

    def _paint(self, index: int, width: int) -> Strip:
        if index >= len(self._doc.lines):
            return Strip.blank(width, self.rich_style)
        return self._styles.paint(self._doc.lines[index], width, self.rich_style, self._link_state)

    def _refresh_link(self, index: int | None) -> None:
        doc = self._doc
        if index is None or index >= len(doc.link_first) or doc.link_first[index] < 0:
            return
        first, last = doc.link_first[index], doc.link_last[index]
        for y in range(first, last + 1):
            self._strips.discard(y)
        self.refresh_lines(first, last - first + 1)

    # ------------------------------------------------------------------ link cursor
    def watch_selected_link(self, old: int | None, new: int | None) -> None:
        """Repaint the old and new link, bring the new one into view, tell the workspace."""
        self._refresh_link(old)
        self._refresh_link(new)
        if new is not None:
            self._scroll_to_link(new)
        self.post_message(self.LinkHighlighted(self, new, self.links[new] if new is not None else None))

    def _scroll_to_link(self, index: int) -> None:
        doc = self._doc
        first, last = doc.link_first[index], doc.link_last[index]
        if first < 0:
            return
        top, height = self.scroll_offset.y, max(1, self._height)
        margin = min(2, height // 4)
        self._stick_to_end = False
        if first < top:
            self.scroll_to(y=max(0, first - margin), animate=False, immediate=True)
        elif last >= top + height:
            self.scroll_to(y=min(first, last - height + 1 + margin), animate=False, immediate=True)

    def _link_in_view(self, index: int) -> bool:
        first = self._doc.link_first[index]
        top = self.scroll_offset.y
        return first >= 0 and top <= first < top + self._height

    def action_next_link(self) -> None:
        """Select the next link (the first at or below the top of the view when none is)."""
        if not self.links:
            return
        current = self.selected_link
        if current is not None and self._link_in_view(current):
            self.select_link((current + 1) % len(self.links))
            return
        doc = self._doc
        top = self.scroll_offset.y
        for index in range(len(self.links)):
            if doc.ensure_link(index) and doc.link_first[index] >= top:
                self.select_link(index)
                return
        self.select_link(0)

    def action_previous_link(self) -> None:
        """Select the previous link (the last above the bottom of the view when none is)."""
        if not self.links:
            return
        current = self.selected_link
        if current is not None and self._link_in_view(current):
            self.select_link((current - 1) % len(self.links))
            return
        doc = self._doc
        bottom = self.scroll_offset.y + self._height
        doc.ensure_lines(bottom)
        found = None
        for index, first in enumerate(doc.link_first):
            if 0 <= first < bottom:
                found = index
            elif first >= bottom:
                break
        if found is None:
            doc.ensure_all()
            found = len(self.links) - 1
        self.select_link(found)

    def action_follow(self) -> None:
        """Follow the selected link."""
        index = self.selected_link
        if index is not None:
            self.post_message(self.LinkActivated(self, index, self.links[index]))

    def on_click(self, event: events.Click) -> None:
        """A click on a link selects and follows it."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        y = self.scroll_offset.y + offset.y
        if y >= len(self._doc.lines):
            return
        index = self._doc.lines[y].link_at(self.scroll_offset.x + offset.x)
        if index is not None:
            event.stop()
            self.select_link(index)
            self.post_message(self.LinkActivated(self, index, self.links[index]))

    # ------------------------------------------------------------------ scrolling
    def action_scroll_end(self) -> None:
        """Go to the bottom; on a page still being laid out, stay there as it grows."""
        self._stick_to_end = not self._doc.complete
        self.scroll_end(animate=False, immediate=True)
        self._start_background_layout(self._doc)

    def action_scroll_home(self) -> None:
        """Go to the top of the page."""
        self._stick_to_end = False
        self.scroll_home(animate=False, immediate=True)

    def action_scroll_up(self) -> None:
        """Scroll up one line."""
        self._stick_to_end = False
        self.scroll_relative(y=-1, animate=False, immediate=True)

    def action_scroll_down(self) -> None:
        """Scroll down one line."""
        self.scroll_relative(y=1, animate=False, immediate=True)

    def action_page_up(self) -> None:
        """Scroll up one page."""
        self._stick_to_end = False
        self.scroll_relative(y=-max(1, self._height - 1), animate=False, immediate=True)

    def action_page_down(self) -> None:
        """Scroll down one page."""
        self._doc.ensure_lines(self.scroll_offset.y + 2 * self._height + 1)
        self._sync_size()
        self.scroll_relative(y=max(1, self._height - 1), animate=False, immediate=True)
