"""Width-independent blocks of a rendered page, and their layout into terminal lines.

A page is parsed once into blocks (:mod:`wikitui.ui.markdown_blocks`); each block
lays itself out into :class:`Line` objects for a given width, so a resize re-wraps
without re-parsing. Styles are *role names* ("heading-1", "strong", "code-keyword"),
never colours: the page widget turns roles into theme colours when it paints.

A segment is a tuple ``(text, roles, link)``: ``roles`` is a space-separated string of
role names, ``link`` the index of the link in the page's link list (the tab stops) or
None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.cells import cell_len, get_character_cell_size

#: ``(text, roles, link index or None)``.
Seg = tuple[str, str, "int | None"]
#: A container prefix piece: ``(text, roles)``.
Prefix = list[tuple[str, str]]

_WORD = re.compile(r"\S+\s*|\s+")
#: Narrowest text column a block is wrapped to, whatever its indentation.
MIN_TEXT_WIDTH = 12


def text_width(text: str) -> int:
    """Terminal cells taken by ``text`` (ASCII fast path)."""
    return len(text) if text.isascii() else cell_len(text)


@dataclass(slots=True)
class Line:
    """One rendered terminal line.

    Attributes:
        segments: ``(text, roles, link)`` pieces, left to right.
        source_line: 1-based line of the file the line comes from (the start of its
            block for wrapped text; exact for code and table rows; 0 for the header).
        fill: Roles of the padding from the end of the text to the right edge
            (code blocks keep their background across the width).
    """

    segments: list[Seg]
    source_line: int
    fill: str = ""

    @property
    def text(self) -> str:
        """The line's plain text."""
        return "".join(s[0] for s in self.segments)

    def link_spans(self) -> list[tuple[int, int, int]]:
        """``(link, first cell, cell after last)`` for each link piece on the line."""
        spans: list[tuple[int, int, int]] = []
        x = 0
        for text, _roles, link in self.segments:
            w = text_width(text)
            if link is not None:
                if spans and spans[-1][0] == link and spans[-1][2] == x:
                    spans[-1] = (link, spans[-1][1], x + w)
                else:
                    spans.append((link, x, x + w))
            x += w
        return spans

    def link_at(self, x: int) -> int | None:
        """The link under cell ``x``, if any."""
        for link, a, b in self.link_spans():
            if a <= x < b:
                return link
        return None


def add_roles(segs: list[Seg], roles: str) -> list[Seg]:
    """Return ``segs`` with ``roles`` added to each piece."""
    if not roles:
        return segs
    return [(t, f"{roles} {r}" if r else roles, k) for t, r, k in segs]


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


def _prefix_segs(prefix: Prefix) -> list[Seg]:
    return [(t, r, None) for t, r in prefix]


def prefix_width(prefix: Prefix) -> int:
    """Cells taken by a container prefix."""
    return sum(text_width(t) for t, _ in prefix)


def fit_prefix(prefix: Prefix, room: int) -> Prefix:
    """``prefix`` in at most ``room`` cells, cut from the left (the bullet and innermost bar stay)."""
    excess = prefix_width(prefix) - max(room, 0)
    if excess <= 0:
        return prefix
    out: Prefix = []
    for text, roles in prefix:
        if excess > 0:
            w = text_width(text)
            if w <= excess:
                excess -= w
                continue
            while excess > 0 and text:
                excess -= get_character_cell_size(text[0])
                text = text[1:]
            text = " " * -excess + text  # a wide character cut in half leaves its other half blank
            excess = 0
        out.append((text, roles))
    return out


