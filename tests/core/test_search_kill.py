"""An index build killed at any point: the next ``wikitui search`` answers, and leaves no litter.

The real indexing child (``python -m wikitui.core.search.child_process``, what the TUI
starts) is run with a hook that SIGKILLs it right before its Nth file operation
in the index folder (create, rename, delete, temp folder), for every N the build
performs: inside a segment's writing, between the segment and its table of
contents, between the rename and Whoosh's clean-up. After each kill,
``wikitui search`` must find what the vault holds, and the folder must hold only
the index (DESIGN §8 "Recovery is complete").
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from whoosh.filedb.filestore import FileStorage
from whoosh.index import TOC

from wikitui import cli
from wikitui.core.search.facade import SearchIndex
from wikitui.core.search.whoosh.backend import index_name
from wikitui.core.vault.layout import Vault

ROOT = Path(__file__).resolve().parents[2]

#: Installs the kill hook on Whoosh's file storage, then runs the indexing child as the TUI does.
CHILD = r"""
import atexit, os, signal, sys, runpy
from whoosh.filedb import filestore

kill_at = int(os.environ["WIKITUI_TEST_KILL_AT"])
stop_at = int(os.environ.get("WIKITUI_TEST_STOP_AT", "0"))
done = [0]

def hooked(method):
    original = getattr(filestore.FileStorage, method)
    def run(self, *args, **kwargs):
        done[0] += 1
        if done[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if done[0] == stop_at:
            sys.stdout.write("stopped\n")
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGSTOP)  # frozen mid-build, holding its locks, until SIGCONT
        return original(self, *args, **kwargs)
    setattr(filestore.FileStorage, method, run)

for method in ("create_file", "rename_file", "delete_file", "temp_storage", "destroy"):
    hooked(method)
