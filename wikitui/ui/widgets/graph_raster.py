"""The graph view's picture as a grid of cells: braille dots for the edges, a glyph per node, labels.

No Textual here: :func:`draw_base` draws what does not depend on the selection (every
edge, every node, the labels that fit: the centre's, the hubs', the clusters'), once per
graph and size; :func:`draw_selection` copies it and adds the selected node's edges,
its glyph and its neighbours' labels, which is cheap enough for every arrow press. Each
cell has a role (``edge``, ``node-orphan``, ``label``...) that the widget styles from
the theme (:class:`~wikitui.ui.widgets.graph_canvas.GraphCanvas`).

A cell holds 2 by 4 braille dots: positions are mapped to that dot grid, edges drawn
with Bresenham's line. A node's glyph grows with its link count, and a node with many
links gets a disc of dots around it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from rich.cells import cell_len

from wikitui.core.vault.graph_model import GraphModel, GraphNode
from wikitui.core.vault.visible_text import visible_line

#: Braille bit of the dot at (x % 2, y % 4) of a cell.
_DOT_BITS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))
_BRAILLE = 0x2800

#: Layers of a cell: what may overwrite what.
EMPTY, EDGE, NODE, LABEL = 0, 1, 2, 3

#: Longest label written beside a node (cells), the rest cut with an ellipsis.
LABEL_WIDTH = 24
#: Hubs labelled in the whole-wiki view.
HUB_LABELS = 12


@dataclass(slots=True)
class Picture:
    """A drawn graph: rows of characters and roles, and where each node sits.

    Attributes:
        width: Columns.
        height: Rows.
        chars: ``chars[row][col]``; "" for the second half of a wide character.
        roles: ``roles[row][col]``, a role name ("" for nothing).
        layers: ``layers[row][col]``: EMPTY, EDGE, NODE or LABEL.
        bits: The braille dots of each cell.
        cells: Each node's cell, by id.
        dots: Each node's dot, by id (the positions the arrows compare).
        labelled: The nodes whose label is written.
    """

    width: int
    height: int
    chars: list[list[str]]
    roles: list[list[str]]
    layers: list[list[int]]
    bits: list[list[int]]
    cells: dict[str, tuple[int, int]]
    dots: dict[str, tuple[int, int]]
    labelled: set[str]

    def copy(self) -> "Picture":
        """A copy to draw on (the node maps are shared: they do not change)."""
        return Picture(width=self.width, height=self.height, chars=[r[:] for r in self.chars],
                       roles=[r[:] for r in self.roles], layers=[r[:] for r in self.layers],
                       bits=[r[:] for r in self.bits], cells=self.cells, dots=self.dots,
                       labelled=set(self.labelled))

    def text(self) -> str:
        """The picture as plain text (tests read it)."""
        return "\n".join("".join(row) for row in self.chars)


def glyph(node: GraphNode) -> str:
    """A node's character: hollow for an unresolved target, small for an orphan, larger with more links."""
    if node.kind == "unresolved":
        return "○"
    if node.orphan:
        return "◦"
    return "•" if node.degree < 3 else "●"


def node_role(node: GraphNode, centre: str | None) -> str:
    """A node's role: the centre, an unresolved target, an orphan, a file, or a page."""
    if node.id == centre:
        return "node-centre"
    if node.kind == "unresolved":
        return "node-unresolved"
    if node.orphan:
        return "node-orphan"
    if node.kind == "file":
        return "node-file"
    return "node"


def label_role(node: GraphNode, centre: str | None) -> str:
    if node.id == centre:
        return "label-centre"
    if node.kind == "unresolved":
        return "label-unresolved"
    if node.orphan or node.kind == "file":
        return "label-muted"
    return "label"


