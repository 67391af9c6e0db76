"""Kills at every point of an apply (issue 9): nothing torn, nothing lost, no temp file left.

A child process applies a changeset of 19 files (edits, new pages, a delete, a
move with its link rewrites, index.md above and below its marker, log.md) and is
stopped with SIGKILL right before its Nth write step, for every N, by the fault
hook (``WIKITUI_FAULT_KILL_AT``): deterministic, no sleeps. After each kill the
next start's recovery must leave every file wholly old or wholly new, all of them
the same way, the pending changeset intact or applied, and no temp file behind;
kills during that recovery too.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path

import pytest

from tests.core.changes_util import INDEX_HEAD, git, git_init, make_vault, open_vault, page
from wikitui.core.base import faults
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.asset_proposals import propose_asset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.journal import JOURNAL_NAME
from wikitui.core.changes.lock import lock_held
from wikitui.core.changes.pending import PendingStore
from wikitui.core.changes.recovery import recover
from wikitui.core.changes.undo import list_records
from wikitui.core.vault.layout import Vault

#: The start of a PNG (with the NUL bytes that make it binary).
PICTURE = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")


def build_vault(root: Path) -> tuple[Path, str]:
    """A vault and a pending changeset touching 19 files; returns (root, changeset id)."""
    pages = {f"concepts/C{i}.md": page(f"C{i}", f"# C{i}\n\nAbout C{i}. See [[Moved]].\n", updated="2026-01-0{}".format(i % 9 + 1))
             for i in range(10)}
    pages["topics/Moved.md"] = page("Moved", "# Moved\n\nA page that moves.\n")
    pages["topics/Gone.md"] = page("Gone", "# Gone\n\nA page to delete.\n")
    pages["crlf.md"] = "\ufeff# Windows page\r\n\r\nOne.\r\nTwo.\r\n"
    pages["assets/chart.png"] = PICTURE + b"old"  # a chart's picture: a binary file change (issue 12)
    make_vault(root, pages, index=INDEX_HEAD)
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    for i in range(8):
        b.edit(f"concepts/C{i}.md", [{"old": f"About C{i}.", "new": f"About C{i}, revised."}], "revise")
    for i in range(4):
        b.new_page(f"new/N{i}.md", page(f"N{i}", f"# N{i}\n\nNew, links [[C{i}]].\n"), "new")
    b.delete("topics/Gone.md", "obsolete")
    b.move("topics/Moved.md", "archive/Moved.md", "archive it")
    b.edit("index.md", [{"old": "My notes about this wiki.", "new": "My notes about this wiki, kept by wikitui."}], "")
    b.edit("crlf.md", [{"old": "Two.\n", "new": "Two, edited.\n"}], "")
    propose_asset(b, "wiki/assets/chart.png", PICTURE + b"new \xff\xfe", "redrawn")
    propose_asset(b, "wiki/assets/other.png", PICTURE + b"another", "a new chart")
    cs = b.build("ingest", "A big ingest", model="test/model", tokens=100, cost=0.01)
    assert len({f.path for f in cs.files} | {f.new_path for f in cs.files if f.new_path}) >= 15
    PendingStore(vault).save(cs)
    return root, cs.id


def content(root: Path) -> dict[str, bytes]:
    """Every file of the vault outside .wikitui/ and .git/."""
    out = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".wikitui/", ".git/")):
            out[rel] = path.read_bytes()
    return out


def temp_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.name.endswith(".tmp") or ".wikitui-" in p.name)


def run_child(root: Path, job: str, arg: str, kill_at: int) -> tuple[int, int]:
    """Fork a child that runs ``job`` with the fault hook armed; (how it ended, steps it took)."""
    count = root.parent / f"steps-{os.getpid()}"
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 3
        try:
            os.environ[faults.KILL_AT_ENV] = str(kill_at)
            faults.reset()
            vault = Vault.open(root)
            if job == "apply":
                _vault, graph = open_vault(root)
                apply_changeset(vault, graph, PendingStore(vault).load(arg))
            else:
                recover(vault)
            count.write_text(str(faults.steps_taken()))
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    steps = int(count.read_text()) if count.exists() else -1
    count.unlink(missing_ok=True)
    return status, steps


@pytest.fixture
def fast_tmp(tmp_path):
    """A temp folder in memory when the machine has one: a hundred applies cost fsyncs, not the test's point."""
    import tempfile

    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="wikitui-kill-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def killed(status: int) -> bool:
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def check_whole(root: Path, cs_id: str, old: dict[str, bytes], new: dict[str, bytes], where: str) -> str:
    """After recovery: all old or all new, pending and history to match, no temp file, no journal."""
    vault = Vault.open(root)
    assert not (vault.state_dir / JOURNAL_NAME).exists(), where
    assert not lock_held(vault), where  # the killed writer's lock went with it
    assert temp_files(root) == [], where
    now = content(root)
    for rel in sorted(set(now) | set(old) | set(new)):
        assert now.get(rel) in (old.get(rel), new.get(rel)), f"{where}: {rel} is neither old nor new"
    pending = PendingStore(vault).list()
    if now == old:
        assert [cs.id for cs in pending] == [cs_id] and list_records(vault) == [], where
        return "old"
    assert now == new, f"{where}: a mix of old and new files: {sorted(r for r in now if now.get(r) != new.get(r))}"
    assert pending == [] and [r["changeset"] for _, r in list_records(vault)] == [cs_id], where
    return "new"


