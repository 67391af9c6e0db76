"""The link cursor of a rendered text: which link is selected, where each leads, how each looks.

The page pane and every answer in the chat show links alike: ``tab`` selects one, a
resolved wiki link, an unresolved one, a web link and the selected link each have
their look. :class:`LinkCursor` holds that state for one text, with no Textual in it;
the widget that paints asks it for a link's state (a role name) and repaints when the
selection moves.
"""

from __future__ import annotations

from typing import Callable

from wikitui.core.vault.links import Link

#: Returns a link's target path, or None when the link is unresolved.
Resolver = Callable[[Link], "str | None"]


class LinkCursor:
    """The links of one rendered text, where each leads, and the one under the cursor.

    Args:
        links: The tab stops in reading order (the list is kept, not copied: a huge
            page appends its links as it is laid out).
        resolve: Returns a link's target path, or None when it is unresolved. Without
            one, every link counts as resolved (to its own target).

    Attributes:
        links: The tab stops.
        resolve: The resolver (None: links are not checked).
        selected: Index of the link under the cursor, or None.
    """

    __slots__ = ("links", "resolve", "selected", "_targets")

    def __init__(self, links: list[Link] | None = None, resolve: Resolver | None = None) -> None:
        self.links: list[Link] = links if links is not None else []
        self.resolve = resolve
        self.selected: int | None = None
        self._targets: dict[int, str | None] = {}

    def reset(self, links: list[Link], resolve: Resolver | None) -> None:
        """Another text is shown: its links, its resolver, no link selected."""
        self.links = links
        self.resolve = resolve
        self.selected = None
        self._targets = {}

    def relink(self, links: list[Link] | None = None) -> None:
        """Resolve the links again (pages were created or deleted); ``links`` replaces the list.

        The selection stays: an answer that grows keeps its cursor.
        """
        if links is not None:
            self.links = links
        self._targets = {}

    def target(self, index: int) -> str | None:
        """Where link ``index`` leads: its resolved path, its URL, or None when unresolved.

        Resolving is asked once per link (it may read the vault's index) and remembered.
        """
        if index not in self._targets:
            link = self.links[index]
            if link.kind == "url":
                self._targets[index] = link.target
            else:
                self._targets[index] = self.resolve(link) if self.resolve else link.target
        return self._targets[index]

    def state(self, index: int) -> str:
        """The role link ``index`` is painted with.

        ``link-selected`` under the cursor, else ``link-external`` for a URL,
        ``link-unresolved`` for a link to no page (when there is a resolver), else ``link``.
        """
        if index == self.selected:
            return "link-selected"
        if self.links[index].kind == "url":
            return "link-external"
        if self.resolve is not None and self.target(index) is None:
            return "link-unresolved"
        return "link"

    def check(self, index: int | None) -> None:
        """Raise :class:`IndexError` unless ``index`` is None or the index of a link."""
        if index is not None and not 0 <= index < len(self.links):
            raise IndexError(f"no link {index} on this page ({len(self.links)} links)")

    def step(self, delta: int) -> int | None:
        """The index ``delta`` links from the selected one, wrapping around; None when none is selected."""
        if self.selected is None or not self.links:
            return None
        return (self.selected + delta) % len(self.links)
