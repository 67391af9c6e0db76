"""``wikitui mcp``'s first answers, given before the SDK has loaded (issue 13: first tool answer ≤ 1 s).

No server and no event loop: the client's lines go in as bytes, the answers come
out as bytes, as they would on the pipe.
"""

from __future__ import annotations

import io
import json

import pytest

from tests.core.test_tools import tree_hash
from wikitui.core.mcp.early import HANDSHAKE_FILE, Handshake, answer_early
from wikitui.core.mcp.session import McpSession
from wikitui.core.workspace import Workspace

#: What the SDK answered ``initialize`` with (shortened): remembered from an earlier session.
SDK_ANSWER = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": False}},
              "serverInfo": {"name": "wikitui", "version": "0.1.0"}}
VERSION = "2025-11-25"


def line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


def initialize(mid: object = 1, version: str = VERSION) -> bytes:
    return line({"jsonrpc": "2.0", "id": mid, "method": "initialize",
                 "params": {"protocolVersion": version, "capabilities": {},
                            "clientInfo": {"name": "claude-code", "version": "1"}}})


INITIALIZED = line({"jsonrpc": "2.0", "method": "notifications/initialized"})


def call(mid: int, name: str, arguments: object) -> bytes:
    return line({"jsonrpc": "2.0", "id": mid, "method": "tools/call", "params": {"name": name, "arguments": arguments}})


@pytest.fixture
def ws(sample_vault):
    workspace = Workspace.open(sample_vault)
    yield workspace
    workspace.close()


@pytest.fixture
def remembered(ws) -> Handshake:
    handshake = Handshake(ws.vault, "2.3.0")
    handshake.remember(VERSION, SDK_ANSWER)
    return Handshake(ws.vault, "2.3.0")  # as the next server start reads it


def run(ws, handshake: Handshake, *lines: bytes, sdk_ready=lambda: False):
    out = io.BytesIO()
    started: list[bool] = []
    early = answer_early(McpSession(ws), io.BytesIO(b"".join(lines)), out, handshake, sdk_ready,
                         after_first_call=lambda: started.append(True))
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    return early, answers, started


