"""The page pane: a markdown page painted line by line, with a keyboard link cursor.

Textual's ``Markdown`` widget mounts one widget per block (seconds for a long page)
and cannot focus links (Textual issue #3554). ``PageView`` uses the line API instead:
the page is parsed by chunks into a :class:`~wikitui.ui.markdown.document.PageDocument`,
only the lines in view are painted (and cached), and the rest of a long page is laid
out between key presses. The link cursor is a
:class:`~wikitui.ui.markdown.link_cursor.LinkCursor`, as in the chat's answers.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from wikitui.core.vault.links import Link
from wikitui.core.vault.page import PageInfo
from wikitui.ui.markdown.blocks import FoldBlock
from wikitui.ui.markdown.document import PageDocument
from wikitui.ui.markdown.link_cursor import LinkCursor, Resolver
from wikitui.ui.markdown.paint import ROLES, LinePainter
from wikitui.ui.markdown.pictures import release_pictures
from wikitui.ui.markdown.sixel_pictures import SixelImages, paint_row
from wikitui.ui.widgets.background_layout import BackgroundLayout
from wikitui.ui.widgets.page_scrolling import PageScrolling
from wikitui.ui.widgets.page_styles import PAGE_VIEW_CSS
from wikitui.ui.widgets.slide_mode import SlideMode, slide_or_scroll


class LinkMessage(Message):
    """The base of the page view's link messages (a link followed, the link cursor moved).

    Attributes:
        link_index: Index of the link in :attr:`PageView.links` (None: no link).
        link: The link (None: no link).
    """

    def __init__(self, page_view: PageView, link_index: int | None, link: Link | None) -> None:
        super().__init__()
        self.page_view = page_view
        self.link_index = link_index
        self.link = link

    @property
    def control(self) -> PageView:
        """The page view the link is on."""
        return self.page_view


class PageView(PageScrolling, SixelImages, ScrollView, can_focus=True):
    """A rendered markdown page (or a highlighted raw file) with a link cursor.

    The tab stops are exactly the page's outgoing links in reading order
    (:attr:`links`, the list the core's parser gives the Outgoing panel). The cursor
    starts on no link; the first ``tab`` takes the first link at or below the top of
    the view, ``shift+tab`` the last one above its bottom; both wrap around.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
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
        Binding("h", "screen.history", "History", show=False, id="history"),
        Binding("left", "slide(-1)", "Previous slide (a deck)", show=False),
        Binding("right", "slide(1)", "Next slide (a deck)", show=False),
    ]
    """
    | Key(s) | Description |
    | :- | :- |
    | tab | Select the next link (or foldable callout). |
    | shift+tab | Select the previous link (or foldable callout). |
    | enter | Follow the selected link; on a foldable callout, open or fold it. |
    | up, k / down, j | Scroll one line. |
    | pageup / pagedown, space | Scroll one page. |
    | home / end | Go to the top / the bottom of the page. |
    | e | Edit the page in ``$VISUAL``/``$EDITOR`` (the screen's ``edit_page``). |
    | h | The page's history: versions, compare two, restore one (the screen's ``history``). |
    | left / right | On a slide deck: the previous / next slide (else scroll sideways). |
    """

    COMPONENT_CLASSES = {f"page-view--{role}" for role in ROLES}
    """One class per role of the rendered lines (links, headings, code tokens, ...)."""

    DEFAULT_CSS = PAGE_VIEW_CSS

    selected_link: reactive[int | None] = reactive(None, init=False)
    """Index in :attr:`links` of the link under the cursor, or None."""

    class LinkActivated(LinkMessage):
        """The user followed a link (``enter`` on the selected link, or a click).

        Attributes:
            link_index: Index of the link in :attr:`PageView.links`.
            link: The link.
        """

    class LinkHighlighted(LinkMessage):
        """The link cursor moved (``link_index`` and ``link`` are None when no link is selected)."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.link_cursor = LinkCursor()
        """The page's links, where each leads and which is selected (see :attr:`selected_link`)."""
        self._doc = PageDocument.message("", "")
        self._painter = LinePainter(self, "page-view--")
        self._pending: tuple[float, str | None] | None = None
        self._background = BackgroundLayout(self)
        self.slides: SlideMode | None = None  # a Marp deck shown slide by slide (None on other pages)
        self.selected_fold: FoldBlock | None = None
        """The foldable callout under the cursor (``enter`` opens or folds it), or None."""

    # ------------------------------------------------------------------ public API
    @property
    def links(self) -> list[Link]:
        """The tab stops: the page's links in reading order."""
        return self.link_cursor.links

    @property
    def document(self) -> PageDocument:
        """The page being shown, as laid out so far."""
        return self._doc

    @property
    def laying_out(self) -> bool:
        """Whether the rest of the page is being laid out in the background."""
        return self._background.running

    def show(
        self,
        text: str,
        *,
        path: str | None,
        info: PageInfo | None = None,
        resolve: Resolver | None = None,
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

    def show_document(self, doc: PageDocument, *, scroll_y: float = 0) -> None:
        """Show a document prepared off the UI thread (a converted source, see ``source_display.prepare``)."""
        self._set_document(doc, None, (scroll_y, None))

    def show_message(self, title: str, body: str) -> None:
        """Show an empty or error state instead of a page ("Page deleted", "Binary file")."""
        self._set_document(PageDocument.message(title, body), None, (0, None))

    def select_link(self, index: int | None) -> None:
        """Put the link cursor on link ``index`` (None: no link) and bring it into view."""
        self.link_cursor.check(index)
        if index is not None:
            if not self._doc.ensure_link(index) and self._doc.reveal_link(index):
                self.relayout()  # the link was inside a folded callout: opened to show it
                self._doc.ensure_link(index)
            self.sync_size()
        if index == self.selected_link and index is not None:
            self._scroll_to_link(index)
        self.selected_link = index

    def link_target(self, index: int) -> str | None:
        """Where link ``index`` leads: its resolved path, its URL, or None when unresolved."""
        return self.link_cursor.target(index)

    def scroll_to_line(self, source_line: int) -> bool:
        """Scroll so the block holding file line ``source_line`` is at the top; whether it exists."""
        return self._scroll_to_top(self._doc.line_for_source(source_line))

    def scroll_to_anchor(self, anchor: str) -> bool:
        """Scroll to a heading (case-insensitive, Obsidian-style) or a ``^block``; whether found."""
        return self._scroll_to_top(self._doc.find_anchor(anchor))

    def _scroll_to_top(self, y: int | None) -> bool:
        """Put rendered line ``y`` at the top of the view; False when there is no such line."""
        if y is None:
            return False
        self.sync_size()
        self._background.stick_to_end = False
        self.scroll_to(y=y, animate=False, immediate=True)
        return True

    # ------------------------------------------------------------------ layout
    @property
    def _width(self) -> int:
        return self.scrollable_content_region.width

    @property
    def _height(self) -> int:
        return self.scrollable_content_region.height

    def _set_document(self, doc: PageDocument, resolve: Resolver | None, pending: tuple[float, str | None]) -> None:
        old = self.selected_link
        self.selected_fold = None
        release_pictures(self._doc.pictures)  # what the terminal keeps of the old page's pictures (kitty)
        self._doc = doc
        self.link_cursor.reset(doc.links, resolve)
        self._painter.clear()
        self._background.reset()
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
        self._painter.clear()
        scroll_y, anchor = self._pending or (0, None)
        self._pending = None
        y = int(scroll_y)
        if anchor:
            found = doc.find_anchor(anchor)
            y = found if found is not None else 0
        doc.ensure_lines(y + self._height + 1)
        self.sync_size()
        self.scroll_to(y=y, animate=False, immediate=True)
        if not doc.complete:
            # Only once the first screen is painted: layout slices must not delay it.
            self.call_after_refresh(self._background.start, doc)

    def relayout(self) -> None:
        """Lay the page out again where it is (its embedded pictures arrived)."""
        self._pending = (self.scroll_y, None)
        if self._width > 0:
            self._lay_out()
        self.refresh()

    def watch_scroll_y(self, old: float, new: float) -> None:
        """Scrolling through a huge page lays out more of it ahead of the view."""
        super().watch_scroll_y(old, new)
        if new > old and not self._doc.complete:
            self._background.start(self._doc)

    def sync_size(self) -> None:
        """Make the scrollable height the number of lines laid out so far."""
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
            self.sync_size()
            return
        top = self.scroll_offset.y
        source_line = doc.line_sources[top] if top < len(doc.line_sources) else 0
        self._pending = (0, None)
        self._lay_out()
        if source_line:
            self.scroll_to_line(source_line)
        self._painter.clear()
        self.refresh()

    def on_unmount(self) -> None:
        """The app is closing: free what the terminal keeps of the page's pictures (kitty)."""
        release_pictures(self._doc.pictures)

    def notify_style_update(self) -> None:
        """The theme or the focus changed: drop cached styles and painted lines."""
        super().notify_style_update()
        self._painter.clear_styles()

    # ------------------------------------------------------------------ painting
    def render_line(self, y: int) -> Strip:
        """Paint line ``y`` of the view (lines are cached until the page or theme changes)."""
        index = self.scroll_offset.y + y
        lines = self._doc.lines
        if index >= len(lines):  # still to be laid out
            return Strip.blank(self._width, self.rich_style)
        strip = self._painter.paint(index, lines[index], self._width, self.rich_style, self.link_cursor.state)
        return paint_row(self, index, lines[index], strip, self.rich_style)  # a picture's row under sixel

    def _refresh_link(self, index: int | None) -> None:
        doc = self._doc
        if index is None or index >= len(doc.link_first) or doc.link_first[index] < 0:
            return
        first, last = doc.link_first[index], doc.link_last[index]
        self._painter.forget(first, last)
        self.refresh_lines(first, last - first + 1)

    # ------------------------------------------------------------------ link cursor
    def watch_selected_link(self, old: int | None, new: int | None) -> None:
        """Repaint the old and new link, bring the new one into view, tell the workspace."""
        if new is not None and self.selected_fold is not None:
            self._select_fold(None)
        self.link_cursor.selected = new
        self._refresh_link(old)
        self._refresh_link(new)
        if new is not None:
            self._scroll_to_link(new)
        self.post_message(self.LinkHighlighted(self, new, self.links[new] if new is not None else None))

    def _scroll_to_link(self, index: int) -> None:
        doc = self._doc
        first, last = doc.link_first[index], doc.link_last[index]
        if first >= 0:
            self._scroll_into_view(first, last)

    def _link_in_view(self, index: int) -> bool:
        first = self._doc.link_first[index]
        top = self.scroll_offset.y
        return first >= 0 and top <= first < top + self._height

    def action_next_link(self) -> None:
        """Select the next link (the first at or below the top of the view when none is)."""
        if self._doc.fold_lines or self.selected_fold is not None:
            self._step_stop(1)
            return
        if not self.links:
            return
        current = self.selected_link
        if current is not None and self._link_in_view(current):
            self.select_link(self.link_cursor.step(1))
            return
        found = self._doc.first_link_from(self.scroll_offset.y)
        self.select_link(0 if found is None else found)

    def action_previous_link(self) -> None:
        """Select the previous link (the last above the bottom of the view when none is)."""
        if self._doc.fold_lines or self.selected_fold is not None:
            self._step_stop(-1)
            return
        if not self.links:
            return
        current = self.selected_link
        if current is not None and self._link_in_view(current):
            self.select_link(self.link_cursor.step(-1))
            return
        found = self._doc.last_link_before(self.scroll_offset.y + self._height)
        if found is None:
            self._doc.ensure_all()
            found = len(self.links) - 1
        self.select_link(found)

    def _step_stop(self, delta: int) -> None:
        """Tab on a page with foldable callouts: links and fold titles are stops, in the order they are shown.

        Such a page is laid out whole (callouts are short pages' syntax); a link inside a
        folded callout is no stop until it is opened.
        """
        doc = self._doc
        doc.ensure_all()
        self.sync_size()
        stops: list[tuple[int, int, int | None, FoldBlock | None]] = sorted(
            [(first, 1, i, None) for i, first in enumerate(doc.link_first) if first >= 0]
            + [(line, 0, None, fold) for line, fold in doc.fold_lines]
        , key=lambda s: (s[0], s[1], s[2] or 0))
        if not stops:
            return
        keys = [(s[2], id(s[3]) if s[3] is not None else None) for s in stops]
        current = (None, id(self.selected_fold)) if self.selected_fold is not None else (self.selected_link, None)
        top, bottom = self.scroll_offset.y, self.scroll_offset.y + self._height
        if current in keys and current != (None, None) and top <= stops[keys.index(current)][0] < bottom:
            at = (keys.index(current) + delta) % len(stops)
        elif delta > 0:
            at = next((k for k, s in enumerate(stops) if s[0] >= top), 0)
        else:
            at = next((k for k in range(len(stops) - 1, -1, -1) if stops[k][0] < bottom), len(stops) - 1)
        _line, _kind, link, fold = stops[at]
        if fold is not None:
            self._select_fold(fold)
        else:
            self._select_fold(None)
            self.select_link(link)

    def _select_fold(self, fold: FoldBlock | None) -> None:
        """Put the cursor on a foldable callout's title (None: on none), the link cursor off."""
        if fold is not None and self.selected_link is not None:
            self.selected_link = None
        self.selected_fold = fold
        for line in self._doc.select_fold(fold):
            self._painter.forget(line, line)
            self.refresh_lines(line, 1)
        if fold is not None:
            at = next((n for n, f in self._doc.fold_lines if f is fold), None)
            if at is not None:
                self._scroll_into_view(at, at)

    def _scroll_into_view(self, first: int, last: int) -> None:
        """Scroll so rendered lines ``first`` to ``last`` are in view, a little margin kept."""
        top, height = self.scroll_offset.y, max(1, self._height)
        margin = min(2, height // 4)
        self._background.stick_to_end = False
        if first < top:
            self.scroll_to(y=max(0, first - margin), animate=False, immediate=True)
        elif last >= top + height:
            self.scroll_to(y=min(first, last - height + 1 + margin), animate=False, immediate=True)

    def toggle_fold(self, fold: FoldBlock) -> None:
        """Open a folded callout or fold an open one, where it is on screen."""
        self._doc.toggle_fold(fold)
        self.relayout()
        self._select_fold(fold)

    def action_follow(self) -> None:
        """Follow the selected link; on a foldable callout's title, open or fold it."""
        if self.selected_fold is not None:
            self.toggle_fold(self.selected_fold)
            return
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
        fold = next((f for n, f in self._doc.fold_lines if n == y), None)
        if fold is not None:  # a click on a foldable callout's title opens or folds it
            event.stop()
            self.toggle_fold(fold)
            return
        index = self._doc.lines[y].link_at(self.scroll_offset.x + offset.x)
        if index is not None:
            event.stop()
            self.select_link(index)
            self.post_message(self.LinkActivated(self, index, self.links[index]))

    # ------------------------------------------------------------------ scrolling
    def action_slide(self, delta: int) -> None:
        """The previous or next slide of a deck (:attr:`slides`); on any other page, scroll sideways."""
        slide_or_scroll(self, delta)
