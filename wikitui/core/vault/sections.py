"""The part of a page an anchored embed shows: ``![[Page#^id]]`` a block, ``![[Page#Heading]]`` a section.

As Obsidian: a ``^id`` at the end of a paragraph or list item names that block (a list
item with the items nested under it); a ``^id`` alone on a line names the block just
above it (a table, a quote, a list). A heading names its section: the heading and what
follows, up to the next heading of the same or a higher level. Headings are compared
as Obsidian compares them (case, punctuation, ``-``/``_`` and spaces folded); a heading
or block inside code is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from wikitui.core.vault.links import Link, extract_links, mask_text
from wikitui.core.vault.page import split_frontmatter

__all__ = ["EmbeddedPart", "block_text", "embedded_part", "embedded_parts", "normalize_anchor", "section_text"]

_ANCHOR_JUNK = re.compile(r"[^\w\s]")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_ITEM = re.compile(r"^([ \t]*)(?:[-+*]|\d{1,9}[.)])[ \t]")
_ALONE_ID = re.compile(r"^[ \t]*\^[A-Za-z0-9-]+[ \t]*$")


def normalize_anchor(text: str) -> str:
    """Fold a heading or an anchor for comparison: case, punctuation, ``-``/``_`` and spaces."""
    text = text.replace("-", " ").replace("_", " ")
    return " ".join(_ANCHOR_JUNK.sub("", text).lower().split())


def _body_lines(text: str) -> tuple[list[str], list[str], int]:
    """The page's lines, the same lines with code and comments blanked, and the index of the body's first line."""
    fm, _body, body_line = split_frontmatter(text)
    first = body_line - 1 if fm is not None else 0
    return text.split("\n"), mask_text(text, first).split("\n"), first


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def block_text(text: str, block_id: str) -> str | None:
    """The markdown of the block named ``^block_id`` (case-insensitive), or None when the page has none."""
    lines, masked, first = _body_lines(text)
    ends = re.compile(r"(?:^|\s)\^" + re.escape(block_id) + r"[ \t]*$", re.IGNORECASE)
    at = next((i for i in range(first, len(lines)) if ends.search(masked[i])), None)
    if at is None:
        return None
    if _ALONE_ID.match(masked[at]):  # the id on its own line: the whole block above it
        end = at
        while end > first and not masked[end - 1].strip():
            end -= 1
        start = end
        while start > first and masked[start - 1].strip() and not _ATX.match(masked[start - 1]):
            start -= 1
        return "\n".join(lines[start:end]).strip("\n") or None
    start, end = at, at + 1
    while True:  # up to the paragraph's first line, or the list item's
        m = _ITEM.match(masked[start])
        if m or start == first or not masked[start - 1].strip() or _ATX.match(masked[start - 1]):
            break
        start -= 1
    if m:
        depth = len(m.group(1))
        while end < len(lines) and masked[end].strip() and _indent(masked[end]) > depth:
            end += 1  # the items nested under it
        lines = [line[depth:] if _indent(line) >= depth else line for line in lines[start:end]]
        return "\n".join(lines).strip("\n")
    return "\n".join(lines[start:end]).strip("\n")


def section_text(text: str, heading: str) -> str | None:
    """The markdown of the section under ``heading`` (``a#b``: the last part names it), or None."""
    wanted = normalize_anchor(heading.split("#")[-1])
    if not wanted:
        return None
    lines, masked, first = _body_lines(text)
    start, level = None, 0
    for i in range(first, len(lines)):
        m = _ATX.match(masked[i])
        if m is None:
            continue
        if start is None:
            if normalize_anchor(lines[i][m.start(2) : m.end(2)]) == wanted:
                start, level = i, len(m.group(1))
        elif len(m.group(1)) <= level:
            return "\n".join(lines[start:i]).strip("\n")
    return None if start is None else "\n".join(lines[start:]).strip("\n")


def embedded_part(text: str, anchor: str) -> str | None:
    """What ``![[Page#anchor]]`` shows of the page ``text``: a ``^block`` or a heading's section; None if absent."""
    anchor = anchor.strip()
    if anchor.startswith("^"):
        return block_text(text, anchor[1:])
    return section_text(text, anchor)


@dataclass
class EmbeddedPart:
    """The part of a page an anchored embed shows, with the parts it embeds in turn.

    Attributes:
        text: Its markdown.
        path: The page it comes from (vault-relative).
        inner: The parts it embeds, by the index of the embed among the part's own links.
    """

    text: str
    path: str
    inner: dict[int, EmbeddedPart] = field(default_factory=dict)


def embedded_parts(
    links: list[Link],
    path: str,
    resolve: Callable[[Link, str], str | None],
    read: Callable[[str], str | None],
    *,
    depth: int = 4,
    chain: tuple[tuple[str, str], ...] = (),
) -> dict[int, EmbeddedPart]:
    """The parts the anchored embeds among ``links`` (a page's, at ``path``) show, by link index.

    Args:
        links: The page's links (its tab stops).
        path: The page's vault-relative path (links resolve from it).
        resolve: A link's target page from a page (``LinkGraph.resolve``), or None.
        read: A page's text, or None when it cannot be read.
        depth: How many levels of embeds inside embeds are followed (0: none).
        chain: The ``(page, anchor)`` embeds being shown around this one: one met again is a loop, not followed.
    """
    out: dict[int, EmbeddedPart] = {}
    if depth <= 0:
        return out
    texts: dict[str, str | None] = {}
    for index, link in enumerate(links):
        if not (link.embed and link.anchor and link.kind in ("wiki", "md")):
            continue
        target = resolve(link, path)
        if target is None or not target.lower().endswith((".md", ".markdown")):
            continue
        key = (target, normalize_anchor(link.anchor) if not link.anchor.startswith("^") else link.anchor.lower())
        if key in chain:
            continue  # it embeds itself: shown once, not forever
        if target not in texts:
            texts[target] = read(target)
        text = texts[target]
        part = embedded_part(text, link.anchor) if text is not None else None
        if part is None:
            continue
        inner = embedded_parts(extract_links(part), target, resolve, read, depth=depth - 1, chain=(*chain, key))
        out[index] = EmbeddedPart(part, target, inner)
    return out
