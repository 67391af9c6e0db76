"""The fast path for reading a streamed answer: the OpenAI SDK's own stream, under litellm's wrapper.

Measured (DEPENDENCIES.md, litellm 1.110.2): litellm's ``CustomStreamWrapper`` spends about
a millisecond per chunk (it rebuilds, logs and deep-copies as it goes, then runs
``stream_chunk_builder`` over the whole answer at the end), so 250 chunks of a streamed
``propose_page`` that arrive together cost ~250 ms before the next request can leave;
the OpenAI SDK's stream underneath reads the same chunks in a fifth of that.

For the providers litellm serves through the OpenAI SDK (OpenAI and every
OpenAI-compatible server: llama.cpp, vLLM, Ollama, LM Studio, OpenRouter, Groq...) the
wrapper holds that SDK stream as ``completion_stream``; its chunks have the same
fields (``choices[].delta.content``, ``.tool_calls``, ``.finish_reason``, ``usage``), so
:class:`~wikitui.core.agent.llm.LLMClient` reads them directly. The request itself,
retries and error mapping still go through litellm. Any other provider (Anthropic,
Gemini...) keeps litellm's wrapper, which translates its format. A differential test
(tests/core/test_llm.py) checks both paths give the same events.

This reads an attribute litellm does not document: written for litellm 1.110.x; when
the attribute is missing or holds something else, the wrapper is used.
"""

from __future__ import annotations

from typing import Any


def chunk_source(response: Any) -> Any:
    """What to iterate for ``response``'s chunks: the OpenAI SDK stream inside it, else ``response`` itself."""
    raw = getattr(response, "completion_stream", None)
    if raw is None:
        return response
    try:
        from openai import AsyncStream  # noqa: PLC0415 - litellm has imported it already
    except ImportError:  # pragma: no cover - litellm depends on openai
        return response
    return raw if isinstance(raw, AsyncStream) else response
