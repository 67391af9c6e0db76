"""A small wiki with a known link graph, shared by the graph view's core and UI tests.

Transformer links Self-Attention, BERT, Encoder and an unresolved [[Missing Idea]];
Self-Attention links back and on to Query Key Value (two steps from Transformer);
BERT (an entity tagged ``model``) links back and to GPT; Lonely is an orphan.
"""

from __future__ import annotations

from pathlib import Path

from tests.core.changes_util import make_vault


def _page(title: str, body: str, *, type_: str, tags: tuple[str, ...] = ()) -> str:
    tag_line = f"tags: [{', '.join(tags)}]\n" if tags else ""
    return f"---\ntitle: {title}\ntype: {type_}\n{tag_line}summary: {title} in one line\n---\n\n{body}"


GRAPH_PAGES = {
    "concepts/transformer.md": _page(
        "Transformer", "Built on [[Self-Attention]], used by [[BERT]], has an [[Encoder]]; see [[Missing Idea]].\n",
        type_="concept", tags=("ml",)),
    "concepts/self-attention.md": _page(
        "Self-Attention", "The heart of the [[Transformer]]; computes [[Query Key Value]].\n", type_="concept",
        tags=("ml",)),
    "concepts/query-key-value.md": _page("Query Key Value", "Three projections.\n", type_="concept"),
    "concepts/encoder.md": _page("Encoder", "Half of a transformer.\n", type_="concept"),
    "models/bert.md": _page("BERT", "An encoder-only [[Transformer]]; compare [[GPT]].\n", type_="entity",
                            tags=("model",)),
    "models/gpt.md": _page("GPT", "A decoder-only model, unlike [[BERT]].\n", type_="entity", tags=("model",)),
    "notes/lonely.md": _page("Lonely", "Nobody links here.\n", type_="note"),
}

INDEX = "# Index\n\n- [[Transformer]]\n- [[BERT]]\n- [[Lonely]]\n"


def graph_vault(root: Path) -> Path:
    """The small wiki at ``root``."""
    return make_vault(root, GRAPH_PAGES, index=INDEX)
