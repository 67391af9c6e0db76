"""One rendered terminal line: styled segments, and where its links lie.

A segment is a tuple ``(text, roles, link)``: ``roles`` is a space-separated string of
role names ("heading-1", "strong", "code-keyword"), never colours (the widget that paints
turns roles into theme colours), and ``link`` the index of the link in the page's link
list (the tab stops) or None.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len

#: ``(text, roles, link index or None)``.
Seg = tuple[str, str, "int | None"]
#: A container prefix piece: ``(text, roles)``.
Prefix = list[tuple[str, str]]


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
