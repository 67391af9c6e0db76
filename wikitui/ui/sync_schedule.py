"""Scheduled sync (DESIGN §14): ``[sync] every_minutes`` syncs the vault with its git upstream in the background.

It pushes only when nothing is pending review (a sync run then only brings the
upstream's commits in), never runs while a turn or another sync is at work, and a
failure (offline, a refused login) is one quiet notice: the next failures in a row
say nothing more, and it simply tries again at the next period. The object knows no
app: it is handed what it needs (the clock, how to start a sync, what counts as busy),
so tests move time instead of sleeping.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from wikitui.ui.periodic import PeriodicRun


class SyncSchedule(PeriodicRun):
    """When the next background sync is due, and what its outcome should say.

    Args:
        start: Starts a sync in a worker; its argument says whether to push.
        busy: Whether a turn (or anything else that should not be interrupted) is running.
        has_pending: Whether changesets wait for review (then the sync does not push).
        clock: Seconds, monotonic.
    """

    def __init__(self, *, start: Callable[[bool], None], busy: Callable[[], bool], has_pending: Callable[[], bool],
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(start=lambda: start(not has_pending()), busy=busy, clock=clock)

    def finished(self, *, failed: str | None = None, came_in: int = 0, conflicts: int = 0) -> str | None:
        """The sync ended: the notice to show, or None (nothing worth a word).

        Args:
            failed: Why it failed (None: it went through).
            came_in: How many commits it brought in.
            conflicts: How many paths conflict (nothing was written).
        """
        if self.ended(failed=failed is not None):
            return f"Scheduled sync failed ({failed}); it will try again later."
        if failed is not None:
            return None
        if conflicts:
            return f"Scheduled sync: {conflicts} conflict(s) with the upstream, nothing written: `wikitui sync` lists them."
        return f"Scheduled sync: {came_in} commit(s) came in." if came_in else None
