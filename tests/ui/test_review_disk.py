"""The review marks the files that changed on disk as soon as the change is seen.

Before, nothing showed until ``enter`` reported a conflict. Now the file list says
"changed on disk — will merge" or "— conflict" when the review opens, and again when
the app's file watcher reports a change (a VaultChanged message) while it is open.
"""

from __future__ import annotations

from pathlib import Path

from tests.ui.test_review import (  # noqa: F401 - vault_root is a fixture
    ATTENTION,
    BERT,
    TRANSFORMER,
    ReviewApp,
    build_changeset,
    vault_root,
    where,
)
from tests.ui.workspace_helpers import wait_for, wait_ready, workspace
from wikitui.core.changes.disk_status import disk_status
from wikitui.core.changes.pending import PendingStore
from wikitui.ui.messages import VaultChanged
from wikitui.ui.screens.review import ReviewScreen


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def entry(app, index: int) -> str:
    return app.screen.query_one("#review-files").entry_text(index)


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_disk_status_says_what_enter_would_meet(vault_root):
    vault, _graph, changeset = build_changeset(vault_root)
    attention, transformer, bert = changeset.files
    assert [disk_status(vault, fc).state for fc in changeset.files] == ["same", "same", "same"]
    edit(vault_root, ATTENTION, "Attention sentence 3a", "Attention sentence 3a (edited)")
    edit(vault_root, TRANSFORMER, "Transformer sentence 4a about [[Attention]] and more.", "Transformer 4a, by hand.")
    (vault_root / BERT).write_text("# BERT\n\nWritten by hand first.\n", encoding="utf-8")
    assert disk_status(vault, attention).state == "merges"
    assert disk_status(vault, transformer).state == "conflict"
    assert disk_status(vault, transformer, rejected={"f1h1"}).state == "merges"  # the clashing hunk is out
    assert disk_status(vault, transformer, rejected={"f1h0", "f1h1", "f1h2"}).state == "changed"
    assert disk_status(vault, bert).state == "conflict"
    (vault_root / TRANSFORMER).unlink()
    assert disk_status(vault, transformer).why == "deleted on disk since the proposal"


async def test_files_changed_before_the_review_opens_are_marked_at_once(vault_root):
    vault, _graph, changeset = build_changeset(vault_root)
    edit(vault_root, ATTENTION, "Attention sentence 3a", "Attention sentence 3a (edited)")
    edit(vault_root, TRANSFORMER, "Transformer sentence 4a about [[Attention]] and more.", "Transformer 4a, by hand.")
    app = ReviewApp(changeset, vault=vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "changed on disk — will merge" in entry(app, 0)
        assert "changed on disk — conflict" in entry(app, 1)
        assert "changed on disk" not in entry(app, 2)
        # Rejecting the hunk that clashes with the person's edit: what is left merges.
        await pilot.press("n", "j")
        assert where(app) == (TRANSFORMER, "f1h1")
        await pilot.press("r")
        await settle(pilot)
        assert "changed on disk — will merge" in entry(app, 1)


async def test_a_change_reported_while_the_review_is_open_is_marked_then(vault_root):
    vault, _graph, changeset = build_changeset(vault_root)
    app = ReviewApp(changeset, vault=vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not any("changed on disk" in entry(app, i) for i in range(3))
        (vault_root / BERT).write_text("# BERT\n\nWritten by hand first.\n", encoding="utf-8")
        edit(vault_root, ATTENTION, "Attention sentence 1a about", "Attention sentence 1a, hand-edited, about")
        # What the app's watcher posts to the screen on top once the graph caught up.
        app.screen.post_message(VaultChanged({BERT, ATTENTION, "wiki/other.md"}))
        await settle(pilot)
        assert "changed on disk — conflict" in entry(app, 0)
        assert "changed on disk — conflict" in entry(app, 2)
        assert "changed on disk" not in entry(app, 1)
        assert any("conflict" in n.title.lower() for n in app._notifications)  # type: ignore[attr-defined]


async def test_the_watcher_marks_a_file_edited_during_the_review(vault_root):
    vault, _graph, changeset = build_changeset(vault_root)
    PendingStore(vault).save(changeset)
    app = workspace(vault_root, index=False)  # the real file watcher runs
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        # (The app's own workers, the watcher among them, never finish: wait for the review's.)
        await wait_for(pilot, lambda: not [w for w in app.workers if w.group == "review-disk" and w.is_running],
                       "the first look at the disk")
        assert "changed on disk" not in entry(app, 0)
        edit(vault_root, ATTENTION, "Attention sentence 3a", "Attention sentence 3a, edited in Obsidian")
        await wait_for(pilot, lambda: "changed on disk — will merge" in entry(app, 0), "the mark", timeout=15)
        assert "changed on disk" not in entry(app, 1)


def test_snapshot_review_with_files_changed_on_disk(vault_root, snap_compare):
    vault, _graph, changeset = build_changeset(vault_root)
    edit(vault_root, ATTENTION, "Attention sentence 3a", "Attention sentence 3a (edited)")
    edit(vault_root, TRANSFORMER, "Transformer sentence 4a about [[Attention]] and more.", "Transformer 4a, by hand.")

    async def look(pilot):
        await settle(pilot)

    assert snap_compare(ReviewApp(changeset, vault=vault), terminal_size=(120, 30), run_before=look)
