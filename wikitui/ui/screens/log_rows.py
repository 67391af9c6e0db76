"""log.md as a time machine (DESIGN §15, issue 27.4): its entries as rows, each one's diff, each one's revert.

Opening ``wiki/log.md`` in the page pane (the tree, a link, back/forward) shows this
screen over it: one row per entry, newest first (date, operation, title, who, pages).
``enter`` opens the entry's changeset as a read-only diff (:class:`LoggedDiffScreen`,
the review's file list and diff view); ``r`` proposes its revert as a pending
changeset (:func:`wikitui.core.changes.revert.propose_revert`: merged three-way with
what came since, later changes on the same lines named) and opens the review on it,
where a conflict shows; nothing is written until the review is applied. ``t`` shows
log.md's raw text in the page pane instead; ``esc`` goes back to the page before.
The history is read in thread workers.

| key | action |
| --- | --- |
| `↑` `↓` | the previous / next entry |
| `enter` | the entry's changeset, as a diff (read-only) |
| `r` | propose reverting the entry's changeset, and review it |
| `t` | log.md's raw text |
| `esc` | back to the page before |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label

from wikitui.core.vault.visible_text import visible_line
from wikitui.core.base.words import plural
from wikitui.ui.handover import handed_over

if TYPE_CHECKING:
    from wikitui.core.changes.logged import LogRow
    from wikitui.core.changes.revert import RevertPlan
    from wikitui.core.workspace import Workspace

#: What closing the rows asks of the page pane: log.md's raw text, or the page before.
LogExit = Literal["text", "back"]


class LogScreen(Screen[LogExit]):
    """log.md's entries as rows; dismisses with ``"text"`` (show the raw text) or ``"back"``.

    Args:
        workspace: The open vault.
    """

    CSS_PATH = "log_rows.tcss"
    AUTO_FOCUS = "#log-rows"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "leave('back')", "Back"),
        Binding("enter", "show_diff", "Diff", show=True, priority=True),
        Binding("r", "revert", "Revert…"),
        Binding("t", "leave('text')", "Raw text"),
    ]

    def __init__(self, workspace: Workspace, *, only: set[str] | None = None, heading: str | None = None) -> None:
        super().__init__()
        self.workspace = workspace
        #: Only the entries of these changesets (a sync's digest of what came in); None: every entry.
        self.only = only
        self.heading = heading
        #: The entries, newest first (empty until read).
        self.rows: list[LogRow] = []
        #: The pending changeset the last ``r`` proposed (None before).
        self.proposed: str | None = None
        #: What the last ``r`` found (merges, conflicts, later changes named).
        self.plan: RevertPlan | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="log-body") as body:
            body.border_title = visible_line(self.heading or self.workspace.vault.log_path)
            body.border_subtitle = "enter diff · r revert · t raw text"
            yield Label("Reading log.md…", id="log-status")
            table: DataTable[Text] = DataTable(id="log-rows", cursor_type="row", zebra_stripes=True)
            yield table
        yield Footer()

    def on_mount(self) -> None:
        """Set up the columns and read the entries off the UI thread."""
        try:
            table = self.query_one(DataTable)
        except NoMatches:
            return  # pushed as the app quit (a sync's digest): its widgets are gone already
        for label, key in (("date", "date"), ("operation", "op"), ("title", "title"), ("by", "by"),
                           ("pages", "pages")):
            table.add_column(label, key=key)
        self._load()

    def on_screen_resume(self) -> None:
        """Back from the review: the log may have a new entry."""
        if self.rows:
            self._load()

    @work(thread=True, exclusive=True, group="log-rows")
    def _load(self) -> None:
        from wikitui.core.changes.logged import log_rows

        rows = log_rows(self.workspace.vault)
        self.app.call_from_thread(self._loaded, rows)

    @handed_over
    def _loaded(self, rows: list[LogRow]) -> None:
        try:
            table = self.query_one(DataTable)
            status_label = self.query_one("#log-status", Label)
        except NoMatches:
            # Closed while its entries were read (esc at once on the sync's digest, or the app quitting: its
            # widgets go before the screen does, so the screen can still be attached).
            return
        if self.only is not None:
            rows = [r for r in rows if r.entry.changeset in self.only]
        self.rows = rows
        keep = table.cursor_row
        table.clear()
        for row in rows:
            e = row.entry
            pages = ", ".join(p.rsplit("/", 1)[-1].removesuffix(".md") for p in e.pages) or "—"
            table.add_row(Text(e.date.isoformat()), Text(e.op, style="bold"), Text(visible_line(e.title)),
                          Text(visible_line(row.who), style="dim"), Text(visible_line(pages)), key=str(row.number))
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))
        status = (f"{plural(len(rows), 'entry', 'entries')}, newest first · enter shows one's changeset, "
                  "r proposes its revert" if rows else "log.md has no entries yet.")
        status_label.update(status)

    # ------------------------------------------------------------------ actions
    @property
    def current(self) -> LogRow | None:
        """The highlighted entry."""
        table = self.query_one(DataTable)
        if not self.rows or not 0 <= table.cursor_row < len(self.rows):
            return None
        return self.rows[table.cursor_row]

    def action_show_diff(self) -> None:
        """The highlighted entry's changeset as a read-only diff."""
        row = self.current
        if row is not None:
            self._read_change(row.number)

    @work(thread=True, exclusive=True, group="log-diff")
    def _read_change(self, number: int) -> None:
        from wikitui.core.changes.logged import change_diff, logged_change
        from wikitui.core.base.errors import WikituiError

        try:
            change = logged_change(self.workspace.vault, number)
        except WikituiError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="warning")
            return
        self.app.call_from_thread(self._show_change, change_diff(change), change.missing)

    def _show_change(self, changeset, missing: list[str]) -> None:
        from wikitui.ui.screens.logged_diff import LoggedDiffScreen

        if missing:
            self.notify(f"The history holds no version of {', '.join(missing)} by {changeset.id}", severity="warning")
        self.app.push_screen(LoggedDiffScreen(changeset))

    def action_revert(self) -> None:
        """Propose reverting the highlighted entry's changeset, then review it."""
        row = self.current
        if row is not None:
            self._revert(row.number)

    @work(thread=True, exclusive=True, group="log-revert")
    def _revert(self, number: int) -> None:
        from wikitui.core.changes.revert import propose_revert
        from wikitui.core.base.errors import WikituiError

        try:
            changeset, plan = propose_revert(self.workspace.vault, self.workspace.pending, number)
        except WikituiError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="warning")
            return
        self.app.call_from_thread(self._proposed, changeset.id, plan)

    def _proposed(self, changeset_id: str, plan: RevertPlan) -> None:
        self.proposed, self.plan = changeset_id, plan
        reverted = plan.change.entry.changeset
        message = f"Proposed: revert {reverted} ({changeset_id})."
        if plan.named:
            message += " Later changes on the same lines: " + "; ".join(plan.named) + "."
        if plan.conflicted:
            message += f" Conflict in {', '.join(f.path for f in plan.conflicted)}: shown in the review."
        self.notify(visible_line(message), severity="warning" if plan.conflicted else "information", timeout=10)
        self.call_later(self.app.run_action, "app.review")  # the review of the newest pending changeset

    def action_leave(self, how: LogExit) -> None:
        """Close the rows: show log.md's raw text, or go back to the page before."""
        self.dismiss(how)