def test_a_kill_at_any_step_of_an_apply_leaves_it_wholly_undone_or_wholly_done(fast_tmp):
    tmp_path = fast_tmp
    base, cs_id = build_vault(tmp_path / "base")
    old = content(base)
    ref = tmp_path / "ref"
    shutil.copytree(base, ref)
    status, total = run_child(ref, "apply", cs_id, 0)  # armed, counting only
    print(f"{total} write steps")
    assert status == 0 and total > 60
    new = content(ref)
    assert new != old and temp_files(ref) == []
    outcomes = set()
    for n in range(1, total + 1):
        root = tmp_path / f"k{n}"
        shutil.copytree(base, root)
        status, _ = run_child(root, "apply", cs_id, n)
        assert killed(status), f"step {n} of {total}: the child was not killed"
        if n % 9 == 0:  # and kill the recovery itself, at each of its steps, before the one that completes
            m = 1
            while True:
                status, _ = run_child(root, "recover", "", m)
                if not killed(status):
                    break
                m += 1
        recover(Vault.open(root))
        outcomes.add(check_whole(root, cs_id, old, new, f"killed before step {n} of {total}"))
        shutil.rmtree(root)
    assert outcomes == {"old", "new"}  # kills before the journal said "written" undo, after it complete


@needs_git
def test_a_kill_after_the_writes_of_a_git_vault_is_completed_with_both_commits(tmp_path):
    base, cs_id = build_vault(tmp_path / "base")
    git_init(base)
    mine = base / "wiki/concepts/C1.md"
    mine.write_text(mine.read_text(encoding="utf-8").replace("# C1\n", "# C1, my title (not committed)\n"),
                    encoding="utf-8")
    ref = tmp_path / "ref"
    shutil.copytree(base, ref)
    status, total = run_child(ref, "apply", cs_id, 0)
    assert status == 0
    kills = 0
    for n in range(total, 0, -1):  # the last steps: after the journal said "written"
        root = tmp_path / f"g{n}"
        shutil.copytree(base, root)
        status, _ = run_child(root, "apply", cs_id, n)
        assert killed(status)
        recover(Vault.open(root))
        log = git(root, "log", "--format=%s", "-3").splitlines()
        if log[0].startswith("wikitui: ingest"):
            assert log[1] == f"wikitui: your edits before {cs_id}" and log[2] == "initial"
            assert git(root, "status", "--porcelain", "--", "wiki") == ""
            kills += 1
        shutil.rmtree(root)
        if kills >= 4:
            break
    assert kills >= 4


KILL_SCRIPT = textwrap.dedent("""
    import sys
    from wikitui.core.changes.apply import apply_changeset
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    vault = Vault.open(sys.argv[1])
    graph = LinkGraph.load(vault, use_cache=False, save_cache=False)
    apply_changeset(vault, graph, PendingStore(vault).load(sys.argv[2]))
""")


def test_the_environment_variable_stops_a_fresh_wikitui_process(tmp_path):
    root, cs_id = build_vault(tmp_path / "v")
    old = content(root)
    env = dict(os.environ, **{faults.KILL_AT_ENV: "25"})
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(root), cs_id], env=env, capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert content(root) != old and (root / ".wikitui" / JOURNAL_NAME).exists()
    report = recover(Vault.open(root))
    assert report.action == "rolled back" and content(root) == old and temp_files(root) == []
