"""Pending changesets on disk: they survive a kill, list oldest first, and refuse ids that are paths."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.core.changes_util import make_vault, open_vault
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.pending import PendingStore, UnknownChangeset


@pytest.fixture
def root(tmp_path):
    return make_vault(tmp_path / "v", {"a.md": "# A\n\nAlpha.\n", "b.md": "# B\n\nBeta.\n"})


def build(root, old, new, created):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("a.md", [{"old": old, "new": new}], "why")
    cs = b.build("edit", f"{old} to {new}")
    cs.created = created
    return vault, cs


def test_save_load_list_latest_and_discard(root):
    vault, first = build(root, "Alpha", "Alef", "2026-11-30T10:00:00")
    _, second = build(root, "Alpha", "Aleph", "2026-11-30T11:00:00")
    store = PendingStore(vault)
    assert store.list() == [] and store.latest() is None
    store.save(second)
    store.save(first)
    assert store.load(first.id) == first
    assert [cs.id for cs in store.list()] == [first.id, second.id]  # oldest first
    assert store.latest() == second
    assert store.discard(second.id) is True and store.discard(second.id) is False
    assert store.list() == [first]
    with pytest.raises(UnknownChangeset):
        store.load(second.id)


def test_unreadable_files_are_skipped_and_ids_cannot_be_paths(root):
    vault, cs = build(root, "Alpha", "Alef", "2026-11-30T10:00:00")
    store = PendingStore(vault)
    store.save(cs)
    (store.folder / "cs-20261130-000000.json").write_text("{not json", encoding="utf-8")
    assert store.list() == [cs]
    with pytest.raises(UnknownChangeset, match="unreadable"):
        store.load("cs-20261130-000000")
    for bad in ("../../wiki/a", "/etc/passwd", "cs-1/../../x"):
        with pytest.raises(UnknownChangeset):
            store.load(bad)


KILL_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    vault = Vault.open(sys.argv[1])
    b = ChangesetBuilder(vault, LinkGraph.load(vault, use_cache=False, save_cache=False))
    b.edit("a.md", [{"old": "Alpha.", "new": "Alpha, revised."}], "clearer")
    b.new_page("c.md", "# C\\n", "new")
    cs = b.build("ingest", "Source X", model="m", tokens=42)
    PendingStore(vault).save(cs)
    print(cs.id, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_a_saved_changeset_survives_the_process_being_killed(root):
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(root)], capture_output=True, text=True)
    assert proc.returncode == -9, proc.stderr
    cs_id = proc.stdout.strip()
    vault, _graph = open_vault(root)
    cs = PendingStore(vault).load(cs_id)
    assert (cs.op, cs.title, cs.tokens) == ("ingest", "Source X", 42)
    assert [fc.path for fc in cs.files] == ["wiki/a.md", "wiki/c.md"]
    assert cs.files[0].new_text == "# A\n\nAlpha, revised.\n"
    assert not list(PendingStore(vault).folder.glob("*.tmp"))  # no half-written temp file left behind
