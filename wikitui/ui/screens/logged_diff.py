"""A logged changeset's diff, read-only: the review's file list and diff view, nothing to decide.

Opened with ``enter`` on a log.md entry (:class:`~wikitui.ui.screens.log_rows.LogScreen`).

| key | action |
| --- | --- |
| `n` / `p` | next / previous file |
| `j` `k` / `↓` `↑` | scroll the diff |
| `esc` | back to the entries |
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Label

from wikitui.core.vault.visible_text import visible_line
from wikitui.ui.widgets.changeset_files import ChangesetFileList
from wikitui.ui.widgets.diff_view import DiffView


class LoggedDiffScreen(Screen[None]):
    """What one logged changeset changed, file by file (read-only).

    Args:
        changeset: The changeset as the history holds it
            (:func:`wikitui.core.changes.logged.change_diff`); never applied from here.
    """

    CSS_PATH = "log_rows.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("n", "move_file(1)", "Next file", key_display="n/p"),
        Binding("p", "move_file(-1)", "Previous file", show=False),
        Binding("j,down", "scroll(1)", "Scroll", show=False),
        Binding("k,up", "scroll(-1)", "Scroll up", show=False),
    ]

    def __init__(self, changeset: Any) -> None:
        super().__init__()
        self.changeset = changeset

    def compose(self) -> ComposeResult:
        cs = self.changeset
        what = f"{cs.id} · {cs.op} | {cs.title} · {cs.created}" + (f" · {cs.model}" if cs.model else "")
        yield Label(visible_line(what) + " · read-only", id="logged-title")
        with Horizontal(id="logged-body"):
            with Vertical(id="logged-files-pane"):
                yield Label("Files", id="logged-files-title")
                yield ChangesetFileList(cs.files, id="logged-files")
            yield DiffView(id="logged-diff")
        yield Footer()

    def on_mount(self) -> None:
        """Show the first file."""
        self._show(0)

    def _show(self, index: int) -> None:
        self.query_one(ChangesetFileList).select(index)
        self.query_one(DiffView).show(self.changeset.files[index], {}, cursor=None)

    def action_move_file(self, step: int) -> None:
        """The next or previous file."""
        files = self.changeset.files
        self._show((self.query_one(ChangesetFileList).selected + step) % len(files))

    def action_scroll(self, step: int) -> None:
        """Scroll the diff a line."""
        self.query_one(DiffView).scroll_relative(y=step, animate=False)

    def action_close(self) -> None:
        """Back to the entries."""
        self.dismiss(None)
