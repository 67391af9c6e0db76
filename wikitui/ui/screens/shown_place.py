"""What the page pane's helpers (embedded notes and pictures, raw sources) need of the place shown.

:class:`~wikitui.ui.screens.page_display.PageDisplay` is it; the helpers take this
protocol, so they neither import the display nor are imported back by it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen

    from wikitui.core.workspace import Workspace
    from wikitui.ui.widgets.page_view import PageView


class ShownPlace(Protocol):
    """The place shown in the page pane, and where it is shown."""

    screen: Screen
    workspace: Workspace
    current_path: str | None
    current_kind: str

    @property
    def page(self) -> PageView:
        """The page pane."""
