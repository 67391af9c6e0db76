"""The card the chat shows for a changeset the agent proposed.

It says what the turn wants to change (``3 files changed  +42 −7`` and one line
per file) and how to review it. Letters typed in the chat go to the input, so the
card names the key that opens the review, ``ctrl+r``; a click opens it too.
"""

from __future__ import annotations

from typing import Any, Literal

from textual import events
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from wikitui.core.vault.visible_text import visible_line

#: Where a changeset stands.
CardStatus = Literal["pending", "applied", "partial", "discarded", "undone"]

_ACTIONS = {
    "create": ("A", "$text-success"),
    "edit": ("M", "$text-warning"),
    "delete": ("D", "$text-error"),
    "move": ("R", "$text-primary"),
}

#: The card's bottom line by status (its colour comes from the status class in DEFAULT_CSS).
_STATUS_TEXT: dict[str, str] = {
    "pending": "ctrl+r review · pending",
    "applied": "✓ applied",
    "partial": "partly applied · ctrl+r review the rest",
    "discarded": "discarded",
    "undone": "↶ undone",
}


def _stats(change: Any) -> tuple[int, int]:
    return sum(h.added for h in change.hunks), sum(h.removed for h in change.hunks)


class ChangesetCard(Widget):
    """A changeset in the chat: title, size, the files, and how to review it.

    Args:
        changeset: The changeset (``.id``, ``.title``, ``.files``, ``.stats()``).
        status: Where it stands (see :data:`CardStatus`).

    Clicking the card posts :class:`ChangesetCard.ReviewRequested`.
    """

    DEFAULT_CSS = """
    ChangesetCard {
        height: auto;
        padding: 0 1;
        margin: 1 0 0 0;
        background: $surface;
        border: round $primary 50%;
        border-title-color: $text;
        border-title-style: bold;
        border-subtitle-color: $text-accent;
        &:hover { border: round $primary; }
        &.-applied { border: round $success 50%; border-subtitle-color: $text-success; }
        &.-partial { border: round $warning 50%; border-subtitle-color: $text-warning; }
        &.-discarded { border: round $foreground 20%; border-subtitle-color: $text-muted; }
        &.-undone { border: round $foreground 20%; border-subtitle-color: $text-muted; }
    }
    """

    #: At most this many file lines; the rest are counted.
    MAX_FILES = 8

    status: reactive[str] = reactive("pending")
    """Where the changeset stands: ``pending``, ``applied``, ``partial``, ``discarded`` or ``undone``."""

    class ReviewRequested(Message):
        """The user asked to review the card's changeset (they clicked it)."""

        def __init__(self, card: "ChangesetCard", changeset_id: str) -> None:
            super().__init__()
            self.card = card
            self.changeset_id = changeset_id
            """Id of the changeset to review."""

        @property
        def control(self) -> "ChangesetCard":
            """The card that was clicked."""
            return self.card

    def __init__(
        self,
        changeset: Any,
        *,
        status: CardStatus = "pending",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.changeset = changeset
        self.set_reactive(ChangesetCard.status, status)

    @property
    def changeset_id(self) -> str:
        """Id of the card's changeset."""
        return str(self.changeset.id)

    def update_changeset(self, changeset: Any, status: CardStatus | None = None) -> None:
        """Show ``changeset`` (e.g. what is left pending after a partial apply)."""
        self.changeset = changeset
        if status is not None:
            self.status = status
        self._update_borders()
        self.refresh(layout=True)

    def on_mount(self) -> None:
        self._update_borders()

    def watch_status(self, status: str) -> None:
        self._update_borders()

    def _update_borders(self) -> None:
        title = visible_line((getattr(self.changeset, "title", "") or "").strip())
        op = getattr(self.changeset, "op", "") or ""
        self.border_title = f"{op} · {title}" if op and title else title or op or "Changeset"
        self.border_subtitle = _STATUS_TEXT.get(self.status, self.status)
        for name in _STATUS_TEXT:
            self.set_class(self.status == name, f"-{name}")

    def render(self) -> Content:
        """The size line and one line per file, fitted to the card's width."""
        files = list(self.changeset.files)
        added = sum(_stats(f)[0] for f in files)
        removed = sum(_stats(f)[1] for f in files)
        width = max(self.content_size.width, 20)
        lines: list[Content] = [
            Content.assemble(
                (f"{len(files)} file{'s' if len(files) != 1 else ''} changed", "bold"),
                "  ",
                (f"+{added}", "$text-success"),
                " ",
                (f"−{removed}", "$text-error"),
            )
        ]
        for change in files[: self.MAX_FILES]:
            lines.append(self._file_line(change, width))
        if len(files) > self.MAX_FILES:
            lines.append(Content.styled(f"… and {len(files) - self.MAX_FILES} more", "$text-muted"))
        return Content("\n").join(lines)

    @staticmethod
    def _file_line(change: Any, width: int) -> Content:
        letter, colour = _ACTIONS.get(change.action, ("?", "$text-muted"))
        plus, minus = _stats(change)
        stats = Content.assemble((f"+{plus}", "$text-success"), " ", (f"−{minus}", "$text-error"))
        path = change.path if not getattr(change, "new_path", None) else f"{change.path} → {change.new_path}"
        path = visible_line(path)
        room = width - 2 - stats.cell_length - 1
        if len(path) > room:
            path = "…" + path[-max(room - 1, 1) :]
        gap = max(width - 2 - len(path) - stats.cell_length, 1)
        return Content.assemble((f"{letter} ", f"bold {colour}"), path, " " * gap, stats)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.ReviewRequested(self, self.changeset_id))
