"""The status area beside the footer: the vault's size and the search index's progress."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.widgets import ProgressBar, Static


class IndexStatus(Horizontal):
    """``52 pages · 12 sources`` and, while the search index builds, a progress bar."""

    DEFAULT_CSS = """
    IndexStatus {
        /* A fixed width: progress text changing length must not re-lay out the footer. */
        width: 36;
        height: 1;
        background: $footer-background;
        padding: 0 1;
    }
    IndexStatus > Static { width: 1fr; color: $text-muted; text-align: right; }
    IndexStatus > ProgressBar { width: 16; height: 1; margin: 0 1 0 0; display: none; }
    IndexStatus > ProgressBar Bar { width: 14; }
    IndexStatus.-indexing > ProgressBar { display: block; }
    """

    summary: reactive[str] = reactive("")
    """Counts of the vault (pages, sources)."""

    state: reactive[str] = reactive("")
    """The index's state: ``indexing 12/52``, ``search ready``, or an error."""

    def compose(self) -> ComposeResult:
        yield ProgressBar(total=None, show_eta=False, show_percentage=False, id="index-progress")
        yield Static(id="status-text")

    def set_progress(self, done: int, total: int) -> None:
        """Show indexing progress."""
        self.add_class("-indexing")
        bar = self.query_one(ProgressBar)
        bar.update(total=total or None, progress=done)
        self.state = f"indexing {done}/{total}" if total else "indexing…"

    def set_done(self, message: str) -> None:
        """Indexing finished (or failed): show ``message`` instead of the bar."""
        self.remove_class("-indexing")
        self.state = message

    def _refresh_text(self) -> None:
        parts = [p for p in (self.summary, self.state) if p]
        self.query_one("#status-text", Static).update(" · ".join(parts))

    def watch_summary(self) -> None:
        """Redraw the text."""
        if self.is_mounted:
            self._refresh_text()

    def watch_state(self) -> None:
        """Redraw the text."""
        if self.is_mounted:
            self._refresh_text()

    def on_mount(self) -> None:
        """Draw the initial text."""
        self._refresh_text()
