"""The instructions of ``ingest``'s two phases: the plan (nothing proposed yet), then the write."""

from __future__ import annotations

from wikitui.core.agent.prompts.system import CONTRADICTION_FORMAT, INDEX_MANAGED, INDEX_OWNED

INGEST_PLAN = """\
Task: ingest the source {source}. This is the PLAN phase: the propose_* tools refuse until the user approves.
1. Read {source} in full (call read again with the offset it gives while there is more). A long source comes \
in parts: after each part, before reading the next, write brief notes on it (its key claims, names, dates and \
numbers, quotations worth keeping, with their line numbers), so the early parts are not lost by the end; when \
every part is read, draw the plan from those notes, part by part.
2. Search the wiki for the people, places, things and ideas it mentions (titles and aliases) and read the \
pages it bears on, so the plan builds on what exists instead of duplicating it.
3. Reply with a short plan: the 3-6 key takeaways; the pages you will CREATE (path, title, type, one line \
each); the pages you will UPDATE (path: what changes); contradictions with existing pages. Then stop: the \
user steers the plan or approves it with /go."""

INGEST_WRITE = """\
Task: the WRITE phase of ingesting {source}. Carry out the plan you stated (as the user steered it).
Propose, in this one turn:
- the source summary page (type: source, sources: [{source}]), following WIKI.md's page shapes; for a long \
source read in parts, build it from your notes on each part (a section or a few points per part), so it covers \
the whole source and not only its last part, then the other pages from the same notes;
- updates to every existing page the source bears on (often 10-15): add what is new, add {source} to its \
`sources:`, bump `updated:`; read each page before editing it;
- new pages for important entities and concepts that lack one;
- links both ways (the source page links the pages, the pages link back);
- before proposing any NEW page, `search` for its name and aliases: update the page you find instead \
(add what is new; nothing when it already says it);
- contradictions with existing claims, noted on the pages that hold them, each as one line in the contradiction \
format, `{contradiction}` (never overwrite the old claim).
- evidence with every factual sentence: the source's exact words (and the line numbers read shows) on each \
edit, and per claim on each new page;
{index_rule}
When everything is proposed, reply with a short summary of the changeset (file: why). The user reviews it."""


def ingest_plan_task(source: str) -> str:
    """Instructions for an ingest's plan phase."""
    return INGEST_PLAN.format(source=source)


def ingest_write_task(source: str, index_managed: bool) -> str:
    """Instructions for an ingest's write phase."""
    return INGEST_WRITE.format(source=source, index_rule=INDEX_MANAGED if index_managed else INDEX_OWNED,
                               contradiction=CONTRADICTION_FORMAT)
