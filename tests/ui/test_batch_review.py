"""The batch review, driven like a person would (issue 23 point 4): keys in, then the screen and the disk.

The batch is made for real: ``wikitui ingest raw/papers/ --yes`` against the fake model
server, three sources. Source a edits the Dodo's page, b proposes a summary page of its
own, c edits the Dodo's page further down, over a's text (a stacked changeset).
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from tests.core.batch_util import summary_page
from tests.fakeserver import Dynamic, text, tool_call
from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace
from wikitui.cli import main
from wikitui.core.batch.queue import Batch, Entry
from wikitui.core.batch.review import BatchReview
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.overlay import Overlay
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.create import init_vault
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.ui.screens.batch_review import BatchReviewScreen
from wikitui.ui.themes import bundled_theme_dir, load_theme_file
from wikitui.ui.widgets.diff_view import DiffView
from wikitui.ui.widgets.chat_pane import ChatPane

DODO = "wiki/characters/dodo.md"
A_OLD, A_NEW = "# Dodo", "# Dodo (a)"
C_NEW_SUFFIX = " (c)"


def _last_line(vault: Path) -> str:
    return (vault / DODO).read_text().rstrip("\n").splitlines()[-1]


def three_sources(vault: Path, *, c_rewrites_a: bool = False):
    """The fake model: a and c edit the Dodo's page (c below a, over a's text), b writes a page of its own.

    ``c_rewrites_a``: c rewrites a's very line instead (a rejected, c cannot merge).
    """
    last = _last_line(vault)
    c_edit = {"old": A_NEW, "new": "# Dodo (a, c)"} if c_rewrites_a else {"old": last, "new": last + C_NEW_SUFFIX}

    def answer(body: dict):
        messages = body.get("messages", [])
        first = next(m for m in messages if m.get("role") == "user" and "Ingest raw/" in str(m.get("content")))
        source = str(first["content"]).split("Ingest ", 1)[1].split()[0].rstrip(".")
        at = next((i for i, m in enumerate(messages) if m.get("role") == "user"
                   and "plan is approved" in str(m.get("content"))), None)
        if at is None:
            return text(f"Plan: from {source}.") if messages[-1].get("role") == "tool" else tool_call("read", path=source)
        if any(m.get("role") == "tool" for m in messages[at:]):
            return text("Done.")
        if source.endswith("a.md"):
            return tool_call("propose_edit", path=DODO, edits=[{"old": A_OLD, "new": A_NEW}], reason="a's heading")
        if source.endswith("c.md"):
            return tool_call("propose_edit", path=DODO, edits=[c_edit], reason="c's line")
        path, content = summary_page(source)
        return tool_call("propose_page", path=path, content=content, reason="summary")

    return [Dynamic(answer) for _ in range(30)]


def make_batch(sample_vault: Path, fake_llm, **options) -> Path:
    """``wikitui ingest raw/papers/ --yes`` over three sources through the fake model server."""
    (sample_vault / "raw/papers").mkdir(parents=True)
    for name in "abc":
        (sample_vault / f"raw/papers/{name}.md").write_text(f"# Paper {name}\n\nAbout the Dodo.\n")
    fake_llm.script(*three_sources(sample_vault, **options))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["ingest", "raw/papers/", "--vault", str(sample_vault), "--yes"])
    assert code == 0, err.getvalue()
    assert len(PendingStore(Vault.open(sample_vault)).list()) == 3
    return sample_vault


@pytest.fixture
def batch_vault(sample_vault, fake_llm):
    return make_batch(sample_vault, fake_llm)


@pytest.fixture
def conflict_vault(sample_vault, fake_llm):
    return make_batch(sample_vault, fake_llm, c_rewrites_a=True)


def diff_text(app) -> str:
    """What the diff pane shows, row by row (the screen's columns right of the page list)."""
    diff = app.screen.query_one(DiffView)
    x = diff.region.x
    return "\n".join(line[x:] for line in screen_text(app).splitlines()[diff.region.y:diff.region.bottom])


async def open_batch_review(pilot) -> BatchReviewScreen:
    pane = pilot.app.query_one(ChatPane)
    pane.chat_input.focus()
    pane.chat_input.set_text("/review batch")
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, BatchReviewScreen), "the batch review", timeout=10)
    await pilot.pause()
    return pilot.app.screen  # type: ignore[return-value]


