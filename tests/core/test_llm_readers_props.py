"""Property: the SSE reader reads what the OpenAI SDK's own stream reads, over any SSE bytes in any network pieces.

Both readers are fed the same generated body (chunks, error objects, JSON that is not an
object, bad JSON, ``[DONE]``, comments, ``event:`` lines, data spread over several lines,
LF, CRLF or CR line ends) cut at random places, through the SDK's ``AsyncStream`` class
with no server; what the stream loop reads from each chunk, or the error raised, must match.
"""

from __future__ import annotations

import asyncio
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wikitui.core.agent.fast_stream import SSEChunks


def _view(item) -> tuple | None:
    """What the stream loop reads from a chunk (None for one it ignores), through attributes as it does."""
    usage = getattr(item, "usage", None)
    choices = getattr(item, "choices", None) or []
    if usage is None and not choices:
        return None
    out = []
    for choice in choices:
        delta = choice.delta
        calls = [(tc.index, tc.id, getattr(tc.function, "name", None), getattr(tc.function, "arguments", None))
                 for tc in getattr(delta, "tool_calls", None) or []]
        out.append((getattr(delta, "content", None), getattr(delta, "role", None), calls, choice.finish_reason))
    counts = None if usage is None else (getattr(usage, "prompt_tokens", None),
                                         getattr(usage, "completion_tokens", None))
    return counts, out


async def _read_all(body: bytes, cuts: list[int], fast: bool) -> list:
    import httpx2
    from openai import AsyncOpenAI, AsyncStream
    from openai.types.chat import ChatCompletionChunk

    pieces, last = [], 0
    for cut_at in sorted({c % (len(body) + 1) for c in cuts}) + [len(body)]:
        pieces.append(body[last:cut_at])
        last = cut_at

    async def network():
        for piece in pieces:
            yield piece

    response = httpx2.Response(200, content=network(), headers={"content-type": "text/event-stream"},
                               request=httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions"))
    stream = AsyncStream(cast_to=ChatCompletionChunk, response=response, client=_SDK_CLIENT.get(AsyncOpenAI))
    source = SSEChunks(stream) if fast else stream
    seen: list = []
    try:
        async for item in source:
            view = _view(item)
            if view is not None:
                seen.append(view)
    except Exception as exc:  # the same failure, with the same words
        seen.append(("raised", type(exc).__name__, str(exc)[:80], getattr(exc, "body", None)))
    return seen


class _SDKClient:
    def __init__(self) -> None:
        self._client = None

    def get(self, cls):
        if self._client is None:
            self._client = cls(api_key="sk-test-property", base_url="http://127.0.0.1:9/v1")
        return self._client


_SDK_CLIENT = _SDKClient()

_text = st.one_of(st.none(), st.text(max_size=12))
_tool_call = st.fixed_dictionaries({"index": st.integers(0, 3)}, optional={
    "id": st.text(max_size=6), "type": st.just("function"),
    "function": st.fixed_dictionaries({}, optional={"name": _text, "arguments": _text})})
_delta = st.fixed_dictionaries({}, optional={"role": st.sampled_from(["assistant", None]), "content": _text,
                                             "tool_calls": st.lists(_tool_call, max_size=2)})
_choice = st.fixed_dictionaries({"index": st.just(0), "delta": _delta},
                                optional={"finish_reason": st.sampled_from([None, "stop", "length", "tool_calls"])})
_usage = st.fixed_dictionaries({"prompt_tokens": st.integers(0, 10**6), "completion_tokens": st.integers(0, 10**6)})
_chunk = st.fixed_dictionaries({"choices": st.lists(_choice, max_size=2)}, optional={"usage": st.none() | _usage,
                                                                                       "id": st.text(max_size=4)})
_error = st.fixed_dictionaries({"error": st.one_of(
    st.fixed_dictionaries({}, optional={"message": st.one_of(st.text(max_size=20), st.integers()),
                                        "code": st.integers()}),
    st.text(max_size=10), st.integers(1, 5))})
_event = st.one_of(
    _chunk.map(lambda c: ("data", json.dumps(c, indent=st_indent(c)))),
    _error.map(lambda e: ("data", json.dumps(e))),
    st.sampled_from([("data", "null"), ("data", "42"), ("data", '"a string"'), ("data", "[1, 2]"),
                     ("data", "{not json"), ("data", "\ufeff{}"), ("data", ""), ("data", "[DONE]"),
                     ("comment", "keep-alive"),
                     ("event", "thread.run.created"), ("event", "error")]),
)


def st_indent(chunk: dict) -> int | None:
    """Some chunks spread over several ``data:`` lines (legal SSE: the lines are joined with newlines)."""
    return 1 if len(chunk.get("choices", [])) == 2 else None


def _body(events: list[tuple[str, str]], line_end: str) -> bytes:
    out = []
    for kind, value in events:
        if kind == "data":
            out.append("".join(f"data: {line}{line_end}" for line in value.split("\n")) + line_end)
        elif kind == "comment":
            out.append(f": {value}{line_end}")
        else:
            out.append(f"event: {value}{line_end}")
    return "".join(out).encode("utf-8", "surrogatepass")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(_event, max_size=8), line_end=st.sampled_from(["\n", "\r\n", "\r"]),
       cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_the_sse_reader_reads_what_the_sdk_reads(events, line_end, cuts):
    """Any stream, cut into any network pieces: the same chunks as the SDK's stream, or the same error."""
    body = _body(events, line_end)
    fast = asyncio.run(_read_all(body, cuts, fast=True))
    slow = asyncio.run(_read_all(body, cuts, fast=False))
    assert fast == slow
