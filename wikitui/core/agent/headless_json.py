"""The JSON documents of ``ask --json`` and ``ingest --json`` (DESIGN §10): one per run, on stdout.

The headless runner gathers what a run did (the answer or the plan, the changeset,
the usage) and these functions shape it. Each field comes from one small function,
so a richer source replaces one function: :func:`citations` resolves the answer's
links with the vault's link graph; a citation checker can take its place.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from wikitui.core.changes.summary import file_summary
from wikitui.core.vault.visible_text import json_visible


def tokens_of(usage: Any) -> tuple[dict, float]:
    """``({"in", "out"}, cost)`` from the last :class:`~wikitui.core.agent.events.TurnUsage` of a run (its session
    totals, so an ingest's plan and write phases both count); zeros when the run used none."""
    if usage is None:
        return {"in": 0, "out": 0}, 0.0
    return ({"in": int(usage.session_prompt_tokens), "out": int(usage.session_completion_tokens)},
            float(usage.session_cost))


def citations(graph, text: str) -> tuple[list[dict], list[str]]:
    """The citations of an answer: ``[{"target", "path"}]`` in order, each once (path None when
    unresolved), and the targets that resolve to nothing. Pages and raw sources (``raw/x.pdf#page=3``)
    are resolved by :func:`~wikitui.core.agent.citations.check_citations`, as the agent's turn checks them."""
    from wikitui.core.agent.citations import check_citations, unresolved

    if graph is None:
        return [], []
    cited = check_citations(text or "", graph)
    return [c.to_dict() for c in cited], unresolved(cited)


def ask_document(answer: str, graph, changeset, usage: Any) -> dict:
    """``{"answer", "citations", "unresolved", "changeset", "tokens", "cost"}`` (``changeset``: an id or None)."""
    cited, unresolved = citations(graph, answer)
    tokens, cost = tokens_of(usage)
    return {"answer": answer, "citations": cited, "unresolved": unresolved,
            "changeset": changeset.id if changeset is not None else None, "tokens": tokens, "cost": cost}


def ingest_document(plan: str, changeset, applied: bool, usage: Any, held: list[str] | None = None) -> dict:
    """``{"plan", "changeset": {"id", "files": [{"path", "op", "hunks"}]} or None, "applied", "held", "tokens", "cost"}``.

    ``held``: the ids of the hunks ``--apply`` left pending because the second reviewer found them ``wrong``
    (empty without ``--apply`` or a reviewer); ``applied`` is true when the rest was applied.
    """
    tokens, cost = tokens_of(usage)
    shown = None
    if changeset is not None:
        shown = {"id": changeset.id, "files": [file_summary(fc) for fc in changeset.files]}
    return {"plan": plan, "changeset": shown, "applied": applied, "held": list(held or []), "tokens": tokens, "cost": cost}


def write_document(out: TextIO, document: dict) -> None:
    """``document`` as indented JSON, the one thing on ``out``."""
    out.write(json_visible(json.dumps(document, ensure_ascii=False, indent=2)) + "\n")
    out.flush()
