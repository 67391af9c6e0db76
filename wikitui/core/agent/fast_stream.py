"""The fast path for reading a streamed answer: its SSE events parsed here, under litellm and the OpenAI SDK.

Measured (DEPENDENCIES.md, litellm 1.110.2; ``bench/agent.py``): litellm's
``CustomStreamWrapper`` spends about a millisecond per chunk (it rebuilds, logs and
deep-copies as it goes), and the OpenAI SDK's stream underneath it still ~70 µs (a
pydantic ``ChatCompletionChunk`` built per chunk). A 4 KB ``propose_page`` streams in
~250 chunks that reach the client together, so that per-chunk cost is what keeps the
next request waiting. For the providers litellm serves through the OpenAI SDK (OpenAI
and every OpenAI-compatible server: llama.cpp, vLLM, Ollama, LM Studio, OpenRouter,
Groq...) the wrapper holds the SDK's ``AsyncStream`` as ``completion_stream``;
:class:`SSEChunks` reads that stream's server-sent events (the SDK's own SSE decoding,
with its timeout and connection errors) and turns each ``data:`` line into a
:class:`Chunk` with one ``json.loads`` (~5 µs). The request itself, retries and error
mapping still go through litellm. Any other provider (Anthropic, Gemini...) keeps
litellm's wrapper, which translates its format.

Three readers, for :func:`chunk_source` and ``LLMClient.reader``: ``"sse"`` (this
module's, the default), ``"sdk"`` (the SDK's pydantic chunks) and ``"litellm"`` (the
wrapper). A differential test (tests/core/test_llm_readers.py) checks they give the
same events, errors included.

This reads what neither library documents (litellm's ``completion_stream``, the SDK's
``AsyncStream._iter_events`` and ``_options``): written for litellm 1.110 and openai 3.57.
With another major version of the SDK, or when an attribute is missing or holds
something else, the next reader down is used (SDK stream, then litellm's wrapper).

Kept because it pays (issue 22: a trick stays where it saves a tenth of a wait a user sees):
``bench/agent.py`` on 2026-12-02 (load 3.1-6.2, 2 shared cores), the tool round trip at the server
(answer N's last byte to request N+1), median of 27 rounds: 18.2 ms with this reader, 33.9 ms through
litellm's wrapper (the public path; 18.7 ms with the SDK's chunks); the client's time after a 4 KB
``propose_page`` (257 chunks): 7.8 ms, against 376 ms through the wrapper and 65 ms with the SDK's chunks.
A plain loop on litellm's public stream took 18.3 ms a round, one on the OpenAI SDK 8.3 ms.

:class:`Pump` is the other half of the gain: it reads chunks in a task of its own, so
waiting for the next one can be cut short by a cancel (``esc``) without starting two
tasks for every chunk (~20 µs each) as racing each read against the cancel did.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

#: The readers, fastest first (see the module docstring).
READERS = ("sse", "sdk", "litellm")
#: The OpenAI SDK major version :class:`SSEChunks` was written against.
SDK_MAJOR = 3


class Chunk(dict):
    """A JSON object from the stream whose fields also read as attributes, ``None`` when absent.

    Built by a JSON decoder with ``object_hook=Chunk``, so ``chunk.choices[0].delta.content``
    reads as on the SDK's models, without building and checking a model per chunk.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and friends probe dunders: answer as a plain object does
            raise AttributeError(name)
        return self.get(name)


def chunk_source(response: Any, reader: str = "sse") -> Any:
    """What to iterate for ``response``'s chunks with ``reader``, falling back to the next reader down.

    Args:
        response: What ``litellm.acompletion(stream=True)`` returned.
        reader: ``"sse"``, ``"sdk"`` or ``"litellm"`` (see :data:`READERS`).

    Returns:
        An async iterable of chunks with ``choices[].delta`` and ``usage`` attributes.
    """
    if reader == "litellm":
        return response
    stream = getattr(response, "completion_stream", None)
    if stream is None:
        return response
    try:
        from openai import AsyncStream  # noqa: PLC0415 - litellm has imported it already
    except ImportError:  # pragma: no cover - litellm depends on openai
        return response
    if not isinstance(stream, AsyncStream):
        return response
    if reader == "sse" and readable(stream):
        return SSEChunks(stream)
    return stream


def readable(stream: Any) -> bool:
    """Whether :class:`SSEChunks` knows this SDK stream's shape (version and attributes checked)."""
    try:
        import openai  # noqa: PLC0415

        major = int(str(openai.__version__).split(".", 1)[0])
    except (ImportError, ValueError):
        return False
    options = getattr(stream, "_options", None)
    return (major == SDK_MAJOR
            and inspect.isasyncgenfunction(getattr(type(stream), "_iter_events", None))
            and getattr(stream, "response", None) is not None
            # Chat completions stream in the SDK's "legacy" mode: plain chunks, an "error" object fails.
            and getattr(options, "stream_mode", "legacy") == "legacy"
            and not getattr(options, "synthesize_event_and_data", False))


#: One decoder for every chunk (``json.loads`` with a hook builds a new one per call).
_DECODER = json.JSONDecoder(object_hook=Chunk)


