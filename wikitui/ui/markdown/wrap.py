"""Word and character wrapping of styled runs, in time linear in the text.

Blocks wrap their runs here for one width: prose at word boundaries (a word wider than
the column is cut by character), code by character only. Wide characters (CJK, emoji)
take two cells and are never cut in half.
"""

from __future__ import annotations

import re

from rich.cells import cell_len, get_character_cell_size

from wikitui.ui.markdown.line import Seg, text_width

_WORD = re.compile(r"\S+\s*|\s+")


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


def wrap_runs(runs: list[Seg], width: int) -> list[list[Seg]]:
    """Word-wrap styled runs to ``width`` cells; hard breaks (``\\n``) always break.

    Words longer than the width are split by character. Spaces at a break are dropped,
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
        measure = len if ascii_only else cell_len
        breaks: list[int] = []
        col = 0
        for m in _WORD.finditer(text):
            word = m.group()
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
        slicer = _RunSlicer(para)
        bounds = [0, *breaks, len(text)]
        for a, b in zip(bounds, bounds[1:]):
            piece = text[a:b]
            b = a + len(piece.rstrip())
            if a > 0:  # a wrapped line never starts with the space that broke it
                a += len(piece) - len(piece.lstrip())
            out.append(slicer.slice(a, b) if b > a else [])
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
