"""The batch panel above the chat's input: a running batch's N of M, current source, tokens, cost, time left, failures.

:func:`panel_text` is pure (a :class:`~wikitui.core.batch.events.Progress` in, ``Content``
out); :class:`BatchPanel` shows it, hidden while no batch runs.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from wikitui.core.batch.events import Progress, duration
from wikitui.core.vault.visible_text import visible

#: What the phase reads as on the panel.
PHASES = {"planning": "planning", "writing": "writing", "queued": "starting", "stopping": "stopping after",
          "done": "done", "proposed": "proposed", "failed": "failed"}


def panel_text(selection: str, p: Progress) -> Content:
    """Short lines that wrap well in a narrow pane: the batch and N of M, the current source and its phase, tokens,
    cost and time left, the counts, the key."""
    phase = PHASES.get(p.phase, p.phase)
    lines: list = [("Batch ", "bold"), (visible(selection), "bold $text-accent"), f" · {p.n} of {p.total}"]
    if p.source:
        lines += ["\n", (phase, "$text-warning" if p.phase == "stopping" else "$text-muted"), " ", visible(p.source)]
    if p.paused:
        lines += ["\n", (f"paused: {visible(p.paused)}", "$text-warning")]
    left = f"{duration(p.left_s)} left" if p.left_s is not None else "time left: after a source"
    lines += ["\n", f"{p.tokens:,} tok · ${p.cost:.4f} · {left}",
              "\n", f"{p.proposed} proposed · ", (f"{p.failed} failed", "$text-error" if p.failed else "")]
    if p.planning_ahead:
        lines.append(f" · {p.planning_ahead} planning ahead")
    key = "esc stops after this source" if p.phase != "stopping" else "esc again stops now"
    lines += ["\n", (key, "$text-muted")]
    return Content.assemble(*lines)


class BatchPanel(Static):
    """A running batch's progress (hidden when none runs)."""

    DEFAULT_CSS = """
    BatchPanel {
        height: auto;
        padding: 0 1;
        margin: 0 1;
        background: $panel;
        border-left: thick $accent;
        display: none;
        &.-shown { display: block; }
    }
    """

    def show_progress(self, selection: str, progress: Progress) -> None:
        """Show ``progress`` of the batch of ``selection``."""
        self.update(panel_text(selection, progress))
        self.add_class("-shown")

    def hide(self) -> None:
        """No batch runs."""
        self.remove_class("-shown")
