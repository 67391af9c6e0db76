"""Changesets, applies and undos as the plain data scripts read (DESIGN §10's JSON).

One place shapes what ``ingest --json``, ``pending ... --json``, ``undo --json``
(and any other reader, such as an MCP client) see of a changeset, so the shapes
stay the same wherever they are printed. Everything returned is JSON-ready.
"""

from __future__ import annotations

from wikitui.core.changes.model import Changeset, FileChange
from wikitui.core.changes.transaction import ApplyResult

#: A file action as scripts name it: a created file is ``new``.
OPS = {"edit": "edit", "create": "new", "delete": "delete", "move": "move"}


def file_summary(fc: FileChange) -> dict:
    """``{"path", "op", "hunks"}`` for one file (a move also has ``"to"``, its new path).

    ``hunks`` counts the file's reviewable pieces (a move's rename is one of them).
    """
    item: dict = {"path": fc.path, "op": OPS.get(fc.action, fc.action), "hunks": len(fc.hunks)}
    if fc.action == "move":
        item["to"] = fc.new_path
    return item


def changeset_summary(changeset: Changeset, *, hunks: bool = False) -> dict:
    """``{"id", "op", "title", "created", "files": [...]}``: a changeset as ``pending list --json`` shows it.

    ``hunks`` adds ``"hunks"``: :func:`hunk_summaries` (each hunk's second review and decision).
    """
    out = {
        "id": changeset.id,
        "op": changeset.op,
        "title": changeset.title,
        "created": changeset.created,
        "files": [file_summary(fc) for fc in changeset.files],
    }
    if hunks:
        out["hunks"] = hunk_summaries(changeset)
    return out


def held_by_review(changeset: Changeset) -> list[str]:
    """Ids of the hunks the second reviewer found ``wrong`` (DESIGN §11): the review screen starts them
    rejected, and a headless apply (``ingest --apply``, ``pending apply``) leaves them pending."""
    return [h.id for fc in changeset.files for h in fc.hunks
            if isinstance(h.review, dict) and h.review.get("verdict") == "wrong"]


def hunk_summaries(changeset: Changeset) -> list[dict]:
    """``[{"id", "path", "review", "decision"}]``: each hunk's second review and its decision.

    ``review`` is ``{"verdict", "note", "model"}`` or None (no reviewer read it); ``decision`` is
    ``"rejected"`` for a hunk found ``wrong`` (the review screen starts it rejected; ``pending apply``
    leaves it pending), else ``"undecided"`` (``pending apply`` accepts it).
    """
    wrong = set(held_by_review(changeset))
    out = []
    for fc in changeset.files:
        for h in fc.hunks:
            review = h.review if isinstance(h.review, dict) else None
            if review is not None:
                review = {k: review.get(k) for k in ("verdict", "note", "model")}
            out.append({"id": h.id, "path": fc.path, "review": review,
                        "decision": "rejected" if h.id in wrong else "undecided"})
    return out


def held_lines(changeset: Changeset, held: list[str]) -> list[str]:
    """One line per hunk left pending because the reviewer found it wrong (for stderr)."""
    by_id = {h.id: (fc, h) for fc in changeset.files for h in fc.hunks}
    lines = []
    for hid in held:
        fc, h = by_id[hid]
        review = h.review or {}
        note = " ".join(str(review.get("note") or "").split())
        lines.append(f"{fc.path} hunk {hid} left pending: {review.get('model') or 'the reviewer'} found it wrong"
                     + (f" ({_printable(note)[:200]})" if note else ""))
    return lines


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def result_summary(result: ApplyResult) -> dict:
    """``{"changeset", "files", "commit"}``: what an apply or undo wrote (``files``: the paths, deleted ones too)."""
    return {
        "changeset": result.changeset_id,
        "files": [*result.written, *(p for p in result.deleted if p not in result.written)],
        "commit": result.commit,
    }
