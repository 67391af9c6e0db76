"""Per-page policy (DESIGN §11): `llm: locked` refuses every proposal, `llm: append` only added lines,
checked by the tools and again at apply."""

from __future__ import annotations

import io

import pytest

from tests.core.changes_util import make_vault, open_vault, page
from tests.fakeserver import text, tool_call, tool_calls
from wikitui.core.agent.headless import run_ingest
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.tools import ToolBox
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.pending import PendingStore
from wikitui.core.changes.policy import page_policy
from wikitui.core.config.settings import load_settings
from wikitui.core.vault.frontmatter_edit import set_frontmatter_keys
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace


def locked(title: str, body: str, policy: str = "locked") -> str:
    return page(title, body).replace("---\n\n", f"llm: {policy}\n---\n\n", 1)


@pytest.fixture
def root(tmp_path):
    return make_vault(tmp_path / "v", {
        "Locked.md": locked("Locked", "# Locked\n\nThe human's own words.\n"),
        "Diary.md": locked("Diary", "# Diary\n\n- day one\n", "append"),
        "Free.md": page("Free", "# Free\n\nSee [[Locked]] and [[Diary]].\n"),
    })


def box(root) -> ToolBox:
    vault, graph = open_vault(root)
    return ToolBox(vault, graph, builder=ChangesetBuilder(vault, graph))


def test_page_policy_reads_the_frontmatter_and_ignores_anything_else():
    assert page_policy(locked("A", "x\n")) == "locked"
    assert page_policy("\ufeff" + locked("A", "x\n", "Append")) == "append"
    assert page_policy(locked("A", "x\n", "whatever")) is None
    assert page_policy("# no frontmatter\n\nllm: locked\n") is None
    assert page_policy("---\nllm: [locked\n---\n") is None  # does not parse, and no plain `llm:` line
    assert page_policy(None) is None


@pytest.mark.parametrize("name, args", [
    ("propose_edit", {"path": "Locked.md", "edits": [{"old": "own words", "new": "words"}], "reason": "r"}),
    ("propose_edit", {"path": "Locked.md", "edits": [{"old": "own words.", "new": "own words.\nMore."}],
                      "reason": "even adding"}),
    ("propose_page", {"path": "Locked.md", "content": "# Rewritten\n", "reason": "r"}),
    ("propose_delete", {"path": "Locked.md", "reason": "r"}),
    ("propose_move", {"path": "Locked.md", "new_path": "Elsewhere.md", "reason": "r"}),
])
def test_a_locked_page_refuses_every_proposal_naming_the_policy(root, name, args):
    import json

    tools = box(root)
    outcome = tools.call(name, json.dumps(args))
    assert not outcome.ok
    assert outcome.text.startswith("error: refused by policy") and "llm: locked" in outcome.text
    assert tools.builder.build("edit", "t") is None  # nothing recorded


def test_an_append_page_accepts_an_addition_and_refuses_an_edit(root):
    import json

    tools = box(root)
    change = tools.call("propose_edit", json.dumps(
        {"path": "Diary.md", "edits": [{"old": "- day one\n", "new": "- day 1\n"}], "reason": "fix"}))
    assert not change.ok and "llm: append" in change.text and "removes or changes 1 existing line" in change.text
    delete = tools.call("propose_delete", json.dumps({"path": "Diary.md", "reason": "gone"}))
    assert not delete.ok and "deletes the page" in delete.text
    add = tools.call("propose_edit", json.dumps(
        {"path": "Diary.md", "edits": [{"old": "- day one\n", "new": "- day one\n- day two\n"}], "reason": "add"}))
    assert add.ok, add.text
    cs = tools.builder.build("edit", "diary")
    assert [fc.path for fc in cs.files] == ["wiki/Diary.md"]
    assert all(h.removed == 0 for h in cs.files[0].hunks)
    vault, graph = open_vault(root)
    apply_changeset(vault, graph, cs)
    assert (root / "wiki/Diary.md").read_text().endswith("- day one\n- day two\n")


