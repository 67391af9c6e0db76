"""The review's reason bar: one line for the agent about a hunk (``e`` in the review)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class ReasonInput(Input):
    """The reason bar's input; its footer says what enter and esc do here."""

    BINDINGS = [
        Binding("enter", "submit", "save reason"),
        Binding("escape", "screen.leave", "cancel"),  # the screen closes the bar, not the review
    ]
