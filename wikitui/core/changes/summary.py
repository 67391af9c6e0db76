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


def changeset_summary(changeset: Changeset) -> dict:
    """``{"id", "op", "title", "created", "files": [...]}``: a changeset as ``pending list --json`` shows it."""
    return {
        "id": changeset.id,
        "op": changeset.op,
        "title": changeset.title,
        "created": changeset.created,
        "files": [file_summary(fc) for fc in changeset.files],
    }


def result_summary(result: ApplyResult) -> dict:
    """``{"changeset", "files", "commit"}``: what an apply or undo wrote (``files``: the paths, deleted ones too)."""
    return {
        "changeset": result.changeset_id,
        "files": [*result.written, *(p for p in result.deleted if p not in result.written)],
        "commit": result.commit,
    }
