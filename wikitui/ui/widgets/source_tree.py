"""The Sources pane: the raw/ tree, each source marked ingested (●) or not (○).

A source counts as ingested when some page lists it in its ``sources``
frontmatter (the same rule as lint's ``uningested-source``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from wikitui.core.vault.staleness import page_sources, resolver_for_graph
from wikitui.ui.messages import IngestRequested
from wikitui.ui.widgets.folder_tree import FolderTree, NodeData, TreeEntry

if TYPE_CHECKING:
    from wikitui.core.vault.graph import LinkGraph

INGESTED = "●"
PENDING = "○"


def source_citations(graph: "LinkGraph") -> dict[str, list[str]]:
    """Raw source path → the pages that list it in ``sources`` (log.md aside), sorted."""
    resolver = resolver_for_graph(graph)
    cited: dict[str, list[str]] = {}
    log = graph.vault.log_path
    for path, info in graph.pages.items():
        if path == log or not (info.sources or info.meta.get("sources")):
            continue
        for raw in resolver.resolve_all(page_sources(info)):
            cited.setdefault(raw, []).append(path)
    for pages in cited.values():
        pages.sort()
    return cited


class SourceTree(FolderTree):
    """The raw/ folder as a tree; ``enter`` opens a source read-only, ``i`` asks for an ingest.

    | Key | Action |
    | :- | :- |
    | enter | Open the source read-only, with the pages that cite it. |
    | i | Ingest the source with the agent. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("i", "ingest", "Ingest"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"source-tree--ingested", "source-tree--pending"}

    DEFAULT_CSS = """
    SourceTree > .source-tree--ingested { color: $success; }
    SourceTree > .source-tree--pending { color: $text-muted; }
    """

    @dataclass
    class SourceSelected(Message):
        """The reader chose a source to read.

        Attributes:
            path: Vault-relative path of the source.
        """

        path: str

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        #: Vault-relative raw paths that some page cites.
        self.ingested: set[str] = set()

    def set_sources(self, raw_paths: list[str], ingested: set[str], raw_prefix: str) -> None:
        """Show ``raw_paths`` (vault-relative) under the raw/ folder named ``raw_prefix``."""
        self.ingested = ingested
        cut = len(raw_prefix) + 1
        entries = [TreeEntry(p[cut:], p, p.rsplit("/", 1)[-1]) for p in raw_paths if p.startswith(raw_prefix + "/")]
        self.set_entries(entries)

    def render_label(self, node: TreeNode[NodeData], base_style: Style, style: Style) -> Text:
        """Prefix each source with its ingested marker, coloured from the theme."""
        label = super().render_label(node, base_style, style)
        if node.data is not None and node.data.kind == "file":
            done = node.data.path in self.ingested
            marker_style = self.get_component_rich_style(
                "source-tree--ingested" if done else "source-tree--pending", partial=True
            )
            return Text.assemble((f"{INGESTED if done else PENDING} ", marker_style), label)
        return label

    def _selected_source(self) -> str | None:
        node = self.cursor_node
        if node is not None and node.data is not None and node.data.kind == "file":
            return node.data.path
        return None

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        """Turn the selection of a file into :class:`SourceSelected`."""
        data = event.node.data
        if data is not None and data.kind == "file":
            event.stop()
            self.post_message(self.SourceSelected(data.path))

    def action_ingest(self) -> None:
        """Ask the agent to ingest the source under the cursor."""
        path = self._selected_source()
        if path is None:
            self.notify("Put the cursor on a source to ingest it.", severity="warning")
            return
        self.post_message(IngestRequested(path))
