"""A job the workspace runs every so many minutes in the background (``[sync]``/``[inbox] every_minutes``).

It never starts while something that should not be interrupted is at work (a turn) or
while its last run is still going, and it keeps track of failures in a row so that only
the first one says a word. It knows no app: it is handed the clock, how to start a run and
what counts as busy, so tests move time instead of sleeping.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Longest wait between two looks at the clock, in seconds.
MAX_CHECK_S = 30.0


class PeriodicRun:
    """When the next background run is due.

    Args:
        start: Starts a run in a worker.
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

    def ended(self, *, failed: bool) -> bool:
        """A run ended; whether it is the first failure in a row (the one worth a notice)."""
        self.running = False
        first = failed and not self.failing
        self.failing = failed
        return first
