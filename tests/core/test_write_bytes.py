"""Bytes and modes are kept (DESIGN §8): BOM, CRLF and invalid UTF-8 survive apply, rollback and undo.

log.md is appended to as bytes (its old bytes are never decoded and written back),
a rollback restores the exact old bytes (not a length), a replaced file keeps its
permission bits and a new one gets ``0666 & ~umask``, through apply, undo and init.
"""

from __future__ import annotations

import os
import stat

import pytest

from tests.core.changes_util import make_vault, open_vault, page, tree_hashes
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.journal import Journal
from wikitui.core.changes.pending import PendingStore
from wikitui.core.changes.undo import undo_last
from wikitui.core.vault.create import init_vault
from wikitui.core.vault.files import atomic_write

#: A log written on Windows by another tool: BOM, CRLF, a Latin-1 byte, no final newline.
ODD_LOG = b"\xef\xbb\xbf# Log\r\n\r\n## [2026-01-02] edit | Caf\xe9\r\n\r\n- pages: none"
#: A page with the same oddities outside the line the agent edits.
ODD_PAGE = b"\xef\xbb\xbf---\r\ntitle: Odd\r\n---\r\n\r\nCaf\xe9 au lait.\r\nTwo.\r\nThree \xff\xfe.\r\n"


@pytest.fixture
def root(tmp_path):
    root = make_vault(tmp_path / "v", {
        "odd.md": ODD_PAGE,
        "other.md": page("Other", "# Other\n\nSee [[odd]] and [[Target]].\n"),
        "topics/target.md": page("Target", "# Target\n\nMoves.\n"),
        "links-here.md": b"Caf\xe9: see [[topics/target]] here.\r\n",
    })
    (root / "wiki/log.md").write_bytes(ODD_LOG)
    return root


