"""Where the graph view puts its nodes: networkx's layouts, seeded, so the same graph always looks the same.

A local graph starts from networkx's shell layout (the centre in the middle, each ring
on its circle) and relaxes it with the spring layout (Fruchterman-Reingold) with the
centre held in place. The whole wiki is laid out cluster by cluster (see
:func:`~wikitui.core.vault.graph_model.whole_graph`): within a cluster each connected
group of pages gets its own spring layout and the pages linked to nothing sit on a
spiral beside them (a group of a handful: a circle around its best-linked page); the clusters are then packed in rows. A cluster's layout is kept
in a :class:`LayoutMemo` under what it holds (its pages and its edges), so opening the
view again, or after an edit, lays out only the clusters that changed.

Positions are ``(x, y)`` in the unit square, ``y`` growing downwards (as on a screen).
networkx is imported here only when a layout is asked for (the graph view opens).
Without scipy, networkx's spring layout takes at most :data:`SPRING_LIMIT` nodes; a
larger group keeps its shell layout (its rings around its best-linked page).
"""

from __future__ import annotations

import math
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikitui.core.vault.files import atomic_write

if TYPE_CHECKING:
    from wikitui.core.vault.graph_model import GraphModel

#: A position in the unit square.
Point = tuple[float, float]

#: networkx's spring layout runs on a dense matrix below 500 nodes and needs scipy at and above.
SPRING_LIMIT = 499
#: Spring iterations of a local graph (starting from the shell layout, few are needed).
LOCAL_ITERATIONS = 15
#: A connected group of at most this many pages gets its best-linked page in the middle, the rest around it.
SMALL_GROUP = 6
#: Room left free at the top of each cluster for its name (in the units a group's side is measured in).
LABEL_ROOM = 1.0
#: Spring iterations of one connected group of the whole-wiki view.
GROUP_ITERATIONS = 40


def _networkx() -> Any:
    import networkx

    return networkx


def layout_local(model: GraphModel, *, iterations: int = LOCAL_ITERATIONS) -> dict[str, Point]:
    """Positions of a local graph's nodes: the centre at (0.5, 0.5), the rest around it, filling the square.

    Every node starts from the shell layout, so the spring layout draws no random
    number: the same graph always gets the same positions.
    """
    centre = model.centre
    ids = list(model.nodes)
    if centre is None or len(ids) == 1:
        return {i: (0.5, 0.5) for i in ids}
    nx = _networkx()
    g = nx.Graph()
    g.add_nodes_from(ids)
    g.add_edges_from(model.edges)
    shells: dict[int, list[str]] = {}
    for node in model.nodes.values():
        shells.setdefault(node.ring, []).append(node.id)
    pos = nx.shell_layout(g, nlist=[shells[r] for r in sorted(shells)])
    pos[centre] = (0.0, 0.0)
    if len(ids) <= SPRING_LIMIT:
        pos = nx.spring_layout(g, pos=pos, fixed=[centre], seed=0, iterations=iterations)
    cx, cy = (float(v) for v in pos[centre])
    reach_x = max(abs(float(p[0]) - cx) for p in pos.values()) or 1.0
    reach_y = max(abs(float(p[1]) - cy) for p in pos.values()) or 1.0
    return {i: (0.5 + (float(pos[i][0]) - cx) / (2 * reach_x), 0.5 + (float(pos[i][1]) - cy) / (2 * reach_y))
            for i in ids}


@dataclass(slots=True)
class ClusterLayout:
    """One cluster laid out on its own: positions in a ``width`` by ``height`` box (origin top left)."""

    positions: dict[str, Point]
    width: float
    height: float


@dataclass(slots=True)
class LayoutMemo:
    """Cluster layouts already computed, by what the cluster holds.

    ``laid_out`` counts the clusters computed anew, ``used`` the keys the last layout took
    (what :func:`write_memo` keeps).
    """

    clusters: dict[tuple, ClusterLayout] = field(default_factory=dict)
    laid_out: int = 0
    used: set[tuple] = field(default_factory=set)