def draw_base(model: GraphModel, positions: dict[str, tuple[float, float]], width: int, height: int, *,
              boxes: dict[str, tuple[float, float, float, float]] | None = None) -> Picture:
    """Every edge, node and the labels that fit, for ``positions`` in the unit square, in ``width`` x ``height``."""
    width, height = max(1, width), max(1, height)
    pic = Picture(width=width, height=height, chars=[[" "] * width for _ in range(height)],
                  roles=[[""] * width for _ in range(height)], layers=[[EMPTY] * width for _ in range(height)],
                  bits=[[0] * width for _ in range(height)], cells={}, dots={}, labelled=set())
    # Dots, inside a margin of one cell left and right (a glyph there still has room for a label).
    dot_w, dot_h = width * 2, height * 4
    left, right = (2, dot_w - 3) if dot_w > 8 else (0, dot_w - 1)
    top, bottom = (1, dot_h - 2) if dot_h > 4 else (0, dot_h - 1)
    for node_id, (x, y) in positions.items():
        if node_id in model.nodes:
            pic.dots[node_id] = (round(left + x * (right - left)), round(top + y * (bottom - top)))
    pic.cells = {node_id: (dx // 2, dy // 4) for node_id, (dx, dy) in pic.dots.items()}
    dots, nodes = pic.dots, model.nodes
    plain: list[tuple[tuple[int, int], tuple[int, int]]] = []
    unresolved: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for a, b in model.edges:
        if a in dots and b in dots:
            lost = nodes[a].kind == "unresolved" or nodes[b].kind == "unresolved"
            (unresolved if lost else plain).append((dots[a], dots[b]))
    _lines(pic, unresolved, "edge-unresolved")
    _lines(pic, plain, "edge")  # a cell both cross is a resolved link's
    hubs = sorted(model.nodes.values(), key=lambda n: (-n.degree, n.label.casefold()))
    for node in hubs:  # big nodes first: a small one drawn later keeps its own cell
        if node.degree >= 8 and node.id in pic.dots:
            _disc(pic, pic.dots[node.id], min(6, int(math.log2(node.degree))), node_role(node, model.centre))
    for node in reversed(hubs):
        if node.id in pic.cells:
            col, row = pic.cells[node.id]
            _put(pic, col, row, glyph(node), node_role(node, model.centre), NODE)
    if boxes:
        for name, (x0, y0, x1, _y1) in boxes.items():
            col = max(0, min(width - 1, round(left / 2 + x0 * (right - left) / 2)))
            last = max(col, min(width - 1, round(left / 2 + x1 * (right - left) / 2)))
            row = max(0, min(height - 1, round(top / 4 + y0 * (bottom - top) / 4)))
            text = f"{name or '(top)'}/"
            spots = [(row + down, c) for down in (0, 1, -1, 2) for c in range(col, max(col, last - 4) + 1, 2)]
            if not any(place_label(pic, c, r, text, "cluster", near=False) for r, c in spots):
                place_label(pic, col, row, text, "cluster", near=False, over_nodes=True)  # its name matters more
    if model.centre is not None:
        for node in [model.nodes[model.centre]] + [n for n in hubs if n.id != model.centre]:
            if node.id in pic.cells:
                label_node(pic, node, label_role(node, model.centre))
    else:  # the whole wiki: the hubs' names matter more than the glyphs of the pages under them
        for node in hubs[:HUB_LABELS]:
            if node.id in pic.cells:
                label_node(pic, node, label_role(node, None), over_nodes=True)
    return pic


def draw_selection(base: Picture, model: GraphModel, selected: str | None) -> Picture:
    """``base`` with the selected node's edges lit, its glyph marked and its neighbours' labels."""
    pic = base.copy()
    if selected is None or selected not in pic.dots:
        return pic
    near = model.neighbours(selected)
    _lines(pic, [(pic.dots[selected], pic.dots[o]) for o in near if o in pic.dots], "edge-selected")
    for other in near:
        node = model.nodes[other]
        if other in pic.cells:
            col, row = pic.cells[other]
            if pic.layers[row][col] <= NODE:
                _put(pic, col, row, glyph(node), node_role(node, model.centre), NODE)
    node = model.nodes[selected]
    col, row = pic.cells[selected]
    pic.chars[row][col], pic.roles[row][col], pic.layers[row][col] = glyph(node), "node-selected", NODE
    label_node(pic, node, "label-selected", force=True)
    for other in near:
        label_node(pic, model.nodes[other], label_role(model.nodes[other], model.centre))
    return pic


def label_node(pic: Picture, node: GraphNode, role: str, *, force: bool = False, over_nodes: bool = False) -> bool:
    """Write ``node``'s label right of its glyph, else left of it.

    ``force`` writes over other labels, ``over_nodes`` over other nodes' glyphs.
    """
    if node.id in pic.labelled and not force:
        return True
    col, row = pic.cells[node.id]
    if force and node.id in pic.labelled:
        _clear_labels(pic, col + 1, row, 1)  # its label as drawn before: written again in ``role``
        _clear_labels(pic, col - 1, row, 1)
    if place_label(pic, col, row, node.label, role, force=force, over_nodes=over_nodes):
        pic.labelled.add(node.id)
        return True
    return False


def place_label(pic: Picture, col: int, row: int, text: str, role: str, *, near: bool = True,
                force: bool = False, over_nodes: bool = False) -> bool:
    """Write ``text`` beside the cell (``near``) or from it; False when it fits nowhere free."""
    text = _cut(visible_line(text).replace("\t", " "), min(LABEL_WIDTH, max(1, pic.width - 2)))
    size = cell_len(text)
    spots = (col + 1, col - size) if near else (col,)
    for start in spots:
        if _free(pic, start, row, size, force=force, own=col if near else None, over_nodes=over_nodes):
            if force:  # what is left of the labels written over would run into this one
                _clear_labels(pic, start, row, size)
            _write(pic, start, row, text, role)
            return True
    return False


def _clear_labels(pic: Picture, start: int, row: int, size: int) -> None:
    """Blank the labels under ``start .. start + size`` (or touching it), each as a whole."""
    labels = pic.layers[row]
    first, last = max(0, start - 1), min(pic.width - 1, start + size)
    while first > 0 and labels[first] == LABEL and labels[first - 1] == LABEL:
        first -= 1
    while last + 1 < pic.width and labels[last] == LABEL and labels[last + 1] == LABEL:
        last += 1
    for col in range(first, last + 1):
        if labels[col] == LABEL:
            _put(pic, col, row, " ", "", EMPTY)
            pic.bits[row][col] = 0


def _free(pic: Picture, start: int, row: int, size: int, *, force: bool, own: int | None,
          over_nodes: bool = False) -> bool:
    if row < 0 or row >= pic.height or start < 0 or start + size > pic.width:
        return False
    # A label keeps one free cell from the next label and from any node but its own (``own``'s column).
    for col in range(max(0, start - 1), min(pic.width, start + size + 1)):
        layer = pic.layers[row][col]
        inside = start <= col < start + size
        if inside and ((layer == NODE and not over_nodes) or (layer == LABEL and not force)):
            return False
        if not inside and ((layer == LABEL and not force) or (layer == NODE and col != own and not over_nodes)):
            return False
    return True


def _write(pic: Picture, start: int, row: int, text: str, role: str) -> None:
    col = start
    for ch in text:
        w = cell_len(ch)
        if w <= 0:
            continue
        _put(pic, col, row, ch, role, LABEL)
        for extra in range(1, w):
            _put(pic, col + extra, row, "", role, LABEL)
        col += w


def _cut(text: str, size: int) -> str:
    if cell_len(text) <= size:
        return text
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > size - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def _put(pic: Picture, col: int, row: int, ch: str, role: str, layer: int) -> None:
    if 0 <= row < pic.height and 0 <= col < pic.width:
        pic.chars[row][col], pic.roles[row][col], pic.layers[row][col] = ch, role, layer


def _dot(pic: Picture, x: int, y: int, role: str) -> None:
    col, row = x // 2, y // 4
    if not (0 <= row < pic.height and 0 <= col < pic.width) or pic.layers[row][col] > EDGE:
        return
    bits = pic.bits[row][col] | _DOT_BITS[x % 2][y % 4]
    pic.bits[row][col] = bits
    pic.chars[row][col] = chr(_BRAILLE + bits)
    if role == "edge-selected" or pic.roles[row][col] in ("", "edge-unresolved"):
        pic.roles[row][col] = role
    pic.layers[row][col] = EDGE


def _lines(pic: Picture, pairs: list[tuple[tuple[int, int], tuple[int, int]]], role: str) -> None:
    """Straight lines between the dots of each pair, all at once (numpy): a dot per step along the longer axis."""
    if not pairs:
        return
    import numpy as np

    ends = np.asarray(pairs, dtype=np.int64)  # (edges, 2 ends, x/y)
    start, span = ends[:, 0, :], ends[:, 1, :] - ends[:, 0, :]
    steps = np.maximum(np.abs(span).max(axis=1), 1)
    counts = steps + 1
    edge = np.repeat(np.arange(len(pairs)), counts)
    along = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    t = along / steps[edge]
    xs = np.rint(start[edge, 0] + span[edge, 0] * t).astype(np.int64)
    ys = np.rint(start[edge, 1] + span[edge, 1] * t).astype(np.int64)
    inside = (xs >= 0) & (xs < pic.width * 2) & (ys >= 0) & (ys < pic.height * 4)
    xs, ys = xs[inside], ys[inside]
    grid = np.zeros(pic.width * pic.height, dtype=np.int64)
    np.bitwise_or.at(grid, (ys // 4) * pic.width + xs // 2, _bit_table()[xs % 2, ys % 4])
    width = pic.width
    for cell, bits in zip(np.flatnonzero(grid).tolist(), grid[grid != 0].tolist()):
        row, col = divmod(cell, width)
        if pic.layers[row][col] > EDGE:
            continue
        bits |= pic.bits[row][col]
        pic.bits[row][col] = bits
        pic.chars[row][col] = chr(_BRAILLE + bits)
        if role == "edge-selected" or pic.roles[row][col] in ("", "edge-unresolved"):
            pic.roles[row][col] = role
        pic.layers[row][col] = EDGE


@cache
def _bit_table() -> Any:
    """:data:`_DOT_BITS` as a numpy array, made once."""
    import numpy as np

    return np.array(_DOT_BITS, dtype=np.int64)


def _disc(pic: Picture, centre: tuple[int, int], radius: int, role: str) -> None:
    """The dots of a disc (a node with many links is drawn bigger)."""
    if radius <= 0:
        return
    cx, cy = centre
    for y in range(cy - radius, cy + radius + 1):  # a braille dot is as wide as it is tall
        for x in range(cx - radius, cx + radius + 1):
            if (x - cx) ** 2 + (y - cy) ** 2 <= radius * radius and x >= 0 and y >= 0:
                _dot(pic, x, y, role)
