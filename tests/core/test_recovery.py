"""Recovery is complete (DESIGN §8): it removes the temp files killed wikitui processes left, and only those."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.core.changes_util import make_vault
from wikitui.core.changes.recovery import recover
from wikitui.core.vault.files import temp_path
from wikitui.core.vault.layout import Vault


def dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)


def test_start_up_removes_temp_files_of_dead_processes_and_of_older_versions_only(tmp_path):
    root = make_vault(tmp_path / "v", {"notes.md": "# Notes\n"})
    wiki, state = root / "wiki", root / ".wikitui"
    (state / "pending").mkdir(parents=True)
    gone = dead_pid()
    left = [
        wiki / f".log.md.wikitui-{gone}-0a1b2c3d.tmp",          # a kill during an apply
        state / "pending" / f".cs-20260101-abcdef.json.wikitui-{gone}-00ff00ff.tmp",  # during a pending save
        wiki / ".log.md.k2j4h6g8.tmp",                          # an older wikitui's name for it (issue 9)
    ]
    kept = [
        wiki / f".notes.md.wikitui-{os.getppid()}-11223344.tmp",  # a live process is writing it right now
        temp_path(wiki / "notes.md"),                            # this very process
        wiki / ".my-own.tmp",                                    # not a name wikitui makes
        wiki / ".fresh.md.q1w2e3r4.tmp",                         # old-style but new: maybe an older wikitui running
    ]
    for path in left + kept:
        path.write_bytes(b"half a page")
    old = time.time() - 3600
    os.utime(wiki / ".log.md.k2j4h6g8.tmp", (old, old))
    assert recover(Vault.open(root)) is None  # no journal: nothing to roll back, the litter still goes
    assert [p for p in left if p.exists()] == []
    assert [p for p in kept if not p.exists()] == []
