"""Showing one place in the page pane: a page (rendered) or a raw source (read-only), with its links.

A page is read from disk each time it is shown (it may have changed); its parsed
info comes from the link graph when the graph's copy is current. :class:`PageDisplay`
is owned by the workspace screen and used by its
:class:`~wikitui.ui.screens.navigation.Navigator`, which decides what to show.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from wikitui.core.vault.files import decode_text, is_binary
from wikitui.core.vault.formats.kinds import needs_conversion
from wikitui.core.vault.page import PageInfo, parse_page
from wikitui.core.vault.claims import ClaimRecords
from wikitui.core.vault.staleness import SourceRecords
from wikitui.core.vault.visible_text import visible_line
from wikitui.core.base.words import plural
from wikitui.ui.screens.embedded_notes import load_embedded_notes
from wikitui.ui.screens.embedded_pictures import load_embedded_pictures
from wikitui.ui.screens.source_display import hide_picture, lexer_for, show_converted
from wikitui.ui.state import VaultState
from wikitui.ui.widgets.links_panel import LinksPanel
from wikitui.ui.widgets.page_view import PageView
from wikitui.ui.widgets.slide_mode import SlideMode, show_slide

if TYPE_CHECKING:
    from textual.screen import Screen

    from wikitui.core.workspace import Workspace

#: Pages above this size get a notice (they still open: the page pane paints only what shows).
LARGE_PAGE = 1_000_000
#: Raw sources above this size are read in a worker (their first 4 MB, with a note), never on the UI thread.
LARGE_SOURCE = 1_000_000


def size_text(n: float) -> str:
    """A byte count for people ("1.5 MB")."""
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"  # pragma: no cover


def _large(path) -> bool:
    """Whether a file is too large to read on the UI thread (a missing one is not: it shows as deleted)."""
    try:
        return os.stat(path).st_size > LARGE_SOURCE
    except OSError:
        return False


class PageDisplay:
    """What the page pane shows, and showing it.

    Args:
        screen: The workspace screen (its page view, links panel and notifications).
        workspace: The open vault (files, graph).
        vault_state: Remembered per-vault state: the page last shown is recorded there.
    """

    def __init__(self, screen: Screen, workspace: Workspace, vault_state: VaultState) -> None:
        self.screen = screen
        self.workspace = workspace
        self.vault_state = vault_state
        #: Vault-relative path of what the page pane shows (None before anything).
        self.current_path: str | None = None
        #: "page", "source" or "missing".
        self.current_kind = ""
        #: The parsed page shown (its headings make the outline); None for a source.
        self.current_info: PageInfo | None = None
        #: Raw source path → pages citing it (refreshed with the graph).
        self.citations: dict[str, list[str]] = {}

    @property
    def page(self) -> PageView:
        """The page pane."""
        return self.screen.query_one(PageView)

    def show(self, path: str, *, anchor: str = "", line: int | None = None, scroll_y: float = 0,
             changed: bool = False) -> None:
        """Show a page or a raw source (``changed``: it is the same place, changed on disk: no notices again)."""
        vault, graph = self.workspace.vault, self.workspace.graph
        is_page = path in graph.pages if graph is not None else vault.is_page_path(path)
        if not is_page and vault.is_page_path(path):
            is_page = True  # a page the graph has not seen yet (just created, or deleted)
        self.current_path = path
        hide_picture(self)  # an image source shown before gives the pane back
        if is_page:
            self._show_page(path, anchor=anchor, line=line, scroll_y=scroll_y, changed=changed)
        else:
            self._show_source(path, anchor=anchor, line=line, scroll_y=scroll_y)

    def _read(self, path: str) -> bytes | None:
        """The file's bytes, or None after showing why it cannot be read."""
        page = self.page
        try:
            return (self.workspace.root / path).read_bytes()
        except FileNotFoundError:
            self.current_kind = "missing"
            page.slides = None
            page.border_title = f"{visible_line(path)} · deleted"
            page.border_subtitle = ""
            page.show_message(
                "Page deleted",
                f"{path} is no longer on disk (deleted or moved outside wikitui). "
                "Go back with backspace, or pick another page.",
            )
            self.screen.query_one(LinksPanel).clear("The page shown no longer exists.")
            self.screen.notify(f"{path} was deleted", severity="warning")
            return None
        except OSError as exc:
            self.current_kind = "missing"
            page.show_message("Cannot read this file", f"{path}: {exc.strerror or exc}")
            self.screen.query_one(LinksPanel).clear()
            self.screen.notify(f"cannot read {path}: {exc.strerror or exc}", severity="error")
            return None

    def _show_page(self, path: str, *, anchor: str, line: int | None, scroll_y: float, changed: bool) -> None:
        data = self._read(path)
        if data is None:
            return
        text, utf8 = decode_text(data)
        info = self._info_for(path, text, len(data))
        graph = self.workspace.graph
        resolve = (lambda link, _p=path, _g=graph: _g.resolve(link, _p)) if graph is not None else None
        page = self.page
        title = f"{info.title} · {info.type}" if info.type else info.title
        # The same deck shown again (changed on disk, the graph arrived): the same slide.
        kept = page.slides.index if page.slides is not None and page.slides.path == path else 0
        page.slides = SlideMode.for_text(text, lambda s: show_slide(page, s, path, resolve, title), kept, path)
        if page.slides is not None:  # a Marp deck: one slide at a time, the one holding the line or heading
            found = page.slides.index_for(line=line, anchor=anchor or None)
            page.slides.index = found if found is not None else page.slides.index
            show_slide(page, page.slides.current, path, resolve, title)
        else:
            page.show(text, path=path, info=info, resolve=resolve, scroll_y=scroll_y, anchor=anchor or None,
                      valid_utf8=utf8)
            page.border_title = visible_line(title)
            if line:
                page.scroll_to_line(line)
            load_embedded_pictures(self, path)  # drawn under their embed lines once decoded, in a worker
            load_embedded_notes(self, path)  # ``![[Page#^id]]``: the block under its embed line, read in a worker
        self.current_kind = "page"
        self.current_info = info
        self.vault_state.last_page = path
        page.border_subtitle = ""
        self._check_stale(path, info)
        if not changed:
            notify = self.screen.notify
            if info.frontmatter_error:
                notify(f"{path}: frontmatter does not parse ({info.frontmatter_error}); shown as text",
                       severity="warning")
            if not utf8:
                notify(f"{path} is not valid UTF-8; undecodable bytes are shown as \ufffd", severity="warning")
            if len(data) > LARGE_PAGE:
                notify(f"{path} is a large page ({size_text(len(data))})", severity="information")
        self.refresh_links()

    # ------------------------------------------------------------- staleness
    def _check_stale(self, path: str, info: PageInfo) -> None:
        """Say in the page's title when a source it lists changed, and list its claims whose evidence lines
        moved or vanished (DESIGN §11; hashing and reading the sources run in a thread)."""
        graph = self.workspace.graph
        if graph is None or path not in graph.pages:
            return
        records = SourceRecords(self.workspace.vault)
        claims = ClaimRecords(self.workspace.vault)

        def check() -> None:
            changed = records.stale_sources(path, graph) if info.sources else []
            if changed:
                self.screen.app.call_from_thread(self._show_stale, path, changed)
            stale_claims = claims.stale([path])
            if stale_claims:
                self.screen.app.call_from_thread(self._show_stale_claims, path, stale_claims)

        self.screen.run_worker(check, thread=True, group="stale", exclusive=True)

    def _show_stale(self, path: str, changed: list[str]) -> None:
        if path != self.current_path or self.current_kind != "page":
            return
        shown = ", ".join(changed[:2]) + (f" and {len(changed) - 2} more" if len(changed) > 2 else "")
        page = self.page
        base = page.border_title.split(" · stale: ", 1)[0] if isinstance(page.border_title, str) else ""
        page.border_title = f"{base} · stale: {visible_line(shown)} changed"

    def _show_stale_claims(self, path: str, stale_claims: list) -> None:
        if path == self.current_path and self.current_kind == "page":
            self.screen.query_one(LinksPanel).show_stale_claims(path, stale_claims)

    def mark_reviewed(self) -> None:
        """The user checked the page against its sources: record their hashes; it is no longer stale."""
        path, graph = self.current_path, self.workspace.graph
        if path is None or self.current_kind != "page" or graph is None or path not in graph.pages:
            self.screen.notify("Open a page to mark it reviewed.", severity="warning")
            return
        record = SourceRecords(self.workspace.vault).mark_reviewed(path, graph)
        page = self.page
        if isinstance(page.border_title, str):
            page.border_title = page.border_title.split(" · stale: ", 1)[0]
        what = plural(len(record), "source") if record else "no source it lists"
        self.screen.notify(f"{path} marked reviewed against {what}.")

    def _info_for(self, path: str, text: str, size: int) -> PageInfo:
        """The graph's info when it matches the file read, else a fresh parse."""
        graph = self.workspace.graph
        info = graph.pages.get(path) if graph is not None else None
        if info is not None:
            try:
                st = os.stat(self.workspace.root / path)
                if (info.mtime_ns, info.size) == (st.st_mtime_ns, st.st_size):
                    return info
            except OSError:
                pass
        return parse_page(path, text, size=size)

    def _show_source(self, path: str, *, anchor: str = "", line: int | None, scroll_y: float) -> None:
        page = self.page
        page.slides = None
        absolute = self.workspace.root / path
        if (needs_conversion(path) and absolute.is_file()) or _large(absolute):  # read (and converted) in a worker
            self.current_kind = "source"
            self.current_info = None
            show_converted(self, path, anchor=anchor, line=line, scroll_y=scroll_y)  # in a worker
            self.refresh_links()
            return
        data = self._read(path)
        if data is None:
            return
        self.current_kind = "source"
        self.current_info = None
        page.border_title = f"{visible_line(path)} · read-only source"
        page.border_subtitle = ""
        citing = self.citations.get(path, [])
        if is_binary(data):
            page.show_message(
                "Binary file",
                f"{path} is a binary file ({size_text(len(data))}); it cannot be shown as text. "
                f"{plural(len(citing), 'page')} {'cites' if len(citing) == 1 else 'cite'} it (listed below).",
            )
            self.screen.notify(f"{path} is binary: not shown", severity="warning")
        else:
            text, utf8 = decode_text(data)
            if not utf8:
                self.screen.notify(f"{path} is not valid UTF-8; undecodable bytes are shown as \ufffd",
                                   severity="warning")
            page.show(text, path=path, scroll_y=scroll_y, read_only_source=lexer_for(path), valid_utf8=utf8)
            if line:
                page.scroll_to_line(line)
        graph = self.workspace.graph
        if graph is not None:
            self.screen.query_one(LinksPanel).show_source(graph, path, citing)

    def refresh_links(self) -> None:
        """Refill the links panel for the place shown."""
        graph = self.workspace.graph
        panel = self.screen.query_one(LinksPanel)
        path = self.current_path
        if path is None or self.current_kind == "missing":
            return
        if graph is None:
            panel.clear("Loading the wiki…")
        elif self.current_kind == "source":
            panel.show_source(graph, path, self.citations.get(path, []))
        elif path in graph.pages:
            panel.show_page(graph, path)
        else:
            panel.clear("This page is not in the wiki's link graph yet.")
