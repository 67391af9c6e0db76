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

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import Iterator

from wikitui.core.vault.links import Link, extract_links, mask_text
from wikitui.core.vault.page import Heading, PageInfo, parse_page, split_frontmatter
from wikitui.ui.markdown_blocks import BlockBuilder
from wikitui.ui.markdown_parser import MAX_NESTING, markdown_parser
from wikitui.ui.markdown_links import MAX_LINE_CHARS, LinkMatcher, mark_link
from wikitui.ui.markdown_code import highlight
from wikitui.ui.markdown_layout import BlankBlock, Block, CodeBlock, Line, RuleBlock, Seg, TextBlock

__all__ = ["Line", "PageDocument", "render_page", "normalize_anchor"]

#: Source lines per chunk; a chunk parses in a few milliseconds.
CHUNK_LINES = 40
#: Characters per chunk, for pages of very long lines.
CHUNK_CHARS = 8_000
#: Paragraphs of prose longer than this are cut into chunks too (no ordinary page has one).
LONG_PARAGRAPH_CHARS = 16_000
#: Pages longer than this find their links chunk by chunk, as they are laid out.
LAZY_LINKS_CHARS = 400_000
#: Lines per chunk of a raw file shown as source.
SOURCE_CHUNK_LINES = 400

# C0/C1 control characters would corrupt the terminal; each becomes one replacement
# character so offsets and line numbers stay those of the file.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_LONE_CR = re.compile(r"\r(?!\n)")
_FENCE = re.compile(r"^ *(`{3,}|~{3,})")
_BULLET = re.compile(r"[-+*] \S")
_ORDERED = re.compile(r"\d{1,9}[.)](?:[ \t]|$)")
_QUOTE_MARKS = re.compile(r"(?:> ?)*")
#: What, after its quote markers, makes a line more than paragraph text: indentation,
#: a heading, list item, rule or setext underline, a fence, HTML, a table row or its
#: delimiter row, a link reference definition, a comment or a math block. Cutting
#: before such a line could change what it parses as; before any other line of a
#: paragraph, only an inline span running across the cut can come out differently.
_BLOCK_START = re.compile(
    r"[ \t>]|#{1,6}(?:[ \t]|$)|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|[-*_=](?:[ \t]*[-*_=])*[ \t]*$"
    r"|:?-+:?[ \t]*(?:\||$)|`{3}|~{3}|[<|]|\[[^\]]*\]:|%%|\$\$"
)
#: A line that is blank but for quote markers (a paragraph break inside a quote).
_QUOTE_BLANK = re.compile(r"(?:> ?)*[ \t]*$")
_ATX = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_ANCHOR_JUNK = re.compile(r"[^\w\s]")


def normalize_anchor(text: str) -> str:
    """Fold a heading or an anchor for comparison: case, punctuation, ``-``/``_`` and spaces."""
    text = text.replace("-", " ").replace("_", " ")
    return " ".join(_ANCHOR_JUNK.sub("", text).lower().split())


def clean_text(text: str) -> str:
    """The text as it is parsed: CRLF as LF, control characters replaced (same lines, same length per line)."""
    if "\r" in text:
        text = _LONE_CR.sub("\ufffd", text).replace("\r\n", "\n")
    return _CONTROL.sub("\ufffd", text) if _CONTROL.search(text) else text


