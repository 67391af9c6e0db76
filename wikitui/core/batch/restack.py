"""One page's changes across a batch, re-derived over what the person kept (DESIGN §13, "Review at scale").

A batch's sources are stacked: source 3's edit of a page was recorded against the
text source 1 proposed for it. When the person rejects a hunk of source 1 there, the
text source 3 built on will never exist, so source 3's change is merged three-way
(:func:`~wikitui.core.changes.diffs.merge_texts`) over what the page will be instead:
base = what source 3 saw, ours = the page as the kept hunks leave it, theirs = what
source 3 proposed. A merge that does not come out clean is a :class:`Restacked` with
``conflict`` set: shown to the person, never applied.

:func:`restack_page` is pure: it takes the page's original file changes in batch order
and which of their hunks are rejected, and gives each one's derived file change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wikitui.core.changes.diffs import apply_hunks, merge_texts
from wikitui.core.changes.model import FileChange, make_file_change, sha256_bytes
from wikitui.core.vault.files import encode_exact


@dataclass(slots=True)
class Restacked:
    """One source's change of one page, as it stands after the earlier sources' decisions.

    Attributes:
        change: The file change to review and apply: the original, or its re-merge over the new base.
        remerged: Whether ``change`` was re-merged (the text it was proposed against will not exist).
        conflict: Why it cannot be re-merged (None: it can); its hunks are then never applied.
        regions: The conflicting regions, git-style (``<<<<<<< kept`` ... ``>>>>>>> proposed``).
    """

    change: FileChange
    remerged: bool = False
    conflict: str | None = None
    regions: list[str] = field(default_factory=list)


def _after(change: FileChange, rejected: set[str], before: str | None) -> str | None:
    """The page's text once ``change`` applies without its rejected hunks (None: the page does not exist)."""
    if change.binary:
        return before if any(h.id in rejected for h in change.hunks) else change.new_text
    if change.action in ("create", "delete"):  # one decision for the whole file
        if any(h.id in rejected for h in change.hunks):
            return before
        return None if change.action == "delete" else change.new_text
    kept = {h.id for h in change.hunks if h.id not in rejected}
    if change.action == "move" and change.hunks and change.hunks[0].id in kept:
        return None  # moved away: a later change of this path is about another file
    return apply_hunks(change.base_text, change.hunks, kept)


def restack_page(changes: Sequence[FileChange], rejected: Callable[[int, Restacked], set[str]],
                 labels: Sequence[str] = ()) -> list[Restacked]:
    """Each change of one page re-derived over what the earlier ones leave, in batch order.

    Args:
        changes: The page's file changes as the batch proposed them, source by source.
        rejected: ``rejected(i, derived)``: the ids of the hunks of ``derived.change`` (the
            derivation of ``changes[i]``; a re-merge has hunks of its own) the person rejected.
            The caller carries its decisions over to a re-merge's hunks here.
        labels: A name per change for the conflict regions (its source).

    Returns:
        One :class:`Restacked` per change. A change whose base is what the earlier ones leave is
        kept as it is; an edit over another text is re-merged three-way; an edit of a page an
        earlier rejection leaves absent, or a merge that does not come out clean, is a conflict.
    """
    out: list[Restacked] = []
    text: str | None = None
    for i, orig in enumerate(changes):
        if i == 0:
            text = None if orig.action == "create" else orig.base_text
        here = _restack_one(orig, text, labels[i - 1] if 0 < i <= len(labels) else "kept")
        out.append(here)
        dropped = rejected(i, here)
        if here.conflict is None:
            text = _after(here.change, dropped, text)
    return out


def _restack_one(orig: FileChange, text: str | None, label: str) -> Restacked:
    """``orig`` over ``text`` (what the page will be before it; None: absent)."""
    if orig.action == "create":
        if text is None or text == orig.new_text:
            return Restacked(orig)
        return Restacked(orig, conflict="the page exists by then, with other content")
    if text is None:
        return Restacked(orig, conflict="the page it edits will not exist: an earlier source's page was rejected")
    if text == orig.base_text:
        return Restacked(orig)
    if orig.binary or orig.action != "edit":
        return Restacked(orig, conflict="the text it was proposed against changed (this change is never merged)")
    merge = merge_texts(orig.base_text, text, orig.new_text, ours_label=f"kept ({label})")
    if not merge.clean:
        return Restacked(orig, conflict="it does not merge with what you kept of the earlier sources",
                         regions=merge.conflicts)
    index = orig.hunks[0].file if orig.hunks else 0
    change = make_file_change(index, orig.path, "edit", sha256_bytes(encode_exact(text)), text, merge.text,
                              reason=orig.reason)
    _carry(orig, change)
    return Restacked(change, remerged=True)


def _carry(orig: FileChange, change: FileChange) -> None:
    """The second reviewer's notes and the person's reasons follow the same lines into the re-merge."""
    notes = {tuple(h.lines): (h.review, h.reason) for h in orig.hunks if h.review or h.reason}
    for h in change.hunks:
        h.review, h.reason = notes.get(tuple(h.lines), (None, ""))
