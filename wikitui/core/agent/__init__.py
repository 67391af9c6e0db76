"""The agent: an LLM that reads the wiki through tools and proposes changes as changesets.

Public API (nothing here imports litellm; the first model call does):

- :class:`AgentSession` (``session.py``): ``ask``, ``ingest`` + ``go``, ``lint``,
  ``file_answer``, ``send``, ``cancel``; events through ``on_event``; changesets
  through ``approver``; transcripts under ``.wikitui/sessions/``.
- :class:`LLMClient` (``llm.py``): the only module that talks to litellm.
- :class:`ToolBox` (``tools.py``): the tools and their schemas.
- Events (``events.py``) and the headless ``run_ask`` / ``run_ingest`` (``headless.py``).
"""

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
