"""Small modal dialogs: a yes/no confirmation and the create-a-missing-page offer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class ConfirmScreen(ModalScreen[bool]):
    """Ask a yes/no question; dismisses with True for yes.

    | Key | Action |
    | :- | :- |
    | y / enter | Yes. |
    | n / escape | No. |
    """

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", show=False),
        Binding("n,escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, title: str, body: str, *, yes: str = "Yes", no: str = "Cancel") -> None:
        super().__init__(classes="dialog")
        self._title, self._body, self._yes, self._no = title, body, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as box:
            box.border_title = self._title
            yield Static(self._body, id="dialog-body", markup=False)
            with Horizontal(id="dialog-buttons"):
                yield Button(self._yes, id="yes", variant="primary")
                yield Button(self._no, id="no")

    def on_mount(self) -> None:
        """Focus the default answer."""
        self.query_one("#yes", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        """Answer the question."""
        self.dismiss(yes)


@dataclass(frozen=True)
class CreateChoice:
    """The answer to :class:`CreatePageScreen`.

    Attributes:
        action: ``"create"`` (write a blank page at ``path``) or ``"ask"`` (ask the agent).
        path: Vault-relative path of the page to create.
    """

    action: str
    path: str


class CreatePageScreen(ModalScreen[CreateChoice | None]):
    """Offer to create the page an unresolved link names: blank, or by asking the agent.

    | Key | Action |
    | :- | :- |
    | enter | Create the page (on the path shown, which can be edited). |
    | escape | Cancel. |
    """

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", show=False),
    ]

    def __init__(self, target: str, path: str) -> None:
        super().__init__(classes="dialog")
        self._target, self._path = target, path

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as box:
            box.border_title = "Page not found"
            yield Static(f"No page is called “{self._target}”. Create it?", id="dialog-body", markup=False)
            yield Label("Path", classes="field-label")
            yield Input(self._path, id="create-path")
            with Horizontal(id="dialog-buttons"):
                yield Button("Create blank page", id="create", variant="primary")
                yield Button("Ask the agent", id="ask")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        """Focus the main choice."""
        self.query_one("#create", Button).focus()

    def _path_value(self) -> str:
        value = self.query_one("#create-path", Input).value.strip().replace("\\", "/")
        if value and not value.lower().endswith(".md"):
            value += ".md"
        return value

    @on(Input.Submitted, "#create-path")
    def _submitted(self) -> None:
        self._choose("create")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self._choose(event.button.id or "create")

    def _choose(self, action: str) -> None:
        path = self._path_value()
        if action == "create" and not path:
            self.notify("Give the page a path.", severity="warning")
            return
        self.dismiss(CreateChoice(action, path))

    def action_cancel(self) -> None:
        """Close without creating anything."""
        self.dismiss(None)


def suggest_page_path(target: str, from_path: str | None, wiki_prefix: str,
                      location: tuple[str, str] | None = None) -> str:
    """Where a page for an unresolved link ``target`` would go, named as Obsidian names it.

    The file is named after the link as typed (``Nonexistent Page.md``), in the folder
    new pages go to (see :func:`wikitui.core.vault.new_page.new_page_path`).
    """
    from wikitui.core.vault.new_page import new_page_path

    return new_page_path(target, from_path, wiki_prefix, location)
