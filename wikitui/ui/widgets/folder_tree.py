"""A tree of folders and files filled lazily from a flat list of entries.

A vault may hold 10,000 pages; building a Tree node for each costs ~0.2 s, which
would stall the screen. :class:`FolderTree` adds only the top level at once and a
folder's children when it is first expanded. Refreshing keeps the expanded
folders and the cursor where they were.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from wikitui.core.vault.natural_order import natural_key
from wikitui.core.vault.visible_text import has_unsafe, visible_line


@dataclass(slots=True)
class TreeEntry:
    """One file shown in a :class:`FolderTree`.

    Attributes:
        rel: Path relative to the tree's root folder, ``/``-separated (decides the folder).
        path: Vault-relative path carried by the node.
        label: What the node shows.
        sort_key: Order among siblings (defaults to the label's natural order: "2" before "10").
    """

    rel: str
    path: str
    label: str | Text
    sort_key: tuple = ()


@dataclass(slots=True)
class NodeData:
    """What a node of a :class:`FolderTree` stands for."""

    kind: str  # "dir" or "file"
    path: str  # folder relative to the tree root, or the file's vault-relative path


@dataclass
class _Folder:
    dirs: dict[str, "_Folder"] = field(default_factory=dict)
    files: list[TreeEntry] = field(default_factory=list)


class FolderTree(Tree[NodeData]):
    """A Tree of folders (collapsed) and files, built lazily.

    Call :meth:`set_entries` with the files to show; folders come from their paths.
    """

    DEFAULT_CSS = """
    FolderTree {
        background: transparent;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 0;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("/", NodeData("dir", ""), id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 2
        self._top = _Folder()
        self._filled: set[int] = set()
        self._dir_nodes: dict[str, TreeNode[NodeData]] = {}
        self._file_nodes: dict[str, TreeNode[NodeData]] = {}

    # ----------------------------------------------------------------- building
    def set_entries(self, entries: list[TreeEntry], *, expand_all: bool = False) -> None:
        """Show ``entries``, keeping expanded folders and the cursor's item.

        Args:
            entries: The files to show.
            expand_all: Expand every folder (a filtered, short list).
        """
        top = _Folder()
        for entry in entries:
            folder = top
            parent = posixpath.dirname(entry.rel)
            if parent:
                for part in parent.split("/"):
                    folder = folder.dirs.setdefault(part, _Folder())
            folder.files.append(entry)
        expanded = {p for p, n in self._dir_nodes.items() if n.is_expanded}
        cursor = self.cursor_node.data if self.cursor_node is not None else None
        self._top = top
        self.clear()
        self._filled = set()
        self._dir_nodes = {}
        self._file_nodes = {}
        self._fill(self.root, top, "")
        self.root.expand()
        for path in sorted(expanded) if not expand_all else ():
            node = self._node_for_dir(path)
            if node is not None:
                self._expand(node)
        if expand_all:
            self._expand_all(self.root, top)
        target = None
        if cursor is not None:
            target = self._file_nodes.get(cursor.path) if cursor.kind == "file" else self._dir_nodes.get(cursor.path)
        if target is not None:
            self._move_to(target)
        elif self.root.children:
            # A cursor from the start, so enter works as soon as the tree has the focus.
            self._move_to(self.root.children[0])

    def _fill(self, node: TreeNode[NodeData], folder: _Folder, prefix: str) -> None:
        if id(node) in self._filled:
            return
        self._filled.add(id(node))
        for name in sorted(folder.dirs, key=natural_key):
            rel = f"{prefix}{name}"
            child = node.add(Text(f"{visible_line(name)}/", style="bold"), NodeData("dir", rel), allow_expand=True)
            self._dir_nodes[rel] = child
        for entry in sorted(folder.files, key=lambda e: e.sort_key or (1, natural_key(str(e.label)))):
            self._file_nodes[entry.path] = node.add_leaf(_shown(entry.label), NodeData("file", entry.path))

    def _folder_at(self, rel: str) -> _Folder | None:
        folder = self._top
        for part in rel.split("/") if rel else ():
            found = folder.dirs.get(part)
            if found is None:
                return None
            folder = found
        return folder

    def _expand(self, node: TreeNode[NodeData]) -> None:
        path = node.data.path if node.data else None  # (every node has its data; Textual's is Optional)
        folder = self._folder_at(path) if path is not None else None
        if folder is not None:
            self._fill(node, folder, f"{path}/" if path else "")
        node.expand()

    def _expand_all(self, node: TreeNode[NodeData], folder: _Folder) -> None:
        path = node.data.path if node.data else ""
        for name, sub in folder.dirs.items():
            child = self._dir_nodes.get(f"{path}/{name}" if path else name)
            if child is not None:
                self._expand(child)
                self._expand_all(child, sub)

    def _node_for_dir(self, rel: str) -> TreeNode[NodeData] | None:
        """The node of folder ``rel``, filling its ancestors on the way."""
        if rel in self._dir_nodes:
            return self._dir_nodes[rel]
        parts = rel.split("/")
        for i in range(1, len(parts)):
            parent = self._dir_nodes.get("/".join(parts[:i]))
            if parent is None:
                return None
            self._expand(parent)
        return self._dir_nodes.get(rel)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        """Fill a folder the first time it opens."""
        node = event.node
        if node.data is not None and node.data.kind == "dir":
            folder = self._folder_at(node.data.path)
            if folder is not None:
                self._fill(node, folder, f"{node.data.path}/" if node.data.path else "")

    # ------------------------------------------------------------------ queries
    def reveal(self, path: str, rel: str) -> bool:
        """Expand the folders holding ``path`` and put the cursor on it.

        Args:
            path: The file's vault-relative path (the node's data).
            rel: Its path relative to the tree root.

        Returns:
            Whether the file is in the tree.
        """
        parent = posixpath.dirname(rel)
        if parent:
            node = self._node_for_dir(parent)
            if node is None:
                return False
            self._expand(node)
        target = self._file_nodes.get(path)
        if target is None:
            return False
        self._move_to(target)
        return True

    def _move_to(self, node: TreeNode[NodeData]) -> None:
        # A node's line is only known once the tree's lines are rebuilt.
        self._tree_lines  # noqa: B018 - the property rebuilds the lines
        self.move_cursor(node, animate=False)

    @property
    def file_count(self) -> int:
        """Number of files in the tree (filled or not)."""

        def count(folder: _Folder) -> int:
            return len(folder.files) + sum(count(sub) for sub in folder.dirs.values())

        return count(self._top)


def _shown(label: str | Text) -> str | Text:
    """A node's label with control and invisible characters drawn visibly (a file name may hold them)."""
    if isinstance(label, Text):
        return Text(visible_line(label.plain), style=label.style) if has_unsafe(label.plain) else label
    return visible_line(label)
