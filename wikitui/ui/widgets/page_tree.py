"""The Wiki pane: the page tree by folder, showing titles, with a filter input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from rich.style import Style
from rich.text import Text
from textual.widgets import Input, Tree
from textual.widgets.tree import TreeNode

from wikitui.core.vault.natural_order import natural_key
from wikitui.ui.widgets.folder_tree import FolderTree, NodeData, TreeEntry

if TYPE_CHECKING:
    from wikitui.core.vault.graph import LinkGraph

#: Most pages shown for a filter (a filtered tree is fully expanded).
FILTER_LIMIT = 500


@dataclass
class PreparedPages:
    """The tree's entries and their filter text, computed off the UI thread.

    Attributes:
        entries: One per page.
        haystacks: Case-folded title, aliases and path of each entry (for the filter).
        wiki_prefix: The wiki folder (entries' paths are relative to it).
    """

    entries: list[TreeEntry]
    haystacks: list[str]
    wiki_prefix: str


def prepare_pages(graph: "LinkGraph") -> PreparedPages:
    """Entries for every page of ``graph`` (pure: safe to call in a worker thread)."""
    vault = graph.vault
    entries: list[TreeEntry] = []
    haystacks: list[str] = []
    index = vault.index_path
    for path, info in list(graph.pages.items()):
        rel = vault.wiki_relative(path)
        # index.md first: it is the catalog a reader starts from; then titles in natural order.
        key = (0,) if path == index else (1, natural_key(info.title))
        entries.append(TreeEntry(rel, path, info.title, key))
        haystacks.append(" ".join((info.title, *info.aliases, rel)).casefold())
    return PreparedPages(entries, haystacks, vault.wiki_prefix)


def page_matches(terms: list[str], haystack: str) -> bool:
    """Whether every (case-folded) term occurs in ``haystack`` (already case-folded)."""
    return all(t in haystack for t in terms)


#: The mark of a page others changed since you last opened it (a sync brought it in).
UNREAD = "●"


class PageTreeView(FolderTree):
    """The tree part of :class:`PageTree` (``f`` jumps to the filter); pages others changed carry a ● until opened."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "filter", "Filter"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"page-tree--unread"}
    DEFAULT_CSS = """
    PageTreeView > .page-tree--unread { color: $accent; text-style: bold; }
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        #: Pages others changed that were not opened here since.
        self.unread: set[str] = set()

    def render_label(self, node: TreeNode[NodeData], base_style: Style, style: Style) -> Text:
        """A page others changed since you last opened it starts with a ●, in the theme's accent."""
        label = super().render_label(node, base_style, style)
        if node.data is not None and node.data.kind == "file" and node.data.path in self.unread:
            mark = self.get_component_rich_style("page-tree--unread", partial=True)
            return Text.assemble((f"{UNREAD} ", mark), label)
        return label

    def action_filter(self) -> None:
        """Focus the filter input."""
        self.screen.query_one("#wiki-filter", Input).focus()


class PageTree(Vertical):
    """Pages grouped by folder, labelled by title; typing in the filter narrows them.

    | Key | Where | Action |
    | :- | :- | :- |
    | f | tree | Focus the filter. |
    | enter | tree | Open the page. |
    | enter | filter | Open the first match. |
    | down | filter | Move into the tree. |
    | escape | filter | Clear the filter. |
    """

    DEFAULT_CSS = """
    PageTree { height: 1fr; }
    PageTree > Input#wiki-filter {
        border: none;
        height: 1;
        padding: 0 1;
        background: $boost;
    }
    PageTree > Input#wiki-filter:focus { background: $primary 20%; }
    PageTree > PageTreeView { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    @dataclass
    class PageSelected(Message):
        """The reader chose a page in the tree.

        Attributes:
            path: Vault-relative path of the page.
        """

        path: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries: list[TreeEntry] = []
        self._haystacks: list[str] = []
        self._wiki_prefix = ""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter pages (f)", id="wiki-filter")
        yield PageTreeView(id="wiki-tree")

    @property
    def tree(self) -> PageTreeView:  # type: ignore[override]  # shadows DOMNode.tree (a debug view); a rename is due
        """The tree widget."""
        return self.query_one(PageTreeView)

    @property
    def filter_text(self) -> str:
        """The current filter."""
        return self.query_one("#wiki-filter", Input).value

    def set_pages(self, graph: "LinkGraph", prepared: PreparedPages | None = None) -> None:
        """Show the pages of ``graph`` (re-applying the current filter).

        Args:
            graph: The link graph.
            prepared: :func:`prepare_pages` of the graph, when a worker already made it.
        """
        prepared = prepared or prepare_pages(graph)
        self._wiki_prefix = prepared.wiki_prefix
        self._entries, self._haystacks = prepared.entries, prepared.haystacks
        self._apply_filter()

    def _apply_filter(self) -> None:
        terms = self.filter_text.casefold().split()
        if not terms:
            self.tree.set_entries(self._entries)
            return
        shown = [e for e, h in zip(self._entries, self._haystacks) if page_matches(terms, h)][:FILTER_LIMIT]
        self.tree.set_entries(shown, expand_all=True)

    def set_unread(self, paths: set[str]) -> None:
        """Mark these pages as changed by others since they were last opened (a ● before each)."""
        if paths != self.tree.unread:
            self.tree.unread = set(paths)
            self.tree.refresh()

    def reveal(self, path: str) -> None:
        """Put the tree's cursor on ``path`` (expanding its folders), if shown."""
        rel = path[len(self._wiki_prefix) + 1 :] if self._wiki_prefix and path.startswith(self._wiki_prefix + "/") else path
        self.tree.reveal(path, rel)

    @on(Input.Changed, "#wiki-filter")
    def _filter_changed(self) -> None:
        self._apply_filter()

    @on(Input.Submitted, "#wiki-filter")
    def _filter_submitted(self) -> None:
        first = self._first_file()
        if first is not None:
            self.post_message(self.PageSelected(first))

    def _first_file(self) -> str | None:
        """The best match: a title starting with the filter, then a title holding it, then anything."""
        query = self.filter_text.casefold().strip()
        terms = query.split()
        best: tuple[tuple[int, int, str], str] | None = None
        for entry, hay in zip(self._entries, self._haystacks):
            if not page_matches(terms, hay):
                continue
            title = str(entry.label).casefold()
            rank = 0 if title.startswith(query) else 1 if page_matches(terms, title) else 2
            key = (rank, len(title), title)
            if best is None or key < best[0]:
                best = (key, entry.path)
        return best[1] if best else None

    def on_key(self, event) -> None:
        """``down`` in the filter moves into the tree."""
        if event.key == "down" and isinstance(self.screen.focused, Input) and self.screen.focused.id == "wiki-filter":
            event.stop()
            self.tree.focus()

    def action_clear_filter(self) -> None:
        """Clear the filter and go back to the tree."""
        self.query_one("#wiki-filter", Input).value = ""
        self.tree.focus()

    @on(Tree.NodeSelected)
    def _node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        data = event.node.data
        if data is not None and data.kind == "file":
            event.stop()
            self.post_message(self.PageSelected(data.path))
