"""Snippets for the hits shown: plain text, matched words wrapped in ``**``, and their line.

Whoosh's ``Highlighter`` re-analyses a document's whole text, about a millisecond
per page: too slow for a search that must answer in two. Instead:

1. a regular expression of plain literals finds, in lower-cased text, where a
   matched term *may* start (each stem's leading letters; for German, umlauts
   and ``ß`` folded the way the German stemmer folds them);
2. the lines holding the most such candidates are confirmed with the analyzer,
   one window of about 300 characters each, usually just one per hit;
3. the best one is cut to :data:`WIDTH` characters around its first match.

A query with a phrase is shown at the phrase: its words' heads, in order and
separated only by punctuation and stop words, are looked for in the whole text
(one regex), and the first occurrence the analyzer confirms is the line shown
and opened, the snippet cut around it. Only when no line holds the phrase (it
matched in the title, or across a line break) are the words looked for one by one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from wikitui.core.search.documents import SearchText
from wikitui.core.search.whoosh.analysis import CJK_RUN, MAX_TOKEN, TOKEN_PATTERN, WikiAnalyzer
from wikitui.core.search.whoosh.schema import TEXT_FIELDS
from wikitui.core.search.whoosh.snippet_text import (
    alternatives,
    collapse,
    find_all,
    fold,
    heads,
    plain,
    spans,
    word_bounds,
)

#: Characters of snippet text.
WIDTH = 180
#: Characters either side of a candidate that are analysed to confirm it.
_REACH = 150
#: Candidate lines analysed per hit, at most, looking for the one matching the most terms.
_MAX_LINES = 4
#: Prefilter matches looked at per batch (a long file repeating a word needs no more).
_MAX_CANDIDATES = 12
#: Characters a batch looks past its first candidate for a line holding more terms.
_LOOKAHEAD = 8192
#: Characters lower-cased and scanned at a time.
_CHUNK = 4096
#: Up to this many spellings are looked for with ``str.find``, beyond with the regex.
_MAX_FINDS = 24
#: Beyond this many alternatives the prefilter is not worth compiling.
_MAX_ALTERNATIVES = 400



def _cjk(ch: str) -> bool:
    """Whether ``ch`` is a CJK character (every one may start an index term)."""
    return ch >= "\u1100" and CJK_RUN.match(ch) is not None


def _inside_word(text: str, i: int) -> bool:
    """Whether ``text[i]`` continues a word rather than starting one ("ungodly" for "god").

    A CJK character always may start a term (its bigram or itself), and a Latin
    word starts right after one (``用Python写``).
    """
    if not i:
        return False
    prev, cur = text[i - 1], text[i]
    if cur == "§" or not (prev.isalnum() or prev == "_"):
        return False
    return not _cjk(cur) and not _cjk(prev)


def highlight_terms(q, reader) -> frozenset[str]:
    """The words to highlight: the query's own text-field terms, prefix and fuzzy ones expanded.

    (Whoosh's ``Query.existing_terms`` would do, but it only looks at the first
    field of a multi-field query: its loop variable shadows its ``fieldname``.)
    """
    out: set[str] = set()
    for leaf in q.leaves():
        if leaf.field() not in TEXT_FIELDS:
            continue
        for _field, text in leaf.expanded_terms(reader, phrases=True):
            out.add(text.decode("utf-8") if isinstance(text, bytes) else text)
    return frozenset(out)


def phrase_words(q) -> tuple[tuple[str, ...], ...]:
    """The word lists of the query's phrases in text fields (each once), as indexed (stems)."""
    out: dict[tuple[str, ...], None] = {}
    for leaf in q.leaves():
        words = getattr(leaf, "words", None)
        if type(leaf).__name__ == "Phrase" and leaf.field() in TEXT_FIELDS and words and len(words) > 1:
            out[tuple(w.decode("utf-8") if isinstance(w, bytes) else w for w in words)] = None
    return tuple(out)


class _Match:
    """A matched word in a window: where it is and the term it matched."""

    __slots__ = ("startchar", "endchar", "text")

    def __init__(self, startchar: int, endchar: int, text: str) -> None:
        self.startchar = startchar
        self.endchar = endchar
        self.text = text


