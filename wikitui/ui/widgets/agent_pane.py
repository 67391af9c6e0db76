"""The agent pane: the conversation with the model.

The chat itself is :class:`~wikitui.ui.widgets.chat_pane.ChatPane` (its input,
``#agent-input``, is what ``f5`` focuses); this pane frames it in the workspace and
passes the workspace's requests on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical

from wikitui.ui.widgets.chat_pane import ChatPane, Reviewer, SourcesReviewer

if TYPE_CHECKING:
    from wikitui.core.workspace import Workspace


class AgentPane(Vertical):
    """The agent's conversation and its input.

    Args:
        workspace: The open vault (its ``.wikitui/config.toml`` may name the model).
        reviewer: Shows a changeset for review (see :class:`~wikitui.ui.widgets.chat_pane.ChatPane`).
        sources_reviewer: Shows proposed web sources for review (the same).
    """

    DEFAULT_CSS = """
    AgentPane { height: 1fr; }
    """

    def __init__(self, workspace: Workspace, *, reviewer: Reviewer | None = None,
                 sources_reviewer: SourcesReviewer | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.workspace = workspace
        self.reviewer = reviewer
        self.sources_reviewer = sources_reviewer

    def compose(self) -> ComposeResult:
        yield ChatPane(self.workspace, reviewer=self.reviewer, sources_reviewer=self.sources_reviewer)

    @property
    def chat(self) -> ChatPane:
        """The chat with the agent."""
        return self.query_one(ChatPane)

    def say(self, text: str) -> None:
        """Add a note to the conversation."""
        self.chat.say(text)

    def request(self, prompt: str) -> None:
        """Put a request in the input, ready to send, and focus it."""
        self.chat.prefill(prompt)

    def request_ingest(self, path: str) -> None:
        """Start an ingest of the raw source ``path`` (its plan first, then ``/go``)."""
        self.chat.start_ingest(path)
