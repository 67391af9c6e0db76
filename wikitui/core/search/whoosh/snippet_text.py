"""Snippet text: markdown read as plain text, and where in (lower-cased) text a matched word may start.

Helpers of :mod:`wikitui.core.search.whoosh.snippets`: the prefilter looks for each
matched term's leading letters (its *head*: stemmers change at most a term's last
letter; German folds umlauts and writes ß as ss) with ``str.find`` or one regex,
and only the lines it finds are analysed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Patterns that start with a literal: re scans for it quickly (an optional "!" in
# front would make every position a possible start, several times slower).
_WIKILINK = re.compile(r"\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_MDLINK = re.compile(r"\[([^\]]*)\]\([^)\s]*\)")
_LINE_MARK = re.compile(r"^\s*(?:#{1,6}|>|[-*+]|\d+\.)\s+", re.MULTILINE)


def _label(m: re.Match) -> str:
    return m.group(2) or m.group(1)


def plain(text: str) -> str:
    """Markdown as plain text for a snippet: link syntax, emphasis and list marks removed."""
    if "[" in text:
        text = text.replace("![", "[")  # an embed reads as its link
        text = _WIKILINK.sub(_label, text)
        text = _MDLINK.sub(r"\1", text)
    text = text.replace("**", "").replace("__", "").replace("`", "")
    if "\n" not in text:  # one line (a snippet's window): only its start can hold a mark
        m = _LINE_MARK.match(text)
        return text[m.end() :] if m else text
    return _LINE_MARK.sub("", text)


def collapse(text: str) -> str:
    """White space runs as one space."""
    return " ".join(text.split())


def _head(term: str) -> str:
    """The leading letters every surface form of a stemmed term starts with."""
    # Stemmers cut suffixes and change at most the last letter (holy -> holi,
    # happy -> happi); the German one also folds umlauts and ß (see below).
    return term if len(term) <= 3 else term[:-1]


def _spellings(head: str, german: bool) -> set[str]:
    """A head as it may be spelt in (lower-cased, umlaut-folded) text."""
    out = {head}
    if german:  # the German stemmer spells ß as ss: Straße -> strass
        if "ss" in head:
            out.add(head.replace("ss", "ß"))
        if head.endswith("s"):
            out.add(head[:-1] + "ß")
    return out


def heads(terms: Iterable[str]) -> list[str]:
    """The distinct heads of ``terms``, none the prefix of another."""
    heads = sorted({_head(t) for t in terms if t})
    # A head covered by a shorter one adds nothing ("rabb" covers "rabbi").
    kept: list[str] = []
    for h in heads:
        if not kept or not h.startswith(kept[-1]):
            kept.append(h)
    return kept


def alternatives(terms: Iterable[str], german: bool) -> list[str]:
    """Every spelling of every head of ``terms``, longest first."""
    alts = {spelling for h in heads(terms) for spelling in _spellings(h, german)}
    return sorted(alts, key=lambda a: (-len(a), a))


def spans(matches) -> Iterable[tuple[int, str]]:
    """(start, text) of regex matches."""
    return ((m.start(), m.group()) for m in matches)


def find_all(text: str, needles: list[str], limit: int) -> list[tuple[int, str]]:
    """(start, needle) of every occurrence of the needles starting before ``limit``, in order.

    Where two needles start at one place the longer wins (as in a regex alternation
    that lists longer alternatives first).
    """
    find = text.find
    if len(needles) == 1:
        (needle,) = needles
        stop = limit + len(needle)
        out = []
        i = find(needle, 0, stop)
        while i != -1:
            out.append((i, needle))
            i = find(needle, i + 1, stop)
        return out
    found: dict[int, str] = {}
    for needle in needles:  # longest first: a shorter needle never replaces a longer one
        stop = limit + len(needle)
        i = find(needle, 0, stop)
        while i != -1:
            found.setdefault(i, needle)
            i = find(needle, i + 1, stop)
    return sorted(found.items())


def fold(text: str, german: bool) -> str:
    """Lower-cased text, umlauts folded for German, the same length as ``text`` (else ``text``)."""
    lowered = text.lower()
    if german:  # three replaces: str.translate takes a slow path on non-ASCII text, ~50x slower
        lowered = lowered.replace("ä", "a").replace("ö", "o").replace("ü", "u")
    return lowered if len(lowered) == len(text) else text


def word_bounds(text: str, start: int, end: int, line_start: int, line_end: int) -> tuple[int, int]:
    """Shrink [start, end) to whole words: a window cut inside a line must not split one."""
    if start > line_start:
        sp = text.find(" ", start, end)
        start = sp + 1 if sp != -1 else start
    if end < line_end:
        sp = text.rfind(" ", start, end)
        end = sp if sp > start else end
    return start, end
