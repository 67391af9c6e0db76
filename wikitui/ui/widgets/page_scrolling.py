"""The page view's scrolling keys: line, page, top and bottom, aware of a page still being laid out.

A big page is laid out in the background (:mod:`~wikitui.ui.widgets.background_layout`):
``end`` goes to the bottom and stays there as the page grows, any key that scrolls
up stops following it, and ``pagedown`` lays out the lines it is about to show first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from textual.scroll_view import ScrollView

    from wikitui.ui.markdown.document import PageDocument
    from wikitui.ui.widgets.background_layout import BackgroundLayout

    _Host = ScrollView  # the type checker sees the scrolling the host inherits
else:
    _Host = object


class PageScrolling(_Host):
    """Scroll actions for :class:`~wikitui.ui.widgets.page_view.PageView` (it provides ``_doc``,
    ``_background``, ``_height`` and ``sync_size``)."""

    if TYPE_CHECKING:  # pragma: no cover - what the host provides, declared for the type checker
        _doc: PageDocument
        _background: BackgroundLayout

        @property
        def _height(self) -> int: ...

        def sync_size(self) -> None: ...

    def action_scroll_end(self) -> None:
        """Go to the bottom; on a page still being laid out, stay there as it grows."""
        self._background.stick_to_end = not self._doc.complete
        self.scroll_end(animate=False, immediate=True)
        self._background.start(self._doc)

    def action_scroll_home(self) -> None:
        """Go to the top of the page."""
        self._background.stick_to_end = False
        self.scroll_home(animate=False, immediate=True)

    def action_scroll_up(self) -> None:
        """Scroll up one line."""
        self._background.stick_to_end = False
        self.scroll_relative(y=-1, animate=False, immediate=True)

    def action_scroll_down(self) -> None:
        """Scroll down one line."""
        self.scroll_relative(y=1, animate=False, immediate=True)

    def action_page_up(self) -> None:
        """Scroll up one page."""
        self._background.stick_to_end = False
        self.scroll_relative(y=-max(1, self._height - 1), animate=False, immediate=True)

    def action_page_down(self) -> None:
        """Scroll down one page."""
        self._doc.ensure_lines(self.scroll_offset.y + 2 * self._height + 1)
        self.sync_size()
        self.scroll_relative(y=max(1, self._height - 1), animate=False, immediate=True)