async def test_a_rejection_in_source_1_that_source_3_built_on_is_re_merged_then_applied_per_source(batch_vault):
    app = workspace(batch_vault, watch=False, index=False)
    original_last = _last_line(batch_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        screen = await open_batch_review(pilot)
        # The summary first.
        text_now = screen_text(app)
        assert "3 sources · 1 new page · 1 edited page" in text_now
        assert "No second reviewer read this batch" in text_now
        assert "1. raw/papers/a.md" in text_now and "3. raw/papers/c.md" in text_now
        # Then the pages: the Dodo's page first, its hunks from a, then c.
        await pilot.press("tab")
        assert not screen.summary_shown
        shown = diff_text(app)
        assert "from 1. raw/papers/a.md, 3. raw/papers/c.md" in shown  # the page's top names its sources
        assert "· 1. a.md" in shown and "· 3. c.md" in shown  # and each hunk its own
        dodo = [h for h in screen.review.hunks(0)]
        assert [h.source for h in dodo][-1] == 2 and screen.review.pages[0].path == DODO
        # Reject a's heading hunk: c's hunk is re-merged over the page without it.
        heading = next(i for i, h in enumerate(dodo) if any(A_NEW in ln for ln in h.hunk.lines))
        await pilot.press(*["j"] * heading, "r")
        c_hunks = [h for h in screen.review.hunks(0) if h.source == 2]
        assert c_hunks and all(h.remerged and not h.conflict for h in c_hunks)
        assert "↻ re-merged · 3. c.md" in diff_text(app)
        assert screen.page == 0  # on to the next undecided hunk of the page
        await pilot.press("A", "n", "A")  # the rest of the Dodo's page, then b's page
        assert "4 hunks · 3 accepted · 1 rejected · 0 undecided" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, BatchReviewScreen), "the apply", timeout=20)
        await wait_for(pilot, lambda: any("each its own changeset" in n for n in notices(app)), "the notice")
        dodo_text = (batch_vault / DODO).read_text()
        assert original_last + C_NEW_SUFFIX in dodo_text and A_NEW not in dodo_text
        assert (batch_vault / summary_page("raw/papers/b.md")[0]).exists()
        log = (batch_vault / "wiki/log.md").read_text()
        assert [log.count(f"ingest | Paper {n}\n") for n in "abc"] == [1, 1, 1]  # one entry per source
        assert log.index("ingest | Paper a") < log.index("ingest | Paper b") < log.index("ingest | Paper c")
        assert PendingStore(Vault.open(batch_vault)).list() == []
        # /undo takes back the last source only: c's line goes, b's page and a's updated line stay.
        pane = app.query_one(ChatPane)
        pane.chat_input.focus()
        pane.chat_input.set_text("/undo")
        await pilot.press("enter")
        await wait_for(pilot, lambda: C_NEW_SUFFIX not in (batch_vault / DODO).read_text(), "the undo", timeout=20)
        assert (batch_vault / summary_page("raw/papers/b.md")[0]).exists()
        assert "updated: 2026-11-20" not in (batch_vault / DODO).read_text()  # a's hunk is still applied


