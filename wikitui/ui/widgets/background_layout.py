"""The page pane's background layout: the rest of a long page laid out between key presses.

The page view lays out its first screen at once; :class:`BackgroundLayout` lays out the
rest in slices of a few milliseconds in a worker, yielding to the event loop after each,
so a key press never waits for more than one slice. A huge page is laid out only a few
thousand lines ahead of the reader (whole only when asked: ``end``, a link cursor that
wraps around): laid out whole it would hold millions of objects, and Python's garbage
collector would then pause for a noticeable time. For the same reason, every
:data:`FREEZE_LINES` lines laid out are frozen (:func:`wikitui.gc_tuning.freeze_young`):
a 4 MB text source is 45,000 lines, and each full collection walking them paused the
view for 50-190 ms.
"""

from __future__ import annotations

import asyncio
from time import perf_counter
from typing import Any, Coroutine, Protocol

from textual.geometry import Offset

from wikitui import gc_tuning
from wikitui.ui.markdown.document import PageDocument

#: Seconds of layout work per slice while the rest of a long page is laid out.
SLICE = 0.006
#: Seconds between updates of the scrollable size while laying out in the background.
SYNC_EVERY = 0.25
#: Lines a huge page is laid out ahead of the top of the view.
LOOKAHEAD = 1000
#: Lines laid out between two freezes of the layout's objects (a few thousand objects each).
FREEZE_LINES = 5000


class LaidOutView(Protocol):
    """What the background layout needs of the page view (without importing it: no cycle)."""

    @property
    def document(self) -> PageDocument:
        """The document shown."""

    @property
    def scroll_offset(self) -> Offset:
        """The view's scroll position."""

    def sync_size(self) -> None:
        """Make the scrollable height the number of lines laid out."""

    def scroll_end(self, *, animate: bool = ..., immediate: bool = ...) -> Any:
        """Scroll to the end."""

    def run_worker(self, work: Coroutine[Any, Any, None], *, exclusive: bool = ..., group: str = ...) -> Any:
        """Run ``work`` in a worker."""


class BackgroundLayout:
    """Lays out the rest of a page view's document in short slices.

    Args:
        view: The page view: its document, scroll position, scrollable size and workers.

    Attributes:
        running: Whether a worker is laying out now.
        stick_to_end: Whether the view follows the end of a page still being laid out
            (after ``end``); any other scroll clears it.
    """

    def __init__(self, view: LaidOutView) -> None:
        self.view = view
        self.running = False
        self.stick_to_end = False
        self._frozen_lines = 0  # lines of the document laid out when its objects were last frozen

    def reset(self) -> None:
        """Another document is shown: the old one's worker stops at its next slice."""
        self.running = False
        self.stick_to_end = False
        self._frozen_lines = 0

    def wants(self, doc: PageDocument) -> bool:
        """Whether to keep laying out ``doc``: always an ordinary page; a huge one near the view."""
        view = self.view
        if doc is not view.document or doc.complete:
            return False
        return not doc.huge or self.stick_to_end or len(doc.lines) < view.scroll_offset.y + LOOKAHEAD

    def start(self, doc: PageDocument) -> None:
        """Start laying out ``doc`` in a worker unless one runs or nothing is wanted."""
        if not self.running and self.wants(doc):
            self.running = True
            self.view.run_worker(self._lay_out_rest(doc), exclusive=True, group="page-view-layout")

    async def _lay_out_rest(self, doc: PageDocument) -> None:
        """Lay out the rest of the page in short slices, so keys are handled in between."""
        view = self.view
        synced = perf_counter()
        try:
            while self.wants(doc):
                end = perf_counter() + SLICE
                while perf_counter() < end and doc.step():
                    pass
                # A new virtual size makes Textual lay the screen out again: not every slice.
                if perf_counter() - synced > SYNC_EVERY or self.stick_to_end or doc.complete:
                    view.sync_size()
                    synced = perf_counter()
                if self.stick_to_end:
                    view.scroll_end(animate=False, immediate=True)
                self._freeze_grown(doc)
                await asyncio.sleep(0)
            view.sync_size()
        finally:
            if doc is view.document:
                self.running = False

    def _freeze_grown(self, doc: PageDocument) -> None:
        """Freeze the lines laid out since the last freeze, every :data:`FREEZE_LINES` (and the last ones of a big page).

        Lines live as long as the page is shown; left to the collector, each of its
        full passes would walk all of them.
        """
        laid_out = len(doc.lines)
        if laid_out < self._frozen_lines:  # laid out again (a new width): its old lines are gone
            self._frozen_lines = 0
        grown = laid_out - self._frozen_lines
        if grown >= FREEZE_LINES or (grown and doc.complete and laid_out >= FREEZE_LINES):
            gc_tuning.freeze_young()
            self._frozen_lines = laid_out
