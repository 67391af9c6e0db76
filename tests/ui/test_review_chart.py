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


@pytest.fixture(autouse=True)
def half_blocks(monkeypatch):
    """Half blocks, as on any terminal: the same pictures everywhere (the page pane's pictures too)."""
    monkeypatch.setenv("WIKITUI_PICTURES", "halfcell")


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
        # A notice is a message the app handles after this frame: wait for it, do not race it.
        await wait_for(pilot, lambda: any("the same picture" in n for n in notices(app)), "the notice")
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


async def test_a_chart_asked_in_the_chat_is_reviewed_with_its_picture_and_applied(fake_llm, sample_vault):
    from tests.fakeserver import text, tool_calls
    from tests.ui.test_chat_ingest import type_in_chat
    from tests.ui.workspace_helpers import wait_ready, workspace
    from wikitui.core.outputs.charts import render_from_sidecar
    from wikitui.ui.screens.review import ReviewScreen
    from wikitui.ui.widgets.chat_pane import ChatPane

    page = ("---\ntitle: Alice's height\ntype: answer\nsummary: How tall Alice is, chapter by chapter\n---\n\n"
            "# Alice's height\n\n![[assets/height.png]]\n")
    fake_llm.script(
        tool_calls(("propose_chart", {"path": "assets/height.png", "spec": SPEC, "reason": "asked for a chart"}),
                   ("propose_page", {"path": "wiki/answers/alices-height.md", "content": page, "reason": "shows it"})),
        text("Here is her height: ![[assets/height.png]]"),
    )
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await type_in_chat(pilot, "Chart Alice's height through the book")
        await wait_for(pilot, lambda: not chat.busy and chat.chat_log.cards, "the changeset card", 40)
        assert not (sample_vault / "wiki/assets/height.png").exists()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        preview = app.screen.query_one(ChartPreview)
        await wait_for(pilot, lambda: preview.render_line(8).text.strip(), "the picture", 20)
        await pilot.press("a", "a", "a", "enter")  # the picture, its spec, the page
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen), "the apply", 20)
        await wait_for(pilot, lambda: (sample_vault / "wiki/assets/height.png").exists(), "the picture on disk")
    sidecar = (sample_vault / "wiki/assets/height.chart.json").read_text(encoding="utf-8")
    assert (sample_vault / "wiki/assets/height.png").read_bytes() == render_from_sidecar(sidecar)
    assert "![[assets/height.png]]" in (sample_vault / "wiki/answers/alices-height.md").read_text(encoding="utf-8")


async def test_the_page_panes_picture_widget_draws_the_chart_where_it_is_installed(chart_changeset, monkeypatch):
    """With ``wikitui.ui.widgets.picture`` (textual-image: kitty, sixel), the chart is drawn by its widget."""
    import types

    import wikitui.ui.widgets
    from textual.widgets import Static

    class Drawn(Static):
        def __init__(self, image):
            super().__init__("a picture")
            self.image = image

    stand_in = types.ModuleType("wikitui.ui.widgets.picture")
    stand_in.picture_widget_class = lambda truecolor=True: Drawn
    stand_in.fitted_cells = lambda pixels, room: (min(room[0], pixels[0] // 10), min(room[1], pixels[1] // 20))
    monkeypatch.setitem(__import__("sys").modules, "wikitui.ui.widgets.picture", stand_in)
    monkeypatch.setattr(wikitui.ui.widgets, "picture", stand_in, raising=False)
    monkeypatch.setenv("WIKITUI_PICTURES", "sixel")  # a terminal that draws pictures itself
    app = ReviewApp(chart_changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        preview = app.screen.query_one(ChartPreview)
        await wait_for(pilot, lambda: preview.query(Drawn), "the picture widget", 20)
        drawn = preview.query_one(Drawn)
        assert drawn.image.size == (800, 500)  # the proposed PNG, decoded
        assert (drawn.styles.width.value, drawn.styles.height.value) == (80, 21)  # fitted to the room
        assert not preview.render_line(8).text.strip()  # no half blocks under it
        await pilot.press("a")  # the sidecar: the same chart, drawn again by the widget
        await wait_for(pilot, lambda: preview.query(Drawn), "the picture widget again", 20)
