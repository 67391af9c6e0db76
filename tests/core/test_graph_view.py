"""The graph view's core (issue 27.1): the nodes and edges of a page's rings, the whole wiki's clusters, the
filter, the seeded layouts and the arrows' moves along edges; no event loop."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.core.graph_util import graph_vault
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.graph_layout import (
    LayoutMemo,
    layout_local,
    layout_whole,
    read_memo,
    write_memo,
)
from wikitui.core.vault.graph_model import MAX_DEPTH, GraphFilter, GraphIndex, GraphModel, local_graph, whole_graph
from wikitui.core.vault.graph_moves import step
from wikitui.core.vault.layout import Vault

T, SA, QKV, ENC = ("wiki/concepts/transformer.md", "wiki/concepts/self-attention.md",
                   "wiki/concepts/query-key-value.md", "wiki/concepts/encoder.md")
BERT, GPT, LONELY, INDEX = "wiki/models/bert.md", "wiki/models/gpt.md", "wiki/notes/lonely.md", "wiki/index.md"
MISSING = "?Missing Idea"


def index_of(tmp_path) -> GraphIndex:
    return GraphIndex(LinkGraph.load(Vault(graph_vault(tmp_path / "v")), use_cache=False, save_cache=False))


def test_the_local_graph_is_the_page_its_links_and_backlinks_and_a_second_ring_on_demand(tmp_path):
    index = index_of(tmp_path)
    one = local_graph(index, T)
    assert list(one.nodes)[0] == T and one.centre == T and one.depth == 1
    # Its links (an unresolved one too) and its backlinks (index.md links it, it links nowhere else).
    assert set(one.nodes) == {T, SA, BERT, ENC, MISSING, INDEX}
    assert {n.ring for i, n in one.nodes.items() if i != T} == {1}
    assert (SA, T) in one.edges and (T, BERT) in one.edges and (INDEX, BERT) in one.edges  # every edge between them
    assert one.nodes[MISSING].kind == "unresolved" and one.nodes[MISSING].label == "Missing Idea"
    assert one.nodes[T].degree == 5 and one.nodes[BERT].degree == 3  # link counts, both ways, distinct
    two = local_graph(index, T, depth=2)
    assert set(two.nodes) - set(one.nodes) == {QKV, GPT, LONELY}
    assert two.nodes[QKV].ring == 2 and two.nodes[LONELY].orphan and not two.nodes[BERT].orphan
    # The depth stays between 1 and MAX_DEPTH.
    assert local_graph(index, T, depth=0).depth == 1 and local_graph(index, T, depth=99).depth == MAX_DEPTH


def test_the_filter_keeps_types_or_tags_and_the_centre(tmp_path):
    index = index_of(tmp_path)
    entities = local_graph(index, T, depth=2, keep=GraphFilter.parse("entity"))
    assert set(entities.nodes) == {T, BERT, GPT}  # GPT is reached through BERT, which is kept
    assert entities.hidden == 4  # Self-Attention, Encoder, the unresolved target, index.md
    concepts = local_graph(index, T, depth=2, keep=GraphFilter.parse("type:concept"))
    assert set(concepts.nodes) == {T, SA, ENC, QKV}  # GPT only through BERT (hidden): not shown
    tagged = local_graph(index, T, depth=2, keep=GraphFilter.parse("#ml"))
    assert set(tagged.nodes) == {T, SA}
    assert set(local_graph(index, T, keep=GraphFilter.parse("tag:model CONCEPT")).nodes) == {T, SA, BERT, ENC}
    assert not GraphFilter.parse("  ").active and GraphFilter.parse("#ml entity").describe() == "type:entity tag:ml"


@given(st.text(max_size=60))
def test_any_filter_text_parses_and_reads_back_the_same(text):
    parsed = GraphFilter.parse(text)
    assert GraphFilter.parse(parsed.describe()) == parsed
    assert all(" " not in word and word for word in parsed.types | parsed.tags)


def test_the_whole_wiki_is_clustered_by_folder(tmp_path):
    model = whole_graph(index_of(tmp_path))
    clusters = model.clusters()
    assert set(clusters) == {"", "concepts", "models", "notes", "(unresolved)"}
    assert set(clusters["models"]) == {BERT, GPT} and clusters["(unresolved)"] == [MISSING]
    assert not any(i.startswith("raw/") for i in model.nodes)  # sources are not the wiki's shape
    only = whole_graph(index_of(tmp_path / "again"), keep=GraphFilter.parse("entity"))
    assert set(only.nodes) == {BERT, GPT} and only.edges == [(BERT, GPT)]


def test_a_flat_wiki_is_clustered_by_type(tmp_path):
    from tests.core.changes_util import make_vault, page

    root = make_vault(tmp_path / "flat", {"a.md": page("A", "[[B]]\n"), "b.md": page("B", "x\n", type_="entity"),
                                          "c.md": page("C", "[[A]]\n")}, index=None)
    model = whole_graph(GraphIndex(LinkGraph.load(Vault(root), use_cache=False, save_cache=False)))
    clusters = model.clusters()
    assert set(clusters["concept"]) == {"wiki/a.md", "wiki/c.md"} and clusters["entity"] == ["wiki/b.md"]


def test_layouts_are_seeded_the_same_graph_looks_the_same(tmp_path):
    index = index_of(tmp_path)
    model = local_graph(index, T, depth=2)
    first = layout_local(model)
    assert first == layout_local(model)
    # The same graph built again (another vault, the same pages) lays out the same.
    assert first == layout_local(local_graph(index_of(tmp_path / "again"), T, depth=2))
    assert first[T] == (0.5, 0.5)  # the page in the middle
    assert all(0.0 <= x <= 1.0 and 0.0 <= y <= 1.0 for x, y in first.values())
    assert len({(round(x, 3), round(y, 3)) for x, y in first.values()}) == len(first)  # no two nodes at one spot
    whole = whole_graph(index)
    assert layout_whole(whole).positions == layout_whole(whole).positions


def test_the_whole_view_lays_out_only_clusters_that_changed_and_keeps_them_on_disk(tmp_path):
    index = index_of(tmp_path)
    model = whole_graph(index)
    memo = LayoutMemo()
    first = layout_whole(model, memo=memo)
    assert memo.laid_out == len(model.clusters())
    assert set(first.boxes) == set(model.clusters())
    again = layout_whole(model, memo=memo)
    assert memo.laid_out == len(model.clusters()) and again.positions == first.positions
    # One cluster loses a page: only that one is laid out again.
    fewer = GraphModel(nodes={i: n for i, n in model.nodes.items() if i != GPT},
                       edges=[e for e in model.edges if GPT not in e])
    layout_whole(fewer, memo=memo)
    assert memo.laid_out == len(model.clusters()) + 1
    # Kept on disk: a new session reads them back and lays out nothing.
    path = tmp_path / "state" / "graph-layout.pickle"
    layout_whole(model, memo=memo)
    write_memo(path, memo)
    read_back = read_memo(path)
    assert len(read_back.clusters) == len(model.clusters())  # only what the last layout used
    assert layout_whole(model, memo=read_back).positions == first.positions and read_back.laid_out == 0
    path.write_bytes(b"not a pickle")
    assert read_memo(path).clusters == {}


def test_arrows_move_along_edges_in_their_direction():
    positions = {"c": (0.0, 0.0), "right": (5.0, 1.0), "near-right": (1.0, 0.2), "up": (0.5, -4.0),
                 "down-left": (-3.0, 3.0), "far": (9.0, 9.0)}
    edges = ["right", "up", "down-left"]  # near-right and far join c by no edge
    # Along an edge, even when another node lies nearer that way.
    assert step(positions, "c", "right", edges, others=positions) == "right"
    assert step(positions, "c", "up", edges, others=positions) == "up"
    assert step(positions, "c", "left", edges, others=positions) == "down-left"
    # Down: down-left (45 degrees off) beats right (far off to the side, barely down).
    assert step(positions, "c", "down", edges, others=positions) == "down-left"
    # An edge that goes that way at all (up is 83 degrees off right) wins over a node no edge leads to.
    assert step(positions, "c", "right", ["up"], others=positions) == "up"
    # No edge that way: the nearest node that way.
    assert step(positions, "c", "right", ["down-left"], others=positions) == "near-right"
    assert step(positions, "far", "right", ["c"], others=positions) is None
    assert step(positions, "c", "right", []) is None


def test_a_straight_edge_beats_a_nearer_one_far_off_to_the_side():
    positions = {"c": (0.0, 0.0), "ahead": (4.0, 0.0), "aside": (2.0, 1.9)}
    assert step(positions, "c", "right", ["ahead", "aside"]) == "ahead"
    assert step(positions, "c", "down", ["ahead", "aside"]) == "aside"
