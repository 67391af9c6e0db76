"""The graph view's nodes and edges (DESIGN §15): a page's local graph, or the whole wiki's, as plain data.

:class:`GraphIndex` reads the :class:`~wikitui.core.vault.graph.LinkGraph` once: every
page's neighbours (links and backlinks together, the graph view draws no arrows), its
unresolved targets, its link count and whether it is an orphan. From it,
:func:`local_graph` takes the open page and its rings (depth 1: its links and
backlinks; depth 2: theirs too), and :func:`whole_graph` every page, each node in a
cluster (its first folder under the wiki, else its ``type``). A :class:`GraphFilter`
keeps the nodes of some types or tags (the page in the middle always stays).

Node ids are vault-relative paths; an unresolved target is ``?`` and the target as
written (it has no path).
"""

from __future__ import annotations

import posixpath
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from wikitui.core.vault.graph import LinkGraph

#: The deepest local graph offered (``+`` stops there).
MAX_DEPTH = 3

#: What a node stands for: a page, a raw source or other file a link resolves to, or a target no file has.
NodeKind = Literal["page", "file", "unresolved"]

#: Where an unresolved target's id starts.
UNRESOLVED_PREFIX = "?"


@dataclass(frozen=True, slots=True)
class GraphNode:
    """One node of a graph view.

    Attributes:
        id: The vault-relative path, or ``?target`` for an unresolved target.
        label: What the view writes beside it (the page's title, the file's name, the target).
        kind: Page, other file, or unresolved target.
        degree: The node's link count: how many distinct pages and targets it links with, both ways.
        orphan: A page no other page links to (links from index.md and log.md do not count).
        ring: Steps from the local graph's centre (0: the centre); 0 in the whole-wiki view.
        cluster: The whole-wiki view's group: the first folder under the wiki, else the page's type.
        type: The page's frontmatter ``type`` ("" for files and unresolved targets).
        tags: The page's frontmatter ``tags``.
    """

    id: str
    label: str
    kind: NodeKind
    degree: int
    orphan: bool = False
    ring: int = 0
    cluster: str = ""
    type: str = ""
    tags: tuple[str, ...] = ()


@dataclass(slots=True)
class GraphModel:
    """The nodes and (undirected) edges of one view.

    Attributes:
        nodes: Nodes by id, the centre first, then ring by ring, each ring by label.
        edges: Each edge once, as ``(a, b)`` with ``a < b``, sorted.
        centre: The local graph's page (None for the whole wiki).
        depth: The local graph's depth (0 for the whole wiki).
        hidden: How many nodes the filter left out.
    """

    nodes: dict[str, GraphNode]
    edges: list[tuple[str, str]]
    centre: str | None = None
    depth: int = 0
    hidden: int = 0
    _adjacent: dict[str, list[str]] | None = field(default=None, repr=False)

    def neighbours(self, node: str) -> list[str]:
        """The nodes an edge joins ``node`` with, in the model's order."""
        if self._adjacent is None:
            order = {n: i for i, n in enumerate(self.nodes)}
            adjacent: dict[str, list[str]] = {n: [] for n in self.nodes}
            for a, b in self.edges:
                adjacent[a].append(b)
                adjacent[b].append(a)
            for near in adjacent.values():
                near.sort(key=order.__getitem__)
            self._adjacent = adjacent
        return self._adjacent.get(node, [])

    def clusters(self) -> dict[str, list[str]]:
        """Node ids by cluster, clusters by name, ids in the model's order."""
        out: dict[str, list[str]] = {}
        for node in self.nodes.values():
            out.setdefault(node.cluster, []).append(node.id)
        return dict(sorted(out.items()))


@dataclass(frozen=True, slots=True)
class GraphFilter:
    """Which nodes a view keeps: those of any of ``types`` or with any of ``tags`` (both empty: all).

    Unresolved targets and files have no type or tags: a filter leaves them out.
    """

    types: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str) -> "GraphFilter":
        """``type:concept tag:ml #ml concept``: a bare word is a type, ``#word`` a tag; case does not matter."""
        types: set[str] = set()
        tags: set[str] = set()
        for word in text.split():
            low = word.casefold()
            if low.startswith("type:"):
                types.add(low[5:])
            elif low.startswith("tag:"):
                tags.add(low[4:].lstrip("#"))
            elif low.startswith("#"):
                tags.add(low[1:])
            else:
                types.add(low)
        types.discard("")
        tags.discard("")
        return cls(types=frozenset(types), tags=frozenset(tags))

    @property
    def active(self) -> bool:
        """Whether the filter leaves anything out."""
        return bool(self.types or self.tags)

    def keeps(self, node: GraphNode) -> bool:
        """Whether ``node`` is kept."""
        if not self.active:
            return True
        if node.type.casefold() in self.types:
            return True
        return any(tag.casefold().lstrip("#") in self.tags for tag in node.tags)

    def describe(self) -> str:
        """The filter as typed back (``type:concept tag:ml``), "" when inactive."""
        return " ".join([f"type:{t}" for t in sorted(self.types)] + [f"tag:{t}" for t in sorted(self.tags)])


