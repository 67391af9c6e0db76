"""The model client: the only module that imports litellm (DESIGN §4, DEPENDENCIES.md).

``import litellm`` costs ~3 s and ~200 MB, so it happens on the first call that needs
it, never at import time: browsing, search and lint never pay for it. The offline
price map and quiet flags are set *before* the import (without them litellm fetches
its price map from the internet at import).

:class:`LLMClient` streams one chat request as :mod:`~wikitui.core.agent.events`,
retries what is worth retrying (429, 5xx, timeouts, connection errors) with
exponential backoff, and turns every failure into a one-line :class:`ModelError`
that never contains the API key.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import threading
import uuid
from typing import Any, AsyncIterator, Awaitable, Callable

from wikitui.core.agent.events import Done, Retrying, TextDelta, ToolCall, ToolCallDelta, Usage
from wikitui.core.config import Settings, scrub
from wikitui.core.errors import ModelError

#: Context window assumed for models litellm does not know.
DEFAULT_CONTEXT_WINDOW = 128_000

_litellm: Any = None
_import_lock = threading.Lock()

#: The variable each provider reads its key from (for messages; litellm reads them itself).
_KEY_VARS = {
    "openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY", "groq": "GROQ_API_KEY", "openrouter": "OPENROUTER_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY", "xai": "XAI_API_KEY", "together_ai": "TOGETHERAI_API_KEY",
    "cohere": "COHERE_API_KEY", "fireworks_ai": "FIREWORKS_AI_API_KEY", "azure": "AZURE_API_KEY",
}


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
            _litellm = litellm
    return _litellm


def provider_of(model: str) -> str:
    """The provider part of a litellm model name (``openai/gpt-4o`` -> ``openai``)."""
    return model.split("/", 1)[0] if "/" in model else "openai"


class LLMClient:
    """Streams chat requests to the configured model through litellm.

    Args:
        settings: The resolved settings (model, api_base, api_key_env, timeout).
        base_delay: First retry delay in seconds (doubled each attempt, with jitter).
        max_attempts: Attempts per request before giving up.
        max_retry_after: A server's Retry-After longer than this is not waited for.
        sleep: The coroutine used to wait between attempts (tests inject a fast one).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        base_delay: float = 0.5,
        max_attempts: int = 4,
        max_retry_after: float = 20.0,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.settings = settings
        self.base_delay = base_delay
        self.max_attempts = max_attempts
        self.max_retry_after = max_retry_after
        self._sleep = sleep

    # ------------------------------------------------------------------ facts
    @property
    def model(self) -> str:
        """The model name (raises NoModelConfigured when none is set)."""
        return self.settings.require_model()

    @property
    def key_var(self) -> str:
        """The environment variable the key is read from (for messages)."""
        if self.settings.api_key_env:
            return self.settings.api_key_env
        provider = provider_of(self.settings.model or "")
        return _KEY_VARS.get(provider, f"{provider.upper()}_API_KEY")

    def context_window(self, model: str | None = None) -> int:
        """The model's input context window in tokens (128k when litellm does not know it)."""
        model = model or self.model  # NoModelConfigured before paying for the import
        litellm = load_litellm()
        try:
            info = litellm.get_model_info(model)
            return int(info.get("max_input_tokens") or info.get("max_tokens") or DEFAULT_CONTEXT_WINDOW)
        except Exception:  # unknown model: litellm raises; any other failure is just as unknown
            return DEFAULT_CONTEXT_WINDOW

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

    # -------------------------------------------------------------- streaming
    def _request_kwargs(self, messages: list[dict], tools: list[dict] | None) -> dict:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": self.settings.timeout,
            "max_retries": 0,  # the retries are ours (visible, with backoff); not the SDK's silent ones
        }
        if tools:
            kwargs["tools"] = tools
        if self.settings.api_base:
            kwargs["api_base"] = self.settings.api_base
        if self.settings.api_key_env:
            key = self.settings.api_key
            if key is None:
                raise ModelError(f"no API key: the variable {self.settings.api_key_env} (api_key_env) is not set")
            kwargs["api_key"] = key.get_secret_value()
        return kwargs

    async def stream(self, messages: list[dict], tools: list[dict] | None = None, *,
                     cancel_event: asyncio.Event | None = None) -> AsyncIterator[Any]:
        """Send one chat request and yield its events as they arrive.

        Yields :class:`TextDelta` and :class:`ToolCallDelta` while streaming,
        :class:`Retrying` before a retry, then the complete :class:`ToolCall` s, one
        :class:`Usage` and finally :class:`Done`. A set ``cancel_event`` stops the
        stream promptly (``Done.cancelled``).

        Raises:
            ModelError: one clear line, after retries where they make sense.
            NoModelConfigured: no model is configured.
        """
        kwargs = self._request_kwargs(messages, tools)
        litellm = load_litellm()
        attempt = 0
        while True:
            attempt += 1
            started = False
            text_parts: list[str] = []
            calls: dict[int, dict] = {}
            usage = None
            finish = None
            response = None
            try:
                response = await _race(litellm.acompletion(**kwargs), cancel_event)
                if response is _CANCELLED:
                    yield Done("", [], None, cancelled=True)
                    return
                iterator = response.__aiter__()
                while True:
                    chunk = await _race(iterator.__anext__(), cancel_event)
                    if chunk is _CANCELLED:
                        await _close(response)
                        yield Done("".join(text_parts), _assemble(calls), finish, cancelled=True)
                        return
                    if chunk is _END:
                        break
                    usage = getattr(chunk, "usage", None) or usage
                    for choice in getattr(chunk, "choices", None) or []:
                        delta = choice.delta
                        if getattr(delta, "content", None):
                            started = True
                            text_parts.append(delta.content)
                            yield TextDelta(delta.content)
                        for tc in getattr(delta, "tool_calls", None) or []:
                            started = True
                            index = tc.index if tc.index is not None else max(calls, default=0)
                            slot = calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
                            fn = tc.function
                            name = getattr(fn, "name", None) if fn else None
                            args = (getattr(fn, "arguments", None) or "") if fn else ""
                            if tc.id:
                                slot["id"] = tc.id
                            if name:
                                slot["name"] += name if slot["name"] != name else ""
                            slot["arguments"] += args
                            yield ToolCallDelta(index, name, args)
                        if choice.finish_reason:
                            finish = choice.finish_reason
            except ModelError:
                raise
            except Exception as exc:  # every provider failure passes through here to be named
                retry, reason, wait = self._classify(exc)
                if retry and not started and attempt < self.max_attempts and wait is not None:
                    delay = wait if wait >= 0 else self.base_delay * (2 ** (attempt - 1)) * (1 + random.random() / 4)
                    yield Retrying(attempt, self.max_attempts, delay, reason)
                    await self._sleep(delay)
                    continue
                raise ModelError(self._message(exc, attempt, started)) from None
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
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0) if usage is not None else 0
        completion = int(getattr(usage, "completion_tokens", 0) or 0) if usage is not None else 0
        estimated = usage is None
        if estimated:
            prompt = self.count_tokens(messages, tools=tools)
            completion = self.count_tokens(text=text + "".join(c.name + c.arguments_json for c in calls))
        return Usage(prompt, completion, self.cost(prompt, completion), estimated)

    # ----------------------------------------------------------------- errors
    def _classify(self, exc: Exception) -> tuple[bool, str, float | None]:
        """(worth retrying, short reason, wait) where wait -1 means "use the backoff" and None "do not retry"."""
        litellm = load_litellm()
        status = getattr(exc, "status_code", None)
        if isinstance(exc, litellm.RateLimitError) or status == 429:
            after = _retry_after(exc)
            if after is not None and after > self.max_retry_after:
                return False, "rate limited", None
            return True, "rate limited", after if after is not None else -1
        kind = _transport_failure(exc)
        if kind == "timeout":
            return True, "timed out", -1
        if kind == "connection":
            return True, "connection failed", -1
        if isinstance(status, int) and status >= 500:
            return True, f"server error {status}", -1
        if isinstance(exc, (litellm.InternalServerError, litellm.ServiceUnavailableError)):
            return True, "server error", -1
        return False, type(exc).__name__, None

    def _message(self, exc: Exception, attempt: int, started: bool) -> str:
        """One line naming what went wrong and what to do; the key is scrubbed from anything quoted."""
        litellm = load_litellm()
        model = self.settings.model or "?"
        status = getattr(exc, "status_code", None)
        detail = _detail(exc, self.settings)
        tries = f" ({attempt} attempt{'s' if attempt != 1 else ''})"
        where = self.settings.api_base or provider_of(model)
        if isinstance(exc, litellm.ContextWindowExceededError):
            return (f"the conversation no longer fits {model}'s context window: start a new session "
                    "or ask about less at once")
        if isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)) or status in (401, 403):
            var = self.key_var
            if var not in os.environ and not self.settings.api_key_env:
                return f"no API key for {model}: set {var} (or name your own variable with api_key_env)"
            return f"the API key in ${var} was rejected by {where} (HTTP {status or 401}); check it"
        if isinstance(exc, litellm.NotFoundError) or status == 404 or (
            isinstance(exc, litellm.BadRequestError) and re.search(r"model", detail, re.I)
            and re.search(r"not (exist|found|supported)|unknown|invalid model|does not", detail, re.I)
        ):
            return f"unknown model {model!r} at {where}: {detail}; check --model / WIKITUI_MODEL"
        if isinstance(exc, litellm.RateLimitError) or status == 429:
            return f"rate limited by {where}{tries}; wait a minute and try again"
        kind = _transport_failure(exc)
        if kind == "timeout":
            return f"{model} did not answer within {self.settings.timeout:g} s{tries}"
        if kind == "connection":
            mid = " (the answer was cut off)" if started else ""
            return f"cannot reach {where}{mid}: network down or server not running{tries}: {detail}"
        if isinstance(status, int) and status >= 500:
            return f"{where} failed with HTTP {status}{tries}: {detail}"
        if isinstance(exc, litellm.BadRequestError):
            return f"{model} rejected the request: {detail}"
        return f"model call failed ({type(exc).__name__}): {detail}"


