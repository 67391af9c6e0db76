"""The batch review (issue 23 point 4, DESIGN §13): by page across sources, re-merges, per-source apply, undo.

A batch of three stacked sources, made as the batch runner makes them: each source's
changeset recorded over an overlay of the earlier ones, saved pending, named in a queue.
Source 1 edits the notes and creates a page, source 2 edits an unrelated page, source 3
edits the notes beside source 1's line and edits source 1's page.
"""

from __future__ import annotations

import shutil

import pytest

from tests.core.changes_util import git, git_init, make_vault, page, read
from wikitui.core.batch.queue import Entry, new_batch
from wikitui.core.batch.review import ACCEPTED, REJECTED, BatchReview, NoBatch
from wikitui.core.batch.review_apply import apply_batch
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.overlay import Overlay
from wikitui.core.changes.undo import list_records
from wikitui.core.workspace import Workspace

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

NOTES = "".join(f"Line {i} of the notes.\n" for i in range(1, 31))
GIZMO = page("Gizmo", "# Gizmo\n\nA gizmo is a small device.\n")


@pytest.fixture
def ws(tmp_path):
    root = make_vault(tmp_path / "v", {
        "notes.md": NOTES,
        "concepts/Attention.md": page("Attention", "# Attention\n\nWeights.\n"),
    })
    git_init(root)
    return Workspace.open(root)


def stacked(ws, sources: list[list[tuple]]) -> None:
    """One pending changeset per source, each over the overlay of the earlier ones, and their queue."""
    overlay = Overlay(ws.require_graph())
    entries = []
    for n, calls in enumerate(sources, 1):
        b = ChangesetBuilder(ws.vault, overlay.graph, overlay)
        for name, *args in calls:
            getattr(b, name)(*args)
        cs = b.build("ingest", f"source {n}")
        assert cs is not None
        overlay.add(cs)
        ws.pending.save(cs)
        entries.append(Entry(f"raw/s{n}.md", "proposed", changeset=cs.id))
    new_batch(ws.vault, "raw/", None, entries)


S1 = [("edit", "notes.md", [{"old": "Line 5 of", "new": "Line five (s1) of"}]),
      ("new_page", "concepts/Gizmo.md", GIZMO)]
S2 = [("edit", "concepts/Attention.md", [{"old": "Weights.", "new": "Weights (s2)."}])]
#: s3's notes edit touches line 20, far from s1's line 5: it merges whatever s1 keeps.
S3 = [("edit", "notes.md", [{"old": "Line 20 of", "new": "Line twenty (s3) of"}]),
      ("edit", "concepts/Gizmo.md", [{"old": "a small device.", "new": "a small device, cheap (s3)."}])]


def keys(review: BatchReview, page: str, source: int) -> list[str]:
    p = next(i for i, pg in enumerate(review.pages) if pg.path == page)
    return [h.key for h in review.hunks(p) if h.source == source]


def test_the_summary_then_hunks_by_page_across_sources(ws):
    stacked(ws, [S1, S2, S3])
    review = BatchReview.load(ws.vault)
    s = review.summary()
    assert (s.sources, s.new_pages, s.edited_pages, s.hunks) == (3, 1, 2, 5)
    assert s.verdicts == {} and s.undecided == 5 and s.conflicts == 0
    assert [p.path for p in review.pages] == ["wiki/notes.md", "wiki/concepts/Gizmo.md", "wiki/concepts/Attention.md"]
    notes = review.hunks(0)
    assert [(review.sources[h.source].source, h.page) for h in notes] == [
        ("raw/s1.md", "wiki/notes.md"), ("raw/s3.md", "wiki/notes.md")]


