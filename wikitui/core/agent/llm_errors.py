"""Naming what went wrong with a model call: which failures to retry, and the one line the user reads.

litellm wraps every provider failure in its own exception types, and often wraps the
truth once more (a refused connection arrives as an InternalServerError with status
500; a stream cut midway as a MidStreamFallbackError with status 500). The functions
here look through the whole cause chain so the message says what really happened,
and scrub anything quoted from the provider of secrets. The litellm module is passed
in (it is imported by :mod:`~wikitui.core.agent.llm` alone).
"""

from __future__ import annotations

import os
import re
from typing import Any

from wikitui.core.config.settings import Settings, scrub
from wikitui.core.base.errors import ModelError

#: The variable each provider reads its key from (for messages; litellm reads them itself).
KEY_VARS = {
    "openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY", "groq": "GROQ_API_KEY", "openrouter": "OPENROUTER_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY", "xai": "XAI_API_KEY", "together_ai": "TOGETHERAI_API_KEY",
    "cohere": "COHERE_API_KEY", "fireworks_ai": "FIREWORKS_AI_API_KEY", "azure": "AZURE_API_KEY",
}


class ContextOverflow(ModelError):
    """The request did not fit the model's context window (the session names the window and what was sent)."""


class NotACompletion(ModelError):
    """The server answered 200 with something that is not a chat completion (empty, HTML, plain JSON)."""


class CutAnswer(ModelError):
    """The stream broke off or closed before its end after it began: what arrived is not the whole answer."""

    #: The words that had arrived (set by the turn that caught it, which keeps them marked as cut).
    partial: str = ""


class TimeLimit(ModelError):
    """A request ran past ``request_timeout_s``, its whole answer counted (DESIGN §8: a total deadline)."""


def time_limit(settings: Settings, started: bool, last: str = "") -> TimeLimit:
    """The error for a request stopped at its total time limit: the limit named, and how to change it.

    ``last``: why the last attempt failed, when no time was left to retry it.
    """
    where = " in the middle of its answer" if started else " before it answered"
    why = f" (the last attempt: {last}, no time left to retry)" if last else ""
    return TimeLimit(f"{settings.model or 'the model'} ran past the time limit of {settings.request_timeout_s:g} s "
                     f"for one request (request_timeout_s) and was stopped{where}{why}; raise request_timeout_s in "
                     ".wikitui/config.toml for a slow model, or lower max_output_tokens")


class StreamEnded(Exception):
    """A stream that closed before its end (no ``finish_reason``, no ``[DONE]``): the answer is cut (DESIGN §8)."""


def provider_of(model: str) -> str:
    """The provider part of a litellm model name (``openai/gpt-4o`` -> ``openai``)."""
    return model.split("/", 1)[0] if "/" in model else "openai"


def key_var(settings: Settings) -> str:
    """The environment variable the key is read from (for messages)."""
    if settings.api_key_env:
        return settings.api_key_env
    provider = provider_of(settings.model or "")
    return KEY_VARS.get(provider, f"{provider.upper()}_API_KEY")


def classify(litellm: Any, exc: Exception, max_retry_after: float) -> tuple[bool, str, float | None]:
    """(worth retrying, short reason, wait) where wait -1 means "use the backoff" and None "do not retry"."""
    status = getattr(exc, "status_code", None)
    if isinstance(exc, litellm.RateLimitError) or status in (429, 529):  # 529: Anthropic's "overloaded"
        after = retry_after(exc)
        if after is not None and after > max_retry_after:
            return False, "rate limited", None
        return True, "rate limited", after if after is not None else -1
    kind = transport_failure(exc)
    if kind == "cut":
        return True, "the stream was cut off", -1
    if kind == "timeout":
        return True, "timed out", -1
    if kind == "connection":
        return True, "connection failed", -1
    if isinstance(status, int) and status >= 500:
        return True, f"server error {status}", -1
    if isinstance(exc, (litellm.InternalServerError, litellm.ServiceUnavailableError)):
        return True, "server error", -1
    return False, type(exc).__name__, None


