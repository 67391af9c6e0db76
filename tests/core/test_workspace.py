"""The Workspace: one open vault, held from a script with no event loop, as the CLI and the TUI hold it."""

from __future__ import annotations

import pytest

from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.base.errors import UnknownPage
from wikitui.core.search import child_process
from wikitui.core.search.facade import SearchIndex
from wikitui.core.search.results import UpdateStats
from wikitui.core.workspace import IndexState, Workspace

OWLS = "---\ntitle: Owls of Wonderland\ntype: concept\nsummary: Owls.\n---\n\n# Owls\n\nThe quibbletoad owls practise zyxomancy with the [[Gryphon]].\n"


def paths(hits) -> list[str]:
    return [h.path for h in hits]


def test_a_script_opens_a_workspace_loads_it_and_searches(sample_vault):
    ws = Workspace.open(sample_vault)
    assert ws.graph is None and ws.index_state is IndexState.PENDING and ws.search_index is None
    graph = ws.load_graph()
    assert ws.graph is graph and ws.find_page("Gryphon") == "wiki/characters/gryphon.md"
    with pytest.raises(UnknownPage, match="no page named 'Nobody'"):
        ws.find_page("Nobody")
    stats = ws.update_index()
    assert stats.total == len(graph.pages) + len(graph.raw_files)
    assert ws.index_state is IndexState.READY and ws.search_index is ws.index
    assert paths(ws.index.search("gryphon"))[0] == "wiki/characters/gryphon.md"


def test_files_changed_outside_reach_the_graph_and_the_index(sample_vault):
    ws = Workspace.open(sample_vault)
    ws.load_graph()
    ws.update_index()
    (sample_vault / "wiki" / "owls.md").write_text(OWLS, encoding="utf-8")
    (sample_vault / "wiki" / "themes").mkdir(exist_ok=True)
    changed = ws.files_changed(["wiki/owls.md", "wiki/themes"])  # a folder is not a file change
    assert changed.paths == {"wiki/owls.md"} and changed.warnings == [] and changed.index.added == 1
    assert "wiki/owls.md" in [b.source for b in ws.graph.backlinks("wiki/characters/gryphon.md")]
    assert paths(ws.index.search("quibbletoad zyxomancy")) == ["wiki/owls.md"]
    (sample_vault / "wiki" / "owls.md").unlink()
    changed = ws.files_changed(["wiki/owls.md"])
    assert changed.index.removed == 1 and "wiki/owls.md" not in ws.graph.pages
    assert ws.index.search("quibbletoad zyxomancy") == []


def test_changes_seen_while_the_index_builds_are_indexed_when_it_is_ready(sample_vault, monkeypatch):
    SearchIndex(Workspace.open(sample_vault).vault).update()  # the index a previous session left
    ws = Workspace.open(sample_vault)
    ws.load_graph()
    seen: list = []

    def a_build_meanwhile(root, progress, stop, note=None):
        # While the child indexes, the watcher reports a new page: it cannot go in yet.
        (root / "wiki" / "owls.md").write_text(OWLS, encoding="utf-8")
        seen.append((ws.index_state, ws.files_changed(["wiki/owls.md"]).index))
        return True, ""

    monkeypatch.setattr(child_process, "run_indexing", a_build_meanwhile)
    assert ws.build_index(lambda done, total: None, lambda: False)
    assert seen == [(IndexState.BUILDING, None)]
    assert ws.index_state is IndexState.READY and paths(ws.index.search("quibbletoad zyxomancy")) == ["wiki/owls.md"]


def test_a_failed_build_says_why_and_changes_wait_no_longer(sample_vault, monkeypatch):
    ws = Workspace.open(sample_vault)
    ws.load_graph()
    monkeypatch.setattr(child_process, "run_indexing", lambda root, progress, stop, note=None: (False, "the disk is full"))
    assert not ws.build_index(lambda done, total: None, lambda: False)
    assert ws.index_state is IndexState.FAILED and ws.index_error == "search index: the disk is full"
    assert ws.search_index is None
    (sample_vault / "wiki" / "owls.md").write_text(OWLS, encoding="utf-8")
    assert ws.files_changed(["wiki/owls.md"]).index is None and "wiki/owls.md" in ws.graph.pages


def test_an_index_held_by_another_process_keeps_the_changes_for_a_retry(sample_vault, monkeypatch):
    ws = Workspace.open(sample_vault)
    ws.load_graph()
    ws.update_index()
    real = ws.index.update_paths
    answers = iter([UpdateStats(busy=True)])
    monkeypatch.setattr(ws.index, "update_paths", lambda p, graph=None: next(answers, None) or real(p, graph))
    (sample_vault / "wiki" / "owls.md").write_text(OWLS, encoding="utf-8")
    assert ws.files_changed(["wiki/owls.md"]).index_busy
    assert ws.index.search("quibbletoad zyxomancy") == []
    assert ws.retry_index().added == 1
    assert paths(ws.index.search("quibbletoad zyxomancy")) == ["wiki/owls.md"]
    assert ws.retry_index() is None  # nothing left to retry


def test_apply_and_undo_keep_the_graph_and_the_index_current(sample_vault):
    ws = Workspace.open(sample_vault)
    ws.load_graph()
    ws.update_index()
    builder = ChangesetBuilder(ws.vault, ws.graph)
    builder.new_page("wiki/owls.md", OWLS, "a new concept")
    changeset = builder.build("query", "Owls")
    ws.pending.save(changeset)
    result = ws.apply(changeset)
    assert "wiki/owls.md" in result.written and ws.pending.list() == []
    assert "wiki/owls.md" in ws.graph.pages and paths(ws.index.search("quibbletoad zyxomancy")) == ["wiki/owls.md"]
    assert ws.vault.index_path in ws.touched(result)  # index.md was regenerated with the new page
    undone = ws.undo()
    assert "wiki/owls.md" in undone.deleted and "wiki/owls.md" not in ws.graph.pages
    assert ws.index.search("quibbletoad zyxomancy") == []


def test_a_workspace_with_its_index_off_neither_indexes_nor_keeps_changes(sample_vault):
    with Workspace.open(sample_vault) as ws:
        ws.load_graph()
        ws.turn_index_off()
        (sample_vault / "wiki" / "owls.md").write_text(OWLS, encoding="utf-8")
        assert ws.files_changed(["wiki/owls.md"]).index is None
        assert ws.retry_index() is None and ws.search_index is None


def test_an_index_that_fails_after_an_apply_is_a_warning_the_pages_are_written(sample_vault, monkeypatch):
    ws = Workspace.open(sample_vault)
    ws.load_graph()
    ws.update_index()

    def broken(paths, graph=None):
        raise OSError("No space left on device")

    monkeypatch.setattr(ws.index, "update_paths", broken)
    builder = ChangesetBuilder(ws.vault, ws.graph)
    builder.new_page("wiki/owls.md", OWLS, "a new concept")
    result = ws.apply(builder.build("query", "Owls"))
    assert (sample_vault / "wiki" / "owls.md").is_file() and "wiki/owls.md" in ws.graph.pages
    assert any(w.startswith("search index not updated (run `wikitui index`)") for w in result.warnings)
