"""How an edit saved to a file while wikitui writes it combines with what wikitui writes.

Used by the write transaction (:mod:`wikitui.core.changes.transaction`) and its
rollback: text is merged three-way over what the write expected; what cannot merge
is a :class:`~wikitui.core.changes.model.FileConflict`.
"""

from __future__ import annotations

from wikitui.core.changes.assets import is_binary_data
from wikitui.core.changes.diffs import merge_texts
from wikitui.core.changes.model import FileConflict
from wikitui.core.changes.replace import Merge
from wikitui.core.vault.files import decode_exact, encode_exact


def file_merge(rel: str, during: str) -> Merge:
    """How to combine an edit someone saved to ``rel`` while ``during`` was being written with ours.

    Text is merged three-way (merge3) over what the write expected; a creation,
    a deletion or overlapping edits cannot merge and raise :class:`FileConflict`.
    With ``later`` (two saves of one person around wikitui's rename), lines both
    inserted at one place are kept in the order they were saved.
    """

    def merge(base: bytes | None, theirs: bytes | None, ours: bytes | None, later: bool = False) -> bytes | None:
        if theirs == ours or theirs == base:
            return ours
        if any(data is not None and is_binary_data(data) for data in (base, theirs, ours)):
            raise FileConflict(rel, f"was changed on disk while {during} was being written (a binary file is "
                               "never merged)")
        if base is None:
            raise FileConflict(rel, f"was created on disk while {during} was being written, with other content")
        if theirs is None:
            raise FileConflict(rel, f"was deleted on disk while {during} was being written")
        if ours is None:
            raise FileConflict(rel, f"was edited on disk while {during} was deleting it")
        if theirs.startswith(base) and base.endswith(b"\n"):
            # Lines added at the end (a log, a note typed below): they follow ours. Bytes only, so a
            # merge keeps pace with a writer that appends every few milliseconds.
            return ours + theirs[len(base):] if ours.endswith(b"\n") or not ours else ours + b"\n" + theirs[len(base):]
        result = merge_texts(decode_exact(base), decode_exact(theirs), decode_exact(ours), insertions_in_order=later)
        if not result.clean:
            raise FileConflict(rel, f"was edited on disk while {during} was being written, in the same place",
                               result.conflicts)
        return encode_exact(result.text)

    return merge
