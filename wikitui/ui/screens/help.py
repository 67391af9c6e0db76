"""The ``?`` help screen: every key binding, generated from the bindings themselves."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.app import App


def binding_groups() -> list[tuple[str, list[BindingType]]]:
    """The bindings of the workspace, grouped by where they apply."""
    # Imported here: the help screen is shown rarely and these pull in the whole UI.
    from wikitui.ui.app import WikituiApp
    from wikitui.ui.screens.main import MainScreen
    from wikitui.ui.screens.search import SearchScreen
    from wikitui.ui.widgets.links_panel import LinksPanel
    from wikitui.ui.widgets.page_tree import PageTree, PageTreeView
    from wikitui.ui.widgets.page_view import PageView
    from wikitui.ui.widgets.source_tree import SourceTree

    return [
        ("Everywhere", [*WikituiApp.BINDINGS, *MainScreen.BINDINGS]),
        ("Page", list(PageView.BINDINGS)),
        ("Sources", list(SourceTree.BINDINGS) + [Binding("enter", "", "Open the source read-only")]),
        ("Wiki tree", [*PageTreeView.BINDINGS, Binding("enter", "", "Open the page"), *PageTree.BINDINGS]),
        ("Links panel", [*LinksPanel.BINDINGS, Binding("enter", "", "Open the entry")]),
        ("Search", list(SearchScreen.BINDINGS)),
    ]


def binding_rows(app: "App", bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """(keys, description) rows: keys of one action merged, in first-seen order."""
    rows: dict[tuple[str, str], list[str]] = {}
    keymap: dict[str, str] = getattr(app, "_keymap", {}) or {}  # the user's remapped keys, by binding id
    for binding in Binding.make_bindings(bindings):
        if binding.system:
            continue
        description = binding.tooltip or binding.description or binding.action
        if binding.id and binding.id in keymap:  # show the key that really works, not the default
            key = " ".join(
                app.get_key_display(Binding(k.strip(), binding.action)) for k in keymap[binding.id].split(",")
            )
        else:
            key = app.get_key_display(binding)
        rows.setdefault((binding.action, description), [])
        if key not in rows[(binding.action, description)]:
            rows[(binding.action, description)].append(key)
    return [(" ".join(keys), desc) for (_action, desc), keys in rows.items()]


class HelpScreen(ModalScreen[None]):
    """Every binding of the workspace, grouped by pane.

    | Key | Action |
    | :- | :- |
    | escape / q / ? | Close. |
    """

    CSS_PATH = "help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as scroll:
            scroll.border_title = "Keys"
            scroll.border_subtitle = "esc closes · every action is also in ^p"
            yield Static(self._table(), id="help-table")

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", no_wrap=True, width=18)
        table.add_column()
        first = True
        for group, bindings in binding_groups():
            rows = binding_rows(self.app, bindings)
            if not rows:
                continue
            if not first:
                table.add_row("", "")
            first = False
            table.add_row(Text(""), Text(group, style="bold underline"))
            for keys, desc in rows:
                table.add_row(Text(keys, style="bold"), Text(desc))
        return table