def test_a_rejection_in_source_1_that_source_3_built_on_re_merges_source_3(ws):
    """The issue's test: s3's notes edit was recorded over s1's; s1's hunk rejected, s3's is re-merged."""
    stacked(ws, [S1, S2, S3])
    review = BatchReview.load(ws.vault)
    [s1_notes] = keys(review, "wiki/notes.md", 0)
    [s3_notes] = keys(review, "wiki/notes.md", 2)
    assert "Line five (s1) of" in review.derived(2, 0).change.base_text  # built on s1's text
    review.decide(s3_notes, ACCEPTED)
    review.decide(s1_notes, REJECTED)
    s3 = review.derived(2, 0)
    assert s3.remerged and s3.conflict is None
    assert s3.change.base_text == NOTES and "Line five (s1)" not in s3.change.new_text
    [h3] = [h for h in review.hunks(0) if h.source == 2]
    assert h3.remerged and review.decisions[h3.key] == ACCEPTED  # the decision followed the re-merged hunk
    review.decide_source(1, ACCEPTED)
    review.decide_page(1, ACCEPTED)  # the gizmo page: s1's creation and s3's edit of it
    assert review.summary().undecided == 0 and review.summary().remerged == 1
    done = apply_batch(review, ws.apply)
    assert done.failed is None and done.conflicts == []
    notes = read(ws.root, "wiki/notes.md")
    assert "Line twenty (s3) of" in notes and "Line five (s1)" not in notes and "Line 5 of" in notes
    assert "a small device, cheap (s3)." in read(ws.root, "wiki/concepts/Gizmo.md")


def test_a_real_conflict_is_shown_and_never_applied(ws):
    """s3 rewrites s1's very line: s1's hunk rejected, s3's does not merge; its hunks cannot be accepted."""
    s3 = [("edit", "notes.md", [{"old": "Line five (s1) of", "new": "Line FIVE (s3) of"}])]
    stacked(ws, [S1[:1], s3])
    review = BatchReview.load(ws.vault)
    [s1_notes] = keys(review, "wiki/notes.md", 0)
    [s3_notes] = keys(review, "wiki/notes.md", 1)
    assert review.decide(s3_notes, ACCEPTED)
    review.decide(s1_notes, REJECTED)
    derived = review.derived(1, 0)
    assert derived.conflict and "does not merge" in derived.conflict
    assert any("Line FIVE (s3)" in r and "Line 5 of" in r for r in derived.regions)
    assert review.pages[0].regions[1] == derived.regions
    [h] = [h for h in review.hunks(0) if h.source == 1]
    assert h.conflict and h.key not in review.decisions  # its acceptance was withdrawn
    assert not review.decide(h.key, ACCEPTED)  # and is refused
    assert review.accept_ok() == [] and review.decide_source(1, ACCEPTED) == []
    assert review.summary().conflicts == 1
    done = apply_batch(review, ws.apply)
    assert done.conflicts == ["raw/s2.md"] and done.failed is None
    assert read(ws.root, "wiki/notes.md") == NOTES  # nothing of either written
    left = ws.pending.load(review.sources[1].changeset.id)  # s3's change waits, as it was
    assert "Line FIVE (s3) of" in left.files[0].new_text
    # s1 had nothing left: the batch's review now holds s3 alone, its conflict still to resolve.
    review2 = BatchReview.load(ws.vault)
    assert [s.source for s in review2.sources] == ["raw/s2.md"]


def test_un_rejecting_brings_the_original_change_back(ws):
    stacked(ws, [S1, S3])
    review = BatchReview.load(ws.vault)
    [s1_notes] = keys(review, "wiki/notes.md", 0)
    original = review.derived(1, 0).change
    review.decide(s1_notes, REJECTED)
    assert review.derived(1, 0).remerged
    review.decide(s1_notes, None)
    assert review.derived(1, 0).change is original and not review.derived(1, 0).remerged


def test_a_rejected_new_page_leaves_the_later_edit_of_it_in_conflict(ws):
    stacked(ws, [S1, S3])
    review = BatchReview.load(ws.vault)
    [create] = keys(review, "wiki/concepts/Gizmo.md", 0)
    review.decide(create, REJECTED)
    [edit] = keys(review, "wiki/concepts/Gizmo.md", 1)
    assert "will not exist" in (review.find(edit).conflict or "")


