"""The agent: an LLM that reads the wiki through tools and proposes changes as changesets.

Public API (nothing here imports litellm; the first model call does):

- :class:`AgentSession` (``session.py``): ``ask``, ``ingest`` + ``go``, ``lint``,
  ``file_answer``, ``send``, ``cancel``; events through ``on_event``; changesets
  through ``approver``; transcripts under ``.wikitui/sessions/``. One phase of a
  turn, the tool loop, is ``phase.py``.
- :class:`LLMClient` (``llm.py``): the only module that imports litellm.
- :class:`ToolBox` (``tools/``): the tools (a registry of documented functions) and their schemas.
- ``prompts/``: the system prompt, and each operation's instructions in a module of its own.
- Events (``events.py``) and the headless ``run_ask`` / ``run_ingest`` (``headless.py``).
- ``citations.py``: an answer's citations and the links a turn's proposals add, resolved
  (DESIGN §11); ``filing.py``: ``/file``'s page and links back.

What it may import: the vault, the changes, the search facade, ``config``; litellm
only in ``llm.py`` (a contract); never the workspace, the UI, Textual or Rich.
"""

# The names load on first use (PEP 562): importing one submodule (``wikitui mcp`` needs the tools, not the
# model client and its asyncio) must not import the whole agent (~150 ms of start-up).
_WHERE = {
    **dict.fromkeys(("AgentError", "ChangesetReady", "Notice", "TextDelta", "ToolFinished", "ToolStarted",
                     "TurnFinished", "TurnStarted", "TurnUsage"), "events"),
    "LLMClient": "llm", "load_litellm": "llm", "AgentSession": "session", "ToolBox": "tools",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"wikitui.core.agent.{module}"), name)
    globals()[name] = value
    return value


from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.agent.events import (
        AgentError,
        ChangesetReady,
        Notice,
        TextDelta,
        ToolFinished,
        ToolStarted,
        TurnFinished,
        TurnStarted,
        TurnUsage,
    )
    from wikitui.core.agent.llm import LLMClient, load_litellm
    from wikitui.core.agent.session import AgentSession
    from wikitui.core.agent.tools import ToolBox

__all__ = [
    "AgentError", "AgentSession", "ChangesetReady", "LLMClient", "Notice", "TextDelta", "ToolBox",
    "ToolFinished", "ToolStarted", "TurnFinished", "TurnStarted", "TurnUsage", "load_litellm",
]
