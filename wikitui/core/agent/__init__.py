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
