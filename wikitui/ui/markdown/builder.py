"""Markdown parsed by markdown-it-py into width-independent blocks.

The walk over markdown-it's tokens keeps a stack of open containers (list items, block
quotes) whose prefixes (bullets, hanging indents, quote bars) every block inside them
carries, and hands each link it meets to a :class:`~wikitui.ui.markdown.links.LinkMatcher`
so the link gets its tab-stop index. Obsidian's syntax is handled on top of CommonMark:
``[[wikilinks]]`` (an inline rule), ``![[embeds]]``, ``%% comments %%``, ``^block`` ids,
callouts and task lists. The inline content of each block is turned into runs by
:mod:`wikitui.ui.markdown.inline`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it.token import Token

from wikitui.core.vault.links import Link
from wikitui.ui.markdown.blocks import FOLD_MARKERS, BlankBlock, Block, CodeBlock, FoldBlock, RuleBlock, TextBlock
from wikitui.ui.markdown.code import highlight
from wikitui.ui.markdown.inline import BR_TAG, ObsidianComments, inline_runs
from wikitui.ui.markdown.line import Prefix, Seg
from wikitui.ui.markdown.links import LinkMatcher, place_link
from wikitui.ui.markdown.parser import markdown_parser
from wikitui.ui.markdown.table import TableBlock

_BULLETS = ("•", "◦", "▪", "‣")
_TASK = re.compile(r"\[([^\]\[\n])\] ")
#: A task's box by its marker: Obsidian's ``[ ]``/``[x]`` and the markers themes give meaning
#: to (cancelled, in progress, forwarded, scheduled, a question, important, a star); any other is done.
_TASK_BOXES = {" ": "☐ ", "x": "☑ ", "X": "☑ ", "-": "☒ ", "/": "◐ ", ">": "➤ ", "<": "◀ ", "?": "? ", "!": "! ",
               "*": "★ "}
_CALLOUT = re.compile(r"\[!([A-Za-z-]+)\]([+-]?)[ \t]*")
_BLOCK_ID = re.compile(r"\s+\^[A-Za-z0-9-]+\s*$")
_TAG = re.compile(r"<[^>\n]*>")
_QUOTE_BAR: Prefix = [("▎ ", "quote-bar")]
@dataclass(slots=True)
class _Container:
    """An open list item or block quote: its prefixes and the roles of its content."""

    first: Prefix
    rest: Prefix
    roles: str = ""
    pending: bool = True  # the first line (with the bullet) is still to be emitted
    kind: str = "item"
    start: int = 0  # index in the builder's blocks of the container's first block
    fold: str = ""  # a foldable callout's sign: "-" folded, "+" open


@dataclass(slots=True)
class _ListState:
    ordered: bool
    number: int
    width: int
    depth: int


@dataclass
class BlockBuilder:
    """Turns the markdown-it tokens of one piece of a page into blocks.

    Attributes:
        text: The full file text (to read link source text for placement).
        links: The page's links.
        matcher: Gives out link indices for this piece.
        line0: 0-based file line where the parsed piece starts.
    """

    text: str
    links: list[Link]
    matcher: LinkMatcher
    line0: int
    blocks: list[Block] = field(default_factory=list)
    _stack: list[_Container] = field(default_factory=list)
    _lists: list[_ListState] = field(default_factory=list)
    _gap: bool = False
    _last_line = 0  # last file line of the previous block
    _comments: ObsidianComments = field(default_factory=ObsidianComments)  # %% comments may span blocks
    #: Footnote labels (``":label"``) to their index, as markdown-it's footnote plugin numbers them.
    footnotes: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ emitting
    def _content_roles(self) -> str:
        return " ".join(c.roles for c in self._stack if c.roles)

    def _emit(self, block: Block, last_line: int) -> None:
        """Add a block inside the open containers, after a blank line where one belongs.

        Between top-level blocks there is always a blank line. Inside lists the source
        decides: a blank line only where the file has one (CommonMark would space out
        every item of a list with a single blank line in it, and long lists such as an
        index are grouped by such blank lines).
        """
        if any(c.kind == "item" for c in self._stack):
            gap = block.source_line > self._last_line + 1
        else:
            gap = self._gap
        if self.blocks and gap:
            blank = [p for c in self._stack if not c.pending for p in c.rest]
            self.blocks.append(BlankBlock(self.blocks[-1].source_line, list(blank), list(blank)))
        first: Prefix = []
        rest: Prefix = []
        for c in self._stack:
            first.extend(c.first if c.pending else c.rest)
            rest.extend(c.rest)
            c.pending = False
        block.first_prefix, block.prefix = first, rest
        self.blocks.append(block)
        self._gap = True
        self._last_line = max(last_line, block.source_line)
        if not isinstance(block, (RuleBlock, BlankBlock)):
            for index in self.matcher.unmatched(last_line):
                place_link(block, index, self.links[index], self.text)

    def finish(self, first_line: int) -> list[Block]:
        """Place the piece's links nothing claimed yet and return its blocks."""
        leftovers = self.matcher.unmatched(1 << 60)
        if leftovers:
            holders: list[Block] = [b for b in self.blocks if isinstance(b, (TextBlock, CodeBlock, TableBlock))]
            if not holders:
                self._emit(TextBlock(first_line), 0)
                holders = self.blocks[-1:]
            for index in leftovers:
                place_link(holders[-1], index, self.links[index], self.text)
        return self.blocks

    def _lines(self, tok: Token) -> tuple[int, int]:
        """1-based first and last file lines of a token with a map."""
        a, b = tok.map or (0, 1)
        return self.line0 + a + 1, self.line0 + max(a + 1, b)

    # ------------------------------------------------------------------ inline
    def inline(self, tok: Token, roles: str, last_line: int, cell: bool = False) -> list[Seg]:
        """Runs of an inline token (:func:`~wikitui.ui.markdown.inline.inline_runs`); links get their tab-stop index."""
        breaks = markdown_parser().options["breaks"]
        return inline_runs(tok, roles, last_line, self.matcher.take, self._comments, breaks, cell)

    # ------------------------------------------------------------------ blocks
    def build(self, tokens: list[Token]) -> list[Block]:
        """Walk the tokens of one piece and return its blocks."""
        i, n = 0, len(tokens)
        while i < n:
            tok = tokens[i]
            t = tok.type
            if t == "paragraph_open":
                self._paragraph(tok, tokens[i + 1])
                i += 3
                continue
            if t == "heading_open":
                self._heading(tok, tokens[i + 1])
                i += 3
                continue
            if t in ("bullet_list_open", "ordered_list_open"):
                self._open_list(tokens, i)
            elif t in ("bullet_list_close", "ordered_list_close"):
                self._lists.pop()
                self._gap = True
            elif t == "list_item_open":
                self._open_item(tok)
            elif t == "list_item_close":
                item = self._stack.pop()
                if item.pending:  # an empty item still shows its bullet
                    self._stack.append(item)
                    self._emit(TextBlock(self._lines(tok)[0]), 0)
                    self._stack.pop()
            elif t == "blockquote_open":
                self._stack.append(_Container(_QUOTE_BAR, _QUOTE_BAR, "quote", kind="quote", start=len(self.blocks)))
            elif t == "blockquote_close":
                quote = self._stack.pop()
                if quote.fold:
                    self._fold(quote)
                self._gap = True
            elif t == "footnote_reference_open":
                self._open_footnote(tok)
            elif t == "footnote_reference_close":
                self._stack.pop()
                self._gap = True
            elif t in ("math_block", "math_block_label"):
                self._math(tok)
            elif t in ("fence", "code_block"):
                self._code(tok)
            elif t == "hr" and not self._comments.inside:
                first, last = self._lines(tok)
                self._emit(RuleBlock(first), last)
            elif t == "html_block":
                self._html(tok)
            elif t == "table_open":
                i = self._table(tokens, i)
            i += 1
        return self.blocks

    def _paragraph(self, tok: Token, inline: Token) -> None:
        first, last = self._lines(tok)
        was_comment = self._comments.inside
        runs = self.inline(inline, self._content_roles(), last)
        if runs and runs[-1][0] and runs[-1][2] is None:
            text, roles, link = runs[-1]
            stripped = _BLOCK_ID.sub("", text)  # Obsidian hides ``^block`` ids
            if stripped != text:
                runs[-1] = (stripped, roles, link)
        if not any(r[0].strip() or r[2] is not None for r in runs):
            if was_comment or self._comments.inside:  # a paragraph entirely inside a comment
                self.matcher.unmatched(last)
            return
        body: list[Seg] = []
        if self._stack and runs and self._stack[-1].pending:
            body = _container_marker(self._stack[-1], runs)
        self._emit(TextBlock(first, runs=runs), last)
        if body:  # a callout's first paragraph: its title line, then the rest of its lines
            self._gap = False
            self._emit(TextBlock(first + 1, runs=body), last)

    def _fold(self, quote: _Container) -> None:
        """A foldable callout closes: its blocks become one :class:`FoldBlock` (folded for ``-``)."""
        blocks = self.blocks[quote.start :]
        if not blocks:
            return
        title = next((b for b in blocks if isinstance(b, TextBlock)), None)
        if title is None:
            return
        at = blocks.index(title)
        fold = FoldBlock(title.source_line, title=title, body=blocks[at + 1 :], open=quote.fold == "+")
        del self.blocks[quote.start + at :]
        self.blocks.append(fold)

    def _open_footnote(self, tok: Token) -> None:
        """A footnote's definition, ``[^label]: text``: its number (as its references show it) hangs in front."""
        label = str(tok.meta.get("label", ""))
        number = self.footnotes.get(":" + label, -1)
        marker = f"[{number + 1}] " if number >= 0 else f"[{label}] "
        self._stack.append(_Container([(marker, "footnote")], [(" " * len(marker), "")], kind="footnote"))

    def _math(self, tok: Token) -> None:
        """``$$ … $$`` on lines of its own: the TeX as written, line by line, no markdown escape applied."""
        first, last = self._lines(tok)
        if self._comments.inside:
            self.matcher.unmatched(last)
            return
        content = tok.content.strip("\n").replace("\t", " ")
        self._emit(TextBlock(first, runs=[(content, " ".join(filter(None, [self._content_roles(), "math"])), None)]),
                   last)

    def _heading(self, tok: Token, inline: Token) -> None:
        first, last = self._lines(tok)
        level = int(tok.tag[1:])
        runs = self.inline(inline, " ".join(filter(None, [self._content_roles(), f"heading-{level}"])), last)
        if runs and runs[-1][2] is None:
            runs[-1] = (_BLOCK_ID.sub("", runs[-1][0]), runs[-1][1], None)
        self._emit(TextBlock(first, runs=runs, heading=level), last)

    def _open_list(self, tokens: list[Token], i: int) -> None:
        tok = tokens[i]
        ordered = tok.type == "ordered_list_open"
        start = int(tok.attrs.get("start", 1) or 1) if ordered else 1
        count = 0
        if ordered:
            for t in tokens[i + 1 :]:
                if t.level == tok.level and t.type == "ordered_list_close":
                    break
                if t.level == tok.level + 1 and t.type == "list_item_open":
                    count += 1
        width = len(str(start + max(count, 1) - 1)) + 1
        depth = sum(1 for s in self._lists if not s.ordered)
        self._lists.append(_ListState(ordered, start, width, depth))

    def _open_item(self, tok: Token) -> None:
        state = self._lists[-1]
        if state.ordered:
            marker = f"{state.number}.".rjust(state.width) + " "
            state.number += 1
        else:
            marker = _BULLETS[state.depth % len(_BULLETS)] + " "
        self._stack.append(_Container([(marker, "bullet")], [(" " * len(marker), "")]))

    def _code(self, tok: Token) -> None:
        first, last = self._lines(tok)
        if self._comments.inside:
            self.matcher.unmatched(last)
            return
        fenced = tok.type == "fence"
        rows = highlight(tok.content, tok.info if fenced else None)
        block = CodeBlock(first + 1 if fenced else first, rows=rows)
        self._emit(block, last)

    def _html(self, tok: Token) -> None:
        first, last = self._lines(tok)
        content = tok.content.strip()
        if self._comments.inside or content.startswith("<!--") or not content:
            self.matcher.unmatched(last)  # comments are invisible, as in any renderer
            return
        visible = _TAG.sub("", BR_TAG.sub("\n", content)).strip()
        if not visible:
            self.matcher.unmatched(last)
            return
        inline = markdown_parser().parseInline(visible)[0]
        runs = self.inline(inline, " ".join(filter(None, [self._content_roles(), "html"])), last)
        self._emit(TextBlock(first, runs=runs), last)

    def _table(self, tokens: list[Token], i: int) -> int:
        first, last = self._lines(tokens[i])
        rows: list[list[list[Seg]]] = []
        row_lines: list[int] = []
        aligns: list[str] = []
        header_rows = 0
        row_last = last
        roles = self._content_roles()
        j = i + 1
        while j < len(tokens) and tokens[j].type != "table_close":
            tok = tokens[j]
            if tok.type == "tr_open":
                row_first, row_last = self._lines(tok)
                rows.append([])
                row_lines.append(row_first)
            elif tok.type in ("th_open", "td_open"):
                if tok.type == "th_open":
                    header_rows = 1
                    style = str(tok.attrs.get("style", ""))
                    aligns.append(style.partition("text-align:")[2] or "left")
            elif tok.type == "inline" and rows:
                rows[-1].append(self.inline(tok, roles, row_last, cell=True))
            j += 1
        block = TableBlock(first, rows=rows, aligns=aligns, header_rows=header_rows, row_lines=row_lines)
        self._emit(block, last)
        return j


