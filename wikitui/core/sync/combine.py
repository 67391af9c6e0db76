"""How one path's three versions (the merge base, ours, theirs) combine in a sync (DESIGN §14).

Pure functions over bytes: no git, no disk. A page is merged three-way with merge3
(the merge changesets are applied with); log.md keeps both sides' entries, the new
ones in date order; what cannot combine is a :class:`Conflict`, never a file with
conflict markers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wikitui.core.changes.assets import is_binary_data
from wikitui.core.changes.diffs import merge_texts
from wikitui.core.vault.files import decode_exact, encode_exact

#: The line above which index.md is the person's and below which wikitui writes the catalog.
INDEX_MARKER = "<!-- wikitui:index -->"
_ENTRY = re.compile(r"^## \[(\d{4}-\d{2}-\d{2})\]", re.MULTILINE)


@dataclass(frozen=True)
class Conflict:
    """A path both sides changed in ways that do not combine.

    Attributes:
        path: The vault-relative path.
        why: One line: what each side did.
        regions: For text edited in the same place, each conflicting region (ours, then theirs).
    """

    path: str
    why: str
    regions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Combined:
    """A path's combined content: its bytes, or None when it is to be deleted."""

    data: bytes | None


def _entries(text: str) -> tuple[str, list[str]]:
    """log.md's text before its first entry, and each entry's text (heading to the next heading)."""
    starts = [m.start() for m in _ENTRY.finditer(text)]
    if not starts:
        return text, []
    bounds = [*starts, len(text)]
    return text[: starts[0]], [text[a:b] for a, b in zip(bounds, bounds[1:])]


def _ended(block: str) -> str:
    return block if block.endswith("\n") else block + "\n"


def union_log(base: str, ours: str, theirs: str) -> str:
    """log.md with every entry of both sides: ours as it is, then the entries new on either side in date order.

    An entry is a block from its ``## [YYYY-MM-DD]`` heading to the next one. Entries
    both sides hold (the base's, or one added on both) appear once; the entries new
    since the base are sorted by their date, ours first on the same day (a stable sort),
    so two people's logs read as one timeline.
    """
    _head, base_entries = _entries(base)
    head, our_entries = _entries(ours)
    _t, their_entries = _entries(theirs)
    known = {_ended(e) for e in base_entries}
    kept = [e for e in our_entries if _ended(e) in known]
    seen = set(known)
    new: list[str] = []
    for e in [*our_entries, *their_entries]:
        if _ended(e) not in seen:
            seen.add(_ended(e))
            new.append(e)
    day = {e: m.group(1) if (m := _ENTRY.match(e)) else "" for e in new}
    new.sort(key=lambda e: day[e])
    blocks = [*kept, *new]
    return head + "".join(_ended(b) for b in blocks[:-1]) + (blocks[-1] if blocks else "")


def _split_index(text: str) -> tuple[str, str] | None:
    """index.md's text up to and including its marker line, and the catalog below it (None: no marker)."""
    at = text.find(INDEX_MARKER)
    if at == -1:
        return None
    eol = text.find("\n", at)
    cut = len(text) if eol == -1 else eol + 1
    return text[:cut], text[cut:]


def _combine_index(path: str, base: str, ours: str, theirs: str) -> Combined | Conflict | None:
    """index.md with wikitui's marker: the lines above it merged, the catalog below left to be regenerated."""
    parts = [_split_index(t) for t in (base, ours, theirs)]
    if any(p is None for p in parts):
        return None
    (b_head, _), (o_head, o_tail), (t_head, _) = (p for p in parts if p is not None)
    head = merge_texts(b_head, o_head, t_head, ours_label="here", theirs_label="upstream")
    if not head.clean:
        return Conflict(path, "the lines above the catalog's marker were edited on both sides in the same place",
                        head.conflicts)
    return Combined(encode_exact(head.text + o_tail))


def combine(path: str, base: bytes | None, ours: bytes | None, theirs: bytes | None, *,
            log_path: str, index_path: str | None = None) -> Combined | Conflict:
    """The combined content of ``path``, or why it does not combine.

    Args:
        path: The vault-relative path (log.md is combined by :func:`union_log`; index.md with wikitui's
            marker has the lines above it merged and its catalog left for regeneration).
        base: Its bytes in the merge base (None: absent there).
        ours: Its bytes here.
        theirs: Its bytes upstream.
        log_path: The vault's log.md path.
        index_path: The vault's index.md path.
    """
    if ours == theirs or theirs == base:
        return Combined(ours)
    if ours == base:
        return Combined(theirs)
    if any(d is not None and is_binary_data(d) for d in (base, ours, theirs)):
        return Conflict(path, "a binary file changed on both sides (a binary file is never merged)")
    if ours is None:
        return Conflict(path, "deleted here, edited upstream")
    if theirs is None:
        return Conflict(path, "edited here, deleted upstream")
    if path == log_path:
        return Combined(encode_exact(union_log(decode_exact(base or b""), decode_exact(ours), decode_exact(theirs))))
    if base is None:
        return Conflict(path, "created on both sides, with different text")
    if path == index_path:
        index = _combine_index(path, decode_exact(base), decode_exact(ours), decode_exact(theirs))
        if index is not None:
            return index  # its catalog is regenerated once the pages are merged, never merged itself
    result = merge_texts(decode_exact(base), decode_exact(ours), decode_exact(theirs),
                         ours_label="here", theirs_label="upstream")
    if not result.clean:
        return Conflict(path, "edited on both sides in the same place", result.conflicts)
    return Combined(encode_exact(result.text))