@dataclass(slots=True)
class Block:
    """Base of all blocks: its first source line and its container prefixes.

    Attributes:
        source_line: 1-based line where the block starts in the file.
        first_prefix: Prefix of the first line (a list bullet, quote bars).
        prefix: Prefix of the following lines (hanging indent, quote bars).
    """

    source_line: int
    first_prefix: Prefix = field(default_factory=list)
    prefix: Prefix = field(default_factory=list)

    def text_column(self, width: int) -> int:
        """Cells available for content after the prefixes.

        Deep nesting in a narrow pane squeezes the prefixes (see :meth:`_emit`) so the
        text keeps :data:`MIN_TEXT_WIDTH` cells, but the innermost bullet or quote bar
        stays when the width allows; the column is never wider than ``width``: a line
        wider than the pane would lose its last characters to the edge.
        """
        width = max(1, width)
        room = width - max(prefix_width(self.first_prefix), prefix_width(self.prefix))
        if room >= MIN_TEXT_WIDTH:
            return room
        innermost = max(prefix_width(self.first_prefix[-1:]), prefix_width(self.prefix[-1:]))
        return max(room, min(MIN_TEXT_WIDTH, width - innermost), min(width, 2))  # 2: a wide character

    def _emit(
        self, rows: list[list[Seg]], width: int, sources: list[int] | None = None, fill: str = ""
    ) -> list[Line]:
        """Lines of ``rows`` behind the prefixes, the prefixes cut to what the text column leaves."""
        room = max(1, width) - self.text_column(width)
        first = _prefix_segs(fit_prefix(self.first_prefix, room))
        rest = _prefix_segs(fit_prefix(self.prefix, room))
        lines = []
        for i, row in enumerate(rows):
            src = sources[i] if sources else self.source_line
            lines.append(Line((first if i == 0 else rest) + row, src, fill))
        return lines

    def layout(self, width: int) -> list[Line]:  # pragma: no cover - abstract
        """Lay the block out into lines ``width`` cells wide."""
        raise NotImplementedError


@dataclass(slots=True)
class TextBlock(Block):
    """Wrapped inline text: a paragraph, heading, list item text or header line.

    Attributes:
        runs: Inline pieces; ``\\n`` in a piece is a hard line break.
        heading: Heading level 1-6 (0 for other text), used for anchors.
    """

    runs: list[Seg] = field(default_factory=list)
    heading: int = 0

    def layout(self, width: int) -> list[Line]:
        """Word-wrap the runs inside the prefixes."""
        column = self.text_column(width)
        rows = [row for row in wrap_runs(self.runs, column) if row] or [[]]
        if self.heading == 1:  # the page title stands out from H2 by a heavy rule under it
            rows.append([("━" * column, "heading-rule", None)])
        return self._emit(rows, width)

    @property
    def plain(self) -> str:
        """The text without styles."""
        return "".join(r[0] for r in self.runs)


@dataclass(slots=True)
class BlankBlock(Block):
    """The empty line between two blocks (quote bars continue through it)."""

    def layout(self, width: int) -> list[Line]:
        """One line holding only the prefix."""
        return self._emit([[]], width)


@dataclass(slots=True)
class RuleBlock(Block):
    """A horizontal rule across the text column."""

    roles: str = "rule"

    def layout(self, width: int) -> list[Line]:
        """A line of box-drawing dashes."""
        return self._emit([[("─" * self.text_column(width), self.roles, None)]], width)


@dataclass(slots=True)
class CodeBlock(Block):
    """Highlighted code (a fenced block or a raw file).

    A fenced block wraps by character, as code does; a raw file shown as source
    (``gutter``) is mostly prose and wraps at word boundaries.

    Attributes:
        rows: One list of pieces per source line.
        gutter: Whether to number the lines (raw source view).
        first_number: Line number shown for the first row.
    """

    rows: list[list[Seg]] = field(default_factory=list)
    gutter: bool = False
    first_number: int = 1

    def layout(self, width: int) -> list[Line]:
        """Each source row behind its lead (line number or one cell of padding), wrapped at the column's edge."""
        column = self.text_column(width)
        digits = len(str(self.first_number + len(self.rows) - 1)) if self.gutter else 0
        lead_w = digits + 3 if self.gutter else 1
        if column - lead_w - 1 < 1:
            lead_w = 0  # a column too narrow for the lead: the code keeps every cell
        # One cell is kept free at the right edge, so code never touches the scrollbar.
        inner = max(1, column - lead_w - 1) if lead_w else column
        out: list[list[Seg]] = []
        sources: list[int] = []
        for i, row in enumerate(self.rows):
            pieces = wrap_source_row(row, inner) if self.gutter else wrap_code_row(row, inner)
            for j, piece in enumerate(pieces):
                if not lead_w:
                    lead: list[Seg] = []
                elif self.gutter:
                    num = str(self.first_number + i).rjust(digits) if j == 0 else " " * digits
                    lead = [(f"{num} │ ", "code-gutter", None)]
                else:
                    lead = [(" ", "code-block", None)]
                out.append(lead + add_roles(piece, "code-block"))
                sources.append(self.source_line + i)
        if not out:
            out, sources = [[(" ", "code-block", None)]], [self.source_line]
        return self._emit(out, width, sources, fill="code-block")


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
