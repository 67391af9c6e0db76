"""The eval's deterministic checks: each reads an :class:`~wikitui.core.eval.outcome.Outcome`, never asks a model.

A check is a function ``check(outcome) -> str | None``: None when it holds, else one
line saying what went wrong, in the user's terms ("the answer does not cite [[Dodo]]").
The builders make them from a task's particulars (pages, phrases, limits):
:mod:`.answer` reads the run (the answer, the tool calls, tokens and requests),
:mod:`.disk` what the applied changeset left on disk. Every check that a model doing
nothing would pass is paired, in the task catalogue, with one that needs real work.
"""

from wikitui.core.eval.checks.answer import (
    asks_questions,
    cites,
    cites_raw,
    cites_resolved,
    has_table,
    max_prompt_tokens,
    max_requests,
    no_proposals_under,
    plan_first,
    proposes_nothing,
    reports,
    says,
    says_any,
    wiki_tokens,
)
from wikitui.core.eval.checks.common import Check, fold
from wikitui.core.eval.checks.disk import (
    CALLOUT,
    contradiction_callout,
    keeps_claims,
    link_fixed,
    linked_both_ways,
    new_links_resolve,
    new_page_about,
    no_deletes,
    no_page_gutted,
    not_orphan,
    searched_before_creating,
    source_page,
    unchanged,
    updates_existing,
    wrote_only_wiki,
)

__all__ = [
    "CALLOUT", "Check", "asks_questions", "cites", "cites_raw", "cites_resolved", "contradiction_callout", "fold",
    "has_table", "keeps_claims", "link_fixed", "linked_both_ways", "max_prompt_tokens", "max_requests",
    "new_links_resolve", "new_page_about", "no_deletes", "no_page_gutted", "no_proposals_under", "not_orphan",
    "plan_first", "proposes_nothing", "reports", "says", "says_any", "searched_before_creating", "source_page",
    "unchanged", "updates_existing", "wiki_tokens", "wrote_only_wiki",
]
