"""Back/forward navigation history, as in a web browser (no UI code).

The UI remembers every place it opens; going back returns to the previous place
with the scroll position it had when the reader left it. Opening a new place after
going back drops the forward entries, as browsers do.

Example:
    >>> h = History()
    >>> h.remember("wiki/a.md")
    >>> h.remember("wiki/b.md", leaving_scroll=12)
    >>> h.back(leaving_scroll=3).path, h.current.scroll_y
    ('wiki/a.md', 12)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

#: Default number of places kept.
MAX_ENTRIES = 200


@dataclass(slots=True)
class Location:
    """One place in the history.

    Attributes:
        path: Vault-relative path of the page or raw source shown.
        scroll_y: Vertical scroll offset to restore when coming back.
        anchor: Heading or block the place was opened at ("" for none).
    """

    path: str
    scroll_y: float = 0
    anchor: str = ""


class History:
    """A bounded list of locations with a cursor on the current one.

    Args:
        max_entries: Oldest entries are forgotten beyond this many.
    """

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: deque[Location] = deque(maxlen=max_entries)
        self._cursor = -1

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def current(self) -> Location | None:
        """The location shown now (None before anything was opened)."""
        return self._entries[self._cursor] if self._cursor >= 0 else None

    @property
    def can_go_back(self) -> bool:
        """Whether :meth:`back` has somewhere to go."""
        return self._cursor > 0

    @property
    def can_go_forward(self) -> bool:
        """Whether :meth:`forward` has somewhere to go."""
        return 0 <= self._cursor < len(self._entries) - 1

    def remember(self, path: str, *, anchor: str = "", scroll_y: float = 0, leaving_scroll: float | None = None) -> None:
        """Record that ``path`` was opened; forward entries are dropped.

        Opening the page already current only updates its anchor (re-opening a page
        from the tree should not add a step to go back through).

        Args:
            path: The place opened.
            anchor: The heading or block it was opened at.
            scroll_y: Its scroll offset when opened.
            leaving_scroll: The scroll offset of the place being left, saved so
                :meth:`back` can restore it.
        """
        cur = self.current
        if cur is not None and leaving_scroll is not None:
            cur.scroll_y = leaving_scroll
        if cur is not None and cur.path == path and not anchor:
            return
        while len(self._entries) - 1 > self._cursor:
            self._entries.pop()
        # A full deque drops its oldest entry on append: the cursor stays on the end.
        self._entries.append(Location(path, scroll_y, anchor))
        self._cursor = len(self._entries) - 1

    def back(self, *, leaving_scroll: float | None = None) -> Location | None:
        """Step back; returns the location to show, or None at the start.

        Args:
            leaving_scroll: The current scroll offset, kept for a later forward.
        """
        if not self.can_go_back:
            return None
        self._save(leaving_scroll)
        self._cursor -= 1
        return self._entries[self._cursor]

    def forward(self, *, leaving_scroll: float | None = None) -> Location | None:
        """Step forward; returns the location to show, or None at the end.

        Args:
            leaving_scroll: The current scroll offset, kept for a later back.
        """
        if not self.can_go_forward:
            return None
        self._save(leaving_scroll)
        self._cursor += 1
        return self._entries[self._cursor]

    def update_scroll(self, scroll_y: float) -> None:
        """Record the current location's scroll offset."""
        self._save(scroll_y)

    def forget(self, path: str) -> None:
        """Drop every entry of ``path`` (e.g. a deleted page) and keep the cursor sensible."""
        if not any(e.path == path for e in self._entries):
            return
        current = self.current
        kept = [e for e in self._entries if e.path != path]
        # Collapse neighbours that became duplicates once the entries between them went.
        deduped: list[Location] = []
        for e in kept:
            if not deduped or deduped[-1].path != e.path:
                deduped.append(e)
            elif e is current:  # keep the entry the cursor is on
                deduped[-1] = e
        self._entries = deque(deduped, maxlen=self._entries.maxlen)
        ids = [id(e) for e in self._entries]
        self._cursor = ids.index(id(current)) if id(current) in ids else len(self._entries) - 1

    def entries(self) -> list[Location]:
        """A copy of the entries, oldest first."""
        return list(self._entries)

    def _save(self, scroll_y: float | None) -> None:
        cur = self.current
        if cur is not None and scroll_y is not None:
            cur.scroll_y = scroll_y
