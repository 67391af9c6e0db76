"""Dedup as it goes (DESIGN §11, §13): propose_page of a new page named like an existing one is answered
with that page; the same call again creates it."""

from __future__ import annotations

import json

import pytest

from wikitui.core.agent.tools import ToolBox
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.overlay import Overlay
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault


def page(title: str, aliases: str = "") -> str:
    more = f"aliases: [{aliases}]\n" if aliases else ""
    return f"---\ntitle: {title}\ntype: concept\n{more}---\n\n# {title}\n\nAbout {title}.\n"


def call(box: ToolBox, name: str, **args):
    return box.call(name, json.dumps(args))


@pytest.fixture
def vault(sample_vault):
    (sample_vault / "wiki/concepts").mkdir()
    (sample_vault / "wiki/concepts/transformer.md").write_text(page("Transformer"))
    (sample_vault / "wiki/concepts/lecture-1.md").write_text(page("Lecture 1"))
    return Vault.open(sample_vault)


def box_for(vault: Vault, overlay: Overlay | None = None) -> ToolBox:
    graph = overlay.graph if overlay is not None else LinkGraph.load(vault)
    return ToolBox(vault, graph, None, ChangesetBuilder(vault, graph, overlay), overlay=overlay)


def test_a_new_page_named_like_one_on_disk_gets_the_suggestion_then_goes_through(vault):
    box = box_for(vault)
    first = call(box, "propose_page", path="concepts/transformers.md", content=page("Transformers"), reason="new")
    assert not first.ok
    assert first.text == ("error: wiki/concepts/transformer.md (title 'Transformer') looks like the same subject; "
                          "propose_edit it instead, or call propose_page again with the same path to create "
                          "wiki/concepts/transformers.md anyway")
    assert box.builder.build("ingest", "t") is None  # nothing recorded
    again = call(box, "propose_page", path="concepts/transformers.md", content=page("Transformers"), reason="new")
    assert again.ok and again.text.startswith("recorded new page wiki/concepts/transformers.md")


def test_an_alias_and_a_page_earlier_in_the_turn_count_too(vault):
    box = box_for(vault)
    assert call(box, "propose_page", path="concepts/widget.md", content=page("Widget"), reason="new").ok
    twin = call(box, "propose_page", path="concepts/widgets.md", content=page("Widgets"), reason="new")
    assert not twin.ok and "wiki/concepts/widget.md (title 'Widget')" in twin.text
    alias = call(box, "propose_page", path="concepts/attention.md", content=page("Attention", "Transformers"),
                 reason="new")
    assert not alias.ok and "wiki/concepts/transformer.md" in alias.text


def test_a_page_an_earlier_changeset_of_the_batch_proposed_is_suggested(vault):
    (vault.root / "wiki/concepts/transformer.md").unlink()
    overlay = Overlay(LinkGraph.load(vault))
    earlier = ChangesetBuilder(vault, overlay.graph, overlay)
    earlier.new_page("concepts/encoder.md", page("Encoder"))
    overlay.add(earlier.build("ingest", "source 1"))
    box = box_for(vault, overlay)
    first = call(box, "propose_page", path="concepts/encoders.md", content=page("Encoders"), reason="new")
    assert not first.ok and "wiki/concepts/encoder.md (title 'Encoder') looks like the same subject" in first.text
    assert call(box, "propose_page", path="concepts/encoders.md", content=page("Encoders"), reason="new").ok
    # Its own path, proposed earlier in the batch, is an existing page: a rewrite, no suggestion.
    assert call(box, "propose_page", path="concepts/encoder.md", content=page("Encoder"), reason="again").ok


def test_names_that_differ_by_a_number_or_a_word_are_other_subjects(vault):
    box = box_for(vault)
    assert call(box, "propose_page", path="concepts/lecture-2.md", content=page("Lecture 2"), reason="new").ok
    assert call(box, "propose_page", path="concepts/transformer-xl.md", content=page("Transformer XL"),
                reason="new").ok
    # A rewrite of an existing page is no new subject either.
    assert call(box, "propose_page", path="concepts/transformer.md", content=page("Transformer"), reason="r").ok
