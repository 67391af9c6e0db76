"""What a key of the batch review redraws (issue 23: every key answers within a frame at 2,000 hunks).

The figures are bench/batch_review.py's; these tests pin the behaviour behind them: turning
between the summary and the pages draws neither view again (both stay laid out, the
summary on a layer above the pages), and a decision redraws the counts in place (the
counts' label keeps its size, so no layout pass follows the paint).
"""

from __future__ import annotations

from pathlib import Path

from textual.scrollbar import ScrollBar
from textual.widgets import Label, Static

from tests.ui.test_batch_review import BatchApp, snapshot_batch
from tests.ui.workspace_helpers import screen_text
from wikitui.core.batch.queue import Batch, Entry
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.overlay import Overlay
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.create import init_vault
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.ui.screens.batch_review import BatchReviewScreen
from wikitui.ui.widgets.changeset_files import ChangesetFileList
from wikitui.ui.widgets.diff_view import DiffView


class Drawn:
    """Counts the rows (and scrollbars) drawn anew while it is on; a row painted from a cache is not counted."""

    def __init__(self, monkeypatch) -> None:
        self.on = False
        self.rows: list[str] = []
        for cls in (DiffView, ChangesetFileList, ScrollBar, Static):
            name = "render" if cls in (ScrollBar, Static) else "render_line"
            original = getattr(cls, name)

            def spy(widget, *args, _original=original, _cls=cls):
                if self.on and isinstance(widget, _cls):
                    self.rows.append(_cls.__name__)
                return _original(widget, *args)

            monkeypatch.setattr(cls, name, spy)


