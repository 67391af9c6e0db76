"""log.md as a time machine (DESIGN §15, issue 27.4): an entry's changeset read back, and its revert proposed
as a changeset, merged three-way with what came since, a later change on the same lines named and a conflict."""

from __future__ import annotations

import shutil

import pytest

from tests.core.changes_util import git, git_init, make_vault, page, read
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.disk_status import disk_status
from wikitui.core.changes.logged import NotLogged, change_diff, log_rows, logged_change
from wikitui.core.changes.model import FileConflict
from wikitui.core.changes.revert import NothingToRevert, later_on_same_lines, plan_revert, propose_revert
from wikitui.core.vault.log_entries import read_log
from wikitui.core.workspace import Workspace

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

NOTES = page("Notes", "".join(f"Note {i}.\n" for i in range(1, 21)))


def apply_edit(ws: Workspace, edits: list[tuple[str, str]], title: str, *, model: str = "openai/tester") -> str:
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.edit("notes.md", [{"old": o, "new": n} for o, n in edits], "")
    cs = b.build("edit", title, model=model)
    assert cs is not None
    ws.apply(cs)
    return cs.id


def entry_number(ws: Workspace, changeset: str) -> int:
    return next(i for i, e in enumerate(read_log(ws.vault)) if e.changeset == changeset)


@pytest.fixture(params=["git", "records"])
def vault(request, tmp_path):
    """A vault with notes.md, as a git repository or not (then wikitui's records hold the history)."""
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    if request.param == "git":
        if shutil.which("git") is None:
            pytest.skip("the git CLI is not installed")
        git_init(root)
    return root


def test_the_entrys_changeset_reads_back_as_its_diff(vault):
    ws = Workspace.open(vault)
    cs = apply_edit(ws, [("Note 5.", "Note five.")], "Spell five")
    change = logged_change(ws.vault, entry_number(ws, cs))
    assert [f.path for f in change.files] == ["wiki/notes.md"]
    assert change.files[0].before == NOTES and change.files[0].after == NOTES.replace("Note 5.", "Note five.")
    diff = change_diff(change)
    assert diff.id == cs and [h.removed for h in diff.files[0].hunks] == [1]
    rows = log_rows(ws.vault)
    assert rows[0].entry.changeset == cs and rows[0].number == entry_number(ws, cs)
    assert "openai/tester" in rows[0].who


def test_a_revert_with_no_later_change_proposes_the_text_before_and_writes_nothing(vault):
    ws = Workspace.open(vault)
    cs = apply_edit(ws, [("Note 5.", "Note five.")], "Spell five")
    on_disk = read(vault, "wiki/notes.md")
    revert, plan = propose_revert(ws.vault, ws.pending, entry_number(ws, cs))
    assert [f.state for f in plan.files] == ["clean"] and plan.named == []
    assert revert.op == "edit" and revert.title == f"revert {cs} (edit | Spell five)"
    assert ws.pending.load(revert.id).files[0].new_text == NOTES
    assert read(vault, "wiki/notes.md") == on_disk  # proposed only
    ws.apply(ws.pending.load(revert.id))
    assert read(vault, "wiki/notes.md") == NOTES
    assert f"edit | revert {cs} (edit | Spell five)" in read(vault, "wiki/log.md")
    if (vault / ".git").exists():
        assert f"wikitui: edit | revert {cs}" in git(vault, "log", "-1", "--format=%s")


def test_a_later_change_elsewhere_in_the_page_is_kept_by_the_merge(vault):
    ws = Workspace.open(vault)
    cs = apply_edit(ws, [("Note 5.", "Note five.")], "Spell five")
    apply_edit(ws, [("Note 15.", "Note fifteen.")], "Spell fifteen")
    revert, plan = propose_revert(ws.vault, ws.pending, entry_number(ws, cs))
    assert plan.files[0].state == "clean" and plan.named == []
    expected = NOTES.replace("Note 15.", "Note fifteen.")
    assert revert.files[0].base_text == read(vault, "wiki/notes.md") and revert.files[0].new_text == expected
    ws.apply(revert)
    assert read(vault, "wiki/notes.md") == expected


def test_a_later_change_on_the_same_lines_is_named_and_conflicts_without_writing(vault):
    ws = Workspace.open(vault)
    cs = apply_edit(ws, [("Note 5.", "Note five.")], "Spell five")
    later = apply_edit(ws, [("Note five.", "Note FIVE!")], "Shout five", model="openai/later")
    on_disk = read(vault, "wiki/notes.md")
    revert, plan = propose_revert(ws.vault, ws.pending, entry_number(ws, cs))
    (only,) = plan.conflicted
    assert any(name.startswith(f"{later} (edit | Shout five") for name in plan.named)
    assert "Note FIVE!" in only.conflicts[0] and "Note 5." in only.conflicts[0]
    fc = revert.files[0]
    assert later in fc.reason and "conflict" in fc.reason
    # The review sees the conflict at once, and applying it writes nothing.
    assert disk_status(ws.vault, fc).state == "conflict"
    with pytest.raises(FileConflict) as caught:
        ws.apply(ws.pending.load(revert.id))
    assert "Note FIVE!" in caught.value.region
    assert read(vault, "wiki/notes.md") == on_disk


