"""One chunk of a page turned into blocks: markdown through the block builder, or raw source.

:class:`~wikitui.ui.markdown.document.PageDocument` calls these when a chunk is first
laid out. Each gets a :class:`~wikitui.ui.markdown.links.LinkMatcher` for the page's
links on the chunk's lines, so the blocks carry the core's tab-stop indices.
"""

from __future__ import annotations

from wikitui.core.vault.links import Link
from wikitui.ui.markdown.blocks import BlankBlock, Block, CodeBlock, TextBlock
from wikitui.ui.markdown.builder import BlockBuilder
from wikitui.ui.markdown.code import highlight
from wikitui.ui.markdown.header import notice
from wikitui.ui.markdown.links import LinkMatcher, mark_link
from wikitui.ui.markdown.parser import MAX_NESTING, markdown_parser


def markdown_blocks(src: str, text: str, links: list[Link], matcher: LinkMatcher, start: int, env: dict) -> list[Block]:
    """The blocks of a chunk of markdown.

    Args:
        src: The chunk's lines, cleaned (:func:`~wikitui.ui.markdown.chunks.render_lines`).
        text: The whole file's text (links are placed by their source text).
        links: The page's links.
        matcher: Hands out the indices of the links on the chunk's lines.
        start: 0-based file line of the chunk's first line.
        env: markdown-it's environment, shared by the page's chunks.
    """
    tokens = markdown_parser().parse(src, env)
    builder = BlockBuilder(text, links, matcher, start, footnotes=env.get("footnotes", {}).get("refs", {}))
    if any(t.level >= MAX_NESTING - 1 for t in tokens):
        # markdown-it stopped at its nesting limit and dropped the rest: show the lines as text.
        builder.blocks = [
            notice(f"⚠ Nested more than {MAX_NESTING} levels deep: shown as text"),
            BlankBlock(start + 1),
            TextBlock(start + 1, runs=[(src, "", None)]),
        ]
        return builder.finish(start + 1)
    builder.build(tokens)
    return builder.finish(start + 1)


def source_blocks(
    src: str, text: str, links: list[Link], indices: range, start: int, lexer: str, digits: int = 0
) -> list[Block]:
    """A chunk of a raw file as one highlighted code block with numbered lines.

    Args:
        src: The chunk's lines, cleaned.
        text: The whole file's text.
        links: The page's links (a markdown file shown as source keeps them as tab stops).
        indices: Indices of the links on the chunk's lines.
        start: 0-based file line of the chunk's first line.
        lexer: The pygments lexer name.
        digits: Width of the line numbers: the whole file's (0: the chunk's own).
    """
    block = CodeBlock(start + 1, rows=highlight(src + "\n", lexer), gutter=True, digits=digits)
    block.first_number = start + 1
    for index in indices:
        link = links[index]
        row = link.line - 1 - start
        if 0 <= row < len(block.rows):
            mark_link(block.rows[row], text[link.start : link.end], index)
    return [block]
