"""Two writers on one vault take the write lock in turn (issue 26.5, DESIGN §14).

Two workspaces, a cron ``ingest --apply`` and an MCP client may apply to the same
vault at once. The second waits for the first (within a bound) instead of failing,
plans its writes against what the first wrote, and each apply's files and commit
land together: no lost hunk, no torn file, no file written but not committed.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from tests.cli_run import WIKITUI
from tests.core.changes_util import git, git_init, make_vault, open_vault, page, read
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.lock import VaultBusy, lock_held, write_lock
from wikitui.core.changes.pending import PendingStore

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

PAGES = 6
ROUNDS = 8  # changesets per page

HOLDER = textwrap.dedent("""
    import sys
    from wikitui.core.changes.lock import write_lock
    from wikitui.core.vault.layout import Vault
    with write_lock(Vault.open(sys.argv[1])):
        print("held", flush=True)
        sys.stdin.readline()  # hold it until told (or killed)
""")


def lines(n: int, tag: str) -> str:
    return "".join(f"{tag} line {i}.\n" for i in range(n))


@pytest.fixture
def root(tmp_path):
    pages = {f"p{k}.md": page(f"P{k}", f"# P{k}\n\n" + lines(ROUNDS * 6, f"p{k}")) for k in range(PAGES)}
    return make_vault(tmp_path / "v", pages)


def edit(root, rel: str, old: str, new: str, title: str):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit(rel, [{"old": old, "new": new}], "test")
    return b.build("edit", title, model="test/model")


class Holder:
    """Another process that holds the vault's write lock until released or killed."""

    def __init__(self, root):
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(root)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "held"

    def release(self):
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        self.proc.wait(timeout=30)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


def test_a_second_writer_waits_for_the_first_and_then_writes(root):
    vault, graph = open_vault(root)
    cs = edit(root, "wiki/p0.md", "p0 line 1.", "p0 line one.", "One")
    holder = Holder(root)
    assert lock_held(vault)
    done = threading.Event()
    errors: list[BaseException] = []

    def apply():
        try:
            apply_changeset(vault, graph, cs)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        done.set()

    worker = threading.Thread(target=apply)
    worker.start()
    # It waits (it neither fails nor writes) while the other process holds the lock...
    assert not done.wait(0.3)
    assert "p0 line 1." in read(root, "wiki/p0.md")
    holder.release()
    # ...and writes once the lock is free.
    assert done.wait(30) and not errors
    worker.join()
    assert "p0 line one." in read(root, "wiki/p0.md") and not lock_held(vault)


def test_a_writer_that_waited_its_bound_says_who_holds_the_lock_and_writes_nothing(root):
    vault, graph = open_vault(root)
    cs = edit(root, "wiki/p0.md", "p0 line 1.", "p0 line one.", "One")
    before = read(root, "wiki/p0.md")
    holder = Holder(root)
    try:
        with pytest.raises(VaultBusy, match=rf"pid {holder.proc.pid}.*nothing was written"):
            with write_lock(vault, wait_s=0.2):
                pass
        with pytest.raises(VaultBusy):
            from wikitui.core.changes import lock

            old = lock.WAIT_S
            lock.WAIT_S = 0.2
            try:
                apply_changeset(vault, graph, cs)
            finally:
                lock.WAIT_S = old
        assert read(root, "wiki/p0.md") == before
    finally:
        holder.release()


def test_a_killed_writers_lock_is_free_at_once(root):
    vault, graph = open_vault(root)
    holder = Holder(root)
    assert lock_held(vault)
    holder.kill()  # kill -9: no clean-up ran, and the pid it wrote is still in the file
    assert not lock_held(vault)
    cs = edit(root, "wiki/p0.md", "p0 line 1.", "p0 line one.", "One")
    apply_changeset(vault, graph, cs)  # no wait, no "stale lock" guess
    assert "p0 line one." in read(root, "wiki/p0.md")


def test_the_lock_is_reentrant_in_its_thread_and_excludes_another_thread(root):
    vault, _graph = open_vault(root)
    other_got_it = threading.Event()

    def other():
        with write_lock(vault):
            other_got_it.set()

    with write_lock(vault):
        with write_lock(vault):  # an apply runs recovery inside the lock it holds
            pass
        thread = threading.Thread(target=other)
        thread.start()
        assert not other_got_it.wait(0.2)  # still held by the outer level
    assert other_got_it.wait(30)
    thread.join()
    assert not lock_held(vault)


