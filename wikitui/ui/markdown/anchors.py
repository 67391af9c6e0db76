"""Where an anchor points: heading text folded as Obsidian compares it, and ``^block`` ids.

``[[Page#Some heading]]`` matches the heading "Some Heading!" and ``[[Page#^id]]`` the
line that ends with ``^id``; :meth:`~wikitui.ui.markdown.document.PageDocument.find_anchor`
turns what these find into a rendered line.
"""

from __future__ import annotations

import re

from wikitui.core.vault.page import Heading
from wikitui.core.vault.sections import normalize_anchor

__all__ = ["atx_headings", "block_id_line", "normalize_anchor"]

_ATX = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def block_id_line(source: str, block_id: str) -> int | None:
    """The 1-based file line that ends with ``^block_id`` (case-insensitive), or None."""
    pattern = re.compile(r"\s\^" + re.escape(block_id) + r"[ \t]*$", re.MULTILINE | re.IGNORECASE)
    m = pattern.search(source)
    return None if m is None else source.count("\n", 0, m.start()) + 1


def atx_headings(masked: str, text: str) -> list[Heading]:
    """ATX headings of a page (as the core's parser finds them) from its masked text.

    Args:
        masked: The page with code and comments masked (:func:`wikitui.core.vault.links.mask_text`),
            so a ``#`` line inside a fence is no heading.
        text: The page itself, for the headings' text.
    """
    headings = []
    line, pos = 1, 0
    for m in _ATX.finditer(masked):
        line += masked.count("\n", pos, m.start())
        pos = m.start()
        headings.append(Heading(len(m.group(1)), text[m.start(2) : m.end(2)].strip(), line))
    return headings
