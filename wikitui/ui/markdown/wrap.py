"""Word and character wrapping of styled runs, in time linear in the text.

Blocks wrap their runs here for one width: prose at word boundaries (a word wider than
the column is cut by character), code by character only. Wide characters (CJK, emoji)
take two cells and are never cut in half.

Chinese and Japanese put no spaces between words, so a paragraph holding their
characters may also break between any two of them (UAX #14's ideographic class),
keeping the common rules (kinsoku): closing punctuation and small kana (``。，、」）ー``
...) never start a line, opening punctuation (``「（《“``) never ends one. Korean
separates its words with spaces and wraps at them, as before. (``uniseg.linebreak``
implements all of UAX #14 but took about 200 µs a character here, two seconds for a
page; these few rules are a regular expression.) :func:`wrap_content` applies the same
breaks to Textual ``Content`` (the review), whose own wrapping breaks at spaces only.
"""

from __future__ import annotations

import re

from rich.cells import cell_len, get_character_cell_size

from wikitui.ui.markdown.line import Seg, text_width

_WORD = re.compile(r"\S+\s*|\s+")
#: The same, a line also breaking after a hyphen (``Context-`` / ``efficiency``), as table cells do (UAX #14).
_WORD_HYPHEN = re.compile(r"[^\s-]*-+\s*|[^\s-]+\s*|\s+")

#: Characters a line may break before and after: Han, kana, Bopomofo, full-width letters and digits.
_IDEOGRAPHIC = (
    "\u2e80-\u2fdf\u3007\u3021-\u3029\u3038-\u303a\u3041-\u3096\u309f\u30a1-\u30fa\u30ff\u3105-\u312f"
    "\u31a0-\u31bf\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"
    "\U00020000-\U0003fffd"
)
#: Never at the start of a line: closing brackets and quotes, stops and commas, small kana, iteration marks.
_NO_START = (
    "!%),.:;?\\]}\u00bb\u2019\u201d\u2026\u2025\u3001\u3002\u3005\u3009\u300b\u300d\u300f\u3011\u3015\u3017"
    "\u3019\u301b\u301e\u301f\u303b\u3041\u3043\u3045\u3047\u3049\u3063\u3083\u3085\u3087\u308e\u3095\u3096"
    "\u309d\u309e\u30a0\u30a1\u30a3\u30a5\u30a7\u30a9\u30c3\u30e3\u30e5\u30e7\u30ee\u30f5\u30f6\u30fb\u30fc"
    "\u30fd\u30fe\u31f0-\u31ff\uff01\uff05\uff09\uff0c\uff0e\uff1a\uff1b\uff1f\uff3d\uff5d\uff60\uff61\uff63\uff64"
    "\u301c\uff5e"
)
#: Never at the end of a line: opening brackets and quotes.
_NO_END = "\u00ab\u2018\u201c\u3008\u300a\u300c\u300e\u3010\u3014\u3016\u3018\u301a\u301d\uff08\uff3b\uff5b\uff5f\uff62"
#: Whether a paragraph holds characters that may break between them.
_HAS_IDEOGRAPHIC = re.compile(f"[{_IDEOGRAPHIC}]")
#: What a CJK paragraph breaks into: one ideograph, or a run of other non-space characters, with the
#: opening punctuation before it and the closing punctuation after it (never split from it), and its spaces.
_CJK_UNIT = re.compile(
    f"[{_NO_END}]*(?:[{_IDEOGRAPHIC}]|[^\\s{_IDEOGRAPHIC}{_NO_END}]+)?[{_NO_START}]*\\s*|\\s+|."
)


def _split_hard(runs: list[Seg]) -> list[list[Seg]]:
    """Split runs at hard line breaks (``\\n`` in the text)."""
    lines: list[list[Seg]] = [[]]
    for text, roles, link in runs:
        if "\n" not in text:
            lines[-1].append((text, roles, link))
            continue
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append([])
            if part:
                lines[-1].append((part, roles, link))
    return lines


def _char_breaks(text: str, start: int, end: int, col: int, width: int) -> tuple[list[int], int]:
    """Break offsets inside ``text[start:end]`` (one over-long word), and the final column."""
    breaks: list[int] = []
    for i in range(start, end):
        w = get_character_cell_size(text[i])
        if col + w > width and col:
            breaks.append(i)
            col = 0
        col += w
    return breaks, col