def split_chunks(
    lines: list[str], first: int, size: int | None = None, max_chars: int | None = None
) -> Iterator[tuple[int, int, bool]]:
    """Cut ``lines[first:]`` into ``(start, end, joined)`` ranges that parse the same alone as together.

    A cut is made outside code fences, HTML comments and Obsidian ``%%`` comments, before
    a line at column 0 that follows a blank line (no CommonMark block continues there),
    or before a one-line bullet item that follows another one (long lists, such as an
    index, would otherwise make one huge chunk); never before a numbered item, whose
    number depends on the items before it. ``joined`` says the range continues the
    previous range's list, so no blank line is put between them.

    A paragraph of prose lines (same quote markers, none indented or starting a block)
    longer than :data:`LONG_PARAGRAPH_CHARS` is cut too, in ``joined`` ranges: parsed
    and wrapped in one go, a megabyte-long paragraph would freeze the view. A cut falls
    between two lines, where a line break is drawn anyway (a single newline is a break);
    only an emphasis or code span across a cut shows its markers. Ordinary pages have
    no such paragraphs.
    """
    size = size or CHUNK_LINES
    max_chars = max_chars or CHUNK_CHARS
    start = first
    chars = 0
    fence = ""
    html_comment = False
    obsidian_comment = False
    prev = ""
    joined = False
    para_start, para_chars = first, 0  # the current paragraph (lines since a blank one)
    prose: str | None = None  # its quote markers, once it is long, while it is all prose
    for i in range(first, len(lines)):
        line = lines[i]
        if fence:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
            chars += len(line)
            prev = line or " "  # a blank line inside a fence is no place to cut after
            continue
        if (
            (i - start >= size or chars >= max_chars)
            and not html_comment
            and not obsidian_comment
            and not _ORDERED.match(line)
        ):
            if not prev.strip() and line[:1] not in ("", " ", "\t"):
                yield start, i, joined
                start, chars, joined = i, 0, False
            elif _BULLET.match(line) and _BULLET.match(prev):
                yield start, i, joined
                start, chars, joined = i, 0, True
            elif (
                para_chars >= LONG_PARAGRAPH_CHARS
                and prose is not None
                and _prose_marks(line) == prose
                and not prev.endswith("\\")  # a hard line break, not a backslash at the end
                # and the next line (a setext underline or a table delimiter row makes one block)
                and (i + 1 == len(lines) or _prose_marks(lines[i + 1]) == prose)
            ):
                yield start, i, joined
                start, chars, joined = i, 0, True
        if not line.strip() or (line[0] == ">" and _QUOTE_BLANK.match(line)):
            para_start, para_chars, prose = i + 1, 0, None
        else:
            if para_chars < LONG_PARAGRAPH_CHARS <= para_chars + len(line):
                prose = _common_prose_marks(lines, para_start, i + 1)
            elif prose is not None and _prose_marks(line) != prose:
                prose = None
            para_chars += len(line)
        chars += len(line)
        prev = line
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            if fence[0] == "`" and "`" in line[m.end() :]:
                fence = ""  # an inline code span, not a fence
            continue
        if html_comment:
            html_comment = "-->" not in line or "<!--" in line[line.rfind("-->") :]
        elif "<!--" in line:
            html_comment = "-->" not in line[line.rfind("<!--") :]
        if "%%" in line and line.count("%%") % 2:
            obsidian_comment = not obsidian_comment
    yield start, len(lines), joined


def _prose_marks(line: str) -> str | None:
    """The quote markers (without spaces) before a line of prose, or None when it is no prose line."""
    marks = _QUOTE_MARKS.match(line).end()
    if marks == len(line) or _BLOCK_START.match(line, marks):
        return None
    return line[:marks].replace(" ", "")