#: Bump when a cluster's layout changes for the same pages and edges: an old file is then ignored.
MEMO_VERSION = 2  # 2: room for the cluster's name
#: The file under ``.wikitui/cache/`` that keeps the whole-wiki view's cluster layouts between runs.
MEMO_NAME = "graph-layout.pickle"


def read_memo(path: Path) -> LayoutMemo:
    """The cluster layouts kept at ``path``; an empty memo when there are none (or they are unreadable)."""
    try:
        with open(path, "rb") as fh:
            data = pickle.load(fh)
    except Exception:  # missing, truncated or foreign: laid out again
        return LayoutMemo()
    if not isinstance(data, dict) or data.get("version") != MEMO_VERSION or not isinstance(data.get("clusters"), dict):
        return LayoutMemo()
    clusters = {key: ClusterLayout(positions=pos, width=w, height=h) for key, (pos, w, h) in data["clusters"].items()}
    return LayoutMemo(clusters=clusters)


def write_memo(path: Path, memo: LayoutMemo) -> None:
    """Keep the clusters the last layout used, atomically; a read-only vault just goes without."""
    kept = {key: (c.positions, c.width, c.height) for key, c in memo.clusters.items() if key in memo.used}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, pickle.dumps({"version": MEMO_VERSION, "clusters": kept}, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass


@dataclass(slots=True)
class WholeLayout:
    """The whole-wiki view's positions (unit square) and each cluster's box in it (x0, y0, x1, y1)."""

    positions: dict[str, Point]
    boxes: dict[str, tuple[float, float, float, float]]


def layout_whole(model: GraphModel, *, aspect: float = 1.5, seed: int = 0,
                 memo: LayoutMemo | None = None) -> WholeLayout:
    """Lay out each cluster (or take it from ``memo``), then pack the clusters in rows about ``aspect`` wide."""
    memo = memo if memo is not None else LayoutMemo()
    clusters = model.clusters()
    cluster_of = {n.id: n.cluster for n in model.nodes.values()}
    edges_of: dict[str, list[tuple[str, str]]] = {name: [] for name in clusters}
    for a, b in model.edges:
        if cluster_of[a] == cluster_of[b]:
            edges_of[cluster_of[a]].append((a, b))
    laid: dict[str, ClusterLayout] = {}
    memo.used = set()
    for name, ids in clusters.items():
        key = (name, tuple(ids), tuple(edges_of[name]), seed)
        memo.used.add(key)
        got = memo.clusters.get(key)
        if got is None:
            got = memo.clusters[key] = _layout_cluster(ids, edges_of[name], seed=seed)
            memo.laid_out += 1
        laid[name] = got
    gap = 0.6
    sizes = {name: (c.width + gap, c.height + gap) for name, c in laid.items()}
    corners, _w, _h = _pack(sizes, aspect=aspect)
    placed: dict[str, Point] = {}
    for name, c in laid.items():
        ox, oy = corners[name]
        for node_id, (x, y) in c.positions.items():
            placed[node_id] = (ox + x, oy + y)
    # Filled to the unit square by where the nodes are (the last row's gap is not kept).
    x0 = min((p[0] for p in placed.values()), default=0.0)
    y0 = min((p[1] for p in placed.values()), default=0.0)
    span_x = max((p[0] for p in placed.values()), default=1.0) - x0 or 1.0
    span_y = max((p[1] for p in placed.values()), default=1.0) - y0 or 1.0
    positions = {i: ((x - x0) / span_x, (y - y0) / span_y) for i, (x, y) in placed.items()}
    boxes: dict[str, tuple[float, float, float, float]] = {}
    for name, c in laid.items():
        ox, oy = corners[name]
        boxes[name] = ((ox - x0) / span_x, (oy - y0) / span_y, (ox + c.width - x0) / span_x,
                       (oy + c.height - y0) / span_y)
    return WholeLayout(positions=positions, boxes=boxes)


def _layout_cluster(ids: list[str], edges: list[tuple[str, str]], *, seed: int) -> ClusterLayout:
    """Each connected group on its own (spring), the unlinked pages on a spiral; the pieces packed in rows."""
    linked: set[str] = set()
    for a, b in edges:
        linked.update((a, b))
    pieces: dict[str, ClusterLayout] = {}
    if linked:
        nx = _networkx()
        g = nx.Graph()
        g.add_nodes_from([i for i in ids if i in linked])
        g.add_edges_from(edges)
        groups = sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: (-len(c), c[0]))
        for n, group in enumerate(groups):
            pieces[f"{n:06d}"] = _layout_group(nx, g.subgraph(group), group, seed=seed)
    single = [i for i in ids if i not in linked]
    if single:
        pieces["spiral"] = _spiral(single)
    corners, width, height = _pack({k: (p.width + 0.5, p.height + 0.5) for k, p in pieces.items()}, aspect=1.0)
    positions: dict[str, Point] = {}
    for key, piece in pieces.items():
        ox, oy = corners[key]
        for node_id, (x, y) in piece.positions.items():
            positions[node_id] = (ox + x, oy + y + LABEL_ROOM)
    return ClusterLayout(positions=positions, width=width, height=height + LABEL_ROOM)


