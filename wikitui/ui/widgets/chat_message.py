"""One answer of the agent in the chat: markdown painted line by line, streamed as it arrives.

The text is parsed by the page pane's own renderer (:mod:`wikitui.ui.markdown`), so
answers look like pages: headings, lists, tables, highlighted code and ``[[links]]``
styled resolved or unresolved, with the same link cursor
(:class:`~wikitui.ui.markdown.link_cursor.LinkCursor`).

While the answer streams in, only its tail is parsed again
(:class:`~wikitui.ui.markdown.stream.StreamedMarkdown`), and :meth:`ChatMessage.append`
re-renders at most every :data:`RENDER_INTERVAL` seconds however fast the deltas come.
:meth:`ChatMessage.finish` parses the whole answer once, as one document, so the final
rendering is exact.
"""

from __future__ import annotations

from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from wikitui.core.vault.links import Link
from wikitui.ui.markdown.line import Line
from wikitui.ui.markdown.link_cursor import LinkCursor, Resolver
from wikitui.ui.markdown.paint import ROLE_ALIASES, ROLES, LinePainter
from wikitui.ui.markdown.stream import StreamedMarkdown

#: Seconds between two re-renders while an answer streams in.
RENDER_INTERVAL = 0.05
#: While streaming, the height grows by this many lines at a time: a new layout of the
#: chat (and a repaint of the screen) every few lines instead of every line.
STREAM_HEIGHT_STEP = 4

#: The roles an answer styles: a page's, less its header's own (an answer has no frontmatter).
CHAT_ROLES = tuple(r for r in ROLES if r not in {"title", "meta-type", "meta-tag", "message-title", "heading-rule"})
#: Roles painted with another role's class: a title as a first heading, a message title as meta text.
CHAT_ALIASES = {**ROLE_ALIASES, "title": "heading-1", "message-title": "meta"}


class ChatMessage(Widget):
    """An answer of the agent, rendered as markdown with followable links.

    Args:
        text: The answer so far (more comes through :meth:`append`).
        resolve: Returns a link's target path, or None when it is unresolved (links
            are painted as resolved when no resolver is given).
        streaming: Whether more text is expected (the final parse waits for :meth:`finish`).

    The link cursor is driven by the chat log (:attr:`selected_link`); a click on a
    link posts :class:`ChatMessage.LinkClicked`.
    """

    COMPONENT_CLASSES = {f"chat-message--{role}" for role in CHAT_ROLES}
    """One class per role of the rendered lines (links, headings, code tokens, ...)."""

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
        & > .chat-message--mark { background: $warning-muted; }
        & > .chat-message--math { color: $text-secondary; }
        & > .chat-message--footnote { color: $text-accent; }
        & > .chat-message--tag { color: $text-accent; }
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
        resolve: Resolver | None = None,
        streaming: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.streamed = StreamedMarkdown(text)
        """The answer as parsed so far."""
        self.link_cursor = LinkCursor(resolve=resolve)
        """The answer's links, where each leads and which is selected."""
        self.streaming = streaming
        self._timer: Timer | None = None
        self._layout_width = -1
        self._lines: list[tuple[Line, int]] = []  # (line, link offset of its part)
        self._painter = LinePainter(self, "chat-message--", CHAT_ROLES, CHAT_ALIASES)
        self._base: Style | None = None
        self._reparse(final=not streaming)

    # ------------------------------------------------------------------ text
    @property
    def text(self) -> str:
        """The answer so far."""
        return self.streamed.text

    @property
    def links(self) -> list[Link]:
        """The answer's links in reading order."""
        return self.link_cursor.links

    @property
    def selected_link(self) -> int | None:
        """Index in :attr:`links` of the link under the chat's link cursor, or None."""
        return self.link_cursor.selected

    def append(self, delta: str) -> None:
        """Add streamed text; the message re-renders at most every :data:`RENDER_INTERVAL` s."""
        if not delta:
            return
        self.streamed.text += delta
        if self._timer is None and self.is_mounted:
            self._timer = self.set_timer(RENDER_INTERVAL, self._flush, name="chat-message-render")

    def finish(self, text: str | None = None) -> None:
        """The answer is complete (``text`` replaces it when given): parse it once, exactly."""
        if text is not None:
            self.streamed.text = text
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
        self.streamed.parse(final=final)
        self._layout_width = -1
        self.link_cursor.relink(self.streamed.links)

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
        if width != self._layout_width:
            self._layout_width = width
            self._lines = self.streamed.lines(width)

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
        return self.link_cursor.target(index)

    def relink(self) -> None:
        """Resolve the links again (pages were created or deleted since they were painted)."""
        self.link_cursor.relink()
        self._painter.clear()
        self.refresh()

    def select_link(self, index: int | None) -> None:
        """Put the chat's link cursor on link ``index`` of this message (None: off)."""
        if index != self.link_cursor.selected:
            self.link_cursor.check(index)
            self.link_cursor.selected = index
            self._painter.clear()
            self.refresh()

    # ------------------------------------------------------------------ painting
    def notify_style_update(self) -> None:
        """The theme changed: drop cached styles and painted lines."""
        super().notify_style_update()
        self._painter.clear_styles()
        self._base = None

    def render_line(self, y: int) -> Strip:
        """Paint line ``y`` of the answer (cached while the line and the width stay the same).

        While an answer streams, the screen is repainted many times a second and only
        the last lines change: the others come from the cache.
        """
        width = self.content_size.width
        if self._base is None:
            self._base = self.rich_style
        if y >= len(self._lines) or width <= 0:
            return Strip.blank(max(width, 0), self._base)
        line, offset = self._lines[y]
        state = self.link_cursor.state
        return self._painter.paint(y, line, width, self._base, (lambda link: state(link + offset)) if offset else state)

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
        if self.streaming and self.text:
            self._flush()

    def on_unmount(self) -> None:
        self._cancel_timer()
