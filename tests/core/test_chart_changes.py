"""A chart proposed by the model through the fake server: a binary file change from proposal to undo (DESIGN §9)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.core.changes_util import git, git_init, make_vault, page
from tests.core.test_session import Chat
from tests.fakeserver import text, tool_call, tool_calls
from wikitui.core.agent.events import ChangesetReady, ToolFinished
from wikitui.core.changes.model import FileConflict
from wikitui.core.changes.pending import PendingStore
from wikitui.core.base.errors import UnsafePath
from wikitui.core.vault.layout import Vault
from wikitui.core.outputs.charts import render_from_sidecar
from wikitui.core.workspace import Workspace

SPEC = {
    "kind": "bar", "title": "Tea parties by chapter", "x_label": "chapter", "y_label": "parties",
    "series": [{"name": "parties", "x": ["6", "7", "8"], "y": [0, 3, 1]}],
}
PNG = "wiki/assets/tea-parties.png"
SIDECAR = "wiki/assets/tea-parties.chart.json"
PAGE = page("Tea parties", "How many tea parties each chapter has:\n\n![[assets/tea-parties.png]]\n")


@pytest.fixture
def root(tmp_path):
    return make_vault(tmp_path / "v", {"concepts/Hatter.md": page("Hatter", "The Hatter hosts a tea party.\n")})


async def _propose(fake_llm, root, spec=SPEC):
    fake_llm.script(
        tool_calls(("propose_chart", {"path": "assets/tea-parties.png", "spec": spec, "reason": "asked for a chart"}),
                   ("propose_page", {"path": "wiki/concepts/Tea parties.md", "content": PAGE, "reason": "the chart"})),
        text("Here is the chart: ![[assets/tea-parties.png]]"),
    )
    chat = Chat(root)
    done = await chat.session.ask("Chart the tea parties per chapter")
    return chat, done


async def test_a_chart_becomes_a_pending_binary_change_that_applies_and_undoes(fake_llm, root):
    chat, done = await _propose(fake_llm, root)
    cs = done.changeset
    assert cs is not None and chat.of(ChangesetReady)
    assert not (root / PNG).exists()  # nothing written before the review
    by_path = {fc.path: fc for fc in cs.files}
    png = by_path[PNG]
    assert png.binary and png.action == "create" and [h.kind for h in png.hunks] == ["binary"]
    assert not by_path[SIDECAR].binary and json.loads(by_path[SIDECAR].new_text)["title"] == SPEC["title"]

    # Pending storage keeps the bytes exactly (base64 in the JSON).
    stored = PendingStore(chat.vault).load(cs.id)
    assert {fc.path: fc.binary for fc in stored.files}[PNG]
    assert json.loads((root / PendingStore(chat.vault).relpath(cs.id)).read_text())["files"][0]["new_text"][:4] \
        == "iVBO"  # base64 of the PNG signature

    with Workspace.open(root) as ws:
        ws.load_graph()
        result = ws.apply(stored)
    assert PNG in result.written and SIDECAR in result.written
    on_disk = (root / PNG).read_bytes()
    assert on_disk.startswith(b"\x89PNG\r\n\x1a\n")
    umask = os.umask(0)
    os.umask(umask)
    assert (root / PNG).stat().st_mode & 0o777 == 0o666 & ~umask  # a new file's mode, as for a page
    assert on_disk == render_from_sidecar((root / SIDECAR).read_text(encoding="utf-8"))

    with Workspace.open(root) as ws:
        ws.load_graph()
        ws.undo()
    assert not (root / PNG).exists() and not (root / SIDECAR).exists()
    assert not (root / "wiki/concepts/Tea parties.md").exists()


async def test_a_bad_spec_is_an_error_result_and_the_turn_goes_on(fake_llm, root):
    bad = dict(SPEC, series=[{"name": "parties", "x": ["6", "7"], "y": [0, "n/a", 1]}])
    fake_llm.script(
        tool_call("propose_chart", path="assets/tea-parties.png", spec=bad, reason="chart"),
        tool_call("propose_chart", path="assets/tea-parties.png", spec=SPEC, reason="chart, fixed"),
        text("Done."),
    )
    chat = Chat(root)
    done = await chat.session.ask("Chart it")
    finished = chat.of(ToolFinished)
    assert not finished[0].ok and "series[0].y[1]" in finished[0].result and "x and y" in finished[0].result
    assert finished[1].ok
    # The error went back to the model as the tool's result, and the model carried on.
    tool_msgs = [m for m in fake_llm.requests[1]["messages"] if m["role"] == "tool"]
    assert "invalid chart spec" in tool_msgs[-1]["content"]
    assert done.changeset is not None and {fc.path for fc in done.changeset.files} == {PNG, SIDECAR}


async def test_a_chart_path_outside_assets_is_refused(fake_llm, root):
    fake_llm.script(tool_call("propose_chart", path="concepts/x.png", spec=SPEC, reason="chart"), text("ok"))
    chat = Chat(root)
    done = await chat.session.ask("Chart it")
    assert not chat.of(ToolFinished)[0].ok and "assets/" in chat.of(ToolFinished)[0].result
    assert done.changeset is None


async def test_a_picture_changed_on_disk_is_a_conflict_and_nothing_is_written(fake_llm, root):
    (root / "wiki/assets").mkdir()
    (root / PNG).write_bytes(b"\x89PNG\r\n\x1a\n\x00old picture")
    chat, done = await _propose(fake_llm, root)
    png = {fc.path: fc for fc in done.changeset.files}[PNG]
    assert png.action == "edit" and png.binary
    (root / PNG).write_bytes(b"\x89PNG\r\n\x1a\n\x00edited in another program")
    with Workspace.open(root) as ws:
        ws.load_graph()
        with pytest.raises(FileConflict, match="binary"):
            ws.apply(done.changeset)
    assert (root / PNG).read_bytes() == b"\x89PNG\r\n\x1a\n\x00edited in another program"
    assert not (root / SIDECAR).exists() and not (root / "wiki/concepts/Tea parties.md").exists()


async def test_git_commits_the_picture_and_the_patch_applies_with_git(fake_llm, root):
    git_init(root)
    chat, done = await _propose(fake_llm, root)
    patch = done.changeset.to_patch()
    assert "GIT binary patch" in patch
    check = subprocess.run(["git", "apply", "--check", "-"], cwd=root, input=patch.encode(), capture_output=True)
    assert check.returncode == 0, check.stderr.decode()
    # The patch really makes the picture: applied in a scratch copy, the bytes are the proposal's.
    scratch = root.parent / "scratch"
    subprocess.run(["git", "clone", "-q", str(root), str(scratch)], check=True)
    subprocess.run(["git", "apply", "-"], cwd=scratch, input=patch.encode(), check=True)
    assert (scratch / PNG).read_bytes() == {fc.path: fc for fc in done.changeset.files}[PNG].new_text.encode(
        "utf-8", "surrogateescape")

    with Workspace.open(root) as ws:
        ws.load_graph()
        result = ws.apply(done.changeset)
    assert result.commit
    committed = git(root, "show", "--name-only", "--format=", result.commit).split()
    assert PNG in committed and SIDECAR in committed
    assert git(root, "status", "--porcelain").strip() == ""


async def test_undo_of_a_new_version_puts_the_old_picture_back_and_refuses_to_undo_over_an_edit(fake_llm, root):
    (root / "wiki/assets").mkdir()
    old = b"\x89PNG\r\n\x1a\n\x00the old picture"
    (root / PNG).write_bytes(old)
    chat, done = await _propose(fake_llm, root)
    with Workspace.open(root) as ws:
        ws.load_graph()
        result = ws.apply(done.changeset)
        assert result.unresolved_links == []  # the page's ![[assets/tea-parties.png]] finds the picture
        ws.undo()
    assert (root / PNG).read_bytes() == old

    with Workspace.open(root) as ws:  # apply again, then someone edits the picture: undo does not merge it
        ws.load_graph()
        chat, done = await _propose(fake_llm, root)
        ws.apply(done.changeset)
        (root / PNG).write_bytes(b"\x89PNG\r\n\x1a\n\x00touched up by hand")
        with pytest.raises(FileConflict, match="binary"):
            ws.undo()
    assert (root / PNG).read_bytes() == b"\x89PNG\r\n\x1a\n\x00touched up by hand"


async def test_the_picture_is_one_decision_and_an_undecided_one_stays_pending(fake_llm, root):
    chat, done = await _propose(fake_llm, root)
    cs = done.changeset
    sidecar_hunk = next(fc for fc in cs.files if fc.path == SIDECAR).hunks[0].id
    with Workspace.open(root) as ws:
        ws.load_graph()
        result = ws.apply(cs, {sidecar_hunk})  # the spec only; the picture undecided
    assert (root / SIDECAR).exists() and not (root / PNG).exists()
    left = PendingStore(Vault.open(root)).load(cs.id)
    assert [(fc.path, fc.binary, [h.kind for h in fc.hunks]) for fc in left.files if fc.path == PNG] == [
        (PNG, True, ["binary"])]
    assert result.remaining is not None
    with Workspace.open(root) as ws:
        ws.load_graph()
        ws.apply(left)
    assert (root / PNG).read_bytes() == render_from_sidecar((root / SIDECAR).read_text(encoding="utf-8"))


def test_a_tampered_pending_picture_is_refused_whole(root):
    from wikitui.core.changes.model import Changeset

    store = PendingStore(Vault.open(root))
    bad = {"id": "cs-20260101-aaaaaa", "op": "query", "title": "x", "created": "2026-01-01T00:00:00",
           "files": [{"path": PNG, "action": "create", "base_hash": None, "base_text": "",
                      "new_text": "not base64 at all!", "binary": True,
                      "hunks": [{"id": "f0h0", "file": 0, "header": "picture", "kind": "binary"}]}]}
    with pytest.raises(ValueError, match="base64"):
        Changeset.from_dict(bad)
    outside = dict(bad["files"][0], path="wiki/concepts/x.png", new_text="iVBORw0KGgo=")
    cs = Changeset.from_dict(dict(bad, files=[outside]))
    with Workspace.open(root) as ws:
        ws.load_graph()
        with pytest.raises(UnsafePath):
            ws.apply(cs)
    assert not (root / "wiki/concepts/x.png").exists()
    assert store.list() == []


async def test_the_review_marks_a_picture_changed_on_disk_as_a_conflict(fake_llm, root):
    from wikitui.core.changes.disk_status import disk_status

    (root / "wiki/assets").mkdir()
    (root / PNG).write_bytes(b"\x89PNG\r\n\x1a\n\x00old")
    chat, done = await _propose(fake_llm, root)
    png = {fc.path: fc for fc in done.changeset.files}[PNG]
    assert disk_status(chat.vault, png).state == "same"
    (root / PNG).write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe edited")  # bytes that are not UTF-8 too
    status = disk_status(chat.vault, png)
    assert status.state == "conflict" and "binary" in status.why


async def test_a_picture_saved_while_the_apply_writes_is_a_conflict_and_everything_is_rolled_back(fake_llm, root,
                                                                                                   monkeypatch):
    from wikitui.core.changes.journal import Journal

    (root / "wiki/assets").mkdir()
    (root / PNG).write_bytes(b"\x89PNG\r\n\x1a\n\x00old")
    chat, done = await _propose(fake_llm, root)
    real_save, saved = Journal.save, []
    mine = b"\x89PNG\r\n\x1a\n\x00saved by an image editor during the apply"

    def save_then_edit_the_picture(self):
        real_save(self)
        if not saved:  # the apply has read and planned every file; it has not written one
            saved.append(1)
            (root / PNG).write_bytes(mine)

    monkeypatch.setattr(Journal, "save", save_then_edit_the_picture)
    with Workspace.open(root) as ws:
        ws.load_graph()
        with pytest.raises(FileConflict, match="binary"):
            ws.apply(done.changeset)
    assert (root / PNG).read_bytes() == mine
    assert not (root / SIDECAR).exists() and not (root / "wiki/concepts/Tea parties.md").exists()


def test_a_headless_ingest_prints_the_picture_as_a_binary_patch_git_applies(fake_llm, sample_vault):
    from tests.core.test_headless import fast_client, run
    from wikitui.core.agent.headless import run_ingest

    git_init(sample_vault)
    fake_llm.script(
        tool_call("read", path="raw/chapter-07.md"),
        text("Plan: chart the tea party's guests."),
        tool_calls(("propose_chart", {"path": "assets/guests.png", "reason": "guests per kind", "spec": {
            "kind": "pie", "title": "Guests", "series": [{"name": "", "x": ["Hatter", "Hare", "Dormouse"],
                                                          "y": [1, 1, 1]}]}})),
        text("Proposed a chart."),
    )
    code, out, err = run(run_ingest, sample_vault, "raw/chapter-07.md", client=fast_client())
    assert code == 0, err
    assert "GIT binary patch" in out and "+++ b/wiki/assets/guests.chart.json" in out
    check = subprocess.run(["git", "apply", "--check", "-"], cwd=sample_vault, input=out.encode(), capture_output=True)
    assert check.returncode == 0, check.stderr.decode()
    subprocess.run(["git", "apply", "-"], cwd=sample_vault, input=out.encode(), check=True)
    sidecar = (sample_vault / "wiki/assets/guests.chart.json").read_text(encoding="utf-8")
    assert (sample_vault / "wiki/assets/guests.png").read_bytes() == render_from_sidecar(sidecar)


async def test_the_history_record_keeps_a_picture_as_base64(fake_llm, root):
    from wikitui.core.changes.undo import list_records

    chat, done = await _propose(fake_llm, root)
    with Workspace.open(root) as ws:
        ws.load_graph()
        ws.apply(done.changeset)
        (_rel, record), = list_records(ws.vault)
        entry = next(f for f in record["files"] if f["path"] == PNG)
        assert entry["binary"] is True and entry["old"] is None and entry["new"].startswith("iVBOR")
        size = (root / _rel).stat().st_size
        assert size < 1.5 * len((root / PNG).read_bytes()) + 20_000  # base64, not six-character escapes
        ws.undo()
    assert not (root / PNG).exists()
