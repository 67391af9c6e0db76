"""Matching for the quick switcher: every word of the query, in any order, fuzzily.

Textual's fuzzy matcher takes the query as one sequence of letters in order, so
``§ 15 EStG`` cannot find ``EStG § 15 Einkünfte aus Gewerbebetrieb``. Here each
word of the query is matched on its own, anywhere in the candidate: as a whole
word (best), the start of a word, inside a word, a near spelling of one word
(rapidfuzz: ``chesire`` for ``Cheshire``), or as letters in order inside ONE word
(worst: ``gwrbtrb``). Letters are never gathered across words: ``chesh`` must not
find ``characters/white-rabbit`` by its c, h, e, s and h. Every word must match. Scores are on the scale of Textual's matcher (a few points
per matched letter), so pages and the palette's own commands rank together.

Pure Python, no Textual: the provider in :mod:`wikitui.ui.commands` draws the
highlight from :attr:`WordMatch.positions`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Candidates are matched on their first this many characters (titles and paths are far shorter).
MAX_CANDIDATE = 400
#: Query words beyond this many are ignored (each costs a pass over the candidate).
MAX_WORDS = 12

#: How good each kind of word match is (a whole word scores 1).
WHOLE_WORD, WORD_START, INSIDE, LETTERS = 1.0, 0.9, 0.75, 0.4


@dataclass(frozen=True)
class WordMatch:
    """How a candidate matched: its score (0: no match) and the matched character offsets."""

    score: float
    positions: tuple[int, ...] = ()


def _starts_word(text: str, i: int) -> bool:
    return i == 0 or not text[i - 1].isalnum()


def _ends_word(text: str, end: int) -> bool:
    return end >= len(text) or not text[end].isalnum()


def _best_substring(text: str, word: str) -> tuple[float, int] | None:
    """The best occurrence of ``word`` in ``text``: (quality, start), or None."""
    best: tuple[float, int] | None = None
    start = text.find(word)
    while start != -1:
        if _starts_word(text, start):
            quality = WHOLE_WORD if _ends_word(text, start + len(word)) else WORD_START
        else:
            quality = INSIDE
        if best is None or quality > best[0]:
            best = (quality, start)
            if quality == WHOLE_WORD:
                break
        start = text.find(word, start + 1)
    return best


def _letters_in_order(text: str, word: str) -> tuple[float, tuple[int, ...]] | None:
    """The most compact run holding the letters of ``word`` in order: (quality, offsets), or None."""
    best: tuple[int, ...] | None = None
    start = text.find(word[0])
    while start != -1:
        offsets = [start]
        pos = start + 1
        for letter in word[1:]:
            pos = text.find(letter, pos)
            if pos == -1:
                break
            offsets.append(pos)
            pos += 1
        else:
            if best is None or offsets[-1] - offsets[0] < best[-1] - best[0]:
                best = tuple(offsets)
        if pos == -1:
            break  # a later start cannot find the letters either
        start = text.find(word[0], start + 1)
    if best is None:
        return None
    compactness = len(word) / (best[-1] - best[0] + 1)
    return LETTERS * compactness, best


#: A word this alike (rapidfuzz's ratio, 0-100) to a word of the candidate is a near spelling of it.
NEAR_RATIO = 80
#: Near spellings are only tried for query words at least this long (short ones are too alike).
NEAR_MIN = 4
NEAR = 0.6
_WORD = re.compile(r"\w+")


def _within_one_word(text: str, word: str) -> tuple[float, tuple[int, ...]] | None:
    """The best match of ``word`` inside a single word of ``text``: a near spelling, or its letters in order."""
    best: tuple[float, tuple[int, ...]] | None = None
    for token in _WORD.finditer(text):
        start, piece = token.start(), token.group()
        if len(word) >= NEAR_MIN and len(piece) >= NEAR_MIN and len(word) <= 2 * len(piece):
            from rapidfuzz.fuzz import ratio

            similarity = ratio(word, piece, score_cutoff=NEAR_RATIO)
            if similarity:
                found = (NEAR * similarity / 100, tuple(range(start, token.end())))
                if best is None or found[0] > best[0]:
                    best = found
                continue
        letters = _letters_in_order(piece, word)
        if letters is not None and (best is None or letters[0] > best[0]):
            best = (letters[0], tuple(start + o for o in letters[1]))
    return best


def _folded(text: str) -> tuple[str, list[int] | None]:
    """``text`` case-folded, and (when folding changed its length: ß → ss) each folded character's offset in ``text``."""
    folded = text.casefold()
    if len(folded) == len(text):
        return folded, None
    origin: list[int] = []
    for i, char in enumerate(text):
        origin.extend([i] * len(char.casefold()))
    return folded, origin


class WordMatcher:
    """Matches candidates against the words of ``query`` (case-insensitive, any order)."""

    def __init__(self, query: str) -> None:
        self.query = query
        self.words = [w for w in query.casefold().split()][:MAX_WORDS]

    def match(self, candidate: str) -> WordMatch:
        """Score ``candidate``; ``WordMatch(0)`` unless every word of the query matches."""
        if not self.words:
            return WordMatch(0.0)
        text, origin = _folded(candidate[:MAX_CANDIDATE])
        score = 0.0
        positions: set[int] = set()
        starts: list[int] = []
        for word in self.words:
            found = _best_substring(text, word)
            if found is not None:
                quality, start = found
                offsets: tuple[int, ...] = tuple(range(start, start + len(word)))
            else:
                near = _within_one_word(text, word)
                if near is None:
                    return WordMatch(0.0)
                quality, offsets = near
            # On the scale of Textual's matcher: about three points per letter of a clean match.
            score += quality * 3 * (len(word) + 1)
            positions.update(offsets if origin is None else (origin[o] for o in offsets))
            starts.append(offsets[0])
        if starts == sorted(starts):
            score *= 1.05  # the words in the order typed
        if " ".join(self.words) == text:
            score *= 1.5  # the whole candidate typed
        score *= 1 - min(len(candidate), 200) / 4000  # of equal matches, the shorter name first
        return WordMatch(score, tuple(sorted(positions)))