def test_a_later_change_bordering_the_lines_is_named_one_far_off_is_not():
    before = "".join(f"l{i}\n" for i in range(10))
    after = before.replace("l4\n", "L4\n")
    near = after.replace("l5\n", "L5\n")
    far = near.replace("l9\n", "L9\n")
    met = later_on_same_lines(before, after, [(near, "near"), (far, "far")])  # type: ignore[list-item]
    assert met == ["near"]
    inserted = after.replace("l0\n", "l0\nnew\n")  # shifts the lines: l4 is now the 6th
    moved = inserted.replace("L4\n", "L4!\n")
    assert later_on_same_lines(before, after, [(inserted, "insert"), (moved, "same")]) == ["same"]  # type: ignore[list-item]


def test_the_updated_date_every_edit_bumps_is_no_conflict(tmp_path):
    root = make_vault(tmp_path / "v", {"notes.md": page("Notes", NOTES.split("---\n\n", 1)[1], updated="2026-01-01")})
    ws = Workspace.open(root)
    cs = apply_edit(ws, [("Note 5.", "Note five.")], "Spell five")
    apply_edit(ws, [("Note 15.", "Note fifteen.")], "Spell fifteen")
    revert, plan = propose_revert(ws.vault, ws.pending, entry_number(ws, cs))
    assert plan.files[0].state == "clean" and plan.named == []
    assert "Note 5." in revert.files[0].new_text and "Note fifteen." in revert.files[0].new_text


def test_reverting_a_page_the_changeset_created_deletes_it(vault):
    ws = Workspace.open(vault)
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.new_page("fresh.md", page("Fresh", "New.\n"), "")
    cs = b.build("ingest", "A source")
    assert cs is not None
    ws.apply(cs)
    revert, _plan = propose_revert(ws.vault, ws.pending, entry_number(ws, cs.id))
    assert [(f.path, f.action) for f in revert.files] == [("wiki/fresh.md", "delete")]
    ws.apply(revert)
    assert not (vault / "wiki/fresh.md").exists()


def test_a_reverted_changeset_has_nothing_left_and_an_entry_without_id_is_refused(vault):
    ws = Workspace.open(vault)
    cs = apply_edit(ws, [("Note 5.", "Note five.")], "Spell five")
    ws.undo()
    with pytest.raises(NothingToRevert):
        propose_revert(ws.vault, ws.pending, entry_number(ws, cs))
    undo_entry = next(i for i, e in enumerate(read_log(ws.vault)) if e.op == "undo")
    with pytest.raises(NotLogged, match="is an undo"):
        plan_revert(ws.vault, undo_entry)
    (vault / "wiki/log.md").write_text(read(vault, "wiki/log.md") + "\n## [2026-11-01] query | Just a question\n",
                                       encoding="utf-8")
    with pytest.raises(NotLogged, match="names no changeset"):
        plan_revert(ws.vault, len(read_log(ws.vault)) - 1)
    assert ws.pending.list() == []


# ------------------------------------------------------------------ property: naming agrees with the merge
from hypothesis import given, settings, strategies as st  # noqa: E402

from wikitui.core.changes.diffs import merge_texts  # noqa: E402

_lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "e\n"]), min_size=0, max_size=8)


@settings(max_examples=300, deadline=None)
@given(before=_lines, after=_lines, later=_lines)
def test_a_later_change_the_revert_conflicts_with_is_always_named(before, after, later):
    b, a, l = "".join(before), "".join(after), "".join(later)
    if a == b or l == a:
        return
    conflicted = not merge_texts(a, l, b).clean
    named = later_on_same_lines(b, a, [(l, "later")])  # type: ignore[list-item]
    if conflicted:
        assert named == ["later"]


@settings(max_examples=300, deadline=None)
@given(before=_lines, after=_lines, first=_lines, second=_lines)
def test_through_several_later_changes_a_conflict_names_one_of_them(before, after, first, second):
    b, a, l1, l2 = ("".join(x) for x in (before, after, first, second))
    if a == b:
        return
    if not merge_texts(a, l2, b).clean:
        assert later_on_same_lines(b, a, [(l1, "first"), (l2, "second")])  # type: ignore[list-item]