APPLIER = textwrap.dedent("""
    import sys
    from wikitui.core.changes.apply import apply_changeset
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    root, side, pages, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    print("ready", flush=True)
    sys.stdin.readline()  # both start together
    for r in range(rounds):
        for k in range(pages):  # both sides edit every page, each its own lines
            vault = Vault.open(root)
            graph = LinkGraph.load(vault, use_cache=False, save_cache=False)
            b = ChangesetBuilder(vault, graph)
            b.edit(f"wiki/p{k}.md", [{"old": f"p{k} line {r * 6 + 1 + 3 * int(side)}.",
                                          "new": f"p{k} line {r * 6 + 1 + 3 * int(side)} (side {side})."}], "x")
            apply_changeset(vault, graph, b.build("edit", f"side {side} round {r} page {k}", model="m"))
""")


@needs_git
def test_two_processes_applying_many_times_at_once_lose_nothing(root):
    git_init(root)
    procs = [subprocess.Popen([sys.executable, "-c", APPLIER, str(root), str(side), str(PAGES), str(ROUNDS)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for side in (0, 1)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        _out, err = p.communicate(timeout=240)
        assert p.returncode == 0, err
    for k in range(PAGES):
        text = read(root, f"wiki/p{k}.md")
        for r in range(ROUNDS):
            for side in (0, 1):  # a changeset built before the other side wrote was merged, not lost
                assert f"p{k} line {r * 6 + 1 + 3 * side} (side {side})." in text
        assert text.endswith(f"p{k} line {ROUNDS * 6 - 1}.\n")  # no torn file
    log = read(root, "wiki/log.md")
    titles = [f"side {side} round {r} page {k}" for side in (0, 1) for r in range(ROUNDS) for k in range(PAGES)]
    assert all(t in log for t in titles)  # every apply's log entry
    subjects = git(root, "log", "--format=%s")
    assert all(t in subjects for t in titles)  # every apply's commit
    assert git(root, "status", "--porcelain") == ""  # nothing written and left uncommitted


@needs_git
def test_two_pending_applies_started_together_both_land(root):
    """The issue's own round: two ``wikitui pending apply`` on different changesets, started together."""
    git_init(root)
    vault, _graph = open_vault(root)
    ids = []
    for k in (0, 1):
        cs = edit(root, f"wiki/p{k}.md", f"p{k} line 1.", f"p{k} line one.", f"Page {k}")
        PendingStore(vault).save(cs)
        ids.append(cs.id)
    procs = [subprocess.Popen([str(WIKITUI), "pending", "apply", cs_id], cwd=root, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for cs_id in ids]
    results = [p.communicate(timeout=240) + (p.returncode,) for p in procs]
    assert [code for _o, _e, code in results] == [0, 0], results
    assert all("failed" not in err for _o, err, _c in results), results
    assert "p0 line one." in read(root, "wiki/p0.md") and "p1 line one." in read(root, "wiki/p1.md")
    assert git(root, "status", "--porcelain") == ""
    subjects = git(root, "log", "--format=%s")
    assert "Page 0" in subjects and "Page 1" in subjects


@needs_git
def test_a_commit_waits_while_the_persons_own_git_holds_the_index(root):
    git_init(root)
    vault, graph = open_vault(root)
    cs = edit(root, "wiki/p0.md", "p0 line 1.", "p0 line one.", "One")
    index_lock = root / ".git" / "index.lock"
    index_lock.write_text("", encoding="utf-8")  # the person's `git commit` is running
    started = threading.Event()

    def person_finishes():
        started.wait(30)
        time.sleep(0.3)  # their commit takes a moment
        index_lock.unlink()

    thread = threading.Thread(target=person_finishes)
    thread.start()
    started.set()
    result = apply_changeset(vault, graph, cs)
    thread.join()
    assert result.warnings == []  # the commit was made, not given up on
    assert "One" in git(root, "log", "--format=%s")
    assert git(root, "status", "--porcelain") == ""
