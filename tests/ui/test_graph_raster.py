"""The graph view's picture (issue 27.1): rows exactly as wide as the canvas whatever the titles, titles made
visible, long ones cut, the selection drawn over the base; no event loop."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from wikitui.core.vault.graph_model import GraphModel, GraphNode
from wikitui.ui.widgets.graph_raster import LABEL_WIDTH, draw_base, draw_selection


def model_of(labels: list[str], edges: list[tuple[int, int]]) -> GraphModel:
    nodes = {f"n{i}": GraphNode(id=f"n{i}", label=label, kind="page", degree=0) for i, label in enumerate(labels)}
    pairs = sorted({(f"n{min(a, b)}", f"n{max(a, b)}") for a, b in edges if a != b})
    return GraphModel(nodes=nodes, edges=pairs, centre="n0")


def row_widths(picture) -> set[int]:
    return {sum(cell_len(ch) for ch in row) for row in picture.chars}


@settings(max_examples=60, deadline=None)
@given(
    labels=st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=12),
    points=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=12, max_size=12),
    edges=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=20),
    size=st.sampled_from([(80, 21), (120, 37), (20, 6), (3, 2)]),
)
def test_every_row_is_exactly_the_canvas_width_and_no_control_character_reaches_it(labels, points, edges, size):
    edges = [(a, b) for a, b in edges if a < len(labels) and b < len(labels)]
    model = model_of(labels, edges)
    positions = {f"n{i}": points[i] for i in range(len(labels))}
    picture = draw_selection(draw_base(model, positions, *size), model, "n0")
    assert row_widths(picture) == {size[0]} and len(picture.chars) == size[1]
    text = picture.text()
    assert not any(ord(ch) < 32 and ch != "\n" or 0x7f <= ord(ch) < 0xa0 for ch in text)


def test_titles_are_made_visible_and_long_ones_cut():
    model = model_of(["Evil\x1b[2J title", "A title far longer than the label width allows it to be", "宽字符标题"],
                     [(0, 1), (0, 2)])
    positions = {"n0": (0.5, 0.5), "n1": (0.0, 0.0), "n2": (1.0, 1.0)}
    picture = draw_base(model, positions, 100, 20)
    text = picture.text()
    assert "Evil␛[2J title" in text and "\x1b" not in text
    assert "A title far longer than…" in text and len("A title far longer than…") == LABEL_WIDTH
    assert "宽字符标题" in text and row_widths(picture) == {100}


def test_the_selection_lights_its_edges_over_an_unchanged_base():
    model = model_of(["Centre", "Left", "Right"], [(0, 1), (0, 2)])
    positions = {"n0": (0.5, 0.5), "n1": (0.0, 0.5), "n2": (1.0, 0.5)}
    base = draw_base(model, positions, 60, 10)
    before = base.text()
    lit = draw_selection(base, model, "n1")
    assert base.text() == before  # the base is drawn once and kept
    col, row = lit.cells["n1"]
    assert lit.roles[row][col] == "node-selected"
    left_edge = {lit.roles[row][c] for c in range(col + 6, lit.cells["n0"][0])}
    assert "edge-selected" in left_edge
    right_edge = {lit.roles[row][c] for c in range(lit.cells["n0"][0] + 8, lit.cells["n2"][0])}
    assert "edge-selected" not in right_edge and "edge" in right_edge


def test_a_node_grows_with_its_link_count():
    from wikitui.ui.widgets.graph_raster import glyph

    nodes = {"hub": GraphNode(id="hub", label="Hub", kind="page", degree=12),
             "mid": GraphNode(id="mid", label="Mid", kind="page", degree=4),
             "leaf": GraphNode(id="leaf", label="Leaf", kind="page", degree=1)}
    model = GraphModel(nodes=nodes, edges=[])
    picture = draw_base(model, {"hub": (0.2, 0.5), "mid": (0.5, 0.5), "leaf": (0.8, 0.5)}, 60, 12)
    assert [glyph(nodes[i]) for i in ("hub", "mid", "leaf")] == ["●", "●", "•"]

    def disc_cells(node_id):
        col, row = picture.cells[node_id]
        return sum(1 for r in range(row - 1, row + 2) for c in range(col - 2, col + 3)
                   if (r, c) != (row, col) and picture.roles[r][c] == "node")

    assert disc_cells("hub") >= 3  # a disc of dots around the best-linked page
    assert disc_cells("mid") == 0 and disc_cells("leaf") == 0
