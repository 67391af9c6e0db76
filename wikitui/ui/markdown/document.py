"""A page as styled terminal lines with link spans: the page pane's rendering model.

:class:`PageDocument` holds one page: its links (the tab stops, the same list the
core's parser gives the Outgoing panel), a compact header made from the frontmatter,
and the body cut into *chunks* at blank lines. Chunks are parsed by markdown-it and
laid out only when needed, so a page of any size shows its first screen at once and
the rest is laid out by :meth:`PageDocument.step` (the widget calls it between key
presses). A width change re-wraps the parsed blocks without parsing again.

Nothing here touches Textual: lines carry role names, the widget paints them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import Iterator

from wikitui.core.vault.links import Link, extract_links, mask_text
from wikitui.core.vault.page import Heading, PageInfo, parse_page, split_frontmatter
from wikitui.core.base.words import plural
from wikitui.ui.markdown.anchors import atx_headings, block_id_line, normalize_anchor
from wikitui.ui.markdown.blocks import BlankBlock, Block, FoldBlock, TextBlock
from wikitui.ui.markdown.chunk_blocks import markdown_blocks, source_blocks
from wikitui.ui.markdown.chunks import MAX_LINE_CHARS, render_lines, split_chunks
from wikitui.ui.markdown.header import message_blocks, notice, page_header
from wikitui.ui.markdown.line import Line
from wikitui.ui.markdown.links import LinkMatcher
from wikitui.ui.markdown.pictures import with_pictures
from wikitui.ui.markdown.table import TableBlock

__all__ = ["PageDocument", "render_page"]

#: Pages longer than this find their links chunk by chunk, as they are laid out.
LAZY_LINKS_CHARS = 400_000
#: Lines per chunk of a raw file shown as source.
SOURCE_CHUNK_LINES = 400
#: Characters per chunk of a raw file shown as source, at most (one over-long line is a chunk of its own).
SOURCE_CHUNK_CHARS = 6_000
#: The same for a highlighted source (a PDF or web page converted to markdown): pygments'
#: markdown lexer costs ~15 times plain text per character, and a chunk is laid out in one go.
HIGHLIGHTED_CHUNK_CHARS = 1_500


@dataclass(slots=True)
class _Chunk:
    start: int  # 0-based file line
    end: int  # exclusive
    joined: bool = False  # continues the previous chunk's list: no blank line between them
    blocks: list[Block] | None = None


class PageDocument:
    """One page, parsed by chunks and laid out for one width at a time.

    Attributes:
        links: The tab stops: the core's links of the page in reading order (for a huge
            page, found chunk by chunk as it is laid out; indices never change).
        lines: The rendered lines laid out so far.
        line_sources: For each rendered line, the file line of its block (non-decreasing).
        link_first: For each link, its first rendered line (-1 until laid out).
        link_last: For each link, its last rendered line (a label may wrap).
        heading_lines: ``(level, text, rendered line)`` of the headings laid out so far.
        fold_lines: ``(rendered line, fold)`` of the foldable callouts' titles laid out so far, in order.
        headings: The page's ATX headings with their file lines (for anchors).

    Args:
        text: The file's text.
        path: Vault-relative path (for the parser and to decide whether a raw file has links).
        info: The page's parsed metadata for the header (parsed from ``text`` when None).
        source_lexer: Show ``text`` as highlighted source with this pygments lexer name
            (raw files) instead of rendering markdown.
        valid_utf8: Whether the file decoded cleanly; None guesses from replacement characters.
        folds_open: Show foldable callouts open, ``[!faq]-`` too (a chat answer, which has no fold cursor).
    """

    def __init__(
        self,
        text: str,
        *,
        path: str | None = None,
        info: PageInfo | None = None,
        source_lexer: str | None = None,
        valid_utf8: bool | None = None,
        folds_open: bool = False,
    ) -> None:
        self.source = text
        self.folds_open = folds_open
        self.path = path
        self._masked: str | None = None
        self._offset_cursor = (0, 0)  # (line, offset) of the last line start looked up
        self.source_lexer = source_lexer
        self._render_lines, long_lines = render_lines(text)
        #: 1-based line -> offset in the source of the cut (links past it are not shown).
        self._cuts: dict[int, int] = {}
        if long_lines:
            starts = list(accumulate((len(line) + 1 for line in text.split("\n")), initial=0))
            self._cuts = {i + 1: starts[i] + MAX_LINE_CHARS for i in long_lines}
        self._env: dict = {}
        self.header: list[Block] = []
        self.headings: list[Heading] = []
        self.links: list[Link] = []
        self.info = info
        own: PageInfo | None = None
        if source_lexer is not None:
            self._open_source()
        else:
            own = self._open_page(info)
        if long_lines:
            self.header.append(
                notice(f"⚠ {plural(len(long_lines), 'line')} longer than {MAX_LINE_CHARS:,} characters "
                       f"{'is' if len(long_lines) == 1 else 'are'} shown cut short")
            )
        if valid_utf8 is False or (valid_utf8 is None and "\ufffd" in text):
            self.header.append(notice("⚠ Not valid UTF-8: undecodable bytes are shown as �"))
        if own is not None:
            self.header.extend(page_header(self.source, self.info or own, own))
        self._link_lines = [link.line for link in self.links]
        self._parsed: list[_Chunk] = []  # chunks cut so far (cutting is lazy too)
        self._chunks_done = False
        self.width = 0
        self.lines: list[Line] = []
        self.line_sources: list[int] = []
        self.link_first: list[int] = []
        self.link_last: list[int] = []
        self.heading_lines: list[tuple[int, str, int]] = []
        self.fold_lines: list[tuple[int, FoldBlock]] = []
        #: Embedded pictures (and parts of pages, :mod:`embedded_notes`) by link index, drawn under their embed line.
        self.pictures: dict[int, object] = {}
        self._next = 0
        self._ends_blank = False

    def _open_source(self) -> None:
        """A raw file shown as source: its links are tab stops when it is a markdown file."""
        text = self.source
        is_md = (self.path or "").lower().endswith((".md", ".markdown"))
        if is_md and len(text) > LAZY_LINKS_CHARS:
            self._masked = mask_text(text)  # a huge raw page: links found chunk by chunk
        elif is_md:
            self.links = extract_links(text)
        chars = SOURCE_CHUNK_CHARS if self.source_lexer == "text" else HIGHLIGHTED_CHUNK_CHARS
        self._chunks: Iterator[_Chunk] = _source_chunks(self._render_lines, chars)

    def _open_page(self, info: PageInfo | None) -> PageInfo:
        """A page rendered as markdown: its links, headings and metadata; returns its own parse."""
        text = self.source
        if len(text) > LAZY_LINKS_CHARS:
            # A huge page: parse only the frontmatter now; links are found chunk by
            # chunk in the masked text, which gives exactly the whole-text result.
            fm, _body, body_line = split_frontmatter(text)
            fm_lines = body_line - 1 if fm is not None else 0
            own = parse_page(self.path or "page.md", text[: self._offset_of(fm_lines)])
            self._masked = mask_text(text, fm_lines)
            self.headings = atx_headings(self._masked, text)
        else:
            own = parse_page(self.path or "page.md", text)
            self.links = own.links
            self.headings = own.headings
        self.info = info or own
        first = own.body_line - 1 if own.has_frontmatter else 0
        self._chunks = (_Chunk(a, b, j) for a, b, j in split_chunks(self._render_lines, first))
        return own

    @property
    def huge(self) -> bool:
        """Whether the page is so long that it is laid out only as far as it is read."""
        return self._masked is not None

    @classmethod
    def message(cls, title: str, body: str) -> PageDocument:
        """A document that only shows a title and a short explanation (empty or error states)."""
        doc = cls("", source_lexer="text")
        doc._chunks = iter(())
        doc.header = message_blocks(title, body)
        return doc

    # ------------------------------------------------------------------ layout
    @property
    def complete(self) -> bool:
        """Whether every chunk is laid out at the current width."""
        if self._next < len(self._parsed):
            return False
        if self._chunks_done:
            return True
        chunk = next(self._chunks, None)
        if chunk is None:
            self._chunks_done = True
            return True
        self._parsed.append(chunk)
        return False

    def add_pictures(self, pictures: dict[int, object]) -> None:
        """Draw these embedded pictures (link index → small picture) from the next layout on."""
        self.pictures.update(pictures)
        self.width = 0  # laid out again, with them

    def toggle_fold(self, fold: FoldBlock) -> None:
        """Open a folded callout or fold an open one; the page is laid out again from the next :meth:`set_width`."""
        fold.open = not fold.open
        self.width = 0

    def reveal_link(self, index: int) -> bool:
        """Open the folded callouts that hide link ``index``; whether any was (lay the page out again then)."""
        opened = False
        for chunk in self._parsed:
            for block in chunk.blocks or ():
                if isinstance(block, FoldBlock) and _open_to(block, index):
                    opened = True
        if opened:
            self.width = 0
        return opened

    def select_fold(self, fold: FoldBlock | None) -> list[int]:
        """Put the page's cursor on ``fold`` (None: on no fold); the rendered lines whose look changed."""
        changed = []
        for line, each in self.fold_lines:
            if each.selected != (each is fold):
                each.selected = each is fold
                segments = self.lines[line].segments
                at = next((i for i, seg in enumerate(segments) if "fold" in seg[1].split()), None)
                if at is not None:
                    segments[at] = each.marker()
                    changed.append(line)
        return changed

    def set_width(self, width: int) -> None:
        """Start laying out for ``width`` cells (keeps parsed blocks); lays out the header."""
        if width == self.width and (self.lines or not self.header):
            return
        self.width = width
        self.lines, self.line_sources, self.heading_lines, self.fold_lines = [], [], [], []
        self.link_first = [-1] * len(self.links)
        self.link_last = [-1] * len(self.links)
        self._next = 0
        for block in self.header:
            self._append(block)

    def _append(self, block: Block) -> None:
        lines = block.layout(self.width)
        if not isinstance(block, TableBlock):  # a table's embeds stay inside their cells, as ``⧉ label``
            lines = with_pictures(lines, self.pictures, self.width)
        base = len(self.lines)
        floor = self.line_sources[-1] if self.line_sources else 0
        first, last = self.link_first, self.link_last
        for n, line in enumerate(lines, base):
            for _text, _roles, link in line.segments:
                if link is not None:
                    if first[link] < 0:
                        first[link] = n
                    last[link] = n
            floor = max(floor, line.source_line)
            self.line_sources.append(floor)
        if isinstance(block, TextBlock) and block.heading:
            self.heading_lines.append((block.heading, block.plain, base))
        elif isinstance(block, FoldBlock):
            self.fold_lines.extend((base + n, fold) for n, fold in block.rows)
        self.lines.extend(lines)
        self._ends_blank = isinstance(block, BlankBlock)

    def _offset_of(self, line: int) -> int:
        """Offset in the source of the start of 0-based ``line`` (chunks ask in increasing order)."""
        cur_line, offset = self._offset_cursor if self._offset_cursor[0] <= line else (0, 0)
        text = self.source
        while cur_line < line:
            nl = text.find("\n", offset)
            if nl < 0:
                offset = len(text)
                break
            offset, cur_line = nl + 1, cur_line + 1
        self._offset_cursor = (cur_line, offset)
        return offset

    def _extract_chunk_links(self, chunk: _Chunk) -> None:
        """Find a chunk's links in the masked text (huge pages) and append them to :attr:`links`."""
        assert self._masked is not None
        a, b = self._offset_of(chunk.start), self._offset_of(chunk.end)
        found = extract_links(self.source[a:b], self._masked[a:b])
        for link in found:
            link.start += a
            link.end += a
            link.line += chunk.start
        self.links.extend(found)
        self._link_lines.extend(link.line for link in found)
        self.link_first.extend([-1] * len(found))
        self.link_last.extend([-1] * len(found))

    def _parse(self, chunk: _Chunk) -> list[Block]:
        if self._masked is not None:
            self._extract_chunk_links(chunk)
        lo = bisect_left(self._link_lines, chunk.start + 1)
        hi = bisect_left(self._link_lines, chunk.end + 1)
        src = "\n".join(self._render_lines[chunk.start : chunk.end])
        if self.source_lexer is not None:
            digits = len(str(len(self._render_lines)))  # every chunk numbered as wide as the file's last line
            return source_blocks(src, self.source, self.links, range(lo, hi), chunk.start, self.source_lexer, digits)
        cuts, links = self._cuts, self.links
        # Links past the cut of an over-long line are not shown.
        hidden = frozenset(k for k in range(lo, hi) if cuts and links[k].start >= cuts.get(links[k].line, 1 << 62))
        matcher = LinkMatcher(self.links, lo, hi, hidden)
        blocks = markdown_blocks(src, self.source, self.links, matcher, chunk.start, self._env)
        if self.folds_open:
            _open_folds(blocks)
        return blocks

    def step(self) -> bool:
        """Lay out the next chunk (parsing it first if needed); False once complete."""
        if self.complete or not self.width:
            return False
        chunk = self._parsed[self._next]
        self._next += 1
        if chunk.blocks is None:
            chunk.blocks = self._parse(chunk)
        if chunk.blocks and self.lines and not self._ends_blank and self.source_lexer is None and not chunk.joined:
            self._append(BlankBlock(0))  # the blank line the chunk was cut at
        for block in chunk.blocks:
            self._append(block)
        return not self.complete

    def ensure_lines(self, count: int) -> None:
        """Lay out until at least ``count`` lines exist (or the page ends)."""
        while len(self.lines) < count and self.step():
            pass

    def ensure_all(self) -> None:
        """Lay out the whole page."""
        while self.step():
            pass

    def ensure_link(self, index: int) -> bool:
        """Lay out until link ``index`` has a line; whether it has one."""
        while self.link_first[index] < 0 and self.step():
            pass
        return self.link_first[index] >= 0

    def first_link_from(self, top: int) -> int | None:
        """The first link that starts on rendered line ``top`` or below (laying out as far as needed)."""
        for index in range(len(self.links)):
            if self.ensure_link(index) and self.link_first[index] >= top:
                return index
        return None

    def last_link_before(self, bottom: int) -> int | None:
        """The last link that starts above rendered line ``bottom`` (laying out up to it)."""
        self.ensure_lines(bottom)
        found = None
        for index, first in enumerate(self.link_first):
            if 0 <= first < bottom:
                found = index
            elif first >= bottom:
                break
        return found

    def line_for_source(self, source_line: int) -> int | None:
        """Index of the first rendered line of the block holding file line ``source_line``."""
        n_source = len(self._render_lines)
        if not 1 <= source_line <= max(1, n_source):
            return None
        while not self.complete and (not self.line_sources or self.line_sources[-1] < source_line):
            self.step()
        if not self.lines:
            return None
        i = bisect_right(self.line_sources, source_line) - 1
        if i < 0:
            return 0
        return bisect_left(self.line_sources, self.line_sources[i])

    def find_anchor(self, anchor: str) -> int | None:
        """Rendered line of a heading (``Heading``, ``a#b`` for a sub-heading) or a ``^block`` id."""
        anchor = anchor.strip().lstrip("#")
        if anchor.startswith("^"):
            line = block_id_line(self.source, anchor[1:])
            return None if line is None else self.line_for_source(line)
        wanted = normalize_anchor(anchor.split("#")[-1])
        for heading in self.headings:
            if normalize_anchor(heading.text) == wanted:
                return self.line_for_source(heading.line)
        self.ensure_all()  # setext headings are only known to the full parse
        for _level, text, line in self.heading_lines:
            if normalize_anchor(text) == wanted:
                return line
        return None