def _container_marker(top: _Container, runs: list[Seg]) -> list[Seg]:
    """Read the marker that opens a list item's or a quote's first paragraph.

    A task item's ``[ ]`` / ``[x]`` / ``[-]`` ... becomes its bullet (☐ / ☑ / ☒ ...); a
    callout's ``[!note]`` becomes its title (``Note``). A foldable callout's (``[!faq]-``)
    title is its first line only: the runs after it are returned (and cut from ``runs``),
    to be shown as its body.
    """
    if top.kind == "item":
        m = _TASK.match(runs[0][0])
        if m:
            box = _TASK_BOXES.get(m.group(1), "☑ ")
            top.first = [(box, "bullet")]
            top.rest = [("  ", "")]
            runs[0] = (runs[0][0][m.end() :], runs[0][1], runs[0][2])
    elif top.kind == "quote":
        m = _CALLOUT.match(runs[0][0])
        if m:
            runs[0] = (runs[0][0][m.end() :], runs[0][1], runs[0][2])
            runs.insert(0, (m.group(1).capitalize() + " ", "callout", None))
            if m.group(2):
                top.fold = m.group(2)
                runs.insert(0, (FOLD_MARKERS[m.group(2) == "+"], "callout fold", None))
                return _split_title(runs)
    return []


def _split_title(runs: list[Seg]) -> list[Seg]:
    """Cut ``runs`` at its first line break; the runs after it."""
    for i, (text, roles, link) in enumerate(runs):
        if "\n" in text:
            head, _, tail = text.partition("\n")
            rest = ([(tail, roles, link)] if tail else []) + runs[i + 1 :]
            del runs[i:]
            if head:
                runs.append((head, roles, link))
            return rest
    return []