def test_a_move_leaves_the_links_of_a_locked_page_as_they_are_and_says_so(root):
    import json

    (root / "wiki/old-name.md").write_text(page("Renamed", "# Renamed\n"))
    (root / "wiki/Locked.md").write_text(locked("Locked", "# Locked\n\nSee [[old-name]].\n"))
    (root / "wiki/Free.md").write_text(page("Free", "# Free\n\nSee [[old-name]].\n"))
    tools = box(root)
    moved = tools.call("propose_move", json.dumps({"path": "old-name.md", "new_path": "new-name.md", "reason": "r"}))
    assert moved.ok and "wiki/Locked.md" in moved.text and "will break" in moved.text
    cs = tools.builder.build("edit", "move")
    assert [fc.path for fc in cs.files] == ["wiki/old-name.md", "wiki/Free.md"]  # the locked page is left alone


def test_a_page_locked_between_proposal_and_apply_is_refused_at_apply(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("Free.md", [{"old": "See [[Locked]]", "new": "See [[Locked]] (the human's)"}], "note")
    b.new_page("New.md", page("New", "# New\n"), "a new page")
    cs = b.build("edit", "two files")
    PendingStore(vault).save(cs)
    # The human locks the page after the proposal, in their editor.
    path = root / "wiki/Free.md"
    before = set_frontmatter_keys(path.read_text(), {"llm": "locked"})
    path.write_text(before)

    result = apply_changeset(vault, graph, cs)

    assert path.read_text() == before  # nothing of that file
    assert (root / "wiki/New.md").exists()  # the other file applied
    assert result.refused and "wiki/Free.md" in result.refused[0] and "llm: locked" in result.refused[0]
    assert result.remaining is not None and [f.path for f in result.remaining.files] == ["wiki/Free.md"]
    assert [f.path for f in PendingStore(vault).load(cs.id).files] == ["wiki/Free.md"]


def test_a_hand_made_changeset_changing_an_append_page_is_refused_at_apply(root):
    """A changeset made elsewhere (a pending file written by hand, MCP) never went through the tools."""
    vault, graph = open_vault(root)
    (root / "wiki/Diary.md").write_text(page("Diary", "# Diary\n\n- day one\n"))  # no policy while proposing
    b = ChangesetBuilder(vault, graph)
    b.edit("Diary.md", [{"old": "- day one\n", "new": "- day 1\n- day two\n"}], "fix and add")
    cs = b.build("edit", "diary")
    (root / "wiki/Diary.md").write_text(locked("Diary", "# Diary\n\n- day one\n", "append"))

    result = apply_changeset(vault, graph, cs)

    assert "llm: append" in result.refused[0] and "hunk f0h0 removes or changes lines" in result.refused[0]
    assert (root / "wiki/Diary.md").read_text() == locked("Diary", "# Diary\n\n- day one\n", "append")
    assert result.applied == [] and result.remaining is not None


def test_a_locked_page_refuses_a_proposal_through_the_model(fake_llm, sample_vault):
    dodo = sample_vault / "wiki/characters/dodo.md"
    dodo.write_text(set_frontmatter_keys(dodo.read_text(), {"llm": "locked"}))
    before = dodo.read_text()
    fake_llm.script(
        tool_call("read", path="raw/chapter-03.md"),
        text("Plan: link the race from [[Dodo]]."),
        tool_calls(("propose_edit", {"path": "wiki/characters/dodo.md", "reason": "link the race",
                                     "edits": [{"old": "Its remedy is the Caucus-race.",
                                                "new": "Its remedy is the [[Caucus-Race]]."}]})),
        text("The Dodo page is locked; I left it alone."),
    )
    out, err = io.StringIO(), io.StringIO()

    async def no_wait(_):
        return None

    client = LLMClient(load_settings(), base_delay=0, sleep=no_wait)
    code = run_ingest(Workspace.open(sample_vault), "raw/chapter-03.md", apply=True, client=client, out=out, err=err)

    assert code == 1, err.getvalue()  # nothing to apply
    tool_results = [m for m in fake_llm.requests[-1]["messages"] if m.get("role") == "tool"]
    assert "refused by policy" in tool_results[-1]["content"] and "llm: locked" in tool_results[-1]["content"]
    assert dodo.read_text() == before
    assert PendingStore(Vault.open(sample_vault)).list() == []