def _holds_link(block: Block, index: int) -> bool:
    """Whether link ``index`` is drawn by ``block`` (its text, a table's cells, a fold's title or body)."""
    if isinstance(block, FoldBlock):
        return _holds_link(block.title, index) or any(_holds_link(b, index) for b in block.body)
    if isinstance(block, TextBlock):
        return any(link == index for _t, _r, link in block.runs)
    if isinstance(block, TableBlock):
        return any(link == index for row in block.rows for cell in row for _t, _r, link in cell)
    return False


def _open_to(fold: FoldBlock, index: int) -> bool:
    """Open ``fold`` and the folds inside it down to link ``index`` when the link is in its body; whether it is."""
    if not any(_holds_link(b, index) for b in fold.body):
        return False
    fold.open = True
    for block in fold.body:
        if isinstance(block, FoldBlock):
            _open_to(block, index)
    return True


def _open_folds(blocks: list[Block]) -> None:
    """Open every foldable callout among ``blocks`` (and inside them)."""
    for block in blocks:
        if isinstance(block, FoldBlock):
            block.open = True
            _open_folds(block.body)


def _source_chunks(lines: list[str], max_chars: int = SOURCE_CHUNK_CHARS) -> Iterator[_Chunk]:
    """Chunks of a file shown as source: :data:`SOURCE_CHUNK_LINES` lines, fewer when they are long.

    A chunk is laid out in one go between key presses, so its cost is bounded by its
    characters too, at most ``max_chars`` (a converted PDF or web page has paragraph-long lines).
    """
    n = len(lines)
    start = 0
    while start < max(n, 1):
        end, chars = start, 0
        while end < n and end - start < SOURCE_CHUNK_LINES and (chars < max_chars or end == start):
            chars += len(lines[end])
            end += 1
        yield _Chunk(start, max(end, start + 1) if n else 0)
        start = max(end, start + 1)


def render_page(text: str, width: int, **kwargs) -> PageDocument:
    """Parse and lay out a whole page at ``width`` (tests, benchmarks, exports)."""
    doc = PageDocument(text, **kwargs)
    doc.set_width(width)
    doc.ensure_all()
    return doc
