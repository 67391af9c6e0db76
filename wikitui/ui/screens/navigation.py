"""Opening pages and sources, following links, and going back and forward.

Every route that opens something (tree, palette, search, link, backlink) ends in
:meth:`NavigationMixin.open_path`, which records the place in the history and puts
the focus in the page pane. A page is read from disk each time it is shown (it
may have changed); its parsed info comes from the link graph when the graph's copy
is current.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from wikitui.core.errors import UnsafePath
from wikitui.core.vault.files import atomic_write, decode_text, is_binary
from wikitui.core.vault.page import PageInfo, parse_page
from wikitui.ui.messages import AskAgentRequested
from wikitui.ui.screens.dialogs import ConfirmScreen, CreateChoice, CreatePageScreen, suggest_page_path
from wikitui.ui.widgets.links_panel import LinksPanel
from wikitui.ui.widgets.page_tree import PageTree
from wikitui.ui.widgets.page_view import PageView
from wikitui.ui.widgets.source_tree import SourceTree

if TYPE_CHECKING:
    from wikitui.core.vault.links import Link
    from wikitui.core.search.results import Hit

#: Pages above this size get a notice (they still open: the page pane paints only what shows).
LARGE_PAGE = 1_000_000


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"  # pragma: no cover


def lexer_for(path: str) -> str:
    """The pygments lexer name for a source file, from its name ("text" when none fits)."""
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_for_filename(path).aliases[0]
    except (ClassNotFound, IndexError):
        return "text"


class NavigationMixin:
    """Navigation for :class:`~wikitui.ui.screens.main.MainScreen` (mixed into it).

    Message handlers here use Textual's naming convention (``on_page_view_link_activated``)
    because ``@on`` only registers handlers of classes built by Textual's metaclass.
    """

    def init_navigation(self) -> None:
        """Set up the navigation state (called from the screen's ``__init__``)."""
        #: Vault-relative path of what the page pane shows (None before anything).
        self.current_path: str | None = None
        #: "page", "source" or "missing".
        self.current_kind = ""
        #: The parsed page shown (its headings make the outline); None for a source.
        self.current_info: PageInfo | None = None

    # ----------------------------------------------------------------- opening
    def open_initial_page(self) -> None:
        """Show the page last open in this vault, else index.md, else (once known) the first page."""
        app = self.wapp
        vault = app.vault
        for candidate in (app.vault_state.last_page, vault.index_path):
            if candidate and (vault.root / candidate).is_file() and vault.is_page_path(candidate):
                self.open_path(candidate)
                return
        self._waiting_for_first_page = True

    def open_path(self, path: str, *, anchor: str = "", line: int | None = None, focus: bool = True) -> None:
        """Open a page or a raw source, remember it for back/forward, and focus the page pane.

        Args:
            path: Vault-relative path.
            anchor: Heading or ``^block`` to scroll to.
            line: 1-based line to bring into view (search hits, backlinks).
            focus: Move the focus to the page pane.
        """
        page = self.query_one(PageView)
        self.wapp.history.remember(path, anchor=anchor, leaving_scroll=page.scroll_y)
        self._display(path, anchor=anchor, line=line)
        if focus:
            page.focus()

    def redisplay(self, *, keep_scroll: bool = True, changed: bool = False) -> None:
        """Show the current place again (the graph arrived, or the file changed on disk)."""
        if self.current_path is None:
            if getattr(self, "_waiting_for_first_page", False) and self.wapp.graph is not None:
                self._waiting_for_first_page = False
                pages = sorted(self.wapp.graph.pages)
                if pages:
                    self.open_path(pages[0])
                else:
                    self.query_one(PageView).show_message("No pages yet", "This wiki has no pages. Ask the agent to ingest a source.")
                    self.query_one(LinksPanel).clear()
            return
        page = self.query_one(PageView)
        self._display(self.current_path, scroll_y=page.scroll_y if keep_scroll else 0, changed=changed)

    def _display(
        self, path: str, *, anchor: str = "", line: int | None = None, scroll_y: float = 0, changed: bool = False
    ) -> None:
        app = self.wapp
        graph = app.graph
        is_page = path in graph.pages if graph is not None else app.vault.is_page_path(path)
        if not is_page and app.vault.is_page_path(path):
            is_page = True  # a page the graph has not seen yet (just created, or deleted)
        self.current_path = path
        if is_page:
            self._display_page(path, anchor=anchor, line=line, scroll_y=scroll_y, changed=changed)
        else:
            self._display_source(path, line=line, scroll_y=scroll_y)
        self.reveal_in_trees(path)
        self._refresh_history_keys()

    def _read(self, path: str) -> bytes | None:
        """The file's bytes, or None after showing why it cannot be read."""
        page = self.query_one(PageView)
        try:
            return (self.wapp.vault.root / path).read_bytes()
        except FileNotFoundError:
            self.current_kind = "missing"
            page.border_title = f"{path} · deleted"
            page.border_subtitle = ""
            page.show_message(
                "Page deleted",
                f"{path} is no longer on disk (deleted or moved outside wikitui). "
                "Go back with backspace, or pick another page.",
            )
            self.query_one(LinksPanel).clear("The page shown no longer exists.")
            self.notify(f"{path} was deleted", severity="warning")
            return None
        except OSError as exc:
            self.current_kind = "missing"
            page.show_message("Cannot read this file", f"{path}: {exc.strerror or exc}")
            self.query_one(LinksPanel).clear()
            self.notify(f"cannot read {path}: {exc.strerror or exc}", severity="error")
            return None

    def _display_page(self, path: str, *, anchor: str, line: int | None, scroll_y: float, changed: bool) -> None:
        app = self.wapp
        data = self._read(path)
        if data is None:
            return
        text, utf8 = decode_text(data)
        info = self._info_for(path, text, len(data))
        graph = app.graph
        resolve = (lambda link, _p=path, _g=graph: _g.resolve(link, _p)) if graph is not None else None
        page = self.query_one(PageView)
        page.show(text, path=path, info=info, resolve=resolve, scroll_y=scroll_y, anchor=anchor or None, valid_utf8=utf8)
        if line:
            self._scroll_to_line(line)
        self.current_kind = "page"
        self.current_info = info
        app.vault_state.last_page = path
        page.border_title = f"{info.title} · {info.type}" if info.type else info.title
        page.border_subtitle = ""
        if not changed:
            if info.frontmatter_error:
                self.notify(f"{path}: frontmatter does not parse ({info.frontmatter_error}); shown as text", severity="warning")
            if not utf8:
                self.notify(f"{path} is not valid UTF-8; undecodable bytes are shown as \ufffd", severity="warning")
            if len(data) > LARGE_PAGE:
                self.notify(f"{path} is a large page ({_size(len(data))})", severity="information")
        self.refresh_links()

    def _info_for(self, path: str, text: str, size: int) -> PageInfo:
        """The graph's info when it matches the file read, else a fresh parse."""
        graph = self.wapp.graph
        info = graph.pages.get(path) if graph is not None else None
        if info is not None:
            try:
                st = os.stat(self.wapp.vault.root / path)
                if (info.mtime_ns, info.size) == (st.st_mtime_ns, st.st_size):
                    return info
            except OSError:
                pass
        return parse_page(path, text, size=size)

    def _display_source(self, path: str, *, line: int | None, scroll_y: float) -> None:
        app = self.wapp
        page = self.query_one(PageView)
        data = self._read(path)
        if data is None:
            return
        self.current_kind = "source"
        self.current_info = None
        page.border_title = f"{path} · read-only source"
        page.border_subtitle = ""
        citing = self.citations.get(path, [])
        if is_binary(data):
            page.show_message(
                "Binary file",
                f"{path} is a binary file ({_size(len(data))}); it cannot be shown as text. "
                f"{len(citing)} page(s) cite it (listed below).",
            )
            self.notify(f"{path} is binary: not shown", severity="warning")
        else:
            text, utf8 = decode_text(data)
            if not utf8:
                self.notify(f"{path} is not valid UTF-8; undecodable bytes are shown as \ufffd", severity="warning")
            page.show(text, path=path, scroll_y=scroll_y, read_only_source=lexer_for(path), valid_utf8=utf8)
            if line:
                self._scroll_to_line(line)
        graph = app.graph
        if graph is not None:
            self.query_one(LinksPanel).show_source(graph, path, citing)

    def _scroll_to_line(self, line: int) -> None:
        page = self.query_one(PageView)
        page.scroll_to_line(line)

    def refresh_links(self) -> None:
        """Refill the links panel for the page shown."""
        graph = self.wapp.graph
        panel = self.query_one(LinksPanel)
        if self.current_path is None or self.current_kind == "missing":
            return
        if graph is None:
            panel.clear("Loading the wiki…")
        elif self.current_kind == "source":
            panel.show_source(graph, self.current_path, self.citations.get(self.current_path, []))
        elif self.current_path in graph.pages:
            panel.show_page(graph, self.current_path)
        else:
            panel.clear("This page is not in the wiki's link graph yet.")

    def reveal_in_trees(self, path: str) -> None:
        """Move the tree cursors to ``path`` without taking the focus."""
        if self.wapp.graph is None:
            return
        if self.wapp.vault.is_raw(path):
            self.query_one(SourceTree).reveal(path, path[len(self.wapp.vault.raw_prefix) + 1 :])
        else:
            self.query_one(PageTree).reveal(path)

    # ------------------------------------------------------------- history
    def _refresh_history_keys(self) -> None:
        """Grey Back/Forward in or out, only when that changed (the footer rebuilds on each refresh)."""
        history = self.wapp.history
        state = (history.can_go_back, history.can_go_forward)
        if state != getattr(self, "_history_keys", None):
            self._history_keys = state
            self.refresh_bindings()

    def action_back(self) -> None:
        """Go back to the previous place, at the scroll position it was left."""
        page = self.query_one(PageView)
        loc = self.wapp.history.back(leaving_scroll=page.scroll_y)
        if loc is not None:
            self._display(loc.path, scroll_y=loc.scroll_y)
            page.focus()

    def action_forward(self) -> None:
        """Go forward again."""
        page = self.query_one(PageView)
        loc = self.wapp.history.forward(leaving_scroll=page.scroll_y)
        if loc is not None:
            self._display(loc.path, scroll_y=loc.scroll_y)
            page.focus()

    def action_open_index(self) -> None:
        """Open index.md."""
        self.open_path(self.wapp.vault.index_path)

    # ------------------------------------------------------------- search
    def action_search(self) -> None:
        """Open the full-text search screen."""
        from wikitui.ui.screens.search import SearchScreen

        def opened(hit: "Hit | None") -> None:
            if hit is not None:
                self.open_path(hit.path, line=hit.line)

        self.app.push_screen(SearchScreen(self.wapp), opened)

    # ------------------------------------------------------------- links
    def on_page_tree_page_selected(self, message: PageTree.PageSelected) -> None:
        """A page chosen in the Wiki tree."""
        message.stop()
        self.open_path(message.path)

    def on_source_tree_source_selected(self, message: SourceTree.SourceSelected) -> None:
        """A source chosen in the Sources tree: open it read-only."""
        message.stop()
        self.open_path(message.path)

    def on_links_panel_link_chosen(self, message: LinksPanel.LinkChosen) -> None:
        """An outgoing link chosen in the links panel: follow it as the page would."""
        message.stop()
        page = self.query_one(PageView)
        if 0 <= message.index < len(page.links):
            page.select_link(message.index)
            self.follow(page.links[message.index])

    def on_page_view_link_activated(self, message: PageView.LinkActivated) -> None:
        """``enter`` (or a click) on a link of the page."""
        message.stop()
        self.follow(message.link)

    def on_page_view_link_highlighted(self, message: PageView.LinkHighlighted) -> None:
        """The link cursor moved: say on the border where the link goes."""
        message.stop()
        self.query_one(PageView).border_subtitle = self.describe_link(message.link)

    def describe_link(self, link: "Link | None") -> str:
        """Where ``link`` goes, for the page pane's border."""
        if link is None:
            return ""
        if link.kind == "url":
            return f"↗ {link.target}"
        graph = self.wapp.graph
        if graph is None or self.current_path is None:
            return f"→ {link.target}"
        target = graph.resolve(link, self.current_path)
        anchor = f" › {link.anchor}" if link.anchor else ""
        if target is None:
            return f"✗ {link.target}: no such page (enter offers to create it)"
        if target in graph.pages:
            return f"→ {graph.pages[target].title}{anchor}  {graph.vault.wiki_relative(target)}"
        return f"▤ {target} (source)"

    def follow(self, link: "Link") -> None:
        """Follow a link: open its page, offer to create a missing one, open a source, or confirm a URL."""
        if link.kind == "url":
            self._confirm_external(link.target)
            return
        graph = self.wapp.graph
        if graph is None or self.current_path is None:
            self.notify("The wiki is still loading; try again in a moment.")
            return
        target = graph.resolve(link, self.current_path)
        if target is None:
            if link.embed and "." in link.target.rsplit("/", 1)[-1] and not link.target.lower().endswith(".md"):
                self.notify(f"{link.target}: file not found in the vault", severity="warning")
            else:
                self._offer_create(link)
            return
        if target == self.current_path and link.anchor:
            page = self.query_one(PageView)
            self.wapp.history.remember(target, anchor=link.anchor, leaving_scroll=page.scroll_y)
            if not page.scroll_to_anchor(link.anchor):
                self.notify(f"no heading or block “{link.anchor}” on this page", severity="warning")
            self._refresh_history_keys()
            return
        self.open_path(target, anchor=link.anchor)
        if link.anchor and target in graph.pages and not self._has_anchor(target, link.anchor):
            self.notify(f"no heading or block “{link.anchor}” on {graph.pages[target].title}", severity="warning")

    def _has_anchor(self, path: str, anchor: str) -> bool:
        info = self.wapp.graph.pages.get(path) if self.wapp.graph else None
        if info is None:
            return True
        a = anchor.lstrip("^").casefold()
        return any(h.text.casefold() == anchor.casefold() for h in info.headings) or a in (b.casefold() for b in info.block_ids)

    def _confirm_external(self, url: str) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                try:
                    self.wapp.opener(url)
                except Exception as exc:
                    self.notify(f"could not open the browser: {exc}", severity="error")

        self.app.push_screen(ConfirmScreen("Open in the browser?", url, yes="Open"), answered)

    def _offer_create(self, link: "Link") -> None:
        vault = self.wapp.vault
        suggested = suggest_page_path(link.target, self.current_path, vault.wiki_prefix)
        title = link.target.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        if title.lower().endswith(".md"):
            title = title[:-3]

        def chosen(choice: CreateChoice | None) -> None:
            if choice is None:
                return
            if choice.action == "ask":
                self.post_message(
                    AskAgentRequested(f"Write the missing page [[{link.target}]] (linked from {self.current_path}).")
                )
            else:
                self.create_page(choice.path, title)

        self.app.push_screen(CreatePageScreen(link.target, suggested), chosen)

    def create_page(self, path: str, title: str) -> bool:
        """Write a blank page with a ``title`` in its frontmatter, then open it.

        Returns:
            Whether the page was written.
        """
        vault = self.wapp.vault
        try:
            target = vault.writable_path(path)
        except UnsafePath as exc:
            self.notify(str(exc), severity="error")
            return False
        if not vault.is_page_path(path):
            self.notify(f"{path}: pages are .md files in the wiki folder", severity="error")
            return False
        if target.exists():
            self.notify(f"{path} already exists; opening it")
            self.open_path(path)
            return False
        content = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n\n# {title}\n\n"
        try:
            atomic_write(target, content)
        except OSError as exc:
            self.notify(f"could not write {path}: {exc.strerror or exc}", severity="error")
            return False
        graph = self.wapp.graph
        if graph is not None:
            graph.update_path(path)
            self.refresh_trees(graph)
        if self.wapp.search_index is not None:
            self.wapp._update_index([path])
        self.notify(f"created {path}")
        self.open_path(path)
        return True