async def test_on_the_summary_a_hunk_key_only_turns_to_the_pages_and_the_footer_stays(batch_vault):
    from textual.widgets import Footer

    app = workspace(batch_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        screen = await open_batch_review(pilot)
        footer_keys = list(screen.query_one(Footer).children)
        assert "accept" in screen_text(app)  # the hunk keys are in the footer on the summary too
        await pilot.press("a")  # a person who has not seen a hunk yet: nothing is decided
        assert not screen.summary_shown and screen.review.decisions == {}
        assert screen.review.summary().undecided == 4
        await pilot.press("tab")
        await pilot.pause()
        assert screen.summary_shown
        # The same keys in both views: turning the view does not rebuild the footer (~150 ms at 120x40).
        assert list(screen.query_one(Footer).children) == footer_keys
        await pilot.press("r")
        assert not screen.summary_shown and screen.review.decisions == {}
        await pilot.press("r")  # on the pages the key acts
        assert list(screen.review.decisions.values()) == ["rejected"]


async def test_no_full_garbage_collection_pauses_a_key_while_the_review_is_open(batch_vault):
    import gc

    app = workspace(batch_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        before = gc.get_threshold()
        await open_batch_review(pilot)
        # A full collection walks every hunk, line and drawn row: at 2,000 hunks a 60-250 ms pause.
        assert gc.get_threshold()[:2] == before[:2] and gc.get_threshold()[2] >= 1_000_000
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, BatchReviewScreen), "leaving")
        await pilot.pause()
        assert gc.get_threshold() == before  # the one owed runs now


async def test_a_real_conflict_is_shown_refused_and_left_pending(conflict_vault):
    vault = conflict_vault
    before = (vault / DODO).read_text()
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        screen = await open_batch_review(pilot)
        await pilot.press("tab")
        heading = next(i for i, h in enumerate(screen.review.hunks(0)) if any(A_NEW in ln for ln in h.hunk.lines
                                                                               if ln.startswith("+")) and h.source == 0)
        await pilot.press(*["j"] * heading, "r")
        [c_hunk] = [h for h in screen.review.hunks(0) if h.source == 2]
        assert c_hunk.conflict
        assert "1 conflict" in screen_text(app)  # the counts say so
        await pilot.press(*["j"] * (screen.review.hunks(0).index(c_hunk) - screen.cursor))
        assert "✗ conflict · 3. c.md" in diff_text(app)  # its header says so
        await pilot.press(*["k"] * len(screen.review.hunks(0)))
        diff = app.screen.query_one(DiffView)
        diff.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        top = diff_text(app)  # the page's top: which source conflicts, why, and the regions
        assert "✗ 3. raw/papers/c.md: it does not merge" in top and "<<<<<<< kept" in top, top
        await pilot.press(*["j"] * screen.review.hunks(0).index(c_hunk))
        await pilot.press("a")  # refused
        await wait_for(pilot, lambda: any("cannot be applied" in n for n in notices(app)), "the refusal")
        assert c_hunk.key not in screen.review.decisions
        await pilot.press("A")  # the page's others (a's updated line); the conflict stays undecided
        assert c_hunk.key not in screen.review.decisions
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, BatchReviewScreen), "the apply", timeout=20)
        await wait_for(pilot, lambda: any("kept a conflict pending" in n for n in notices(app)), "the notice")
    after = (vault / DODO).read_text()
    assert "# Dodo (a" not in after and after != before  # a's updated line only; c's change never written
    [left] = [cs for cs in PendingStore(Vault.open(vault)).list() if any(fc.path == DODO for fc in cs.files)]
    assert "# Dodo (a, c)" in left.files[0].new_text  # c waits, as it was proposed


