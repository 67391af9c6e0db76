"""The conversation: what you asked, the agent's answers, its tool calls, notes and changeset cards.

A :class:`ChatLog` is a scrolling column of small widgets. It stays scrolled to the
bottom while new content arrives (Textual's anchor), until you scroll up; sending a
message brings it back down. With the focus in the log, ``tab`` / ``shift+tab`` move a
link cursor over the links of the answers (the first ``tab`` takes the first link of
the last answer) and ``enter`` follows the selected one.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Literal

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.widgets import Static

from wikitui.core.vault.links import Link
from wikitui.core.vault.visible_text import has_unsafe, visible, visible_line
from wikitui.ui.markdown.wrap import breaks_between_characters, wrap_content
from wikitui.ui.widgets.changeset_card import ChangesetCard
from wikitui.ui.widgets.chat_message import ChatMessage

#: Kinds of notes, each with its own look (see ChatLog's DEFAULT_CSS).
NoteKind = Literal["note", "error", "success", "plan", "setup"]


def shown(text: str | Content) -> str | Content:
    """``text`` with control and invisible characters drawn visibly (a note may quote a page or the model).

    Styled text that holds one loses its styles: it is rare, and a terminal must never get it raw.
    """
    plain = text.plain if isinstance(text, Content) else text
    if not has_unsafe(plain):
        return text
    return Content(visible(plain)) if isinstance(text, Content) else visible(text)


class UserLine(Static):
    """What you sent, as you typed it."""

    DEFAULT_CSS = """
    UserLine {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $primary;
        background: $boost;
        color: $text;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(visible(text), markup=False)
        self.text = text
        self._cjk = breaks_between_characters(text)

    def _wrapped(self, width: int) -> list[Content]:
        """Chinese or Japanese text broken as the page pane breaks it (Textual breaks only at spaces)."""
        return [piece for line in visible(self.text).split("\n") for piece in wrap_content(Content(line), width) or [Content()]]

    def get_content_height(self, container, viewport, width: int) -> int:  # noqa: D102 - Textual's protocol
        if self._cjk and width > 0:
            return len(self._wrapped(width))
        return super().get_content_height(container, viewport, width)

    def render(self):  # noqa: D102 - Textual's protocol
        width = self.content_region.width
        if self._cjk and width > 0:
            return Content("\n").join(self._wrapped(width))
        return super().render()


class ToolLine(Static):
    """One quiet line for a tool call: ``› searched "x"``, then its outcome."""

    DEFAULT_CSS = """
    ToolLine {
        color: $text-muted;
        height: 1;
        padding: 0 0 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &.-failed { color: $text-warning; }
    }
    """

    def __init__(self, description: str) -> None:
        description = visible_line(description)
        super().__init__(Content.assemble(("› ", "$text-accent 60%"), description))
        self.description = description
        self.summary = ""

    def finish(self, summary: str, ok: bool) -> None:
        """Show how the call went (``3 hits``, or the error the model was told)."""
        self.summary = summary
        mark = ("✓ ", "$text-success 70%") if ok else ("✗ ", "$text-warning")
        parts: list[Any] = [mark, self.description]
        if summary:
            parts += [(" · ", "$text-muted"), visible_line(summary)]
        self.set_class(not ok, "-failed")
        self.update(Content.assemble(*parts))


class NoteLine(Static):
    """A line or two from wikitui itself: progress, results, errors and how to fix them."""

    DEFAULT_CSS = """
    NoteLine {
        height: auto;
        padding: 0 1;
        margin: 1 0 0 0;
        color: $text-muted;
        &.-note { margin: 0; }
        &.-error { border-left: outer $error; background: $error-muted; color: $text; }
        &.-success { border-left: outer $success; color: $text; }
        &.-plan { border-left: outer $accent; color: $text; }
        &.-setup { border: round $warning 60%; color: $text; padding: 0 1; }
    }
    """

    def __init__(self, text: str | Content, kind: NoteKind = "note") -> None:
        text = shown(text)
        super().__init__(text, markup=False, classes=f"-{kind}")
        self.kind = kind
        self.plain = text.plain if isinstance(text, Content) else text


class ChatLog(VerticalScroll, can_focus=True):
    """The conversation, newest at the bottom.

    | Key | Action |
    | :- | :- |
    | tab / shift+tab | Next / previous link in the agent's answers. |
    | enter | Open the selected link. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "next_link", "Next link", show=False),
        Binding("shift+tab", "previous_link", "Previous link", show=False),
        Binding("enter", "follow", "Open link"),
    ]

    DEFAULT_CSS = """
    ChatLog {
        height: 1fr;
        padding: 0 1 1 1;
        scrollbar-size-vertical: 1;
        background: $surface;
        & > ChatMessage { margin: 1 0 0 0; }
    }
    """

    class LinkChosen(Message):
        """The user followed a link of an answer.

        Attributes:
            link: The link.
            target: Its resolved path or URL (None when unresolved).
        """

        def __init__(self, log: "ChatLog", link: Link, target: str | None) -> None:
            super().__init__()
            self.log = log
            self.link = link
            self.target = target

        @property
        def control(self) -> "ChatLog":
            """The chat log."""
            return self.log

    def __init__(self, *, resolve: Callable[[Link], str | None] | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.resolve = resolve
        """Resolves an answer's link to a path (None: unresolved)."""
        self.cards: dict[str, ChangesetCard] = {}
        """The changeset cards shown, by changeset id."""
        self._cursor: tuple[ChatMessage, int] | None = None

    def on_mount(self) -> None:
        self.anchor()

    # ------------------------------------------------------------------ adding
    def _add(self, widget):
        self.mount(widget)
        return widget

    def add_user(self, text: str) -> UserLine:
        """Show what the user sent, and bring the log back to its bottom."""
        line = self._add(UserLine(text))
        self.anchor()
        return line

    def add_tool(self, description: str) -> ToolLine:
        """Show a tool call as one quiet line."""
        return self._add(ToolLine(description))

    def add_note(self, text: str | Content, kind: NoteKind = "note") -> NoteLine:
        """Show a note (``error``, ``success``, ``plan``, ``setup`` or a quiet ``note``)."""
        return self._add(NoteLine(text, kind))

    def start_answer(self, text: str = "", *, streaming: bool = True) -> ChatMessage:
        """Start an answer of the agent (text is added with :meth:`ChatMessage.append`)."""
        return self._add(ChatMessage(text, resolve=self.resolve, streaming=streaming))

    def add_card(self, changeset: Any, status: str = "pending") -> ChangesetCard:
        """Show a changeset card (replacing an older card of the same changeset)."""
        old = self.cards.pop(str(changeset.id), None)
        if old is not None:
            old.remove()
        card = self._add(ChangesetCard(changeset, status=status))  # type: ignore[arg-type]
        self.cards[str(changeset.id)] = card
        # The card fits its lines to its width, which it only knows after the first layout:
        # measure it again once it has one (else a line too many is reserved).
        self.call_after_refresh(card.refresh, layout=True)
        return card

    async def clear(self) -> None:
        """Remove everything."""
        self._cursor = None
        self.cards.clear()
        await self.remove_children()

    @property
    def answers(self) -> list[ChatMessage]:
        """The agent's answers, oldest first."""
        return [w for w in self.children if isinstance(w, ChatMessage)]

    # ------------------------------------------------------------------ link cursor
    def _stops(self) -> list[tuple[ChatMessage, int]]:
        return [(m, i) for m in self.answers for i in range(len(m.links))]

    @property
    def selected(self) -> tuple[ChatMessage, int] | None:
        """The answer and link index under the link cursor, or None."""
        if self._cursor is not None and self._cursor[0].parent is not self:
            self._cursor = None
        return self._cursor

    def _select(self, stop: tuple[ChatMessage, int] | None) -> None:
        old = self.selected
        if old is not None and (stop is None or old[0] is not stop[0]):
            old[0].select_link(None)
        self._cursor = stop
        if stop is None:
            return
        message, index = stop
        message.select_link(index)
        line = message.link_line(index) or 0
        y = message.virtual_region.y + line
        self.scroll_to_region(Region(0, y, 1, 1), animate=False, immediate=True, spacing=None)

    def action_next_link(self) -> None:
        """Select the next link (the first link of the last answer when none is selected)."""
        stops = self._stops()
        if not stops:
            self.screen.focus_next()
            return
        current = self.selected
        if current is None or current not in stops:
            last = next((m for m in reversed(self.answers) if m.links), None)
            self._select(next(s for s in stops if s[0] is last))
            return
        self._select(stops[(stops.index(current) + 1) % len(stops)])

    def action_previous_link(self) -> None:
        """Select the previous link (the last link of the last answer when none is selected)."""
        stops = self._stops()
        if not stops:
            self.screen.focus_previous()
            return
        current = self.selected
        if current is None or current not in stops:
            last = next((m for m in reversed(self.answers) if m.links), None)
            self._select([s for s in stops if s[0] is last][-1])
            return
        self._select(stops[(stops.index(current) - 1) % len(stops)])

    def action_follow(self) -> None:
        """Open the selected link."""
        current = self.selected
        if current is None:
            return
        message, index = current
        self.post_message(self.LinkChosen(self, message.links[index], message.link_target(index)))

    def on_chat_message_link_clicked(self, event: ChatMessage.LinkClicked) -> None:
        """A click on a link selects and follows it."""
        event.stop()
        self._select((event.message, event.link_index))
        self.action_follow()
