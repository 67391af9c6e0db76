"""The blocks above a page's body: warnings, and a compact header made from the frontmatter.

The header shows the title (unless the first heading says the same), the type, tags,
aliases and summary, then a rule. A frontmatter that does not parse is shown as
highlighted YAML under a warning, so nothing of the file is hidden.
"""

from __future__ import annotations

import re

from wikitui.core.vault.page import PageInfo, split_frontmatter
from wikitui.core.vault.visible_text import visible_line
from wikitui.ui.markdown.anchors import normalize_anchor
from wikitui.ui.markdown.blocks import BlankBlock, Block, CodeBlock, RuleBlock, TextBlock
from wikitui.ui.markdown.chunks import clean_text
from wikitui.ui.markdown.code import highlight
from wikitui.ui.markdown.line import Seg


def notice(text: str) -> TextBlock:
    """A warning line (``⚠ ...``) shown above the page."""
    return TextBlock(0, runs=[(text, "warning", None)])


def message_blocks(title: str, body: str) -> list[Block]:
    """The blocks of a page that only shows a title and a short explanation (empty or error states)."""
    runs: list[Seg] = [(title, "message-title", None)]
    blocks: list[Block] = [BlankBlock(0), TextBlock(0, [("  ", "")], [("  ", "")], runs=runs)]
    if body:
        blocks += [BlankBlock(0), TextBlock(0, [("  ", "")], [("  ", "")], runs=[(body, "meta", None)])]
    return blocks


def page_header(source: str, info: PageInfo, own: PageInfo) -> list[Block]:
    """The header blocks of a page.

    Args:
        source: The file's text (to show a frontmatter that does not parse).
        info: The metadata to show (the caller's, or the page's own).
        own: The page's own parse: whether it has frontmatter, its errors, its first heading.
    """
    blocks: list[Block] = []
    if own.frontmatter_error:
        blocks.append(notice(f"⚠ The frontmatter does not parse ({own.frontmatter_error}); it is shown as text:"))
        fm, _body, _line = split_frontmatter(clean_text(source))
        blocks.append(CodeBlock(2, rows=highlight(fm or "", "yaml")))
    elif not own.has_frontmatter and re.match(r"---[ \t]*\r?\n", source):
        blocks.append(notice("⚠ The frontmatter is not closed (no second --- line); the page is shown as text"))
    title = info.title if own.has_frontmatter else ""
    first_h1 = own.headings[0].text if own.headings and own.headings[0].level == 1 else ""
    if title and normalize_anchor(title) != normalize_anchor(first_h1):
        blocks.append(TextBlock(0, runs=[(visible_line(title), "title", None)]))
    meta = _meta_runs(info)
    if meta:
        blocks.append(TextBlock(0, runs=meta))
    if info.summary:
        blocks.append(TextBlock(0, runs=[(visible_line(info.summary), "meta summary", None)]))
    if blocks and (own.has_frontmatter or own.frontmatter_error):
        blocks.append(RuleBlock(0, roles="header-rule"))
    return blocks


def _meta_runs(info: PageInfo) -> list[Seg]:
    """``concept  #tag  #other  aka Alias, Other``: the page's type, tags and aliases on one line."""
    meta: list[Seg] = []
    if info.type:
        meta.append((info.type, "meta-type", None))
    for tag in info.tags:
        meta.extend([("  " if meta else "", "meta", None), (f"#{tag}", "meta-tag", None)])
    if info.aliases:
        meta.append(("  " if meta else "", "meta", None))
        meta.append(("aka " + ", ".join(info.aliases), "meta", None))
    return [(visible_line(text), role, link) for text, role, link in meta if text]
