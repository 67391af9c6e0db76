"""The model client: the only module that imports litellm (DESIGN §4, DEPENDENCIES.md).

``import litellm`` costs ~3 s and ~200 MB, so it happens on the first call that needs
it, never at import time: browsing, search and lint never pay for it. The offline
price map and quiet flags are set *before* the import (without them litellm fetches
its price map from the internet at import).

:class:`LLMClient` streams one chat request as :mod:`~wikitui.core.agent.events`,
retries what is worth retrying (429, 5xx, timeouts, connection errors) with
exponential backoff, and turns every failure into a one-line :class:`ModelError`
that never contains the API key. Each request asks for at most ``max_tokens`` (the answer's
share of the window, or ``max_output_tokens``) and has a total time limit,
``request_timeout_s``, that covers its whole streamed answer and its retries.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
import uuid
from collections import deque
from typing import Any, AsyncIterator, Awaitable, Callable

from wikitui.core.agent.argcheck import MAX_ARGUMENTS_CHARS, encodable, valid_unicode
from wikitui.core.agent.events import Done, Retrying, TextDelta, ToolCall, ToolCallDelta, Usage
from wikitui.core.agent.fast_stream import CANCELLED, END, TIMED_OUT, Pump, chunk_source
from wikitui.core.agent.llm_errors import (
    StreamEnded,
    classify,
    key_var,
    model_error,
    not_a_completion,
    provider_of,
    time_limit,
)
from wikitui.core.agent.window import DEFAULT_CONTEXT_TOKENS, PROBE_TIMEOUT, ContextWindow, probe_server, resolve_window
from wikitui.core.config.settings import Settings
from wikitui.core.base.errors import ModelError

#: Context window assumed for models nothing knows (kept under its old name for callers).
DEFAULT_CONTEXT_WINDOW = DEFAULT_CONTEXT_TOKENS

__all__ = ["DEFAULT_CONTEXT_WINDOW", "LLMClient", "load_litellm", "provider_of"]

_litellm: Any = None
_import_lock = threading.Lock()


def load_litellm() -> Any:
    """Import and configure litellm once (thread-safe); later calls return the module.

    The UI may call this from a worker thread at startup so the first question does not wait.
    """
    global _litellm
    if _litellm is not None:
        return _litellm
    with _import_lock:
        if _litellm is None:
            # Before the import: the bundled price map instead of a fetch from GitHub, and
            # no catalog/tokenizer downloads of litellm's own.
            os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
            os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
            import litellm  # noqa: PLC0415 - deliberately lazy

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            litellm.drop_params = True  # a provider that lacks stream_options should not fail the call
            # No per-chunk logging work for callbacks wikitui does not register (DEPENDENCIES.md).
            litellm.disable_streaming_logging = True
            _litellm = litellm
    return _litellm


class LLMClient:
    """Streams chat requests to the configured model through litellm.

    Args:
        settings: The resolved settings (model, api_base, api_key_env, timeout, context_tokens).
        base_delay: First retry delay in seconds (doubled each attempt, with jitter).
        max_attempts: Attempts per request before giving up.
        max_retry_after: A server's Retry-After longer than this is not waited for.
        rate_limit_attempts: Attempts per request when the server rate-limits (429, 529), if more
            than ``max_attempts`` (a batch pauses on rate limits rather than failing; its ``sleep``
            holds the total deadline).
        sleep: The coroutine used to wait between attempts (tests inject a fast one).

    Attributes:
        reader: How the chunks of OpenAI-compatible providers are read (see :mod:`.fast_stream`):
            ``"sse"`` parses the server-sent events of the OpenAI SDK stream that litellm
            opened (the default, the fastest), ``"sdk"`` iterates that stream's pydantic
            chunks, ``"litellm"`` goes through litellm's wrapper, as every other provider does.
        timeline: Per request (the last 1,000), ``time.perf_counter`` marks: ``called``
            (``stream`` entered), ``responded`` (the answer's headers arrived) and ``ended``
            (its last chunk was read) — the benchmark splits the round trip with them.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        base_delay: float = 0.5,
        max_attempts: int = 4,
        max_retry_after: float = 20.0,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        rate_limit_attempts: int | None = None,
    ) -> None:
        self.settings = settings
        self.base_delay = base_delay
        self.max_attempts = max_attempts
        self.rate_limit_attempts = rate_limit_attempts
        self.max_retry_after = max_retry_after
        self._sleep = sleep
        self.timeline: deque[dict[str, float]] = deque(maxlen=1000)
        self.reader = "sse"

    # ------------------------------------------------------------------ facts
    @property
    def model(self) -> str:
        """The model name (raises NoModelConfigured when none is set)."""
        return self.settings.require_model()

    @property
    def key_var(self) -> str:
        """The environment variable the key is read from (for messages)."""
        return key_var(self.settings)

    def context_window_info(self, model: str | None = None) -> ContextWindow:
        """The model's context window and where the figure came from (DESIGN §8; may ask the server: blocking)."""
        model = model or self.model  # NoModelConfigured before paying for the import
        litellm = load_litellm()
        return resolve_window(self.settings.context_tokens, model, litellm.get_model_info,
                              lambda: probe_server(self.settings.api_base, model, self._key_for_probe(),
                                                   min(PROBE_TIMEOUT, self.settings.timeout)))

    def context_window(self, model: str | None = None) -> int:
        """The model's input context window in tokens (see :meth:`context_window_info`)."""
        return self.context_window_info(model).tokens

    def supports_vision(self) -> bool:
        """Whether litellm knows the model takes pictures (``read`` then sends an image itself, not a description)."""
        litellm = load_litellm()
        try:
            return bool(litellm.supports_vision(model=self.model))
        except Exception:  # an unknown model, or a provider litellm cannot map: no pictures
            return False

    def _key_for_probe(self) -> str | None:
        key = self.settings.api_key
        if key is not None:
            return key.get_secret_value()
        return os.environ.get(self.key_var) or None

    def count_tokens(self, messages: list[dict] | None = None, *, text: str | None = None,
                     tools: list[dict] | None = None) -> int:
        """Tokens of ``messages`` (plus ``tools``) or of ``text``, via litellm (len/4 when it fails)."""
        litellm = load_litellm()
        try:
            if text is not None:
                return int(litellm.token_counter(model=self.settings.model or "", text=text))
            return int(litellm.token_counter(model=self.settings.model or "", messages=messages or [], tools=tools))
        except Exception:
            import json

            blob = text if text is not None else json.dumps([messages, tools], ensure_ascii=False, default=str)
            return max(1, len(blob) // 4)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """US dollars for these tokens from the offline price map (0.0 for unknown models)."""
        litellm = load_litellm()
        try:
            p, c = litellm.cost_per_token(model=self.model, prompt_tokens=prompt_tokens,
                                          completion_tokens=completion_tokens)
            return float(p) + float(c)
        except Exception:  # a model missing from the price map costs "unknown", counted as 0
            return 0.0

    def known_cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """US dollars for these tokens, or None when the price map does not know the model (a batch's estimate)."""
        litellm = load_litellm()
        try:
            p, c = litellm.cost_per_token(model=self.model, prompt_tokens=prompt_tokens,
                                          completion_tokens=completion_tokens)
            return float(p) + float(c)
        except Exception:
            return None

    # -------------------------------------------------------------- streaming
    def _request_kwargs(self, messages: list[dict], tools: list[dict] | None) -> dict:
        kwargs: dict[str, Any] = {
            "model": self.model,
            # No request carries what is not Unicode text (a lone surrogate from a file's invalid
            # bytes, say): no server accepts it, and a retry would only send it again (DESIGN §8).
            "messages": valid_unicode(messages),
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": self.settings.timeout,
            "max_retries": 0,  # the retries are ours (visible, with backoff); not the SDK's silent ones
        }
        if tools:
            kwargs["tools"] = valid_unicode(tools)
        if self.settings.api_base:
            kwargs["api_base"] = self.settings.api_base
        if self.settings.api_key_env:
            key = self.settings.api_key
            if key is None:
                raise ModelError(f"no API key: the variable {self.settings.api_key_env} (api_key_env) is not set")
            kwargs["api_key"] = key.get_secret_value()
        return kwargs

    async def stream(self, messages: list[dict], tools: list[dict] | None = None, *,
                     cancel_event: asyncio.Event | None = None, max_tokens: int | None = None) -> AsyncIterator[Any]:
        """Send one chat request and yield its events as they arrive.

        Yields :class:`TextDelta` and :class:`ToolCallDelta` while streaming,
        :class:`Retrying` before a retry, then the complete :class:`ToolCall` s, one
        :class:`Usage` and finally :class:`Done`. A set ``cancel_event`` stops the
        stream promptly (``Done.cancelled``, after a :class:`Usage` that counts what
        was sent and received: a cancelled answer was still paid for). ``max_tokens`` caps the
        answer (``settings.max_output_tokens`` wins over it). The request, its retries and its
        whole streamed answer must end within ``settings.request_timeout_s``.

        Raises:
            ModelError: one clear line, after retries where they make sense. A reply that
                is not a chat completion (an empty 200, an HTML page, plain JSON to a
                stream request) is a :class:`NotACompletion`; an overflow a
                :class:`ContextOverflow`; a request past its time limit a :class:`TimeLimit`.
                When part of an answer had arrived, a :class:`Usage` for it is yielded before the error.
            NoModelConfigured: no model is configured.
        """
        kwargs = self._request_kwargs(messages, tools)
        # The answer has a limit: a rambling model behind an uncapped server otherwise never stops (issue 25).
        cap = self.settings.max_output_tokens or max_tokens
        if cap:
            kwargs["max_tokens"] = int(cap)
        litellm = load_litellm()
        loop = asyncio.get_running_loop()
        limit = self.settings.request_timeout_s
        deadline = loop.time() + limit if limit and limit > 0 else None
        marks = {"called": time.perf_counter()}
        self.timeline.append(marks)
        attempt = 0
        while True:
            attempt += 1
            started = False  # something the user saw (text, a tool call) has arrived: no silent retry
            received = False  # the server sent anything a chat completion sends
            text_parts: list[str] = []
            calls: dict[int, _Slot] = {}
            usage = None
            finish = None
            response = source = pump = None
            try:
                left = None if deadline is None else deadline - loop.time()
                if left is not None and left <= 0:
                    raise time_limit(self.settings, started)
                response = await _race(litellm.acompletion(**kwargs), cancel_event, left)
                marks["responded"] = time.perf_counter()
                if response is CANCELLED:  # before any answer: nothing to count
                    yield Done("", [], None, cancelled=True)
                    return
                if response is TIMED_OUT:
                    raise time_limit(self.settings, started)
                source = chunk_source(response, self.reader)
                pump = Pump(source, cancel_event, deadline)
                while True:
                    chunk = await pump.next()
                    if chunk is TIMED_OUT:  # a server trickling tokens forever: the whole answer has a limit
                        await _stop(pump, source)
                        if received:  # what came was paid for
                            yield self._usage(None, messages, tools, "".join(text_parts), _assemble(calls))
                        raise time_limit(self.settings, started)
                    if chunk is CANCELLED:
                        await _stop(pump, source)
                        text, done_calls = "".join(text_parts), _assemble(calls)
                        yield self._usage(None, messages, tools, text, done_calls)
                        yield Done(text, done_calls, finish, cancelled=True)
                        return
                    if chunk is END:
                        break
                    chunk_usage = getattr(chunk, "usage", None)
                    if chunk_usage is not None:
                        usage = chunk_usage
                        received = True
                    for choice in getattr(chunk, "choices", None) or []:
                        delta = choice.delta
                        content = getattr(delta, "content", None)
                        if content is not None or getattr(delta, "role", None):
                            received = True
                        if content:
                            started = True
                            content = encodable(content)
                            text_parts.append(content)
                            yield TextDelta(content)
                        for tc in getattr(delta, "tool_calls", None) or []:
                            started = received = True
                            index = tc.index if type(tc.index) is int else max(calls, default=0)
                            slot = calls.get(index)
                            if slot is None:
                                slot = calls[index] = _Slot()
                            fn = tc.function
                            name = getattr(fn, "name", None) if fn else None
                            args = (getattr(fn, "arguments", None) or "") if fn else ""
                            if not isinstance(args, str):
                                args = str(args)
                            if tc.id:
                                slot.id = str(tc.id)
                            if name and len(slot.name) < 1000:  # kept to 200 characters anyway: never grown past
                                slot.name += name if slot.name != name else ""
                            slot.add(args)
                            yield ToolCallDelta(index, name, args)
                        if choice.finish_reason:
                            finish = choice.finish_reason
                marks["ended"] = time.perf_counter()
                ended = getattr(source, "ended", False)  # the SSE reader saw [DONE]
                if source is not response:
                    await _stop(pump, source)  # litellm's wrapper was bypassed: release the connection ourselves
                if not received:  # litellm invents a "stop" chunk for a body with no stream in it
                    raise not_a_completion(self.settings, _content_type(response))
                if finish is None and not ended:  # closed before its end: what came is not the whole answer
                    raise StreamEnded("the stream ended before a finish_reason or [DONE]")
            except ModelError:
                raise
            except Exception as exc:  # every provider failure passes through here to be named
                if pump is not None:
                    await _stop(pump, source if source is not response else None)
                retry, reason, wait = classify(litellm, exc, self.max_retry_after)
                limit = self.max_attempts
                if reason == "rate limited" and self.rate_limit_attempts:
                    limit = max(limit, self.rate_limit_attempts)
                if retry and not started and attempt < limit and wait is not None:
                    delay = wait if wait >= 0 else self.base_delay * (2 ** (min(attempt, 8) - 1)) * (1 + random.random() / 4)
                    if deadline is not None and loop.time() + delay >= deadline:  # no time left for another try
                        raise time_limit(self.settings, started, reason) from None
                    yield Retrying(attempt, limit, delay, reason)
                    await self._sleep(delay)
                    continue
                if started:  # the part that arrived was paid for
                    yield self._usage(None, messages, tools, "".join(text_parts), _assemble(calls))
                raise model_error(litellm, exc, self.settings, attempt, started) from None
            finally:
                if pump is not None:  # a caller that stopped iterating or was cancelled: stop reading too
                    await pump.stop()
            tool_calls = _assemble(calls)
            text = "".join(text_parts)
            for call in tool_calls:
                yield call
            yield self._usage(usage, messages, tools, text, tool_calls)
            yield Done(text, tool_calls, finish)
            return

    def _usage(self, usage: Any, messages: list[dict], tools: list[dict] | None, text: str,
               calls: list[ToolCall]) -> Usage:
        """The request's usage as reported, or counted locally when the server sent none."""
        prompt, completion = _tokens(usage, "prompt_tokens"), _tokens(usage, "completion_tokens")
        estimated = prompt is None or completion is None  # none sent, or not numbers: count them here
        if estimated:
            prompt = self.count_tokens(messages, tools=tools)
            completion = self.count_tokens(text=text + "".join(c.name + c.arguments_json for c in calls)) \
                if text or calls else 0
        assert prompt is not None and completion is not None  # sent, or counted just above
        return Usage(prompt, completion, self.cost(prompt, completion), estimated)


# --------------------------------------------------------------------- helpers
def _tokens(usage: Any, field: str) -> int | None:
    """A token count from the server's usage; None when there is none or it is not a count."""
    value = getattr(usage, field, 0) if usage is not None else None
    if value is None or value == "":
        return 0 if usage is not None else None  # a field left out or null counts nothing
    try:
        return max(0, int(value))
    except (TypeError, ValueError, OverflowError):
        return None


async def _race(awaitable: Awaitable[Any], cancel_event: asyncio.Event | None, timeout: float | None = None) -> Any:
    """Await ``awaitable`` unless ``cancel_event`` fires first (then ``CANCELLED``) or ``timeout`` seconds
    pass (then ``TIMED_OUT``)."""
    if cancel_event is None and timeout is None:
        return await awaitable
    if cancel_event is not None and cancel_event.is_set():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        return CANCELLED
    task = asyncio.ensure_future(awaitable)
    waiter = asyncio.ensure_future(cancel_event.wait()) if cancel_event is not None else None
    try:
        done, _ = await asyncio.wait({task} if waiter is None else {task, waiter}, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        if waiter is not None:
            waiter.cancel()
        raise
    if waiter is not None and waiter not in done:
        waiter.cancel()
    if task in done:
        return task.result()
    outcome = CANCELLED if waiter is not None and waiter in done else TIMED_OUT
    task.cancel()
    try:
        late = await task  # the answer began as the cancel (or the limit) came: release its connection
    except (asyncio.CancelledError, Exception):
        return outcome
    await _close(late)
    return outcome


async def _stop(pump: Pump, source: Any) -> None:
    """Stop ``pump`` reading, then close ``source`` (None: litellm's wrapper closes its own)."""
    await pump.stop()
    if source is not None:
        await _close(source)


async def _close(response: Any) -> None:
    closer = getattr(response, "aclose", None)
    if closer is not None:
        try:
            await closer()
        except Exception:  # closing a dead stream may fail; nothing more to release
            pass


def _content_type(response: Any) -> str:
    """The reply's HTTP content type as litellm recorded it ("" when unknown), for the error message."""
    try:
        headers = (getattr(response, "_hidden_params", None) or {}).get("additional_headers") or {}
        kind = str(headers.get("llm_provider-content-type") or "").split(";")[0].strip()
    except Exception:
        return ""
    return f"HTTP 200, {kind}" if kind else ""


class _Slot:
    """One tool call as its chunks arrive: the arguments kept as a list of parts, joined once.

    ``+=`` on a string held in a container copies it whole each time: 5 MB of arguments in
    5-character chunks moved terabytes. Past :data:`MAX_ARGUMENTS_CHARS` (the limit every
    tool call has, the MCP server's too) the parts are no longer kept, only counted: the
    call gets an error result naming the limit, and the turn goes on with the other calls.
    """

    __slots__ = ("id", "name", "parts", "size")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name = ""
        self.parts: list[str] = []
        self.size = 0

    def add(self, args: str) -> None:
        if not args:
            return
        self.size += len(args)
        if self.size <= MAX_ARGUMENTS_CHARS:
            self.parts.append(args)
        elif self.parts:
            self.parts = []  # over the limit: what came is dropped, the rest only counted

    @property
    def arguments(self) -> str:
        if self.size > MAX_ARGUMENTS_CHARS:
            return ""
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""


def _assemble(calls: dict[int, _Slot]) -> list[ToolCall]:
    out = []
    for index in sorted(calls):
        slot = calls[index]
        # The id and name go back to the server in the next request: no lone surrogate may make
        # that request unencodable. The arguments stay as sent, for the tool to refuse with a reason.
        call_id = encodable(slot.id or "")[:200] or f"call_{uuid.uuid4().hex[:12]}"
        too_long = slot.size if slot.size > MAX_ARGUMENTS_CHARS else 0
        out.append(ToolCall(call_id, encodable(slot.name)[:200], slot.arguments, too_long))
    return out
