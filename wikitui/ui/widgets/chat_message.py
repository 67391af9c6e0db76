"""One answer of the agent in the chat: markdown painted line by line, streamed as it arrives.

The text is parsed by the page pane's own markdown pipeline
(:class:`~wikitui.ui.markdown_lines.PageDocument`), so answers look like pages: headings,
lists, tables, highlighted code and ``[[links]]`` styled resolved or unresolved.

Streaming re-parses only the tail: once a blank line (outside a code fence) is
followed by a new, unindented block, everything before it is frozen into a part that
is never parsed again. A 2,000-token answer therefore costs one paragraph's parse per
update, and :meth:`ChatMessage.append` re-renders at most every
:data:`RENDER_INTERVAL` seconds however fast the deltas come. :meth:`finish` parses
the whole answer once, as one document, so the final rendering is exact.
"""

from __future__ import annotations

import re
from typing import Callable

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from wikitui.core.vault.links import Link
from wikitui.ui.markdown_layout import Line
from wikitui.ui.markdown_lines import PageDocument
from wikitui.ui.widgets.page_styles import LinkStates

#: Seconds between two re-renders while an answer streams in.
RENDER_INTERVAL = 0.05
#: While streaming, the height grows by this many lines at a time: a new layout of the
#: chat (and a repaint of the screen) every few lines instead of every line.
STREAM_HEIGHT_STEP = 4

#: Roles painted with plain text attributes rather than theme colours (as in the page pane).
_ATTRIBUTE_ROLES = {"strong": Style(bold=True), "em": Style(italic=True), "s": Style(strike=True),
                    "summary": Style(italic=True)}
#: Roles that share another role's component class.
_ROLE_ALIASES = {"link-plain": "link", "header-rule": "rule", "html": "meta", "title": "heading-1",
                 "message-title": "meta"}
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _frozen_split(text: str, start: int, in_fence: bool) -> tuple[int, bool]:
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


def _document(text: str) -> PageDocument:
    # An answer that starts with a rule would be read as frontmatter: a newline in front prevents it.
    return PageDocument("\n" + text if text.startswith("---") else text, path=None)


class _Part:
    """A frozen stretch of the answer, parsed once and laid out per width."""

    __slots__ = ("doc", "link_offset")

    def __init__(self, text: str, link_offset: int) -> None:
        self.doc = _document(text)
        self.link_offset = link_offset

    def lines(self, width: int) -> list[Line]:
        self.doc.set_width(width)
        self.doc.ensure_all()
        return self.doc.lines


