"""The background inbox (DESIGN §9): ``[inbox] every_minutes`` brings the feeds' new items in, as
``[sync] every_minutes`` syncs (:mod:`wikitui.ui.sync_schedule`).

It never runs while a turn or another inbox run is at work, and a failure (a feed
offline, a server answering 500) is one quiet notice: the next failures in a row say
nothing more, and it simply tries again at the next period. The object knows no app:
it is handed the clock, how to start a run and what counts as busy, so tests move time
instead of sleeping.
"""

from __future__ import annotations

from wikitui.core.base.words import plural
from wikitui.ui.periodic import PeriodicRun


class InboxSchedule(PeriodicRun):
    """When the next background inbox run is due (:class:`~wikitui.ui.periodic.PeriodicRun`), and what its
    outcome should say."""

    def finished(self, *, failed: str | None = None, added: int = 0) -> str | None:
        """The run ended: the notice to show, or None (nothing worth a word).

        Args:
            failed: What failed (a feed, the config), or None: every feed was read.
            added: How many new items came into raw/inbox/.
        """
        note = f"Inbox: {plural(added, 'new item')} in raw/inbox/, not ingested yet." if added else None
        if self.ended(failed=failed is not None):
            return f"Scheduled inbox: {failed}; it will try again later." + (f" {note}" if note else "")
        return note
