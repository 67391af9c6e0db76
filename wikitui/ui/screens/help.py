"""The ``?`` help screen: every key, generated from the live bindings of every screen, so it cannot drift.

Each :class:`Place` (the workspace, the page, the trees, the agent, search, the
palette, the outline, the review...) names the widget and screen classes whose
bindings apply there. Their bindings are read live: from the mounted widget
when there is one, else from the class (Textual merges a class's bindings with
its bases'), and the user's ``[keymap]`` is applied, so the help shows the keys
that really work. Every binding a wikitui class declares is listed; of those a
place inherits from Textual's own widgets, the ones it relies on (``enter`` in a
tree) are listed under the description given here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.app import App
    from textual.css.query import DOMQuery
    from textual.dom import DOMNode
    from textual.widget import Widget


@dataclass(frozen=True)
class Place:
    """Where some keys apply, and whose bindings they are.

    Attributes:
        title: The heading in the help.
        classes: The widget, screen or app classes whose bindings apply there.
        inherited: Actions of bindings inherited from Textual's own widgets to list too,
            with the description shown (the key is read from the binding).
        all_inherited: List every binding, wikitui's or not (a Textual screen such as the palette).
    """

    title: str
    classes: tuple[type, ...]
    inherited: dict[str, str] = field(default_factory=dict)
    all_inherited: bool = False


def places(app_class: type, workspace_screen: type) -> list[Place]:
    """Every place with keys, in the order the help shows them.

    Args:
        app_class: The app's class (its bindings apply everywhere).
        workspace_screen: The workspace screen's class (its bindings apply everywhere too).
    """
    # Imported here: the help screen is shown rarely and these pull in the whole UI.
    # (The app and the workspace screen are given: they open this screen, and import it.)
    from textual.command import CommandPalette

    from wikitui.ui.screens.batch_review import BatchReviewScreen
    from wikitui.ui.screens.dialogs import ConfirmScreen, CreatePageScreen
    from wikitui.ui.screens.dated_page import DatedPageScreen
    from wikitui.ui.screens.evidence_source import EvidenceSourceScreen
    from wikitui.ui.screens.graph import GraphScreen
    from wikitui.ui.screens.history import HistoryScreen
    from wikitui.ui.screens.log_rows import LogScreen
    from wikitui.ui.screens.logged_diff import LoggedDiffScreen
    from wikitui.ui.screens.outline import OutlineScreen
    from wikitui.ui.screens.research import ResearchReviewScreen
    from wikitui.ui.screens.review import ConflictScreen, ReasonInput, ReviewScreen
    from wikitui.ui.screens.search import SearchScreen
    from wikitui.ui.screens.sync_conflicts import SyncConflictsScreen
    from wikitui.ui.widgets.chat_input import ChatInput
    from wikitui.ui.widgets.chat_log import ChatLog
    from wikitui.ui.widgets.chat_pane import ChatPane
    from wikitui.ui.widgets.links_panel import LinksPanel
    from wikitui.ui.widgets.page_tree import PageTree, PageTreeView
    from wikitui.ui.widgets.page_view import PageView
    from wikitui.ui.widgets.source_tree import SourceTree
    from textual.widgets import OptionList

    return [
        Place(
            "Everywhere",
            (app_class, workspace_screen),
            {
                "command_palette": "Command palette: go to a page by its title, run any command",
                "app.focus_next": "Next pane (on the page: next link)",
                "app.focus_previous": "Previous pane (on the page: previous link)",
            },
        ),
        Place("Page", (PageView,)),
        Place("Sources", (SourceTree,), {"select_cursor": "Open the source read-only"}),
        Place("Wiki tree", (PageTreeView, PageTree), {"select_cursor": "Open the page"}),
        Place("Links panel", (LinksPanel, OptionList), {"select": "Open the entry"}),
        Place("Agent (f5)", (ChatPane, ChatInput, ChatLog)),
        Place("Search (/)", (SearchScreen,)),
        Place("Outline (ctrl+o)", (OutlineScreen,)),
        Place("Command palette (ctrl+p)", (CommandPalette,), all_inherited=True),
        Place("Review (ctrl+r)", (ReviewScreen,)),
        Place("Review: writing a reason (e)", (ReasonInput,)),
        Place("Review: a conflict", (ConflictScreen,)),
        Place("Review: an evidence line's source (v, then enter)", (EvidenceSourceScreen,)),
        Place("Batch review (/review batch)", (BatchReviewScreen,)),
        Place("Web sources proposed (/research)", (ResearchReviewScreen,)),
        Place("A page's history (h)", (HistoryScreen,)),
        Place("A page on a day (d in its history)", (DatedPageScreen,)),
        Place("log.md's entries (open log.md)", (LogScreen,)),
        Place("A logged changeset's diff (enter on an entry)", (LoggedDiffScreen,)),
        Place("The graph (g)", (GraphScreen,)),
        Place("A sync's conflicts (Sync with upstream)", (SyncConflictsScreen,)),
        Place("A question (open a link in the browser?)", (ConfirmScreen,)),
        Place("Creating a missing page", (CreatePageScreen,)),
        Place("This help", (HelpScreen,)),
    ]


def help_screen(app: "App", workspace_screen: type, first: str | None = None) -> "HelpScreen":
    """The help over every place, the one titled ``first`` at the top (the screen it was opened from)."""
    every = places(type(app), workspace_screen)
    every.sort(key=lambda place: place.title != first)  # stable: the others keep their order
    return HelpScreen(every, keymap=dict(getattr(app, "keymap", None) or {}))


def _declared_by_wikitui(cls: type) -> set[tuple[str, str]]:
    """(action, description) of the bindings that wikitui classes in ``cls``'s ancestry declare."""
    declared: set[tuple[str, str]] = set()
    for base in cls.__mro__:
        if base.__module__.startswith("wikitui.") and "BINDINGS" in base.__dict__:
            for binding in Binding.make_bindings(base.__dict__["BINDINGS"]):
                declared.add((binding.action, binding.description))
    return declared


