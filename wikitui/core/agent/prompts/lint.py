"""The instructions of ``lint``'s semantic pass, and the deterministic report it starts from."""

from __future__ import annotations

LINT = """\
Task: a health check of the wiki. The deterministic checks already ran; their report is below.
Your semantic pass. Plan your reading rather than sampling pages at random: start with the reading plan below \
(stale pages first, then the most-linked ones), then follow what they lead to. Look for:
- contradictions between pages (each noted as one line in the vault's contradiction format, on the page that \
holds the claim), and claims a newer source has superseded;
- concepts mentioned on several pages that lack a page of their own, and missing cross-references;
- near-duplicate pages (the report's near-duplicate problems, and pages about one thing under two names): \
read BOTH pages in full before anything else, and merge a pair with propose_merge (into the page with the better \
title) only when the two readings show one subject; similar titles alone are no reason to merge;
- fixes for the report's findings where the fix is clear: a broken link pointed at the right page (or a page \
created for it), an orphan linked from the pages that mention its subject, a missing-frontmatter finding filled \
in with the fields it names. Never fill in frontmatter the vault's schema does not ask for: a field the report \
does not name is not missing.
Then the gaps: data the wiki lacks (claims without a source, subjects it touches but never covers), questions \
worth investigating next, and sources worth looking for to answer them.
Reply with a short report under the headings Findings, Data gaps, Questions and Sources to look for, naming \
pages as [[links]], and propose the fixes you are confident about as changes.

Reading plan:
{plan}

Deterministic report:
{report}"""


def lint_task(report_text: str, plan: str = "") -> str:
    """Instructions for a lint's semantic pass: the reading plan (see ``lint_plan``) and the deterministic report."""
    return LINT.format(report=report_text, plan=plan or "(none: start from index.md)")


def format_lint_report(report, limit: int = 120, per_check: int = 20) -> str:
    """A lint report as compact lines (``check path:line target: message``), at most ``limit``.

    Each check shows at most ``per_check`` lines, so thousands of one kind (a vault whose
    pages lack frontmatter) never hide the few of another (a broken link).
    """
    problems = list(getattr(report, "problems", []) or [])
    counts = getattr(report, "counts", {}) or {}
    head = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "no problems"
    lines = [f"Counts: {head}"]
    by_check: dict[str, list] = {}
    for p in problems:
        by_check.setdefault(p.check, []).append(p)
    shown = 0
    # The smallest kinds first, as `wikitui lint` prints them: a few broken links before a thousand orphans.
    for check, group in sorted(by_check.items(), key=lambda item: len(item[1])):
        room = max(0, min(per_check, limit - shown))
        for p in group[:room]:
            where = p.path + (f":{p.line}" if getattr(p, "line", None) else "")
            target = f" [{p.target}]" if getattr(p, "target", None) else ""
            lines.append(f"- {p.check} {where}{target}: {p.message}")
        shown += min(room, len(group))
        if len(group) > room:
            lines.append(f"... and {len(group) - room} more {check} (fix the pattern, not each one)")
    return "\n".join(lines)