class ChatMessage(LinkStates, Widget):
    """An answer of the agent, rendered as markdown with followable links.

    Args:
        text: The answer so far (more comes through :meth:`append`).
        resolve: Returns a link's target path, or None when it is unresolved (links
            are painted as resolved when no resolver is given).
        streaming: Whether more text is expected (the final parse waits for :meth:`finish`).

    The link cursor is driven by the chat log (:attr:`selected_link`); a click on a
    link posts :class:`ChatMessage.LinkClicked`.
    """

    COMPONENT_CLASSES = {
        "chat-message--link",
        "chat-message--link-unresolved",
        "chat-message--link-external",
        "chat-message--link-selected",
        "chat-message--heading-1",
        "chat-message--heading-2",
        "chat-message--heading-3",
        "chat-message--heading-4",
        "chat-message--heading-5",
        "chat-message--heading-6",
        "chat-message--meta",
        "chat-message--warning",
        "chat-message--code",
        "chat-message--code-block",
        "chat-message--code-gutter",
        "chat-message--code-keyword",
        "chat-message--code-string",
        "chat-message--code-number",
        "chat-message--code-comment",
        "chat-message--code-function",
        "chat-message--code-builtin",
        "chat-message--code-tag",
        "chat-message--code-attribute",
        "chat-message--code-operator",
        "chat-message--code-inserted",
        "chat-message--code-deleted",
        "chat-message--code-heading",
        "chat-message--quote",
        "chat-message--quote-bar",
        "chat-message--callout",
        "chat-message--bullet",
        "chat-message--rule",
        "chat-message--table-border",
        "chat-message--table-header",
    }

    DEFAULT_CSS = """
    ChatMessage {
        height: auto;
        padding: 0 0 0 0;
        & > .chat-message--link { color: $text-primary; text-style: underline; }
        & > .chat-message--link-unresolved { color: $text-error; text-style: italic; }
        & > .chat-message--link-external { color: $text-accent; text-style: underline; }
        & > .chat-message--link-selected {
            color: $block-cursor-foreground; background: $block-cursor-background; text-style: bold;
        }
        & > .chat-message--heading-1 { color: $markdown-h1-color; text-style: bold; }
        & > .chat-message--heading-2 { color: $markdown-h2-color; text-style: bold; }
        & > .chat-message--heading-3 { color: $markdown-h3-color; text-style: bold; }
        & > .chat-message--heading-4 { color: $markdown-h4-color; text-style: bold italic; }
        & > .chat-message--heading-5 { color: $markdown-h5-color; text-style: italic; }
        & > .chat-message--heading-6 { color: $markdown-h6-color; text-style: italic; }
        & > .chat-message--meta { color: $text-muted; }
        & > .chat-message--warning { color: $text-warning; }
        & > .chat-message--code { color: $text-warning; background: $panel; }
        & > .chat-message--code-block { background: $panel; }
        & > .chat-message--code-gutter { color: $text-muted; background: $panel; }
        & > .chat-message--code-keyword { color: $text-accent; text-style: bold; }
        & > .chat-message--code-string { color: $text-success; }
        & > .chat-message--code-number { color: $text-warning; }
        & > .chat-message--code-comment { color: $text-muted; text-style: italic; }
        & > .chat-message--code-function { color: $text-primary; }
        & > .chat-message--code-builtin { color: $text-secondary; }
        & > .chat-message--code-tag { color: $text-primary; }
        & > .chat-message--code-attribute { color: $text-secondary; }
        & > .chat-message--code-operator { color: $text-accent; }
        & > .chat-message--code-inserted { color: $text-success; }
        & > .chat-message--code-deleted { color: $text-error; }
        & > .chat-message--code-heading { color: $text-primary; text-style: bold; }
        & > .chat-message--quote { color: $text-muted; text-style: italic; }
        & > .chat-message--quote-bar { color: $primary; }
        & > .chat-message--callout { color: $text-primary; text-style: bold; }
        & > .chat-message--bullet { color: $text-accent; }
        & > .chat-message--rule { color: $text-muted; }
        & > .chat-message--table-border { color: $text-muted; }
        & > .chat-message--table-header { text-style: bold; }
    }
    """

    class LinkClicked(Message):
        """A link of the message was clicked.

        Attributes:
            link_index: Index of the link in :attr:`ChatMessage.links`.
        """

        def __init__(self, message: "ChatMessage", link_index: int) -> None:
            super().__init__()
            self.message = message
            self.link_index = link_index

        @property
        def control(self) -> "ChatMessage":
            """The message the link is in."""
            return self.message

    def __init__(
        self,
        text: str = "",
        *,
        resolve: Callable[[Link], str | None] | None = None,
        streaming: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._text = text
        self._resolve = resolve
        self.streaming = streaming
        self._parts: list[_Part] = []
        self._frozen = 0  # offset of the text not frozen into a part yet
        self._in_fence = False
        self._tail: _Part | None = None
        self._timer: Timer | None = None
        self._layout_width = -1
        self._lines: list[tuple[Line, int]] = []  # (line, link offset of its part)
        self._targets: dict[int, str | None] = {}
        self._links: list[Link] | None = None
        self._styles: dict[tuple[str, str], Style] = {}
        self._strips: dict[int, tuple[Line, Strip]] = {}  # y -> (the line painted, its strip)
        self._base: Style | None = None
        self.selected_link: int | None = None
        """Index in :attr:`links` of the link under the chat's link cursor, or None."""
        self._reparse(final=not streaming)

    # ------------------------------------------------------------------ text
    @property
    def text(self) -> str:
        """The answer so far."""
        return self._text

    @property
    def links(self) -> list[Link]:
        """The answer's links in reading order."""
        if self._links is None:
            self._links = [link for part in self._all_parts() for link in part.doc.links]
        return self._links

    def append(self, delta: str) -> None:
        """Add streamed text; the message re-renders at most every :data:`RENDER_INTERVAL` s."""
        if not delta:
            return
        self._text += delta
        if self._timer is None and self.is_mounted:
            self._timer = self.set_timer(RENDER_INTERVAL, self._flush, name="chat-message-render")

    def finish(self, text: str | None = None) -> None:
        """The answer is complete (``text`` replaces it when given): parse it once, exactly."""
        if text is not None:
            self._text = text
        self.streaming = False
        self._cancel_timer()
        self._reparse(final=True)
        self._changed()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _flush(self) -> None:
        self._timer = None
        self._reparse(final=False)
        self._changed()

    def _reparse(self, *, final: bool) -> None:
        if final:
            self._parts = [_Part(self._text, 0)] if self._text else []
            self._frozen, self._in_fence, self._tail = len(self._text), False, None
        else:
            split, fence = _frozen_split(self._text, self._frozen, self._in_fence)
            if split > self._frozen:
                offset = sum(len(p.doc.links) for p in self._parts)
                self._parts.append(_Part(self._text[self._frozen : split], offset))
                self._frozen, self._in_fence = split, fence
            tail = self._text[self._frozen :]
            offset = sum(len(p.doc.links) for p in self._parts)
            self._tail = _Part(tail, offset) if tail.strip() else None
        self._layout_width = -1
        self._targets = {}
        self._links = None

    def _all_parts(self) -> list[_Part]:
        return self._parts + ([self._tail] if self._tail is not None else [])

    def _changed(self) -> None:
        if not self.is_mounted:
            return
        before = self._height()
        width = self.content_size.width
        if width > 0:
            self._lay_out(width)
        # Only a change of height needs a new layout of the chat (and a repaint of the whole
        # screen); otherwise repaint this widget's lines.
        self.refresh(layout=self._height() != before or width <= 0)

    def _height(self) -> int:
        """Lines taken: while streaming, rounded up to :data:`STREAM_HEIGHT_STEP` (fewer re-layouts)."""
        lines = max(1, len(self._lines))
        if self.streaming:
            return -(-lines // STREAM_HEIGHT_STEP) * STREAM_HEIGHT_STEP
        return lines

    # ------------------------------------------------------------------ layout
    def _lay_out(self, width: int) -> None:
        if width == self._layout_width:
            return
        self._layout_width = width
        lines: list[tuple[Line, int]] = []
        blank = Line([], 0)
        for part in self._all_parts():
            if lines:
                lines.append((blank, 0))  # the blank line the split point followed
            lines.extend((line, part.link_offset) for line in part.lines(width))
        while lines and not lines[-1][0].segments and not lines[-1][0].fill:
            lines.pop()
        self._lines = lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The number of lines the answer takes at ``width``."""
        self._lay_out(max(width, 1))
        return self._height()

    def link_line(self, index: int) -> int | None:
        """The first line (within the message) showing link ``index``."""
        for y, (line, offset) in enumerate(self._lines):
            if any(link is not None and link + offset == index for _t, _r, link in line.segments):
                return y
        return None

    def link_target(self, index: int) -> str | None:
        """Where link ``index`` leads: its resolved path, its URL, or None when unresolved."""
        if index not in self._targets:
            link = self.links[index]
            if link.kind == "url":
                self._targets[index] = link.target
            else:
                self._targets[index] = self._resolve(link) if self._resolve else link.target
        return self._targets[index]

    def relink(self) -> None:
        """Resolve the links again (pages were created or deleted since they were painted)."""
        self._targets = {}
        self._strips.clear()
        self.refresh()

    def select_link(self, index: int | None) -> None:
        """Put the chat's link cursor on link ``index`` of this message (None: off)."""
        if index != self.selected_link:
            self.selected_link = index
            self._strips.clear()
            self.refresh()

    # ------------------------------------------------------------------ painting
    def notify_style_update(self) -> None:
        """The theme changed: drop cached styles and painted lines."""
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()
        self._base = None

    def _component_style(self, name: str) -> Style:
        # Take only what the component sets (a keyword keeps the code block's background),
        # with translucent colours blended over the background (as the page pane does).
        partial = self.get_component_rich_style(name, partial=True)
        full = self.get_component_rich_style(name)
        return Style(
            color=full.color if partial.color is not None else None,
            bgcolor=full.bgcolor if partial.bgcolor is not None else None,
            bold=partial.bold, dim=partial.dim, italic=partial.italic,
            underline=partial.underline, strike=partial.strike, reverse=partial.reverse,
        )

    def _role_style(self, roles: str, link_state: str) -> Style:
        key = (roles, link_state)
        style = self._styles.get(key)
        if style is None:
            style = Style()
            for role in roles.split():
                if role in _ATTRIBUTE_ROLES:
                    style += _ATTRIBUTE_ROLES[role]
                else:
                    name = f"chat-message--{_ROLE_ALIASES.get(role, role)}"
                    if name in self.COMPONENT_CLASSES:
                        style += self._component_style(name)
            if link_state:
                style += self._component_style(f"chat-message--{link_state}")
            self._styles[key] = style
        return style

    def render_line(self, y: int) -> Strip:
        """Paint line ``y`` of the answer (cached while the line and the width stay the same).

        While an answer streams, the screen is repainted many times a second and only
        the last lines change: the others come from the cache.
        """
        width = self.content_size.width
        if self._base is None:
            self._base = self.rich_style
        base = self._base
        if y >= len(self._lines) or width <= 0:
            return Strip.blank(max(width, 0), base)
        line, offset = self._lines[y]
        cached = self._strips.get(y)
        if cached is not None and cached[0] is line and cached[1].cell_length == width:
            return cached[1]
        segments = []
        for text, roles, link in line.segments:
            if not text:
                continue
            state = self._link_state(link + offset) if link is not None else ""
            segments.append(Segment(text, base + self._role_style(roles, state)))
        fill = base + self._role_style(line.fill, "") if line.fill else base
        strip = Strip(Segment.simplify(segments)).adjust_cell_length(width, fill)
        self._strips[y] = (line, strip)
        return strip

    def on_click(self, event: events.Click) -> None:
        """A click on a link posts :class:`LinkClicked`."""
        offset = event.get_content_offset(self)
        if offset is None or offset.y >= len(self._lines):
            return
        line, part_offset = self._lines[offset.y]
        link = line.link_at(offset.x)
        if link is not None:
            event.stop()
            self.post_message(self.LinkClicked(self, link + part_offset))

    def on_mount(self) -> None:
        # Deltas that arrived before the widget was mounted are shown now.
        if self.streaming and self._text:
            self._flush()

    def on_unmount(self) -> None:
        self._cancel_timer()