class SSEChunks:
    """The chunks of an OpenAI SDK ``AsyncStream``, parsed from its server-sent events without pydantic.

    Keeps the SDK's semantics (``openai._streaming.AsyncStream.__stream__``): ``[DONE]``
    ends the stream (the rest of the body drained so the connection can be reused); a
    ``data:`` object with an ``error`` raises ``openai.APIError`` with its message; a
    body that is not JSON raises ``json.JSONDecodeError``; a read that times out or a
    connection that breaks raises what the SDK raises (``_iter_events`` is the SDK's).
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._chunks = self._read()
        #: Whether ``[DONE]`` came: a stream that stops before it (and any finish_reason) was cut.
        self.ended = False

    def __aiter__(self) -> Any:
        return self._chunks

    async def aclose(self) -> None:
        """Stop reading and release the connection."""
        try:
            await self._chunks.aclose()
        finally:
            await self._stream.close()

    async def _read(self) -> Any:
        stream = self._stream
        response = stream.response
        events = stream._iter_events()
        try:
            async for sse in events:
                data = sse.data
                if data.startswith("[DONE]"):
                    self.ended = True
                    await _drain(response, events)
                    return
                # json.loads refuses a leading BOM with its own message; the shared decoder would not.
                chunk = _DECODER.decode(data) if not data.startswith("\ufeff") else json.loads(data)
                if sse.event and sse.event.startswith("thread."):
                    continue  # Assistants events: the SDK makes them objects with no choices, nothing to read
                if isinstance(chunk, dict) and chunk.get("error"):
                    raise _stream_error(chunk["error"], response)
                yield chunk
        finally:
            try:
                await events.aclose()  # left suspended after [DONE]: end it now rather than at collection
            finally:
                await response.aclose()


def _stream_error(error: Any, response: Any) -> Exception:
    """The ``openai.APIError`` the SDK raises for an error object in the stream."""
    from openai import APIError  # noqa: PLC0415

    message = error.get("message") if isinstance(error, dict) else None
    if not message or not isinstance(message, str):
        message = "An error occurred during streaming"
    return APIError(message=message, request=response.request, body=error)


async def _drain(response: Any, events: Any) -> None:
    """Read what follows ``[DONE]`` so HTTP/1.1 can reuse the connection, as the SDK does."""
    try:
        from openai._streaming_cleanup import drain_response_async  # noqa: PLC0415 - SDK 3.x: bounded to 0.1 s
    except ImportError:  # a 3.x before the bounded drain: read to the end of the body, as SDKs before it did
        async for _ in events:
            pass
        return
    if getattr(response, "http_version", "HTTP/1.1") == "HTTP/1.1":
        await drain_response_async(response)


# ----------------------------------------------------------------- waiting for chunks
CANCELLED = object()
END = object()
#: The request's total time limit passed (``LLMClient``'s ``request_timeout_s``).
TIMED_OUT = object()


class Pump:
    """Reads ``source`` in a task of its own; :meth:`next` hands over what it read, or ``CANCELLED``.

    Chunks that arrived together wait in a queue and are handed over without a task or a
    trip through the event loop each; only an empty queue waits, and a set
    ``cancel_event`` ends that wait at once (a watcher puts ``CANCELLED`` in the queue), and so
    does ``deadline`` (an event loop time: a timer puts ``TIMED_OUT`` there, after what had arrived).
    An exception from ``source`` is raised by :meth:`next` after the chunks read before it.
    Call :meth:`stop` before closing ``source``: the task must not be reading it then.
    """

    def __init__(self, source: Any, cancel_event: asyncio.Event | None, deadline: float | None = None) -> None:
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._cancel = cancel_event
        self._tasks = [asyncio.ensure_future(self._fill(source))]
        if cancel_event is not None:
            self._tasks.append(asyncio.ensure_future(self._watch(cancel_event)))
        self._timer = None
        if deadline is not None:  # one timer for the whole stream: no per-chunk cost
            self._timer = asyncio.get_running_loop().call_at(deadline, self._queue.put_nowait, TIMED_OUT)

    async def _fill(self, source: Any) -> None:
        put = self._queue.put_nowait
        try:
            async for chunk in source:
                put(chunk)
        except Exception as exc:  # handed to the reader, in order
            put(_Failure(exc))
        else:
            put(END)

    async def _watch(self, cancel_event: asyncio.Event) -> None:
        await cancel_event.wait()
        self._queue.put_nowait(CANCELLED)

    async def next(self) -> Any:
        """The next chunk, ``END`` after the last, ``CANCELLED`` once the cancel event is set, ``TIMED_OUT`` once
        the deadline has passed.

        Raises:
            Exception: what reading the source raised, once the chunks before it were handed over.
        """
        if self._cancel is not None and self._cancel.is_set():
            return CANCELLED  # set while the caller handled the last chunk: stop before the next
        item = await self._queue.get()
        if isinstance(item, _Failure):
            raise item.exc
        return item

    async def stop(self) -> None:
        """Stop reading (idempotent)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except asyncio.CancelledError:
                if not task.cancelled():  # it is the caller that is being cancelled: let it
                    raise
        self._tasks = []


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc: Exception) -> None:
        self.exc = exc
