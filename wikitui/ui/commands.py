"""Command palette (``ctrl+p``) providers: the quick switcher and the workspace's commands.

The quick switcher matches every page's title, aliases and path against the words
typed, in any order (see :mod:`wikitui.ui.switcher_match`); with an empty query it
offers the pages visited most recently. Every action of the
workspace is also a palette command (not every terminal delivers every key), and
each theme can be chosen by name. On another screen (the review), the palette lists
that screen's own keys instead (:func:`screen_commands`).

Nothing here reaches into the app: the switcher is handed a :class:`SwitcherSource`
(:func:`page_switcher` binds one to a provider class, as Textual builds providers
itself), and the command lists are given what they run.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Callable, ClassVar, Iterable

from textual.app import SystemCommand
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.screen import Screen

from wikitui.core.vault.visible_text import has_unsafe, visible_line
from wikitui.ui.switcher_match import WordMatcher

if TYPE_CHECKING:
    from wikitui.core.vault.graph import LinkGraph

#: Pages offered before anything is typed.
DISCOVERY_LIMIT = 20
#: Most matches yielded per query (the palette shows the best ones).
MATCH_LIMIT = 200
#: A title's match outranks an equally good match of an alias or the path by this factor.
TITLE_PREFERENCE = 1.02

#: (title, help, main-screen action) of the workspace commands.
WORKSPACE_COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("Search", "Full-text search of the wiki and the sources (/)", "search"),
    ("Back", "Go back to the previous page (backspace, alt+left)", "back"),
    ("Forward", "Go forward again (alt+right)", "forward"),
    ("Open index", "Open the wiki's index.md", "open_index"),
    ("Focus sources", "Focus the Sources pane (f1)", "focus_pane('sources')"),
    ("Focus wiki tree", "Focus the page tree (f2)", "focus_pane('wiki')"),
    ("Focus page", "Focus the page pane (f3)", "focus_pane('page')"),
    ("Focus links", "Focus the links panel (f4)", "focus_pane('links')"),
    ("Focus agent", "Focus the agent's input (f5)", "focus_pane('agent')"),
    ("Toggle left column", "Show or hide Sources and Wiki (ctrl+b)", "toggle_pane('left')"),
    ("Toggle links panel", "Show or hide the links panel (ctrl+l)", "toggle_pane('links')"),
    ("Toggle agent pane", "Show or hide the agent pane (ctrl+a)", "toggle_pane('agent')"),
    ("Narrow pane", "Make the focused column narrower ([)", "resize(-1)"),
    ("Widen pane", "Make the focused column wider (])", "resize(1)"),
    ("Outline", "The page's headings: jump to one (ctrl+o)", "outline"),
    ("Edit page", "Open the page in $VISUAL or $EDITOR, then show it again (e, on the page)", "edit_page"),
    ("Graph of the page", "The page's links and backlinks as a graph: arrows, enter, + - rings, f filter (g)", "graph"),
    ("Graph of the whole wiki", "Every page, clustered by folder, hubs labelled (w in the graph view)",
     "graph('whole')"),
    ("Page history", "The page's versions: compare two, restore one (h, on the page)", "history"),
    ("Filter pages", "Filter the page tree", "filter_pages"),
    ("Mark reviewed", "The page is checked against its sources: no longer stale", "mark_reviewed"),
    ("Clip a web page or file into raw/…", "Fetch a URL or copy a file into raw/ as a new source, then open it",
     "clip"),
    ("Inbox: bring in the feeds' new items", "Fetch the [inbox] feeds: new items go to raw/inbox/, not ingested yet "
     "(wikitui inbox)", "inbox"),
    ("Inbox: import an export…", "Bookmarks, Pocket/Instapaper/Readwise/Raindrop, mail, Slack or Discord, transcripts "
     "into raw/inbox/ (wikitui inbox import)", "inbox_import"),
    ("Review batch", "A batch's changesets together: summary, then by page (/review batch)", "app.review_batch"),
    ("Reload", "Re-read the vault from disk", "reload"),
    ("Sync with upstream", "git: bring the upstream's commits in (wikitui's own merge), then push yours", "sync"),
    ("Help", "Every key binding (?)", "help"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class SwitcherSource:
    """What the quick switcher reads and does, handed over by the app.

    Attributes:
        graph: The link graph now (None while it loads).
        recent: The paths visited, oldest first (the navigation history).
        open_path: Opens a page in the workspace.
    """

    graph: Callable[[], LinkGraph | None]
    recent: Callable[[], list[str]]
    open_path: Callable[[str], None]


def page_switcher(source: SwitcherSource) -> type[Provider]:
    """A quick switcher provider class bound to ``source`` (Textual makes one per palette opening)."""
    return type("PageSwitcher", (PageSwitcher,), {"source": source})


def page_names(graph: LinkGraph | None) -> list[tuple[str, str, str, str]]:
    """(text to match, vault path, title, help line) for every title, alias and path of the wiki."""
    if graph is None:
        return []
    out: list[tuple[str, str, str, str]] = []
    for path, info in graph.pages.items():
        rel = graph.vault.wiki_relative(path)
        out.append((info.title, path, info.title, rel))
        for alias in info.aliases:
            out.append((alias, path, info.title, f"alias · {rel}"))
        if rel.casefold() != info.title.casefold():
            out.append((rel, path, info.title, rel))
    return out


class PageSwitcher(Provider):
    """Fuzzy quick switcher over page titles, aliases and paths; ``enter`` opens the page.

    Used through :func:`page_switcher`, which gives it its :attr:`source`.
    """

    source: ClassVar[SwitcherSource]

    async def startup(self) -> None:
        """Snapshot the names once per palette opening (the wiki may change later)."""
        self._names = page_names(self.source.graph())

    def _open(self, path: str) -> None:
        self.source.open_path(path)

    async def discover(self) -> Hits:
        """Recent pages first, then the index."""
        graph = self.source.graph()
        if graph is None:
            return
        seen: list[str] = []
        for path in reversed(self.source.recent()):
            if path in graph.pages and path not in seen:
                seen.append(path)
        if graph.vault.index_path in graph.pages and graph.vault.index_path not in seen:
            seen.append(graph.vault.index_path)
        for path in seen[:DISCOVERY_LIMIT]:
            info = graph.pages[path]
            yield DiscoveryHit(visible_line(info.title), partial(self._open, path),
                               help=visible_line(graph.vault.wiki_relative(path)))

    async def search(self, query: str) -> Hits:
        """Pages whose title, an alias or the path holds every word of ``query`` (in any order), best first."""
        matcher = WordMatcher(query)
        style = self.matcher(query).match_style
        best: dict[str, tuple[float, str, str, str | None, tuple[int, ...]]] = {}
        help_text: str | None
        for text, path, title, help_text in self._names:
            found = matcher.match(text)
            # Of equal matches, show the title rather than an alias or the path.
            score = found.score * (TITLE_PREFERENCE if text == title else 1.0)
            if score > 0 and score > best.get(path, (0.0,))[0]:
                best[path] = (score, text, title, help_text, found.positions)
        ranked = sorted(best.items(), key=lambda kv: -kv[1][0])[:MATCH_LIMIT]
        for path, (score, text, title, help_text, positions) in ranked:
            marked = _highlight(text, positions, style)
            if text == title:
                prompt = marked
            else:  # matched an alias or the path: name the page, show what matched beside it
                prompt = Content(visible_line(title)) + Content("  ") + marked.stylize("$text-muted")
                if help_text == text:  # the path, shown once: beside the title, not again below it
                    help_text = None
            yield Hit(score, prompt, partial(self._open, path), text=visible_line(title),
                      help=visible_line(help_text) if help_text is not None else None)


def _highlight(text: str, positions: tuple[int, ...], style) -> Content:
    """``text`` with the characters at ``positions`` in the palette's match style (plain, shown visibly, if it
    holds control or invisible characters: the positions no longer fit it)."""
    if has_unsafe(text):
        return Content(visible_line(text))
    content = Content(text)
    for offset in positions:
        if offset < len(text) and not text[offset].isspace():
            content = content.stylize(style, offset, offset + 1)
    return content


def workspace_commands(*, run_action: Callable[[str], object], themes: Iterable[str],
                       use_theme: Callable[[str], object]) -> Iterable[SystemCommand]:
    """Every workspace action and every theme, as palette commands.

    Args:
        run_action: Runs a workspace action (``"search"``, ``"focus_pane('wiki')"``...) on the workspace screen.
        themes: The names of the themes there are.
        use_theme: Switches to a theme by name.
    """
    for title, help_text, action in WORKSPACE_COMMANDS:
        yield SystemCommand(title, help_text, partial(run_action, action))
    for name in sorted(themes):
        if name == "textual-ansi":
            continue
        yield SystemCommand(f"Theme: {name}", f"Switch to the {name} theme (remembered)", partial(use_theme, name))


def screen_commands(screen: Screen) -> Iterable[SystemCommand]:
    """The keys of a screen other than the workspace's (the review...) as palette commands, in its order.

    One command per action, titled by its description and helped by its tooltip and key.
    """
    seen: set[str] = set()
    for binding in Binding.make_bindings(getattr(type(screen), "BINDINGS", [])):
        if binding.action in seen or not binding.description:
            continue
        seen.add(binding.action)
        key = screen.app.get_key_display(binding)
        title = binding.description[:1].upper() + binding.description[1:]
        help_text = f"{binding.tooltip or binding.description} ({key})"
        yield SystemCommand(title, help_text, partial(screen.run_action, binding.action))
