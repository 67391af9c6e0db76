"""Kills during a batch (issue 23.2): after ``--resume`` every source is proposed exactly once, none lost.

Run one source at a time and with plans running ahead (``batch_concurrency = 3``: the
write steps of the plans ahead interleave with the current source's write, so the points
land between a plan-ahead's reservation and its write as well).

A child process (forked, as in test_kill.py) runs ``wikitui ingest raw/papers/ --yes``
against the fake server and is stopped with SIGKILL right before its Nth write step
by the fault hook (``WIKITUI_FAULT_KILL_AT``): deterministic, no sleeps. The points
chosen are the ones that matter most (right before each changeset's rename into
pending/, right after it, right before the queue says ``proposed``) plus a spread of
others. Then another child runs ``wikitui ingest --resume --yes`` (a fresh batch when
the kill came before the queue existed) and the vault must hold one pending
changeset per source, each the one its queue entry names.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import traceback
from contextlib import redirect_stderr, redirect_stdout

import pytest

from tests.core.batch_util import batch_files, ingesting, pending_by_source
from tests.core.test_batch import PAPERS
from wikitui.core.base import faults
from wikitui.core.vault.layout import Vault

SOURCES = ["raw/papers/a.md", "raw/papers/b.md", "raw/papers/c.md"]


@pytest.fixture(params=[1, 3], ids=["one-at-a-time", "plans-ahead"])
def base(sample_vault, request):
    """The sample with three papers; ``batch_concurrency`` 1, or 3 (while one source writes, two plan ahead)."""
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui/config.toml").write_text(f"batch_concurrency = {request.param}\n")
    for rel, body in PAPERS.items():
        if rel.startswith("raw/papers/"):
            (sample_vault / rel).parent.mkdir(parents=True, exist_ok=True)
            (sample_vault / rel).write_text(body)
    from wikitui.core.workspace import Workspace

    from wikitui.core.agent.llm import load_litellm

    Workspace.open(sample_vault).update_index()  # built once: each copy's child starts with it current
    load_litellm()  # imported once, here: every forked child has it
    return sample_vault


def run_child(root, argv: list[str], kill_at: int | None, marks_file=None) -> int:
    """Fork a child running ``wikitui ARGV`` (the hook armed at ``kill_at``); its wait status.

    With ``marks_file`` the child writes there, as JSON, the write steps taken when each
    changeset was saved pending and each queue state was saved.
    """
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 70
        try:
            if kill_at is None:
                os.environ.pop(faults.KILL_AT_ENV, None)
            else:
                os.environ[faults.KILL_AT_ENV] = str(kill_at)
            faults.reset()
            import faulthandler

            hung = open(root.parent / f"hung-{os.getpid()}.txt", "w")  # a hung child says where, and ends
            faulthandler.dump_traceback_later(60, exit=True, file=hung)
            marks: list = []
            if marks_file is not None:
                _mark_saves(marks)
            from wikitui.cli import main

            with open(os.devnull, "w") as sink, redirect_stdout(io.StringIO()), redirect_stderr(sink):
                code = main(argv + ["--vault", str(root)])
            if marks_file is not None:
                marks_file.write_text(json.dumps({"marks": marks, "total": faults.steps_taken()}))
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return status


def _mark_saves(marks: list) -> None:
    """Record the step count after each pending save and each queue state change (in the child only)."""
    from wikitui.core.batch.queue import Batch
    from wikitui.core.changes.pending import PendingStore

    save, set_state = PendingStore.save, Batch.set_state

    def saved(self, changeset):
        save(self, changeset)
        marks.append(["pending", faults.steps_taken()])

    def state(self, entry, new, **kw):
        set_state(self, entry, new, **kw)
        marks.append([new, faults.steps_taken()])

    PendingStore.save, Batch.set_state = saved, state


def killed(status: int) -> bool:
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def exit_code(status: int) -> int:
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1


def check_once_each(root, where: str) -> None:
    """One pending changeset per source, the one its queue entry names; every entry proposed."""
    by_source = pending_by_source(Vault.open(root))
    assert sorted(by_source) == SOURCES, where
    assert all(len(ids) == 1 for ids in by_source.values()), f"{where}: {by_source}"
    queues = batch_files(root)
    assert len(queues) == 1, where
    entries = {e["source"]: e for e in queues[0]["entries"]}
    for source in SOURCES:
        assert entries[source]["state"] == "proposed", f"{where}: {entries[source]}"
        assert entries[source]["changeset"] == by_source[source][0], where


def test_a_kill_anywhere_in_a_batch_then_resume_proposes_each_source_once(fake_llm, base, tmp_path):
    fake_llm.script(*ingesting(2000))
    ref = tmp_path / "ref"
    shutil.copytree(base, ref)
    marks_file = tmp_path / "marks.json"
    status = run_child(ref, ["ingest", "raw/papers/", "--yes"], 0, marks_file)  # armed, counting only
    assert exit_code(status) == 0, status
    check_once_each(ref, "without a kill")
    counted = json.loads(marks_file.read_text())
    marks, total = counted["marks"], counted["total"]
    pending_at = [n for what, n in marks if what == "pending"]
    proposed_at = [n for what, n in marks if what == "proposed"]
    assert len(pending_at) == len(proposed_at) == 3 and total >= max(proposed_at)
    points = set()
    for n in pending_at:
        points |= {n, n + 1}  # before the changeset's rename into pending/, and right after it
    points |= set(proposed_at)  # the changeset pending, the queue about to say so
    points |= set(range(1, total + 1, max(1, total // 6)))  # and a spread of others
    outcomes = set()
    for n in sorted(points):
        root = tmp_path / f"k{n}"
        shutil.copytree(base, root)
        status = run_child(root, ["ingest", "raw/papers/", "--yes"], n)
        assert killed(status), f"step {n} of {total}: the child was not killed"
        queues = batch_files(root)
        outcomes.add("no queue yet" if not queues else
                     "some proposed" if any(e["state"] == "proposed" for e in queues[0]["entries"]) else "queue")
        status = run_child(root, ["ingest", "--resume", "--yes"] if queues else ["ingest", "raw/papers/", "--yes"],
                           None)
        assert exit_code(status) == 0, f"killed before step {n} of {total}: resume ended {status}"
        check_once_each(root, f"killed before step {n} of {total}")
        shutil.rmtree(root)
    # Killed with a changeset pending but not yet "proposed" in its queue, then a NEW batch over the same folder,
    # then --resume of the old one: still each source once.
    root = tmp_path / "again"
    shutil.copytree(base, root)
    assert killed(run_child(root, ["ingest", "raw/papers/", "--yes"], proposed_at[0]))
    assert exit_code(run_child(root, ["ingest", "raw/papers/", "--yes"], None)) == 0
    assert exit_code(run_child(root, ["ingest", "--resume", "--yes"], None)) == 0  # the old batch, settled
    assert exit_code(run_child(root, ["ingest", "--resume", "--yes"], None)) == 2  # nothing left to resume
    by_source = pending_by_source(Vault.open(root))
    assert sorted(by_source) == SOURCES and all(len(ids) == 1 for ids in by_source.values()), by_source
    print(f"{len(points)} kills of {total} steps: {sorted(points)}")
    assert {"queue", "some proposed"} <= outcomes
