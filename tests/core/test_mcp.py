"""``wikitui mcp`` driven by the MCP SDK's own client over stdio, on a copy of the sample vault (DESIGN §10).

Each test starts the real server (``python -m wikitui mcp``) as another agent
would, and talks to it only through the protocol.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from tests.core.test_tools import tree_hash
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault

mcp_client = pytest.importorskip("mcp.client.stdio", reason="the mcp SDK is in the test extra")
from mcp import ClientSession  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402


def run_client(vault: Path, script) -> object:
    """Start ``wikitui mcp`` on ``vault``, run ``await script(session)`` against it; the server's handshake answer."""
    params = mcp_client.StdioServerParameters(
        command=sys.executable, args=["-m", "wikitui", "mcp", "--vault", str(vault)], cwd=str(vault),
    )

    async def main() -> object:
        with open(vault.parent / "mcp-stderr.txt", "w") as errlog:
            async with mcp_client.stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    hello = await session.initialize()
                    with anyio.fail_after(120):  # a hung server fails the test instead of the suite
                        await script(session)
        return hello

    return anyio.run(main)


def text_of(result) -> str:
    return "".join(block.text for block in result.content)


def wiki_hash(vault: Path) -> str:
    return tree_hash(vault / "wiki")


def test_a_client_lists_searches_reads_and_proposes_into_one_pending_changeset(sample_vault):
    before = wiki_hash(sample_vault)
    page = sample_vault / "wiki/characters/white-rabbit.md"
    seen: dict = {}

    async def script(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {"search", "read", "list_pages", "links", "history", "lint",
                              "propose_edit", "propose_page", "propose_delete", "propose_move", "propose_chart",
                              "propose_merge"}
        # The agent's own schemas: the same arguments.
        assert tools["search"].input_schema["required"] == ["query"]
        assert tools["read"].input_schema["properties"]["offset"]["default"] == 0
        assert "path" in tools["lint"].input_schema["properties"]
        assert "required" not in tools["lint"].input_schema or not tools["lint"].input_schema["required"]

        hits = await session.call_tool("search", {"query": "pocket watch", "scope": "wiki"})
        assert not hits.is_error
        assert "wiki/characters/white-rabbit.md" in text_of(hits)

        read = await session.call_tool("read", {"path": "White Rabbit"})
        assert not read.is_error
        assert text_of(read).startswith('wiki/characters/white-rabbit.md (page "White Rabbit"')
        assert "pink eyes" in text_of(read)

        listed = await session.call_tool("list_pages", {"folder": "characters"})
        assert "wiki/characters/alice.md — Alice" in text_of(listed)
        links = await session.call_tool("links", {"path": "White Rabbit"})
        assert "Backlinks (" in text_of(links)

        lint_all = await session.call_tool("lint", {})
        assert "broken-link wiki/characters/mock-turtle.md:18 [Lobster Quadrille]" in text_of(lint_all)
        lint_one = await session.call_tool("lint", {"path": "Mock Turtle"})
        assert text_of(lint_one).startswith("wiki/characters/mock-turtle.md: Counts: broken-link: 1")
        assert "orphan" not in text_of(lint_one).split("\n", 1)[1]

        first = await session.call_tool("propose_edit", {
            "path": "wiki/characters/white-rabbit.md",
            "edits": [{"old": "with pink eyes", "new": "with bright pink eyes"}],
            "reason": "more precise",
        })
        second = await session.call_tool("propose_page", {
            "path": "wiki/objects/pocket-watch.md",
            "content": "---\ntitle: Pocket Watch\ntype: entity\nsummary: The Rabbit's watch.\n---\n\n"
                       "# Pocket Watch\n\nCarried by the [[White Rabbit]].\n",
            "reason": "a page for the watch",
        })
        assert not first.is_error and not second.is_error
        seen["ids"] = [text_of(r).rsplit("pending changeset ", 1)[1].split(":", 1)[0] for r in (first, second)]

        resources = {str(r.uri) for r in (await session.list_resources()).resources}
        assert resources == {"wiki://index", "wiki://log"}
        templates = (await session.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["wiki://page/{path}"]
        index = await session.read_resource("wiki://index")
        assert index.contents[0].text == (sample_vault / "wiki/index.md").read_text(encoding="utf-8")
        log = await session.read_resource("wiki://log")
        assert log.contents[0].text == (sample_vault / "wiki/log.md").read_text(encoding="utf-8")
        body = await session.read_resource("wiki://page/wiki/characters/white-rabbit.md")
        assert body.contents[0].text == page.read_text(encoding="utf-8")  # as on disk: the proposal is not applied
        by_title = await session.read_resource("wiki://page/White%20Rabbit")
        assert by_title.contents[0].text == body.contents[0].text

    run_client(sample_vault, script)

    first_id, second_id = seen["ids"]
    assert first_id == second_id and first_id.startswith("mcp-")
    pending = PendingStore(Vault.open(sample_vault)).list()
    assert [cs.id for cs in pending] == [first_id]
    assert sorted(f.path for f in pending[0].files) == ["wiki/characters/white-rabbit.md",
                                                        "wiki/objects/pocket-watch.md"]
    assert wiki_hash(sample_vault) == before  # nothing in wiki/ changed
    assert not (sample_vault / "wiki/objects/pocket-watch.md").exists()
    assert not (sample_vault / ".wikitui/live").exists()  # the server said it kept the index only while it ran


def test_the_next_session_is_answered_before_the_sdk_loads_then_served_by_it(sample_vault):
    """The SDK's handshake is remembered; the next server answers from memory, then hands the session over."""

    async def nothing(session: ClientSession) -> None:
        pass

    first_hello = run_client(sample_vault, nothing)
    assert (sample_vault / ".wikitui/mcp-handshake.json").is_file()
    seen: dict = {}

    async def script(session: ClientSession) -> None:
        hits = await session.call_tool("search", {"query": "pocket watch", "scope": "wiki"})  # answered early
        assert not hits.is_error and "wiki/characters/white-rabbit.md" in text_of(hits)
        index = await session.read_resource("wiki://index")  # the SDK's: it has taken over
        assert index.contents[0].text == (sample_vault / "wiki/index.md").read_text(encoding="utf-8")
        tools = {t.name for t in (await session.list_tools()).tools}
        assert "propose_edit" in tools and "lint" in tools
        proposed = await session.call_tool("propose_edit", {
            "path": "wiki/characters/white-rabbit.md",
            "edits": [{"old": "with pink eyes", "new": "with bright pink eyes"}], "reason": "precise"})
        assert not proposed.is_error
        seen["text"] = text_of(proposed)
        with pytest.raises(MCPError):
            await session.read_resource("wiki://nothing")
        again = await session.call_tool("search", {"query": "pocket watch", "scope": "wiki"})
        assert text_of(again) == text_of(hits)

    second_hello = run_client(sample_vault, script)
    assert second_hello == first_hello
    pending = PendingStore(Vault.open(sample_vault)).list()
    assert len(pending) == 1 and pending[0].id in seen["text"]
    # The client's name reached the changeset's title though the SDK never answered the handshake itself.
    assert pending[0].title.startswith("Proposed over MCP by "), pending[0].title


def test_resources_answered_before_the_sdk_loads_are_what_the_sdk_answers(sample_vault):
    """The first session's SDK answers everything; the next answers from memory: the client sees the same."""
    seen: list[dict] = []

    async def script(session: ClientSession) -> None:
        got: dict = {"ping": (await session.send_ping()).model_dump(mode="json")}
        got["list"] = (await session.list_resources()).model_dump(mode="json")
        got["templates"] = (await session.list_resource_templates()).model_dump(mode="json")
        got["index"] = (await session.read_resource("wiki://index")).model_dump(mode="json")
        with pytest.raises(MCPError) as failed:
            await session.read_resource("wiki://page/../../outside.md")
        got["error"] = (failed.value.error.code, failed.value.error.message)
        got["search"] = text_of(await session.call_tool("search", {"query": "pocket watch", "scope": "wiki"}))
        seen.append(got)

    run_client(sample_vault, script)  # no remembered handshake: the SDK answers all of it
    assert (sample_vault / ".wikitui/mcp-handshake.json").is_file()
    run_client(sample_vault, script)  # answered before the SDK has loaded
    assert seen[0] == seen[1]
    assert seen[0]["error"][1].startswith("error") and "wiki://log" in json.dumps(seen[0]["list"])


def test_hostile_arguments_give_error_texts_and_change_nothing(sample_vault):
    before = wiki_hash(sample_vault)
    deep = 0
    for _ in range(100):  # what the client's own serializer still sends (100,000 levels: test_mcp_session)
        deep = [deep]

    async def script(session: ClientSession) -> None:
        calls = [
            ("read", {"path": "../../etc/passwd"}),
            ("read", {"path": "/etc/passwd"}),
            ("read", {"path": ".wikitui/pending"}),
            ("read", {}),
            ("search", {"query": deep}),
            ("search", {"query": "x" * 200_000 + "~"}),
            ("search", {"query": "(((("}),
            ("links", {"path": "no such page at all"}),
            ("lint", {"path": "../outside"}),
            ("lint", {"path": 12}),
            ("no_such_tool", {"a": 1}),
            ("propose_page", {"path": "wiki/x.md", "content": "---\ntitle: X\n---\nnul \x00 here", "reason": "r"}),
            ("propose_page", {"path": "raw/chapter-01.md", "content": "overwrite a source", "reason": "r"}),
            ("propose_page", {"path": "../escape.md", "content": "out", "reason": "r"}),
            ("propose_edit", {"path": "wiki/characters/alice.md", "edits": [{"old": "not in the page", "new": "x"}],
                              "reason": "r"}),
            ("propose_delete", {"path": "wiki/nothing-here.md", "reason": "r"}),
            ("propose_move", {"path": "wiki/characters/alice.md", "new_path": "/tmp/alice.md", "reason": "r"}),
        ]
        for name, args in calls:
            result = await session.call_tool(name, args)
            text = text_of(result)
            assert result.is_error, (name, text)
            assert text.startswith("error:"), (name, text[:200])
            assert "Traceback" not in text
        for uri in ("wiki://page/../../etc/passwd", "wiki://page/.wikitui/pending", "wiki://page/nothing",
                    "wiki://elsewhere", "file:///etc/passwd"):
            with pytest.raises(MCPError) as caught:
                await session.read_resource(uri)
            assert str(caught.value).startswith("error:"), uri
        # The server is still there and well after all that.
        assert not (await session.call_tool("search", {"query": "rabbit"})).is_error

    run_client(sample_vault, script)
    assert wiki_hash(sample_vault) == before
    assert PendingStore(Vault.open(sample_vault)).list() == []
    assert not (sample_vault.parent / "escape.md").exists()
    stderr = (sample_vault.parent / "mcp-stderr.txt").read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in stderr, stderr[-2000:]


def test_the_tools_say_what_the_agent_says(sample_vault):
    """One implementation: a tool's MCP result is the text the agent's tool box returns."""
    from wikitui.core.agent.tools import ToolBox
    from wikitui.core.workspace import Workspace

    ws = Workspace.open(sample_vault)
    ws.load_graph()
    ws.update_index()
    box = ToolBox(ws.vault, ws.graph, ws.search_index)
    expected = {name: box.call(name, json.dumps(args)).text for name, args in (
        ("search", {"query": "tarts"}), ("read", {"path": "Alice", "limit": 5}), ("links", {"path": "Dodo"}))}
    ws.close()
    got: dict = {}

    async def script(session: ClientSession) -> None:
        for name, args in (("search", {"query": "tarts"}), ("read", {"path": "Alice", "limit": 5}),
                           ("links", {"path": "Dodo"})):
            got[name] = text_of(await session.call_tool(name, args))

    run_client(sample_vault, script)
    assert got == expected
