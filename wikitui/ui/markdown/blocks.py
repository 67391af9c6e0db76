"""Width-independent blocks of a rendered page, and their layout into terminal lines.

A page is parsed once into blocks (:mod:`wikitui.ui.markdown.builder`); each block
lays itself out into :class:`~wikitui.ui.markdown.line.Line` objects for a given width,
so a resize re-wraps without re-parsing. Blocks inside lists and quotes carry their
containers' prefixes (bullets, hanging indents, quote bars), cut from the left when a
deep nesting leaves the text too little room.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.cells import get_character_cell_size

from wikitui.ui.markdown.line import Line, Prefix, Seg, add_roles, text_width
from wikitui.ui.markdown.wrap import wrap_code_row, wrap_runs, wrap_source_row

#: Narrowest text column a block is wrapped to, whatever its indentation.
MIN_TEXT_WIDTH = 12


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
        digits: Width of the line numbers (0: as the block's own last number needs). A raw file's
            chunks all take the whole file's width, so the text does not shift between them.
    """

    rows: list[list[Seg]] = field(default_factory=list)
    gutter: bool = False
    first_number: int = 1
    digits: int = 0

    def layout(self, width: int) -> list[Line]:
        """Each source row behind its lead (line number or one cell of padding), wrapped at the column's edge."""
        column = self.text_column(width)
        digits = (self.digits or len(str(self.first_number + len(self.rows) - 1))) if self.gutter else 0
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


#: The marker in front of a foldable callout's title: folded, open.
FOLD_MARKERS = ("▸ ", "▾ ")


@dataclass(slots=True)
class FoldBlock(Block):
    """A foldable callout (``> [!faq]-`` folded, ``> [!faq]+`` open): its title line, and its body when open.

    Attributes:
        title: The title line's block; its first run is the fold marker (:data:`FOLD_MARKERS`).
        body: The blocks under the title (shown only while open).
        open: Whether the body is shown.
        selected: Whether the fold is under the page's cursor (its title is painted as selected).
        rows: After :meth:`layout`: the line, among the lines laid out, of this fold's title and of
            each fold shown inside it, with the fold.
    """

    title: TextBlock = field(default_factory=lambda: TextBlock(0))
    body: list[Block] = field(default_factory=list)
    open: bool = False
    selected: bool = False
    rows: list[tuple[int, FoldBlock]] = field(default_factory=list)

    def marker(self) -> Seg:
        """The title's first piece: the marker, painted as selected while the cursor is on the fold."""
        return (FOLD_MARKERS[self.open], "callout fold link-selected" if self.selected else "callout fold", None)

    def layout(self, width: int) -> list[Line]:
        """The title line (its marker saying folded or open), then the body's lines when open."""
        if self.title.runs:
            self.title.runs[0] = self.marker()
        lines = self.title.layout(width)
        self.rows = [(0, self)]
        if self.open:
            for block in self.body:
                base = len(lines)
                lines.extend(block.layout(width))
                if isinstance(block, FoldBlock):
                    self.rows.extend((base + n, fold) for n, fold in block.rows)
        return lines
