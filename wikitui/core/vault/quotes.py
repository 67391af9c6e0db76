"""Does a source hold a quote? The pure check behind evidence (DESIGN §11 "Evidence").

A claim's evidence names a source and the words it draws on (a quote), a line range, or both.
:func:`find_quote` looks the quote up in the source's text: exactly first, then with
whitespace and case folded (a quote copied across a line break, with a space for the
break, or with its capitals changed still matches); a line range alone must lie inside the
source. Lines are numbered as the ``read`` tool numbers them (``str.splitlines``, 1-based),
so a range the model copied from a read is the range found here.

:func:`lines_digest` is the content hash of a range of lines, recorded when a changeset is
applied, so that a later change elsewhere in the source leaves the claim fresh
(:mod:`~wikitui.core.vault.claims`).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass
from typing import Literal

#: How a quote was found: ``exact``, ``folded`` (whitespace and case), ``lines`` (a range alone, in bounds),
#: ``missing`` (the source does not hold it) or ``out-of-range`` (a range past the source's end).
MatchKind = Literal["exact", "folded", "lines", "missing", "out-of-range"]
#: The kinds that back a claim.
FOUND: tuple[MatchKind, ...] = ("exact", "folded", "lines")
#: The longest quote looked up (a longer one is looked up by its first part).
MAX_QUOTE = 4_000


@dataclass(frozen=True, slots=True)
class QuoteMatch:
    """Where a quote is in a source.

    Attributes:
        kind: See :data:`MatchKind`.
        start: First line (1-based) of the match; 0 when nothing was found.
        end: Last line (inclusive); 0 when nothing was found.
    """

    kind: MatchKind
    start: int = 0
    end: int = 0

    @property
    def found(self) -> bool:
        """Whether the source holds the evidence."""
        return self.kind in FOUND


class _Lines:
    """The line starts of a text, numbered as ``str.splitlines`` numbers them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pieces = text.splitlines(keepends=True)
        self.starts: list[int] = []
        at = 0
        for piece in self.pieces:
            self.starts.append(at)
            at += len(piece)

    @property
    def count(self) -> int:
        return len(self.pieces)

    def line_of(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        return max(1, bisect.bisect_right(self.starts, offset))

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Character offsets of lines ``start``..``end`` (1-based, inclusive)."""
        first = self.starts[start - 1]
        last = self.starts[end - 1] + len(self.pieces[end - 1])
        return first, last


def fold(text: str) -> str:
    """``text`` with whitespace runs as one space, trimmed, and case folded (how quotes compare loosely)."""
    return " ".join(text.split()).casefold()


def _folded_patterns(quote: str) -> list[re.Pattern[str]]:
    """The quote's words, any case, any whitespace between: first as whole words, then anywhere.

    Whole words first: "E A" is the end of one line and the start of the next, not the "e" that ends
    "line" before a line that starts with "A" (hypothesis found that one). Then anywhere, as before, for
    text whose words are not separated (Chinese, Japanese) and quotes cut inside a word.
    """
    words = quote.split()
    if not words:
        return []
    body = r"\s+".join(re.escape(w) for w in words)
    return [re.compile(r"(?<!\w)" + body + r"(?!\w)", re.IGNORECASE), re.compile(body, re.IGNORECASE)]


def find_quote(text: str, quote: str = "", lines: tuple[int, int] | None = None) -> QuoteMatch:
    """Where ``text`` (a source) holds ``quote``, or whether line range ``lines`` lies in it.

    A quote is looked for inside the range first (when one is given), then anywhere: the
    quote is what a reader checks, the range only where to look. Exact before folded. An
    empty quote with a range checks that the range exists.

    Args:
        text: The source's text (as the ``read`` tool shows it).
        quote: The quoted words ("" for a range alone).
        lines: (first, last) line, 1-based and inclusive, or None.
    """
    index = _Lines(text)
    quote = quote[:MAX_QUOTE]
    in_range: tuple[int, int] | None = None
    if lines is not None:
        a, b = lines
        if a > b:
            a, b = b, a
        if 1 <= a and b <= index.count:
            in_range = index.span(a, b)
        elif not quote.strip():
            return QuoteMatch("out-of-range")
    if not quote.strip():
        if in_range is None or lines is None:
            return QuoteMatch("missing")
        a, b = sorted(lines)
        return QuoteMatch("lines", a, b)
    windows = ([in_range] if in_range is not None else []) + [(0, len(text))]
    stripped = quote.strip()
    for first, last in windows:
        at = text.find(stripped, first, last)
        if at != -1:
            return _match("exact", index, at, at + len(stripped))
    patterns = _folded_patterns(quote)
    for first, last in windows:
        for pattern in patterns:
            m = pattern.search(text, first, last)
            if m is not None:
                return _match("folded", index, m.start(), m.end())
    return QuoteMatch("missing")


def _match(kind: MatchKind, index: _Lines, start: int, end: int) -> QuoteMatch:
    return QuoteMatch(kind, index.line_of(start), index.line_of(max(start, end - 1)))


def source_lines(text: str, start: int, end: int) -> list[str]:
    """Lines ``start``..``end`` (1-based, inclusive) of ``text`` without their endings (those that exist)."""
    pieces = text.splitlines()
    return pieces[max(start, 1) - 1:max(end, 0)]


def lines_digest(text: str, start: int, end: int) -> str | None:
    """The sha256 of lines ``start``..``end`` of ``text`` (endings and trailing blanks ignored); None out of range."""
    pieces = text.splitlines()
    if not (1 <= start <= end <= len(pieces)):
        return None
    joined = "\n".join(p.rstrip() for p in pieces[start - 1:end])
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()
