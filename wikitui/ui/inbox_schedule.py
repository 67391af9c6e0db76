"""The background inbox (DESIGN §9): ``[inbox] every_minutes`` brings the feeds' new items in, as
``[sync] every_minutes`` syncs (:mod:`wikitui.ui.sync_schedule`).

It never runs while a turn or another inbox run is at work, and a failure (a feed
offline, a server answering 500) is one quiet notice: the next failures in a row say
nothing more, and it simply tries again at the next period. The object knows no app:
it is handed the clock, how to start a run and what counts as busy, so tests move time
instead of sleeping.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from wikitui.core.base.words import plural

#: Longest wait between two looks at the clock, in seconds.
MAX_CHECK_S = 30.0


class InboxSchedule:
    """When the next background inbox run is due, and what its outcome should say.

    Args:
        start: Starts an inbox run in a worker.
        busy: Whether a turn (or anything else that should not be interrupted) is running.
        clock: Seconds, monotonic.
    """

    def __init__(self, *, start: Callable[[], None], busy: Callable[[], bool],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.start, self.busy, self.clock = start, busy, clock
        self.seconds: float | None = None
        self.last = clock()
        self.running = False
        self.failing = False

    def configure(self, minutes: float | None, set_interval: Callable[[float, Callable[[], object]], object]) -> None:
        """Start looking at the clock every so often when ``minutes`` is set (None: off)."""
        self.seconds = minutes * 60 if minutes else None
        if self.seconds:
            self.last = self.clock()
            set_interval(min(MAX_CHECK_S, max(self.seconds / 4, 0.05)), self.check)

    def check(self) -> bool:
        """Start a run when one is due and nothing is busy; True when it started."""
        if not self.seconds or self.running or self.clock() - self.last < self.seconds or self.busy():
            return False
        self.last = self.clock()
        self.running = True
        self.start()
        return True

    def finished(self, *, failed: str | None = None, added: int = 0) -> str | None:
        """The run ended: the notice to show, or None (nothing worth a word).

        Args:
            failed: What failed (a feed, the config), or None: every feed was read.
            added: How many new items came into raw/inbox/.
        """
        self.running = False
        note = f"Inbox: {plural(added, 'new item')} in raw/inbox/, not ingested yet." if added else None
        if failed is not None:
            first = not self.failing
            self.failing = True
            if first:
                return f"Scheduled inbox: {failed}; it will try again later." + (f" {note}" if note else "")
            return note
        self.failing = False
        return note
