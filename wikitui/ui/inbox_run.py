"""The workspace's inbox runs: the palette's "Inbox: bring in the feeds' new items" and "Inbox: import an
export…", and the background schedule.

The run itself is :func:`wikitui.core.inbox.run.fetch_feeds`, in a thread worker (a feed
may take up to its deadline). When it ends, the new files join the graph and the
Sources pane, where they show as not ingested (○); a run the user asked for moves the
Sources cursor to the first of them and says what came in and what failed; a
scheduled one stays quiet (see :class:`~wikitui.ui.inbox_schedule.InboxSchedule`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from textual.worker import get_current_worker

from wikitui.ui.inbox_schedule import InboxSchedule

if TYPE_CHECKING:
    from textual.screen import Screen

    from pathlib import Path

    from wikitui.core.inbox.run import InboxReport
    from wikitui.core.workspace import Workspace

#: Seconds a background run may take in all (the items not reached come in at the next run).
BACKGROUND_BUDGET_S = 600.0


class _Host(Protocol):
    """What the runner needs of the workspace screen."""

    workspace: Workspace

    def files_added(self, paths: list[str], *, reveal: bool) -> None:
        """New files are in raw/: bring the graph, the trees and the index up to date."""


class InboxRunner:
    """Starts inbox runs in a worker on ``screen`` and reports them; one run at a time.

    Args:
        screen: The workspace screen: it runs the worker and shows the notices.
        host: What takes the new files and knows the workspace (the same screen).
        busy: Whether a turn is running (the schedule waits for it).
    """

    def __init__(self, screen: Screen, host: _Host, busy: Callable[[], bool]) -> None:
        self.screen = screen
        self.host = host
        #: Whether a run is at work (a second one is not started beside it).
        self.active = False
        #: The background run of ``[inbox] every_minutes`` (configured once the settings are read).
        self.schedule = InboxSchedule(start=lambda: self.start(scheduled=True), busy=lambda: busy() or self.active)

    def start(self, *, scheduled: bool = False) -> None:
        """Run the inbox over the configured feeds in a thread worker (unless one is at work already)."""
        if self._claim(scheduled, "Fetching the inbox's feeds…"):
            self.screen.run_worker(lambda: self._work(scheduled, None), thread=True, group="inbox", name="inbox",
                                   exit_on_error=False)

    def start_import(self, source: str) -> None:
        """Import the export at ``source`` (a file or a folder; ``~`` expanded) in a thread worker."""
        from pathlib import Path

        if self._claim(False, f"Reading {source}…"):
            path = Path(source).expanduser()
            self.screen.run_worker(lambda: self._work(False, path), thread=True, group="inbox", name="inbox import",
                                   exit_on_error=False)

    def _claim(self, scheduled: bool, saying: str) -> bool:
        """Whether a run may start now (none is at work); a run the user asked for is told either way."""
        if self.active:
            if not scheduled:
                self.screen.notify("The inbox is already at work; try again when it is done.", title="Inbox",
                                   timeout=4, markup=False)
            return False
        self.active = True
        if not scheduled:
            self.screen.notify(saying, title="Inbox", timeout=3, markup=False)
        return True

    def _work(self, scheduled: bool, export: Path | None) -> None:
        worker = get_current_worker()
        app = self.screen.app
        try:
            self._run(worker, scheduled, export)
        finally:
            app.call_from_thread(self._ended)

    def _ended(self) -> None:
        self.active = False

    def _run(self, worker, scheduled: bool, export: Path | None) -> None:
        from wikitui.core.config.settings import load_settings
        from wikitui.core.base.errors import WikituiError
        from wikitui.core.inbox.run import fetch_feeds, import_export

        app = self.screen.app
        vault = self.host.workspace.vault
        try:
            if export is not None:
                report = import_export(vault, export, cancel=lambda: worker.is_cancelled)
            else:
                feeds = load_settings(vault).inbox_feeds
                if not feeds:
                    app.call_from_thread(self._no_feeds, scheduled)
                    return
                report = fetch_feeds(vault, feeds, budget_s=BACKGROUND_BUDGET_S if scheduled else None,
                                     cancel=lambda: worker.is_cancelled)
        except (WikituiError, OSError) as exc:
            app.call_from_thread(self._failed, str(exc), scheduled)
            return
        except Exception as exc:  # noqa: BLE001 - a run that breaks is a notice, and the schedule goes on
            app.call_from_thread(self._failed, f"{type(exc).__name__}: {exc}", scheduled)
            return
        app.call_from_thread(self._done, report, scheduled)

    def _no_feeds(self, scheduled: bool) -> None:
        why = ('no feeds configured: add [inbox] feeds = ["https://…/feed.xml"] to the vault\'s '
               ".wikitui/config.toml")
        if scheduled:
            self._failed(why, scheduled)
            return
        self.screen.notify(why[:1].upper() + why[1:] + ".", title="Inbox", severity="warning", timeout=10, markup=False)

    def _failed(self, why: str, scheduled: bool) -> None:
        if scheduled:
            notice = self.schedule.finished(failed=why)
            if notice:
                self.screen.notify(notice, title="Inbox", severity="warning", timeout=6, markup=False)
            return
        self.screen.notify(f"The inbox failed: {why}", title="Inbox", severity="error", timeout=10, markup=False)

    def _done(self, report: InboxReport, scheduled: bool) -> None:
        paths = [added.path for added in report.added]
        if paths:
            self.host.files_added(paths, reveal=not scheduled)
        failed = [p for p in report.problems if p.startswith("feed ")]
        if scheduled:
            notice = self.schedule.finished(failed=failed[0] if failed else None, added=len(paths))
            if notice:
                self.screen.notify(notice, title="Inbox", severity="warning" if failed else "information", markup=False)
            return
        text = report.summary()[:1].upper() + report.summary()[1:]
        if paths:
            text += "; not ingested yet (○ in Sources)"
        problems = "".join(f"\n{p}" for p in report.problems[:4])
        more = f"\n…and {len(report.problems) - 4} more" if len(report.problems) > 4 else ""
        self.screen.notify(text + "." + problems + more, title="Inbox",
                           severity="warning" if report.problems else "information", timeout=10, markup=False)
