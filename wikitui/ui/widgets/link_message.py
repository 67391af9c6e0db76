"""The base of the page view's link messages (a link followed, the link cursor moved)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from wikitui.core.vault.links import Link
    from wikitui.ui.widgets.page_view import PageView


class LinkMessage(Message):
    """A message about a link of a page view.

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
