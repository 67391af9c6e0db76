"""A line-API scroll view whose scrollbars are updated only when what they show changed.

Textual's ``ScrollView._size_updated`` (8.2.8) compares the virtual size the compositor
hands it (the region the rows are seen through) with the widget's own (all its rows):
they always differ, so every layout pass of the screen, even one that moved nothing in
the widget, re-measured both scrollbars and refreshed them, and those refreshes came back
as a second paint of the whole screen a frame or two after the first. The batch review
(bench/batch_review.py, 2,000 hunks, 2026-12-03, the machine loop at 3.1-3.3 ms, two
runs each, interleaved): ``tab`` key to the whole answer, median, 35.4 / 39.8 ms with
Textual's check (its first paint 8-10 ms), 5.9 / 6.4 ms with this one (one paint).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView


class SteadyScrollView(ScrollView):
    """A :class:`~textual.scroll_view.ScrollView` that skips a layout pass which changed none of its sizes."""

    _sizes_seen: tuple[Size, Size, Size] | None = None

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # Its own virtual size (set by the widget when its rows change) is what the scrollbars show.
        seen = (size, container_size, self.virtual_size)
        if seen == self._sizes_seen:
            return False
        self._sizes_seen = seen
        return super()._size_updated(size, virtual_size, container_size, layout)
