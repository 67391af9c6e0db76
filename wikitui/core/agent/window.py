"""The model's context window, and how a turn's first request is fitted into it (DESIGN §8).

The window comes from, first found wins:

1. the config's ``context_tokens`` (the user knows best: llama.cpp's ``-c``, vLLM's ``--max-model-len``);
2. litellm's model data (hosted models);
3. the server's ``GET /models`` entry for the model: ``meta.n_ctx_train`` (llama.cpp),
   ``max_model_len`` (vLLM), ``context_length`` (OpenRouter, LM Studio...); llama.cpp's
   ``GET /props`` ``n_ctx`` (what the server was started with) caps it when smaller;
4. 8,192 tokens, never an assumed 128k: a small local model overflows at once otherwise.

:class:`Budget` then splits the window for a turn: WIKI.md + index.md at most a quarter,
the tool schemas counted, room kept for the answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

#: Tokens assumed when nothing says what the model's window is.
DEFAULT_CONTEXT_TOKENS = 8192
#: Seconds the ``/models`` probe may take (a local server answers in milliseconds).
PROBE_TIMEOUT = 5.0
#: Where each server family puts the window in its ``/models`` entry, in order of trust.
_MODEL_FIELDS: tuple[tuple[str, ...], ...] = (
    ("max_model_len",), ("context_length",), ("max_context_length",), ("context_window",),
    ("meta", "n_ctx_train"), ("meta", "n_ctx"),
)


@dataclass(frozen=True, slots=True)
class ContextWindow:
    """A model's context window and where the figure came from (for messages).

    Attributes:
        tokens: The window in tokens.
        source: Where it came from ("context_tokens in the config", "litellm's model data",
            "the server's /models (meta.n_ctx_train)", "the default for unknown models").
    """

    tokens: int
    source: str


def resolve_window(configured: int | None, model: str, model_info: Callable[[str], dict | None],
                   probe: Callable[[], ContextWindow | None]) -> ContextWindow:
    """The window from config, litellm's data, the server, or the default (in that order).

    Args:
        configured: ``context_tokens`` from the settings (None or <= 0: not set).
        model: The litellm model name.
        model_info: litellm's ``get_model_info`` (raises or returns None for unknown models).
        probe: Asks the server (see :func:`probe_server`); None when it cannot tell.
    """
    if configured and configured > 0:
        return ContextWindow(int(configured), "context_tokens in the config")
    try:
        info = model_info(model) or {}
        tokens = int(info.get("max_input_tokens") or info.get("max_tokens") or 0)
    except Exception:  # litellm raises for models it does not know; unknown is unknown
        tokens = 0
    if tokens > 0:
        return ContextWindow(tokens, "litellm's model data")
    found = probe()
    if found is not None:
        return found
    return ContextWindow(DEFAULT_CONTEXT_TOKENS, "the default for models whose window is unknown")


def window_from_models(payload: Any, model: str) -> tuple[int, str] | None:
    """(tokens, field) from a ``/models`` listing, for ``model`` (or the only model listed)."""
    entries = payload.get("data") if isinstance(payload, dict) else payload
    if not isinstance(entries, list):
        return None
    entries = [e for e in entries if isinstance(e, dict)]
    bare = model.split("/", 1)[1] if "/" in model else model
    chosen = next((e for e in entries if e.get("id") in (model, bare)), None)
    if chosen is None:
        chosen = next((e for e in entries if isinstance(e.get("id"), str) and e["id"].endswith(bare)), None)
    if chosen is None and len(entries) == 1:
        chosen = entries[0]
    if chosen is None:
        return None
    for path in _MODEL_FIELDS:
        value: Any = chosen
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return int(value), ".".join(path)
    return None


def _n_ctx_from_props(payload: Any) -> int | None:
    """llama.cpp's running window from ``/props`` (``default_generation_settings.n_ctx``, or ``n_ctx``)."""
    if not isinstance(payload, dict):
        return None
    settings = payload.get("default_generation_settings")
    for value in ((settings or {}).get("n_ctx") if isinstance(settings, dict) else None, payload.get("n_ctx")):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def probe_server(api_base: str | None, model: str, api_key: str | None,
                 timeout: float = PROBE_TIMEOUT) -> ContextWindow | None:
    """Ask an OpenAI-compatible server for the model's window; None when it does not say (or cannot be reached).

    The key, when given, goes in the Authorization header only (vLLM and llama.cpp may
    require it); it is never part of a message.
    """
    if not api_base:
        return None
    import httpx  # deferred: only a model call needs it (litellm depends on it)

    base = api_base.rstrip("/")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx.Client(timeout=timeout, headers=headers, follow_redirects=True) as http:
            listing = _get_json(http, f"{base}/models")
            found = window_from_models(listing, model) if listing is not None else None
            root = base[: -len("/v1")] if base.endswith("/v1") else base
            props = _get_json(http, f"{root}/props") if found is None or found[1].startswith("meta") else None
    except Exception:  # a server that cannot say is a server that did not say
        return None
    n_ctx = _n_ctx_from_props(props)
    if found is None and n_ctx is None:
        return None
    if found is None or (n_ctx is not None and n_ctx < found[0]):
        return ContextWindow(n_ctx or 0, "the server's /props (n_ctx)")
    return ContextWindow(found[0], f"the server's /models ({found[1]})")


