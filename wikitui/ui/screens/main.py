"""The workspace screen: Sources and Wiki on the left, the page with its links in the centre, the agent on the right.

This module owns the screen's keys and how it follows the app's background work
(graph loaded, index progress, files changed). It is handed what it shows
explicitly: the :class:`~wikitui.core.workspace.Workspace`, the remembered vault
state and the index build's progress. The panes' layout is its
:class:`~wikitui.ui.screens.panes.Panes`; opening pages and following links is its
:class:`~wikitui.ui.screens.navigation.Navigator`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import DescendantFocus, Resize
from textual.message import Message
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input, TextArea

from wikitui.core.base.words import plural
from wikitui.ui.handover import handed_over
from wikitui.ui.inbox_run import InboxRunner
from wikitui.ui.messages import AskAgentRequested, IndexProgress, IngestRequested, OpenRequested
from wikitui.ui.screens.navigation import Navigator
from wikitui.ui.screens.page_display import PageDisplay
from wikitui.ui.screens.panes import Panes
from wikitui.ui.sync_schedule import SyncSchedule
from wikitui.ui.widgets.index_status import IndexStatus
from wikitui.ui.widgets.links_panel import LinksPanel
from wikitui.ui.widgets.page_tree import PageTree
from wikitui.ui.widgets.page_view import PageView
from wikitui.ui.widgets.source_tree import SourceTree, source_citations
from wikitui.ui.widgets.workspace_footer import WorkspaceFooter

if TYPE_CHECKING:
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.graph_layout import LayoutMemo
    from wikitui.core.vault.page import PageInfo
    from wikitui.core.workspace import Workspace
    from wikitui.ui.index_watch import IndexWatch
    from wikitui.ui.state import VaultState
    from wikitui.ui.widgets.agent_pane import AgentPane
    from wikitui.ui.widgets.page_tree import PreparedPages


class MainScreen(Screen[None]):
    """The four panes of the workspace.

    | Key | Action |
    | :- | :- |
    | f1 … f5 | Focus Sources, Wiki, Page, Links, Agent input. |
    | / | Full-text search. |
    | ctrl+o | The page's outline: jump to a heading. |
    | g | The page's graph: its links and backlinks (w: the whole wiki). |
    | ? | Every key. |
    | backspace, alt+left | Back. |
    | alt+right | Forward. |
    | ctrl+b / ctrl+l / ctrl+a | Hide or show the left column / links panel / agent pane. |
    | [ / ] | Narrow / widen the focused column. |

    Args:
        workspace: The open vault.
        vault_state: Remembered per-vault state (the page last open).
        index_watch: The index build's progress.
        opener: Opens an external URL (after the user confirms).
        keymap: The user's key remapping, as set on the app (for the help screen).
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
        Binding("g", "graph", "Graph", show=False, id="graph",
                tooltip="The page's graph (w in it: the whole wiki)"),
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

    class FirstFrame(Message):
        """The screen has painted its first frame: the app may start its background work."""

    class ReloadRequested(Message):
        """The reader asked to re-read the vault from disk."""

    def __init__(self, workspace: Workspace, vault_state: VaultState, index_watch: IndexWatch, *,
                 opener: Callable[[str], Any], keymap: Callable[[], dict[str, str]] = dict,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.workspace = workspace
        self.vault_state = vault_state
        self.index_watch = index_watch
        self._keymap = keymap
        self.panes = Panes(self)
        #: The background sync of ``[sync] every_minutes`` (the app configures it once the settings are read).
        self.sync_schedule = SyncSchedule(start=lambda push: self.start_sync(push=push, scheduled=True),
                                          busy=self._turn_running, has_pending=self._has_pending)
        #: The inbox's runs: the palette's and the background one of ``[inbox] every_minutes``.
        self.inbox = InboxRunner(self, self, busy=self._turn_running)
        self.page_display = PageDisplay(self, workspace, vault_state)
        # The whole-wiki graph's cluster layouts, kept between openings of the graph view.
        self._graph_memo: LayoutMemo | None = None
        #: Opening pages, following links, back and forward.
        self.navigator = Navigator(self, workspace, self.page_display, opener=opener, on_created=self._page_written,
                                   on_shown=self._page_shown)

    # --------------------------------------------------- what the page shows
    @property
    def current_path(self) -> str | None:
        """Vault-relative path of what the page pane shows (None before anything)."""
        return self.page_display.current_path

    @property
    def current_kind(self) -> str:
        """"page", "source" or "missing"."""
        return self.page_display.current_kind

    @property
    def current_info(self) -> PageInfo | None:
        """The parsed page shown (None for a source)."""
        return self.page_display.current_info

    @property
    def citations(self) -> dict[str, list[str]]:
        """Raw source path → pages citing it."""
        return self.page_display.citations

    def open_path(self, path: str, *, anchor: str = "", line: int | None = None, focus: bool = True) -> None:
        """Open a page or raw source in the page pane (see :meth:`Navigator.open_path`)."""
        self.navigator.open_path(path, anchor=anchor, line=line, focus=focus)

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
        self.query_one(PageView).border_title = self.workspace.root.name
        self.query_one(LinksPanel).clear("Loading the wiki…")
        self.query_one(IndexStatus).summary = "loading the wiki…"
        self.panes.apply()
        self.navigator.open_initial_page(self.vault_state.last_page)
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """Mount the agent pane and let the app load the graph, once the page is on screen.

        The chat and the graph thread would otherwise both delay the first frame.
        """
        from wikitui.ui.screens.research import sources_reviewer
        from wikitui.ui.screens.review import screen_reviewer
        from wikitui.ui.widgets.agent_pane import AgentPane

        reviewer = screen_reviewer(self.app, self.workspace.vault)
        self.query_one("#agent").mount(AgentPane(self.workspace, reviewer=reviewer,
                                                 sources_reviewer=sources_reviewer(self.app)))
        self.post_message(self.FirstFrame())

    @property
    def agent_pane(self) -> AgentPane:
        """The agent pane (mounted right after the first frame)."""
        from wikitui.ui.widgets.agent_pane import AgentPane

        return self.query_one(AgentPane)

    @property
    def agent_input(self):
        """The agent's input (None until the agent pane has mounted)."""
        return self.panes.agent_input()

    def on_resize(self, event: Resize) -> None:
        """Lay the panes out for the new size (three columns, or the agent sharing the page's column)."""
        self.panes.resized()

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        """In a narrow layout, focus in the agent raises it and focus in the page lowers it."""
        self.panes.focus_moved(event.widget)

    # -------------------------------------------------------------- pane keys
    def action_focus_pane(self, pane: str) -> None:
        """Focus a pane, showing it first if it was hidden."""
        if not self.panes.focus(pane):  # the agent pane mounts just after the first frame
            self.call_after_refresh(self.action_focus_pane, pane)

    def action_toggle_pane(self, pane: str) -> None:
        """Hide or show the left column, the links panel or the agent pane (narrow: raise or lower the agent)."""
        self.panes.toggle(pane)

    def action_resize(self, step: int) -> None:
        """Widen (``step`` > 0) or narrow the focused column; on the page, widen the page itself."""
        self.panes.resize(step)

    def action_filter_pages(self) -> None:
        """Focus the page tree's filter."""
        self.action_focus_pane("wiki")
        self.query_one("#wiki-filter", Input).focus()

    def action_help(self) -> None:
        """Show every key binding."""
        from wikitui.ui.screens.help import HelpScreen, places

        self.app.push_screen(HelpScreen(places(type(self.app), MainScreen), keymap=self._keymap()))

    def action_reload(self) -> None:
        """Re-read the vault."""
        self.post_message(self.ReloadRequested())

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Grey out Back/Forward at the ends of the history; leave keys to text inputs."""
        if action in ("search", "graph") and isinstance(self.focused, (Input, TextArea)):
            return False  # "/" and "g" type in the input: the footer does not offer them
        if action in ("back", "forward"):
            if isinstance(self.focused, (Input, TextArea)):
                return False
            history = self.navigator.history
            return True if (history.can_go_back if action == "back" else history.can_go_forward) else None
        return True

    # -------------------------------------------------------------- navigation
    def action_back(self) -> None:
        """Go back to the previous place, at the scroll position it was left."""
        self.navigator.back()

    def action_forward(self) -> None:
        """Go forward again."""
        self.navigator.forward()

    def action_open_index(self) -> None:
        """Open index.md."""
        self.navigator.open_path(self.workspace.vault.index_path)

    def action_clip(self) -> None:
        """Clip a web page or a file into raw/ (asks for it), then open it."""
        from wikitui.ui.screens.clip import ask_and_clip

        ask_and_clip(self, self.open_path)

    def action_inbox(self) -> None:
        """Bring the configured feeds' new items into raw/inbox/ (``wikitui inbox``), in a worker."""
        self.inbox.start()

    def action_inbox_import(self) -> None:
        """Import an export (bookmarks, Pocket, mail, Slack...) into raw/inbox/: asks for it, then a worker."""
        from wikitui.ui.screens.inbox_import import InboxImportScreen

        def chosen(source: str | None) -> None:
            if source:
                self.inbox.start_import(source)

        self.app.push_screen(InboxImportScreen(), chosen)

    def files_added(self, paths: list[str], *, reveal: bool) -> None:
        """New files are in raw/ (the inbox's): the graph, the trees and the index learn them.

        ``reveal`` moves the Sources cursor to the first of them (a run the user asked for).
        """
        if self.workspace.graph is None:
            return
        self.workspace.files_changed(paths, index=False)
        self.vault_changed(set(paths))
        self._index_later(paths)
        if reveal:
            vault = self.workspace.vault
            self.query_one(SourceTree).reveal(paths[0], paths[0][len(vault.raw_prefix) + 1:])

    def action_search(self) -> None:
        """Open the full-text search screen."""
        self.navigator.search(self.index_watch)

    def action_outline(self) -> None:
        """List the page's headings; the one chosen scrolls into view (back returns)."""
        self.navigator.outline()

    def action_history(self) -> None:
        """The shown page's versions: compare any two, propose one back (``h`` on the page)."""
        from wikitui.ui.screens.history import HistoryScreen

        path = self.current_path
        if path is None or self.current_kind != "page":
            self.notify("History is for pages: open a page first.", severity="warning")
            return
        self.app.push_screen(HistoryScreen(self.workspace, path))

    def action_graph(self, view: str = "local") -> None:
        """The shown page's local graph (``g``), or the whole wiki's (``view="whole"``, or no page shown)."""
        from wikitui.ui.screens.graph import GraphScreen

        if self.workspace.graph is None:
            self.notify("The link graph is still loading: try again in a moment.", severity="warning")
            return
        centre = self.current_path if self.current_path in self.workspace.graph.pages else None
        screen = GraphScreen(self.workspace, centre, whole=view == "whole", memo=self._graph_memo)

        def chosen(path: str | None) -> None:
            self._graph_memo = screen.memo
            if path is not None:
                self.navigator.open_path(path)

        self.app.push_screen(screen, chosen)

    @on(PageTree.PageSelected)
    @on(SourceTree.SourceSelected)
    def _tree_chose(self, message: PageTree.PageSelected | SourceTree.SourceSelected) -> None:
        """A page chosen in the Wiki tree, or a source in the Sources tree (read-only)."""
        message.stop()
        self.navigator.open_path(message.path)

    @on(LinksPanel.LinkChosen)
    def _outgoing_chosen(self, message: LinksPanel.LinkChosen) -> None:
        """An outgoing link chosen in the links panel: follow it as the page would."""
        message.stop()
        page = self.query_one(PageView)
        if 0 <= message.index < len(page.links):
            page.select_link(message.index)
            self.navigator.follow(page.links[message.index])

    @on(PageView.LinkActivated)
    def _link_activated(self, message: PageView.LinkActivated) -> None:
        """``enter`` (or a click) on a link of the page."""
        message.stop()
        if message.link is not None:  # (always set on this message; its base allows None)
            self.navigator.follow(message.link)

    @on(PageView.LinkHighlighted)
    def _link_highlighted(self, message: PageView.LinkHighlighted) -> None:
        """The link cursor moved: say on the border where the link goes."""
        message.stop()
        self.query_one(PageView).border_subtitle = self.navigator.describe_link(message.link)

    def action_mark_reviewed(self) -> None:
        """The page shown is checked against its sources: it is no longer stale."""
        self.page_display.mark_reviewed()

    # ------------------------------------------------------------ sync
    def _page_shown(self, path: str) -> None:
        """A page opened: no longer marked as changed by others."""
        tree = self.query_one(PageTree)
        if path in tree.tree.unread:
            from wikitui.core.sync.unread import mark_read

            mark_read(self.workspace.vault, path)
            tree.set_unread(tree.tree.unread - {path})

    def show_unread(self) -> None:
        """Mark in the tree the pages others changed since they were last opened here."""
        from wikitui.core.sync.unread import read_unread

        self.query_one(PageTree).set_unread(read_unread(self.workspace.vault))

    def action_sync(self) -> None:
        """Bring the git upstream's commits in and push ours (``wikitui sync``), in a worker."""
        self.notify("Syncing with the upstream…", timeout=3)
        self.start_sync(push=True)

    def _turn_running(self) -> bool:
        from wikitui.ui.widgets.chat_pane import ChatPane

        try:
            return bool(self.query_one(ChatPane).busy)
        except NoMatches:  # the agent pane is not mounted yet: no turn can run
            return False

    def _has_pending(self) -> bool:
        from wikitui.core.changes.pending import PendingStore

        return bool(PendingStore(self.workspace.vault).list())

    def start_sync(self, *, push: bool, scheduled: bool = False) -> None:
        """Run a sync in a worker (``scheduled``: the background one, whose notices stay quiet)."""
        self._sync_worker(push, scheduled)

    @work(thread=True, exclusive=True, group="sync", name="sync")
    def _sync_worker(self, push: bool, scheduled: bool) -> None:
        from wikitui.core.base.errors import WikituiError
        from wikitui.core.sync.run import sync

        try:
            result = sync(self.workspace.vault, push=push)
        except WikituiError as exc:  # offline, no upstream, not a repository: one notice
            self.app.call_from_thread(self._sync_failed, str(exc), scheduled)
            return
        self.app.call_from_thread(self._synced, result, scheduled)

    @handed_over
    def _sync_failed(self, why: str, scheduled: bool) -> None:
        if scheduled:
            notice = self.sync_schedule.finished(failed=why)
            if notice:
                self.notify(notice, title="Sync", severity="warning", timeout=6)
            return
        self.notify(why, title="Sync", severity="warning")

    @handed_over
    def _synced(self, result: Any, scheduled: bool = False) -> None:
        """Show what a sync did, and bring the trees and the page up to date with what it wrote."""
        changed = [*result.written, *result.deleted]
        if changed and self.workspace.graph is not None:
            self.workspace.files_changed(changed, index=False)
            self.vault_changed(set(changed))
            self._index_later(changed)
        self.show_unread()
        if scheduled:
            notice = self.sync_schedule.finished(came_in=len(result.incoming), conflicts=len(result.conflicts))
            if notice:
                self.notify(notice, title="Sync", severity="warning" if result.conflicts else "information")
            return
        if result.conflicts:
            from wikitui.ui.screens.sync_conflicts import SyncConflictsScreen

            self.notify(f"{plural(len(result.conflicts), 'conflict')} with {result.upstream}: nothing was written "
                        "or pushed until each is resolved", title="Sync", severity="warning", timeout=8)
            self.app.push_screen(SyncConflictsScreen(self.workspace, result.conflicts, result.upstream,
                                                     sync_again=lambda: self.start_sync(push=True)))
            return
        bits = [f"{plural(len(result.incoming), 'commit')} came in"] if result.incoming else []
        bits += [f"pushed {plural(len(result.outgoing), 'commit')}"] if result.pushed else []
        self.notify("; ".join(bits) if bits else f"Up to date with {result.upstream}", title="Sync")
        incoming = {c.changeset for c in result.incoming if c.changeset}
        if incoming:
            self.show_incoming(incoming, result.upstream)

    def show_incoming(self, changesets: set[str], upstream: str) -> None:
        """The digest of what came in: its changesets' log entries as rows (enter: the diff; r: revert this)."""
        from wikitui.ui.screens.log_rows import LogScreen

        self.app.push_screen(LogScreen(self.workspace, only=changesets, heading=f"Came in from {upstream}"))

    # ------------------------------------------------------------ editing
    def action_edit_page(self) -> None:
        """Open the page in ``$VISUAL``/``$EDITOR`` (the app steps aside meanwhile), then show it again."""
        from wikitui.ui.editor import edit_shown_page

        edit_shown_page(self)

    def page_edited(self, path: str) -> None:
        """A page was changed outside: bring the graph, the trees, the page and the index up to date."""
        if self.workspace.graph is None:
            self.navigator.redisplay(keep_scroll=True, changed=True)
            return
        self._page_written(path)
        self.vault_changed({path})

    def _page_written(self, path: str) -> None:
        """The UI wrote or edited ``path``: the graph learns it now, the index in a worker."""
        if self.workspace.graph is None:
            return
        changed = self.workspace.files_changed([path], index=False)
        for warning in changed.warnings:  # a page that no longer parses still shows (as text)
            self.notify(warning, severity="warning")
        self.refresh_trees(self.workspace.graph)
        self._index_later([path])

    @work(thread=True, group="index-update", name="index update")
    def _index_later(self, paths: list[str]) -> None:
        self.workspace.index_paths(paths)

    # ------------------------------------------------- the app's background work
    def graph_ready(self, graph: LinkGraph, prepared: PreparedPages | None = None) -> None:
        """The link graph arrived: fill the trees and re-show the page with its links resolved."""
        self.refresh_trees(graph, prepared)
        self.show_unread()
        self.navigator.redisplay(keep_scroll=True)

    def refresh_trees(self, graph: LinkGraph, prepared: PreparedPages | None = None) -> None:
        """Rebuild the Sources and Wiki trees and their counts from ``graph`` (``prepared``: the wiki tree's entries)."""
        self.query_one(IndexStatus).summary = ""
        citations = self.page_display.citations = source_citations(graph)
        vault = graph.vault
        self.query_one(SourceTree).set_sources(sorted(graph.raw_files), set(citations), vault.raw_prefix)
        self.query_one(PageTree).set_pages(graph, prepared)
        raws = len(graph.raw_files)
        ingested = sum(1 for r in graph.raw_files if r in citations)
        self.query_one("#sources").border_subtitle = f"{ingested}/{raws} ingested" if raws else "raw/ is empty"
        self.query_one("#wiki").border_subtitle = plural(len(graph.pages), "page")
        if self.current_path:
            self.navigator.reveal_in_trees(self.current_path)

    def vault_changed(self, paths: set[str], prepared: PreparedPages | None = None) -> None:
        """Files changed on disk: refresh the trees, the page shown and its links."""
        graph = self.workspace.graph
        if graph is None:
            return
        self.refresh_trees(graph, prepared)
        if self.current_path is not None and self.current_path in paths:
            self.navigator.redisplay(keep_scroll=True, changed=True)
        else:
            self.page_display.refresh_links()

    def on_index_progress(self, message: IndexProgress) -> None:
        """Show the search index's progress beside the footer (and tell an open search screen)."""
        self.index_watch.report(message)
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
        self.navigator.open_path(message.path, anchor=message.anchor, line=message.line)

    @on(IngestRequested)
    def _ingest_requested(self, message: IngestRequested) -> None:
        message.stop()
        self.agent_pane.request_ingest(message.path)

    @on(AskAgentRequested)
    def _ask_requested(self, message: AskAgentRequested) -> None:
        message.stop()
        self.panes.raise_agent()
        self.agent_pane.request(message.prompt)
