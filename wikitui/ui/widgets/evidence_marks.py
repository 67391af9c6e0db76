"""The evidence under a hunk in the review (DESIGN §11 "Evidence").

The evidence of each hunk is read by
:func:`~wikitui.core.changes.evidence_hunks.review_evidence` in a thread when the review opens
(:func:`find_evidence_marks`); the diff view draws, under the hunk, each evidence's source
and the source lines themselves (numbered), and a ⚠ line for a quote its source does not hold
or for a hunk that adds claims with no evidence. Each source line is a stop for the review's
``v`` key; ``enter`` on one opens the source at that line.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content

from wikitui.core.vault.visible_text import visible_line

#: One row: what it shows, and the (source, line) ``enter`` opens (None for a ⚠ line).
EvidenceRow = tuple[Content, tuple[str, int] | None]


def evidence_rows(marks: Any, width: int) -> list[EvidenceRow]:
    """The rows under a hunk for its :class:`~wikitui.core.changes.evidence_hunks.HunkEvidence`."""
    rows: list[EvidenceRow] = []
    if marks.unbacked:
        rows.append((Content.styled("⚠ adds claims with no evidence", "bold $text-error"), None))
    for item in marks.items:
        source = visible_line(item.source)
        if item.problem is not None:
            rows.append((Content.styled(f"⚠ evidence: {visible_line(item.problem)}", "bold $text-error"), None))
            continue
        span = f"{item.start}" if item.start == item.end else f"{item.start}–{item.end}"
        rows.append((Content.assemble(("❝ ", "$text-accent"), (source, "bold $text-accent"),
                                      (f" lines {span}", "$text-muted")), (item.source, item.start)))
        number_width = len(str(item.lines[-1][0])) if item.lines else 1
        for number, line in item.lines:
            text = Content.assemble((f"  {number:>{number_width}} │ ", "$text-muted"),
                                    (visible_line(line), "italic"))
            if text.cell_length > width:
                text = text.truncate(max(width - 1, 1)) + Content("…")
            rows.append((text, (item.source, number)))
        if item.more:
            rows.append((Content.styled(f"  … {item.more} more line{'s' if item.more != 1 else ''}",
                                        "$text-muted italic"), (item.source, item.lines[-1][0] + 1)))
    return rows


def find_evidence_marks(vault: Any, changeset: Any) -> dict[str, Any]:
    """{hunk id: its evidence to show}, reading the sources (slow: call it in a thread)."""
    from wikitui.core.changes.evidence_hunks import review_evidence

    return review_evidence(vault, changeset)
