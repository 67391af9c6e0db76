"""Contradiction callouts: the one format in which a page notes a disagreement (DESIGN §11).

``> [!contradiction] <claim> — [[Other page]] says <other claim> (raw/source.md)``, on the
page that holds the claim. :func:`find_contradictions` lists every such callout of a page
(outside code fences, so a schema's own example is not one); lint's ``contradiction``
check and the links panel read it. A callout that does not follow the rest of the format
is still listed (its whole text is the claim): it is a contradiction all the same, and
lint is where it shows.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from wikitui.core.vault.files import decode_text, read_bytes
from wikitui.core.vault.layout import Vault

#: The start of a callout line: ``>`` then ``[!contradiction]`` (any case), Obsidian's fold marks allowed.
_START = re.compile(r"^[ \t]{0,3}>[ \t]*\[!contradiction\][+-]?[ \t]*", re.IGNORECASE)
#: The rest of the line, in the format: claim — [[Other page]] says other claim (source).
_PARTS = re.compile(
    r"^(?P<claim>.+?)\s+(?:—|–|--?)\s+\[\[(?P<other>[^\]\n|#]+)(?:[#|][^\]\n]*)?\]\]\s*(?:says\s+)?"
    r"(?P<other_claim>.*?)\s*(?:\((?P<source>[^()\n]+)\))?\s*$",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")


@dataclass(slots=True, frozen=True)
class Contradiction:
    """One contradiction callout.

    Attributes:
        line: Its 1-based line in the file.
        claim: What this page claims (the whole callout text when it is not in the format).
        other: The page that says otherwise, as linked (None when the callout names none).
        other_claim: What the other page says ("" when not given).
        source: The source in brackets at the end, or None.
    """

    line: int
    claim: str
    other: str | None
    other_claim: str
    source: str | None


def has_callout(text: str) -> bool:
    """A cheap test: whether ``text`` may hold a callout (most pages hold none)."""
    return "[!" in text and "contradiction" in text.lower()


def find_contradictions(text: str) -> list[Contradiction]:
    """Every ``> [!contradiction]`` callout of a page, in reading order (code fences skipped)."""
    if not has_callout(text):
        return []
    out: list[Contradiction] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        marker = _FENCE.match(line)
        if marker:
            mark = marker.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            continue
        if fence is not None:
            continue
        start = _START.match(line)
        if start is None:
            continue
        rest = line[start.end():].strip()
        parts = _PARTS.match(rest)
        if parts:
            out.append(Contradiction(number, parts["claim"].strip(), parts["other"].strip(),
                                     parts["other_claim"].strip(), (parts["source"] or "").strip() or None))
        else:
            out.append(Contradiction(number, rest or "(no claim written)", None, "", None))
    return out


def page_contradictions(vault: Vault, path: str) -> list[Contradiction]:
    """The contradiction callouts of the page at ``path`` as it is on disk ([] when it cannot be read)."""
    try:
        text, _ok = decode_text(read_bytes(os.path.join(vault.root, path)))
    except OSError:
        return []
    return find_contradictions(text)
