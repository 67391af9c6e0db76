"""Stacked changesets (DESIGN §13): a batch's later source sees, and edits, what an earlier one proposed.

Two sources against the fake server: the first proposes a new page, the second finds it
through ``search``, ``read``, ``list_pages`` and ``links`` and edits it. Its changeset is
recorded against the first one's text: it applies after the first, and is a conflict
(nothing written) without it.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from tests.core.batch_util import batch_files
from tests.fakeserver import Dynamic, text, tool_call
from wikitui.cli import main
from wikitui.core.changes.builder import FileConflict
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace

PAGE = "wiki/concepts/gizmo.md"
GIZMO = ("---\ntitle: Gizmo\ntype: concept\nsummary: A small device.\nsources: [raw/papers/a.md]\n---\n\n"
         "# Gizmo\n\nA gizmo is a small device, from [[raw/papers/a.md]].\n")
#: What source b's write phase calls, in order, before it answers.
B_CALLS = [("search", {"query": "gizmo device", "scope": "wiki"}), ("read", {"path": PAGE}),
           ("list_pages", {"folder": "concepts"}), ("links", {"path": "Gizmo"}),
           ("propose_page", {"path": "wiki/concepts/gizmos.md", "content": GIZMO.replace("Gizmo", "Gizmos"),
                             "reason": "a twin"}),
           ("propose_edit", {"path": PAGE, "edits": [{"old": "a small device, from",
                                                      "new": "a small device (also [[raw/papers/b.md]]), from"}],
                             "reason": "what b adds"})]


@pytest.fixture
def vault(sample_vault):
    (sample_vault / "raw/papers").mkdir(parents=True)
    (sample_vault / "raw/papers/a.md").write_text("# Paper A\n\nGizmos are small devices.\n")
    (sample_vault / "raw/papers/b.md").write_text("# Paper B\n\nGizmos are cheap too.\n")
    return sample_vault


def _source(messages: list[dict]) -> str:
    first = next(m for m in messages if m.get("role") == "user" and "Ingest raw/" in str(m.get("content")))
    return str(first["content"]).split("Ingest ", 1)[1].split()[0].rstrip(".")


def stacking(results: dict[str, str]):
    """The fake model: a proposes the gizmo page; b looks it up every way and edits it (``results``: b's tool
    results by tool name)."""

    def answer(body: dict):
        messages = body.get("messages", [])
        source = _source(messages)
        at = next((i for i, m in enumerate(messages) if m.get("role") == "user"
                   and "plan is approved" in str(m.get("content"))), None)
        if at is None:  # the plan
            if messages[-1].get("role") == "tool":
                return text(f"Plan: the gizmo page, from {source}.")
            return tool_call("read", path=source)
        done = [m for m in messages[at:] if m.get("role") == "tool"]
        if source.endswith("a.md"):
            return text("Proposed it.") if done else tool_call("propose_page", path=PAGE, content=GIZMO,
                                                                reason="a new concept")
        if done:
            results[B_CALLS[len(done) - 1][0]] = str(done[-1].get("content"))
        if len(done) == len(B_CALLS):
            return text("Edited the gizmo page.")
        name, args = B_CALLS[len(done)]
        return tool_call(name, **args)

    return [Dynamic(answer) for _ in range(30)]


def _ingest(vault) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["ingest", "raw/papers/", "--vault", str(vault), "--yes"])
    return code, err.getvalue()


def _by_path(vault) -> dict[str, list]:
    """Path -> [(changeset, its file change)] of every pending changeset, in the batch's order."""
    [queue] = batch_files(vault)
    order = [e["changeset"] for e in queue["entries"]]
    out: dict[str, list] = {}
    for cs in sorted(PendingStore(Vault.open(vault)).list(), key=lambda c: order.index(c.id)):
        for fc in cs.files:
            out.setdefault(fc.path, []).append((cs, fc))
    return out


def test_the_second_source_sees_and_edits_the_page_the_first_proposed(fake_llm, vault):
    results: dict[str, str] = {}
    fake_llm.script(*stacking(results))
    code, err = _ingest(vault)
    assert code == 0, err
    assert not (vault / PAGE).exists()  # nothing written: both are pending
    # b's turn saw a's page everywhere: search, read, list_pages, links.
    assert PAGE in results["search"] and "Gizmo" in results["search"]
    assert "A gizmo is a small device" in results["read"] and "as proposed by changeset" in results["read"]
    assert f"{PAGE} — Gizmo [concept]: A small device." in results["list_pages"]
    assert f'{PAGE} ("Gizmo")' in results["links"] and "raw/papers/a.md" in results["links"]
    assert results["propose_edit"].startswith("recorded 1 edit")
    # Dedup as it goes: a's page is the same subject as b's "Gizmos".
    assert results["propose_page"].startswith(f"error: {PAGE} (title 'Gizmo') looks like the same subject")
    assert "wiki/concepts/gizmos.md" not in _by_path(vault)
    [(cs_a, create), (cs_b, edit)] = _by_path(vault)[PAGE]
    assert create.action == "create" and edit.action == "edit"  # an edit, not a second page
    assert edit.base_text == create.new_text  # recorded against a's proposed text
    assert "(also [[raw/papers/b.md]])" in edit.new_text

    ws = Workspace.open(vault)
    # a rejected: b's edit has nothing to apply to, and says so; nothing is written.
    with pytest.raises(FileConflict, match="not applied"):
        ws.apply(cs_b)
    assert not (vault / PAGE).exists()
    # a applied, then b: b applies cleanly on top of it.
    ws.apply(cs_a)
    ws.apply(cs_b)
    on_disk = (vault / PAGE).read_text()
    assert "A gizmo is a small device (also [[raw/papers/b.md]]), from [[raw/papers/a.md]]." in on_disk


