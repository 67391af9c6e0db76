"""Whether a pending file change still applies to the file as it is on disk now.

A changeset is proposed against the files as they were; a person may edit them
(an editor, Obsidian, a sync tool) while it waits for review. The review marks such
files as soon as it sees them, with what ``enter`` would then do: merge the edits
three-way, or stop with a conflict. The rules are the apply's
(:mod:`wikitui.core.changes.apply`), run without writing anything.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

from wikitui.core.changes.diffs import HunkMismatch, apply_hunks, merge_texts
from wikitui.core.vault.files import encode_exact
from wikitui.core.changes.model import sha256_bytes
from wikitui.core.changes.transaction import text_of
from wikitui.core.base.errors import UnsafePath
from wikitui.core.vault.layout import Vault

__all__ = ["DiskStatus", "disk_status"]

#: ``same``: the file is as proposed against; ``changed``: it changed, but nothing still
#: on the table writes it; ``merges``: it changed, the change merges with the edits;
#: ``conflict``: it changed and the change cannot be applied as it is.
DiskState = Literal["same", "changed", "merges", "conflict"]


@dataclass(frozen=True, slots=True)
class DiskStatus:
    """What a file change meets on disk.

    Attributes:
        state: ``"same"``, ``"changed"``, ``"merges"`` or ``"conflict"``.
        why: One line for the user ("" when the file is unchanged).
    """

    state: DiskState
    why: str = ""


SAME = DiskStatus("same")


def disk_status(vault: Vault, change: Any, rejected: Collection[str] = ()) -> DiskStatus:
    """Compare a file change (a ``FileChange``) with the file on disk now; reads, never writes.

    Every hunk not in ``rejected`` counts as accepted (undecided hunks may still be),
    so a conflict here is one that the hunks still on the table would meet.

    Args:
        vault: The vault the change belongs to.
        change: The FileChange (path, action, base_hash, base_text, new_path, hunks).
        rejected: Ids of the hunks the user rejected.
    """
    taken = {h.id for h in change.hunks if h.id not in rejected}
    renamed = change.action == "move" and bool(change.hunks) and change.hunks[0].id in taken
    try:
        for path in (change.path, change.new_path) if renamed else (change.path,):
            vault.writable_path(path)  # a tampered pending file reads nothing outside the vault
        disk = text_of(vault, change.path)
        if renamed and (vault.root / change.new_path).exists():
            return DiskStatus("conflict", f"{change.new_path} now exists on disk")
    except UnsafePath as exc:
        return DiskStatus("conflict", str(exc))
    except UnicodeDecodeError:
        return DiskStatus("conflict", "no longer valid UTF-8 text on disk")
    except OSError as exc:
        return DiskStatus("conflict", f"cannot be read: {exc.strerror or exc}")
    if change.action == "create":
        if disk is None or disk == change.new_text:
            return SAME
        if not taken:
            return DiskStatus("changed", "created on disk since the proposal")
        return DiskStatus("conflict", "created on disk since the proposal, with other content")
    if disk is None:
        if change.action == "delete":
            return SAME
        return DiskStatus("conflict" if taken else "changed", "deleted on disk since the proposal")
    if sha256_bytes(encode_exact(disk)) == change.base_hash:
        return SAME
    if not taken:
        return DiskStatus("changed", "changed on disk since the proposal")
    if change.action == "delete":
        return DiskStatus("conflict", "changed on disk since it was proposed for deletion")
    if getattr(change, "binary", False):
        return DiskStatus("conflict", "changed on disk since the proposal (a binary file is never merged)")
    try:
        intended = apply_hunks(change.base_text, change.hunks, taken)
    except HunkMismatch:
        return DiskStatus("conflict", "the proposal no longer applies")
    if merge_texts(change.base_text, disk, intended).clean:
        return DiskStatus("merges", "changed on disk; the change merges with it")
    return DiskStatus("conflict", "changed on disk where the change edits it" + _meeting(change, disk, taken))


def _meeting(change: Any, disk: str, taken: set[str]) -> str:
    """Which accepted hunks meet the edit on disk, each alone (``: hunk 2 (line 3); reject it to apply the rest``)."""
    text_hunks = [h for h in change.hunks if getattr(h, "kind", "text") == "text"]
    meets = []
    for n, hunk in enumerate(text_hunks, 1):
        if hunk.id not in taken:
            continue
        try:
            alone = apply_hunks(change.base_text, change.hunks, {hunk.id})
        except HunkMismatch:
            continue
        if not merge_texts(change.base_text, disk, alone).clean:
            meets.append(f"hunk {n} (line {hunk.old_start})")
    if not meets or len(meets) == len([h for h in text_hunks if h.id in taken]):
        return f": {', '.join(meets)}" if meets else ""
    return f": {', '.join(meets)}; reject {'it' if len(meets) == 1 else 'them'} to apply the rest"
