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
    """Two lines: ``Batch raw/papers/ · 2 of 3 · writing raw/papers/b.md``, then the figures and the key."""
    phase = PHASES.get(p.phase, p.phase)
    head: list = [("Batch ", "bold"), (visible(selection), "bold $text-accent"),
                  f" · {p.n} of {p.total}"]
    if p.source:
        head += [" · ", (phase, "$text-warning" if p.phase == "stopping" else "$text-muted"), " ",
                 visible(p.source)]
    if p.paused:
        head += [" · ", (f"paused: {visible(p.paused)}", "$text-warning")]
    left = f"about {duration(p.left_s)} left" if p.left_s is not None else "time left: after the first source"
    figures: list = [f"{p.tokens:,} tokens · ${p.cost:.4f} · {left} · {p.proposed} proposed · ",
                     (f"{p.failed} failed", "$text-error" if p.failed else "")]
    if p.planning_ahead:
        figures.append(f" · {p.planning_ahead} planning ahead")
    key = " · esc stops after this source" if p.phase != "stopping" else " · esc again stops now"
    figures.append((key, "$text-muted"))
    return Content.assemble(*head, "\n", *figures)


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