async def test_o_accepts_the_reviewers_ok_hunks_and_s_a_whole_source(batch_vault):
    store = PendingStore(Vault.open(batch_vault))
    for cs in store.list():
        for fc in cs.files:
            for h in fc.hunks:
                verdict = "doubt" if fc.path == DODO and any(C_NEW_SUFFIX in ln for ln in h.lines) else "ok"
                h.review = {"verdict": verdict, "note": "checked", "model": "reviewer"}
        store.save(cs)
    app = workspace(batch_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p", *"review batch")  # the palette opens it too
        await wait_for(pilot, lambda: "Review batch" in screen_text(app), "the palette command")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, BatchReviewScreen), "the batch review", timeout=10)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BatchReviewScreen)
        assert "Second reviewer: 3 ok · 1 doubt · 0 wrong" in screen_text(app)
        await pilot.press("o")
        assert screen.review.summary().accepted == 3 and screen.review.summary().undecided == 1
        assert "4 hunks · 3 accepted · 0 rejected · 1 undecided" in screen_text(app)
        assert "1 to look at" in screen_text(app)  # c's doubt, named under its source
        await pilot.press("tab")
        doubt = next(h for h in screen.review.hunks(0) if h.verdict == "doubt")
        screen.cursor = screen.review.hunks(0).index(doubt)
        await pilot.press("s")  # c's source: its doubt is not "unquestioned"
        assert doubt.key not in screen.review.decisions
        await pilot.press("a")
        assert screen.review.summary().undecided == 0
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, BatchReviewScreen), "leaving")
    assert len(PendingStore(Vault.open(batch_vault)).list()) == 3  # esc: everything still pending


# ---------------------------------------------------------------- snapshots (fixed ids, no dates)
NOTES = "".join(f"Line {i} of the notes.\n" for i in range(1, 31))
GIZMO = "---\ntitle: Gizmo\ntype: concept\nsummary: A small device\n---\n\n# Gizmo\n\nA gizmo is a small device.\n"


def snapshot_batch(root: Path) -> Path:
    """Three stacked sources with fixed ids, the second reviewer's verdicts on them."""
    init_vault(root)
    (root / "wiki/notes.md").write_text(NOTES, encoding="utf-8")
    vault = Vault.open(root)
    overlay = Overlay(LinkGraph.load(vault))
    store = PendingStore(vault)
    calls = [
        [("edit", "notes.md", [{"old": "Line 5 of", "new": "Line five (s1) of"}]), ("new_page", "concepts/gizmo.md", GIZMO)],
        [("edit", "notes.md", [{"old": "Line 12 of", "new": "Line twelve (s2) of"}])],
        [("edit", "notes.md", [{"old": "Line 20 of", "new": "Line twenty (s3) of"}]),
         ("edit", "concepts/gizmo.md", [{"old": "a small device.", "new": "a small device, cheap."}])],
    ]
    entries = []
    for n, source_calls in enumerate(calls, 1):
        b = ChangesetBuilder(vault, overlay.graph, overlay)
        b.changeset_id = f"cs-20260101-00000{n}"
        for name, *args in source_calls:
            getattr(b, name)(*args)
        cs = b.build("ingest", f"Paper {n}")
        assert cs is not None
        for fc in cs.files:
            for h in fc.hunks:
                verdict = "doubt" if n == 2 else "ok"
                h.review = {"verdict": verdict, "note": "the source says so" if verdict == "ok" else
                            "the source gives no number", "model": "reviewer"}
        overlay.add(cs)
        store.save(cs)
        entries.append(Entry(f"raw/papers/paper-{n}.md", "proposed", changeset=cs.id))
    batch = Batch("batch-20260101-000000-abcd", "2026-01-01T00:00:00", "raw/papers/", None, entries,
                  root / ".wikitui/batches/batch-20260101-000000-abcd.json")
    batch.save()
    return root


class BatchApp(App):
    """A tiny app that opens the batch review."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def compose(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        theme = load_theme_file(bundled_theme_dir() / "wikitui-dark.toml")
        self.register_theme(theme)
        self.theme = theme.name
        self.push_screen(BatchReviewScreen(BatchReview.load(Vault.open(self.root))))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_snapshot_batch_summary(tmp_path, snap_compare, size):
    assert snap_compare(BatchApp(snapshot_batch(tmp_path / "v")), terminal_size=size)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_snapshot_batch_by_page_after_a_rejection(tmp_path, snap_compare, size):
    async def reject_the_first(pilot):
        await pilot.press("tab", "r")  # s1's notes hunk: s2's and s3's, built on it, are re-merged
        await pilot.pause()

    assert snap_compare(BatchApp(snapshot_batch(tmp_path / "v")), terminal_size=size, run_before=reject_the_first)
