"""A block or section of another page drawn under its embed line: ``![[Page#^id]]``, ``![[Page#Heading]]``.

The part to show is found by the core (:func:`~wikitui.core.vault.sections.embedded_part`)
in a worker; an :class:`EmbeddedNote` lays it out as the page is laid out, behind a bar,
under the embed's own line (``⧉ Page > ^id``, the tab stop that opens the page), the way
embedded pictures are drawn (:func:`~wikitui.ui.markdown.pictures.with_pictures`). Its
links are shown as links but are not the page's tab stops (they belong to the other page).
An embedded part may embed another, up to :data:`MAX_EMBED_DEPTH` levels; a part that
embeds itself (directly or through others) stops there.
"""

from __future__ import annotations

from wikitui.core.vault.sections import EmbeddedPart
from wikitui.ui.markdown.line import Line, Seg

#: How deep embedded parts embed others (deeper embeds keep just their line).
MAX_EMBED_DEPTH = 4
#: The bar in front of an embedded part's lines.
EMBED_BAR: Seg = ("┃ ", "quote-bar", None)


class EmbeddedNote:
    """The part of a page an embed shows, as the page pane draws it under the embed's line.

    Args:
        part: What the core found: its markdown, its page, the parts it embeds in turn.
    """

    def __init__(self, part: EmbeddedPart) -> None:
        self.part = part
        self.inner = {index: EmbeddedNote(p) for index, p in part.inner.items()}
        self._laid_out: dict[int, list[list[Seg]]] = {}

    def lines(self, width: int, source_line: int) -> list[Line]:
        """Its lines for a page ``width`` cells wide, behind the bar (laid out once per width)."""
        rows = self._laid_out.get(width)
        if rows is None:
            from wikitui.ui.markdown.document import PageDocument

            doc = PageDocument(self.part.text, path=self.part.path)
            doc.header = []  # a part of a page: no title block or frontmatter header
            if self.inner:
                doc.add_pictures(dict(self.inner))
            doc.set_width(max(1, width - 2))
            doc.ensure_all()
            rows = self._laid_out[width] = [_unlinked(line.segments) for line in doc.lines]
        return [Line([EMBED_BAR, *row], source_line) for row in rows]


def _unlinked(segments: list[Seg]) -> list[Seg]:
    """Segments with their link indices dropped: links of another page look like links but are no tab stops here."""
    out: list[Seg] = []
    for text, roles, link in segments:
        if link is not None:
            roles = f"{roles} link-plain".strip()
        out.append((text, roles, None))
    return out
