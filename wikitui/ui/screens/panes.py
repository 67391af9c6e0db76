"""The workspace's panes on screen: which show, how wide, and which one has the focus (the pane keys).

:class:`Panes` is owned by :class:`~wikitui.ui.screens.main.MainScreen`. It keeps the
user's choices (a pane hidden or shown on purpose, a column widened) and lays the
screen out with :func:`~wikitui.ui.screens.layout.plan_layout` whenever the size or
a choice changes. The screen's pane actions (``f1``-``f5``, ``ctrl+b``/``ctrl+l``/
``ctrl+a``, ``[``/``]``) call it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.css.query import NoMatches

from wikitui.ui.screens.layout import SIZES, WIDE, Layout, plan_layout
from wikitui.ui.widgets.links_panel import LinksPanel
from wikitui.ui.widgets.page_tree import PageTree
from wikitui.ui.widgets.page_view import PageView
from wikitui.ui.widgets.source_tree import SourceTree

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen
    from textual.widget import Widget

#: Cells (or rows) one press of ``[`` or ``]`` changes.
RESIZE_STEP = 4
#: The panes a key can focus.
PANES = ("sources", "wiki", "page", "links", "agent")


class Panes:
    """Pane visibility, sizes and focus for one workspace screen.

    Args:
        screen: The screen holding the ``#left``, ``#centre``, ``#agent`` and ``#links`` containers.
    """

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        #: Pane visibility chosen by the user (None: decided by the terminal's size).
        self.shown: dict[str, bool | None] = {"left": None, "links": None, "agent": None}
        self.sizes = {name: size[0] for name, size in SIZES.items()}
        #: Narrow layout: whether the agent is raised over the page's column.
        self.agent_raised = False
        #: The layout last applied.
        self.layout = plan_layout(200, 50, shown=self.shown, sizes=self.sizes, agent_raised=False)

    # ------------------------------------------------------------------ layout
    def plan(self) -> Layout:
        """The layout for the screen's size and the user's choices."""
        width, height = self.screen.size
        return plan_layout(width, height, shown=self.shown, sizes=self.sizes, agent_raised=self.agent_raised)

    def visible(self, pane: str) -> bool:
        """Whether "left", "agent" or "links" shows."""
        layout = self.plan()
        return {"left": layout.left, "agent": layout.agent, "links": layout.links}[pane]

    def apply(self) -> None:
        """Lay the panes out; move the focus out of a pane that just hid."""
        screen = self.screen
        left, centre, agent, links = (screen.query_one(f"#{n}") for n in ("left", "centre", "agent", "links"))
        layout = self.layout = self.plan()
        left.display = layout.left
        centre.display = layout.centre
        agent.display = layout.agent
        links.display = layout.links
        left.styles.width = layout.left_width
        agent.styles.width = layout.agent_width if layout.agent_width is not None else "1fr"
        links.styles.height = layout.links_height
        agent.border_subtitle = "" if layout.wide else "f3 back to the page"
        focused = screen.focused
        if focused is not None and not self._on_screen(focused):
            target = self.agent_input() if layout.agent and not layout.centre else None
            (target or screen.query_one(PageView)).focus()

    def agent_input(self) -> Widget | None:
        """The agent's input (None until the agent pane has mounted)."""
        try:
            return self.screen.query_one("#agent-input")
        except NoMatches:
            return None

    def _on_screen(self, widget: Widget) -> bool:
        node: DOMNode | None = widget
        while node is not None and node is not self.screen:
            if not node.display:
                return False
            node = node.parent
        return True

    def resized(self) -> None:
        """The terminal's size changed."""
        if self.layout.wide and self.screen.size.width < WIDE:  # just became narrow: the agent stays up if focused
            self.agent_raised = self.focused_column() == "agent"
        self.apply()

    def focus_moved(self, widget: Widget) -> None:
        """In a narrow layout, focus in the agent raises it and focus in the page lowers it."""
        if self.layout.wide:
            return
        column = column_of(widget)
        if column == "agent" and not self.agent_raised:
            self.agent_raised = True
            self.apply()
        elif column in ("page", "links") and self.agent_raised:
            self.agent_raised = False
            self.apply()

    def raise_agent(self) -> None:
        """Make sure the agent pane shows (raised over the page when narrow)."""
        if not self.layout.wide:
            self.agent_raised = True
            self.apply()
        elif not self.visible("agent"):
            self.shown["agent"] = True
            self.apply()

    # -------------------------------------------------------------- pane keys
    def focus(self, pane: str) -> bool:
        """Focus a pane, showing it first if it was hidden; False when it is not mounted yet."""
        column = {"sources": "left", "wiki": "left", "links": "links", "agent": "agent"}.get(pane)
        if not self.layout.wide and pane in ("page", "links", "agent") and self.agent_raised != (pane == "agent"):
            # Narrow: the agent and the page share a column; show the one asked for.
            self.agent_raised = pane == "agent"
            self.apply()
        if column is not None and not self.visible(column):
            self.shown[column] = True
            self.apply()
        screen = self.screen
        target = {
            "sources": lambda: screen.query_one(SourceTree),
            "wiki": lambda: screen.query_one(PageTree).tree,
            "page": lambda: screen.query_one(PageView),
            "links": lambda: screen.query_one(LinksPanel).option_list,
            "agent": lambda: screen.query_one("#agent-input"),
        }
        try:
            widget = target[pane]()
        except NoMatches:  # the agent pane mounts just after the first frame
            return False
        widget.focus()
        return True

    def toggle(self, pane: str) -> None:
        """Hide or show the left column, the links panel or the agent pane (narrow: raise or lower the agent)."""
        if pane == "agent" and not self.layout.wide:
            self.agent_raised = not self.agent_raised
            self.apply()
            if self.agent_raised:
                self.focus("agent")
            else:
                self.screen.query_one(PageView).focus()
            return
        hiding_focus = self.visible(pane) and self.focused_column() == pane
        self.shown[pane] = not self.visible(pane)
        self.apply()
        if hiding_focus:  # the focus does not stay in a hidden pane
            self.screen.query_one(PageView).focus()

    def focused_column(self) -> str:
        """The column the focus is in: "left", "agent", "links" or "page"."""
        return column_of(self.screen.focused)

    def resize(self, step: int) -> None:
        """Widen (``step`` > 0) or narrow the focused column; on the page, widen the page itself."""
        column = self.focused_column()
        if column == "page":
            column, step = "left", -step  # a wider page is a narrower sidebar
        if column == "agent" and not self.layout.wide:
            return  # a raised agent takes the page's whole column
        _default, low, high = SIZES[column]
        self.sizes[column] = max(low, min(high, self.sizes[column] + step * RESIZE_STEP))
        self.apply()


def column_of(node) -> str:
    """The column a widget lies in: "left", "agent", "links" or "page"."""
    while node is not None:
        if node.id in ("left", "agent", "links", "page"):
            return node.id
        node = node.parent
    return "page"
