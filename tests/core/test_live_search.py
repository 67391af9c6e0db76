"""A fast CLI on a big vault (DESIGN §10): while a workspace keeps the index current, ``wikitui search`` skips its scan.

Observable: a page changed on disk but not yet told to the index (that is the
running workspace's watcher's job) is not re-indexed by ``search`` while a live
workspace says it keeps the index; with no live file, or a stale one, ``search``
scans and finds it, as it always did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from wikitui.cli import main
from wikitui.core.live import heartbeat
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace

WORD = "quokkaflux"


@pytest.fixture
def vault(sample_vault, capsys):
    """The sample vault, indexed, then a page changed behind the index's back."""
    assert main(["index", "--vault", str(sample_vault)]) == 0
    page = sample_vault / "wiki/characters/dinah.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\nDinah once met a {WORD}.\n", encoding="utf-8")
    capsys.readouterr()
    return sample_vault


def search_paths(vault, capsys) -> list[str]:
    assert main(["search", WORD, "--json", "--vault", str(vault)]) == 0
    return [hit["path"] for hit in json.loads(capsys.readouterr().out)]


def write_live(vault, pid: int, heartbeat: float) -> None:
    (vault / ".wikitui/live").write_text(json.dumps({"pid": pid, "heartbeat": heartbeat, "started": heartbeat}))


def dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)


def test_with_a_live_workspace_search_trusts_its_watcher_and_does_not_scan(vault, capsys):
    heartbeat.beat(Vault.open(vault))  # this test process is the running workspace
    assert search_paths(vault, capsys) == []  # the change is the live workspace's to index
    assert search_paths(vault, capsys) == []
    (vault / ".wikitui/live").unlink()
    assert search_paths(vault, capsys) == ["wiki/characters/dinah.md"]  # no workspace: search scans


@pytest.mark.parametrize("stale", ["dead process", "old heartbeat", "heartbeat from the future", "garbage",
                                   "not a pid"])
def test_with_a_stale_live_file_search_scans(vault, capsys, stale):
    now = time.time()
    if stale == "dead process":
        write_live(vault, dead_pid(), now)
    elif stale == "old heartbeat":
        write_live(vault, os.getpid(), now - heartbeat.STALE_S - 5)
    elif stale == "heartbeat from the future":
        write_live(vault, os.getpid(), now + 3600)
    elif stale == "garbage":
        (vault / ".wikitui/live").write_bytes(b"\x00{not json")
    else:
        (vault / ".wikitui/live").write_text(json.dumps({"pid": True, "heartbeat": now}))
    assert search_paths(vault, capsys) == ["wiki/characters/dinah.md"]


def test_a_workspace_keeps_the_live_file_while_its_index_is_current_and_removes_it_when_stopped(sample_vault):
    ws = Workspace.open(sample_vault)
    ws.load_graph()
    stop = threading.Event()
    keeper = threading.Thread(target=ws.keep_live, args=(stop,))
    keeper.start()
    try:
        time.sleep(0.3)
        assert not ws.kept_current_elsewhere()  # the index is not current yet: no claim
        ws.update_index()
        deadline = time.monotonic() + 60
        while not ws.kept_current_elsewhere() and time.monotonic() < deadline:
            time.sleep(0.1)
        info = heartbeat.read(ws.vault)
        assert info is not None and info["pid"] == os.getpid()
    finally:
        stop.set()
        keeper.join()
        ws.close()
    assert not (sample_vault / ".wikitui/live").exists()


def test_release_leaves_another_workspaces_live_file(sample_vault):
    vault = Vault.open(sample_vault)
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    write_live(sample_vault, os.getppid(), time.time())
    heartbeat.release(vault)
    assert heartbeat.read(vault)["pid"] == os.getppid()
