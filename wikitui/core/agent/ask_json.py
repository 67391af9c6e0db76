"""``wikitui ask --json`` (DESIGN §10): one JSON object with the answer and its checked citations.

``{"answer", "citations": [{"target", "path" (null when unresolved)}], "unresolved": [targets],
"changeset": id or null, "tokens": {"in", "out"}, "cost"}``.
"""

from __future__ import annotations

import json
from typing import TextIO

from wikitui.core.agent.citations import check_citations, unresolved


def ask_json(session, answer: str, changeset) -> dict:
    """The JSON object for an answered question (``changeset``: the one it left pending, or None)."""
    cited = check_citations(answer or "", session.graph)
    totals = session.totals
    return {
        "answer": answer or "",
        "citations": [c.to_dict() for c in cited],
        "unresolved": unresolved(cited),
        "changeset": changeset.id if changeset is not None else None,
        "tokens": {"in": totals.prompt_tokens, "out": totals.completion_tokens},
        "cost": totals.cost,
    }


def write_ask_json(out: TextIO, session, answer: str, changeset) -> None:
    """Print :func:`ask_json` on ``out`` as one line."""
    out.write(json.dumps(ask_json(session, answer, changeset), ensure_ascii=False) + "\n")
    out.flush()