def _common_prose_marks(lines: list[str], start: int, end: int) -> str | None:
    """The quote markers of ``lines[start:end]`` when all are prose lines with the same ones, else None.

    Only a paragraph that grows long is checked, so ordinary pages pay nothing for it.
    """
    marks = {_prose_marks(lines[k]) for k in range(start, end)}
    return marks.pop() if len(marks) == 1 else None


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
        headings: The page's ATX headings with their file lines (for anchors).

    Args:
        text: The file's text.
        path: Vault-relative path (for the parser and to decide whether a raw file has links).
        info: The page's parsed metadata for the header (parsed from ``text`` when None).
        source_lexer: Show ``text`` as highlighted source with this pygments lexer name
            (raw files) instead of rendering markdown.
        valid_utf8: Whether the file decoded cleanly; None guesses from replacement characters.
    """

    def __init__(
        self,
        text: str,
        *,
        path: str | None = None,
        info: PageInfo | None = None,
        source_lexer: str | None = None,
        valid_utf8: bool | None = None,
    ) -> None:
        self.source = text
        self.path = path
        self._masked: str | None = None
        self._offset_cursor = (0, 0)  # (line, offset) of the last line start looked up
        self.source_lexer = source_lexer
        self._render_lines = clean_text(text).split("\n")
        long_lines = [i for i, line in enumerate(self._render_lines) if len(line) > MAX_LINE_CHARS]
        for i in long_lines:
            self._render_lines[i] = self._render_lines[i][:MAX_LINE_CHARS] + " …"
        #: 1-based line -> offset in the source of the cut (links past it are not shown).
        self._cuts: dict[int, int] = {}
        if long_lines:
            starts = list(accumulate((len(line) + 1 for line in text.split("\n")), initial=0))
            self._cuts = {i + 1: starts[i] + MAX_LINE_CHARS for i in long_lines}
        self._env: dict = {}
        self.header: list[Block] = []
        self.headings: list[Heading] = []
        if source_lexer is not None:
            is_md = (path or "").lower().endswith((".md", ".markdown"))
            self.links: list[Link] = extract_links(text) if is_md and len(text) <= LAZY_LINKS_CHARS else []
            if is_md and len(text) > LAZY_LINKS_CHARS:
                self._masked = mask_text(text)  # a huge raw page: links found chunk by chunk
            self.info = info
            step = SOURCE_CHUNK_LINES
            n = len(self._render_lines)
            self._chunks: Iterator[_Chunk] = (_Chunk(a, min(n, a + step)) for a in range(0, max(n, 1), step))
        else:
            if len(text) > LAZY_LINKS_CHARS:
                # A huge page: parse only the frontmatter now; links are found chunk by
                # chunk in the masked text, which gives exactly the whole-text result.
                fm, _body, body_line = split_frontmatter(text)
                fm_lines = body_line - 1 if fm is not None else 0
                own = parse_page(path or "page.md", text[: self._offset_of(fm_lines)])
                self._masked = mask_text(text, fm_lines)
                self.links = []
                self.headings = _atx_headings(self._masked, text)
            else:
                own = parse_page(path or "page.md", text)
                self.links = own.links
                self.headings = own.headings
            self.info = info or own
            first = own.body_line - 1 if own.has_frontmatter else 0
            self._chunks = (_Chunk(a, b, j) for a, b, j in split_chunks(self._render_lines, first))
        if long_lines:
            self.header.append(
                _notice(f"⚠ {len(long_lines):,} line(s) longer than {MAX_LINE_CHARS:,} characters are shown cut short")
            )
        if valid_utf8 is False or (valid_utf8 is None and "\ufffd" in text):
            self.header.append(_notice("⚠ Not valid UTF-8: undecodable bytes are shown as �"))
        if source_lexer is None:
            self.header.extend(self._make_header(own))
        self._link_lines = [link.line for link in self.links]
        self._parsed: list[_Chunk] = []  # chunks cut so far (cutting is lazy too)
        self._chunks_done = False
        self.width = 0
        self.lines: list[Line] = []
        self.line_sources: list[int] = []
        self.link_first: list[int] = []
        self.link_last: list[int] = []
        self.heading_lines: list[tuple[int, str, int]] = []
        self._next = 0
        self._ends_blank = False

    @property
    def huge(self) -> bool:
        """Whether the page is so long that it is laid out only as far as it is read."""
        return self._masked is not None

    @classmethod
    def message(cls, title: str, body: str) -> PageDocument:
        """A document that only shows a title and a short explanation (empty or error states)."""
        doc = cls("", source_lexer="text")
        doc._chunks = iter(())
        runs: list[Seg] = [(title, "message-title", None)]
        doc.header = [BlankBlock(0), TextBlock(0, [("  ", "")], [("  ", "")], runs=runs)]
        if body:
            doc.header += [BlankBlock(0), TextBlock(0, [("  ", "")], [("  ", "")], runs=[(body, "meta", None)])]
        return doc

    # ------------------------------------------------------------------ header
    def _make_header(self, own: PageInfo) -> list[Block]:
        info = self.info or own
        blocks: list[Block] = []
        if own.frontmatter_error:
            blocks.append(_notice(f"⚠ The frontmatter does not parse ({own.frontmatter_error}); it is shown as text:"))
            fm, _body, _line = split_frontmatter(clean_text(self.source))
            blocks.append(CodeBlock(2, rows=highlight(fm or "", "yaml")))
        elif not own.has_frontmatter and re.match(r"---[ \t]*\r?\n", self.source):
            blocks.append(_notice("⚠ The frontmatter is not closed (no second --- line); the page is shown as text"))
        title = info.title if own.has_frontmatter else ""
        first_h1 = own.headings[0].text if own.headings and own.headings[0].level == 1 else ""
        if title and normalize_anchor(title) != normalize_anchor(first_h1):
            blocks.append(TextBlock(0, runs=[(title, "title", None)]))
        meta: list[Seg] = []
        if info.type:
            meta.append((info.type, "meta-type", None))
        for tag in info.tags:
            meta.extend([("  " if meta else "", "meta", None), (f"#{tag}", "meta-tag", None)])
        if info.aliases:
            meta.append(("  " if meta else "", "meta", None))
            meta.append(("aka " + ", ".join(info.aliases), "meta", None))
        if meta:
            blocks.append(TextBlock(0, runs=[m for m in meta if m[0]]))
        if info.summary:
            blocks.append(TextBlock(0, runs=[(info.summary, "meta summary", None)]))
        if blocks and (own.has_frontmatter or own.frontmatter_error):
            blocks.append(RuleBlock(0, roles="header-rule"))
        return blocks

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

    def set_width(self, width: int) -> None:
        """Start laying out for ``width`` cells (keeps parsed blocks); lays out the header."""
        if width == self.width and (self.lines or not self.header):
            return
        self.width = width
        self.lines, self.line_sources, self.heading_lines = [], [], []
        self.link_first = [-1] * len(self.links)
        self.link_last = [-1] * len(self.links)
        self._next = 0
        for block in self.header:
            self._append(block)

    def _append(self, block: Block) -> None:
        lines = block.layout(self.width)
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
        cuts = self._cuts
        hidden = frozenset(k for k in range(lo, hi) if cuts and self.links[k].start >= cuts.get(self.links[k].line, 1 << 62))
        matcher = LinkMatcher(self.links, lo, hi, hidden)
        if self.source_lexer is not None:
            src = "\n".join(self._render_lines[chunk.start : chunk.end])
            block = CodeBlock(chunk.start + 1, rows=highlight(src + "\n", self.source_lexer), gutter=True)
            block.first_number = chunk.start + 1
            for index in range(lo, hi):
                link = self.links[index]
                row = link.line - 1 - chunk.start
                if 0 <= row < len(block.rows):
                    mark_link(block.rows[row], self.source[link.start : link.end], index)
            return [block]
        src = "\n".join(self._render_lines[chunk.start : chunk.end])
        tokens = markdown_parser().parse(src, self._env)
        builder = BlockBuilder(self.source, self.links, matcher, chunk.start)
        if any(t.level >= MAX_NESTING - 1 for t in tokens):
            # markdown-it stopped at its nesting limit and dropped the rest: show the lines as text.
            builder.blocks = [
                _notice(f"⚠ Nested more than {MAX_NESTING} levels deep: shown as text"),
                BlankBlock(chunk.start + 1),
                TextBlock(chunk.start + 1, runs=[(src, "", None)]),
            ]
            return builder.finish(chunk.start + 1)
        builder.build(tokens)
        return builder.finish(chunk.start + 1)

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
            pattern = re.compile(r"\s\^" + re.escape(anchor[1:]) + r"[ \t]*$", re.MULTILINE | re.IGNORECASE)
            m = pattern.search(self.source)
            return None if m is None else self.line_for_source(self.source.count("\n", 0, m.start()) + 1)
        wanted = normalize_anchor(anchor.split("#")[-1])
        for heading in self.headings:
            if normalize_anchor(heading.text) == wanted:
                return self.line_for_source(heading.line)
        self.ensure_all()  # setext headings are only known to the full parse
        for _level, text, line in self.heading_lines:
            if normalize_anchor(text) == wanted:
                return line
        return None


def _atx_headings(masked: str, text: str) -> list[Heading]:
    """ATX headings of a page (as the core's parser finds them) from its masked text."""
    headings = []
    line, pos = 1, 0
    for m in _ATX.finditer(masked):
        line += masked.count("\n", pos, m.start())
        pos = m.start()
        headings.append(Heading(len(m.group(1)), text[m.start(2) : m.end(2)].strip(), line))
    return headings


def _notice(text: str) -> TextBlock:
    return TextBlock(0, runs=[(text, "warning", None)])


def render_page(text: str, width: int, **kwargs) -> PageDocument:
    """Parse and lay out a whole page at ``width`` (tests, benchmarks, exports)."""
    doc = PageDocument(text, **kwargs)
    doc.set_width(width)
    doc.ensure_all()
    return doc