class GraphIndex:
    """Every page's neighbours, link count and orphan state, read once from a link graph.

    Build it again when the link graph changes (it keeps no reference to update).
    """

    def __init__(self, graph: LinkGraph) -> None:
        vault = graph.vault
        self._graph = graph
        self._wiki_prefix = vault.wiki_prefix
        near: dict[str, set[str]] = {path: set() for path in graph.pages}
        for path, info in graph.pages.items():
            for link, target in graph.outgoing(path):
                if link.kind == "url":
                    continue
                if target is None:
                    if not link.target:
                        continue
                    target = UNRESOLVED_PREFIX + link.target.strip()
                if target == path:
                    continue
                near[path].add(target)
                near.setdefault(target, set()).add(path)
        #: Each node's neighbours (links and backlinks), by id.
        self.near = near
        #: Pages no other page links to.
        self.orphans = frozenset(graph.orphans())

    def node(self, node_id: str, *, ring: int = 0) -> GraphNode:
        """The node for a page path, a file path or a ``?target``."""
        degree = len(self.near.get(node_id, ()))
        if node_id.startswith(UNRESOLVED_PREFIX):
            return GraphNode(id=node_id, label=node_id[1:], kind="unresolved", degree=degree, ring=ring,
                             cluster="(unresolved)")
        info = self._graph.pages.get(node_id)
        if info is None:
            return GraphNode(id=node_id, label=posixpath.basename(node_id), kind="file", degree=degree, ring=ring,
                             cluster=self.folder_of(node_id))
        return GraphNode(id=node_id, label=info.title, kind="page", degree=degree, orphan=node_id in self.orphans,
                         ring=ring, cluster=self.folder_of(node_id), type=info.type, tags=tuple(info.tags))

    def folder_of(self, path: str) -> str:
        """The first folder under the wiki ("" at the wiki's top; raw sources: the raw folder)."""
        prefix = self._wiki_prefix
        rel = path[len(prefix) + 1:] if prefix and path.startswith(prefix + "/") else path
        head, sep, _ = rel.partition("/")
        return head if sep else ""


def local_graph(index: GraphIndex, centre: str, *, depth: int = 1, keep: GraphFilter | None = None) -> GraphModel:
    """``centre`` and the nodes within ``depth`` steps of it, with every edge between them.

    A filter drops the nodes it does not keep (the centre stays); a node reached only
    through a dropped one is dropped too, so every node shown joins the centre.
    """
    depth = max(1, min(MAX_DEPTH, depth))
    keep = keep or GraphFilter()
    near = index.near
    rings: dict[str, int] = {centre: 0}
    nodes: dict[str, GraphNode] = {centre: index.node(centre)}
    hidden: set[str] = set()
    queue = deque([centre])
    while queue:
        here = queue.popleft()
        ring = rings[here] + 1
        if ring > depth:
            continue
        for other in near.get(here, ()):
            if other in rings or other in hidden:
                continue
            node = index.node(other, ring=ring)
            if not keep.keeps(node):
                hidden.add(other)
                continue
            rings[other] = ring
            nodes[other] = node
            queue.append(other)
    ordered = sorted(nodes.values(), key=lambda n: (n.ring, n.label.casefold(), n.id))
    return GraphModel(nodes={n.id: n for n in ordered}, edges=_edges(nodes, near), centre=centre, depth=depth,
                      hidden=len(hidden))


def whole_graph(index: GraphIndex, *, keep: GraphFilter | None = None) -> GraphModel:
    """Every page (and unresolved target, when no filter is on), clustered by folder, else by type."""
    keep = keep or GraphFilter()
    nodes: dict[str, GraphNode] = {}
    hidden = 0
    for node_id in index.near:
        node = index.node(node_id)
        if node.kind == "file":
            continue  # raw sources and attachments: not the wiki's shape
        if keep.keeps(node):
            nodes[node_id] = node
        else:
            hidden += 1
    pages = [n for n in nodes.values() if n.kind == "page"]
    if len({n.cluster for n in pages}) <= 1:  # a flat wiki: its types are its groups
        nodes = {i: _with_cluster(n, n.type or "(no type)") if n.kind == "page" else n for i, n in nodes.items()}
    ordered = sorted(nodes.values(), key=lambda n: (n.cluster.casefold(), n.label.casefold(), n.id))
    return GraphModel(nodes={n.id: n for n in ordered}, edges=_edges(nodes, index.near), hidden=hidden)


def _with_cluster(node: GraphNode, cluster: str) -> GraphNode:
    return GraphNode(id=node.id, label=node.label, kind=node.kind, degree=node.degree, orphan=node.orphan,
                     ring=node.ring, cluster=cluster, type=node.type, tags=node.tags)


def _edges(nodes: dict[str, GraphNode], near: dict[str, set[str]]) -> list[tuple[str, str]]:
    out = set()
    for a in nodes:
        for b in near.get(a, ()):
            if b in nodes and a < b:
                out.add((a, b))
    return sorted(out)