def _live_bindings(app: "App", cls: type, keymap: dict[str, str]) -> BindingsMap:
    """The bindings of ``cls`` as they work now: a mounted instance's (else the class's), ``keymap`` applied."""
    node: DOMNode | None = None
    if isinstance(app, cls):
        node = app
    else:
        for screen in app.screen_stack:
            if isinstance(screen, cls):
                node = screen
                break
            found: DOMQuery[Widget] = screen.query(cls)
            if found:
                node = found.first()
                break
    bindings = (node._bindings if node is not None else cls._merge_bindings()).copy()  # type: ignore[attr-defined]
    if keymap:
        bindings.apply_keymap(keymap)
    return bindings


def place_bindings(app: "App", place: Place, keymap: dict[str, str]) -> list[tuple[Binding, str]]:
    """(binding, description shown) for every key of ``place``, in declaration order."""
    out: list[tuple[Binding, str]] = []
    for cls in place.classes:
        ours = _declared_by_wikitui(cls)
        for _key, binding in _live_bindings(app, cls, keymap):
            if (binding.action, binding.description) in ours:
                description = binding.tooltip or binding.description or binding.action
            elif binding.action in place.inherited:
                description = place.inherited[binding.action]
            elif place.all_inherited and not binding.system:
                description = binding.description or binding.tooltip or binding.action
            else:
                continue
            out.append((binding, description))
    return out


def help_rows(app: "App", place: Place, keymap: dict[str, str]) -> list[tuple[str, str]]:
    """(keys, description) rows of ``place``: the keys of one action and description merged, in order."""
    rows: dict[tuple[str, str], list[str]] = {}
    for binding, description in place_bindings(app, place, keymap):
        key = app.get_key_display(binding)
        keys = rows.setdefault((binding.action, description), [])
        if key not in keys:
            keys.append(key)
    return [(" ".join(keys), description) for (_action, description), keys in rows.items()]


def help_table(app: "App", all_places: list[Place], keymap: dict[str, str]) -> Table:
    """The whole help as one table: a heading per place, then its keys (``keymap`` applied)."""
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", no_wrap=True, min_width=12)
    table.add_column()
    first = True
    for place in all_places:
        rows = help_rows(app, place, keymap)
        if not rows:
            continue
        if not first:
            table.add_row("", "")
        first = False
        table.add_row(Text(""), Text(place.title, style="bold underline"))
        for keys, description in rows:
            table.add_row(Text(keys, style="bold"), Text(description))
    return table


class HelpScreen(ModalScreen[None]):
    """Every binding of the workspace, grouped by where it applies.

    | Key | Action |
    | :- | :- |
    | escape / q / ? / f1 | Close. |
    """

    CSS_PATH = "help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close the help", show=False),
    ]

    def __init__(self, all_places: list[Place], *, keymap: dict[str, str] | None = None) -> None:
        """Args:
        all_places: The places to list (see :func:`places`).
        keymap: The user's remapped keys, as the app applied them.
        """
        super().__init__()
        self._places = all_places
        self._keymap = keymap or {}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as scroll:
            scroll.border_title = "Keys"
            scroll.border_subtitle = "esc closes · ↑↓ scroll · every action is also in ^p"
            yield Static(help_table(self.app, self._places, self._keymap), id="help-table")
