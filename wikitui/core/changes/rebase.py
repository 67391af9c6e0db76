"""Pending changesets re-based on files that changed under them (a sync brought a teammate's edit in).

A changeset waits for review against the text it was proposed on. When that text
changes (``wikitui sync``, DESIGN §14), each of its file changes is re-based on the
new text, three-way: when every hunk still merges, the file change is made afresh over
the new text (the same edits, the second reviewer's notes kept on the same lines), so the
review shows what it would write now. A file where a hunk meets the other side's edit is
left exactly as it was: the review marks it a conflict (:mod:`.disk_status`), and nothing
of it is lost.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass, field

from wikitui.core.changes.apply import carry_reviews
from wikitui.core.changes.diffs import HunkMismatch, apply_hunks, merge_texts
from wikitui.core.changes.model import FileChange, make_file_change, sha256_bytes
from wikitui.core.changes.pending import PendingStore
from wikitui.core.changes.transaction import text_of
from wikitui.core.vault.files import encode_exact
from wikitui.core.vault.layout import Vault


@dataclass
class RebaseReport:
    """What re-basing did, as (changeset id, path) pairs."""

    rebased: list[tuple[str, str]] = field(default_factory=list)
    conflicts: list[tuple[str, str]] = field(default_factory=list)


def _rebased_file(vault: Vault, index: int, fc: FileChange) -> FileChange | None | bool:
    """The file change over the text on disk now; None when it needs nothing; False when a hunk conflicts."""
    if fc.binary or fc.action not in ("edit", "move"):
        return None  # a creation meets a new file, a deletion a changed one: the review shows the conflict
    now = text_of(vault, fc.path)
    if now is None or now == fc.base_text:
        return None
    text_hunks = [h for h in fc.hunks if h.kind not in ("rename", "file", "binary")]
    try:
        for hunk in text_hunks:  # each hunk alone: does it still merge with the other side's edit?
            alone = apply_hunks(fc.base_text, text_hunks, {hunk.id})
            if not merge_texts(fc.base_text, now, alone).clean:
                return False
        merged = merge_texts(fc.base_text, now, fc.new_text)
    except HunkMismatch:
        return False
    if not merged.clean:
        return False
    return make_file_change(index, fc.path, fc.action, sha256_bytes(encode_exact(now)), now, merged.text,
                            fc.new_path, fc.reason, binary=False)


def rebase_pending(vault: Vault, paths: Collection[str]) -> RebaseReport:
    """Re-base every pending changeset's changes to ``paths`` on the files as they are now.

    Args:
        vault: The vault.
        paths: The files that changed under the pending changesets (what a sync wrote).

    Returns:
        Which file changes were re-based and which were left for the review to show as conflicts.
    """
    report = RebaseReport()
    wanted = set(paths)
    store = PendingStore(vault)
    for cs in store.list():
        files: list[FileChange] = []
        changed = False
        for i, fc in enumerate(cs.files):
            outcome = _rebased_file(vault, i, fc) if fc.path in wanted else None
            if outcome is False:
                report.conflicts.append((cs.id, fc.path))
            if isinstance(outcome, FileChange):
                files.append(outcome)
                report.rebased.append((cs.id, fc.path))
                changed = True
            else:
                files.append(fc)
        if changed:
            carry_reviews(cs, files)
            store.save(dataclasses.replace(cs, files=files))
    return report
