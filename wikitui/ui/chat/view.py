"""What the chat's controller and its slash commands need of the chat's widget (the chat pane)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.content import Content
    from textual.notifications import SeverityLevel

    from wikitui.ui.widgets.batch_panel import BatchPanel
    from wikitui.ui.widgets.chat_input import ChatInput
    from wikitui.ui.widgets.chat_log import ChatLog


class ChatView(Protocol):
    """What the controller needs of the chat's widget (the chat pane)."""

    chat_log: ChatLog
    chat_input: ChatInput
    batch_panel: BatchPanel

    def set_status(self, text: str | Content) -> None:
        """The line above the input ("" hides it)."""

    def set_busy(self, busy: bool, activity: str = "") -> None:
        """Show what the agent is doing, or nothing."""

    def set_footer(self, text: Content) -> None:
        """The line below the input."""

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """A toast."""

    def run_worker(self, work: Any, name: str | None = "", group: str = "default", description: str = "",
                   exit_on_error: bool = True, start: bool = True, exclusive: bool = False,
                   thread: bool = False) -> Any:
        """Run a coroutine as a worker of the view."""

    def run_undo(self) -> None:
        """``/undo``."""

    def action_review(self) -> None:
        """``/review`` (ctrl+r)."""

    def review_batch(self, batch_id: str | None) -> None:
        """``/review batch [ID]``."""

    def review_sources(self) -> None:
        """Review the pending web sources (after ``/research``; ``/research`` alone)."""
