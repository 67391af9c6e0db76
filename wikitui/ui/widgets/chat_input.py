"""The chat's input: several lines, a history, and completion of ``[[titles]]``, commands and raw files.

| Key | Action |
| :- | :- |
| enter | Send (or take the highlighted completion while the menu is open). |
| shift+enter, ctrl+j, alt+enter | New line. tmux and most terminals send shift+enter as enter; ctrl+j always arrives. |
| up / down | On the first / last line: the previous / next message sent. |
| tab | Take the highlighted completion. |
| esc | Close the completion menu (otherwise the chat pane's esc: cancel the turn). |

Completion (:func:`complete`) is pure: the pane hands in the page titles, the raw files
and the commands; the input shows the candidates in an ``OptionList`` it is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, cast

from textual import events, on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option
from textual.widgets.text_area import Document  # a TextArea's document (its DocumentBase lacks the index maps)

#: At most this many candidates in the menu.
MAX_CANDIDATES = 8

_WIKILINK_OPEN = re.compile(r"\[\[([^\[\]\n|#]*)$")
_COMMAND = re.compile(r"^/(\w*)$")
_INGEST_ARG = re.compile(r"^/ingest[ \t]+(\S*)$")


@dataclass
class Candidate:
    """One completion: what the menu shows and what replaces the typed prefix."""

    label: str
    insert: str
    detail: str = ""


@dataclass
class Completion:
    """Candidates for the text before the cursor; ``start`` is where the replaced part begins."""

    start: int
    candidates: list[Candidate] = field(default_factory=list)


def _rank(query: str, names: Iterable[str]) -> list[str]:
    """Names matching ``query`` (case-insensitive): prefixes first, then word starts, then substrings."""
    q = query.lower().strip()
    prefix, word, inner = [], [], []
    for name in names:
        low = name.lower()
        if low.startswith(q):
            prefix.append(name)
        elif q and (f" {q}" in low or f"/{q}" in low or f"-{q}" in low):
            word.append(name)
        elif q in low:
            inner.append(name)
    key = lambda n: (len(n), n.lower())  # noqa: E731 - a short sort key
    return sorted(prefix, key=key) + sorted(word, key=key) + sorted(inner, key=key)


def _names_a_batch(arg: str, raw_files: Callable[[], Iterable[str]]) -> bool:
    """Whether ``/ingest ARG`` is a batch typed in full: ``--new``, ``--resume``, a glob, or a folder of sources."""
    if arg in ("--new", "--resume") or any(c in arg for c in "*?["):
        return True
    return arg.endswith("/") and len(arg) > 1 and any(p.startswith(arg) for p in raw_files())


def complete(
    before: str,
    *,
    commands: Sequence[tuple[str, str]] = (),
    titles: Callable[[], Iterable[str]] = lambda: (),
    raw_files: Callable[[], Iterable[str]] = lambda: (),
) -> Completion | None:
    """What to offer for ``before`` (the input's text up to the cursor), or None.

    Args:
        before: The text before the cursor.
        commands: ``(name, help)`` of the slash commands.
        titles: Page titles (and aliases) for ``[[`` completion.
        raw_files: Vault-relative raw source paths for ``/ingest`` completion.
    """
    m = _WIKILINK_OPEN.search(before)
    if m:
        names = _rank(m.group(1), set(titles()))[:MAX_CANDIDATES]
        return Completion(m.start(1), [Candidate(n, n + "]]") for n in names]) if names else None
    m = _INGEST_ARG.match(before)
    if m:
        arg = m.group(1)
        if _names_a_batch(arg, raw_files):  # typed in full: enter sends it (the batch's pre-flight)
            return None
        paths = _rank(arg, raw_files())[:MAX_CANDIDATES]
        if not paths or m.group(1) in paths:  # nothing to offer, or typed in full already
            return None
        return Completion(m.start(1), [Candidate(p, p) for p in paths])
    m = _COMMAND.match(before)
    if m:
        found = [(n, h) for n, h in commands if n.startswith(m.group(1).lower())]
        if not found or (len(found) == 1 and found[0][0] == m.group(1)):
            return None
        return Completion(0, [Candidate("/" + n, f"/{n} ", h) for n, h in found])
    return None


class ChatInput(TextArea):
    """A multi-line chat input with a history and a completion menu.

    Args:
        menu: The OptionList the candidates are shown in (the pane places it).
        completer: ``completer(before)`` returns a :class:`Completion` or None.
        placeholder: Shown while the input is empty.
    """

    DEFAULT_CSS = """
    ChatInput {
        height: auto;
        min-height: 1;
        max-height: 8;
        border: none;
        border-left: outer $primary 30%;
        padding: 0 1;
        background: $boost;
        &:focus { border: none; border-left: outer $primary; background: $boost; }
        & .text-area--cursor-line { background: transparent; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # enter is taken in _on_key (TextArea would insert a newline before any binding ran);
        # declared here too so the help lists it. The others run as bindings.
        Binding("enter", "submit", "Send the message (or take the highlighted completion)", show=False),
        Binding("shift+enter,ctrl+j,alt+enter", "newline", "New line", show=False),
        Binding("up", "recall_or_move(-1)", "On the first line: the previous message sent", show=False),
        Binding("down", "recall_or_move(1)", "On the last line: the next message sent", show=False),
        Binding("shift+tab", "app.focus_previous", "Into the chat log (tab / enter: its links)", show=False),
        # TextArea's ctrl+a is "line start" (home still is): here it is the workspace's agent key, so a
        # second ctrl+a puts the page back over a raised agent (below 110 columns).
        Binding("ctrl+a", "toggle_agent", "Toggle agent (below 110 columns: back to the page)", show=False,
                id="toggle-agent"),
    ]

    class Submitted(Message):
        """The user sent the input's text.

        Attributes:
            text: What was sent (stripped of surrounding blank lines).
        """

        def __init__(self, chat_input: "ChatInput", text: str) -> None:
            super().__init__()
            self.chat_input = chat_input
            self.text = text

        @property
        def control(self) -> "ChatInput":
            """The input."""
            return self.chat_input

    def __init__(
        self,
        *,
        menu: OptionList | None = None,
        completer: Callable[[str], Completion | None] | None = None,
        placeholder: str = "",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id, soft_wrap=True, highlight_cursor_line=False,
                         placeholder=placeholder, tab_behavior="focus")
        self.menu = menu
        self.completer = completer
        self.sent: list[str] = []
        """Messages sent, oldest first."""
        self._history_pos: int | None = None  # index into history while browsing it
        self._draft = ""
        self._completion: Completion | None = None
        self._menu_for = ""  # the text before the cursor that the menu was computed for

    # ------------------------------------------------------------------ value
    @property
    def value(self) -> str:
        """The text typed (an alias of :attr:`text`, as on an ``Input``)."""
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.set_text(text)

    def set_text(self, text: str) -> None:
        """Replace the text and put the cursor at its end."""
        self.load_text(text)
        self.move_cursor(self.document.end)
        self._update_menu()

    # ------------------------------------------------------------------ keys
    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self._menu_for != self._before_cursor():
            # Keys typed quickly arrive before the Changed messages of the ones before them: a menu
            # computed for "/g" must not take the enter that follows "/go".
            self._update_menu()
        handled = self._menu_key(key) if self.menu_open else False
        if not handled and key == "enter":
            self.action_submit()
            handled = True
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def _menu_key(self, key: str) -> bool:
        menu = self.menu
        assert menu is not None
        if key in ("up", "down"):
            count = menu.option_count
            current = menu.highlighted if menu.highlighted is not None else -1
            menu.highlighted = (current + (1 if key == "down" else -1)) % count
            return True
        if key in ("tab", "enter"):
            self.accept_completion()
            return True
        if key == "escape":
            self.close_menu()
            return True
        return False

    def action_submit(self) -> None:
        """Send the text (ignored when blank)."""
        text = self.text.strip("\n")
        if not text.strip():
            return
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self._history_pos = None
        self._draft = ""
        self.load_text("")
        self.close_menu()
        self.post_message(self.Submitted(self, text))

    def action_toggle_agent(self) -> None:
        """The workspace's ``ctrl+a`` (raise or lower the agent, or hide it); elsewhere the line's start."""
        toggle = getattr(self.screen, "action_toggle_pane", None)
        if toggle is None:
            self.action_cursor_line_start()
            return
        toggle("agent")

    def action_newline(self) -> None:
        """Insert a line break (shift+enter; ctrl+j where the terminal sends shift+enter as enter)."""
        start, end = self.selection
        self._replace_via_keyboard("\n", start, end)

    def action_recall_or_move(self, step: int) -> None:
        """On the first (last) line, recall the previous (next) message sent; elsewhere move the cursor."""
        row = self.cursor_location[0]
        edge = 0 if step < 0 else self.document.line_count - 1
        if row == edge and (step > 0 or self.sent) and self._recall(step):
            return
        if step < 0:
            self.action_cursor_up()
        else:
            self.action_cursor_down()

    def _recall(self, step: int) -> bool:
        """Show the previous (``step`` -1) or next (+1) message sent; whether anything changed."""
        if self._history_pos is None:
            if step > 0:
                return False
            self._draft = self.text
            pos = len(self.sent) - 1
        else:
            pos = self._history_pos + step
        if pos < 0:
            return True  # at the oldest: stay
        if pos >= len(self.sent):
            self._history_pos = None
            self.set_text(self._draft)
            return True
        self._history_pos = pos
        self.set_text(self.sent[pos])
        if step < 0:
            self.move_cursor((0, len(self.document.get_line(0))))
        return True

    # ------------------------------------------------------------------ completion
    @property
    def menu_open(self) -> bool:
        """Whether the completion menu is shown."""
        return self.menu is not None and self.menu.display and self._completion is not None

    @on(TextArea.Changed)
    def _text_changed(self, event: TextArea.Changed) -> None:
        self._update_menu()

    def _before_cursor(self) -> str:
        return self.text[: cast(Document, self.document).get_index_from_location(self.cursor_location)]

    def _update_menu(self) -> None:
        if self.menu is None or self.completer is None:
            return
        before = self._before_cursor()
        self._menu_for = before
        completion = self.completer(before)
        self._completion = completion
        menu = self.menu
        if completion is None or not completion.candidates:
            self.close_menu()
            return
        # Content, not markup: a title may hold brackets.
        menu.set_options(
            Option(Content.assemble(c.label, (f"  {c.detail}" if c.detail else "", "$text-muted")), id=str(i))
            for i, c in enumerate(completion.candidates)
        )
        menu.highlighted = 0
        menu.display = True

    def close_menu(self) -> None:
        """Hide the completion menu."""
        self._completion = None
        if self.menu is not None:
            self.menu.display = False

    def accept_completion(self, index: int | None = None) -> None:
        """Replace the typed prefix with the highlighted (or ``index``-th) candidate."""
        completion = self._completion
        if completion is None or self.menu is None:
            return
        index = self.menu.highlighted if index is None else index
        if index is None or not 0 <= index < len(completion.candidates):
            return
        candidate = completion.candidates[index]
        row, col = self.cursor_location
        start = cast(Document, self.document).get_location_from_index(completion.start)
        end_col = col
        if candidate.insert.endswith("]]") and self.document.get_line(row)[col : col + 2] == "]]":
            end_col += 2  # the closing brackets were typed already
        self.replace(candidate.insert, start, (row, end_col))
        self.close_menu()
