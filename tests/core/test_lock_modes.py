"""The lock files wikitui makes have the mode of any file it makes: ``0666 & ~umask``, never executable (issue 20)."""

from __future__ import annotations

import os
import stat

import pytest

from tests.core.changes_util import make_vault, page
from wikitui.core.workspace import Workspace


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_the_index_lock_files_are_0644_under_umask_022(tmp_path, umask_022):
    root = make_vault(tmp_path / "v", {"A.md": page("A", "# A\n\nAlice.\n")})
    with Workspace.open(root) as ws:
        ws.update_index()
        ws.rebuild_index()
        assert ws.index.search("alice")
    state = root / ".wikitui"
    locks = [p for p in state.rglob("*") if p.is_file() and (p.name.endswith(".lock") or "WRITELOCK" in p.name)]
    assert state / "index.lock" in locks and any("WRITELOCK" in p.name for p in locks)
    for path in locks:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


def test_a_lock_file_follows_the_umask(tmp_path):
    from wikitui.core.search.whoosh.folder import file_lock

    old = os.umask(0o077)
    try:
        lock = file_lock(tmp_path / "x.lock")
        assert lock.acquire()
        lock.release()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "x.lock").stat().st_mode) == 0o600


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_the_vaults_write_lock_follows_the_umask(tmp_path, umask, mode):
    from wikitui.core.changes.lock import LOCK_NAME, write_lock
    from wikitui.core.vault.layout import Vault

    vault = Vault.open(make_vault(tmp_path / "v", {"A.md": page("A", "# A\n")}))
    old = os.umask(umask)
    try:
        with write_lock(vault):
            seen = stat.S_IMODE((vault.state_dir / LOCK_NAME).stat().st_mode)
    finally:
        os.umask(old)
    assert seen == mode