def test_apply_writes_each_source_as_its_own_changeset_in_order_and_undo_takes_back_the_last(ws):
    stacked(ws, [S1, S2, S3])
    review = BatchReview.load(ws.vault)
    ids = [s.changeset.id for s in review.sources]
    for p in range(len(review.pages)):
        review.decide_page(p, ACCEPTED)
    seen: list[str] = []
    done = apply_batch(review, ws.apply, on_source=lambda n, total, source: seen.append(source))
    assert seen == ["raw/s1.md", "raw/s2.md", "raw/s3.md"] and done.failed is None
    assert [d.changeset for d in done.done] == ids and all(d.result and d.result.commit for d in done.done)
    # One commit per source, in batch order; one log.md entry per source.
    subjects = git(ws.root, "log", "--format=%s", "-4").splitlines()
    assert subjects == ["wikitui: ingest | source 3", "wikitui: ingest | source 2", "wikitui: ingest | source 1",
                        "initial"]
    log = read(ws.root, "wiki/log.md")
    assert [log.count(f"ingest | source {n}") for n in (1, 2, 3)] == [1, 1, 1]
    assert log.index("source 1") < log.index("source 2") < log.index("source 3")
    assert [r.get("changeset") for _rel, r in list_records(ws.vault)][-3:] == ids
    assert ws.pending.list() == []
    # /undo takes back source 3 only.
    ws.undo()
    notes, gizmo = read(ws.root, "wiki/notes.md"), read(ws.root, "wiki/concepts/Gizmo.md")
    assert "Line twenty (s3)" not in notes and "Line five (s1)" in notes
    assert "cheap (s3)" not in gizmo and "A gizmo is a small device." in gizmo
    assert "Weights (s2)." in read(ws.root, "wiki/concepts/Attention.md")


def test_undecided_hunks_stay_pending_and_a_source_with_nothing_decided_is_left_alone(ws):
    stacked(ws, [S1, S2])
    review = BatchReview.load(ws.vault)
    [s1_notes] = keys(review, "wiki/notes.md", 0)
    review.decide(s1_notes, ACCEPTED)
    done = apply_batch(review, ws.apply)
    assert done.done[1].result is None
    left = {cs.id: cs for cs in ws.pending.list()}
    assert set(left) == {s.changeset.id for s in review.sources}
    assert [fc.path for fc in left[review.sources[0].changeset.id].files] == ["wiki/concepts/Gizmo.md"]


def test_accept_ok_takes_the_reviewers_ok_hunks_and_wrong_ones_start_rejected(ws):
    stacked(ws, [S1, S2])
    for cs in ws.pending.list():
        for fc in cs.files:
            for h in fc.hunks:
                h.review = {"verdict": "wrong" if "Attention" in fc.path else "ok", "note": "n", "model": "m"}
        ws.pending.save(cs)
    review = BatchReview.load(ws.vault)
    s = review.summary()
    assert s.verdicts == {"ok": 2, "doubt": 0, "wrong": 1} and s.rejected == 1
    assert len(review.accept_ok()) == 2 and review.summary().undecided == 0


def test_a_failure_stops_at_that_source_and_keeps_the_rest_pending(ws):
    stacked(ws, [S2, S1])
    review = BatchReview.load(ws.vault)
    for p in range(len(review.pages)):
        review.decide_page(p, ACCEPTED)
    (ws.root / "wiki/notes.md").write_text(NOTES.replace("Line 5 of", "Line 5 (mine) of"), encoding="utf-8")
    done = apply_batch(review, ws.apply)
    assert done.failed is not None and done.failed[0] == "raw/s2.md"
    assert "Weights (s2)." in read(ws.root, "wiki/concepts/Attention.md")
    assert [cs.id for cs in ws.pending.list()] == [review.sources[1].changeset.id]


def test_no_batch_to_review(ws):
    with pytest.raises(NoBatch):
        BatchReview.load(ws.vault)


