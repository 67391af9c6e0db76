"""Commands that only read recover an interrupted apply first (issue 20.6; DESIGN §8 "Recovery is complete").

A child process applying a 19-file changeset is killed (SIGKILL, by the fault
hook) at several points of its write path. Then ONE reader runs on what it left:
``search``, ``lint``, ``links``, ``pending list`` (in-process, as a person types
them) or an MCP session's ``search`` tool and ``wiki://page`` resource. What each
reports must be exactly what it reports on the vault wholly before or wholly after
the apply, never a mix; the vault it leaves is whole; and a changeset whose pages
are all written is never listed as pending.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.core.test_kill import build_vault, check_whole, content, killed, run_child
from wikitui.cli import main
from wikitui.core.changes.journal import JOURNAL_NAME


def _cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    notes = [line for line in out.err.splitlines() if "interrupted" in line]
    assert len(notes) <= 1 and all(" was rolled back" in n or " was completed" in n for n in notes), out.err
    return code, out.out


def _mcp(root: Path) -> tuple:
    from wikitui.core.mcp.session import McpSession
    from wikitui.core.workspace import Workspace

    with Workspace.open(root) as ws:  # what `wikitui mcp` opens at start-up
        session = McpSession(ws, client="test")
        found = session.call("search", {"query": "revised", "limit": 20})
        page = session.read_resource("wiki://page/wiki/concepts/C3.md")
        moved = session.call("read", {"path": "wiki/archive/Moved.md"})
        return found, page, moved


READERS = {
    "search": lambda root, capsys: _cli(capsys, "search", "revised", "--json", "--limit", "50", "--vault", str(root)),
    "lint": lambda root, capsys: _cli(capsys, "lint", "--json", "--vault", str(root)),
    "links": lambda root, capsys: _cli(capsys, "links", "C1", "--json", "--vault", str(root)),
    "pending list": lambda root, capsys: _cli(capsys, "pending", "list", "--json", "--vault", str(root)),
    "mcp": lambda root, capsys: _mcp(root),
}


@pytest.fixture(scope="module")
def states(tmp_path_factory):
    """The base vault, its changeset, the number of write steps, and what each reader says before and after."""
    tmp = tmp_path_factory.mktemp("reading")
    base, cs_id = build_vault(tmp / "base")
    ref = tmp / "ref"
    shutil.copytree(base, ref)
    status, total = run_child(ref, "apply", cs_id, 0)  # counting the steps only
    assert status == 0 and total > 60
    return base, ref, cs_id, total


def _say(reader: str, base: Path, tmp: Path, capsys, name: str):
    root = tmp / name
    shutil.copytree(base, root)
    try:
        return READERS[reader](root, capsys)
    finally:
        shutil.rmtree(root)


@pytest.mark.parametrize("reader", list(READERS))
def test_a_reader_after_a_kill_sees_the_vault_wholly_old_or_wholly_new(states, reader, tmp_path, capsys):
    base, ref, cs_id, total = states
    old, new = content(base), content(ref)
    said_old = _say(reader, base, tmp_path, capsys, "say-old")
    said_new = _say(reader, ref, tmp_path, capsys, "say-new")
    assert said_old != said_new  # the reader tells the two apart
    if reader == "pending list":
        assert [c["id"] for c in json.loads(said_old[1])] == [cs_id] and json.loads(said_new[1]) == []
    torn = 0
    for n in sorted({total // 5, 2 * total // 5, 3 * total // 5, 4 * total // 5, total - 2, total - 1, total}):
        root = tmp_path / f"k{n}"
        shutil.copytree(base, root)
        status, _ = run_child(root, "apply", cs_id, n)
        assert killed(status), f"step {n} of {total}: the child was not killed"
        assert (root / ".wikitui" / JOURNAL_NAME).exists()
        now = content(root)
        torn += now not in (old, new)
        said = READERS[reader](root, capsys)
        where = f"{reader} after a kill before step {n} of {total}"
        state = check_whole(root, cs_id, old, new, where)  # recovered: whole, pending and history to match
        assert said == (said_old if state == "old" else said_new), where
        shutil.rmtree(root)
    assert torn  # some kills really left half an apply for the reader


def test_a_vault_that_cannot_be_written_is_read_as_it_is_with_one_line_saying_so(states, tmp_path, capsys,
                                                                                 monkeypatch):
    import errno

    from wikitui.core.changes import recovery

    base, _ref, cs_id, total = states
    root = tmp_path / "ro"
    shutil.copytree(base, root)
    status, _ = run_child(root, "apply", cs_id, total // 2)
    assert killed(status)

    def read_only(vault, **_options):  # what a read-only vault does (chmod cannot show it to a test running as root)
        raise PermissionError(errno.EROFS, "Read-only file system", str(vault.state_dir / "write.lock"))

    monkeypatch.setattr(recovery, "write_lock", read_only)
    assert main(["pending", "list", "--json", "--vault", str(root)]) == 0
    out = capsys.readouterr()
    assert [c["id"] for c in json.loads(out.out)] == [cs_id]
    assert out.err.count("\n") == 1 and "not writable" in out.err and "reading the vault as it is" in out.err
    assert (root / ".wikitui" / JOURNAL_NAME).exists()  # left for a run that can write


def test_an_mcp_server_already_running_recovers_an_apply_killed_since_before_it_answers(states, tmp_path):
    from wikitui.core.mcp.session import McpSession
    from wikitui.core.workspace import Workspace

    base, _ref, cs_id, total = states
    root = tmp_path / "served"
    shutil.copytree(base, root)
    old = content(root)
    with Workspace.open(root) as ws:
        session = McpSession(ws, client="test")
        first = session.call("search", {"query": "revised"})
        assert first == (True, first[1]) and "concepts/C" not in first[1]
        status, _ = run_child(root, "apply", cs_id, total // 2)  # another process, killed mid-apply
        assert killed(status) and content(root) != old
        assert session.call("search", {"query": "revised"}) == first  # the graph and the index follow the rollback
        assert "revised" not in session.read_resource("wiki://page/wiki/concepts/C3.md")
    assert content(root) == old and not (root / ".wikitui" / JOURNAL_NAME).exists()


def test_search_while_a_workspace_runs_does_not_answer_from_an_index_of_the_torn_vault(states, tmp_path, capsys):
    from wikitui.core.live import heartbeat
    from wikitui.core.workspace import Workspace

    base, _ref, cs_id, total = states
    root = tmp_path / "live"
    shutil.copytree(base, root)
    status, _ = run_child(root, "apply", cs_id, total // 2)
    assert killed(status)
    with Workspace.open(root, recover=False) as ws:  # the running workspace's watcher indexed what the kill left
        ws.update_index()
        assert len(ws.index.search("revised", limit=50)) > 0  # pages of the half-done apply
        heartbeat.beat(ws.vault)  # this process is that workspace: `search` would skip its own scan
    try:
        code, out = _cli(capsys, "search", "revised", "--json", "--vault", str(root))
    finally:
        (root / ".wikitui" / "live").unlink(missing_ok=True)
    assert code == 0 and json.loads(out) == []  # rolled back, and the index brought up to date with it