def _layout_group(nx: Any, g: Any, group: list[str], *, seed: int) -> ClusterLayout:
    """One connected group in a box whose side grows with the square root of its size."""
    side = max(1.0, math.sqrt(len(group)) * 0.9)
    if len(group) == 2:
        raw = {group[0]: (0.0, 0.0), group[1]: (1.0, 0.0)}
    elif len(group) <= SMALL_GROUP:  # a handful of pages: a circle says it all, and costs nothing
        hub = max(group, key=lambda i: (g.degree(i), i))
        raw = nx.shell_layout(g, nlist=[[hub], [i for i in group if i != hub]])
    elif len(group) <= SPRING_LIMIT:
        raw = nx.spring_layout(g, seed=seed, iterations=GROUP_ITERATIONS)
    else:  # rings of steps from the best-linked page
        hub = max(group, key=lambda i: (g.degree(i), i))
        rings: dict[int, list[str]] = {}
        for node_id, steps in sorted(nx.single_source_shortest_path_length(g, hub).items()):
            rings.setdefault(steps, []).append(node_id)
        raw = nx.shell_layout(g, nlist=[rings[r] for r in sorted(rings)])
    xs = [float(raw[i][0]) for i in group]
    ys = [float(raw[i][1]) for i in group]
    x0, y0 = min(xs), min(ys)
    span = max(max(xs) - x0, max(ys) - y0) or 1.0
    scale = side / span
    return ClusterLayout(positions={i: ((float(raw[i][0]) - x0) * scale, (float(raw[i][1]) - y0) * scale)
                                    for i in group},
                         width=(max(xs) - x0) * scale, height=(max(ys) - y0) * scale)


def _spiral(ids: list[str]) -> ClusterLayout:
    """Vogel's sunflower spiral: ``ids`` evenly spread over a disc, in their order from the middle out."""
    golden = math.pi * (3 - math.sqrt(5))
    radius = math.sqrt(len(ids)) * 0.3
    raw = [(math.sqrt(k + 0.5) * 0.3 * math.cos(k * golden), math.sqrt(k + 0.5) * 0.3 * math.sin(k * golden))
           for k in range(len(ids))]
    return ClusterLayout(positions={i: (x + radius, y + radius) for i, (x, y) in zip(ids, raw)},
                         width=2 * radius, height=2 * radius)


def _pack(sizes: dict[str, tuple[float, float]], *, aspect: float) -> tuple[dict[str, Point], float, float]:
    """Boxes placed left to right in rows about ``aspect`` times as wide as the whole is high, tallest first."""
    if not sizes:
        return {}, 0.0, 0.0
    area = sum(w * h for w, h in sizes.values())
    row_width = max(max(w for w, _ in sizes.values()), math.sqrt(area * aspect))
    corners: dict[str, Point] = {}
    x = y = row_h = width = 0.0
    for key in sorted(sizes, key=lambda k: (-sizes[k][1], k)):
        w, h = sizes[key]
        if x > 0 and x + w > row_width:
            y += row_h
            x = row_h = 0.0
        corners[key] = (x, y)
        x += w
        row_h = max(row_h, h)
        width = max(width, x)
    return corners, width, y + row_h

