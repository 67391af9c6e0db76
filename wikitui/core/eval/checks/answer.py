"""Checks of the run itself: the answer's words, citations and tables, the tool calls, the tokens and requests."""

from __future__ import annotations

import re
from collections.abc import Callable

from wikitui.core.eval.checks.common import Check, fold, names
from wikitui.core.eval.outcome import Outcome

_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$")


# ------------------------------------------------------------------ the answer
def says(*phrases: str) -> Check:
    """The answer contains every phrase (case, quotes and spacing do not matter)."""
    def check(o: Outcome) -> str | None:
        text = fold(o.answer)
        missing = [p for p in phrases if fold(p) not in text]
        return f"the answer lacks the key fact{'s' if len(missing) > 1 else ''} " + \
            ", ".join(f'"{p}"' for p in missing) if missing else None
    return check


def says_any(*phrases: str, what: str) -> Check:
    """The answer contains at least one of the phrases; ``what`` names what they stand for."""
    def check(o: Outcome) -> str | None:
        text = fold(o.answer)
        return None if any(fold(p) in text for p in phrases) else f"the answer does not {what}"
    return check


def cites(*pages: str) -> Check:
    """The answer links each page (``[[title]]``, an alias or its path)."""
    def check(o: Outcome) -> str | None:
        cited = {path for _target, path in o.answer_links() if path}
        missing = [p for p in pages if p not in cited]
        return f"the answer does not cite {names(missing, o)}" if missing else None
    return check


def cites_resolved() -> Check:
    """The answer cites at least one page, and every ``[[link]]`` in it resolves."""
    def check(o: Outcome) -> str | None:
        links = o.answer_links()
        broken = sorted({t for t, path in links if path is None})
        if broken:
            return "the answer cites what is no page: " + ", ".join(f"[[{t}]]" for t in broken)
        return None if links else "the answer cites no page"
    return check


def cites_raw(path: str) -> Check:
    """The answer names the raw source ``path``."""
    def check(o: Outcome) -> str | None:
        return None if path in o.cited_raw() else f"the answer does not cite {path}"
    return check


def has_table(min_rows: int) -> Check:
    """The answer holds a markdown table with at least ``min_rows`` rows under its header."""
    def check(o: Outcome) -> str | None:
        lines = o.answer.splitlines()
        best = 0
        for i, line in enumerate(lines):
            if i and _TABLE_RULE.match(line) and "|" in lines[i - 1]:
                rows = 0
                for row in lines[i + 1:]:
                    if "|" not in row or not row.strip():
                        break
                    rows += 1
                best = max(best, rows)
        if best >= min_rows:
            return None
        return f"the answer has no table of at least {min_rows} rows" + (f" (its table has {best})" if best else "")
    return check


def asks_questions(min_count: int = 1) -> Check:
    """The answer poses at least ``min_count`` questions (lines holding a question mark)."""
    def check(o: Outcome) -> str | None:
        count = sum(1 for line in o.answer.splitlines() if "?" in line)
        return None if count >= min_count else "the report names no question worth investigating"
    return check


# ------------------------------------------------------------------ proposals
def proposes_nothing() -> Check:
    """The run proposed no change at all (and tried none)."""
    def check(o: Outcome) -> str | None:
        tried = sorted({p for c in o.calls if c.is_proposal for p in c.paths()[:1]})
        if o.changeset is None and not tried:
            return None
        return "the model proposed changes it was not asked for: " + ", ".join(tried or ["?"])
    return check


def plan_first() -> Check:
    """An ingest stated a plan, and tried no proposal before it."""
    def check(o: Outcome) -> str | None:
        early = [c.name for c in o.calls if c.phase == "plan" and c.is_proposal]
        if early:
            return f"the model proposed changes ({early[0]}) before stating its plan"
        return None if o.plan.strip() else "the plan phase ended without a plan"
    return check


def no_proposals_under(*prefixes: str) -> Check:
    """No ``propose_*`` call named a path under one of ``prefixes`` (refused or not)."""
    def check(o: Outcome) -> str | None:
        bad = sorted({p for c in o.calls if c.is_proposal for p in c.paths()
                      if any(p.lstrip("./").startswith(x) for x in prefixes)})
        return f"the model tried to change {', '.join(bad)}" if bad else None
    return check


# ------------------------------------------------------------------ lint
def reports(*terms: str, what: str) -> Check:
    """The answer names at least one of ``terms`` (a target, a title, a path); ``what`` says what it is."""
    def check(o: Outcome) -> str | None:
        text = fold(o.answer)
        return None if any(fold(n) in text for n in terms) else f"the report does not mention {what}"
    return check


# ------------------------------------------------------------------ economy
def max_requests(limit: int) -> Check:
    """The run made at most ``limit`` model requests (tool rounds plus the answer)."""
    def check(o: Outcome) -> str | None:
        return None if o.requests <= limit else f"{o.requests} model requests (at most {limit})"
    return check


def max_prompt_tokens(budget: Callable[[Outcome], int], label: str) -> Check:
    """The tokens sent over the whole run stay within ``budget(outcome)``; ``label`` says what the budget is."""
    def check(o: Outcome) -> str | None:
        limit = budget(o)
        if o.prompt_tokens <= limit:
            return None
        return f"sent {o.prompt_tokens:,} tokens; the budget is {limit:,} ({label})"
    return check


def wiki_tokens(o: Outcome) -> int:
    """Tokens of every page and WIKI.md as they were before the run: the cost of sending the whole wiki once."""
    prefix = o.vault.wiki_prefix + "/" if o.vault.wiki_prefix else ""
    texts = [data.decode("utf-8", "replace") for path, data in o.before.items()
             if (path.startswith(prefix) and path.endswith(".md")) or path == "WIKI.md"]
    return sum(o.count_tokens(t) for t in texts)
