"""Markdown that arrives in pieces (an answer streaming in), parsed so finished parts are parsed once.

Streaming re-parses only the tail: once a blank line (outside a code fence) is followed
by a new, unindented block, everything before it is frozen into a part that is never
parsed again. A 2,000-token answer therefore costs one paragraph's parse per update.
When the text is complete it is parsed once more as one document, so the final
rendering is exact.
"""

from __future__ import annotations

import re

from wikitui.core.vault.links import Link
from wikitui.ui.markdown.document import PageDocument
from wikitui.ui.markdown.line import Line

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def frozen_split(text: str, start: int, in_fence: bool) -> tuple[int, bool]:
    """The offset up to which ``text[start:]`` can be frozen, and the fence state there.

    A split point is the start of a line that follows a blank line, begins a new
    unindented block (an indented line may continue a list item) and lies outside a
    code fence. Only lines that are complete (end with a newline) are considered.
    """
    split, fence_at_split = start, in_fence
    pos, blank_before = start, False
    while True:
        nl = text.find("\n", pos)
        if nl < 0:
            break
        line = text[pos:nl]
        if not in_fence and blank_before and line and not line[0].isspace():
            split, fence_at_split = pos, in_fence
        if _FENCE.match(line):
            in_fence = not in_fence
        blank_before = not line.strip()
        pos = nl + 1
    return split, fence_at_split


class Part:
    """A stretch of the text, parsed once and laid out per width.

    Attributes:
        doc: The stretch as a document.
        link_offset: How many links the parts before it hold: its link ``i`` is the
            text's link ``link_offset + i``.
    """

    __slots__ = ("doc", "link_offset")

    def __init__(self, text: str, link_offset: int) -> None:
        # Text that starts with a rule would be read as frontmatter: a newline in front prevents it.
        # An answer shows its folded callouts open: the chat has no cursor to open them with.
        self.doc = PageDocument("\n" + text if text.startswith("---") else text, path=None, folds_open=True)
        self.link_offset = link_offset

    def lines(self, width: int) -> list[Line]:
        """The part laid out whole at ``width``."""
        self.doc.set_width(width)
        self.doc.ensure_all()
        return self.doc.lines


class StreamedMarkdown:
    """A markdown text that grows, as parts: frozen ones parsed once, and the tail.

    Args:
        text: The text so far.
    """

    def __init__(self, text: str = "") -> None:
        self.text = text
        """The text so far (:meth:`parse` makes the parts follow it)."""
        self.frozen: list[Part] = []
        """The parts that are never parsed again (one part, the whole text, once final)."""
        self.tail: Part | None = None
        """The rest of the text, parsed again at each :meth:`parse` while streaming."""
        self.links: list[Link] = []
        """The links of all parts, in reading order."""
        self._frozen_to = 0  # offset of the text not frozen into a part yet
        self._in_fence = False

    @property
    def parts(self) -> list[Part]:
        """The parts in reading order."""
        return self.frozen + ([self.tail] if self.tail is not None else [])

    def parse(self, *, final: bool) -> None:
        """Parse what changed: the new tail while streaming; with ``final``, the whole text as one part."""
        text = self.text
        if final:
            self.frozen = [Part(text, 0)] if text else []
            self._frozen_to, self._in_fence, self.tail = len(text), False, None
        else:
            split, fence = frozen_split(text, self._frozen_to, self._in_fence)
            if split > self._frozen_to:
                self.frozen.append(Part(text[self._frozen_to : split], self._link_count(self.frozen)))
                self._frozen_to, self._in_fence = split, fence
            tail = text[self._frozen_to :]
            self.tail = Part(tail, self._link_count(self.frozen)) if tail.strip() else None
        self.links = [link for part in self.parts for link in part.doc.links]

    @staticmethod
    def _link_count(parts: list[Part]) -> int:
        return sum(len(p.doc.links) for p in parts)

    def lines(self, width: int) -> list[tuple[Line, int]]:
        """Every part laid out at ``width``, with each line's link offset (see :attr:`Part.link_offset`).

        Parts are separated by the blank line their split point followed; blank lines at
        the end are dropped.
        """
        lines: list[tuple[Line, int]] = []
        blank = Line([], 0)
        for part in self.parts:
            if lines:
                lines.append((blank, 0))
            lines.extend((line, part.link_offset) for line in part.lines(width))
        while lines and not lines[-1][0].segments and not lines[-1][0].fill:
            lines.pop()
        return lines
