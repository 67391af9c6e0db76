"""The wiki on a date (DESIGN §15, issue 27.3): a page as it was on a day, read-only, its links followed on that day.

Opened from a page's history (``d``, then a day). The page is rendered as in the page
pane, under a title that says which day and which version it shows and that it is
read-only; ``tab`` and ``enter`` follow a link to the linked page *as it was on the
same day* (a page deleted since is found by its path in the history), ``backspace``
goes back a step, ``esc`` closes. Versions are read (git, or wikitui's records) in a
thread worker; nothing is written.

| key | action |
| --- | --- |
| `tab` / `shift+tab`, `enter` | select a link, follow it on the same day |
| `backspace` | the page before |
| `esc` | close |
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Label

from wikitui.core.vault.visible_text import visible_line
from wikitui.ui.handover import handed_over
from wikitui.ui.widgets.page_view import PageView

if TYPE_CHECKING:
    from wikitui.core.vault.links import Link
    from wikitui.core.workspace import Workspace


class DatedPageScreen(Screen[None]):
    """A page as it was at the end of ``day``, read-only; its links lead to their pages on that day.

    Args:
        workspace: The open vault.
        path: The page's vault-relative path.
        day: The day.
    """

    CSS_PATH = "dated_page.tcss"
    AUTO_FOCUS = "#dated-page"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("backspace", "back", "Back"),
    ]

    def __init__(self, workspace: Workspace, path: str, day: _dt.date) -> None:
        super().__init__()
        self.workspace = workspace
        self.day = day
        #: The pages visited on this day, the one shown last.
        self.trail: list[str] = [path]
        #: What the title says (which page, which day, which version).
        self.heading = ""

    @property
    def path(self) -> str:
        """The page shown."""
        return self.trail[-1]

    def compose(self) -> ComposeResult:
        yield Label(f"Loading {visible_line(self.path)} as it was on {self.day.isoformat()}…", id="dated-title")
        yield PageView(id="dated-page")
        yield Footer()

    def on_mount(self) -> None:
        """Read the page on that day off the UI thread."""
        self._load(self.path, None)

    @work(thread=True, exclusive=True, group="dated-page")
    def _load(self, name: str, link: str | None) -> None:
        """Read ``name`` on the day; ``link``: the link followed to it (None: the first page, or back)."""
        from wikitui.core.changes.dated import page_named_then
        from wikitui.core.changes.versions import history_path, text_at
        from wikitui.core.base.errors import WikituiError

        ws = self.workspace
        try:
            graph = ws.require_graph()
            path = page_named_then(ws.vault, graph, name, self.path) or history_path(ws.vault, graph, name)
            text, version = text_at(ws.vault, graph, path, self.day)
        except WikituiError as exc:
            self.app.call_from_thread(self._missing, str(exc), link is None)
            return
        self.app.call_from_thread(self._loaded, path, text, version.when, link is not None)

    @handed_over
    def _loaded(self, path: str, text: str, when: str, followed: bool) -> None:
        graph = self.workspace.graph
        if followed:
            self.trail.append(path)
        resolve = (lambda lnk, _p=path, _g=graph: _g.resolve(lnk, _p)) if graph is not None else None
        page = self.query_one(PageView)
        page.show(text, path=path, resolve=resolve)
        self.heading = (f"{path} as it was on {self.day.isoformat()} (version of {when}) · read-only · "
                        "links open on the same day")
        self.query_one("#dated-title", Label).update(visible_line(self.heading))
        page.border_title = visible_line(f"{path} · {self.day.isoformat()} · read-only")

    @handed_over
    def _missing(self, message: str, first: bool) -> None:
        self.notify(message, severity="warning")
        if first:
            self.query_one("#dated-title", Label).update(visible_line(message))

    @on(PageView.LinkActivated)
    def _follow(self, event: PageView.LinkActivated) -> None:
        event.stop()
        link = event.link
        if link is None:
            return
        target = self._target(link)
        if target is None:
            what = "a web address" if link.kind == "url" else "a link to nothing"
            self.notify(f"{visible_line(link.text)} is {what}; only pages are followed on "
                        f"{self.day.isoformat()}", severity="warning")
            return
        self._load(target, link.target)

    def _target(self, link: Link) -> str | None:
        """The page (a path or name) a link leads to: resolved now, or its target as written for a page since gone."""
        if link.kind == "url":
            return None
        graph = self.workspace.graph
        found = graph.resolve(link, self.path) if graph is not None else None
        if found is not None:
            return found if self.workspace.vault.is_page_path(found) else None
        return link.target or None

    def action_back(self) -> None:
        """The page before on this day."""
        if len(self.trail) > 1:
            self.trail.pop()
            self._load(self.path, None)

    def action_close(self) -> None:
        """Close."""
        self.dismiss(None)
