"""The text analyzer of the search index, and how its language is chosen.

One analyzer serves every text field (title, aliases, summary, headings, body) so
a query word means the same thing wherever it matches, and highlighting can check
a snippet's words against the matched terms directly.

It differs from Whoosh's ``StemmingAnalyzer`` in three ways:

- ``§`` is a token of its own and one-character tokens are kept, so ``§ 15 EStG``
  and ``"§ 15"`` are searchable in a German tax-law vault (the stock analyzer drops
  both ``§`` and ``15``-style single digits such as ``§ 5``).
- The stemmer and stop words follow the vault's language (detected from a sample
  of its pages, or set with ``[search] language = "de"`` in ``.wikitui/config.toml``).
  Umlauts stay part of their words; the German stemmer maps ``Einkünfte`` and
  ``Einkunft`` to the same stem, so both forms find each other.
- Chinese, Japanese and Korean, written without spaces between words, are split
  as Lucene's ``CJKAnalyzer`` splits them: a run of CJK characters (Han, kana,
  Hangul) becomes its overlapping bigrams (``浮存金`` -> ``浮存``, ``存金``), a lone
  CJK character stays one token, and a query's run becomes the phrase of its
  bigrams (the fields' ``multitoken_query="phrase"``). Indexing also keeps each
  character (Lucene's ``outputUnigrams``), so a one-character word (``猫``) is found. So any word of two or more
  characters inside a run is found, in any CJK language, without a dictionary
  (jieba, measured against this in the README's "Search" section, segments only
  Chinese). Latin words beside CJK ones (``用Python写``) are words of their own,
  stemmed as before, and full-width letters and digits (``１９３４``) read as ASCII.
- Tokenising, lower-casing, stop-word removal and stemming happen in one loop
  instead of a chain of four generators: indexing spends most of its analysis time
  in per-token generator overhead, and highlighting re-analyses text at query time.

This module imports Whoosh; the backend imports it only when a search or an update runs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from whoosh.analysis import Analyzer, Token
from whoosh.analysis.filters import STOP_WORDS
from whoosh.lang import stemmer_for_language, stopwords_for_language

#: Characters of the CJK scripts: Han (with 々〆〇), Bopomofo, hiragana, katakana
#: (full and half width; not the middle dot ・) and Hangul. A run of them is split into bigrams.
CJK_CHARS = (
    "\u1100-\u11ff\u3005-\u3007\u3040-\u30fa\u30fc-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31bf\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
#: A run of CJK characters.
CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
#: A word (numbers like ``15.3`` and ``v1.2`` kept whole; ``diagram.png`` is two
#: words), a ``§``, or a run of CJK characters (split into bigrams by the analyzer).
TOKEN_PATTERN = re.compile(rf"§|(?P<cjk>[{CJK_CHARS}]+)|[^\W{CJK_CHARS}]+(?:\.\d+)*")
#: Full-width ASCII (``１９３４``, ``ＡＩ``, common in Japanese text) read as ASCII, as Lucene's CJKWidthFilter does.
_WIDTH_FOLD = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
#: Longer tokens are hashes, base64 or URLs run together: not worth indexing.
MAX_TOKEN = 64
#: Languages offered by ``whoosh.lang`` with both a stemmer and a stop-word list.
LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "sv", "da", "no", "fi", "ru", "hu")
#: How much text language detection looks at.
_DETECT_CHARS = 400_000
#: Stem cache size per analyzer (a vault's vocabulary is far smaller).
_CACHE_MAX = 300_000


def _stopwords(lang: str) -> frozenset[str]:
    # English keeps Whoosh's short default list (what StemmingAnalyzer uses), so
    # phrases like "the white rabbit" keep most of their words.
    if lang == "en":
        return frozenset(STOP_WORDS)
    return frozenset(stopwords_for_language(lang))


def _stemmer(lang: str):
    # The original Porter stemmer is several times faster than Snowball's porter2.
    return stemmer_for_language("en_porter" if lang == "en" else lang)


class WikiAnalyzer(Analyzer):
    """Tokenise, lower-case, drop stop words and stem, in one pass.

    Pickled into the index's schema by Whoosh; only the language is stored, so the
    stemmer and its cache are rebuilt when the index is opened.

    Args:
        lang: A two-letter language code from :data:`LANGUAGES`.
    """

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang if lang in LANGUAGES else "en"
        self._setup()

    def _setup(self) -> None:
        self._stops = _stopwords(self.lang)
        self._stemfn = _stemmer(self.lang)
        self._cache: dict[str, str] = {}

    def __getstate__(self) -> dict:
        return {"lang": self.lang}

    def __setstate__(self, state: dict) -> None:
        self.lang = state.get("lang", "en")
        self._setup()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WikiAnalyzer) and other.lang == self.lang

    def __hash__(self) -> int:
        return hash(("WikiAnalyzer", self.lang))

    def __repr__(self) -> str:
        return f"WikiAnalyzer(lang={self.lang!r})"

    def has_morph(self) -> bool:
        """Stemming is a morphological change (Whoosh asks when spelling)."""
        return True

    @property
    def stopwords(self) -> frozenset[str]:
        """The lower-case words this analyzer leaves out."""
        return self._stops

    def stem(self, word: str) -> str:
        """The stem of one lower-case word (cached)."""
        s = self._cache.get(word)
        if s is None:
            s = self._stemfn(word)
            if len(self._cache) < _CACHE_MAX:
                self._cache[word] = s
        return s

    def __call__(  # noqa: PLR0913 - Whoosh's analyzer protocol
        self,
        value: str,
        positions: bool = False,
        chars: bool = False,
        keeporiginal: bool = False,
        removestops: bool = True,
        start_pos: int = 0,
        start_char: int = 0,
        tokenize: bool = True,
        mode: str = "",
        no_morph: bool = False,
        **kwargs,
    ):
        """Yield one reused :class:`whoosh.analysis.Token` per indexed word (Whoosh's protocol)."""
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        if not tokenize:
            word = value.lower() if value.isascii() else value.lower().translate(_WIDTH_FOLD)
            t.original = value
            t.text = word if no_morph else self.stem(word)
            t.boost = 1.0
            t.stopped = False
            if positions:
                t.pos = start_pos
            if chars:
                t.startchar, t.endchar = start_char, start_char + len(value)
            yield t
            return
        stops = self._stops
        cache = self._cache
        stem = self.stem
        pos = start_pos
        unigrams = mode == "index"
        for m in TOKEN_PATTERN.finditer(value):
            if m.lastindex:  # a run of CJK characters
                yield from self._cjk_run(t, m.group(), pos, start_char + m.start(), unigrams, positions, chars, keeporiginal)
                pos += max(1, len(m.group()) - 1)
                continue
            word = m.group().lower()
            if len(word) > MAX_TOKEN:
                continue
            if not word.isascii():
                word = word.translate(_WIDTH_FOLD)
            stopped = word in stops
            if stopped and removestops:
                continue  # stop words take no position (Whoosh's renumber=True)
            if keeporiginal:
                t.original = m.group()
            if no_morph:
                t.text = word
            else:
                s = cache.get(word)
                t.text = s if s is not None else stem(word)
            t.stopped = stopped
            t.boost = 1.0
            if positions:
                t.pos = pos
                pos += 1
            if chars:
                t.startchar = start_char + m.start()
                t.endchar = start_char + m.end()
            yield t

    @staticmethod
    def _cjk_run(t, run: str, pos: int, at: int, unigrams: bool, positions: bool, chars: bool, keeporiginal: bool):
        """The tokens of a run of CJK characters: its overlapping bigrams, a lone character as itself.

        With ``unigrams`` (indexing), every character is a token too, at the
        position of the bigram it starts (the last one at the last bigram's), so a
        one-character query word finds every page holding that character while a
        query's run, the phrase of its bigrams, still matches positions side by side.
        """
        n = len(run)
        last = max(0, n - 2)  # the position offset of the last bigram
        grams = [(i, 2) for i in range(n - 1)] if n > 1 else [(0, 1)]
        if unigrams and n > 1:
            grams = sorted(grams + [(i, 1) for i in range(n)])
        for i, size in grams:
            t.text = run[i : i + size]
            if keeporiginal:
                t.original = t.text
            t.stopped = False
            t.boost = 1.0
            if positions:
                t.pos = pos + min(i, last)
            if chars:
                t.startchar = at + i
                t.endchar = at + i + size
            yield t

    def terms(self, text: str) -> list[str]:
        """The index terms of ``text`` (stop words removed), in order."""
        return [t.text for t in self(text)]


def detect_language(samples: Iterable[str]) -> str:
    """Guess a vault's language from some of its text by counting stop words.

    Returns "en" when nothing decides it (no text, or no stop word of any language).
    """
    words: Counter[str] = Counter()
    seen = 0
    for text in samples:
        chunk = text[: _DETECT_CHARS - seen]
        seen += len(chunk)
        words.update(re.findall(r"\w+", chunk.lower()))
        if seen >= _DETECT_CHARS:
            break
    counts = dict.fromkeys(LANGUAGES, 0)
    for lang in LANGUAGES:
        stops = stopwords_for_language(lang)
        counts[lang] = sum(n for w, n in words.items() if w in stops)
    best = max(LANGUAGES, key=lambda lang: counts[lang])
    return best if counts[best] else "en"
