"""The graph view (``g`` from anywhere in the workspace, or the palette; DESIGN §15).

The local graph of the open page: the page in the middle, its links and backlinks
around it (depth 1), their links too on ``+`` (up to 3 rings), drawn in braille with a
networkx layout (:mod:`wikitui.core.vault.graph_layout`). ``w`` switches to the whole
wiki, clustered by folder (else by type), its hubs and clusters labelled; its cluster
layouts are computed in the background once the local graph is shown, and kept in
``.wikitui/cache/`` so it opens at once the next time. Nodes grow
with their link count; an unresolved target is hollow (○) in the unresolved-link
colour, an orphan small (◦) in the warning colour. The model and layout are computed
in a thread worker; the screen only draws.

| key | action |
| --- | --- |
| arrows | to the next node along an edge that way (else the nearest node that way) |
| `enter` | open the node's page (an unresolved target says it has no page) |
| `+` / `-` | one ring more / fewer |
| `f` | filter by type or tag: `concept`, `type:concept`, `#ml`, `tag:ml`; empty shows all |
| `w` | the whole wiki / the page's local graph |
| `esc` | close |
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Input, Label

from wikitui.core.vault.graph_layout import (
    MEMO_NAME,
    LayoutMemo,
    WholeLayout,
    layout_local,
    layout_whole,
    read_memo,
    write_memo,
)
from wikitui.core.vault.graph_model import MAX_DEPTH, GraphFilter, GraphIndex, GraphModel, local_graph, whole_graph
from wikitui.core.vault.visible_text import visible_line
from wikitui.core.base.words import plural
from wikitui.ui.widgets.graph_canvas import GraphCanvas

if TYPE_CHECKING:
    from wikitui.core.vault.graph_moves import Direction
    from wikitui.core.workspace import Workspace


class GraphScreen(Screen[str | None]):
    """A local or whole-wiki graph; dismissed with the path to open (None: nothing).

    Args:
        workspace: The open vault (its link graph must be loaded).
        centre: The page (or file) in the middle; None opens the whole wiki.
        whole: Open the whole-wiki view (``w`` switches).
        memo: The whole-wiki cluster layouts already computed this session (shared between openings).
    """

    CSS_PATH = "graph.tcss"
    AUTO_FOCUS = "#graph-canvas"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("enter", "open_node", "Open"),
        Binding("left", "move('left')", "←", show=False),
        Binding("right", "move('right')", "→", show=False),
        Binding("up", "move('up')", "↑", show=False),
        Binding("down", "move('down')", "↓", show=False),
        Binding("plus", "depth(1)", "more"),
        Binding("minus", "depth(-1)", "fewer"),
        Binding("f", "filter", "Filter"),
        Binding("w", "toggle_whole", "Whole/local"),
    ]

    def __init__(self, workspace: Workspace, centre: str | None, *, whole: bool = False,
                 memo: LayoutMemo | None = None) -> None:
        super().__init__()
        self.workspace = workspace
        self.centre = centre
        #: Whether the whole wiki is shown (else the centre's local graph).
        self.whole = whole or centre is None
        #: The local graph's depth.
        self.depth = 1
        self.keep = GraphFilter()
        #: What is shown (None while it is computed).
        self.model: GraphModel | None = None
        #: Seconds the last model and layout took (what the status line and the bench report).
        self.layout_seconds = 0.0
        self._memo = memo
        self._memo_lock = threading.Lock()
        # Whether the whole wiki's layout is (to be) started in the background: once a session, when none is known.
        self._prepared = memo is not None
        self._index: GraphIndex | None = None

    @property
    def memo(self) -> LayoutMemo | None:
        """The whole-wiki cluster layouts (read or computed here), for the next opening."""
        return self._memo

    def compose(self) -> ComposeResult:
        yield Label("Laying out the graph…", id="graph-title")
        yield GraphCanvas(id="graph-canvas")
        yield Label("", id="graph-status")
        yield Input(placeholder="filter: concept, type:concept, #tag, tag:x; empty: all; enter applies",
                    id="graph-filter")
        yield Footer()

    def on_mount(self) -> None:
        # After the first frame ("Laying out the graph…"): the layout then has the CPU to itself.
        self.call_after_refresh(self._build)

    # ---------------------------------------------------------------- building
    def _build(self) -> None:
        """Compute what to show off the UI thread (the last request wins)."""
        self._compute(self._aspect())

    @work(thread=True, exclusive=True, group="graph-build")
    def _compute(self, aspect: float) -> None:
        try:
            self._lay_out(aspect)
        except Exception as exc:  # a layout that fails says so; it must not take the workspace down
            self.app.call_from_thread(self._title, f"Cannot draw the graph: {visible_line(str(exc))}")

    def _lay_out(self, aspect: float) -> None:
        """Build the model and its layout (in the worker's thread), then hand them to the UI thread."""
        started = time.perf_counter()
        graph = self.workspace.graph
        if graph is None:
            self.app.call_from_thread(self._title, "The link graph is still loading: try again in a moment.")
            return
        index = self._index
        for _attempt in range(3):
            if index is not None:
                break
            try:
                index = self._index = GraphIndex(graph)
            except RuntimeError:  # the UI thread changed the graph meanwhile (a file saved): read it again
                continue
        if index is None:
            self.app.call_from_thread(self._title, "The wiki is changing: press w twice to draw it again.")
            return
        boxes = None
        if self.whole:
            model = whole_graph(index, keep=self.keep)
            layout = self._whole_layout(model, aspect, keep=not self.keep.active)
            positions, boxes = layout.positions, layout.boxes
        else:
            assert self.centre is not None
            model = local_graph(index, self.centre, depth=self.depth, keep=self.keep)
            positions = layout_local(model)
        seconds = time.perf_counter() - started
        self.app.call_from_thread(self._shown, model, positions, boxes, seconds)

    def _whole_layout(self, model: GraphModel, aspect: float, *, keep: bool) -> WholeLayout:
        """The whole wiki's layout through the shared memo (one thread at a time); ``keep``: write it to disk."""
        with self._memo_lock:
            memo = self._memo
            if memo is None:
                memo = self._memo = read_memo(self._memo_path)
            laid = memo.laid_out
            layout = layout_whole(model, memo=memo, aspect=aspect)
            if keep and memo.laid_out != laid:
                write_memo(self._memo_path, memo)
        return layout

    @work(thread=True, group="graph-prepare")
    def _prepare_whole(self, aspect: float) -> None:
        """Lay out the whole wiki meanwhile (networkx is loaded now), so that ``w`` finds it ready.

        Kept layouts are read from disk, so this costs little but the first time in a vault.
        """
        index = self._index
        if index is None:
            return
        try:
            self._whole_layout(whole_graph(index), aspect, keep=True)
        except Exception:  # the whole view, when asked for, lays itself out and says what went wrong
            return

    @property
    def _memo_path(self) -> Path:
        return self.workspace.vault.state_dir / "cache" / MEMO_NAME

    def _aspect(self) -> float:
        """The canvas's width over its height, in braille dots (square)."""
        size = self.query_one(GraphCanvas).size
        return (size.width * 2) / max(1, size.height * 4) if size.width and size.height else 1.5

    def _shown(self, model: GraphModel, positions: dict[str, tuple[float, float]],
               boxes: dict[str, tuple[float, float, float, float]] | None, seconds: float) -> None:
        canvas = self.query_one(GraphCanvas)
        keep = canvas.selected if self.model is not None else self.centre
        self.model, self.depth, self.layout_seconds = model, model.depth or self.depth, seconds
        canvas.show(model, positions, selected=keep, boxes=boxes)
        self._describe()
        self._say_selected()
        if not self.whole and not self._prepared:
            self._prepared = True
            self._prepare_whole(self._aspect())

    def _title(self, text: str) -> None:
        self.query_one("#graph-title", Label).update(text)

    def _describe(self) -> None:
        model = self.model
        if model is None:
            return
        pages = sum(1 for n in model.nodes.values() if n.kind == "page")
        parts = []
        if self.whole:
            parts.append(f"Whole wiki · {plural(pages, 'page')} in {plural(len(model.clusters()), 'cluster')}")
        else:
            assert model.centre is not None
            title = visible_line(model.nodes[model.centre].label)
            parts.append(f"Graph · {title} · depth {model.depth}")
            parts.append(plural(len(model.nodes) - 1, "neighbour"))
        parts.append(plural(len(model.edges), "link"))
        if self.keep.active:
            parts.append(f"filter {self.keep.describe()} ({model.hidden} hidden)")
        self._title(" · ".join(parts))

    def _say_selected(self) -> None:
        model, node_id = self.model, self.query_one(GraphCanvas).selected
        status = self.query_one("#graph-status", Label)
        if model is None or node_id is None:
            status.update("")
            return
        node = model.nodes[node_id]
        parts = [visible_line(node.label)]
        if node.kind == "unresolved":
            parts.append("unresolved: no page yet")
        else:
            if node.type:
                parts.append(node.type)
            parts.append(plural(node.degree, "link"))
            if node.orphan:
                parts.append("orphan: no page links here")
            parts.append(visible_line(node_id))
        status.update(" · ".join(parts))

    @on(GraphCanvas.Selected)
    def _selected(self, message: GraphCanvas.Selected) -> None:
        message.stop()
        self._say_selected()

    # ------------------------------------------------------------------ keys
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Letters type in the filter while it has the focus."""
        if isinstance(self.focused, Input) and action != "close":
            return False
        if action == "depth" and self.whole:
            return None
        return True

    def action_close(self) -> None:
        """Close the filter if it is open, else the graph."""
        field = self.query_one("#graph-filter", Input)
        if field.has_class("shown"):
            field.remove_class("shown")
            self.query_one(GraphCanvas).focus()
            return
        self.dismiss(None)

    def action_move(self, direction: Direction) -> None:
        """Go along an edge in ``direction``."""
        self.query_one(GraphCanvas).move(direction)

    def action_open_node(self) -> None:
        """Open the selected node's page (the graph closes)."""
        model, node_id = self.model, self.query_one(GraphCanvas).selected
        if model is None or node_id is None:
            return
        if model.nodes[node_id].kind == "unresolved":
            self.notify(f"[[{visible_line(model.nodes[node_id].label)}]] has no page yet: follow the link from a "
                        "page that has it to create one.", severity="warning", markup=False)
            return
        self.dismiss(node_id)

    def action_depth(self, change: int) -> None:
        """One ring more or fewer around the centre."""
        depth = max(1, min(MAX_DEPTH, self.depth + change))
        if self.whole or depth == self.depth:
            self.notify(f"The depth goes from 1 to {MAX_DEPTH}.", timeout=2)
            return
        self.depth = depth
        self._build()

    def action_filter(self) -> None:
        """Ask for the types or tags to keep."""
        field = self.query_one("#graph-filter", Input)
        field.value = self.keep.describe()
        field.add_class("shown")
        field.focus()

    @on(Input.Submitted, "#graph-filter")
    def _filter_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        message.input.remove_class("shown")
        self.query_one(GraphCanvas).focus()
        self.keep = GraphFilter.parse(message.value)
        self._build()

    def action_toggle_whole(self) -> None:
        """The whole wiki, or back to the page's local graph."""
        if self.whole and self.centre is None:
            self.notify("No page was open: the whole wiki is all there is to show.", timeout=2)
            return
        self.whole = not self.whole
        self.model = None
        self._title("Laying out the graph…")
        self._build()
