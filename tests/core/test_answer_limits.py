"""The answer has a limit (issue 25 point 4): ``max_tokens`` on every request, and a total time limit.

A rambling local model behind an uncapped server ran ``wikitui ask`` past 600 s: each
request now asks for at most the share of the window wikitui keeps for the answer
(``max_output_tokens`` overrides it), and the request, its whole streamed answer
included, must end within ``request_timeout_s`` (DESIGN §8: every wait has a total
deadline). The fake server trickles a reply for longer than a test-sized limit; no
test measures the clock.
"""

from __future__ import annotations

import io

import pytest

from tests.core.test_session import Chat
from tests.fakeserver import hang, text, tool_call, tool_calls
from wikitui.core.agent.events import AgentError, Notice, TextDelta
from wikitui.core.agent.headless import run_ask
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.llm_errors import TimeLimit
from wikitui.core.agent.window import Budget, ContextWindow
from wikitui.core.changes.pending import PendingStore
from wikitui.core.config.settings import load_settings
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace

HELLO = [{"role": "user", "content": "Who is the Cheshire Cat?"}]
#: A model that never stops: words trickle for far longer than the test's limit.
RAMBLING = "and the Cat grins again " * 400


def config(root, **values) -> None:
    lines = [f"{k} = {v!r}" if isinstance(v, str) else f"{k} = {v}" for k, v in values.items()]
    (root / ".wikitui").mkdir(exist_ok=True)
    (root / ".wikitui" / "config.toml").write_text("\n".join(lines) + "\n")


async def test_each_request_asks_for_at_most_the_room_the_window_leaves(fake_llm, sample_vault):
    fake_llm.script(tool_call("search", query="grin"), text("It grins [[Cheshire Cat]]."))
    chat = Chat(sample_vault, context_tokens=32_000)
    await chat.session.ask("Why does the Cat grin?")
    reserve = Budget.plan(ContextWindow(32_000, "config"), 0, 8000).reserve
    assert reserve == 4000
    caps = [r.get("max_tokens") for r in fake_llm.requests]
    assert len(caps) == 2 and all(isinstance(c, int) for c in caps)
    for request, cap in zip(fake_llm.requests, caps):
        sent = chat.session.client.count_tokens(request["messages"], tools=request.get("tools"))
        assert reserve <= cap <= 32_000 - sent  # never more than the window holds, never less than the reserve
    assert caps[1] <= caps[0]  # the search's result takes room from the answer


def test_the_answers_cap_is_the_room_left_at_least_the_reserve_at_most_a_bound():
    budget = Budget.plan(ContextWindow(8192, "config"), 1000, 8000)
    assert budget.reserve == 1024
    assert budget.answer_tokens(2000) == 8192 - 1000 - 2000 - 8192 // 32  # an early request: the room it leaves
    assert budget.answer_tokens(budget.messages) == 1024  # a full window: the reserve
    assert Budget.plan(ContextWindow(1_000_000, "config"), 0, 8000).answer_tokens(0) == 16_384


async def test_max_output_tokens_in_the_config_overrides_the_reserve(fake_llm, sample_vault):
    config(sample_vault, max_output_tokens=777)
    fake_llm.script(text("It grins [[Cheshire Cat]]."))
    chat = Chat(sample_vault)
    assert chat.settings.max_output_tokens == 777
    await chat.session.ask("Why does the Cat grin?")
    assert fake_llm.requests[0]["max_tokens"] == 777


def test_the_limits_are_read_from_the_config_and_bad_values_ignored(sample_vault):
    assert load_settings(sample_vault).request_timeout_s == 300.0  # room for a slow local model
    assert load_settings(sample_vault).max_output_tokens is None
    config(sample_vault, request_timeout_s=42, max_output_tokens=2048)
    settings = load_settings(sample_vault)
    assert (settings.request_timeout_s, settings.max_output_tokens) == (42.0, 2048)
    assert settings.sources["request_timeout_s"].endswith("config.toml")
    config(sample_vault, request_timeout_s=0, max_output_tokens="lots")
    settings = load_settings(sample_vault)
    assert (settings.request_timeout_s, settings.max_output_tokens) == (300.0, None)
    assert any("request_timeout_s" in w and "positive" in w for w in settings.warnings)
    assert any("max_output_tokens" in w for w in settings.warnings)


async def test_a_stream_that_trickles_forever_is_stopped_at_the_limit(fake_llm):
    fake_llm.script(text(RAMBLING, chunk=4, delay=0.05))
    settings = load_settings()
    settings.request_timeout_s = 1.0
    client = LLMClient(settings)
    seen = []
    with pytest.raises(TimeLimit) as info:
        async for ev in client.stream(HELLO):
            seen.append(ev)
    message = str(info.value)
    assert "time limit of 1 s" in message and "request_timeout_s" in message
    assert "in the middle of its answer" in message and info.value.exit_code == 3
    got = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert got and len(got) < len(RAMBLING)  # it was streaming, and it was stopped
    assert len(fake_llm.requests) == 1  # the limit is total: no retry after it


async def test_a_server_that_never_answers_is_stopped_at_the_limit_too(fake_llm):
    fake_llm.script(hang(30))
    settings = load_settings()
    settings.request_timeout_s = 0.5
    with pytest.raises(TimeLimit, match=r"time limit of 0.5 s .*before it answered"):
        async for _ in LLMClient(settings).stream(HELLO):
            pass


def test_headless_ask_exits_3_naming_the_limit_and_keeps_the_proposals(fake_llm, sample_vault):
    config(sample_vault, request_timeout_s=1)
    dodo_edit = {"path": "wiki/characters/dodo.md", "reason": "link the race",
                 "edits": [{"old": "Its remedy is the Caucus-race.", "new": "Its remedy is the [[Caucus-Race]]."}]}
    fake_llm.script(tool_calls(("read", {"path": "wiki/characters/dodo.md"})),
                    tool_calls(("propose_edit", dodo_edit)),
                    text(RAMBLING, chunk=4, delay=0.05))
    out, err = io.StringIO(), io.StringIO()
    code = run_ask(Workspace.open(sample_vault), "Link the race from the Dodo, then tell me everything.",
                   out=out, err=err)
    assert code == 3, err.getvalue()
    assert "time limit of 1 s for one request (request_timeout_s)" in err.getvalue()
    assert "Traceback" not in err.getvalue()
    (pending,) = PendingStore(Vault.open(sample_vault)).list()  # the turn's proposal is kept, as after any failure
    assert pending.files[0].path == "wiki/characters/dodo.md"
    assert "is pending" in err.getvalue()


async def test_the_session_reports_the_limit_as_a_model_failure(fake_llm, sample_vault):
    fake_llm.script(text(RAMBLING, chunk=4, delay=0.05))
    chat = Chat(sample_vault, request_timeout_s=1.0)
    done = await chat.session.ask("Tell me everything.")
    assert done.failed
    (error,) = chat.of(AgentError)
    assert error.exit_code == 3 and "request_timeout_s" in error.message
    assert not any("cut off" in n.text for n in chat.of(Notice))
