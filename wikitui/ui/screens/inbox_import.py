"""The palette's "Inbox: import an export…": ask for the export's file or folder (the import runs in a worker)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class InboxImportScreen(ModalScreen[str | None]):
    """Ask for the export to import; dismisses with its path (None: cancelled).

    | Key | Action |
    | :- | :- |
    | enter | Import it. |
    | escape | Cancel. |
    """

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as box:
            box.border_title = "Import into raw/inbox/"
            yield Static("Browser bookmarks, a Pocket, Instapaper, Readwise or Raindrop export, mail (.mbox, .eml), "
                         "a Slack or Discord export, or transcripts (.vtt, .srt): each item becomes a new source "
                         "in raw/inbox/; items already in are skipped.", id="dialog-body", markup=False)
            yield Label("File or folder", classes="field-label")
            yield Input(placeholder="~/Downloads/bookmarks.html", id="inbox-source")
            with Horizontal(id="dialog-buttons"):
                yield Button("Import", id="import", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        """Focus the input."""
        self.query_one("#inbox-source", Input).focus()

    @on(Input.Submitted, "#inbox-source")
    def _submitted(self) -> None:
        self._import()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self._import()

    def _import(self) -> None:
        value = self.query_one("#inbox-source", Input).value.strip()
        if not value:
            self.notify("Give the export's file or folder.", severity="warning")
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        """Close without importing anything."""
        self.dismiss(None)
