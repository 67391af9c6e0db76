"""Replies that are not completions, cut and stalled streams, output limits: the client names each one.

The fake server plays each fault a real server or proxy shows (DESIGN §8 "Replies that
are not completions"); the client is the real litellm path.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.fakeserver import Text, cut, empty_ok, html_page, json_for_stream, stall, text, tool_call
from wikitui.core.agent.events import Done, Retrying, TextDelta, Usage
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.llm_errors import NotACompletion
from wikitui.core.config.settings import load_settings
from wikitui.core.base.errors import ModelError

HELLO = [{"role": "user", "content": "Who is the Cheshire Cat?"}]


def client(**overrides) -> tuple[LLMClient, list[float]]:
    settings = load_settings()
    for k, v in overrides.items():
        setattr(settings, k, v)
    waits: list[float] = []

    async def no_wait(delay: float) -> None:
        waits.append(delay)

    return LLMClient(settings, base_delay=0.01, sleep=no_wait), waits


async def collect(c: LLMClient, cancel: asyncio.Event | None = None) -> list:
    return [ev async for ev in c.stream(HELLO, cancel_event=cancel)]


@pytest.mark.parametrize("reply, what", [
    (empty_ok(), "HTTP 200, application/json"),
    (html_page(), "HTTP 200, text/html"),
    (json_for_stream(), "HTTP 200, application/json"),
])
async def test_a_reply_that_is_not_a_chat_completion_is_a_model_failure(fake_llm, reply, what):
    fake_llm.script(reply)
    c, waits = client()
    with pytest.raises(NotACompletion) as info:
        await collect(c)
    message = str(info.value)
    assert message.startswith("the server's reply was not a chat completion")
    assert what in message and fake_llm.api_base in message
    assert info.value.exit_code == 3
    assert waits == [] and len(fake_llm.requests) == 1  # a misconfigured endpoint is not retried


async def test_a_stream_cut_midway_is_reported_as_cut_not_as_a_server_error(fake_llm):
    fake_llm.script(cut(text("The Cat grins, and then it slowly vanishes, beginning with its tail.", chunk=5), 4))
    c, waits = client()
    seen = []
    with pytest.raises(ModelError) as info:
        async for ev in c.stream(HELLO):
            seen.append(ev)
    message = str(info.value)
    assert "was cut off" in message and "connection closed before the stream ended" in message
    assert "HTTP 500" not in message and "cannot reach" not in message
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "The Cat grins, and t"  # four chunks of five
    assert waits == []  # words were shown: no silent retry that would show them twice
    usage = [e for e in seen if isinstance(e, Usage)]
    assert len(usage) == 1 and usage[0].estimated and usage[0].completion_tokens > 0  # the part that came was paid


async def test_a_stream_cut_before_any_word_is_retried_then_answers(fake_llm):
    fake_llm.script(cut(text("never seen"), 0), text("The Cat grins."))
    c, waits = client()
    events = await collect(c)
    retry = next(e for e in events if isinstance(e, Retrying))
    assert retry.reason == "the stream was cut off" and len(waits) == 1
    assert events[-1].text == "The Cat grins."


async def test_a_stream_that_stalls_past_the_timeout_says_so(fake_llm):
    fake_llm.script(stall(text("The Cat grins and grins and grins.", chunk=4), 3, 5.0))
    c, _ = client(timeout=0.5)
    with pytest.raises(ModelError, match=r"stopped sending in the middle of its answer \(nothing for 0.5 s\)"):
        await collect(c)


async def test_finish_reason_length_reaches_the_caller(fake_llm):
    fake_llm.script(Text("The Cat grins and", finish="length"))
    c, _ = client()
    done = (await collect(c))[-1]
    assert isinstance(done, Done) and done.finish_reason == "length" and done.text == "The Cat grins and"


async def test_a_cancelled_answer_is_still_counted(fake_llm):
    fake_llm.script(text("slow words " * 200, chunk=5, delay=0.03))
    c, _ = client()
    cancel = asyncio.Event()
    seen = []
    async for ev in c.stream(HELLO, cancel_event=cancel):
        seen.append(ev)
        if sum(isinstance(e, TextDelta) for e in seen) == 4:
            cancel.set()
    assert isinstance(seen[-1], Done) and seen[-1].cancelled
    (usage,) = [e for e in seen if isinstance(e, Usage)]
    assert usage.estimated and usage.prompt_tokens > 5 and usage.completion_tokens > 0


async def test_a_lone_surrogate_in_the_answer_text_is_replaced(fake_llm):
    fake_llm.script(text("grin \ud800 end"))
    c, _ = client()
    done = (await collect(c))[-1]
    assert done.text == "grin \ufffd end"
    done.text.encode("utf-8")


async def test_the_client_marks_each_request_for_the_benchmark(fake_llm):
    fake_llm.script(tool_call("search", query="grin"), text("ok"))
    c, _ = client()
    await collect(c)
    await collect(c)
    assert len(c.timeline) == 2
    for marks in c.timeline:
        assert marks["called"] <= marks["responded"] <= marks["ended"]
    assert len(fake_llm.timeline) == 2 and len(fake_llm.gaps()) == 1
    assert fake_llm.timeline[0]["arrived"] <= fake_llm.timeline[0]["finished"] <= fake_llm.timeline[1]["arrived"]


async def test_the_fake_server_in_its_own_process_timestamps_rounds_for_the_benchmark(monkeypatch):
    from tests.fakeserver_process import RemoteFakeLLM

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-remote")
    remote = RemoteFakeLLM()
    try:
        remote.script(tool_call("search", query="grin"), text("The Cat grins."))
        c, _ = client(api_base=remote.api_base, model="openai/fake-model")
        await collect(c)
        await collect(c)
        state = remote.state()
        assert state["remaining"] == 0 and len(state["requests"]) == 2
        first, second = state["timeline"]
        # The child's clock is the parent's (the system's monotonic clock): the marks interleave.
        assert c.timeline[0]["called"] < first["arrived"] < first["finished"] < c.timeline[1]["called"]
        assert second["arrived"] > c.timeline[1]["called"]
    finally:
        remote.stop()
