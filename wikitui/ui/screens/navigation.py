"""Going places in the workspace: opening pages and sources, following links, back and forward.

Every route that opens something (tree, palette, search, link, backlink, outline)
ends in :meth:`Navigator.open_path`, which records the place in the history
(:class:`~wikitui.core.base.navigation.History`, a pure class) and puts the focus in the
page pane. :class:`Navigator` is an object the workspace screen owns: the screen's
key actions and message handlers call it; it shows places through the screen's
:class:`~wikitui.ui.screens.page_display.PageDisplay` and reads the link graph from
the :class:`~wikitui.core.workspace.Workspace` it was given.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wikitui.core.base.errors import UnsafePath
from wikitui.core.base.navigation import History
from wikitui.core.vault.files import atomic_write
from wikitui.ui.messages import AskAgentRequested
from wikitui.ui.screens.dialogs import ConfirmScreen, CreateChoice, CreatePageScreen, suggest_page_path
from wikitui.ui.screens.page_display import PageDisplay
from wikitui.ui.screens.source_display import cited_page
from wikitui.ui.widgets.links_panel import LinksPanel
from wikitui.ui.widgets.page_tree import PageTree
from wikitui.ui.widgets.page_view import PageView
from wikitui.ui.widgets.source_tree import SourceTree

if TYPE_CHECKING:
    from textual.screen import Screen

    from wikitui.core.search.results import Hit
    from wikitui.core.vault.links import Link
    from wikitui.core.vault.page import Heading
    from wikitui.core.workspace import Workspace
    from wikitui.ui.index_watch import IndexWatch


class Navigator:
    """Where the page pane is, where it was, and how to get elsewhere.

    Args:
        screen: The workspace screen (its widgets, dialogs and notifications).
        workspace: The open vault.
        display: What shows the places (the page pane and links panel).
        opener: Opens an external URL (after the user confirms).
        on_created: Called with a page's path after :meth:`create_page` wrote it.
    """

    def __init__(self, screen: Screen, workspace: Workspace, display: PageDisplay, *,
                 opener: Callable[[str], Any], on_created: Callable[[str], None],
                 on_shown: Callable[[str], None] = lambda _path: None) -> None:
        self.screen = screen
        self.workspace = workspace
        self.display = display
        self.opener = opener
        self.on_created = on_created
        #: Called with each path once it is shown (it is then read: no longer marked as changed by others).
        self.on_shown = on_shown
        #: Pages and sources visited, for back and forward.
        self.history = History()
        self._waiting_for_first_page = False
        self._history_keys: tuple[bool, bool] | None = None

    @property
    def page(self) -> PageView:
        """The page pane."""
        return self.screen.query_one(PageView)

    # ----------------------------------------------------------------- opening
    def open_initial_page(self, last_page: str | None) -> None:
        """Show ``last_page`` (the page last open in this vault), else index.md, else (once known) the first page."""
        vault = self.workspace.vault
        for candidate in (last_page, vault.index_path):
            if candidate and (vault.root / candidate).is_file() and vault.is_page_path(candidate):
                self.open_path(candidate, rows=False)  # a vault last left on log.md opens on its text
                return
        self._waiting_for_first_page = True

    def open_path(self, path: str, *, anchor: str = "", line: int | None = None, focus: bool = True,
                  rows: bool = True) -> None:
        """Open a page or a raw source, remember it for back/forward, and focus the page pane.

        Args:
            path: Vault-relative path.
            anchor: Heading or ``^block`` to scroll to.
            line: 1-based line to bring into view (search hits, backlinks).
            focus: Move the focus to the page pane.
            rows: log.md opens as its entries' rows (:class:`~wikitui.ui.screens.log_rows.LogScreen`); False: as text.
        """
        page = self.page
        self.history.remember(path, anchor=anchor, leaving_scroll=page.scroll_y)
        self._show(path, anchor=anchor, line=line, visit=rows)
        if focus:
            page.focus()

    def redisplay(self, *, keep_scroll: bool = True, changed: bool = False) -> None:
        """Show the current place again (the graph arrived, or the file changed on disk)."""
        path = self.display.current_path
        if path is None:
            graph = self.workspace.graph
            if self._waiting_for_first_page and graph is not None:
                self._waiting_for_first_page = False
                pages = sorted(graph.pages)
                if pages:
                    self.open_path(pages[0])
                else:
                    self.page.show_message("No pages yet", "This wiki has no pages. Ask the agent to ingest a source.")
                    self.screen.query_one(LinksPanel).clear()
            return
        self._show(path, scroll_y=self.page.scroll_y if keep_scroll else 0, changed=changed)

    def _show(self, path: str, *, anchor: str = "", line: int | None = None, scroll_y: float = 0,
              changed: bool = False, visit: bool = False) -> None:
        self.display.show(path, anchor=anchor, line=line, scroll_y=scroll_y, changed=changed)
        self.on_shown(path)
        self.reveal_in_trees(path)
        self.refresh_history_keys()
        if visit and path == self.workspace.vault.log_path and self.display.current_kind == "page":
            self._log_rows()

    def _log_rows(self) -> None:
        """log.md's entries as rows over the page pane; ``t`` leaves its text shown, ``esc`` goes back."""
        from wikitui.ui.screens.log_rows import LogScreen

        def closed(how: str | None) -> None:
            if how == "back":
                self.back()

        if not isinstance(self.screen.app.screen, LogScreen):
            self.screen.app.push_screen(LogScreen(self.workspace), closed)

    def reveal_in_trees(self, path: str) -> None:
        """Move the tree cursors to ``path`` without taking the focus."""
        vault = self.workspace.vault
        if self.workspace.graph is None:
            return
        if vault.is_raw(path):
            self.screen.query_one(SourceTree).reveal(path, path[len(vault.raw_prefix) + 1 :])
        else:
            self.screen.query_one(PageTree).reveal(path)

    # ------------------------------------------------------------- history
    def refresh_history_keys(self) -> None:
        """Grey Back/Forward in or out, only when that changed (the footer rebuilds on each refresh)."""
        state = (self.history.can_go_back, self.history.can_go_forward)
        if state != self._history_keys:
            self._history_keys = state
            self.screen.refresh_bindings()

    def back(self) -> None:
        """Go back to the previous place, at the scroll position it was left."""
        page = self.page
        loc = self.history.back(leaving_scroll=page.scroll_y)
        if loc is not None:
            self._show(loc.path, scroll_y=loc.scroll_y, visit=True)
            page.focus()

    def forward(self) -> None:
        """Go forward again."""
        page = self.page
        loc = self.history.forward(leaving_scroll=page.scroll_y)
        if loc is not None:
            self._show(loc.path, scroll_y=loc.scroll_y, visit=True)
            page.focus()

    def outline(self) -> None:
        """List the page's headings (``ctrl+o``); the one chosen scrolls into view, and back returns."""
        from wikitui.ui.screens.outline import OutlineScreen

        display, notify = self.display, self.screen.notify
        info = display.current_info if display.current_kind == "page" else None
        if info is None:
            notify("The outline lists the headings of a wiki page; open one first.", severity="warning")
            return
        if not info.headings:
            notify(f"{info.title} has no headings.")
            return
        path = display.current_path
        assert path is not None  # a page is shown: its info is

        def chosen(heading: Heading | None) -> None:
            if heading is not None:
                self.jump_to_heading(path, heading)

        self.screen.app.push_screen(OutlineScreen(info.title, info.headings), chosen)

    def jump_to_heading(self, path: str, heading: Heading) -> None:
        """Scroll the page shown to ``heading`` (chosen in the outline), remembering the place for back."""
        if self.display.current_path != path:
            return
        page = self.page
        self.history.remember(path, anchor=heading.text, leaving_scroll=page.scroll_y)
        if page.slides is not None:  # a deck: the slide that holds the heading
            page.slides.go_to(page.slides.index_for(line=heading.line) or 0)
        elif not page.scroll_to_line(heading.line):
            page.scroll_to_anchor(heading.text)
        self.refresh_history_keys()
        page.focus()

    # ------------------------------------------------------------- search
    def search(self, index_watch: IndexWatch) -> None:
        """Open the full-text search screen; the hit chosen opens at its line."""
        from wikitui.ui.screens.search import SearchScreen

        def opened(hit: Hit | None) -> None:
            if hit is not None:
                self.open_path(hit.path, line=hit.line)

        self.screen.app.push_screen(SearchScreen(self.workspace, index_watch), opened)

    # ------------------------------------------------------------- links
    def describe_link(self, link: Link | None) -> str:
        """Where ``link`` goes, for the page pane's border."""
        if link is None:
            return ""
        if link.kind == "url":
            return f"↗ {link.target}"
        graph, current = self.workspace.graph, self.display.current_path
        if graph is None or current is None:
            return f"→ {link.target}"
        target = graph.resolve(link, current)
        anchor = f" › {link.anchor}" if link.anchor else ""
        if target is None:
            return f"✗ {link.target}: no such page (enter offers to create it)"
        if target in graph.pages:
            return f"→ {graph.pages[target].title}{anchor}  {graph.vault.wiki_relative(target)}"
        page = cited_page(link.anchor)
        return f"▤ {target} (source)" + (f" › page {page}" if page is not None else "")

    def follow(self, link: Link) -> None:
        """Follow a link: open its page, offer to create a missing one, open a source, or confirm a URL."""
        notify = self.screen.notify
        if link.kind == "url":
            self._confirm_external(link.target)
            return
        graph, current = self.workspace.graph, self.display.current_path
        if graph is None or current is None:
            notify("The wiki is still loading; try again in a moment.")
            return
        target = graph.resolve(link, current)
        if target is None:
            if link.embed and "." in link.target.rsplit("/", 1)[-1] and not link.target.lower().endswith(".md"):
                notify(f"{link.target}: file not found in the vault", severity="warning")
            else:
                self._offer_create(link)
            return
        if target == current and link.anchor:
            page = self.page
            self.history.remember(target, anchor=link.anchor, leaving_scroll=page.scroll_y)
            if not page.scroll_to_anchor(link.anchor):
                notify(f"no heading or block “{link.anchor}” on this page", severity="warning")
            self.refresh_history_keys()
            return
        self.open_path(target, anchor=link.anchor)
        if link.anchor and target in graph.pages and not self._has_anchor(target, link.anchor):
            notify(f"no heading or block “{link.anchor}” on {graph.pages[target].title}", severity="warning")

    def _has_anchor(self, path: str, anchor: str) -> bool:
        graph = self.workspace.graph
        info = graph.pages.get(path) if graph is not None else None
        if info is None:
            return True
        a = anchor.lstrip("^").casefold()
        return any(h.text.casefold() == anchor.casefold() for h in info.headings) or a in (
            b.casefold() for b in info.block_ids)

    def _confirm_external(self, url: str) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                try:
                    self.opener(url)
                except Exception as exc:
                    self.screen.notify(f"could not open the browser: {exc}", severity="error")

        self.screen.app.push_screen(ConfirmScreen("Open in the browser?", url, yes="Open"), answered)

    def _offer_create(self, link: Link) -> None:
        current = self.display.current_path
        from wikitui.core.vault.new_page import obsidian_location

        vault = self.workspace.vault
        suggested = suggest_page_path(link.target, current, vault.wiki_prefix, obsidian_location(vault.root))
        title = link.target.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        if title.lower().endswith(".md"):
            title = title[:-3]

        def chosen(choice: CreateChoice | None) -> None:
            if choice is None:
                return
            if choice.action == "ask":
                self.screen.post_message(
                    AskAgentRequested(f"Write the missing page [[{link.target}]] (linked from {current}).")
                )
            else:
                self.create_page(choice.path, title)

        self.screen.app.push_screen(CreatePageScreen(link.target, suggested), chosen)

    def create_page(self, path: str, title: str) -> bool:
        """Write a blank page with a ``title`` in its frontmatter, then open it.

        Returns:
            Whether the page was written.
        """
        vault, notify = self.workspace.vault, self.screen.notify
        try:
            target = vault.writable_path(path)
        except UnsafePath as exc:
            notify(str(exc), severity="error")
            return False
        if not vault.is_page_path(path):
            notify(f"{path}: pages are .md files in the wiki folder", severity="error")
            return False
        if target.exists():
            notify(f"{path} already exists; opening it")
            self.open_path(path)
            return False
        content = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n\n# {title}\n\n"
        try:
            atomic_write(target, content)
        except OSError as exc:
            notify(f"could not write {path}: {exc.strerror or exc}", severity="error")
            return False
        self.on_created(path)
        notify(f"created {path}")
        self.open_path(path)
        return True