def test_an_edit_over_an_earlier_edit_merges_when_the_earlier_one_was_rejected(sample_vault):
    """b edits a page a edited: rejected a, b's edit is merged three-way onto the page as it is on disk."""
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.changes.overlay import Overlay
    from wikitui.core.vault.graph import LinkGraph

    vault = Vault.open(sample_vault)
    graph = LinkGraph.load(vault)
    overlay = Overlay(graph)
    page = "wiki/characters/dodo.md"
    lines = (sample_vault / page).read_text().splitlines()
    first, last = lines[-1], next(line for line in lines[6:] if line.strip() and line != lines[-1])
    a = ChangesetBuilder(vault, overlay.graph, overlay)
    a.edit(page, [{"old": first, "new": first + " (a)"}])
    cs_a = a.build("ingest", "a")
    overlay.add(cs_a)
    b = ChangesetBuilder(vault, overlay.graph, overlay)
    b.edit(page, [{"old": last, "new": last + " (b)"}])
    cs_b = b.build("ingest", "b")
    [fc] = [f for f in cs_b.files if f.path == page]
    assert fc.base_text == cs_a.files[0].new_text
    ws = Workspace.open(sample_vault)
    result = ws.apply(cs_b)  # a never applied
    text_now = (sample_vault / page).read_text()
    assert last + " (b)" in text_now and first + " (a)" not in text_now and page in result.merged


def test_the_overlay_replaces_stale_search_hits_and_hides_what_it_deletes(sample_vault):
    """search finds an edited page by its proposed words (once, as proposed), read and list_pages follow."""
    import json

    from wikitui.core.agent.tools import ToolBox
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.changes.overlay import Overlay
    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.vault.graph import LinkGraph

    vault = Vault.open(sample_vault)
    graph = LinkGraph.load(vault)
    index = SearchIndex(vault)
    index.update(graph)
    overlay = Overlay(graph)
    earlier = ChangesetBuilder(vault, overlay.graph, overlay)
    dodo = "wiki/characters/dodo.md"
    last = (sample_vault / dodo).read_text().splitlines()[-1]
    earlier.edit(dodo, [{"old": last, "new": last + " A zyzzyva sat on it."}])
    earlier.delete("wiki/characters/dinah.md")
    overlay.add(earlier.build("ingest", "source 1"))
    box = ToolBox(vault, overlay.graph, index, ChangesetBuilder(vault, overlay.graph, overlay), overlay=overlay)

    def call(name, **args):
        return box.call(name, json.dumps(args)).text

    assert f"1. {dodo} — " in call("search", query="zyzzyva") and "page, proposed" in call("search", query="zyzzyva")
    dodo_hits = call("search", query="dodo", limit=50)
    assert dodo_hits.count(dodo) == 1 and "page, proposed" in dodo_hits.split(dodo, 1)[1].split("\n", 1)[0]
    assert "wiki/characters/dinah.md" not in call("search", query="dinah", limit=50)
    assert "zyzzyva" in call("read", path="Dodo")
    assert "deleted (or moved away) by changeset" in call("read", path="wiki/characters/dinah.md")
    assert "wiki/characters/dinah.md" not in call("list_pages", folder="characters")
    assert "is deleted (or moved away) by changeset" in call("propose_edit", path="wiki/characters/dinah.md",
                                                             edits=[{"old": "a", "new": "b"}], reason="r")


def test_a_resumed_batch_stacks_on_what_it_proposed_before_and_not_on_what_was_discarded(sample_vault):
    from wikitui.core.batch.queue import Entry, new_batch
    from wikitui.core.batch.runner import BatchRunner
    from wikitui.core.changes.builder import ChangesetBuilder

    ws = Workspace.open(sample_vault)
    store = PendingStore(ws.vault)
    made = []
    for name in ("gizmo", "widget", "doohickey"):
        b = ChangesetBuilder(ws.vault, ws.require_graph())
        b.new_page(f"concepts/{name}.md", GIZMO.replace("Gizmo", name.title()))
        made.append(b.build("ingest", name))
        store.save(made[-1])
    store.discard(made[2].id)  # rejected meanwhile
    entries = [Entry(f"raw/{n}.md", "proposed", changeset=cs.id) for n, cs in zip("abc", made)]
    entries.append(Entry("raw/d.md"))
    runner = BatchRunner(ws, None, None, client=object())
    overlay = runner._overlay(new_batch(ws.vault, "raw/", None, entries))
    assert overlay.pages() == ["wiki/concepts/gizmo.md", "wiki/concepts/widget.md"]
    assert "wiki/concepts/gizmo.md" in overlay.graph.pages and "wiki/concepts/doohickey.md" not in overlay.graph.pages
