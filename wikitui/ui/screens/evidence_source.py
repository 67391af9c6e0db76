"""The source behind an evidence line, opened from the review at that line (DESIGN §11 "Evidence").

``enter`` on an evidence line of the review (reached with ``v``) opens this viewer over the
review: the source (a PDF as its converted text, numbered as ``read`` numbers it) in the
page view's read-only source mode, scrolled to the line; ``esc`` goes back to the review with
every decision as it was. The text is read in a thread.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label

from wikitui.core.vault.layout import Vault
from wikitui.core.vault.visible_text import visible_line
from wikitui.ui.handover import handed_over
from wikitui.ui.screens.source_display import lexer_for
from wikitui.ui.widgets.page_view import PageView

__all__ = ["EvidenceSourceScreen"]

#: Lines shown above the evidence line, so it is read in its context.
CONTEXT_ABOVE = 2


class EvidenceSourceScreen(ModalScreen[None]):
    """A source opened at one line, over the review.

    Args:
        vault: The vault.
        path: The source's vault-relative path.
        line: The 1-based line to open it at.
    """

    DEFAULT_CSS = """
    EvidenceSourceScreen { align: center middle; background: $background 60%; }
    #evidence-source { width: 96%; height: 92%; border: round $accent; background: $surface; }
    #evidence-source-title { width: 1fr; padding: 0 1; color: $text-accent; text-style: bold; }
    #evidence-source-page { height: 1fr; }
    """
    BINDINGS = [Binding("escape,q", "close", "back", tooltip="Back to the review, every decision as it was"),
                Binding("question_mark", "app.help", "help", tooltip="Every key (this list)")]

    def __init__(self, vault: Vault, path: str, line: int) -> None:
        super().__init__()
        self.vault = vault
        #: The source shown.
        self.path = path
        #: The line it was opened at.
        self.line = line

    def compose(self) -> ComposeResult:
        with Vertical(id="evidence-source"):
            yield Label(f"{visible_line(self.path)} · line {self.line} · read-only source", id="evidence-source-title")
            yield PageView(id="evidence-source-page")
        yield Footer(show_command_palette=False, compact=True)

    @property
    def page(self) -> PageView:
        """The view of the source."""
        return self.query_one("#evidence-source-page", PageView)

    def on_mount(self) -> None:
        self.page.show_message("Reading…", f"{self.path} is being read.")
        self.run_worker(self._read, thread=True, group="evidence-source", exclusive=True)

    def _read(self) -> None:
        from wikitui.core.vault.evidence import source_text

        text = source_text(self.vault, self.path)
        self.app.call_from_thread(self._show, text)

    @handed_over
    def _show(self, text: str | None) -> None:
        page = self.page
        if text is None:
            page.show_message("Cannot be read", f"{self.path} cannot be read any more.")
            return
        page.show(text, path=self.path, read_only_source=lexer_for(self.path))
        page.scroll_to_line(max(1, self.line - CONTEXT_ABOVE))
        page.focus()

    def action_close(self) -> None:
        """Back to the review."""
        self.dismiss(None)