async def test_tab_turns_between_the_summary_and_the_pages_without_drawing_either_again(tmp_path, monkeypatch):
    drawn = Drawn(monkeypatch)
    app = BatchApp(snapshot_batch(tmp_path / "v"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "Sources, in batch order" in screen_text(app)
        await pilot.press("tab")  # the pages, drawn the first time
        await pilot.pause()
        assert "from 1. raw/papers/paper-1.md" in screen_text(app)
        await pilot.press("tab")
        await pilot.pause()
        drawn.on = True
        for _ in range(2):  # the pages, the summary: each as it was drawn last
            await pilot.press("tab")
            await pilot.pause()
            pages = screen_text(app)
            await pilot.press("tab")
            await pilot.pause()
            summary = screen_text(app)
            assert "from 1. raw/papers/paper-1.md" in pages and "Sources, in batch order" not in pages
            assert "Sources, in batch order" in summary and "from 1. raw/papers/paper-1.md" not in summary
        assert drawn.rows == []
        drawn.on = False
        # Still the same review: a key on the summary turns to the pages, the next one acts there.
        screen = app.screen
        assert isinstance(screen, BatchReviewScreen) and screen.summary_shown
        await pilot.press("a")
        assert not screen.summary_shown and screen.review.decisions == {}
        await pilot.press("a")
        assert list(screen.review.decisions.values()) == ["accepted"]


def many_hunks_batch(root: Path, hunks: int) -> Path:
    """One source editing ``hunks`` lines of one page, each far enough from the next to be its own hunk."""
    init_vault(root)
    (root / "wiki/long.md").write_text("".join(f"Line {i} of the page.\n" for i in range(10 * hunks)),
                                       encoding="utf-8")
    vault = Vault.open(root)
    overlay = Overlay(LinkGraph.load(vault))
    b = ChangesetBuilder(vault, overlay.graph, overlay)
    b.changeset_id = "cs-20260101-000001"
    b.edit("long.md", [{"old": f"Line {10 * k} of", "new": f"Line {10 * k} (edited) of"} for k in range(hunks)],
           "one source")
    cs = b.build("ingest", "Paper 1")
    assert cs is not None and len(cs.files[0].hunks) == hunks
    PendingStore(vault).save(cs)
    batch = Batch("batch-20260101-000000-abcd", "2026-01-01T00:00:00", "raw/papers/", None,
                  [Entry("raw/papers/paper-1.md", "proposed", changeset=cs.id)],
                  root / ".wikitui/batches/batch-20260101-000000-abcd.json")
    batch.save()
    return root


async def test_a_decision_redraws_the_counts_in_place_as_their_figures_grow(tmp_path):
    app = BatchApp(many_hunks_batch(tmp_path / "v", 20))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BatchReviewScreen)
        counts = screen.query_one("#batch-counts", Label)
        region = counts.region
        first = screen_text(app).splitlines()[0]
        assert first.rstrip().endswith("20 hunks · 0 accepted · 0 rejected · 20 undecided")
        await pilot.press("tab", *"a" * 10)  # ten accepted: the counts a character longer
        await pilot.pause()
        top = screen_text(app).splitlines()[0]
        assert top.rstrip().endswith("20 hunks · 10 accepted · 0 rejected · 10 undecided")
        # The label kept its place and size: the new figures were drawn in it, and no layout pass followed.
        assert counts.region == region
        assert len(top.rstrip()) == len(first.rstrip())  # right-aligned, ending where they did
        assert "Batch review  batch-20260101-000000-abcd" in top


async def _on_the_pages_warmed(pilot, monkeypatch) -> BatchReviewScreen:
    """The pages shown and what the next key shows drawn ahead; then no more drawing ahead."""
    app = pilot.app
    await pilot.pause()
    await pilot.press("tab")
    await pilot.pause()
    await app.workers.wait_for_complete()
    screen = app.screen
    assert isinstance(screen, BatchReviewScreen) and not screen.summary_shown
    monkeypatch.setattr(BatchReviewScreen, "_warm_ahead", lambda self: None)
    return screen


async def test_r_paints_the_re_derived_page_it_prepared_while_the_person_read(tmp_path, monkeypatch):
    app = BatchApp(snapshot_batch(tmp_path / "v"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _on_the_pages_warmed(pilot, monkeypatch)
        diff = screen.query_one(DiffView)
        first = screen.review.hunks(0)[0]
        assert first.source == 0 and screen.cursor == 0  # s1's notes hunk: s2's and s3's were built on it
        drawn: list[object] = []
        real = diff._render_row
        monkeypatch.setattr(diff, "_render_row", lambda row, *args: drawn.append(row) or real(row, *args))
        await pilot.press("r")
        await pilot.pause()
        assert screen.review.decisions[first.key] == "rejected"
        later = [h for h in screen.review.hunks(0) if h.source > 0]
        assert later and all(h.remerged for h in later)
        text = screen_text(app)
        assert "↻ re-merged · 2. paper-2.md" in text and "↻ re-merged · 3. paper-3.md" in text
        assert drawn == []  # the re-merged hunks' rows were drawn ahead, the view in its place


async def test_o_paints_the_page_list_it_drew_ahead(tmp_path, monkeypatch):
    import wikitui.ui.widgets.changeset_files as changeset_files

    app = BatchApp(snapshot_batch(tmp_path / "v"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _on_the_pages_warmed(pilot, monkeypatch)
        prompts: list[object] = []
        real = changeset_files._file_prompt
        monkeypatch.setattr(changeset_files, "_file_prompt",
                            lambda change, *args: prompts.append(change) or real(change, *args))
        await pilot.press("o")
        await pilot.pause()
        listing = screen.query_one(ChangesetFileList)
        assert "2/3 decided" in listing.entry_text(0)  # the notes: s2's doubt is left
        assert "2/2 decided" in listing.entry_text(1)  # the gizmo page: both ok
        assert "4 accepted" in screen_text(app) and screen.review.summary().accepted == 4
        assert prompts == []  # each entry with its new count was drawn ahead


async def test_the_summary_out_of_sight_keeps_no_keys(tmp_path):
    app = BatchApp(snapshot_batch(tmp_path / "v"))
    async with app.run_test(size=(80, 12)) as pilot:  # a summary taller than the screen: it scrolls
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BatchReviewScreen)
        summary = screen.query_one("#batch-summary")
        assert summary.max_scroll_y > 0
        await pilot.click("#batch-summary")  # a click gives the summary the arrow keys (to scroll it)
        assert screen.focused is summary
        await pilot.press("tab")
        await pilot.press("down")  # on the pages: the next hunk, not the hidden summary scrolled
        assert screen.cursor == 1 and summary.scroll_y == 0 and screen.focused is None
