"""A markdown table laid out for the page pane: a box-drawn grid, or row by row when too narrow.

Cells wrap within their column and are never cut: a reader must be able to read
every word of a page at any width. A table whose columns cannot all get a few cells
in the pane (many columns, a narrow pane) is shown row by row instead, each row a
wrapped line of its cells separated by ``│``, so it still loses nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich.cells import get_character_cell_size

from wikitui.ui.markdown.blocks import Block
from wikitui.ui.markdown.line import Line, Seg, add_roles, text_width
from wikitui.ui.markdown.wrap import wrap_runs

#: Cells a column gets at least (or its natural width, when smaller) before the table goes row by row.
MIN_COLUMN_CELLS = 4
#: The pieces a cell's line may break between: words, and the parts of a word after its hyphens.
_CELL_WORD = re.compile(r"[^\s-]*-+|[^\s-]+")


def _longest_word(cell: list[Seg]) -> int:
    """Cells taken by the longest piece of a cell no line break may fall inside (see :data:`_CELL_WORD`)."""
    text = "".join(t for t, _, _ in cell)
    return max((text_width(w) for w in _CELL_WORD.findall(text)), default=1)


def _widest_char(cell: list[Seg]) -> int:
    """Cells taken by the widest character of a cell (2 for CJK), 1 for an empty cell."""
    text = "".join(t for t, _, _ in cell)
    if text.isascii():
        return 1
    return max((get_character_cell_size(ch) for ch in text), default=1)


@dataclass(slots=True)
class TableBlock(Block):
    """A table drawn with box characters; cells wrap within their column.

    Attributes:
        rows: Rows of cells, each cell a list of pieces.
        aligns: ``"left"``, ``"right"`` or ``"center"`` per column.
        header_rows: How many leading rows are the header.
        row_lines: 1-based source line of each row.
    """

    rows: list[list[list[Seg]]] = field(default_factory=list)
    aligns: list[str] = field(default_factory=list)
    header_rows: int = 1
    row_lines: list[int] = field(default_factory=list)

    def column_widths(self, width: int) -> list[int] | None:
        """Natural column widths, capped ("water-filled") so the table fits ``width``.

        None when the columns cannot fit with :data:`MIN_COLUMN_CELLS` each (the table
        is then laid out row by row).
        """
        ncols = max((len(r) for r in self.rows), default=0)
        natural = [1] * ncols
        least = [1] * ncols  # a column is never narrower than its widest character
        words = [1] * ncols  # nor, when every column's longest word fits, than that word
        for row in self.rows:
            for c, cell in enumerate(row):
                natural[c] = max(natural[c], sum(text_width(t) for t, _, _ in cell))
                least[c] = max(least[c], _widest_char(cell))
                words[c] = max(words[c], _longest_word(cell))
        avail = width - (3 * ncols + 1)
        if sum(natural) <= avail:
            return natural
        if avail < sum(max(least[c], min(natural[c], MIN_COLUMN_CELLS)) for c in range(ncols)):
            return None
        whole = [max(least[c], min(words[c], natural[c])) for c in range(ncols)]
        if sum(whole) <= avail:  # lines break at spaces and hyphens only, never inside a word
            least = whole
        # Find the largest cap t with sum(max(least, min(n, t))) <= avail: narrow columns keep their width.
        lo, hi = 1, max(natural)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if sum(max(least[c], min(natural[c], mid)) for c in range(ncols)) <= avail:
                lo = mid
            else:
                hi = mid - 1
        widths = [max(least[c], min(natural[c], lo)) for c in range(ncols)]
        spare = avail - sum(widths)
        for c in sorted(range(ncols), key=lambda c: -natural[c]):
            if spare <= 0:
                break
            if widths[c] < natural[c]:
                widths[c] += 1
                spare -= 1
        return widths

    def layout(self, width: int) -> list[Line]:
        """Borders, the header row(s) in bold, a separator and the body rows.

        Cells wrap within their column; when a body row takes several lines, rows are
        separated by rules. Too narrow for a grid, the table is laid out row by row.
        """
        column = self.text_column(width)
        widths = self.column_widths(column)
        if widths is None:
            return self._row_by_row(column, width)
        if not widths:
            return []
        b = "table-border"

        def border(left: str, mid: str, right: str) -> list[Seg]:
            return [(left + mid.join("─" * (w + 2) for w in widths) + right, b, None)]

        grid: list[list[list[list[Seg]]]] = []  # row -> cell -> wrapped lines
        for r, row in enumerate(self.rows):
            cells = []
            for c, w in enumerate(widths):
                cell = row[c] if c < len(row) else []
                if r < self.header_rows:
                    cell = add_roles(cell, "table-header")
                cells.append([line for line in wrap_runs(cell, w, hyphens=True) if line] or [[]])
            grid.append(cells)
        tall = any(len(cell) > 1 for cells in grid[self.header_rows :] for cell in cells)
        rows: list[list[Seg]] = [border("┌", "┬", "┐")]
        sources = [self.source_line]
        for r, cells in enumerate(grid):
            src = self._row_line(r)
            if r > self.header_rows and tall:
                rows.append(border("├", "┼", "┤"))
                sources.append(src)
            for k in range(max(len(cell) for cell in cells)):
                segs: list[Seg] = [("│", b, None)]
                for c, w in enumerate(widths):
                    piece = cells[c][k] if k < len(cells[c]) else []
                    pad = w - sum(text_width(t) for t, _, _ in piece)
                    align = self.aligns[c] if c < len(self.aligns) else "left"
                    left = pad if align == "right" else pad // 2 if align == "center" else 0
                    segs.append((" " * (left + 1), "", None))
                    segs.extend(piece)
                    segs.append((" " * (pad - left + 1), "", None))
                    segs.append(("│", b, None))
                rows.append(segs)
                sources.append(src)
            if r == self.header_rows - 1 and len(grid) > self.header_rows:
                rows.append(border("├", "┼", "┤"))
                sources.append(src)
        rows.append(border("└", "┴", "┘"))
        sources.append(sources[-1])
        return self._emit(rows, width, sources)

    def _row_line(self, r: int) -> int:
        return self.row_lines[r] if r < len(self.row_lines) else self.source_line

    def _row_by_row(self, column: int, width: int) -> list[Line]:
        """Each row as one wrapped line of its cells joined by ``│``, rows separated by rules."""
        rows: list[list[Seg]] = []
        sources: list[int] = []
        for r, row in enumerate(self.rows):
            runs: list[Seg] = []
            for c, cell in enumerate(row):
                if c:
                    runs.append((" │ ", "table-border", None))
                runs.extend(add_roles(cell, "table-header") if r < self.header_rows else cell)
            if r:
                rows.append([("─" * column, "table-border", None)])
                sources.append(self._row_line(r))
            wrapped = [line for line in wrap_runs(runs, column) if line] or [[]]
            rows.extend(wrapped)
            sources.extend([self._row_line(r)] * len(wrapped))
        return self._emit(rows, width, sources)
