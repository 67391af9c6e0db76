"""/undo: reverting the last applied changeset, with and without git, merging later edits when it can."""

from __future__ import annotations

import shutil
from datetime import date

import pytest

from tests.core.changes_util import git, git_init, make_vault, open_vault, page, read, tree_hashes
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder, FileConflict
from wikitui.core.changes.undo import NothingToUndo, list_records, undo_last

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

NOTES = "".join(f"Note {i}.\n" for i in range(1, 31))


def pages_only(root):
    """Hashes of the pages and the schema (index.md and log.md are bookkeeping that moves on)."""
    skip = ("wiki/index.md", "wiki/log.md")
    return {k: v for k, v in tree_hashes(root).items() if not k.startswith(".") and k not in skip}


@pytest.fixture
def root(tmp_path):
    return make_vault(tmp_path / "v", {
        "notes.md": NOTES,
        "concepts/Attention.md": page("Attention", "# Attention\n\nWeights over tokens.\n"),
        "concepts/Old.md": page("Old", "# Old\n\nTo be removed.\n"),
    })


def apply_mixed(root, title="Mixed change"):
    """An edit, a new page, a deletion and a move, all accepted."""
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Note 5.", "new": "Note five."}], "")
    b.new_page("concepts/BERT.md", page("BERT", "# BERT\n\nUses [[Attention]].\n"), "")
    b.delete("concepts/Old.md", "")
    b.move("concepts/Attention.md", "mechanisms/Attention.md", "")
    cs = b.build("edit", title)
    result = apply_changeset(vault, graph, cs)
    return vault, graph, cs, result


def test_undo_without_git_puts_every_file_back(root):
    before = pages_only(root)
    vault, graph, cs, _ = apply_mixed(root)
    assert pages_only(root) != before
    result = undo_last(vault, graph)
    assert pages_only(root) == before
    assert result.changeset_id == cs.id and sorted(result.deleted) == ["wiki/concepts/BERT.md", "wiki/mechanisms/Attention.md"]
    log = read(root, "wiki/log.md")
    assert "] undo | Mixed change" in log and log.count(cs.id) == 2
    assert "wiki/concepts/Old.md" in graph.pages and "wiki/concepts/BERT.md" not in graph.pages
    assert "[[BERT]]" not in read(root, "wiki/index.md") and "[[Old]]" in read(root, "wiki/index.md")
    assert [r["undone"] for _, r in list_records(vault)] == [True]


def test_undo_twice_undoes_the_change_before(root):
    original = read(root, "wiki/notes.md")
    vault, graph = open_vault(root)
    for old, new in (("Note 1.", "First."), ("Note 20.", "Twentieth.")):
        b = ChangesetBuilder(vault, graph)
        b.edit("notes.md", [{"old": old, "new": new}], "")
        apply_changeset(vault, graph, b.build("edit", f"Rename {old}"))
    assert "First." in read(root, "wiki/notes.md") and "Twentieth." in read(root, "wiki/notes.md")
    assert undo_last(vault, graph).log_entry.startswith("## [") and "Twentieth." not in read(root, "wiki/notes.md")
    assert "First." in read(root, "wiki/notes.md")
    undo_last(vault, graph)
    assert read(root, "wiki/notes.md") == original
    with pytest.raises(NothingToUndo):
        undo_last(vault, graph)


def test_undo_keeps_a_later_edit_elsewhere_in_the_page(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Note 3.", "new": "Note three."}], "")
    apply_changeset(vault, graph, b.build("edit", "t"))
    path = root / "wiki/notes.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Note 25.", "Note 25, mine."), encoding="utf-8")
    result = undo_last(vault, graph)
    assert result.merged == ["wiki/notes.md"]
    assert read(root, "wiki/notes.md") == NOTES.replace("Note 25.", "Note 25, mine.")


def test_undo_refuses_when_a_later_edit_overlaps_and_writes_nothing(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Note 3.", "new": "Note three."}], "")
    b.new_page("concepts/BERT.md", "# BERT\n", "")
    apply_changeset(vault, graph, b.build("edit", "t"))
    path = root / "wiki/notes.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Note three.", "Note THREE!"), encoding="utf-8")
    before = tree_hashes(root)
    with pytest.raises(FileConflict) as err:
        undo_last(vault, graph)
    assert err.value.path == "wiki/notes.md" and "Note THREE!" in err.value.region
    assert tree_hashes(root) == before  # BERT.md, the other file of the changeset, is still there too


def test_undo_of_a_created_page_edited_since_is_refused(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.new_page("concepts/BERT.md", "# BERT\n", "")
    apply_changeset(vault, graph, b.build("edit", "t"))
    (root / "wiki/concepts/BERT.md").write_text("# BERT\n\nMy notes.\n", encoding="utf-8")
    with pytest.raises(FileConflict, match="would delete those edits"):
        undo_last(vault, graph)


@needs_git
def test_undo_in_a_git_vault_is_a_new_commit(root):
    git_init(root)
    before = pages_only(root)
    vault, graph, cs, applied = apply_mixed(root, "Reorganise")
    undone = undo_last(vault, graph)
    assert undone.commit and undone.commit != applied.commit
    log = git(root, "log", "--format=%s").splitlines()
    assert log[:3] == ["wikitui: undo | Reorganise", "wikitui: edit | Reorganise", "initial"]  # nothing rewritten
    assert f"undo of changeset: {cs.id}" in git(root, "log", "-1", "--format=%B")
    assert git(root, "status", "--porcelain", "--", "wiki") == ""
    assert pages_only(root) == before
    assert git(root, "diff", "HEAD~2", "--stat", "--", "wiki/concepts", "wiki/notes.md") == ""


def test_sample_vault_apply_then_undo_restores_the_page_byte_for_byte(sample_vault):
    if not (sample_vault / "wiki" / "characters" / "dodo.md").is_file():
        pytest.skip("sample/wiki is not there yet")
    vault, graph = open_vault(sample_vault)
    original = (sample_vault / "wiki/characters/dodo.md").read_bytes()
    log_before = read(sample_vault, "wiki/log.md")
    b = ChangesetBuilder(vault, graph)
    b.edit("characters/dodo.md", [{"old": "Its remedy is the Caucus-race.", "new": "Its remedy is the [[Caucus-race]]."}], "link")
    result = apply_changeset(vault, graph, b.build("edit", "Link the Caucus-race"))
    dodo = read(sample_vault, "wiki/characters/dodo.md")
    assert "[[Caucus-race]]" in dodo and f"updated: {date.today().isoformat()}" in dodo
    assert read(sample_vault, "wiki/log.md").startswith(log_before)  # appended, history untouched
    assert [(p, link.target) for p, link in result.unresolved_links] == [("wiki/characters/dodo.md", "Caucus-race")]
    undo_last(vault, graph)
    assert (sample_vault / "wiki/characters/dodo.md").read_bytes() == original
