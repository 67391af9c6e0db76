"""The model client against a fake OpenAI-compatible server, through the real litellm."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.fakeserver import (
    FAKE_API_KEY,
    error,
    hang,
    malformed_tool_call,
    text,
    tool_calls,
)
from wikitui.core.agent.events import Done, Retrying, TextDelta, ToolCall, ToolCallDelta, Usage
from wikitui.core.agent.llm import DEFAULT_CONTEXT_WINDOW, LLMClient
from wikitui.core.config.settings import Settings, load_settings
from wikitui.core.base.errors import ModelError

HELLO = [{"role": "user", "content": "Who is the Cheshire Cat?"}]


def make_client(**settings_overrides) -> tuple[LLMClient, list[float]]:
    settings = load_settings()
    for k, v in settings_overrides.items():
        setattr(settings, k, v)
    waits: list[float] = []

    async def no_wait(delay: float) -> None:
        waits.append(delay)

    return LLMClient(settings, base_delay=0.01, sleep=no_wait), waits


async def collect(client: LLMClient, messages=HELLO, tools=None, cancel=None) -> list:
    return [ev async for ev in client.stream(messages, tools, cancel_event=cancel)]


async def test_streams_text_in_pieces_then_usage_and_done(fake_llm):
    fake_llm.script(text("The Cat grins and vanishes.", chunk=4, usage=(120, 9)))
    client, _ = make_client()
    events = await collect(client)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3 and "".join(deltas) == "The Cat grins and vanishes."
    usage = next(e for e in events if isinstance(e, Usage))
    assert (usage.prompt_tokens, usage.completion_tokens, usage.estimated) == (120, 9, False)
    assert usage.cost == 0.0  # a model missing from the price map costs "unknown", counted as 0
    assert isinstance(events[-1], Done) and events[-1].text == "The Cat grins and vanishes."
    sent = fake_llm.requests[0]
    assert sent["model"] == "fake-model" and sent["stream"] is True
    assert sent["messages"] == HELLO
    assert sent["stream_options"] == {"include_usage": True}


async def test_streamed_tool_calls_are_assembled_from_fragments(fake_llm):
    fake_llm.script(tool_calls(("search", {"query": "Cheshire Cat", "scope": "wiki"}),
                               ("read", {"path": "wiki/characters/cheshire-cat.md"})))
    client, _ = make_client()
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object", "properties": {}}}}]
    events = await collect(client, tools=tools)
    fragments = [e for e in events if isinstance(e, ToolCallDelta)]
    assert len(fragments) > 4  # the arguments really arrived in pieces
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [c.name for c in calls] == ["search", "read"]
    assert json.loads(calls[0].arguments_json) == {"query": "Cheshire Cat", "scope": "wiki"}
    assert json.loads(calls[1].arguments_json) == {"path": "wiki/characters/cheshire-cat.md"}
    assert calls[0].id != calls[1].id
    done = events[-1]
    assert done.finish_reason == "tool_calls" and done.tool_calls == calls
    assert fake_llm.requests[0]["tools"][0]["function"]["name"] == "search"


async def test_malformed_tool_arguments_are_passed_through_verbatim(fake_llm):
    fake_llm.script(malformed_tool_call("search", '{"query": "alice", "limit": '))
    client, _ = make_client()
    events = await collect(client)
    call = next(e for e in events if isinstance(e, ToolCall))
    assert call.arguments_json == '{"query": "alice", "limit": '


async def test_rate_limit_is_retried_then_succeeds(fake_llm):
    fake_llm.script(error(429, "slow down", retry_after=0), text("ok"))
    client, waits = make_client()
    events = await collect(client)
    retry = next(e for e in events if isinstance(e, Retrying))
    assert retry.reason == "rate limited" and retry.attempt == 1
    assert waits == [0.0]  # Retry-After: 0 honoured instead of the backoff
    assert events[-1].text == "ok"
    assert len(fake_llm.requests) == 2


async def test_server_errors_are_retried_with_backoff_then_reported(fake_llm):
    fake_llm.script(*[error(500, "upstream exploded")] * 4)
    client, waits = make_client()
    with pytest.raises(ModelError) as info:
        await collect(client)
    assert len(fake_llm.requests) == 4
    assert len(waits) == 3 and waits[0] < waits[1] < waits[2]  # exponential
    msg = str(info.value)
    assert "HTTP 500" in msg and "4 attempts" in msg and "\n" not in msg


async def test_rejected_key_names_the_variable_never_the_key(fake_llm):
    fake_llm.script(error(401, f"Incorrect API key provided: {FAKE_API_KEY}. Find yours at ..."))
    client, waits = make_client()
    with pytest.raises(ModelError) as info:
        await collect(client)
    msg = str(info.value)
    assert "the API key in $OPENAI_API_KEY was rejected" in msg
    assert FAKE_API_KEY not in msg and "SECRET123" not in repr(info.value)
    assert waits == [] and len(fake_llm.requests) == 1  # auth failures are not retried
    assert info.value.exit_code == 3


async def test_unknown_model_is_a_clear_error(fake_llm):
    fake_llm.script(error(404, "The model `fake-model` does not exist"))
    client, _ = make_client()
    with pytest.raises(ModelError, match=r"unknown model 'openai/fake-model'"):
        await collect(client)


async def test_timeout_is_retried_then_reported(fake_llm):
    fake_llm.script(hang(5), hang(5))
    client, waits = make_client(timeout=0.3)
    client.max_attempts = 2
    with pytest.raises(ModelError, match=r"did not answer within 0.3 s \(2 attempts\)"):
        await collect(client)
    assert len(waits) == 1


async def test_connection_refused_says_the_server_is_unreachable(fake_llm):
    fake_llm.stop()
    client, _ = make_client(api_base="http://127.0.0.1:9/v1")
    client.max_attempts = 2
    with pytest.raises(ModelError, match=r"cannot reach http://127.0.0.1:9/v1"):
        await collect(client)


async def test_cancel_stops_a_slow_stream_promptly(fake_llm):
    fake_llm.script(text("word " * 200, chunk=5, delay=0.05))
    client, _ = make_client()
    cancel = asyncio.Event()
    seen = []
    async for ev in client.stream(HELLO, cancel_event=cancel):
        seen.append(ev)
        if isinstance(ev, TextDelta) and len(seen) == 3:
            cancel.set()
    assert isinstance(seen[-1], Done) and seen[-1].cancelled
    assert len([e for e in seen if isinstance(e, TextDelta)]) == 3


async def test_api_key_env_names_the_variable_used(fake_llm, monkeypatch):
    monkeypatch.setenv("MY_WIKI_KEY", "sk-custom-OTHERSECRET")
    fake_llm.script(text("hi"))
    client, _ = make_client(api_key_env="MY_WIKI_KEY")
    await collect(client)
    assert fake_llm.headers[0]["authorization"] == "Bearer sk-custom-OTHERSECRET"
    monkeypatch.delenv("MY_WIKI_KEY")
    with pytest.raises(ModelError, match="MY_WIKI_KEY"):
        await collect(client)
    assert len(fake_llm.requests) == 1  # a missing key fails before any request


async def test_missing_usage_is_counted_locally(fake_llm):
    fake_llm.script(text("An answer without usage."))
    client, _ = make_client()
    # A server that ignores stream_options: drop the usage chunk by asking without it.
    real = client._request_kwargs

    def without_usage(messages, tools):
        kw = real(messages, tools)
        kw.pop("stream_options")
        return kw

    client._request_kwargs = without_usage
    events = await collect(client)
    usage = next(e for e in events if isinstance(e, Usage))
    assert usage.estimated and usage.prompt_tokens > 5 and usage.completion_tokens > 2


def test_cost_context_window_and_token_count_work_offline():
    known = LLMClient(Settings(model="openai/gpt-4o"))
    assert known.cost(1_000_000, 0) > 0.5  # $2.50 per million input tokens in the bundled map
    assert known.context_window() == 128_000
    claude = LLMClient(Settings(model="anthropic/claude-sonnet-4-20250514"))
    assert claude.context_window() == 200_000
    unknown = LLMClient(Settings(model="openai/fake-model"))
    assert unknown.context_window() == DEFAULT_CONTEXT_WINDOW
    assert unknown.cost(1000, 1000) == 0.0
    n = unknown.count_tokens([{"role": "user", "content": "Alice follows the White Rabbit. " * 20}])
    assert 100 < n < 300


# Importing the agent imports no litellm: bench/checks.py (check_agent_import).
# The stream readers (the fast SSE path, the SDK's stream, litellm's wrapper): tests/core/test_llm_readers.py
