"""Making a turn's first request fit the model's window, and saying so plainly when it cannot.

The system prompt carries WIKI.md and index.md (or, past its share, the catalog entries
chosen for the turn: :mod:`~wikitui.core.agent.turn_catalog`), together at most a quarter of
the window (:class:`~wikitui.core.agent.window.Budget`); the tool schemas and the room
kept for the answer are counted too. When even that is too much (a 4k local model, a
long message), the WIKI.md + index.md share shrinks until the request fits. A window
that the full instructions and ten tool schemas would crowd (more than half of it) gets
the compact instructions and four tools instead (:func:`fit_first_request`); only a
window too small even for those is an error — one that names the window, where the
figure came from, and what the request was made of.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from wikitui.core.agent.llm_errors import ContextOverflow
from wikitui.core.agent.prompts import compact as compact_prompts
from wikitui.core.agent.prompts import system as prompts
from wikitui.core.agent.prompts.compact import Task
from wikitui.core.agent.window import Budget, ContextWindow
from wikitui.core.vault.files import read_text
from wikitui.core.vault.formats import needs_conversion, source_text

#: Where the user can state the window when nothing else knows it.
_CONFIG_HINT = ("set context_tokens in .wikitui/config.toml to the server's real window (llama.cpp: the -c it was "
                "started with; vLLM: --max-model-len)")


@dataclass(slots=True)
class FirstRequest:
    """How a turn phase's requests are made: which instructions and tools, the budget, the system prompt.

    Attributes:
        compact: The compact instructions and tools (:mod:`~wikitui.core.agent.prompts.compact`).
        budget: The window's split for that set.
        system: The system prompt, WIKI.md and index.md cut to fit.
        system_tokens: Its tokens.
    """

    compact: bool
    budget: Budget
    system: str
    system_tokens: int


def fit_first_request(vault, graph, task: Task | str, window: ContextWindow, tools_tokens: Callable[[bool], int],
                      user_message: dict, count_text: Callable[[str], int], count_message: Callable[[dict], int], *,
                      model: str, initial_context_tokens: int, compact: bool | None = None,
                      catalog=None) -> FirstRequest:
    """The instructions, tools and system prompt for a turn phase, chosen so its first request fits the window.

    Args:
        task: The operation's instructions (a :class:`Task` in both sizes; a string serves for both).
        tools_tokens: The tokens of the tool schemas: ``tools_tokens(compact)``.
        compact: True: the compact set; False: the full one; None (auto): the full set when its
            instructions and schemas take at most half the window and the request fits, else the compact one.
        catalog: The turn's :class:`~wikitui.core.agent.turn_catalog.TurnCatalog`: an index.md past its share
            becomes the entries chosen for the turn (None: it is cut at a line).

    Raises:
        ContextOverflow: the window cannot hold even the chosen (or, in auto, the compact) set.
    """
    full_task, compact_task = (task.full, task.compact) if isinstance(task, Task) else (task, task)

    def attempt(small: bool) -> tuple[FirstRequest, int]:
        budget = Budget.plan(window, tools_tokens(small), initial_context_tokens, compact=small)
        system, tokens, context = _fit(vault, graph, compact_task if small else full_task, budget, user_message,
                                       count_text, count_message, model=model, compact=small, catalog=catalog)
        return FirstRequest(small, budget, system, tokens), tokens - context + budget.tools

    if compact is None:
        try:
            full, fixed = attempt(False)
            if fixed <= window.tokens // 2:
                return full
        except ContextOverflow:
            pass
        return attempt(True)[0]
    return attempt(compact)[0]


def _fit(vault, graph, task: str, budget: Budget, user_message: dict, count_text: Callable[[str], int],
         count_message: Callable[[dict], int], *, model: str, compact: bool = False,
         catalog=None) -> tuple[str, int, int]:
    """(system prompt, its tokens, the tokens of WIKI.md + index.md in it), WIKI.md + index.md shrunk until it fits."""
    build = compact_prompts.system_prompt if compact else prompts.system_prompt
    user_tokens = count_message(user_message)
    share = budget.context
    for _ in range(4):
        ctx = prompts.initial_context(vault, share, count_text, catalog)
        system = build(vault, graph, ctx, task)
        system_tokens = count_message({"role": "system", "content": system})
        over = system_tokens + user_tokens + budget.tools + budget.reserve - budget.window.tokens
        if over <= 0:
            return system, system_tokens, ctx.tokens
        if share == 0:
            break
        share = max(0, min(share, ctx.tokens) - over - 16)
    w = budget.window
    which = "compact instructions" if compact else "instructions"
    raise ContextOverflow(
        f"{model}'s context window of {w.tokens:,} tokens ({w.source}) cannot hold this request: wikitui's "
        f"{which} take {system_tokens:,} tokens, the tool schemas {budget.tools:,}, your message "
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


def source_excerpt(vault, rel: str, window: ContextWindow, count_text: Callable[[str], int]) -> str:
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
    kept, _tokens, note = prompts.cut_to_tokens(text, window.tokens // 4, count_text, rel)
    more = f"\n{note}" if note else ""
    return (f"\n\nYou have not read the source with the tools, so here it is:\n\n<source path=\"{rel}\">\n"
            f"{kept.rstrip()}\n</source>{more}")
