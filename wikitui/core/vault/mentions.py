"""Unlinked mentions: where other pages name a page in plain text without linking it.

An on-demand query (the links panel, ``wikitui links``): it reads the other pages
from disk. Text inside links, code, comments and frontmatter does not count, and
log.md is history, so it is skipped. One mention per line is listed (several on a
line would repeat its line and its context), and finding them stays linear however
long a line is: a 5 MB line of 450,000 links once took minutes here, each link
copying the whole text to blank itself out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from heapq import merge
from itertools import chain
from typing import TYPE_CHECKING

from wikitui.core.vault.files import decode_text
from wikitui.core.vault.links import WIKILINK, cut_context, mask_text

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping
    from pathlib import Path

    from wikitui.core.vault.page import PageInfo


@dataclass(slots=True)
class Mention:
    """An unlinked mention: a page's title or alias as plain text in another page."""

    path: str
    line: int
    context: str


def unlinked_mentions(pages: Mapping[str, PageInfo], path: str, *, root: Path, skip: str) -> list[Mention]:
    """The lines of other pages that name ``path``'s title or an alias (3 letters or more) without a link.

    Args:
        pages: The vault's pages by path (the link graph's ``pages``).
        path: The page whose names are looked for.
        root: The vault's root folder, where the other pages are read.
        skip: A page never searched (log.md, which names every page it logged).
    """
    info = pages.get(path)
    if info is None:
        return []
    names = sorted({n for n in info.names if len(n) >= 3}, key=len, reverse=True)
    if not names:
        return []
    lowered = [n.lower() for n in names]
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w])", re.IGNORECASE)
    out: list[Mention] = []
    for other, oinfo in pages.items():
        if other == path or other == skip:
            continue
        try:
            text, _ = decode_text((root / other).read_bytes())
        except OSError:
            continue
        low = text.lower()
        if not any(n in low for n in lowered):
            continue
        out.extend(_mentions(other, text, oinfo, pattern))
    return out


def _mentions(path: str, text: str, info: PageInfo, pattern: re.Pattern) -> list[Mention]:
    """The lines of ``text`` (page ``path``) where ``pattern`` matches outside links, code, comments and frontmatter.

    The pattern runs on the gaps between links, in place: no blanked copy of
    the text and no list of the links' spans is made (a line of 450,000 links
    would make both hundreds of megabytes).
    """
    masked = mask_text(text, frontmatter_end=info.body_line - 1 if info.has_frontmatter else 0)
    wiki = (m.span() for m in WIKILINK.finditer(masked))
    other = ((link.start, link.end) for link in info.links if link.kind != "wiki")  # markdown links
    out: list[Mention] = []
    line, pos, line_end = 1, 0, -1
    gap = 0
    for start, end in chain(merge(wiki, other), [(len(masked), len(masked))]):
        # Lookbehind and lookahead see the link's brackets beside the gap: not word characters.
        for m in pattern.finditer(masked, gap, max(gap, start)):
            at = m.start()
            if at <= line_end:
                continue  # this line is listed already
            line += masked.count("\n", pos, at)
            pos = at
            line_end = text.find("\n", at)
            if line_end == -1:
                line_end = len(text)
            out.append(Mention(path, line, cut_context(text[text.rfind("\n", 0, at) + 1 : line_end])))
        gap = max(gap, end)
    return out
