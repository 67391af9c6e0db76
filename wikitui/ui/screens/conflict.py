"""The conflict dialog over the review: a changeset that cannot be applied, shown plainly.

Which file, what blocks the apply, and the conflicting regions as two labelled sides
(``on disk`` / ``proposed``) rather than git's markers.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from wikitui.core.base.errors import Conflict

__all__ = ["ConflictScreen"]


class ConflictScreen(ModalScreen[None]):
    """A changeset that cannot be applied, shown plainly: which file, what blocks it, and where.

    Args:
        conflict: The :class:`Conflict` raised by ``apply_changeset`` (a
            ``FileConflict``'s ``path``, ``reason`` and ``region`` are shown apart),
            or a message.
        path: The file in conflict, when ``conflict`` does not carry it.
        region: The conflicting region(s), git-style ``<<<<<<< … >>>>>>>`` blocks, likewise.
    """

    CSS_PATH = "conflict.tcss"
    BINDINGS = [Binding("escape,enter,q", "close", "close"),
                Binding("question_mark", "app.help", "help", tooltip="Every key (this list)")]

    def __init__(self, conflict: Conflict | str, *, path: str | None = None, region: str | None = None) -> None:
        super().__init__()
        #: The file in conflict (None when unknown).
        self.file_path: str | None = path or getattr(conflict, "path", None)
        #: The conflicting region(s), git-style.
        self.conflict_region: str = region if region is not None else (getattr(conflict, "region", "") or "")
        reason = getattr(conflict, "reason", None)
        #: What blocks the apply, in one or two lines.
        self.message: str = reason or str(conflict).split("\n<<<<<<<", 1)[0]

    def compose(self) -> ComposeResult:
        with Vertical(id="conflict-dialog"):
            yield Static(Content.styled("Conflict · nothing was written", "bold $text-error"), id="conflict-title")
            if self.file_path:
                yield Static(Content.assemble(("file  ", "$text-muted"), (self.file_path, "bold")), id="conflict-path")
            yield Static(Content.assemble(("why   ", "$text-muted"), self.message), id="conflict-message")
            if self.conflict_region.strip():
                with VerticalScroll(id="conflict-regions"):
                    yield Static(_region_content(self.conflict_region), classes="conflict-region")
            yield Static(
                Content.styled(
                    "The file changed on disk since the agent proposed this, and the edits overlap. "
                    "Yours stays as it is: reject this hunk, or ask the agent to redo it from the page as it is now.",
                    "$text-muted",
                ),
                id="conflict-help",
            )
            yield Static(Content.assemble(("esc", "bold $text-accent"), (" back to the review", "$text-muted")))

    def action_close(self) -> None:
        """Close the dialog (back to the review)."""
        self.dismiss(None)


def _region_content(region: str) -> Content:
    """Conflict blocks as two labelled sides (``on disk`` / ``proposed``) instead of git markers.

    Text that holds no ``<<<<<<<`` block is shown as it is.
    """
    blocks: list[tuple[str, list[str], str, list[str]]] = []
    ours: list[str] = []
    theirs: list[str] = []
    side: list[str] | None = None
    label = ""
    for line in region.splitlines():
        if line.startswith("<<<<<<<"):
            label, ours, theirs = line[7:].strip() or "on disk", [], []
            side = ours
        elif line.startswith("=======") and side is ours:
            side = theirs
        elif line.startswith(">>>>>>>") and side is theirs:
            blocks.append((label, ours, line[7:].strip() or "proposed", theirs))
            side = None
        elif side is not None:
            side.append(line)
    if not blocks:
        return Content(region.rstrip("\n"))
    parts: list[Any] = []
    for ours_label, ours_lines, theirs_label, theirs_lines in blocks:
        if parts:
            parts.append("\n\n")
        parts.append((ours_label, "bold $text-warning"))
        parts.extend(item for line in ours_lines for item in ("\n  ", line))
        parts.extend(["\n", (theirs_label, "bold $text-primary")])
        parts.extend(item for line in theirs_lines for item in ("\n  ", line))
    return Content.assemble(*parts)
