"""The workspace screen: Sources and Wiki on the left, the page with its links in the centre, the agent on the right.

This module owns the layout, the pane keys (focus, hide, resize) and how the
screen follows the app's background work (graph loaded, index progress, files
changed). Opening pages and following links live in
:mod:`wikitui.ui.screens.navigation`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import DescendantFocus, Resize
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input, TextArea

from wikitui.ui.messages import AskAgentRequested, IndexProgress, IngestRequested, OpenRequested
from wikitui.ui.screens.layout import SIZES, WIDE, Layout, plan_layout
from wikitui.ui.screens.navigation import NavigationMixin
from wikitui.ui.screens.page_actions import PageActionsMixin
from wikitui.ui.widgets.index_status import IndexStatus
from wikitui.ui.widgets.links_panel import LinksPanel
from wikitui.ui.widgets.page_tree import PageTree
from wikitui.ui.widgets.page_view import PageView
from wikitui.ui.widgets.source_tree import SourceTree, source_citations
from wikitui.ui.widgets.workspace_footer import WorkspaceFooter

if TYPE_CHECKING:
    from wikitui.ui.widgets.agent_pane import AgentPane
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.ui.widgets.page_tree import PreparedPages
    from wikitui.ui.app import WikituiApp

#: Cells (or rows) one press of ``[`` or ``]`` changes.
RESIZE_STEP = 4
PANES = ("sources", "wiki", "page", "links", "agent")


class MainScreen(PageActionsMixin, NavigationMixin, Screen[None]):
    """The four panes of the workspace.

    | Key | Action |
    | :- | :- |
    | f1 … f5 | Focus Sources, Wiki, Page, Links, Agent input. |
    | / | Full-text search. |
    | ctrl+o | The page's outline: jump to a heading. |
    | ? | Every key. |
    | backspace, alt+left | Back. |
    | alt+right | Forward. |
    | ctrl+b / ctrl+l / ctrl+a | Hide or show the left column / links panel / agent pane. |
    | [ / ] | Narrow / widen the focused column. |
    """

    CSS_PATH = "main.tcss"
    AUTO_FOCUS = "#page"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "focus_pane('sources')", "Sources", show=False, id="focus-sources", tooltip="Focus the Sources pane"),
        Binding("f2", "focus_pane('wiki')", "Wiki", show=False, id="focus-wiki", tooltip="Focus the Wiki tree"),
        Binding("f3", "focus_pane('page')", "Page", show=False, id="focus-page", tooltip="Focus the page"),
        Binding("f4", "focus_pane('links')", "Links", show=False, id="focus-links", tooltip="Focus the links panel"),
        Binding("f5", "focus_pane('agent')", "Agent", show=False, id="focus-agent", tooltip="Focus the agent's input"),
        Binding("slash", "search", "Search", id="search", tooltip="Full-text search of the wiki and the sources"),
        Binding("ctrl+o", "outline", "Outline", show=False, id="outline", tooltip="The page's headings: jump to one"),
        Binding("question_mark", "help", "Help", id="help", tooltip="Every key (this list)"),
        Binding("alt+left", "back", "Back", id="back"),
        Binding("backspace", "back", "Back", show=False, id="back-backspace"),
        Binding("alt+right", "forward", "Forward", id="forward"),
        Binding("ctrl+b", "toggle_pane('left')", "Toggle sidebar", show=False, id="toggle-left",
                tooltip="Hide or show Sources and Wiki"),
        Binding("ctrl+l", "toggle_pane('links')", "Toggle links", show=False, id="toggle-links",
                tooltip="Hide or show the links panel"),
        Binding("ctrl+a", "toggle_pane('agent')", "Toggle agent", show=False, id="toggle-agent",
                tooltip="Hide or show the agent (below 110 columns: raise it over the page)"),
        Binding("left_square_bracket", "resize(-1)", "Narrower", show=False, id="narrower",
                tooltip="Narrower focused column"),
        Binding("right_square_bracket", "resize(1)", "Wider", show=False, id="wider", tooltip="Wider focused column"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: Pane visibility chosen by the user (None: decided by the terminal's size).
        self._shown: dict[str, bool | None] = {"left": None, "links": None, "agent": None}
        self._sizes = {name: size[0] for name, size in SIZES.items()}
        #: Narrow layout: whether the agent is raised over the page's column.
        self._agent_raised = False
        self._layout = plan_layout(200, 50, shown=self._shown, sizes=self._sizes, agent_raised=False)
        #: Raw source path → pages citing it (refreshed with the graph).
        self.citations: dict[str, list[str]] = {}
        self.init_navigation()

    @property
    def wapp(self) -> "WikituiApp":
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="columns"):
            with Vertical(id="left"):
                yield SourceTree(id="sources")
                yield PageTree(id="wiki")
            with Vertical(id="centre"):
                yield PageView(id="page")
                yield LinksPanel(id="links")
            # The agent pane is mounted just after the first frame (see _after_first_frame).
            yield Vertical(id="agent")
        with Horizontal(id="bottom"):
            yield WorkspaceFooter()
            yield IndexStatus(id="status")

    def on_mount(self) -> None:
        """Title the panes and show the first page straight from disk (the graph follows)."""
        self.query_one("#sources").border_title = "Sources"
        self.query_one("#wiki").border_title = "Wiki"
        self.query_one("#links").border_title = "Links"
        self.query_one("#agent").border_title = "Agent"
        self.query_one(PageView).border_title = self.wapp.vault.root.name
        self.query_one(LinksPanel).clear("Loading the wiki…")
        self.query_one(IndexStatus).summary = "loading the wiki…"
        self._apply_layout()
        self.open_initial_page()
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """Mount the agent pane and start loading the graph, once the page is on screen.

        The chat and the graph thread would otherwise both delay the first frame.
        """
        from wikitui.ui.widgets.agent_pane import AgentPane

        self.query_one("#agent").mount(AgentPane(self.wapp.vault.root))
        self.wapp.start_loading()

    @property
    def agent_pane(self) -> "AgentPane":
        """The agent pane (mounted right after the first frame)."""
        from wikitui.ui.widgets.agent_pane import AgentPane

        return self.query_one(AgentPane)

    def on_resize(self, event: Resize) -> None:
        """Lay the panes out for the new size (three columns, or the agent sharing the page's column)."""
        if self._layout.wide and self.size.width < WIDE:  # just became narrow: the agent stays up if it has the focus
            self._agent_raised = self._focused_column() == "agent"
        self._apply_layout()

    def _visible(self, pane: str) -> bool:
        layout = self._plan()
        return {"left": layout.left, "agent": layout.agent, "links": layout.links}[pane]

    def _plan(self) -> Layout:
        width, height = self.size
        return plan_layout(width, height, shown=self._shown, sizes=self._sizes, agent_raised=self._agent_raised)

    def _apply_layout(self) -> None:
        left, centre, agent, links = (self.query_one(f"#{n}") for n in ("left", "centre", "agent", "links"))
        layout = self._layout = self._plan()
        left.display = layout.left
        centre.display = layout.centre
        agent.display = layout.agent
        links.display = layout.links
        left.styles.width = layout.left_width
        agent.styles.width = layout.agent_width if layout.agent_width is not None else "1fr"
        links.styles.height = layout.links_height
        agent.border_subtitle = "" if layout.wide else "f3 back to the page"
        focused = self.focused
        if focused is not None and not self._on_screen(focused):
            target = self.agent_input if layout.agent and not layout.centre else self.query_one(PageView)
            (target or self.query_one(PageView)).focus()

    @property
    def agent_input(self):
        """The agent's input (None until the agent pane has mounted)."""
        try:
            return self.query_one("#agent-input")
        except NoMatches:
            return None

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        """In a narrow layout, focus in the agent raises it and focus in the page lowers it."""
        if self._layout.wide:
            return
        column = self._column_of(event.widget)
        if column == "agent" and not self._agent_raised:
            self._agent_raised = True
            self._apply_layout()
        elif column in ("page", "links") and self._agent_raised:
            self._agent_raised = False
            self._apply_layout()

    def _on_screen(self, widget) -> bool:
        node = widget
        while node is not None and node is not self:
            if not node.display:
                return False
            node = node.parent
        return True

    # -------------------------------------------------------------- pane keys
    def action_focus_pane(self, pane: str) -> None:
        """Focus a pane, showing it first if it was hidden."""
        column = {"sources": "left", "wiki": "left", "links": "links", "agent": "agent"}.get(pane)
        if not self._layout.wide and pane in ("page", "links", "agent") and self._agent_raised != (pane == "agent"):
            # Narrow: the agent and the page share a column; show the one asked for.
            self._agent_raised = pane == "agent"
            self._apply_layout()
        if column is not None and not self._visible(column):
            self._shown[column] = True
            self._apply_layout()
        target = {
            "sources": lambda: self.query_one(SourceTree),
            "wiki": lambda: self.query_one(PageTree).tree,
            "page": lambda: self.query_one(PageView),
            "links": lambda: self.query_one(LinksPanel).option_list,
            "agent": lambda: self.query_one("#agent-input"),
        }
        try:
            widget = target[pane]()
        except NoMatches:  # the agent pane mounts just after the first frame
            self.call_after_refresh(self.action_focus_pane, pane)
            return
        widget.focus()

    def action_toggle_pane(self, pane: str) -> None:
        """Hide or show the left column, the links panel or the agent pane (narrow: raise or lower the agent)."""
        if pane == "agent" and not self._layout.wide:
            self._agent_raised = not self._agent_raised
            self._apply_layout()
            if self._agent_raised:
                self.action_focus_pane("agent")
            else:
                self.query_one(PageView).focus()
            return
        self._shown[pane] = not self._visible(pane)
        self._apply_layout()

    def _focused_column(self) -> str:
        return self._column_of(self.focused)

    @staticmethod
    def _column_of(node) -> str:
        while node is not None:
            if node.id in ("left", "agent", "links", "page"):
                return node.id
            node = node.parent
        return "page"

    def action_resize(self, step: int) -> None:
        """Widen (``step`` > 0) or narrow the focused column; on the page, widen the page itself."""
        column = self._focused_column()
        if column == "page":
            column, step = "left", -step  # a wider page is a narrower sidebar
        if column == "agent" and not self._layout.wide:
            return  # a raised agent takes the page's whole column
        default, low, high = SIZES[column]
        self._sizes[column] = max(low, min(high, self._sizes[column] + step * RESIZE_STEP))
        self._apply_layout()

    def action_filter_pages(self) -> None:
        """Focus the page tree's filter."""
        self.action_focus_pane("wiki")
        self.query_one("#wiki-filter", Input).focus()

    def action_help(self) -> None:
        """Show every key binding."""
        from wikitui.ui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_reload(self) -> None:
        """Re-read the vault."""
        self.wapp.reload()
        self.notify("Vault re-read.")

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Grey out Back/Forward at the ends of the history; leave keys to text inputs."""
        if action in ("back", "forward"):
            if isinstance(self.focused, (Input, TextArea)):
                return False
            history = self.wapp.history
            return True if (history.can_go_back if action == "back" else history.can_go_forward) else None
        return True

    # ------------------------------------------------- the app's background work
    def graph_ready(self, graph: "LinkGraph", prepared: "PreparedPages | None" = None) -> None:
        """The link graph arrived: fill the trees and re-show the page with its links resolved."""
        self.refresh_trees(graph, prepared)
        self.redisplay(keep_scroll=True)

    def refresh_trees(self, graph: "LinkGraph", prepared: "PreparedPages | None" = None) -> None:
        """Rebuild the Sources and Wiki trees and their counts from ``graph`` (``prepared``: the wiki tree's entries)."""
        self.query_one(IndexStatus).summary = ""
        self.citations = source_citations(graph)
        vault = graph.vault
        self.query_one(SourceTree).set_sources(sorted(graph.raw_files), set(self.citations), vault.raw_prefix)
        self.query_one(PageTree).set_pages(graph, prepared)
        raws = len(graph.raw_files)
        ingested = sum(1 for r in graph.raw_files if r in self.citations)
        self.query_one("#sources").border_subtitle = f"{ingested}/{raws} ingested" if raws else "raw/ is empty"
        self.query_one("#wiki").border_subtitle = f"{len(graph.pages)} pages"
        if self.current_path:
            self.reveal_in_trees(self.current_path)

    def vault_changed(self, paths: set[str], prepared: "PreparedPages | None" = None) -> None:
        """Files changed on disk: refresh the trees, the page shown and its links."""
        graph = self.wapp.graph
        if graph is None:
            return
        self.refresh_trees(graph, prepared)
        if self.current_path is not None and self.current_path in paths:
            self.redisplay(keep_scroll=True, changed=True)
        else:
            self.refresh_links()

    def on_index_progress(self, message: IndexProgress) -> None:
        """Show the search index's progress beside the footer (and tell an open search screen)."""
        self.wapp.index_progress = message
        self.wapp.index_signal.publish(message)
        status = self.query_one(IndexStatus)
        if message.finished:
            status.set_done(message.error or "search ready")
            if message.error:
                self.notify(message.error, severity="warning")
        else:
            status.set_progress(message.done, message.total)

    # ------------------------------------------------------------- requests
    @on(OpenRequested)
    def _open_requested(self, message: OpenRequested) -> None:
        message.stop()
        self.open_path(message.path, anchor=message.anchor, line=message.line)

    @on(IngestRequested)
    def _ingest_requested(self, message: IngestRequested) -> None:
        message.stop()
        self.agent_pane.request_ingest(message.path)

    @on(AskAgentRequested)
    def _ask_requested(self, message: AskAgentRequested) -> None:
        message.stop()
        if not self._layout.wide:
            self._agent_raised = True
            self._apply_layout()
        elif not self._visible("agent"):
            self._shown["agent"] = True
            self._apply_layout()
        self.agent_pane.request(message.prompt)
