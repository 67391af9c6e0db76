"""Exact search/replace edits on a page's text, with errors a model can act on.

An edit is ``{"old": str, "new": str}``: ``old`` must occur exactly once. Matching
ignores the difference between CRLF and LF (models write ``\\n``), and a UTF-8
byte-order mark is invisible to it; the replacement is written with the file's own
line endings, and every byte outside the replaced span stays as it was.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left

_BOM = "\ufeff"
#: Longest snippet quoted back to the model.
_SNIPPET = 300


class EditError(ValueError):
    """An edit that cannot be applied; the message says why and what to do instead."""


def newline_style(text: str) -> str:
    """The file's dominant line ending: ``"\\r\\n"`` when most lines end with it, else ``"\\n"``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def to_style(text: str, newline: str) -> str:
    """``text`` (any line endings) with ``newline`` line endings."""
    lf = text.replace("\r\n", "\n")
    return lf.replace("\n", newline) if newline != "\n" else lf


class _Normalised:
    """A text with CRLF folded to LF, and the map back to offsets in the original."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n")
        # Positions (in the folded text) of each "\n" that was "\r\n" in the original.
        self._crlf: list[int] = []
        removed = 0
        i = text.find("\r\n")
        while i != -1:
            self._crlf.append(i - removed)
            removed += 1
            i = text.find("\r\n", i + 2)

    def original(self, offset: int) -> int:
        """The original offset of a folded-text offset (a span keeps its ``\\r`` with its ``\\n``)."""
        return offset + bisect_left(self._crlf, offset)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _snippet(text: str, start: int, n_lines: int) -> str:
    lines = text[start:].split("\n")[: max(1, n_lines)]
    out = "\n".join(lines).rstrip()
    return out if len(out) <= _SNIPPET else out[: _SNIPPET - 1] + "…"


def _occurrences(text: str, needle: str, limit: int = 50) -> list[int]:
    """Start offsets of ``needle`` in ``text``, overlapping ones included."""
    hits: list[int] = []
    i = text.find(needle)
    while i != -1 and len(hits) < limit:
        hits.append(i)
        i = text.find(needle, i + 1)
    return hits


def _missing_hint(text: str, old: str) -> str:
    """Say where the text the model meant probably is, quoting what is really there."""
    n_lines = old.count("\n") + 1
    # 1. Same words, different whitespace (a common copying slip).
    words = old.split()
    if words:
        pattern = r"\s+".join(re.escape(w) for w in words)
        m = re.search(pattern, text)
        if m:
            line = _line_of(text, m.start())
            return (
                f"text matching it up to whitespace is at line {line}:\n{_snippet(text, m.start(), n_lines)}\n"
                "copy it exactly, including spaces and line breaks"
            )
    # 2. The first line of old is there, but what follows differs.
    first = next((ln.strip() for ln in old.split("\n") if ln.strip()), "")
    if first:
        at = text.find(first)
        if at != -1:
            ls = text.rfind("\n", 0, at) + 1
            return (
                f"its first line occurs at line {_line_of(text, at)}, but the text that follows differs; "
                f"the page has:\n{_snippet(text, ls, n_lines + 1)}"
            )
        # 3. The closest line of the page.
        page_lines = text.split("\n")
        close = difflib.get_close_matches(first, [ln.strip() for ln in page_lines], n=1, cutoff=0.6)
        if close:
            idx = next(i for i, ln in enumerate(page_lines) if ln.strip() == close[0])
            return f"the closest line is line {idx + 1}: {close[0][:_SNIPPET]}"
    return "read the page again and copy the text to replace exactly"


def apply_edits(text: str, edits: list[dict]) -> str:
    """Apply search/replace edits in order; all of them or none.

    Args:
        text: The file's exact text (a BOM as ``\\ufeff``, CRLF kept).
        edits: ``[{"old": str, "new": str}, ...]``; each ``old`` must occur exactly
            once in the text as left by the edits before it.

    Returns:
        The edited text, in the file's newline style, the BOM kept.

    Raises:
        EditError: An edit is malformed, its ``old`` is missing or occurs more than once.
            No edit is applied then.
    """
    if not isinstance(edits, list) or not edits:
        raise EditError('edits must be a non-empty list of {"old": ..., "new": ...} objects')
    bom = _BOM if text.startswith(_BOM) else ""
    current = text[len(bom):]
    newline = newline_style(current)
    total = len(edits)
    for n, edit in enumerate(edits, 1):
        where = f"edit {n} of {total}" if total > 1 else "the edit"
        if not isinstance(edit, dict) or not isinstance(edit.get("old"), str) or not isinstance(edit.get("new"), str):
            raise EditError(f'{where} must be an object with string fields "old" and "new"; no edit was applied')
        old = edit["old"].replace("\r\n", "\n")
        new = edit["new"]
        if old.startswith(_BOM):
            old = old[1:]
        if not old:
            raise EditError(
                f'{where} has an empty "old"; quote the existing text to replace (to add text, include the line '
                "it goes after), or use propose_page to write a whole page; no edit was applied"
            )
        if old == new.replace("\r\n", "\n"):
            raise EditError(f'{where} changes nothing ("old" equals "new"); no edit was applied')
        norm = _Normalised(current)
        hits = _occurrences(norm.text, old)
        if not hits:
            raise EditError(f'{where}: "old" was not found in the page; {_missing_hint(norm.text, old)}; no edit was applied')
        if len(hits) > 1:
            lines = ", ".join(str(_line_of(norm.text, h)) for h in hits[:10])
            more = "" if len(hits) <= 10 else ", ..."
            raise EditError(
                f'{where}: "old" occurs {len(hits)} times (at lines {lines}{more}); include more of the surrounding '
                "text in it so that it matches exactly once; no edit was applied"
            )
        start, end = norm.original(hits[0]), norm.original(hits[0] + len(old))
        current = current[:start] + to_style(new, newline) + current[end:]
    return bom + current