class SnippetMaker:
    """Cuts snippets for the hits of one query.

    Args:
        terms: The query's terms as indexed (stems), prefix and fuzzy ones expanded.
        analyzer: The index's analyzer.
        width: Characters of snippet text.
        phrases: The query's phrases, each its words as indexed (see :func:`phrase_words`):
            a line holding one is the best match.
    """

    def __init__(
        self, terms: frozenset[str], analyzer: WikiAnalyzer, width: int = WIDTH, phrases: tuple = ()
    ) -> None:
        self.terms = terms
        self.phrases = tuple(p for p in phrases if p)
        self._phrase_rx: re.Pattern | None = None
        self.analyzer = analyzer
        self.width = width
        self._german = analyzer.lang == "de"
        found = heads(terms) if terms else []
        #: Distinct heads the prefilter seeks (0: no prefilter, every line is a candidate).
        self._heads = len(found) if len(found) <= _MAX_ALTERNATIVES else 0
        self._spellings = alternatives(terms, self._german) if self._heads else []
        # A few spellings are found fastest one ``str.find`` each: 5-10x faster
        # than ``re``'s scan for an alternation of literals; the regex is compiled
        # only for more of them, or for text that lower-cases to another length.
        self._alts = self._spellings if self._heads and len(self._spellings) <= _MAX_FINDS else None
        self._compiled: dict[int, re.Pattern] = {}
        self._longest = max((len(t) for t in terms), default=0)
        self._any = bool(terms)

    def _rx(self, flags: int = 0) -> re.Pattern:
        """The prefilter as a regex of plain alternatives, compiled on first use.

        Plain alternatives, for lower-cased (and for German, umlaut-folded) text:
        5-30x faster than the same search with a look-behind, character classes
        or IGNORECASE. Word starts are checked by the caller.
        """
        rx = self._compiled.get(flags)
        if rx is None:
            rx = self._compiled[flags] = re.compile("|".join(re.escape(a) for a in self._spellings), flags)
        return rx

    def _matches(self, window: str) -> list[_Match]:
        """The words of ``window`` whose index term is a matched term, in order.

        Only words the prefilter points at are analysed: a window of 50 words
        usually holds one or two.
        """
        terms = self.terms
        lowered = fold(window, self._german) if self._heads else window
        if not self._heads or lowered is window:
            tokens = self.analyzer(window, chars=True, mode="index")  # "index": CJK characters too, not only bigrams
            return [_Match(t.startchar, t.endchar, t.text) for t in tokens if t.text in terms]
        stops = self.analyzer.stopwords
        stem = self.analyzer.stem
        token_at = TOKEN_PATTERN.match
        out: list[_Match] = []
        done = 0  # end of the last word looked at
        found: Iterable[tuple[int, str]]
        if self._alts is not None:
            found = find_all(lowered, self._alts, len(lowered))
        else:
            found = spans(self._rx().finditer(lowered))
        for i, _head in found:
            if i < done:
                continue  # inside a word already looked at
            if _inside_word(window, i):
                continue
            tok = token_at(window, i)
            if tok is None:
                continue
            if tok.lastindex:  # CJK: the bigram starting here, else the character (what the index holds)
                for size in (2, 1) if tok.end() - i > 1 else (1,):
                    if window[i : i + size] in terms:
                        out.append(_Match(i, i + size, window[i : i + size]))
                        break
                done = i + 1
                continue
            done = tok.end()
            word = tok.group().lower()
            if len(word) > MAX_TOKEN or word in stops:
                continue
            term = stem(word)
            if term in terms:
                out.append(_Match(i, done, term))
        return out

    def _scan(self, text: str):
        """(offset, lower-cased candidate) for each prefilter match at a word start, in order.

        The text is lower-cased chunk by chunk: most hits have a candidate in their
        first lines, and lower-casing a whole long page would cost more than the
        rest of the snippet.
        """
        if not self._heads:
            for m in re.finditer(r"(?m)^(?=\S)", text):
                yield m.start(), ""
            return
        overlap = self._longest
        for base in range(0, len(text), _CHUNK):
            piece = text[base : base + _CHUNK + overlap]
            lowered = fold(piece, self._german)
            found: Iterable[tuple[int, str]]
            if lowered is piece:  # a letter like "İ" lower-cases longer: match case-insensitively
                found = ((m.start(), m.group().lower()) for m in self._rx(re.IGNORECASE).finditer(piece))
            elif self._alts is not None:
                found = find_all(lowered, self._alts, _CHUNK)
            else:
                found = spans(self._rx().finditer(lowered))
            for i, head in found:
                if i >= _CHUNK:
                    break  # the next chunk finds it
                if _inside_word(text, i + base):
                    continue
                yield i + base, head

    def _candidate_lines(self, text: str, found) -> list[tuple[int, bool, int, int, int]]:
        """The next batch of lines where a matched term may occur.

        Each is (distinct candidates, heading?, start, end, first candidate). A
        batch ends at the first sentence that may hold every term (nothing can
        beat it), after :data:`_MAX_CANDIDATES` candidates, or :data:`_LOOKAHEAD`
        characters past its first one.
        """
        lines: dict[int, list] = {}
        entry: list = [set(), -1, -1]  # heads, line end, first candidate
        line_start = -1
        first = -1
        for n, (pos, head) in enumerate(found):
            if first < 0:
                first = pos
            if pos >= entry[1]:  # a new line (candidates come in order)
                line_start = text.rfind("\n", 0, pos) + 1
                line_end = text.find("\n", pos)
                entry = lines[line_start] = [set(), line_end if line_end != -1 else len(text), pos]
            entry[0].add(head)
            if n + 1 >= _MAX_CANDIDATES or pos - first > _LOOKAHEAD:
                break
            if len(entry[0]) >= self._heads and not text.startswith("#", line_start):
                break
        return [(len(heads), text.startswith("#", ls), ls, le, first) for ls, (heads, le, first) in lines.items()]

    def _phrase_pattern(self) -> re.Pattern:
        """One regex for every phrase: each word's head spellings, then the rest of the word,
        the words apart only by what is not a word (and stop words, which take no position)."""
        if self._phrase_rx is None:
            stops = "|".join(re.escape(w) for w in sorted(self.analyzer.stopwords, key=len, reverse=True))
            gap = r"(?:[^\w§]+|(?<=§)|(?=§))" + (rf"(?:(?:{stops})(?![\w])[^\w§]+)*" if stops else "")
            alts = []
            for words in self.phrases:
                parts = []
                for word in words:
                    spelt = sorted(alternatives([word], self._german), key=len, reverse=True)
                    parts.append("(?:" + "|".join(re.escape(a) for a in spelt) + r")\w*(?:\.\d+)*")
                alts.append("(?:" + gap.join(parts) + ")")
            self._phrase_rx = re.compile(r"(?<![\w])(?:" + "|".join(alts) + ")", re.IGNORECASE)
        return self._phrase_rx

    def _phrases_in(self, text: str):
        """Where occurrences of the query's phrases in ``text`` start, in order (each confirmed with the analyzer)."""
        wanted = set(self.phrases)
        terms = self.analyzer.terms
        for m in self._phrase_pattern().finditer(fold(text, self._german)):
            if tuple(terms(text[m.start() : m.end()])) in wanted:
                yield m.start()

    def _find_phrase(self, doc: SearchText) -> tuple[str, int] | None:
        """The best line holding one of the query's phrases, cut around it.

        Of the first :data:`_MAX_LINES` lines with a phrase, the one holding the
        most distinct matched terms, a sentence winning over a heading and an
        earlier line over a later one (as :meth:`_find_words` ranks lines).
        """
        text = doc.text
        best: tuple | None = None  # score, line start, window, matches, cut left, cut right
        seen = 0
        line_end = -1
        for at in self._phrases_in(text):
            if at < line_end:
                continue  # another occurrence on a line already looked at
            line_start = text.rfind("\n", 0, at) + 1
            line_end = text.find("\n", at)
            line_end = len(text) if line_end == -1 else line_end
            start, end = word_bounds(
                text, max(line_start, at - _REACH), min(line_end, at + _REACH), line_start, line_end
            )
            window = plain(text[start:end])
            matches = self._matches(window)
            if matches:
                score = len({mt.text for mt in matches}) * 2 + (not text.startswith("#", line_start))
                if best is None or score > best[0]:
                    best = (score, line_start, window, matches, start > line_start, end < line_end)
            seen += 1
            if seen >= _MAX_LINES:
                break
        if best is None:
            return None
        _score, line_start, window, matches, cut_left, cut_right = best
        anchor = next(self._phrases_in(window), None)
        snippet = self._format(window, matches, cut_left=cut_left, cut_right=cut_right, anchor=anchor)
        return snippet, doc.first_line + text.count("\n", 0, line_start)

    def find_best(self, doc: SearchText) -> tuple[tuple[str, int] | None, bool]:
        """:meth:`find`, and whether the answer is final: False when a phrase was not found
        in a partly read document (the rest of it may hold the phrase)."""
        if self.phrases and self._any:
            found = self._find_phrase(doc)
            if found is not None:
                return found, True
        return self._find_words(doc), not (self.phrases and doc.partial)

    def find(self, doc: SearchText) -> tuple[str, int] | None:
        """The best-matching passage of ``doc`` and its 1-based line in the file.

        A line holding one of the query's phrases is the best; otherwise see
        :meth:`_find_words`. Returns None when no line matches.
        """
        return self.find_best(doc)[0]

    def _find_words(self, doc: SearchText) -> tuple[str, int] | None:
        """The best-matching passage of ``doc`` and its 1-based line in the file.

        "Best" is the line holding the most distinct matched terms, a sentence
        winning over a heading and an earlier line over a later one. Candidate
        lines are ranked by what the cheap prefilter saw and confirmed with the
        analyzer in that order, so most hits analyse one window. Returns None
        when no line matches.
        """
        if not self._any:
            return None
        text = doc.text
        found = self._scan(text)
        best: tuple | None = None  # score, line start, window, matches, cut left, cut right
        analysed = 0
        while best is None and analysed < _MAX_LINES:
            candidates = self._candidate_lines(text, found)
            if not candidates:
                break
            candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
            for potential, heading, line_start, line_end, first in candidates:
                if analysed >= _MAX_LINES or (best is not None and potential * 2 + 1 <= best[0]):
                    break  # no line left can beat the best one
                analysed += 1
                start, end = word_bounds(
                    text, max(line_start, first - _REACH), min(line_end, first + _REACH), line_start, line_end
                )
                window = plain(text[start:end])
                matches = self._matches(window)
                if not matches:
                    continue  # the prefilter's guess was wrong ("Godliness" for "god")
                # A heading usually repeats the title; a sentence says more.
                score = len({mt.text for mt in matches}) * 2 + (not heading)
                if best is None or score > best[0]:
                    best = (score, line_start, window, matches, start > line_start, end < line_end)
        if best is None:
            return None
        _score, line_start, window, matches, cut_left, cut_right = best
        snippet = self._format(window, matches, cut_left=cut_left, cut_right=cut_right)
        return snippet, doc.first_line + text.count("\n", 0, line_start)

    def _format(
        self, window: str, matches: list[_Match], *, cut_left: bool = False, cut_right: bool = False,
        anchor: int | None = None,
    ) -> str:
        """The part of ``window`` around its first match (or ``anchor``), ``width`` long, matches in bold.

        An ellipsis marks text left out, including where ``window`` was cut from a longer line.
        """
        first = matches[0].startchar if anchor is None else anchor
        start = max(0, first - self.width // 3)
        if start:
            sp = window.find(" ", start, first)
            start = sp + 1 if sp != -1 else start
        end = min(len(window), start + self.width)
        if end < len(window):
            sp = window.rfind(" ", first, end)
            end = sp if sp > first else end
        parts: list[str] = []
        at = start
        for mt_start, mt_end in _merged(matches):
            if mt_start < at or mt_end > end:
                continue  # before the cut, or running past it
            parts += (window[at:mt_start], "**", window[mt_start:mt_end], "**")
            at = mt_end
        parts.append(window[at:end])
        snippet = collapse("".join(parts))
        return ("… " if start or cut_left else "") + snippet + (" …" if end < len(window) or cut_right else "")

    def fallback(self, summary: str, doc: SearchText | None) -> str:
        """A snippet for a hit whose text holds no matched word (a title, tag or type match).

        The summary (matched words in bold), else the first lines of text.
        """
        if summary:
            matches = self._matches(summary) if self._any else []
            if matches:
                return self._format(summary, matches)
            return collapse(summary)[: self.width]
        if doc is None:
            return ""
        return collapse(plain(doc.text[: self.width * 4]))[: self.width]


def _merged(matches: list[_Match]) -> list[tuple[int, int]]:
    """The matches' spans, overlapping or touching ones joined (a CJK word's bigrams: one bold run)."""
    out: list[list[int]] = []
    for mt in sorted(matches, key=lambda mt: (mt.startchar, -mt.endchar)):
        if out and mt.startchar <= out[-1][1]:
            out[-1][1] = max(out[-1][1], mt.endchar)
        else:
            out.append([mt.startchar, mt.endchar])
    return [(a, b) for a, b in out]
