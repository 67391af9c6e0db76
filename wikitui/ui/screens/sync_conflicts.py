"""A sync's conflicts, resolved in the workspace (DESIGN §14, issue 26.1): take ours, take theirs, or edit.

A sync that meets a page both sides changed in the same place writes nothing and
pushes nothing; this screen lists each conflicted path with both sides' lines.
``o`` keeps ours, ``t`` takes theirs, ``e`` opens our page in ``$VISUAL``/``$EDITOR`` to
write the resolution by hand (what it holds when the editor exits is taken). Once every
path is resolved, ``enter`` syncs again, which writes, commits and pushes; ``esc`` leaves
the conflicts recorded (``wikitui sync --take`` resolves them too).

| key | action |
| --- | --- |
| `↑` `↓` | the previous / next conflict |
| `o` / `t` | take ours / take theirs |
| `e` | edit the page by hand, then take it |
| `enter` | sync again (once every conflict is resolved) |
| `esc` | leave them for later |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label, Static

from wikitui.core.vault.visible_text import visible, visible_line
from wikitui.core.base.words import plural
from wikitui.ui.handover import handed_over

if TYPE_CHECKING:
    from wikitui.core.sync.combine import Conflict
    from wikitui.core.workspace import Workspace

_CHOICE_LABEL = {"ours": "take ours", "theirs": "take theirs", "file": "edited by hand"}


class SyncConflictsScreen(Screen[None]):
    """The conflicts of the last sync, each to resolve.

    Args:
        workspace: The open vault.
        conflicts: The sync's conflicts.
        upstream: The upstream's name (for the heading).
        sync_again: Starts the sync again (called on ``enter`` once all are resolved).
    """

    CSS_PATH = "sync_conflicts.tcss"
    AUTO_FOCUS = "#conflict-rows"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "take('ours')", "Take ours"),
        Binding("t", "take('theirs')", "Take theirs"),
        Binding("e", "edit", "Edit"),
        Binding("enter", "sync_again", "Sync again", priority=True),
        Binding("escape", "leave", "Later"),
    ]

    def __init__(self, workspace: Workspace, conflicts: list[Conflict], upstream: str,
                 sync_again: Callable[[], None]) -> None:
        super().__init__()
        self.workspace = workspace
        self.conflicts = conflicts
        self.upstream = upstream
        self.sync_again = sync_again
        #: Each path's resolution so far.
        self.resolved: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="conflict-body") as body:
            body.border_title = visible_line(f"Sync with {self.upstream}: conflicts")
            body.border_subtitle = "o ours · t theirs · e edit · enter sync again"
            yield Label("", id="conflict-status")
            table: DataTable[Text] = DataTable(id="conflict-rows", cursor_type="row")
            yield table
            with VerticalScroll(id="conflict-detail"):
                yield Static("", id="conflict-regions")
        yield Footer()

    @handed_over  # (pushed by a sync as the app quits, it mounts with its widgets gone)
    def on_mount(self) -> None:
        """Fill the rows (what each path's two sides did) and show the first one's lines."""
        table = self.query_one(DataTable)
        table.add_column("page", key="path")
        table.add_column("what happened", key="why")
        table.add_column("resolution", key="choice")
        for c in self.conflicts:
            table.add_row(Text(visible_line(c.path)), Text(visible_line(c.why), style="dim"), Text("—"), key=c.path)
        self._refresh_status()
        self._show_regions()

    @property
    def current(self) -> Conflict | None:
        """The highlighted conflict."""
        row = self.query_one(DataTable).cursor_row
        return self.conflicts[row] if self.conflicts and 0 <= row < len(self.conflicts) else None

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        """Show the highlighted conflict's lines, both sides."""
        self._show_regions()

    def _show_regions(self) -> None:
        c = self.current
        if c is None:
            return
        out = Text()
        for region in c.regions or []:
            for line in region.splitlines():
                if line.startswith("<<<<<<< "):
                    out.append("yours (here):\n", style="bold")
                elif line == "=======":
                    out.append("theirs (upstream):\n", style="bold")
                elif line.startswith(">>>>>>> "):
                    out.append("\n")
                else:
                    out.append("  " + visible(line) + "\n")
        self.query_one("#conflict-regions", Static).update(out if c.regions else Text(visible(c.why)))

    def _refresh_status(self) -> None:
        left = [c.path for c in self.conflicts if c.path not in self.resolved]
        status = (f"{plural(len(left), 'conflict')} left: nothing was written or pushed" if left
                  else "All resolved: enter syncs again (writes, commits and pushes)")
        self.query_one("#conflict-status", Label).update(status)

    def _record(self, path: str, choice: str) -> None:
        from wikitui.core.base.errors import WikituiError
        from wikitui.core.sync.run import resolve

        try:
            resolve(self.workspace.vault, path, choice)
        except WikituiError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.resolved[path] = choice
        self.query_one(DataTable).update_cell(path, "choice", Text(_CHOICE_LABEL[choice], style="bold"),
                                              update_width=True)
        self._refresh_status()

    def action_take(self, choice: str) -> None:
        """Resolve the highlighted conflict with our side or theirs."""
        c = self.current
        if c is not None:
            self._record(c.path, choice)

    def action_edit(self) -> None:
        """Write the resolution by hand in the editor (our page, theirs' lines shown here), then take it."""
        from textual.app import SuspendNotSupported

        from wikitui.ui.editor import EditorError, editor_command, run_editor

        c = self.current
        if c is None:
            return
        root = self.workspace.root
        try:
            command = editor_command()
            with self.app.suspend():
                result = run_editor(command, root / c.path, root)
        except EditorError as exc:
            self.notify(str(exc), severity="error")
            return
        except SuspendNotSupported:
            self.notify(f"This terminal cannot hand itself to an editor; edit {c.path} in another window, "
                        f"then run `wikitui sync --take file {c.path}`.", severity="warning")
            return
        if result.status:
            self.notify(f"the editor exited with status {result.status}; nothing was taken", severity="warning")
            return
        self._record(c.path, "file")

    def action_sync_again(self) -> None:
        """Sync again once every conflict is resolved."""
        left = [c.path for c in self.conflicts if c.path not in self.resolved]
        if left:
            self.notify(f"Still to resolve: {', '.join(left)}", severity="warning")
            return
        self.dismiss(None)
        self.sync_again()

    def action_leave(self) -> None:
        """Leave the conflicts recorded, for later."""
        self.dismiss(None)
