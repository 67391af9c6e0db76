"""Matching the core's links to the links markdown-it renders, and placing the rest.

The tab stops of a page are exactly :func:`wikitui.core.vault.links.extract_links`'s list
(the Outgoing panel shows the same list), so the renderer does not invent links: every
link markdown-it finds is matched, in reading order, against the next links of that
list on the same source lines, and takes its index. A link the core found but
markdown-it rendered as something else (a wikilink inside an indented code block, a
table cell split at a ``|``) is placed by searching its text in the block, so every
tab stop is visible exactly once. A link markdown-it finds that the core does not
(an autolink, a reference link) is painted as a link but is no tab stop.
"""

from __future__ import annotations

from urllib.parse import unquote

from wikitui.core.vault.links import Link
from wikitui.ui.markdown.blocks import Block, CodeBlock, TextBlock
from wikitui.ui.markdown.line import Seg
from wikitui.ui.markdown.table import TableBlock


def _same_link(link: Link, kind: str, key: object, embed: bool) -> bool:
    """Whether a link markdown-it found is the core's ``link``."""
    if link.embed != embed:
        return False
    if kind == "wiki":
        return link.kind == "wiki" and (link.target, link.anchor) == key
    if link.kind == "wiki":
        return False
    url = link.target if link.kind == "url" else link.target + ("#" + link.anchor if link.anchor else "")
    return unquote(url) == key


class LinkMatcher:
    """Hands out the core's link indices, in reading order, to the links markdown-it finds.

    Args:
        links: The page's links (the tab stops).
        start: First index belonging to the text being rendered.
        stop: Index past the last one.
        hidden: Indices of links cut off with the end of an over-long line.
    """

    def __init__(self, links: list[Link], start: int, stop: int, hidden: frozenset[int] = frozenset()) -> None:
        self.links = links
        self.next = start
        self.stop = stop
        self.hidden = hidden  # links past the cut of an over-long line: never placed
        self._skipped: list[int] = []

    def take(self, kind: str, key: object, embed: bool, last_line: int) -> int | None:
        """The index of the next link on or before ``last_line`` equal to the one found, or None."""
        links = self.links
        j = self.next
        while j < self.stop and links[j].line <= last_line:
            if _same_link(links[j], kind, key, embed):
                self._skipped.extend(range(self.next, j))
                self.next = j + 1
                return j
            j += 1
        j = self.next
        # Escapes and entities can make the written target differ from markdown-it's;
        # the next link of the same sort on these lines is then the same link.
        if j < self.stop and links[j].line <= last_line and links[j].embed == embed:
            if (links[j].kind == "wiki") == (kind == "wiki"):
                self.next = j + 1
                return j
        return None

    def unmatched(self, last_line: int) -> list[int]:
        """Indices skipped so far or lying on lines up to ``last_line`` that nothing claimed."""
        out, self._skipped = self._skipped, []
        while self.next < self.stop and self.links[self.next].line <= last_line:
            out.append(self.next)
            self.next += 1
        return [i for i in out if i not in self.hidden] if self.hidden else out


def mark_link(runs: list[Seg], needle: str, index: int) -> bool:
    """Give link ``index`` to the first occurrence of ``needle`` (across runs) not linked yet."""
    joined = "".join(r[0] for r in runs)
    at = joined.find(needle)
    while at >= 0:
        end = at + len(needle)
        pos = 0
        free = True
        for text, _roles, link in runs:
            if link is not None and pos < end and pos + len(text) > at:
                free = False
                break
            pos += len(text)
        if free:
            break
        at = joined.find(needle, at + 1)
    if at < 0 or not needle:
        return False
    out: list[Seg] = []
    pos = 0
    for text, roles, link in runs:
        stop = pos + len(text)
        if stop <= at or pos >= end:
            out.append((text, roles, link))
        else:
            a, b = max(at, pos) - pos, min(end, stop) - pos
            out.extend(p for p in ((text[:a], roles, link), (text[a:b], roles, index), (text[b:], roles, link)) if p[0])
        pos = stop
    runs[:] = out
    return True


def place_link(block: Block, index: int, link: Link, text: str) -> None:
    """Make a link markdown-it did not render as one visible in ``block``.

    The link's source text (or its label) is marked where it appears; failing that,
    its label is appended in angle quotes so the tab stop can still be seen.
    """
    raw = text[link.start : link.end]
    shown = link.text or raw
    targets: list[list[Seg]]
    if isinstance(block, TextBlock):
        targets = [block.runs]
    elif isinstance(block, CodeBlock):
        row = link.line - block.source_line
        targets = [block.rows[row]] if 0 <= row < len(block.rows) else block.rows[-1:]
    elif isinstance(block, TableBlock):
        targets = [cell for r, row in enumerate(block.rows) for cell in row if block.row_lines[r] == link.line]
        targets = targets or [cell for row in block.rows for cell in row][-1:]
    else:
        targets = []
    for needle in (raw, shown):
        if needle and any(mark_link(runs, needle, index) for runs in targets):
            return
    if targets:
        targets[-1].append((f" ⟨{shown}⟩", "", index))
