"""The review shows each hunk's evidence (DESIGN §11 "Evidence"), as a person sees it.

Under a hunk: the source and its lines themselves; a ⚠ for a quote the source does not hold
and for a hunk that adds claims with no evidence; ``v`` steps onto an evidence line and
``enter`` there opens the source at that line (``esc`` goes back, nothing applied).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.ui.test_review import ReviewApp
from tests.ui.workspace_helpers import screen_text
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.vault.create import init_vault
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.ui.screens.evidence_source import EvidenceSourceScreen
from wikitui.ui.screens.review import ReviewScreen
from wikitui.ui.widgets.diff_view import DiffView
from wikitui.ui.widgets.page_view import PageView

DODO = "wiki/characters/dodo.md"
GOOD = {"source": "raw/chapter-03.md", "quote": "the best thing to get us dry would be a Caucus-race"}
BAD = {"source": "raw/chapter-03.md", "quote": "a race run in a perfect square"}


SAMPLE = Path(__file__).resolve().parents[2] / "sample"
FILLER = "".join(f"Note {n}.\n" for n in range(1, 9))  # lines that state nothing, keeping the hunks apart
PAGE = ("---\ntitle: Dodo\ntype: entity\nsummary: The Dodo of the Caucus-race\nsources: [raw/chapter-03.md]\n---\n"
        "# Dodo\n\nIts remedy is the Caucus-race.\n" + FILLER + "The race is all procedure and no point.\n" + FILLER
        + "Appears in the third chapter.\n")


@pytest.fixture
def sample_vault(tmp_path) -> Path:
    """A vault with the sample's third chapter as its source and a short page on the Dodo (no `updated:`,
    so the snapshot holds no date)."""
    root = tmp_path / "vault"
    init_vault(root)
    shutil.copy(SAMPLE / "raw" / "chapter-03.md", root / "raw" / "chapter-03.md")
    (root / "wiki" / "characters").mkdir()
    (root / DODO).write_text(PAGE, encoding="utf-8")
    return root


def evidence_changeset(root):
    vault = Vault.open(root)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    builder.changeset_id = "cs-20260101-e1d2c3"  # fixed, for the snapshot
    builder.edit(DODO, [
        {"old": "Its remedy is the Caucus-race.",
         "new": "Its remedy is the Caucus-race, the best thing, it says, to get everyone dry.", "evidence": [GOOD]},
        {"old": "all procedure and no point.", "new": "all procedure and no point, run in a perfect square.",
         "evidence": [BAD]},
        {"old": "Appears in the third chapter.",
         "new": "Appears in the third chapter, presenting the thimble with great solemnity."},
    ], "the remedy's purpose")
    builder.check_evidence()
    changeset = builder.build("edit", "the Dodo's remedy", model="test-model")
    assert [len(h.evidence) for h in changeset.files[0].hunks] == [1, 1, 0]
    return vault, changeset


async def _open(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()
    diff = app.screen.query_one(DiffView)
    assert diff.evidence_marks  # the worker read the sources
    return diff


async def test_the_evidence_lines_and_the_marks_show_under_their_hunks(sample_vault):
    vault, changeset = evidence_changeset(sample_vault)
    line33 = (sample_vault / "raw/chapter-03.md").read_text().splitlines()[32]
    app = ReviewApp(changeset, vault=vault)
    async with app.run_test(size=(120, 40)) as pilot:
        diff = await _open(app, pilot)
        rows = diff.shown_rows("evidence")
        hunks = {h.id: i for i, h in enumerate(changeset.files[0].hunks)}
        backed = next(i for i, h in enumerate(changeset.files[0].hunks) if h.evidence and h.evidence[0].found)
        assert (backed, "❝ raw/chapter-03.md lines 33") in rows
        assert any(h == backed and text.startswith("  33 │ " + line33[:40]) for h, text in rows)
        assert " ".join(text for h, text in rows if h == 1) == (
            "⚠ evidence: raw/chapter-03.md does not hold the quote “a race run in a perfect square”")  # wrapped
        assert [text for h, text in rows if h == 2] == ["⚠ adds claims with no evidence"]
        dated = [i for hid, i in hunks.items() if "updated:" in "".join(changeset.hunk(hid).lines)]
        assert not any(h in dated for h, _ in rows)  # the date's own hunk states nothing
        shown = screen_text(app)
        assert "❝ raw/chapter-03.md lines 33" in shown and "33 │ 'What I was going to say,'" in shown


async def test_enter_on_an_evidence_line_opens_the_source_at_that_line_and_esc_comes_back(sample_vault):
    vault, changeset = evidence_changeset(sample_vault)
    before = (sample_vault / DODO).read_text()
    app = ReviewApp(changeset, vault=vault)
    async with app.run_test(size=(120, 40)) as pilot:
        diff = await _open(app, pilot)
        hunk = next(i for i, h in enumerate(changeset.files[0].hunks) if h.evidence and h.evidence[0].found)
        while diff.cursor != hunk:
            await pilot.press("j")
        await pilot.press("v")
        assert diff.selected_evidence == ("raw/chapter-03.md", 33)  # the evidence's first line: its header
        await pilot.press("v")
        assert diff.selected_evidence == ("raw/chapter-03.md", 33)  # the source line itself
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        viewer = app.screen
        assert isinstance(viewer, EvidenceSourceScreen) and (viewer.path, viewer.line) == ("raw/chapter-03.md", 33)
        page = viewer.query_one(PageView)
        assert page.scroll_offset.y > 0  # scrolled down to the line
        assert "'What I was going to say,' said the Dodo" in screen_text(app)
        assert "raw/chapter-03.md · line 33" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen) and app.results == []
        assert diff.selected_evidence == ("raw/chapter-03.md", 33)  # still where it was
        await pilot.press("v")  # past the hunk's last evidence line: none selected, enter would apply
        assert diff.selected_evidence is None
    assert (sample_vault / DODO).read_text() == before


async def test_the_source_opens_at_its_line_on_a_small_terminal(sample_vault):
    vault, changeset = evidence_changeset(sample_vault)
    app = ReviewApp(changeset, vault=vault)
    async with app.run_test(size=(80, 24)) as pilot:
        diff = await _open(app, pilot)
        hunk = next(i for i, h in enumerate(changeset.files[0].hunks) if h.evidence and h.evidence[0].found)
        while diff.cursor != hunk:
            await pilot.press("j")
        assert "❝ raw/chapter-03.md lines 33" in screen_text(app)
        await pilot.press("v", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, EvidenceSourceScreen)
        assert "'What I was going to say,'" in screen_text(app)


def test_snapshot_review_with_evidence(sample_vault, snap_compare):
    vault, changeset = evidence_changeset(sample_vault)

    async def show(pilot):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        diff = pilot.app.screen.query_one(DiffView)
        hunk = next(i for i, h in enumerate(changeset.files[0].hunks) if h.evidence and h.evidence[0].found)
        while diff.cursor != hunk:
            await pilot.press("j")
        await pilot.press("v", "v")

    assert snap_compare(ReviewApp(changeset, vault=vault), terminal_size=(120, 40), run_before=show)


@pytest.mark.parametrize("op, model, flagged", [("ingest", "test-model", True), ("query", "test-model", True),
                                                ("edit", None, False), ("edit", "test-model", False)])
async def test_an_agent_turns_claims_with_no_evidence_at_all_are_flagged_but_a_hand_or_mcp_change_is_not(
        sample_vault, op, model, flagged):
    """The agent's prompts ask for evidence on every factual sentence: an ingest or an answer that gives none at all
    is flagged; a change made by hand, over MCP (no model) or as a revert has none to give."""
    vault = Vault.open(sample_vault)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    builder.edit(DODO, [{"old": "Appears in the third chapter.",
                         "new": "Appears in the third chapter, presenting the thimble with great solemnity."}], "x")
    changeset = builder.build(op, "no evidence given", model=model)
    app = ReviewApp(changeset, vault=vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        diff = app.screen.query_one(DiffView)
        rows = diff.shown_rows("evidence")
        assert (["⚠ adds claims with no evidence"] if flagged else []) == [t for _h, t in rows]
