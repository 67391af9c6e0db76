"""The palette's "Clip a web page or file into raw/…": ask for a URL or a path, clip it, open it.

The clip itself is :mod:`wikitui.core.vault.formats.clip` (the one place that adds
files to raw/, never replacing one). Fetching a page takes up to the fetch timeout,
so it runs in a thread worker; the result is a notification and the new source
opened in the page pane, or one line saying why nothing was added.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

if TYPE_CHECKING:
    from textual.screen import Screen

    from wikitui.core.vault.formats.clip import ClipResult


class ClipScreen(ModalScreen[str | None]):
    """Ask for the web address or the file to clip; dismisses with it (None: cancelled).

    | Key | Action |
    | :- | :- |
    | enter | Clip it. |
    | escape | Cancel. |
    """

    CSS_PATH = "dialogs.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as box:
            box.border_title = "Clip into raw/"
            yield Static("A web page's article (or a PDF, a document...) or a file on this computer is added to "
                         "raw/ as a new source; nothing there is replaced.", id="dialog-body", markup=False)
            yield Label("URL or file path", classes="field-label")
            yield Input(placeholder="https://… or ~/Downloads/paper.pdf", id="clip-source")
            with Horizontal(id="dialog-buttons"):
                yield Button("Clip", id="clip", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        """Focus the input."""
        self.query_one("#clip-source", Input).focus()

    @on(Input.Submitted, "#clip-source")
    def _submitted(self) -> None:
        self._clip()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self._clip()

    def _clip(self) -> None:
        value = self.query_one("#clip-source", Input).value.strip()
        if not value:
            self.notify("Give a web address or a file path.", severity="warning")
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        """Close without clipping anything."""
        self.dismiss(None)


def clip_source(vault, source: str, *, refresh: bool = False) -> ClipResult:
    """Clip ``source``: an address with ``://`` is fetched, anything else is a local file (``~`` expanded).

    Args:
        vault: The vault.
        source: A web address or a file path.
        refresh: An address already in raw/ gets a fresh copy beside it (else AlreadyClipped).

    Raises:
        WikituiError: the clip's own errors (fetch, size, type, already clipped); nothing was written.
    """
    from wikitui.core.vault.formats import clip

    if "://" in source:
        return clip.clip_url(vault, source, refresh=refresh)
    return clip.clip_file(vault, Path(source).expanduser())


def ask_and_clip(screen: Screen, open_path) -> None:
    """Ask for a URL or path on ``screen``, clip it in a thread worker, notify, and ``open_path`` the new file."""
    from wikitui.core.base.errors import WikituiError

    vault = screen.app.workspace.vault  # type: ignore[attr-defined]

    def work(source: str, refresh: bool = False) -> None:
        from wikitui.core.vault.formats.clip import AlreadyClipped

        app = screen.app
        try:
            result = clip_source(vault, source, refresh=refresh)
        except AlreadyClipped as exc:  # say where it is, and offer a fresh copy beside it
            app.call_from_thread(offer_refresh, source, exc.path)
            return
        except WikituiError as exc:
            app.call_from_thread(screen.notify, f"Nothing was clipped: {exc}", severity="error", timeout=8)
            return
        except OSError as exc:  # a local file that cannot be read
            app.call_from_thread(screen.notify, f"Nothing was clipped: {exc.strerror or exc}", severity="error",
                                 timeout=8)
            return
        title = f" “{result.title}”" if result.title else ""
        app.call_from_thread(screen.notify, f"Clipped{title} into {result.path}")
        app.call_from_thread(open_path, result.path)

    def start(source: str, refresh: bool = False) -> None:
        screen.notify(f"Clipping {source}…")
        screen.run_worker(lambda: work(source, refresh), thread=True, group="clip", exit_on_error=False)

    def offer_refresh(source: str, path: str) -> None:
        from wikitui.ui.screens.dialogs import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                start(source, refresh=True)

        screen.app.push_screen(ConfirmScreen("Already clipped", f"{source} is already in raw/ as {path}. "
                                             "Clip a fresh copy beside it (the old one stays)?", yes="Refresh"),
                               answered)

    def chosen(source: str | None) -> None:
        if source:
            start(source)

    screen.app.push_screen(ClipScreen(), chosen)
