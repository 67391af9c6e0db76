"""Two notes of one name in two folders: every consumer of link resolution follows Obsidian's rule (issue 24.4).

The rule (Obsidian's ``getFirstLinkpathDest``): an exact vault path wins; otherwise the
note in the linking note's own folder; otherwise the shortest path string. The fixture
is ``tests/data/twin_notes_vault`` (see ``TWIN_VAULT`` in tests/conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from wikitui.core.agent.citations import check_citations
from wikitui.core.agent.tools import ToolBox
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.search.facade import SearchIndex
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint import run_lint

from tests.cli_run import run_wikitui

SYNC = "Obsidian Sync/Security and privacy.md"
PUBLISH = "Obsidian Publish/Security and privacy.md"
SYNC_OVERVIEW = "Obsidian Sync/Sync overview.md"
PUBLISH_OVERVIEW = "Obsidian Publish/Publish overview.md"
DOMAINS = "Obsidian Publish/Custom domains.md"


def load(root: Path) -> LinkGraph:
    return LinkGraph.load(Vault.open(root))


def targets(graph: LinkGraph, path: str) -> dict[str, str | None]:
    return {link.target: target for link, target in graph.outgoing(path)}


def test_a_note_links_to_the_same_named_note_in_its_own_folder(twin_vault):
    graph = load(twin_vault)
    assert targets(graph, PUBLISH_OVERVIEW)["Security and privacy"] == PUBLISH
    assert targets(graph, SYNC_OVERVIEW)["Security and privacy"] == SYNC
    # From the root, where no note has the name, the shortest path wins.
    assert targets(graph, "Home.md")["Security and privacy"] == SYNC
    # An exact vault path wins over the linking note's own folder.
    assert targets(graph, DOMAINS)["Obsidian Sync/Security and privacy"] == SYNC
    assert graph.unresolved() == []


def test_backlinks_of_each_note_are_the_links_that_reach_it(twin_vault):
    graph = load(twin_vault)
    assert [b.source for b in graph.backlinks(PUBLISH)] == [PUBLISH_OVERVIEW]
    assert [b.source for b in graph.backlinks(SYNC)] == ["Home.md", DOMAINS, SYNC_OVERVIEW]


def test_the_cached_graph_keeps_the_resolution_by_folder(twin_vault):
    load(twin_vault)
    warm = load(twin_vault)
    assert warm.parsed_count == 0
    assert [b.source for b in warm.backlinks(PUBLISH)] == [PUBLISH_OVERVIEW]


def test_an_edited_page_resolves_again_from_its_folder(twin_vault):
    graph = load(twin_vault)
    (twin_vault / DOMAINS).write_text("# Custom domains\n\nSee [[Security and privacy]].\n", encoding="utf-8")
    graph.update_path(DOMAINS)
    assert targets(graph, DOMAINS)["Security and privacy"] == PUBLISH
    assert [b.source for b in graph.backlinks(PUBLISH)] == [DOMAINS, PUBLISH_OVERVIEW]
    assert DOMAINS not in [b.source for b in graph.backlinks(SYNC)]


def test_lint_finds_no_orphan_where_a_folder_links_its_own_note(twin_vault):
    vault = Vault.open(twin_vault)
    report = run_lint(vault, LinkGraph.load(vault), text_checks=False)
    orphans = {p.path for p in report.problems if p.check == "orphan"}
    # Nothing links Home or Custom domains; both Security notes are reached.
    assert orphans == {"Home.md", DOMAINS}
    assert report.counts["broken-link"] == 0


def test_citations_resolve_from_the_page_they_are_written_in(twin_vault):
    graph = load(twin_vault)
    text = "Passwords: see [[Security and privacy]]."
    assert [c.path for c in check_citations(text, graph, from_path=PUBLISH_OVERVIEW)] == [PUBLISH]
    assert [c.path for c in check_citations(text, graph, from_path=SYNC_OVERVIEW)] == [SYNC]


def test_the_agents_links_tool_shows_each_notes_own_links(twin_vault):
    vault = Vault.open(twin_vault)
    graph = LinkGraph.load(vault)
    index = SearchIndex(vault)
    index.update(graph)
    box = ToolBox(vault, graph, index, ChangesetBuilder(vault, graph))
    out = box.call("links", json.dumps({"path": PUBLISH_OVERVIEW}))
    assert f"[[Security and privacy]] → {PUBLISH}" in out.text
    back = box.call("links", json.dumps({"path": PUBLISH})).text
    assert "Backlinks (1):" in back and f"- {PUBLISH_OVERVIEW}:3:" in back
    back = box.call("links", json.dumps({"path": SYNC})).text
    assert "Backlinks (3):" in back and PUBLISH_OVERVIEW not in back
    index.close()


def test_the_links_command_reports_the_folder_rule(twin_vault):
    out = run_wikitui(["--vault", str(twin_vault), "links", PUBLISH_OVERVIEW, "--json"])
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [(o["target"], o["path"]) for o in data["outgoing"]] == [("Security and privacy", PUBLISH)]
    back = json.loads(run_wikitui(["--vault", str(twin_vault), "links", PUBLISH, "--json"]).stdout)
    assert [b["path"] for b in back["backlinks"]] == [PUBLISH_OVERVIEW]


def test_a_title_shared_by_two_pages_goes_to_the_one_in_the_linking_folder(tmp_path):
    (tmp_path / ".obsidian").mkdir()
    for rel, title in (("a/one.md", "Shared"), ("bb/two.md", "Shared")):
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text(f"---\ntitle: {title}\n---\n", encoding="utf-8")
    (tmp_path / "bb/linker.md").write_text("[[Shared]]\n", encoding="utf-8")
    (tmp_path / "root.md").write_text("[[Shared]]\n", encoding="utf-8")
    graph = load(tmp_path)
    assert targets(graph, "bb/linker.md")["Shared"] == "bb/two.md"
    assert targets(graph, "root.md")["Shared"] == "a/one.md"  # the shortest path


def test_a_path_qualified_link_prefers_the_exact_path_then_the_linking_folder(tmp_path):
    (tmp_path / ".obsidian").mkdir()
    for rel in ("a/x.md", "b/a/x.md", "c/a/x.md", "c/a/more/a/x.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# x\n", encoding="utf-8")
    (tmp_path / "b/p.md").write_text("[[a/x]]\n", encoding="utf-8")
    (tmp_path / "c/a/x2.md").write_text("[[x]]\n", encoding="utf-8")
    graph = load(tmp_path)
    assert targets(graph, "b/p.md")["a/x"] == "a/x.md"  # exact vault path, though b/a/x.md is "here"
    assert targets(graph, "c/a/x2.md")["x"] == "c/a/x.md"
    (tmp_path / "a/x.md").unlink()
    graph = load(tmp_path)
    assert targets(graph, "b/p.md")["a/x"] == "b/a/x.md"  # now the linking folder's own a/x


def test_a_note_moved_to_the_other_folder_keeps_reaching_the_note_it_linked(twin_vault):
    vault = Vault.open(twin_vault)
    graph = LinkGraph.load(vault)
    builder = ChangesetBuilder(vault, graph)
    builder.move(PUBLISH_OVERVIEW, "Obsidian Sync/Publish overview.md", "regroup")
    apply_changeset(vault, graph, builder.build("edit", "Regroup"))
    moved = (twin_vault / "Obsidian Sync/Publish overview.md").read_text(encoding="utf-8")
    # From Obsidian Sync/ the bare name would reach the Sync note: the link now names its note by path.
    assert "Read [[Obsidian Publish/Security and privacy]] before you publish." in moved
    assert targets(graph, "Obsidian Sync/Publish overview.md") == {"Obsidian Publish/Security and privacy": PUBLISH}
    assert [b.source for b in graph.backlinks(PUBLISH)] == ["Obsidian Sync/Publish overview.md"]


def test_a_note_moved_into_a_folder_with_its_namesake_is_linked_by_the_new_name(twin_vault):
    vault = Vault.open(twin_vault)
    graph = LinkGraph.load(vault)
    builder = ChangesetBuilder(vault, graph)
    # Sync overview links [[Security and privacy]] (its own folder's note); that note moves away.
    builder.move(SYNC, "Obsidian Sync/archive/Security and privacy.md", "archive")
    apply_changeset(vault, graph, builder.build("edit", "Archive"))
    overview = (twin_vault / SYNC_OVERVIEW).read_text(encoding="utf-8")
    assert "[[Obsidian Sync/archive/Security and privacy]]" in overview
    assert targets(graph, SYNC_OVERVIEW) == {"Obsidian Sync/archive/Security and privacy":
                                             "Obsidian Sync/archive/Security and privacy.md"}
    assert [b.source for b in graph.backlinks(PUBLISH)] == [PUBLISH_OVERVIEW]


def test_an_mcp_clients_links_and_lint_follow_the_folder_rule(twin_vault):
    from wikitui.core.mcp.session import McpSession
    from wikitui.core.workspace import Workspace

    ws = Workspace.open(twin_vault)
    session = McpSession(ws, client="test-client")
    ok, text = session.call("links", {"path": PUBLISH_OVERVIEW})
    assert ok and f"[[Security and privacy]] → {PUBLISH}" in text
    ok, text = session.call("links", {"path": PUBLISH})
    assert ok and "Backlinks (1):" in text and PUBLISH_OVERVIEW in text
    ok, text = session.call("lint", {"path": PUBLISH})
    assert ok and "orphan: 0" in text and "- orphan" not in text
    ws.close()


def test_a_page_on_a_past_day_follows_its_links_by_the_same_rule(twin_vault):
    from wikitui.core.changes.dated import page_named_then

    vault = Vault.open(twin_vault)
    graph = LinkGraph.load(vault)
    assert page_named_then(vault, graph, "Security and privacy", PUBLISH_OVERVIEW) == PUBLISH
    assert page_named_then(vault, graph, "Security and privacy", SYNC_OVERVIEW) == SYNC
    assert graph.find_page("Security and privacy") == SYNC  # a name typed by the user: the shortest path


def test_the_graph_view_joins_each_note_to_the_notes_that_reach_it(twin_vault):
    from wikitui.core.vault.graph_model import GraphIndex, local_graph

    index = GraphIndex(load(twin_vault))
    assert set(local_graph(index, PUBLISH).nodes) == {PUBLISH, PUBLISH_OVERVIEW}
    assert set(local_graph(index, SYNC).nodes) == {SYNC, SYNC_OVERVIEW, "Home.md", DOMAINS}
    assert PUBLISH not in index.orphans
