"""The instructions of ``lint``'s semantic pass, and the deterministic report it starts from."""

from __future__ import annotations

LINT = """\
Task: a health check of the wiki. The deterministic checks already ran; their report is below.
Your semantic pass (read the pages involved; do not read everything): contradictions between pages, claims \
a newer source has superseded, concepts mentioned on several pages that lack a page of their own, missing \
cross-references, and fixes for the report's findings where the fix is clear (a broken link pointed at the \
right page or a page created for it, missing frontmatter filled in).
Reply with a short report grouped by kind, each finding naming its pages, and propose the fixes you are \
confident about as changes.

Deterministic report:
{report}"""


def lint_task(report_text: str) -> str:
    """Instructions for a lint's semantic pass, with the deterministic report."""
    return LINT.format(report=report_text)


def format_lint_report(report, limit: int = 120) -> str:
    """A lint report as compact lines (``check path:line target: message``), at most ``limit``."""
    problems = list(getattr(report, "problems", []) or [])
    counts = getattr(report, "counts", {}) or {}
    head = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "no problems"
    lines = [f"Counts: {head}"]
    for p in problems[:limit]:
        where = p.path + (f":{p.line}" if getattr(p, "line", None) else "")
        target = f" [{p.target}]" if getattr(p, "target", None) else ""
        lines.append(f"- {p.check} {where}{target}: {p.message}")
    if len(problems) > limit:
        lines.append(f"... and {len(problems) - limit} more (same checks; fix the pattern, not each one)")
    return "\n".join(lines)