def test_a_known_client_gets_its_handshake_tools_and_first_search_before_the_sdk_loads(ws, remembered):
    listing = line({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    search = call(3, "search", {"query": "pocket watch", "scope": "wiki"})
    prompts = line({"jsonrpc": "2.0", "id": 4, "method": "prompts/list", "params": {}})
    early, answers, started = run(ws, remembered, initialize(), INITIALIZED, listing, search, prompts)

    assert [a["id"] for a in answers] == [1, 2, 3]
    assert answers[0] == {"jsonrpc": "2.0", "id": 1, "result": SDK_ANSWER}
    assert {t["name"] for t in answers[1]["result"]["tools"]} >= {"search", "read", "lint", "propose_edit"}
    search_tool = next(t for t in answers[1]["result"]["tools"] if t["name"] == "search")
    assert search_tool["inputSchema"]["required"] == ["query"]
    result = answers[2]["result"]
    assert result["isError"] is False and result["content"][0]["type"] == "text"
    # The same text the SDK's handler gives: the session's own answer.
    assert result["content"][0]["text"] == McpSession(ws).call("search", {"query": "pocket watch", "scope": "wiki"})[1]
    assert "wiki/characters/white-rabbit.md" in result["content"][0]["text"]
    # Loading the SDK starts once the first tool answer is out, and not before.
    assert started == [True]
    # The SDK gets the handshake replayed, and the message it must answer itself.
    assert early.replay == [initialize(), INITIALIZED]
    assert early.pending == prompts and early.answered_init and early.init_id == 1 and not early.eof


def test_a_client_that_asks_for_resources_first_still_gets_its_first_tool_answer_before_the_sdk(ws, remembered,
                                                                                              sample_vault):
    def req(mid, method, **params):
        return line({"jsonrpc": "2.0", "id": mid, "method": method, "params": params})

    early, answers, started = run(
        ws, remembered, initialize(), INITIALIZED, req(2, "ping"), req(3, "resources/list"),
        req(4, "resources/templates/list"), req(5, "resources/read", uri="wiki://index"),
        req(6, "resources/read", uri="wiki://page/../../etc/passwd"), req(7, "resources/read", uri="wiki://nothing"),
        req(8, "resources/list", cursor="x"), call(9, "search", {"query": "rabbit"}))
    by_id = {a["id"]: a for a in answers}
    assert sorted(by_id) == [1, 2, 3, 4, 5, 6, 7]  # a cursor goes to the SDK: nothing here pages
    assert by_id[2]["result"] == {}
    assert [r["uri"] for r in by_id[3]["result"]["resources"]] == ["wiki://index", "wiki://log"]
    assert by_id[4]["result"]["resourceTemplates"][0]["uriTemplate"] == "wiki://page/{path}"
    index = (sample_vault / "wiki/index.md").read_text(encoding="utf-8")
    assert by_id[5]["result"]["contents"] == [{"uri": "wiki://index", "mimeType": "text/markdown", "text": index}]
    for mid in (6, 7):  # outside the vault, no such resource: an error, as the SDK gives it
        assert by_id[mid]["error"]["code"] == -32602 and by_id[mid]["error"]["message"].startswith("error")
    assert early.pending == req(8, "resources/list", cursor="x") and started == []


def test_the_sdk_takes_over_at_the_next_message_once_it_has_loaded(ws, remembered):
    started: list[bool] = []  # the SDK "loads" the moment it is asked to
    out = io.BytesIO()
    lines = [initialize(), INITIALIZED, call(2, "search", {"query": "rabbit"}), call(3, "search", {"query": "hatter"})]
    early = answer_early(McpSession(ws), io.BytesIO(b"".join(lines)), out, remembered, lambda: bool(started),
                         after_first_call=lambda: started.append(True))
    assert [json.loads(x)["id"] for x in out.getvalue().splitlines()] == [1, 2]
    assert early.pending is None and not early.eof  # the SDK reads call 3 from the wire itself
    assert early.replay == [initialize(), INITIALIZED]


def test_without_a_remembered_answer_the_sdk_answers_everything(ws):
    handshake = Handshake(ws.vault, "2.3.0")
    early, answers, started = run(ws, handshake, initialize(), INITIALIZED, call(2, "search", {"query": "rabbit"}))
    assert answers == [] and started == []
    assert early.pending == initialize() and early.replay == [] and not early.answered_init
    assert early.init_id == 1 and early.init_version == VERSION


def test_another_sdk_version_or_protocol_version_is_not_answered_from_memory(ws, remembered):
    for handshake, version in ((Handshake(ws.vault, "2.4.0"), VERSION), (remembered, "2099-01-01")):
        early, answers, _ = run(ws, handshake, initialize(version=version))
        assert answers == [] and early.pending == initialize(version=version)


def test_the_sdks_answer_is_remembered_per_protocol_version_and_a_damaged_file_is_ignored(ws):
    handshake = Handshake(ws.vault, "2.3.0")
    handshake.remember(VERSION, SDK_ANSWER)
    handshake.remember("2025-06-18", {**SDK_ANSWER, "protocolVersion": "2025-06-18"})
    again = Handshake(ws.vault, "2.3.0")
    assert again.answer(VERSION) == SDK_ANSWER
    assert again.answer("2025-06-18")["protocolVersion"] == "2025-06-18"
    assert again.answer(["not", "a", "string"]) is None
    (ws.vault.state_dir / HANDSHAKE_FILE).write_bytes(b"\x00{not json")
    assert Handshake(ws.vault, "2.3.0").answers == {}


def test_hostile_lines_go_to_the_sdk_unanswered_and_change_nothing(ws, remembered, sample_vault):
    before = tree_hash(sample_vault / "wiki")
    hostile = [
        b"[" * 100_000 + b"\n",                                    # nesting no parser should recurse into
        b"\x00\xff not json\n",
        line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": [1]}}),
        line({"jsonrpc": "2.0", "id": True, "method": "tools/call", "params": {"name": "search"}}),
        json.dumps([{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]).encode() + b"\n",  # a batch
        line({"jsonrpc": "1.0", "id": 2, "method": "tools/list"}),
        line({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"}),
    ]
    for bad in hostile:
        early, answers, started = run(ws, remembered, initialize(), INITIALIZED, bad)
        assert [a["id"] for a in answers] == [1], bad[:40]
        assert early.pending == bad and started == []
    # Before the handshake nothing at all is answered here.
    early, answers, _ = run(ws, remembered, call(1, "search", {"query": "rabbit"}))
    assert answers == [] and early.pending == call(1, "search", {"query": "rabbit"})
    assert tree_hash(sample_vault / "wiki") == before


def test_a_lone_surrogate_in_a_tool_answer_is_escaped_not_a_crash(ws, remembered):
    _, answers, _ = run(ws, remembered, initialize(), INITIALIZED, call(2, "read", {"path": "lone \ud800 surrogate"}))
    assert answers[1]["result"]["isError"] is True
    assert answers[1]["result"]["content"][0]["text"].startswith("error")


def test_a_client_that_hangs_up_ends_the_session_without_the_sdk(ws, remembered):
    early, answers, started = run(ws, remembered, initialize(), INITIALIZED)
    assert early.eof and [a["id"] for a in answers] == [1] and started == []
