"""Background lint (DESIGN §11): after ``[background] lint_after_idle_minutes`` with no key and no turn,
the semantic lint runs in a worker and leaves its proposals as a pending changeset, with a notice.

It never applies anything, runs at most once per idle period (a key starts a new
period), and is off unless the config sets the minutes. The clock is an attribute,
so tests move time instead of sleeping. It is handed what it uses (the workspace, a
way to ask whether a turn runs, the app for timers, workers and notices): it never
looks anything up on the app.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches

from wikitui.core.base.words import plural

if TYPE_CHECKING:
    from textual.app import App

    from wikitui.core.workspace import Workspace

#: Longest wait between two looks at the clock, in seconds.
MAX_CHECK_S = 30.0


class IdleLint:
    """Watches the workspace for idleness and runs the background lint.

    Args:
        host: Where the timer, the worker and the notices run (the app).
        workspace: The open vault the lint reads.
        turn_running: Whether the agent runs a turn now (it may raise ``NoMatches`` while the
            agent pane is not mounted yet: then none runs).
        clock: Seconds, monotonic (tests give their own).
        client: The model client for the lint (None: one for the settings).
    """

    def __init__(self, host: App[Any], *, workspace: Workspace, turn_running: Callable[[], bool],
                 clock: Callable[[], float] = time.monotonic, client: Any = None) -> None:
        self.host = host
        self.workspace = workspace
        self.turn_running = turn_running
        self.clock = clock
        self.client = client
        self.seconds: float | None = None
        self.settings: Any = None
        self.last_activity = clock()
        #: Whether the lint already ran in this idle period.
        self.ran_this_idle = False
        self.running = False
        #: The last background lint's outcome (a SemanticLint), for the tests and the notice.
        self.last: Any = None

    def configure(self, settings: Any) -> None:
        """Read ``lint_after_idle_minutes`` from ``settings`` and start looking at the clock when it is set."""
        minutes = getattr(settings, "lint_after_idle_minutes", None)
        self.settings = settings
        self.seconds = minutes * 60 if minutes else None
        if self.seconds:
            self.last_activity = self.clock()
            self.host.set_interval(min(MAX_CHECK_S, max(self.seconds / 4, 0.05)), self.check)

    def activity(self) -> None:
        """A key or a turn: the idle period starts again."""
        self.last_activity = self.clock()
        self.ran_this_idle = False

    def _turn_running(self) -> bool:
        try:
            return bool(self.turn_running())
        except (LookupError, NoMatches):  # the agent pane is not mounted yet: no turn can run
            return False

    def check(self) -> bool:
        """Start the background lint when the workspace has been idle long enough; True when it started."""
        if not self.seconds or self.running or self.ran_this_idle:
            return False
        if self._turn_running():
            self.activity()
            return False
        if self.clock() - self.last_activity < self.seconds or self.workspace.graph is None:
            return False
        if not getattr(self.settings, "model", None):
            return False  # no model: nothing to ask (the agent pane says how to configure one)
        self.ran_this_idle = self.running = True
        self.host.run_worker(self._run(), group="background-lint", exclusive=True)
        return True

    async def _run(self) -> None:
        from wikitui.core.agent.semantic_lint import background_lint

        try:
            found = await background_lint(self.workspace, self.settings, client=self.client)
        except Exception as exc:  # a background job must not bring the app down: say it and go on
            self.host.notify(f"Background lint failed: {exc}", severity="warning", timeout=8)
            return
        finally:
            self.running = False
        self.last = found
        self.host.notify(notice_text(found), title="Background lint", timeout=12,
                         severity="warning" if found.failed else "information")


def notice_text(found: Any) -> str:
    """The notice a finished background lint leaves."""
    if found.failed:
        return "The model's pass did not finish; nothing is pending from it."
    problems = len(found.report.problems) if found.report is not None else 0
    cs = found.changeset
    sources = getattr(found, "sources", None)
    also = (f" {plural(len(sources.sources), 'web source')} proposed, nothing fetched: /research reviews them."
            if sources is not None else "")
    if cs is None:
        nothing = "no page change proposed" if also else "the model proposed nothing"
        return f"{plural(problems, 'problem')} from the checks; {nothing}.{also}"
    return (f"{plural(problems, 'problem')} from the checks; the model's proposals are pending as {cs.id} "
            f"({plural(len(cs.files), 'file')}): ctrl+r to review. Nothing was applied.{also}")
