"""The agent answers "when did we start believing X, and from which source" with its read-only `history` tool,
through the real litellm and the fake model server (DESIGN §15, issue 27.4)."""

from __future__ import annotations

import shutil

import pytest

from tests.core.changes_util import git_init, make_vault, page, read, tree_hashes
from tests.fakeserver import text, tool_call
from wikitui.core.agent.events import ToolFinished, ToolStarted
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.session import AgentSession
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.config.settings import load_settings
from wikitui.core.search.facade import SearchIndex
from wikitui.core.workspace import Workspace

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

CLAIM = "The Cat's grin stays after the Cat has gone."
CAT = page("Cheshire Cat", "A cat that grins.\n\nIt sits in a tree.\n", type_="character")


def change(ws: Workspace, op: str, title: str, edits: list[tuple[str, str]], model: str) -> str:
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.edit("cat.md", [{"old": o, "new": n} for o, n in edits], "")
    cs = b.build(op, title, model=model)
    assert cs is not None
    ws.apply(cs)
    return cs.id


@pytest.fixture
def vault(tmp_path, monkeypatch):
    """cat.md in git; an ingest of chapter 6 on 2026-11-02 adds the claim; a later edit on 11-09 adds a line."""
    def on(day: str) -> None:
        for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
            monkeypatch.setenv(var, f"{day}T12:00:00+00:00")

    on("2026-10-01")
    root = make_vault(tmp_path / "v", {"cat.md": CAT})
    git_init(root)
    ws = Workspace.open(root)
    on("2026-11-02")
    ingest = change(ws, "ingest", "Chapter 6: Pig and Pepper", [("It sits in a tree.", f"It sits in a tree. {CLAIM}")],
                    "openai/reader")
    on("2026-11-09")
    change(ws, "edit", "Tidy the Cat", [("A cat that grins.", "A cat that grins widely.")], "openai/tidier")
    return root, ingest


async def test_the_agent_finds_when_a_claim_entered_a_page_and_its_source(fake_llm, vault):
    root, ingest = vault
    fake_llm.script(
        tool_call("history", path="Cheshire Cat", find="grin stays after the cat"),
        text("We have believed it since 2026-11-02, from Chapter 6: Pig and Pepper [[Cheshire Cat]]."),
    )
    ws = Workspace.open(root)
    settings = load_settings(ws.vault)
    events: list = []

    async def no_wait(_delay):
        return None

    index = SearchIndex(ws.vault)
    index.update(ws.require_graph())
    session = AgentSession(ws.vault, ws.require_graph(), index, settings, client=LLMClient(settings, sleep=no_wait),
                           on_event=events.append)
    def vault_files():  # the session keeps its own conversation in .wikitui/
        return {k: v for k, v in tree_hashes(root).items() if not k.startswith(".wikitui")}

    before = vault_files()
    done = await session.ask("When did we start believing the Cat's grin stays after it goes, and from which source?")
    assert not done.failed and "Chapter 6" in done.text
    assert [e.description for e in events if isinstance(e, ToolStarted)] == [
        "looked at the history of Cheshire Cat for 'grin stays after the cat'"]
    assert all(e.ok for e in events if isinstance(e, ToolFinished))
    result = next(m["content"] for m in fake_llm.requests[1]["messages"] if m["role"] == "tool")
    lines = result.splitlines()
    assert lines[0] == "wiki/cat.md: 'grin stays after the cat' in its 3 versions, oldest first"
    first = lines[1]
    assert first.startswith("- first appears: 2026-11-02")
    assert "ingest | Chapter 6: Pig and Pepper" in first and f"changeset {ingest}" in first
    assert "openai/reader" in first and "log: ## [" in first
    assert lines[-1] == "The page holds it now."
    # Read-only: nothing written, nothing proposed.
    assert vault_files() == before and ws.pending.list() == []
    assert CLAIM in read(root, "wiki/cat.md")


def test_find_says_when_a_phrase_was_dropped_and_when_no_version_held_it(vault):
    import json

    from wikitui.core.agent.tools import ToolBox

    root, _ingest = vault
    ws = Workspace.open(root)
    change(ws, "edit", "Drop the claim", [(f" {CLAIM}", "")], "openai/doubter")
    box = ToolBox(ws.vault, ws.require_graph())
    out = box.call("history", json.dumps({"path": "wiki/cat.md", "find": "GRIN   stays"}))
    assert out.ok, out.text
    lines = out.text.splitlines()
    assert lines[1].startswith("- first appears: 2026-11-02") and lines[2].startswith("- dropped: ")
    assert "edit | Drop the claim" in lines[2] and lines[-1] == "The page no longer holds it."
    missing = box.call("history", json.dumps({"path": "wiki/cat.md", "find": "a purple elephant"}))
    assert missing.ok and "no version holds it" in missing.text