def model_error(litellm: Any, exc: Exception, settings: Settings, attempt: int, started: bool) -> ModelError:
    """One line naming what went wrong and what to do; the key is scrubbed from anything quoted."""
    model = settings.model or "?"
    status = getattr(exc, "status_code", None)
    detail = error_detail(exc, settings)
    tries = f" ({attempt} attempt{'s' if attempt != 1 else ''})"
    where = settings.api_base or provider_of(model)
    if isinstance(exc, litellm.ContextWindowExceededError) or _says_context_exceeded(detail):
        return ContextOverflow(f"the request does not fit {model}'s context window: {detail}")
    if isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)) or status in (401, 403):
        var = key_var(settings)
        if var not in os.environ and not settings.api_key_env:
            return ModelError(f"no API key for {model}: set {var} (or name your own variable with api_key_env)")
        return ModelError(f"the API key in ${var} was rejected by {where} (HTTP {status or 401}); check it")
    if isinstance(exc, litellm.NotFoundError) or status == 404 or (
        isinstance(exc, litellm.BadRequestError) and re.search(r"model", detail, re.I)
        and re.search(r"not (exist|found|supported)|unknown|invalid model|does not", detail, re.I)
    ):
        return ModelError(f"unknown model {model!r} at {where}: {detail}; check --model / WIKITUI_MODEL")
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return ModelError(f"rate limited by {where}{tries}; wait a minute and try again")
    kind = transport_failure(exc)
    if kind == "cut":
        return CutAnswer(f"the answer from {where} was cut off: the connection closed before the stream "
                         f"ended{tries}")
    if kind == "timeout":
        if started:
            return ModelError(f"{model} stopped sending in the middle of its answer (nothing for "
                              f"{settings.timeout:g} s){tries}; the answer was cut off")
        return ModelError(f"{model} did not answer within {settings.timeout:g} s{tries}")
    if kind == "connection":
        mid = " (the answer was cut off)" if started else ""
        return ModelError(f"cannot reach {where}{mid}: network down or server not running{tries}: {detail}")
    if isinstance(status, int) and status >= 500:
        return ModelError(f"{where} failed with HTTP {status}{tries}: {detail}")
    if isinstance(exc, litellm.BadRequestError):
        return ModelError(f"{model} rejected the request: {detail}")
    return ModelError(f"model call failed ({type(exc).__name__}): {detail}")


def not_a_completion(settings: Settings, what: str = "") -> NotACompletion:
    """The error for a 200 that carried no chat completion (an empty body, an HTML page, plain JSON)."""
    where = settings.api_base or provider_of(settings.model or "")
    seen = f" ({what})" if what else ""
    return NotACompletion(f"the server's reply was not a chat completion{seen}: check that {where} is an "
                          "OpenAI-compatible API that streams (its /v1 address, not a web page or a proxy's login)")


_CONTEXT_WORDS = re.compile(r"context (length|size|window)|maximum context|too many tokens|prompt is too long", re.I)


def _says_context_exceeded(detail: str) -> bool:
    """Whether a provider's message says the prompt was too long (llama.cpp's 400 is not mapped by litellm)."""
    return bool(_CONTEXT_WORDS.search(detail)) and bool(re.search(r"exceed|too long|too many|maximum|greater", detail, re.I))


_TIMEOUT_NAMES = {"Timeout", "APITimeoutError", "TimeoutException", "ReadTimeout", "ConnectTimeout",
                  "TimeoutError", "ServerTimeoutError", "SocketTimeoutError"}
_CONNECTION_NAMES = {"APIConnectionError", "ConnectError", "ConnectionError", "ClientConnectorError",
                     "RemoteProtocolError", "ServerDisconnectedError", "ClientOSError", "ReadError"}
#: A response that began and then broke: the body ended before the stream did.
_CUT_NAMES = {"StreamEnded", "MidStreamFallbackError", "TransferEncodingError", "ClientPayloadError", "IncompleteRead",
              "ContentLengthError"}


def transport_failure(exc: BaseException) -> str | None:
    """"cut", "timeout" or "connection" when the failure (or anything in its cause chain) is one.

    A timeout anywhere in the chain wins (a stalled stream is a timeout, not a cut);
    then a stream that broke after it began; then a connection that failed.
    """
    names: set[str] = set()
    seen = 0
    cur: BaseException | None = exc
    while cur is not None and seen < 12:
        names |= {k.__name__ for k in type(cur).__mro__}
        cur = cur.__cause__ or cur.__context__
        seen += 1
    if names & _TIMEOUT_NAMES:
        return "timeout"
    if names & _CUT_NAMES or "peer closed connection without sending complete message body" in str(exc):
        return "cut"
    if names & _CONNECTION_NAMES:
        return "connection"
    return None


def retry_after(exc: Exception) -> float | None:
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


def error_detail(exc: Exception, settings: Settings) -> str:
    """The provider's message, first line, without litellm's prefixes, headers or any secret."""
    text = str(getattr(exc, "message", None) or exc)
    text = re.sub(r"\s*Headers\(\{.*", "", text, flags=re.S)
    text = re.sub(r"^(litellm\.\w+:\s*)+", "", text)
    text = re.sub(r"^\w+(Error|Exception):\s*", "", text)
    text = re.sub(r"^\w*Exception - ", "", text)
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
    line = scrub(line, settings)
    return line[:200] + ("…" if len(line) > 200 else "")
