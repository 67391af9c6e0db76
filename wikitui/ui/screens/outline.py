"""The outline (``ctrl+o``): the page's headings, indented by level; ``enter`` jumps to one.

Typing narrows the list (every word must occur in the heading, any order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from wikitui.core.vault.visible_text import visible_line
from wikitui.core.base.words import plural

if TYPE_CHECKING:
    from wikitui.core.vault.page import Heading


class OutlineScreen(ModalScreen["Heading | None"]):
    """The headings of one page; dismisses with the chosen heading.

    | Key | Action |
    | :- | :- |
    | up / down, pageup / pagedown | Move through the headings. |
    | enter | Jump to the highlighted heading. |
    | escape | Close. |
    """

    CSS_PATH = "outline.tcss"
    AUTO_FOCUS = "#outline-filter"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close the outline"),
        Binding("down", "move(1)", "Next heading", show=False),
        Binding("up", "move(-1)", "Previous heading", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
    ]

    def __init__(self, title: str, headings: "list[Heading]") -> None:
        """Args:
        title: The page's title (the box's title).
        headings: Its headings, in order.
        """
        super().__init__()
        self._title = title
        self._headings = list(headings)
        self._shown: list[Heading] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="outline") as box:
            box.border_title = f"Outline · {visible_line(self._title)}"
            box.border_subtitle = f"{plural(len(self._headings), 'heading')} · enter jumps · esc closes"
            yield Input(placeholder="filter headings", id="outline-filter")
            yield OptionList(id="outline-list")

    def on_mount(self) -> None:
        """List every heading."""
        self._fill("")

    def _fill(self, query: str) -> None:
        words = query.casefold().split()
        self._shown = [h for h in self._headings if all(w in h.text.casefold() for w in words)]
        top = min((h.level for h in self._headings), default=1)
        options = []
        for heading in self._shown:
            label = Text("  " * (heading.level - top))
            label.append(visible_line(heading.text) or "(untitled)", style="bold" if heading.level == top else "")
            label.append(f"  :{heading.line}", style="dim")
            options.append(Option(label))
        listing = self.query_one(OptionList)
        listing.set_options(options)
        if options:
            listing.highlighted = 0

    @on(Input.Changed, "#outline-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def action_move(self, step: int) -> None:
        """Move the highlight (the filter keeps the focus)."""
        listing = self.query_one(OptionList)
        if listing.option_count:
            current = listing.highlighted if listing.highlighted is not None else -1
            listing.highlighted = max(0, min(listing.option_count - 1, current + step))

    @on(Input.Submitted, "#outline-filter")
    def _submitted(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is not None and index < len(self._shown):
            self.dismiss(self._shown[index])

    @on(OptionList.OptionSelected, "#outline-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < len(self._shown):
            self.dismiss(self._shown[event.option_index])

    def action_close(self) -> None:
        """Close without jumping."""
        self.dismiss(None)
