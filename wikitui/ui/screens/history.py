"""A page's history (``h`` on a page, or the palette): its versions, any two compared, one restored (DESIGN §15).

Left, the versions, newest first (date, what made it, who); right, the review's
diff view, read-only. The diff shows what the highlighted version changed (from the
version before it); ``m`` marks a version, and the diff then compares the marked
version with the highlighted one, any two. ``v`` shows the highlighted version's
text instead (read-only), and ``d`` asks for a day and shows the page as it was
then, rendered and read-only, its links followed on the same day
(:class:`~wikitui.ui.screens.dated_page.DatedPageScreen`). ``r`` proposes the highlighted version back as a pending changeset (op
``edit``, reason "restore version of <date>"), reviewed with ``ctrl+r`` like any
agent proposal; nothing is written here.
Versions are read (git, or wikitui's records) in a thread worker.

| key | action |
| --- | --- |
| `↑` `↓` / `k` `j` | the previous / next version |
| `m` | mark the highlighted version to compare with (again: unmark) |
| `v` | the highlighted version's text, read-only (again: the diff) |
| `d` | the page on a day: type `2026-11-01` or `7d`, `enter` (its links open on that day too) |
| `r` | propose restoring the highlighted version (a pending changeset) |
| `esc` | close |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, OptionList, TextArea
from textual.widgets.option_list import Option

from wikitui.core.changes.model import make_file_change
from wikitui.ui.handover import handed_over
from wikitui.ui.widgets.diff_view import DiffView

if TYPE_CHECKING:
    from wikitui.core.changes.versions import Version
    from wikitui.core.workspace import Workspace


class HistoryScreen(Screen[None]):
    """The versions of one page, two of them compared, one restorable.

    Args:
        workspace: The open vault.
        path: The page's vault-relative path.
    """

    CSS_PATH = "history.tcss"
    AUTO_FOCUS = "#history-versions"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("j", "move(1)", "Next version", show=False),
        Binding("k", "move(-1)", "Previous version", show=False),
        Binding("m", "mark", "Mark to compare"),
        Binding("v", "toggle_text", "Text / diff"),
        Binding("d", "ask_date", "On a date…"),
        Binding("r", "restore", "Restore this version"),
    ]

    def __init__(self, workspace: Workspace, path: str) -> None:
        super().__init__()
        self.workspace = workspace
        self.path = path
        #: The versions, newest first (empty until loaded).
        self.versions: list[Version] = []
        #: Index of the version marked for comparison (None: compare with the version before).
        self.marked: int | None = None
        #: The pending changeset the last restore proposed.
        self.proposed: str | None = None
        #: Whether the right pane shows the highlighted version's text (else the diff).
        self.showing_text = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="history-body"):
            with Vertical(id="history-left") as left:
                left.border_title = "History"
                left.border_subtitle = self.path
                yield OptionList(id="history-versions")
            with Vertical(id="history-right"):
                yield Label("Loading the versions…", id="history-status")
                yield Input(placeholder="the page on a day: YYYY-MM-DD, or 7d for a week ago; enter shows it",
                            id="history-date")
                yield DiffView(id="history-diff")
                yield TextArea(id="history-text", read_only=True, soft_wrap=True, show_line_numbers=True)
        yield Footer()

    def on_mount(self) -> None:
        """Read the versions off the UI thread."""
        self._load()

    @work(thread=True, exclusive=True, group="history-load")
    def _load(self) -> None:
        from wikitui.core.changes.versions import page_versions

        try:
            versions = page_versions(self.workspace.vault, self.path)
        except Exception as exc:  # a broken repository must not crash the screen
            self.app.call_from_thread(self._failed, f"cannot read the history: {exc}")
            return
        self.app.call_from_thread(self._loaded, versions)

    @handed_over
    def _failed(self, message: str) -> None:
        self.query_one("#history-status", Label).update(message)

    @handed_over
    def _loaded(self, versions: list[Version]) -> None:
        self.versions = versions
        self._fill()
        listing = self.query_one(OptionList)
        if versions:
            listing.highlighted = 0
            self._show_diff()
        else:
            self.query_one("#history-status", Label).update(f"{self.path} has no recorded versions.")

    def _fill(self) -> None:
        listing = self.query_one(OptionList)
        keep = listing.highlighted
        options = []
        for i, v in enumerate(self.versions):
            label = Text("◆ " if i == self.marked else "  ", style="bold $accent" if i == self.marked else "")
            label.append(v.when, style="bold")
            what = f"{v.op} | {v.title}" if v.op else v.title
            label.append(f"  {what}" + ("  (deleted)" if v.text is None else ""))
            label.append(f"\n    {v.who}" + (f" · {v.changeset}" if v.changeset else ""), style="dim")
            options.append(Option(label))
        listing.set_options(options)
        if keep is not None and options:
            listing.highlighted = min(keep, len(options) - 1)

    # ------------------------------------------------------------------ the diff
    @property
    def highlighted(self) -> int | None:
        """Index of the highlighted version."""
        return self.query_one(OptionList).highlighted

    def compared(self) -> tuple[Version | None, Version | None]:
        """(from, to): the marked version (or the one before) and the highlighted one."""
        index = self.highlighted
        if index is None or not self.versions:
            return None, None
        to = self.versions[index]
        if self.marked is not None and self.marked != index:
            return self.versions[self.marked], to
        return (self.versions[index + 1] if index + 1 < len(self.versions) else None), to

    def _show_diff(self) -> None:
        if self.showing_text:
            self._show_text()
            return
        old, new = self.compared()
        if new is None:
            return
        before = old.text if old is not None else None
        action = "create" if before is None else "delete" if new.text is None else "edit"
        change = make_file_change(0, new.path, action, None, before or "", new.text or "",
                                  reason=f"{old.when if old else 'nothing'} → {new.when}")
        self.query_one(DiffView).show(change, {}, cursor=None)
        status = (f"Comparing {old.when} (marked) with {new.when}" if self.marked is not None and old is not None
                  and self.versions.index(old) == self.marked else f"What {new.when} changed")
        self.query_one("#history-status", Label).update(status)

    def _show_text(self) -> None:
        """The highlighted version's text, read-only."""
        index = self.highlighted
        if index is None or not self.versions:
            return
        version = self.versions[index]
        self.query_one("#history-text", TextArea).load_text(version.text or "")
        what = f"The page as of {version.when}" + (" (deleted)" if version.text is None else "")
        self.query_one("#history-status", Label).update(what + " · read-only")

    def _switch(self, text: bool) -> None:
        self.showing_text = text
        self.query_one(DiffView).display = not text
        self.query_one("#history-text", TextArea).display = text
        self._show_diff()

    @on(OptionList.OptionHighlighted, "#history-versions")
    def _highlighted(self) -> None:
        if self.versions:
            self._show_diff()

    # ------------------------------------------------------------------ actions
    def action_move(self, step: int) -> None:
        """The next or previous version."""
        listing = self.query_one(OptionList)
        if listing.option_count:
            current = listing.highlighted if listing.highlighted is not None else 0
            listing.highlighted = max(0, min(listing.option_count - 1, current + step))

    def action_mark(self) -> None:
        """Mark the highlighted version to compare others with (again on it: unmark)."""
        index = self.highlighted
        if index is None:
            return
        self.marked = None if self.marked == index else index
        self._fill()
        self._show_diff()

    def action_restore(self) -> None:
        """Propose the highlighted version back, as a pending changeset to review."""
        index = self.highlighted
        if index is None or not self.versions:
            return
        self._restore(self.versions[index])

    @work(thread=True, exclusive=True, group="history-restore")
    def _restore(self, version: Version) -> None:
        from wikitui.core.changes.versions import propose_restore
        from wikitui.core.base.errors import WikituiError

        ws = self.workspace
        try:
            changeset = propose_restore(ws.vault, ws.require_graph(), ws.pending, self.path, version)
        except WikituiError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="warning")
            return
        self.app.call_from_thread(self._proposed, changeset.id, version)

    @handed_over
    def _proposed(self, changeset_id: str, version: Version) -> None:
        self.proposed = changeset_id
        self.notify(f"Proposed: restore version of {version.day} ({changeset_id}); ctrl+r reviews it.")

    def action_toggle_text(self) -> None:
        """The highlighted version's text, or back to the diff."""
        self._switch(not self.showing_text)

    def action_ask_date(self) -> None:
        """Ask for a day; the page as it was then is shown."""
        field = self.query_one("#history-date", Input)
        field.display = True
        field.value = ""
        field.focus()

    @on(Input.Submitted, "#history-date")
    def _date_given(self, event: Input.Submitted) -> None:
        from wikitui.core.changes.versions import version_at
        from wikitui.core.vault.dates import BadDate, parse_day
        from wikitui.ui.screens.dated_page import DatedPageScreen

        try:
            day = parse_day(event.value)
        except BadDate as exc:
            self.notify(str(exc), severity="warning")
            return
        self._hide_date()
        version = version_at(self.versions, day)
        if version is None:
            self.notify(f"{self.path} did not exist on {day.isoformat()} (as far as its history tells)",
                        severity="warning")
            return
        self.query_one(OptionList).highlighted = self.versions.index(version)
        self.app.push_screen(DatedPageScreen(self.workspace, self.path, day))

    def _hide_date(self) -> None:
        field = self.query_one("#history-date", Input)
        field.display = False
        self.query_one(OptionList).focus()

    def action_close(self) -> None:
        """Back to the page (or, while a day is being typed, back to the list)."""
        if self.query_one("#history-date", Input).display:
            self._hide_date()
            return
        self.dismiss(None)
