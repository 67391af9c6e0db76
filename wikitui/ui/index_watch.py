"""The search index's build as the screens follow it: the latest progress, and a signal on each report."""

from __future__ import annotations

from textual.dom import DOMNode
from textual.signal import Signal

from wikitui.ui.messages import IndexProgress


class IndexWatch:
    """The latest :class:`~wikitui.ui.messages.IndexProgress` of the index build, published to subscribers.

    The app owns one and hands it to whatever shows the build: the status beside
    the footer (through the workspace screen) and the search screen, which runs a
    waiting query once the build ends.

    Args:
        owner: The node that owns the signal (the app).
    """

    def __init__(self, owner: DOMNode) -> None:
        #: The build's latest progress report (its error once it failed).
        self.progress = IndexProgress(0, 0)
        #: Published with each progress report and when the build ends.
        self.signal: Signal[IndexProgress] = Signal(owner, "index-progress")

    def report(self, progress: IndexProgress) -> None:
        """Record ``progress`` and tell the subscribers."""
        self.progress = progress
        self.signal.publish(progress)