# --------------------------------------------------------------------- helpers
_CANCELLED = object()
_END = object()


async def _race(awaitable: Awaitable[Any], cancel_event: asyncio.Event | None) -> Any:
    """Await ``awaitable`` unless ``cancel_event`` fires first (then ``_CANCELLED``); end of stream is ``_END``."""

    async def run() -> Any:
        try:
            return await awaitable
        except StopAsyncIteration:
            return _END

    if cancel_event is None:
        return await run()
    if cancel_event.is_set():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        return _CANCELLED
    task = asyncio.ensure_future(run())
    waiter = asyncio.ensure_future(cancel_event.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        waiter.cancel()
        raise
    if task in done:
        waiter.cancel()
        return task.result()
    task.cancel()
    try:
        await task
    except (asyncio.CancelledError, Exception):
        pass
    return _CANCELLED


async def _close(response: Any) -> None:
    closer = getattr(response, "aclose", None)
    if closer is not None:
        try:
            await closer()
        except Exception:  # closing a dead stream may fail; nothing more to release
            pass


def _assemble(calls: dict[int, dict]) -> list[ToolCall]:
    out = []
    for index in sorted(calls):
        slot = calls[index]
        out.append(ToolCall(slot["id"] or f"call_{uuid.uuid4().hex[:12]}", slot["name"], slot["arguments"]))
    return out


_TIMEOUT_NAMES = {"Timeout", "APITimeoutError", "TimeoutException", "ReadTimeout", "ConnectTimeout",
                  "TimeoutError", "ServerTimeoutError"}
_CONNECTION_NAMES = {"APIConnectionError", "ConnectError", "ConnectionError", "ClientConnectorError",
                     "RemoteProtocolError", "ServerDisconnectedError", "ClientOSError", "ReadError"}


def _transport_failure(exc: BaseException) -> str | None:
    """"timeout" or "connection" when the failure (or anything in its cause chain) is one.

    litellm reports a refused connection as an InternalServerError with status 500; the
    chain underneath (openai.APIConnectionError, httpx.ConnectError...) tells the truth.
    """
    seen = 0
    cur: BaseException | None = exc
    while cur is not None and seen < 12:
        names = {k.__name__ for k in type(cur).__mro__}
        if names & _TIMEOUT_NAMES:
            return "timeout"
        if names & _CONNECTION_NAMES:
            return "connection"
        cur = cur.__cause__ or cur.__context__
        seen += 1
    return None


def _retry_after(exc: Exception) -> float | None:
    """Seconds from the error's Retry-After header (or its text), when present."""
    for source in (getattr(getattr(exc, "response", None), "headers", None),
                   getattr(exc, "litellm_response_headers", None), getattr(exc, "headers", None)):
        try:
            value = source.get("retry-after") if source is not None else None
        except Exception:
            value = None
        if value is not None:
            try:
                return max(0.0, float(value))
            except ValueError:
                return None
    m = re.search(r"retry-after['\"]?\s*[:=]\s*['\"]?(\d+(?:\.\d+)?)", str(exc), re.I)
    return float(m.group(1)) if m else None


def _detail(exc: Exception, settings: Settings) -> str:
    """The provider's message, first line, without litellm's prefixes, headers or any secret."""
    text = str(getattr(exc, "message", None) or exc)
    text = re.sub(r"\s*Headers\(\{.*", "", text, flags=re.S)
    text = re.sub(r"^(litellm\.\w+:\s*)+", "", text)
    text = re.sub(r"^\w+(Error|Exception):\s*", "", text)
    text = re.sub(r"^\w*Exception - ", "", text)
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
    line = scrub(line, settings)
    return line[:200] + ("…" if len(line) > 200 else "")