atexit.register(lambda: sys.stderr.write(f"file operations: {done[0]}\n"))
sys.argv = ["child_process", sys.argv[1]]
runpy.run_module("wikitui.core.search.child_process", run_name="__main__")
"""


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_vault(root: Path) -> Path:
    write(root, "WIKI.md", "# Schema\n")
    write(root, "wiki/index.md", "# Index\n\n- [[Queen]]\n")
    write(root, "wiki/rabbit.md", "---\ntitle: Rabbit\ntype: entity\nsummary: late\n---\n\nThe white rabbit is late.\n")
    write(root, "wiki/queen.md", "---\ntitle: Queen\ntype: entity\nsummary: angry\n---\n\nOff with their heads.\n")
    write(root, "raw/chapter-1.md", "# Chapter 1\n\nAlice follows a rabbit down the hole.\n")
    return root


def start_child(vault: Path, kill_at: int, stop_at: int = 0) -> subprocess.Popen:
    """Start the indexing child, killed before its ``kill_at``-th file operation, stopped before its ``stop_at``-th."""
    env = {
        **os.environ,
        "WIKITUI_TEST_KILL_AT": str(kill_at),
        "WIKITUI_TEST_STOP_AT": str(stop_at),
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(vault)],
        stdin=subprocess.PIPE,  # held open: closing it would ask the child to stop
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=str(vault),
        env=env,
    )


def run_child(vault: Path, kill_at: int) -> tuple[int, str]:
    """Run the indexing child, killed before its ``kill_at``-th file operation (0: never)."""
    proc = start_child(vault, kill_at)
    out, err = proc.communicate(timeout=120)
    assert kill_at or '"finished": true' in out, out + err
    return proc.returncode, err


def operations(vault: Path) -> int:
    """How many file operations an unkilled run of the child performs on ``vault``."""
    code, err = run_child(vault, 0)
    assert code == 0, err
    return int(re.search(r"file operations: (\d+)", err).group(1))


def search_json(vault: Path, query: str, capsys) -> list[str]:
    """``wikitui search --json QUERY`` (the real command line, in this process): the paths found."""
    capsys.readouterr()
    code = cli.main(["search", "--vault", str(vault), "--json", query])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err
    return [hit["path"] for hit in json.loads(out)]


def assert_no_litter(vault: Path) -> None:
    """The index folder holds one table of contents, the segments it names, the lock and the manifest: nothing else."""
    folder = vault / ".wikitui" / "index"
    name = index_name()
    toc = TOC.read(FileStorage(str(folder)), name)
    segments = {seg.segment_id() for seg in toc.segments}
    pattern = TOC._segment_pattern(name)
    extra = []
    for entry in os.listdir(folder):
        if entry in (f"_{name}_{toc.generation}.toc", "manifest.pickle", f"{name}_WRITELOCK"):
            continue
        m = pattern.match(entry)
        if m is None or m.group(1) not in segments:
            extra.append(entry)
    assert extra == []


def test_a_first_build_killed_at_any_point_then_search_answers(tmp_path, capsys):
    total = operations(make_vault(tmp_path / "count"))
    assert total >= 15  # the hook sees the whole build: temp folder, segment files, table of contents, clean-up
    for kill_at in range(1, total + 1):
        vault = tmp_path / f"first-{kill_at}"
        make_vault(vault)
        code, err = run_child(vault, kill_at)
        assert code == -9, f"kill point {kill_at} of {total} was not reached: {err}"
        found = search_json(vault, "rabbit", capsys)
        assert sorted(found) == ["raw/chapter-1.md", "wiki/rabbit.md"], f"after a kill at {kill_at}"
        assert_no_litter(vault)


def test_an_update_killed_at_any_point_keeps_the_previous_index(tmp_path, capsys):
    def prepare(vault: Path) -> Path:
        make_vault(vault)
        with SearchIndex(Vault.open(vault)) as index:
            index.update()
        # Two segments' worth of change, so the child also merges them (optimize) after its update.
        write(vault, "wiki/queen.md", "---\ntitle: Queen\ntype: entity\nsummary: angry\n---\n\nThe zebracorn flees.\n")
        write(vault, "wiki/hatter.md", "---\ntitle: Hatter\ntype: entity\nsummary: mad\n---\n\nTea at six.\n")
        return vault

    total = operations(prepare(tmp_path / "count"))
    for kill_at in range(1, total + 1):
        vault = prepare(tmp_path / f"update-{kill_at}")
        code, err = run_child(vault, kill_at)
        assert code == -9, f"kill point {kill_at} of {total} was not reached: {err}"
        # The previous index answers as it is, before anything brings it up to date.
        with SearchIndex(Vault.open(vault)) as index:
            assert [hit.path for hit in index.search("white rabbit")] == ["wiki/rabbit.md"]
        # The next `wikitui search` completes the update and finds the new text.
        assert search_json(vault, "zebracorn", capsys) == ["wiki/queen.md"], f"after a kill at {kill_at}"
        assert search_json(vault, "tea", capsys) == ["wiki/hatter.md"]
        assert search_json(vault, "heads", capsys) == []
        assert_no_litter(vault)


@pytest.mark.parametrize("kill_at", [1, 5, 9])
def test_a_killed_build_leaves_no_file_that_breaks_a_reader_that_does_not_write(tmp_path, kill_at, capsys):
    """A search whose update is skipped (another writer holds the lock) still answers from what is there."""
    vault = make_vault(tmp_path / "v")
    with SearchIndex(Vault.open(vault)) as index:
        index.update()
    write(vault, "wiki/hatter.md", "---\ntitle: Hatter\n---\n\nTea.\n")
    code, _ = run_child(vault, kill_at)
    assert code == -9
    index = SearchIndex(Vault.open(vault))
    assert [hit.path for hit in index.search("heads")] == ["wiki/queen.md"]
    index.close()


@pytest.mark.parametrize("stop_at", [1, 5, 12])
def test_a_search_while_another_process_builds_the_index_never_breaks_it(tmp_path, stop_at, capsys):
    """The TUI killed by ``timeout`` leaves its indexing child at work; ``wikitui search`` runs beside it.

    The search must neither fail nor wipe the folder under the child (which then
    failed on its vanished ``.ctmp`` file): it answers from what is committed, with
    a note, and the child finishes its build.
    """
    vault = make_vault(tmp_path / "v")
    child = start_child(vault, 0, stop_at)
    try:
        lines = iter(child.stdout.readline, "")
        assert "stopped\n" in lines  # (progress lines before it) frozen mid-build, holding its locks
        capsys.readouterr()
        code = cli.main(["search", "--vault", str(vault), "--json", "rabbit"])
        out, err = capsys.readouterr()
    finally:
        child.send_signal(signal.SIGCONT)
        rest, child_err = child.communicate(timeout=120)
    assert child.returncode == 0 and '"finished": true' in rest, rest + child_err  # its build was left alone
    assert code == 0 and "Traceback" not in err
    # Nothing committed yet: no hits, and a note that the index is being built elsewhere.
    assert json.loads(out) == [] and err.startswith("note: ")
    assert sorted(search_json(vault, "rabbit", capsys)) == ["raw/chapter-1.md", "wiki/rabbit.md"]
    assert_no_litter(vault)
