"""Making a turn's first request fit the model's window, and saying so plainly when it cannot.

The system prompt carries WIKI.md and index.md, cut together to at most a quarter of
the window (:class:`~wikitui.core.agent.window.Budget`); the tool schemas and the room
kept for the answer are counted too. When even that is too much (a 4k local model, a
long message), the WIKI.md + index.md share shrinks until the request fits, and only
a window too small for wikitui's own instructions is an error — one that names the
window, where the figure came from, and what the request was made of.
"""

from __future__ import annotations

from typing import Callable

from wikitui.core.agent.llm_errors import ContextOverflow
from wikitui.core.agent.prompts import system as prompts
from wikitui.core.agent.window import Budget
from wikitui.core.vault.files import read_text
from wikitui.core.vault.formats import needs_conversion, source_text

#: Where the user can state the window when nothing else knows it.
_CONFIG_HINT = ("set context_tokens in .wikitui/config.toml to the server's real window (llama.cpp: the -c it was "
                "started with; vLLM: --max-model-len)")


def fit_system_prompt(vault, graph, task: str, budget: Budget, user_message: dict, count_text: Callable[[str], int],
                      count_message: Callable[[dict], int], *, model: str) -> tuple[str, int]:
    """The system prompt and its tokens, sized so the first request of the turn fits the window.

    Raises:
        ContextOverflow: the window cannot hold wikitui's instructions, the tool schemas,
            the message and the room for an answer even with no WIKI.md or index.md.
    """
    user_tokens = count_message(user_message)
    share = budget.context
    for _ in range(4):
        ctx = prompts.initial_context(vault, share, count_text)
        system = prompts.system_prompt(vault, graph, ctx, task)
        system_tokens = count_message({"role": "system", "content": system})
        over = system_tokens + user_tokens + budget.tools + budget.reserve - budget.window.tokens
        if over <= 0:
            return system, system_tokens
        if share == 0:
            break
        share = max(0, min(share, ctx.tokens) - over - 16)
    w = budget.window
    raise ContextOverflow(
        f"{model}'s context window of {w.tokens:,} tokens ({w.source}) cannot hold this request: wikitui's "
        f"instructions take {system_tokens:,} tokens, the tool schemas {budget.tools:,}, your message "
        f"{user_tokens:,}, and {budget.reserve:,} are kept for the answer. If the window is larger, {_CONFIG_HINT}; "
        "otherwise use a model with a larger window")


def overflow_message(model: str, budget: Budget, sent: int, system_tokens: int, first: bool, detail: str) -> str:
    """The message for a request the server refused as too long: the window, what was sent, what to do."""
    w = budget.window
    conversation = max(0, sent - system_tokens - budget.tools)
    what = (f"about {sent:,} tokens were sent (instructions with WIKI.md and index.md {system_tokens:,}, tool "
            f"schemas {budget.tools:,}, conversation {conversation:,})")
    todo = (f"the server's window is smaller than that: {_CONFIG_HINT}" if first else
            "/clear starts a new conversation, or ask about less at once")
    said = f" The server said: {detail.split(': ', 1)[-1]}" if detail else ""
    return f"the request did not fit {model}'s context window of {w.tokens:,} tokens ({w.source}): {what}; {todo}.{said}"


def source_excerpt(vault, rel: str, budget: Budget, count_text: Callable[[str], int]) -> str:
    """The source, paged to a quarter of the window, for a model that did not read it with the tools."""
    try:
        if needs_conversion(rel):  # a PDF, web page, document...: its converted text (cached by the ingest)
            conversion = source_text(vault, rel)
            if not conversion.ok:
                return f"\n\n(The source {rel} cannot be read as text: {conversion.error}.)"
            text = conversion.text
        else:
            text = read_text(vault.root / rel)
    except OSError as exc:
        return f"\n\n(The source {rel} cannot be read: {exc.strerror or exc}.)"
    kept, _tokens, note = prompts.cut_to_tokens(text, budget.window.tokens // 4, count_text, rel)
    more = f"\n{note}" if note else ""
    return (f"\n\nYou have not read the source with the tools, so here it is:\n\n<source path=\"{rel}\">\n"
            f"{kept.rstrip()}\n</source>{more}")
