"""A chart in the review: its picture under the diff, one decision for the picture, drawn again with `g`."""

from __future__ import annotations

import json

import pytest

from tests.ui.test_review import ReviewApp
from tests.ui.workspace_helpers import notices, wait_for
from wikitui.core.agent.tools import ToolBox
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.vault.create import init_vault
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.ui.widgets.chart_preview import ChartPreview
from wikitui.ui.widgets.diff_view import DiffView

SPEC = {
    "kind": "line", "title": "Alice's height", "x_label": "chapter", "y_label": "inches",
    "series": [{"name": "height", "x": [1, 2, 3, 4, 5], "y": [48, 10, 108, 3, 60]}],
}


@pytest.fixture
def chart_changeset(tmp_path):
    root = tmp_path / "vault"
    init_vault(root)
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    builder = ChangesetBuilder(vault, graph)
    builder.changeset_id = "cs-20260101-c4a7f0"  # fixed, for snapshots
    box = ToolBox(vault, graph, builder=builder)
    outcome = box.call("propose_chart", json.dumps({"path": "assets/height.png", "spec": SPEC, "reason": "asked"}))
    assert outcome.ok, outcome.text
    return builder.build("query", "Alice's height", model="test-model")


async def test_the_picture_shows_under_its_spec_and_is_one_decision(chart_changeset):
    app = ReviewApp(chart_changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        preview = app.screen.query_one(ChartPreview)
        diff = app.screen.query_one(DiffView)
        assert diff.change.path == "wiki/assets/height.png" and preview.display
        await wait_for(pilot, lambda: preview.render_line(8).text.strip(), "the picture scaled in a worker", 20)
        assert "▀" in "".join(preview.render_line(y).text for y in range(5, 10))
        await pilot.press("a")  # the picture is one hunk: accepted whole, on to the sidecar
        assert diff.change.path == "wiki/assets/height.chart.json" and preview.display
        await pilot.press("g")
        await wait_for(pilot, lambda: any("drawn again" in n for n in notices(app)), "the chart drawn again", 20)
        assert any("the same picture" in n for n in notices(app))
        await pilot.press("a", "enter")
    result = app.results[0]
    assert set(result.accepted) == {"f0h0", "f1h0"}


async def test_the_preview_hides_for_a_page(tmp_path):
    root = tmp_path / "pages"
    init_vault(root)
    (root / "wiki" / "concepts").mkdir()
    (root / "wiki" / "concepts" / "attention.md").write_text("---\ntitle: Attention\ntype: concept\nsummary: s\n---\n"
                                                             "# Attention\n\nOne line.\n", encoding="utf-8")
    (root / "wiki" / "concepts" / "transformer.md").write_text("---\ntitle: Transformer\ntype: concept\nsummary: s\n"
                                                               "---\n# Transformer\n\nOne.\n", encoding="utf-8")
    vault = Vault.open(root)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    builder.edit("wiki/concepts/attention.md", [{"old": "One line.", "new": "Two lines."}], "why")
    app = ReviewApp(builder.build("edit", "x"))
    async with app.run_test(size=(120, 40)):
        assert not app.screen.query_one(ChartPreview).display


def test_snapshot_a_chart_in_the_review(chart_changeset, snap_compare):
    async def drawn(pilot):
        preview = pilot.app.screen.query_one(ChartPreview)
        await wait_for(pilot, lambda: preview.render_line(8).text.strip(), "the picture scaled in a worker", 20)
        await pilot.pause()

    assert snap_compare(ReviewApp(chart_changeset), terminal_size=(120, 40), run_before=drawn)
