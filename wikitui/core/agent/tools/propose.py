"""The propose tools: ``propose_edit``, ``propose_page``, ``propose_delete``, ``propose_move`` (DESIGN §4).

They add to the turn's changeset (the box's :class:`~wikitui.core.changes.builder.ChangesetBuilder`)
and write nothing: the person reviews the changeset. The tool box refuses them
while an ingest plans, and when the session cannot propose at all.
"""

from __future__ import annotations

from typing import TypedDict

from wikitui.core.agent.dedup import check_new_page
from wikitui.core.agent.tools.registry import tool


class _Source(TypedDict):
    source: str


class Cite(_Source, total=False):
    """What an edit's new text draws on: a source and the quoted words or line range (``total=False``: the
    keys past ``source`` are optional, which string annotations cannot say with ``NotRequired``)."""

    quote: str
    lines: str


class Claim(Cite, total=False):
    """What one claim of a page draws on: as :class:`Cite`, naming the claim's sentence."""

    claim: str


class _Replace(TypedDict):
    old: str
    new: str


class Edit(_Replace, total=False):
    """One exact search/replace edit, with the evidence its new text draws on."""

    evidence: list[Cite]



@tool("propose", lambda arg, args: f"proposed an edit to {arg('path')}")
def propose_edit(box, path: str, edits: list[Edit], reason: str) -> str:
    """Propose exact search/replace edits to an existing page. Each `old` must occur exactly once.

    A missing or ambiguous `old` rejects the whole call (never a partial edit): read the page
    again and copy the text exactly.

    Args:
        path: The page to edit.
        edits: Edits applied in order, each {"old": exact current text, "new": replacement, "evidence": [...]}.
        reason: One line saying why, shown to the user.
    """
    return box.builder.edit(path, [dict(e) for e in edits], reason)


@tool("propose", lambda arg, args: f"proposed the page {arg('path')}")
def propose_page(box, path: str, content: str, reason: str, evidence: list[Claim] | None = None) -> str:
    """Propose a new page (or a complete rewrite of one), with its YAML frontmatter.

    A new page named like an existing one (same or near-equal title or alias) is answered
    with that page: edit it instead, or call again with the same path to create yours anyway.

    Args:
        path: Where the page goes, e.g. wiki/concepts/transformer.md.
        content: The whole page, frontmatter included.
        reason: One line saying why, shown to the user.
    """
    check_new_page(box, path, content)
    return box.builder.new_page(path, content, reason, evidence=[dict(e) for e in evidence] if evidence else None)


@tool("propose", lambda arg, args: f"proposed deleting {arg('path')}")
def propose_delete(box, path: str, reason: str) -> str:
    """Propose deleting a page.

    Args:
        path: The page to delete.
        reason: One line saying why, shown to the user.
    """
    return box.builder.delete(path, reason)


@tool("propose", lambda arg, args: f"proposed moving {arg('path')} to {arg('new_path')}")
def propose_move(box, path: str, new_path: str, reason: str) -> str:
    """Propose moving or renaming a page; links pointing at it are rewritten in the same changeset.

    Args:
        path: The page to move.
        new_path: Its new path.
        reason: One line saying why, shown to the user.
    """
    return box.builder.move(path, new_path, reason)
