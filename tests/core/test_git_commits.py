"""Git (DESIGN §8): wikitui's commit holds exactly the changeset; the person's own edits go first, apart.

Issue 9: a person's uncommitted edit to a page the changeset touched went into the
agent's commit, so reverting the agent's commit in git reverted the person too.
And ``.wikitui/`` showed in ``git status`` of existing vaults.
"""

from __future__ import annotations

import shutil

import pytest

from tests.core.changes_util import git, git_init, make_vault, open_vault, page, read
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.pending import PendingStore
from wikitui.core.changes.recovery import recover
from wikitui.core.changes.undo import undo_last
from wikitui.core.vault.layout import Vault

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

NOTES = "".join(f"Line {i} of the notes.\n" for i in range(1, 31))


@pytest.fixture
def root(tmp_path):
    root = make_vault(tmp_path / "v", {
        "notes.md": NOTES,
        "concepts/Attention.md": page("Attention", "# Attention\n\nWeights.\n"),
        "concepts/Elsewhere.md": page("Elsewhere", "# Elsewhere\n\nUntouched by the agent.\n"),
    })
    git_init(root)
    return root


def changed_files(root, rev: str) -> list[str]:
    return sorted(git(root, "show", "--name-only", "--format=", rev).split())


def test_the_persons_uncommitted_edits_to_touched_files_are_committed_first_and_apart(root):
    (root / "wiki/notes.md").write_text(NOTES.replace("Line 25 of", "Line 25 (my edit) of"), encoding="utf-8")
    (root / "wiki/concepts/Elsewhere.md").write_text("my unsaved work elsewhere\n", encoding="utf-8")
    (root / "wiki/mine.md").write_text("# Mine\n\nA page I never committed.\n", encoding="utf-8")
    (root / "scratch.md").write_text("staged by me\n", encoding="utf-8")
    git(root, "add", "scratch.md")
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Line 5 of", "new": "Line five of"}], "")
    b.edit("mine.md", [{"old": "never committed", "new": "never committed, now linked to [[notes]]"}], "")
    b.new_page("concepts/BERT.md", page("BERT", "# BERT\n"), "")
    cs = b.build("edit", "Tidy")
    result = apply_changeset(vault, graph, cs)

    assert result.your_commit and result.commit
    subjects = git(root, "log", "--format=%s", "-3").splitlines()
    assert subjects == ["wikitui: edit | Tidy", f"wikitui: your edits before {cs.id}", "initial"]
    # The person's commit: their bytes, exactly, and nothing of the agent's.
    assert changed_files(root, "HEAD~1") == ["wiki/mine.md", "wiki/notes.md"]
    assert git(root, "show", "HEAD~1:wiki/notes.md") == NOTES.replace("Line 25 of", "Line 25 (my edit) of")
    assert git(root, "show", "HEAD~1:wiki/mine.md") == "# Mine\n\nA page I never committed.\n"
    # The agent's commit: exactly what it changed; the person's line is not in its diff.
    diff = git(root, "show", "--format=", "HEAD")
    assert "+Line five of the notes." in diff and "my edit" not in diff and "never committed\n" not in diff
    assert changed_files(root, "HEAD") == ["wiki/concepts/BERT.md", "wiki/index.md", "wiki/log.md",
                                           "wiki/mine.md", "wiki/notes.md"]
    # Other dirty files are left alone, staged or not.
    status = git(root, "status", "--porcelain")
    assert " M wiki/concepts/Elsewhere.md" in status and "A  scratch.md" in status
    assert "wiki/notes.md" not in status and "wiki/mine.md" not in status
    # Reverting the agent's commit in git takes back the agent's change and keeps the person's edit.
    git(root, "reset", "-q", "--", "scratch.md")
    git(root, "checkout", "--", "wiki/concepts/Elsewhere.md")
    git(root, "-c", "user.name=T", "-c", "user.email=t@e", "revert", "--no-edit", "HEAD")
    assert read(root, "wiki/notes.md") == NOTES.replace("Line 25 of", "Line 25 (my edit) of")


def test_undo_in_a_git_vault_keeps_the_persons_committed_edit(root):
    (root / "wiki/notes.md").write_text(NOTES.replace("Line 25 of", "Line 25 (mine) of"), encoding="utf-8")
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Line 5 of", "new": "Line five of"}], "")
    apply_changeset(vault, graph, b.build("edit", "Tidy"))
    result = undo_last(vault, graph)
    assert read(root, "wiki/notes.md") == NOTES.replace("Line 25 of", "Line 25 (mine) of")
    assert result.commit and result.your_commit is None
    assert git(root, "status", "--porcelain", "--", "wiki") == ""


def test_a_clean_vault_gets_no_commit_of_the_persons_edits(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Line 5 of", "new": "Line five of"}], "")
    result = apply_changeset(vault, graph, b.build("edit", "Tidy"))
    assert result.your_commit is None
    assert git(root, "log", "--format=%s").splitlines() == ["wikitui: edit | Tidy", "initial"]


def test_wikitui_state_never_shows_in_git_status_of_an_existing_vault(tmp_path):
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    git(root, "init", "-q", "-b", "main")  # a vault the person made a repository, without our .gitignore line
    git(root, "add", "-A")
    git(root, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "mine")
    (root / ".wikitui" / "cache").mkdir(parents=True)  # left by an older wikitui
    (root / ".wikitui" / "cache" / "graph.bin").write_bytes(b"x")
    assert "?? .wikitui/" in git(root, "status", "--porcelain")
    Vault.open(root)  # any command opening the vault
    assert git(root, "status", "--porcelain") == ""
    assert (root / ".wikitui/.gitignore").read_text(encoding="utf-8") == "*\n"


def test_the_state_folder_made_by_an_apply_or_a_pending_save_is_ignored_too(tmp_path):
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    git(root, "init", "-q", "-b", "main")
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Line 5 of", "new": "Line five of"}], "")
    PendingStore(vault).save(b.build("edit", "Tidy"))
    assert ".wikitui" not in git(root, "status", "--porcelain", "--untracked-files=all")
    shutil.rmtree(root / ".wikitui")
    assert recover(vault) is None
    apply_changeset(vault, graph, _one_edit(vault, graph))
    assert ".wikitui" not in git(root, "status", "--porcelain", "--untracked-files=all")


def _one_edit(vault, graph):
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Line 6 of", "new": "Line six of"}], "")
    return b.build("edit", "Six")


def test_an_edit_saved_while_the_apply_runs_goes_in_the_persons_commit(root, monkeypatch):
    from wikitui.core.changes.journal import Journal

    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Line 5 of", "new": "Line five of"}], "")
    cs = b.build("edit", "Tidy")
    real_save, done = Journal.save, []

    def save_then_type(self):
        real_save(self)
        if not done:
            done.append(1)
            with open(root / "wiki/notes.md", "a", encoding="utf-8") as fh:
                fh.write("Typed during the apply.\n")

    monkeypatch.setattr(Journal, "save", save_then_type)
    result = apply_changeset(vault, graph, cs)
    assert result.your_commit
    assert git(root, "show", "HEAD~1:wiki/notes.md") == NOTES + "Typed during the apply.\n"
    diff = git(root, "show", "--format=", "HEAD", "--", "wiki/notes.md")
    assert "+Line five of the notes." in diff and "Typed during" not in diff