class _RunSlicer:
    """Cuts pieces out of styled runs at increasing offsets, in time linear in the runs.

    Wrapping asks for the pieces of line after line of one paragraph; scanning the runs
    from the start for each line made a long paragraph quadratic (a 400 KB paragraph
    took seconds), so the slicer remembers the run where the previous piece ended.
    """

    __slots__ = ("runs", "_i", "_start")

    def __init__(self, runs: list[Seg]) -> None:
        self.runs = runs
        self._i = 0  # first run that may still hold text at or after the last offset asked
        self._start = 0  # offset of that run's first character

    def slice(self, a: int, b: int) -> list[Seg]:
        """The pieces between offsets ``a`` and ``b`` (``a`` never below the previous call's)."""
        runs = self.runs
        n = len(runs)
        i, s = self._i, self._start
        while i < n and s + len(runs[i][0]) <= a:  # skip runs wholly before a
            s += len(runs[i][0])
            i += 1
        self._i, self._start = i, s
        out: list[Seg] = []
        while i < n and s < b:
            text, roles, link = runs[i]
            e = s + len(text)
            piece = text[max(a, s) - s : min(b, e) - s]
            if piece:
                out.append((piece, roles, link))
            s = e
            i += 1
        return out


def _break_offsets(text: str, width: int, ascii_only: bool, hyphens: bool = False) -> list[int]:
    """Where one paragraph of ``text`` breaks to fit ``width`` cells (offsets of the lines after the first)."""
    measure = len if ascii_only else cell_len
    breaks: list[int] = []
    col = 0
    units = _CJK_UNIT if not ascii_only and _HAS_IDEOGRAPHIC.search(text) else _WORD_HYPHEN if hyphens else _WORD
    for m in units.finditer(text):
        word = m.group()
        if not word:
            continue
        core = word.rstrip()
        w_core = measure(core)
        if col and col + w_core > width:
            breaks.append(m.start())
            col = 0
        if w_core > width:
            extra, col = _char_breaks(text, m.start(), m.start() + len(core), col, width)
            breaks.extend(extra)
            col += measure(word) - w_core
        else:
            col += measure(word)
    return breaks


def wrap_runs(runs: list[Seg], width: int, hyphens: bool = False) -> list[list[Seg]]:
    """Word-wrap styled runs to ``width`` cells; hard breaks (``\\n``) always break.

    Words longer than the width are split by character; CJK text also breaks between
    its characters (see the module's docstring); with ``hyphens`` (a table cell), a
    line may also break after a hyphen. Spaces at a break are dropped,
    so a link wrapped over two lines keeps its index on both halves.
    """
    width = max(1, width)
    out: list[list[Seg]] = []
    for para in _split_hard(runs):
        text = "".join(r[0] for r in para)
        ascii_only = text.isascii()
        if (len(text) if ascii_only else cell_len(text)) <= width:
            out.append(para)
            continue
        breaks = _break_offsets(text, width, ascii_only, hyphens)
        slicer = _RunSlicer(para)
        bounds = [0, *breaks, len(text)]
        for a, b in zip(bounds, bounds[1:]):
            piece = text[a:b]
            b = a + len(piece.rstrip())
            if a > 0:  # a wrapped line never starts with the space that broke it
                a += len(piece) - len(piece.lstrip())
            out.append(slicer.slice(a, b) if b > a else [])
    return out


def breaks_between_characters(text: str) -> bool:
    """Whether ``text`` holds Chinese or Japanese characters, which lines may break between."""
    return not text.isascii() and _HAS_IDEOGRAPHIC.search(text) is not None


def wrap_content(content, width: int) -> list:
    """Textual ``Content`` wrapped to ``width`` cells: ``content.wrap``, except that CJK text
    breaks as :func:`wrap_runs` breaks it (between characters, kinsoku kept) instead of only at spaces."""
    text = content.plain
    if text.isascii() or "\n" in text or not _HAS_IDEOGRAPHIC.search(text):
        return content.wrap(width)
    width = max(1, width)
    if cell_len(text) <= width:
        return [content]
    breaks = _break_offsets(text, width, False)
    pieces = content.divide(breaks) if breaks else [content]
    out = []
    for n, piece in enumerate(pieces):
        piece = piece.rstrip()
        if n:
            plain = piece.plain
            piece = piece[len(plain) - len(plain.lstrip()) :]
        out.append(piece)
    return out


def wrap_code_row(row: list[Seg], width: int) -> list[list[Seg]]:
    """Split one code row into pieces of at most ``width`` cells (no word breaking)."""
    text = "".join(r[0] for r in row)
    if text_width(text) <= width:
        return [row]
    breaks, _ = _char_breaks(text, 0, len(text), 0, width)
    slicer = _RunSlicer(row)
    bounds = [0, *breaks, len(text)]
    return [slicer.slice(a, b) for a, b in zip(bounds, bounds[1:])]


def wrap_source_row(row: list[Seg], width: int) -> list[list[Seg]]:
    """Split one row of a source file at word boundaries into pieces of at most ``width`` cells.

    The row's indentation is kept; a word longer than the width is split by character.
    """
    pieces = [piece for piece in wrap_runs(row, width) if piece]
    return pieces or [[]]
