"""The ``/`` full-text search screen: results as you type, snippets with the matches highlighted."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from wikitui.core.vault.visible_text import visible, visible_line

if TYPE_CHECKING:
    from wikitui.core.search.results import Hit
    from wikitui.core.workspace import Workspace
    from wikitui.ui.index_watch import IndexWatch
    from wikitui.ui.messages import IndexProgress

#: Results asked of the index per query.
RESULT_LIMIT = 40
_MARK = re.compile(r"\*\*(.+?)\*\*")


def snippet_text(snippet: str, highlight: str | Style = "bold reverse") -> Text:
    """A search snippet with its ``**term**`` marks turned into highlighted text."""
    text = Text(no_wrap=False)
    pos = 0
    flat = " ".join(visible(snippet).split())  # a page's escapes drawn, never sent (DESIGN §8)
    for m in _MARK.finditer(flat):
        text.append(flat[pos : m.start()])
        text.append(m.group(1), style=highlight)
        pos = m.end()
    text.append(flat[pos:])
    return text


def hit_prompt(hit: "Hit", highlight: str | Style = "bold reverse") -> Text:
    """How one hit looks in the list: title, path and kind, then the snippet."""
    text = Text()
    text.append(visible_line(hit.title or hit.path), style="bold")
    text.append(f"  {visible_line(hit.path)}", style="dim")
    if hit.line:
        text.append(f":{hit.line}", style="dim")
    if hit.kind == "raw":
        text.append("  source", style="italic dim")
    if hit.snippet:
        text.append("\n")
        text.append_text(snippet_text(hit.snippet, highlight))
    return text


def waiting_text(workspace: Workspace, progress: IndexProgress) -> str:
    """Why a query cannot run yet: the build's progress, or why there is no index."""
    from wikitui.core.workspace import IndexState

    if workspace.index_state is IndexState.FAILED:
        return f"Search is not available: {workspace.index_error or 'the index could not be opened'}."
    if workspace.index_state is IndexState.OFF:
        return "Search is off: the index is not built in this session."
    counted = f" {progress.done} of {progress.total}" if progress.total else ""
    return f"indexing…{counted} · the results appear here when the index is ready"


class SearchScreen(ModalScreen["Hit | None"]):
    """Search the wiki and the sources; dismisses with the chosen hit.

    Opened while the index is still being built, it shows the build's progress and
    runs the query by itself once the index is ready.

    | Key | Action |
    | :- | :- |
    | up / down | Move through the results. |
    | enter | Open the highlighted result at its line (typed before the results are in: the first, once they are). |
    | escape | Close. |
    """

    CSS_PATH = "search.tcss"
    COMPONENT_CLASSES: ClassVar[set[str]] = {"search--match"}
    AUTO_FOCUS = "#search-input"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close search"),
        Binding("down", "move(1)", "Next result", show=False),
        Binding("up", "move(-1)", "Previous result", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
    ]

    def __init__(self, workspace: Workspace, index_watch: IndexWatch, query: str = "") -> None:
        """Args:
        workspace: The open vault; its index is looked up on every query, so an index
            that becomes ready while the screen is up is used at once.
        index_watch: The index build's progress, followed while the screen waits for it.
        query: Text to start with.
        """
        super().__init__()
        self._workspace = workspace
        self._watch = index_watch
        self._initial = query
        self._hits: list[Hit] = []
        #: Whether the query typed is waiting for the index.
        self._waiting = False
        #: The query whose results the list shows (None: none shown yet).
        self._shown: str | None = None
        #: The query enter was pressed on before its results were in: its first result opens when they are.
        self._open_when_shown: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="search") as box:
            box.border_title = "Search"
            box.border_subtitle = "words · \"phrase\" · prefix* · fuzzy~ · tag:x · type:concept · kind:raw"
            yield Input(self._initial, placeholder="search the wiki and its sources", id="search-input")
            yield Static("", id="search-status")
            yield OptionList(id="search-results")

    def on_mount(self) -> None:
        """Follow the index's build; run the initial query, if any."""
        self._watch.signal.subscribe(self, self._index_changed)
        if self._initial:
            self._run(self._initial)

    def _index_changed(self, _progress: "IndexProgress") -> None:
        """The build moved on or ended: show its progress, or run the waiting query."""
        if self._waiting:
            self._run(self.query_one("#search-input", Input).value)

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        self._run(event.value)

    def _run(self, query: str) -> None:
        was_waiting, self._waiting = self._waiting, False
        if not query.strip():
            self._hits = []
            self._shown = None
            self.query_one(OptionList).clear_options()
            self.query_one("#search-status", Static).update("")
            return
        from wikitui.core.workspace import IndexState

        workspace = self._workspace
        index = workspace.search_index
        if index is None:
            self._waiting = workspace.index_state in (IndexState.PENDING, IndexState.BUILDING)
            self.query_one("#search-status", Static).update(waiting_text(workspace, self._watch.progress))
            return
        if was_waiting:  # the index just opened: its first search takes a moment
            self.query_one("#search-status", Static).update("the index is ready · searching…")
        self._search(index, query)

    @work(thread=True, exclusive=True, group="search")
    def _search(self, index: Any, query: str) -> None:
        from wikitui.core.base.errors import WikituiError

        worker = get_current_worker()
        try:
            hits = index.search(query, scope="all", limit=RESULT_LIMIT)
            error = ""
        except WikituiError as exc:
            hits, error = [], str(exc)
        except Exception as exc:  # an index mid-rebuild must not take the screen down
            hits, error = [], f"search failed: {exc}"
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, query, hits, error)

    def _show(self, query: str, hits: list["Hit"], error: str) -> None:
        if query != self.query_one("#search-input", Input).value:
            return  # a newer query is on its way
        self._hits = hits
        self._shown = query
        if self._open_when_shown == query:  # enter was typed ahead of these results (right after launch)
            self._open_when_shown = None
            if hits and not error:
                self.dismiss(hits[0])
                return
        status = self.query_one("#search-status", Static)
        if error:
            status.update(Text(error, style="italic"))
        else:
            more = "+" if len(hits) == RESULT_LIMIT else ""
            line = f"{len(hits)}{more} result{'s' if len(hits) != 1 else ''} · enter opens · esc closes"
            notes = getattr(hits, "notes", ())  # how the query was run, when not as typed (a fuzzy~9 capped)
            line = " · ".join([line if hits else "No results.", *notes])
            status.update(Text(line, style="italic") if notes else line)
        ol = self.query_one(OptionList)
        match = self.get_component_rich_style("search--match", partial=True)
        ol.set_options([Option(hit_prompt(h, match)) for h in hits])
        if hits:
            ol.highlighted = 0

    def action_move(self, step: int) -> None:
        """Move the highlight through the results (the input keeps the focus)."""
        ol = self.query_one(OptionList)
        if not ol.option_count:
            return
        current = ol.highlighted if ol.highlighted is not None else -1
        ol.highlighted = max(0, min(ol.option_count - 1, current + step))

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        if event.value.strip() and event.value != self._shown:
            # Its results are not in yet (the index is opening, or the search runs):
            # keys typed ahead are handled in order, so this enter opens the first one.
            self._open_when_shown = event.value
            return
        ol = self.query_one(OptionList)
        if ol.highlighted is not None and ol.highlighted < len(self._hits):
            self.dismiss(self._hits[ol.highlighted])

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < len(self._hits):
            self.dismiss(self._hits[event.option_index])

    def action_close(self) -> None:
        """Close without opening anything."""
        self.dismiss(None)
