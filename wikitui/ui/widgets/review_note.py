"""The second reviewer's note on a hunk, as the review shows it beside the hunk (DESIGN §11)."""

from __future__ import annotations

from textual.content import Content

from wikitui.core.vault.visible_text import visible_line

#: Marker and style per verdict.
_LOOK = {"ok": ("✓", "$text-success"), "doubt": ("?", "$text-warning"), "wrong": ("✗", "$text-error")}


def review_line(review: dict) -> Content:
    """``✗ wrong (model): note`` styled by verdict; ``review`` is a hunk's ``{"verdict", "note", "model"}``."""
    verdict = str(review.get("verdict", ""))
    mark, style = _LOOK.get(verdict, ("·", "$text-muted"))
    model = f" ({visible_line(str(review['model']))})" if review.get("model") else ""
    note = " ".join(visible_line(str(review.get("note") or "")).split())
    return Content.assemble((f"{mark} review: {verdict}", f"bold {style}"), (model, "$text-muted"),
                            (f" — {note}" if note else "", "italic"))