# ---------------------------------------------------------------- headless: `ingest DIR --apply`
def test_headless_apply_writes_the_reviewers_ok_hunks_source_by_source_and_leaves_the_rest(fake_llm, sample_vault):
    """With review_model, `ingest raw/papers/ --apply` applies the ok hunks; b's doubt waits for the review."""
    import io
    import json
    from contextlib import redirect_stderr, redirect_stdout

    from tests.core.batch_util import answer, summary_page
    from tests.core.test_review_model import REVIEWER, hunks_in
    from tests.fakeserver import Dynamic, text
    from wikitui.cli import main

    (sample_vault / "raw/papers").mkdir(parents=True)
    for name in "abc":
        (sample_vault / f"raw/papers/{name}.md").write_text(f"# Paper {name}\n\nAbout the Dodo.\n")
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui/config.toml").write_text(f'review_model = "{REVIEWER}"\n')

    def model(body: dict):
        if body["model"] == REVIEWER.split("/", 1)[1]:
            return text(json.dumps([{"hunk": hid, "verdict": "doubt" if "Batch b" in hunk else "ok", "note": "n"}
                                    for hid, hunk in hunks_in(body).items()]))
        return answer(body)

    fake_llm.script(*[Dynamic(model) for _ in range(40)])
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["ingest", "raw/papers/", "--vault", str(sample_vault), "--yes", "--apply", "--json"])
    assert code == 0, err.getvalue()
    page = {n: sample_vault / summary_page(f"raw/papers/{n}.md")[0] for n in "abc"}
    assert page["a"].exists() and page["c"].exists() and not page["b"].exists()
    doc = json.loads(out.getvalue())
    assert [s["source"] for s in doc["applied"]["sources"]] == ["raw/papers/a.md", "raw/papers/c.md"]
    assert doc["applied"]["left"] == 1 and doc["applied"]["stopped"] is None
    assert "1 hunk(s) the reviewer did not find ok stay pending" in err.getvalue()
    log = (sample_vault / "wiki/log.md").read_text()
    assert log.count("ingest | Paper a\n") == 1 and log.count("ingest | Paper c\n") == 1
    assert "ingest | Paper b\n" not in log
    [left] = Workspace.open(sample_vault).pending.list()
    assert [fc.path for fc in left.files] == [summary_page("raw/papers/b.md")[0]]


def _state(review: BatchReview, p: int) -> list[tuple]:
    """Page ``p``'s hunks as they stand: key, source, lines, re-merged, conflict."""
    return [(h.key, h.source, list(h.hunk.lines), h.remerged, h.conflict) for h in review.hunks(p)]


def test_a_rejection_prepared_ahead_is_the_one_decided_and_decides_nothing_before(ws):
    """The batch review derives the cursor hunk's rejection while the person reads (``r`` then only installs it)."""
    stacked(ws, [S1, S2, S3])
    review = BatchReview.load(ws.vault)
    fresh = BatchReview.load(ws.vault)  # the same batch, rejected the plain way
    [s1_notes] = keys(review, "wiki/notes.md", 0)
    [s3_notes] = keys(review, "wiki/notes.md", 2)
    for r in (review, fresh):
        r.decide(s3_notes, ACCEPTED)
    before = _state(review, 0)
    preview = review.preview_reject(s1_notes)
    assert preview is not None
    # Nothing is decided yet: the review stands as it did.
    assert _state(review, 0) == before and s1_notes not in review.decisions
    assert review.decisions == {s3_notes: ACCEPTED}
    # The preview is the page once s1's hunk is rejected: s3's hunk re-merged, its acceptance carried over.
    [h3] = [h for h in preview.hunks if h.source == 2]
    assert h3.remerged and preview.decisions[h3.key] == ACCEPTED and preview.decisions[s1_notes] == REJECTED
    assert review.preview_reject(s1_notes) is preview  # asked again: the same
    assert review.decide(s1_notes, REJECTED)
    assert review.hunks(0) is preview.hunks  # installed as it was prepared: the same hunk objects
    assert fresh.decide(s1_notes, REJECTED)
    assert _state(review, 0) == _state(fresh, 0) and review.decisions == fresh.decisions
    assert review.derived(2, 0).change.new_text == fresh.derived(2, 0).change.new_text
    assert review.summary() == fresh.summary()


def test_a_decision_between_the_preview_and_the_rejection_derives_it_anew(ws):
    stacked(ws, [S1, S3])
    review = BatchReview.load(ws.vault)
    [s1_notes] = keys(review, "wiki/notes.md", 0)
    [s3_notes] = keys(review, "wiki/notes.md", 1)
    preview = review.preview_reject(s1_notes)
    assert preview is not None and s3_notes not in preview.decisions
    review.decide(s3_notes, ACCEPTED)  # after the preview: it no longer holds
    review.decide(s1_notes, REJECTED)
    assert review.hunks(0) is not preview.hunks
    [h3] = [h for h in review.hunks(0) if h.source == 1]
    assert h3.remerged and review.decisions[h3.key] == ACCEPTED  # the acceptance made after the preview kept
    assert review.preview_reject(s1_notes) is None  # rejected already
