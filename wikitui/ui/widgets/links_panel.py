"""The links panel below the page: Backlinks, Outgoing, Unlinked mentions and Contradictions.

Obsidian's three lists for the page shown. Backlinks carry their line of context;
unlinked mentions (the page's title or aliases named in plain text elsewhere) need
every other page read from disk, so they are computed in a worker, a moment after
the page opens and only while the panel is shown; in a large wiki only when the
Unlinked list is opened (a thread reading 10,000 files would slow every frame).
A page's ``> [!contradiction]`` callouts (DESIGN §11) get a list of their own, whose
tab shows only on a page that has some; so do its stale claims (claims whose evidence lines
moved or vanished since they were applied, DESIGN §11 "Evidence"), filled by
:meth:`LinksPanel.show_stale_claims` once a thread has read the sources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial, wraps
from typing import TYPE_CHECKING, Callable, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wikitui.core.vault.contradictions import Contradiction, page_contradictions
from wikitui.core.vault.visible_text import has_unsafe, visible_line
from wikitui.ui.messages import OpenRequested

if TYPE_CHECKING:
    from wikitui.core.vault.graph import LinkGraph

TABS = ("backlinks", "outgoing", "unlinked", "contradictions", "claims")
#: The lists shown only when they have entries, first (the header is one line; a narrow pane cuts its end).
_WHEN_ANY = ("claims", "contradictions")
#: Most entries a list shows.
LIST_LIMIT = 300
#: Above this many pages, unlinked mentions are looked for only when their list is opened.
AUTO_UNLINKED_PAGES = 1000
#: Seconds to wait after a page opens before looking for unlinked mentions.
UNLINKED_DELAY = 0.3


@dataclass(slots=True)
class _Entry:
    """What an option of the list opens."""

    kind: str  # "open" (path + line) or "link" (outgoing link index)
    path: str | None = None
    line: int | None = None
    index: int | None = None


#: The rows of one list: (what draws the row, what choosing it opens).
_Rows = list[tuple[Callable[[], Text], "_Entry | None"]]


class LinksTabs(Static):
    """The one-line tab header; a click switches tabs."""

    def action_show_tab(self, name: str) -> None:
        """Switch the panel to tab ``name``."""
        panel = self.parent
        if isinstance(panel, LinksPanel):
            panel.tab = name


class LinksPanel(Vertical):
    """Backlinks (with context), outgoing links and unlinked mentions of the page shown.

    | Key | Action |
    | :- | :- |
    | left / right | Previous / next list. |
    | b / o / u / c / s | Backlinks / Outgoing / Unlinked / Contradictions / Stale claims. |
    | enter | Open the entry. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cycle_tab(-1)", "Prev list", show=False),
        Binding("right", "cycle_tab(1)", "Next list", show=False),
        Binding("b", "show_tab('backlinks')", "Backlinks", show=False),
        Binding("o", "show_tab('outgoing')", "Outgoing", show=False),
        Binding("u", "show_tab('unlinked')", "Unlinked", show=False),
        Binding("c", "show_tab('contradictions')", "Contradictions", show=False),
        Binding("s", "show_tab('claims')", "Stale claims", show=False),
    ]

    DEFAULT_CSS = """
    LinksPanel { height: auto; }
    LinksPanel > LinksTabs {
        height: 1;
        padding: 0;
        color: $text-muted;
        link-style: none;
        link-color: $text-muted;
        link-style-hover: bold;
        link-background-hover: $boost;
    }
    LinksPanel > OptionList {
        height: 1fr;
        border: none;
        padding: 0;
        background: transparent;
        scrollbar-size-vertical: 1;
    }
    LinksPanel > OptionList:focus { background-tint: $foreground 3%; }
    """

    tab: reactive[str] = reactive("backlinks")
    """The list shown: ``backlinks``, ``outgoing`` or ``unlinked``."""

    @dataclass
    class UnlinkedFound(Message):
        """The worker found the unlinked mentions of ``path`` (the list's rows), or could not (``error``)."""

        bubble: ClassVar[bool] = False
        path: str
        items: list
        error: str = ""

    @dataclass
    class LinkChosen(Message):
        """The reader chose an outgoing link: follow it as the page would.

        Attributes:
            index: Index of the link among the page's links (its tab stop).
        """

        index: int

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._graph: LinkGraph | None = None
        self._path: str | None = None
        self._is_source = False
        self._stale_claims: tuple[str, _Rows] | None = None  # (page, its stale claims' rows)
        # Each entry renders itself on demand: a page may have 50,000 links, and only
        # the first LIST_LIMIT of a list are ever shown.
        self._lists: dict[str, list[tuple[Callable[[], Text], _Entry | None]]] = {t: [] for t in TABS}
        self._unlinked_for: str | None = None
        self._unlinked_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        """The tab header over the list of entries."""
        yield LinksTabs(id="links-tabs", markup=True)
        yield OptionList(id="links-list")

    @property
    def option_list(self) -> OptionList:
        """The list of entries."""
        return self.query_one("#links-list", OptionList)

    # ------------------------------------------------------------------- content
    def clear(self, note: str = "") -> None:
        """Show nothing (no page open); ``note`` explains why."""
        self._path = None
        self._lists = {t: [] for t in TABS}
        if note:
            self._lists["backlinks"] = [(partial(Text, note, style="dim italic"), None)]
        self._unlinked_for = None
        self._render_tabs()
        self._render_list()

    def show_page(self, graph: "LinkGraph", path: str) -> None:
        """Fill the lists for page ``path``."""
        self._graph, self._path, self._is_source = graph, path, False
        back: _Rows = [
            (partial(_context_line, graph, b.source, b.link.line, b.link.context), _Entry("open", b.source, b.link.line))
            for b in graph.backlinks(path)
        ]
        out: _Rows = [
            (partial(_outgoing_line, graph, link, target), _Entry("link", index=i))
            for i, (link, target) in enumerate(graph.outgoing(path))
        ]
        contra: _Rows = [
            (partial(_contradiction_line, c), _Entry("open", path, c.line))
            for c in page_contradictions(graph.vault, path)
        ]
        claims = self._stale_claims[1] if self._stale_claims and self._stale_claims[0] == path else []
        self._lists = {"backlinks": back, "outgoing": out, "unlinked": [], "contradictions": contra, "claims": claims}
        if self.tab in _WHEN_ANY and not self._lists[self.tab]:
            self.tab = "backlinks"
        self._unlinked_for = None
        self._render_tabs()
        self._render_list()
        self._schedule_unlinked()

    def show_source(self, graph: "LinkGraph", path: str, citing: list[str]) -> None:
        """Fill the lists for raw source ``path``: the pages that cite or link to it."""
        self._graph, self._path, self._is_source = graph, path, True
        cited: list[tuple[Callable[[], Text], _Entry | None]] = []
        seen = set()
        for page in citing:
            seen.add(page)
            cited.append((partial(_context_line, graph, page, None, "lists it in sources"), _Entry("open", page)))
        for b in graph.backlinks(path):
            if b.source not in seen:
                cited.append(
                    (partial(_context_line, graph, b.source, b.link.line, b.link.context), _Entry("open", b.source, b.link.line))
                )
        self._lists = {"backlinks": cited, "outgoing": [], "unlinked": [], "contradictions": [], "claims": []}
        self._unlinked_for = path
        if self.tab != "backlinks":
            self.tab = "backlinks"
        self._render_tabs()
        self._render_list()

    def show_stale_claims(self, path: str, claims: list) -> None:
        """List the claims of page ``path`` whose evidence moved or vanished
        (:class:`~wikitui.core.vault.claims.StaleClaim`); choosing one opens the source where the lines are now."""
        if path != self._path or self._is_source:
            return  # an answer for a page no longer shown
        rows: _Rows = [(partial(_stale_claim_line, c), _Entry("open", c.source, (c.now or c.was)[0])) for c in claims]
        self._stale_claims = (path, rows)  # kept while the page is shown: the lists are refilled often
        self._lists["claims"] = rows
        if self.tab == "claims" and not rows:
            self.tab = "backlinks"
        self._render_tabs()
        self._render_list(reset=False)

    def counts(self) -> dict[str, int | None]:
        """Entries per list (None for unlinked mentions not yet counted)."""
        out: dict[str, int | None] = {t: sum(1 for _, e in self._lists[t] if e) for t in TABS}
        if self._unlinked_for != self._path:
            out["unlinked"] = None
        return out

    def _render_tabs(self) -> None:
        counts = self.counts()
        names = {"backlinks": "Cited by" if self._is_source else "Backlinks", "outgoing": "Outgoing",
                 "unlinked": "Unlinked", "contradictions": "⚠ Contradictions", "claims": "⚠ Stale claims"}
        parts = []
        for t in self._tabs():
            n = counts[t]
            if n is None and not self._unlinked_wanted():
                label = names[t]  # not counted until asked for (large wiki)
            else:
                label = f"{names[t]} ({'…' if n is None else n})"
            if t == self.tab:
                parts.append(f"[@click=show_tab('{t}')][bold reverse] {label} [/][/]")
            else:
                parts.append(f"[@click=show_tab('{t}')] {label} [/]")
        self.query_one(LinksTabs).update(" ".join(parts))

    def _render_list(self, reset: bool = True) -> None:
        ol = self.option_list
        items = self._lists[self.tab]
        width = max(10, ol.scrollable_content_region.width - 1)
        options: list[Option] = []
        for i, (render, entry) in enumerate(items[:LIST_LIMIT]):
            # One line per entry: long context is cut with an ellipsis rather than wrapped.
            fitted = render()
            fitted.truncate(width, overflow="ellipsis")
            options.append(Option(fitted, id=f"e{i}", disabled=entry is None))
        if len(items) > LIST_LIMIT:
            more = f"… {len(items) - LIST_LIMIT:,} more (follow them from the page with tab)"
            options.append(Option(Text(more, style="dim italic"), disabled=True))
        if not options:
            empty = {
                "backlinks": "No page links here.",
                "outgoing": "This page links nowhere.",
                "unlinked": "Looking for mentions…" if self.counts()["unlinked"] is None else "No unlinked mentions.",
                "contradictions": "No contradiction noted on this page.",
                "claims": "No claim of this page lost its evidence.",
            }[self.tab]
            options.append(Option(Text(empty, style="dim italic"), disabled=True))
        keep = ol.highlighted
        ol.set_options(options)
        if items:
            ol.highlighted = keep if keep is not None and keep < len(items) and not reset else 0

    def on_resize(self) -> None:
        """Fit the entries to the new width."""
        if self._path is not None:
            self.call_after_refresh(self._render_list, reset=False)

    def watch_tab(self) -> None:
        """Show the chosen list (looking for unlinked mentions when they are asked for)."""
        if self.is_mounted:
            if self.tab == "unlinked" and self._path is not None and self._unlinked_for != self._path:
                self._schedule_unlinked()
            self._render_tabs()
            self._render_list()

    def action_cycle_tab(self, step: int) -> None:
        """Show the next (or previous) list."""
        tabs = self._tabs()
        i = tabs.index(self.tab) if self.tab in tabs else 0
        self.tab = tabs[(i + step) % len(tabs)]

    def action_show_tab(self, name: str) -> None:
        """Show list ``name``."""
        if name in self._tabs():
            self.tab = name

    def _tabs(self) -> tuple[str, ...]:
        """The lists offered: a source has only its citers; Contradictions only when there are some."""
        if self._is_source:
            return ("backlinks",)
        # First when there are some: the header is one line, and on a narrow pane its end is cut.
        return (*(t for t in _WHEN_ANY if self._lists[t]), *(t for t in TABS if t not in _WHEN_ANY))

    # ----------------------------------------------------------------- opening
    @on(OptionList.OptionSelected, "#links-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        idx = event.option_index
        items = self._lists[self.tab]
        if not (0 <= idx < len(items)):
            return
        entry = items[idx][1]
        if entry is None:
            return
        if entry.kind == "link" and entry.index is not None:
            self.post_message(self.LinkChosen(entry.index))
        elif entry.path is not None:
            self.post_message(OpenRequested(entry.path, line=entry.line))

    # --------------------------------------------------------- unlinked mentions
    def _schedule_unlinked(self) -> None:
        if self._unlinked_timer is not None:
            self._unlinked_timer.stop()
        self._unlinked_timer = self.set_timer(UNLINKED_DELAY, self._start_unlinked)

    def _unlinked_wanted(self) -> bool:
        """Whether to look for unlinked mentions now: a small wiki, or the list is open."""
        small = self._graph is not None and len(self._graph.pages) <= AUTO_UNLINKED_PAGES
        return small or self.tab == "unlinked"

    def _start_unlinked(self) -> None:
        if self._graph is None or self._path is None or self._is_source or not self.display:
            return
        if self._unlinked_wanted():
            self._find_unlinked(self._graph, self._path)

    def on_show(self) -> None:
        """Count mentions the panel skipped while hidden."""
        if self._path is not None and self._unlinked_for != self._path and not self._is_source:
            self._schedule_unlinked()

    @work(thread=True, exclusive=True, group="unlinked")
    def _find_unlinked(self, graph: "LinkGraph", path: str) -> None:
        try:
            mentions = graph.unlinked_mentions(path)
        except Exception as exc:  # a file vanishing mid-scan must not crash the panel
            self.post_message(self.UnlinkedFound(path, [], error=f"unlinked mentions: {exc}"))  # thread-safe
            return
        items = [(partial(_context_line, graph, m.path, m.line, m.context), _Entry("open", m.path, m.line)) for m in mentions]
        self.post_message(self.UnlinkedFound(path, items))

    def on_links_panel_unlinked_found(self, message: UnlinkedFound) -> None:
        if message.error:
            self.notify(message.error, severity="warning")
            return
        path, items = message.path, message.items
        if path != self._path:
            return  # a stale answer for a page no longer shown
        self._lists["unlinked"] = items
        self._unlinked_for = path
        self._render_tabs()
        if self.tab == "unlinked":
            self._render_list()


def _title(graph: "LinkGraph", path: str) -> str:
    info = graph.pages.get(path)
    return info.title if info is not None else path


_WIKILINK_TEXT = re.compile(r"!?\[\[([^\[\]|#]*)(?:#[^\[\]|]*)?(?:\|([^\[\]]*))?\]\]")


def readable(context: str) -> str:
    """A line of markdown as a reader would say it: ``[[Target|label]]`` becomes ``label``."""
    return _WIKILINK_TEXT.sub(lambda m: m.group(2) or m.group(1), context)


def _shown(build):
    """``build``'s line, redrawn plain with its control and invisible characters visible when it holds any."""

    @wraps(build)
    def line(*args) -> Text:
        text = build(*args)
        if not has_unsafe(text.plain):
            return text
        return Text(visible_line(text.plain), no_wrap=True, overflow="ellipsis")

    return line


@_shown
def _context_line(graph: "LinkGraph", source: str, line: int | None, context: str) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(_title(graph, source), style="bold")
    if line is not None:
        text.append(f":{line}", style="dim")
    text.append("  ")
    text.append(readable(context), style="dim")
    return text


@_shown
def _stale_claim_line(c) -> Text:
    """``⚠ vanished raw/x.md 200 “the claim”``: a claim whose evidence lines changed (``moved`` shows old→new)."""
    where = f"{c.was[0]}→{c.now[0]}" if c.state == "moved" and c.now else f"{c.was[0]}"
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"⚠ {c.state} ", style="bold red" if c.state == "vanished" else "bold yellow")
    text.append(f"{c.source}:{where} ", style="dim")
    text.append(f"“{c.claim}”")
    return text


@_shown
def _contradiction_line(c: Contradiction) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("⚠ ", style="dim")
    text.append(c.claim)
    if c.other:
        text.append(f"  — {c.other} says {c.other_claim}".rstrip(), style="dim")
    text.append(f"  :{c.line}", style="dim")
    return text


@_shown
def _outgoing_line(graph: "LinkGraph", link, target: str | None) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    label = link.text
    if link.kind == "url":
        text.append("↗ ", style="dim")
        text.append(label or link.target)
        if label and label != link.target:
            text.append(f"  {link.target}", style="dim")
    elif target is None:
        text.append("✗ ", style="dim")
        text.append(link.target, style="italic")
        text.append("  unresolved", style="dim")
    elif target in graph.pages:
        text.append("→ ", style="dim")
        text.append(_title(graph, target))
        if link.anchor:
            text.append(f" › {link.anchor}", style="dim")
    else:
        text.append("▤ ", style="dim")
        text.append(target)
    text.append(f"  :{link.line}", style="dim")
    return text