def _get_json(http: Any, url: str) -> Any:
    try:
        response = http.get(url)
        if response.status_code != 200:
            return None
        return json.loads(response.content[:1_000_000])
    except Exception:
        return None


#: The most one answer is allowed (``max_tokens``) unless ``max_output_tokens`` says otherwise.
MAX_ANSWER_TOKENS = 16_384


@dataclass(slots=True)
class Budget:
    """How a turn spends the window.

    Attributes:
        window: The context window.
        tools: Tokens of the tool schemas sent with each request.
        reserve: Tokens left free for the answer.
        context: Tokens WIKI.md + index.md may take (at most a quarter of the window).
        compact: The turn uses the compact instructions and tools (a small window): WIKI.md +
            index.md get an eighth, tool results are shorter, so the conversation keeps room.
    """

    window: ContextWindow
    tools: int
    reserve: int
    context: int
    compact: bool = False

    @classmethod
    def plan(cls, window: ContextWindow, tools_tokens: int, initial_context_tokens: int, *,
             compact: bool = False) -> "Budget":
        """The split for a window: a quarter for WIKI.md + index.md (an eighth when compact; or the configured
        cap), an eighth kept free."""
        reserve = min(8192, window.tokens // 8)
        context = max(0, min(initial_context_tokens, window.tokens // (8 if compact else 4)))
        return cls(window, tools_tokens, reserve, context, compact)

    def answer_tokens(self, sent: int) -> int:
        """``max_tokens`` for a request whose messages take ``sent`` tokens: the room it leaves in the window
        (less a margin for the counter's error), at least the reserve and at most :data:`MAX_ANSWER_TOKENS`.

        The reserve alone would hold a local model's 8k window to 1,024 tokens of answer even while the
        window is nearly empty, and a page proposed in one tool call is often longer than that.
        """
        room = self.window.tokens - self.tools - sent - self.window.tokens // 32
        return max(self.reserve, min(room, MAX_ANSWER_TOKENS))

    @property
    def messages(self) -> int:
        """Tokens the messages of one request may take."""
        return self.window.tokens - self.reserve - self.tools

    def result_chars(self) -> int:
        """Characters one tool result may take: about an eighth of the window, 4,000 to 24,000 (compact: up to
        4,000, about a quarter of a window under 4k, so a 2k window holds a result beside the prompt)."""
        if self.compact:
            return max(1000, min(4000, self.window.tokens))
        return max(4000, min(24_000, self.window.tokens // 2))
