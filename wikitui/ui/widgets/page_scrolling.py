"""The page view's scrolling keys: line, page, top and bottom, aware of a page still being laid out.

A big page is laid out in the background (:mod:`~wikitui.ui.widgets.background_layout`):
``end`` goes to the bottom and stays there as the page grows, any key that scrolls
up stops following it, and ``pagedown`` lays out the lines it is about to show first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from textual.geometry import Offset, Region

    from wikitui.ui.markdown.document import PageDocument
    from wikitui.ui.widgets.background_layout import BackgroundLayout


class ScrollHost(Protocol):
    """What the scrolling uses of its page widget (a :class:`~wikitui.ui.widgets.page_view.PageView`)."""

    @property
    def document(self) -> PageDocument: ...

    @property
    def scroll_offset(self) -> Offset: ...

    @property
    def scrollable_content_region(self) -> Region: ...

    def sync_size(self) -> None: ...

    def scroll_end(self, *, animate: bool = ..., immediate: bool = ...) -> None: ...

    def scroll_home(self, *, animate: bool = ..., immediate: bool = ...) -> None: ...

    def scroll_relative(self, x: float | None = ..., y: float | None = ..., *, animate: bool = ...,
                        immediate: bool = ...) -> None: ...


class PageScrolling:
    """The scroll actions of a page widget, which owns it.

    Args:
        view: The page widget that scrolls.
        background: Its background layout (told whether to follow the end of a growing page).
    """

    def __init__(self, view: ScrollHost, background: BackgroundLayout) -> None:
        self._view = view
        self._background = background

    @property
    def _height(self) -> int:
        return self._view.scrollable_content_region.height

    def end(self) -> None:
        """Go to the bottom; on a page still being laid out, stay there as it grows."""
        doc = self._view.document
        self._background.stick_to_end = not doc.complete
        self._view.scroll_end(animate=False, immediate=True)
        self._background.start(doc)

    def home(self) -> None:
        """Go to the top of the page."""
        self._background.stick_to_end = False
        self._view.scroll_home(animate=False, immediate=True)

    def line_up(self) -> None:
        """Scroll up one line."""
        self._background.stick_to_end = False
        self._view.scroll_relative(y=-1, animate=False, immediate=True)

    def line_down(self) -> None:
        """Scroll down one line."""
        self._view.scroll_relative(y=1, animate=False, immediate=True)

    def page_up(self) -> None:
        """Scroll up one page."""
        self._background.stick_to_end = False
        self._view.scroll_relative(y=-max(1, self._height - 1), animate=False, immediate=True)

    def page_down(self) -> None:
        """Scroll down one page."""
        self._view.document.ensure_lines(self._view.scroll_offset.y + 2 * self._height + 1)
        self._view.sync_size()
        self._view.scroll_relative(y=max(1, self._height - 1), animate=False, immediate=True)