def edit_odd(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("odd.md", [{"old": "Two.\n", "new": "Two, edited.\n"}], "")
    b.edit("other.md", [{"old": "# Other", "new": "# Other page"}], "")
    return vault, graph, b.build("edit", "Odd edit")


def test_log_md_is_appended_as_bytes_keeping_its_bom_crlf_and_invalid_bytes(root):
    vault, graph, cs = edit_odd(root)
    result = apply_changeset(vault, graph, cs)
    log = (root / "wiki/log.md").read_bytes()
    assert log.startswith(ODD_LOG)  # not one old byte changed, the BOM and the \xe9 included
    added = log[len(ODD_LOG):]
    assert added.startswith(b"\r\n\r\n## [") and b"\r\n" in added and b"\n" not in added.replace(b"\r\n", b"")
    assert result.log_entry.replace("\n", "\r\n").encode() in added


def test_a_page_keeps_bom_crlf_and_invalid_bytes_outside_the_edit_through_apply_and_undo(root):
    vault, graph, cs = edit_odd(root)
    apply_changeset(vault, graph, cs)
    assert (root / "wiki/odd.md").read_bytes() == ODD_PAGE.replace(b"Two.\r\n", b"Two, edited.\r\n")
    undo_last(vault, graph)
    assert (root / "wiki/odd.md").read_bytes() == ODD_PAGE
    log = (root / "wiki/log.md").read_bytes()
    assert log.startswith(ODD_LOG) and log.count(cs.id.encode()) == 2


def test_a_move_rewrites_links_in_a_page_with_invalid_bytes_and_keeps_them(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.move("topics/target.md", "archive/target.md", "")
    cs = b.build("edit", "Archive")
    assert "wiki/links-here.md" in {f.path for f in cs.files}  # it used to be skipped: "not valid UTF-8"
    apply_changeset(vault, graph, cs)
    assert (root / "wiki/links-here.md").read_bytes() == b"Caf\xe9: see [[archive/target]] here.\r\n"


def test_index_md_with_odd_bytes_above_the_marker_is_still_regenerated_below_it(root):
    head = b"\xef\xbb\xbf# Index\r\n\r\nMine: caf\xe9.\r\n\r\n<!-- wikitui:index -->\r\n"
    (root / "wiki/index.md").write_bytes(head)
    vault, graph, cs = edit_odd(root)
    result = apply_changeset(vault, graph, cs)
    index = (root / "wiki/index.md").read_bytes()
    assert result.index_updated and index.startswith(head) and b"[[Other]]" in index


def test_a_rollback_after_the_log_append_restores_the_exact_old_bytes(root, monkeypatch):
    vault, graph, cs = edit_odd(root)
    PendingStore(vault).save(cs)
    before = tree_hashes(root)
    real_write = Journal.write

    def fail_on_records(self, rel, data, **kw):
        if rel.startswith(".wikitui/history"):
            # log.md has its entry by now; someone appends to it too, then the disk fills up.
            with open(root / "wiki/log.md", "ab") as fh:
                fh.write(b"\r\nappended by hand\r\n")
            raise OSError(28, "No space left on device")
        return real_write(self, rel, data, **kw)

    monkeypatch.setattr(Journal, "write", fail_on_records)
    with pytest.raises(OSError):
        apply_changeset(vault, graph, cs)
    assert (root / "wiki/log.md").read_bytes() == ODD_LOG + b"\r\nappended by hand\r\n"  # ours out, theirs kept
    (root / "wiki/log.md").write_bytes(ODD_LOG)
    after = tree_hashes(root)
    assert {k: v for k, v in after.items() if not k.startswith(".wikitui")} == {
        k: v for k, v in before.items() if not k.startswith(".wikitui")}
    assert (root / "wiki/odd.md").read_bytes() == ODD_PAGE


# ------------------------------------------------------------------ modes
@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_apply_keeps_a_replaced_files_mode_and_gives_new_files_the_umask_default(root, umask_022):
    os.chmod(root / "wiki/odd.md", 0o640)
    os.chmod(root / "wiki/log.md", 0o664)
    os.chmod(root / "wiki/index.md", 0o600)
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("odd.md", [{"old": "Two.\n", "new": "Two, edited.\n"}], "")
    b.new_page("fresh.md", page("Fresh", "# Fresh\n"), "")
    apply_changeset(vault, graph, b.build("edit", "Modes"))
    assert mode(root / "wiki/odd.md") == 0o640
    assert mode(root / "wiki/fresh.md") == 0o644  # not mkstemp's 0600
    assert mode(root / "wiki/log.md") == 0o664 and mode(root / "wiki/index.md") == 0o600
    os.umask(0o027)
    b = ChangesetBuilder(vault, graph)
    b.new_page("private.md", page("Private", "# Private\n"), "")
    apply_changeset(vault, graph, b.build("edit", "Umask"))
    assert mode(root / "wiki/private.md") == 0o640


def test_undo_keeps_modes_and_brings_a_deleted_page_back_with_the_default_mode(root, umask_022):
    os.chmod(root / "wiki/odd.md", 0o604)
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("odd.md", [{"old": "Two.\n", "new": "Two, edited.\n"}], "")
    b.delete("topics/target.md", "")
    apply_changeset(vault, graph, b.build("edit", "Then undo"))
    undo_last(vault, graph)
    assert mode(root / "wiki/odd.md") == 0o604 and mode(root / "wiki/topics/target.md") == 0o644


def test_init_and_a_page_created_from_the_ui_get_the_umask_default(tmp_path, umask_022):
    init_vault(tmp_path / "v")
    for rel in ("wiki/index.md", "wiki/log.md", "WIKI.md", ".gitignore", ".wikitui/.gitignore"):
        assert mode(tmp_path / "v" / rel) == 0o644, rel
    # The UI's "create page" writes through vault.files.atomic_write (ui/screens/navigation.py).
    atomic_write(tmp_path / "v/wiki/new.md", "# New\n")
    assert mode(tmp_path / "v/wiki/new.md") == 0o644
    os.chmod(tmp_path / "v/wiki/new.md", 0o600)
    atomic_write(tmp_path / "v/wiki/new.md", "# New, again\n")
    assert mode(tmp_path / "v/wiki/new.md") == 0o600
