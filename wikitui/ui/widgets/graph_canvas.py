"""The graph view's canvas: a :mod:`~wikitui.ui.widgets.graph_raster` picture, styled from the theme.

It is handed a graph and its layout (:meth:`GraphCanvas.show`), draws the base picture
for its size once, and on every selection change only the selection's overlay. Each
role of a cell is a component class (``graph-canvas--edge``, ``graph-canvas--node-orphan``)
whose colours are theme variables (the screen's stylesheet sets them: edges in
``$wikitui-link``, unresolved targets in ``$wikitui-link-unresolved``).
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from wikitui.core.vault.graph_model import GraphModel
from wikitui.core.vault.graph_moves import Direction, step
from wikitui.ui.widgets.graph_raster import Picture, draw_base, draw_selection

#: Every role a cell can have.
ROLES = (
    "edge", "edge-unresolved", "edge-selected",
    "node", "node-centre", "node-unresolved", "node-orphan", "node-file", "node-selected",
    "label", "label-centre", "label-unresolved", "label-muted", "label-selected", "cluster",
)


class GraphCanvas(Widget, can_focus=True):
    """A graph drawn with braille edges and labelled nodes; one node selected."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"graph-canvas--{role}" for role in ROLES}

    DEFAULT_CSS = """
    GraphCanvas {
        width: 1fr;
        height: 1fr;
    }
    """

    class Selected(Message):
        """The selection moved to ``node`` (an id of the model)."""

        def __init__(self, node: str) -> None:
            super().__init__()
            self.node = node

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.model: GraphModel | None = None
        self.positions: dict[str, tuple[float, float]] = {}
        self.boxes: dict[str, tuple[float, float, float, float]] | None = None
        #: The selected node's id.
        self.selected: str | None = None
        self._base: Picture | None = None
        self._picture: Picture | None = None
        self._styles: dict[str, Style] = {}
        # The picture's rows as strips, made on first paint after each redraw.
        self._strips: list[Strip | None] = []

    # ------------------------------------------------------------------ state
    def show(self, model: GraphModel, positions: dict[str, tuple[float, float]], *, selected: str | None = None,
             boxes: dict[str, tuple[float, float, float, float]] | None = None) -> None:
        """Draw ``model`` at ``positions`` (unit square); select ``selected`` (else the centre, else the first)."""
        self.model, self.positions, self.boxes = model, positions, boxes
        if selected not in model.nodes:
            selected = model.centre if model.centre in model.nodes else next(iter(model.nodes), None)
        self.selected = selected
        self._base = None
        self._redraw()

    @property
    def picture(self) -> Picture | None:
        """What the canvas shows now (None before a graph is shown)."""
        return self._picture

    def select(self, node: str) -> None:
        """Select ``node`` and say so."""
        if self.model is None or node not in self.model.nodes or node == self.selected:
            return
        self.selected = node
        self._redraw()
        self.post_message(self.Selected(node))

    def move(self, direction: Direction) -> bool:
        """Select the node an edge leads to in ``direction`` (else the nearest that way); False when none."""
        model, pic = self.model, self._picture
        if model is None or pic is None or self.selected is None:
            return False
        target = step(pic.dots, self.selected, direction, model.neighbours(self.selected), others=pic.dots)
        if target is None:
            return False
        self.select(target)
        return True

    # ---------------------------------------------------------------- drawing
    def _redraw(self) -> None:
        model = self.model
        if model is None or not self.size.width or not self.size.height:
            self._picture = None
            self.refresh()
            return
        if self._base is None or (self._base.width, self._base.height) != (self.size.width, self.size.height):
            self._base = draw_base(model, self.positions, self.size.width, self.size.height, boxes=self.boxes)
        self._picture = draw_selection(self._base, model, self.selected)
        self._strips = [None] * self._picture.height
        self.refresh()

    def on_resize(self) -> None:
        self._redraw()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()  # a new theme: the roles' styles are read again
        self._strips = [None] * len(self._strips)

    def _style(self, role: str) -> Style:
        """The widget's own style with the role's on top."""
        style = self._styles.get(role)
        if style is None:
            style = self.rich_style
            if role:
                style += self.get_component_rich_style(f"graph-canvas--{role}", partial=True)
            self._styles[role] = style
        return style

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return container.height

    def render_line(self, y: int) -> Strip:
        pic = self._picture
        if pic is None or y >= pic.height:
            return Strip.blank(self.size.width, self._style(""))
        strip = self._strips[y]
        if strip is None:
            strip = self._strips[y] = self._row(pic, y)
        return strip

    def _row(self, pic: Picture, y: int) -> Strip:
        """Row ``y`` of the picture: a segment per run of cells of one role."""
        chars, roles = pic.chars[y], pic.roles[y]
        segments: list[Segment] = []
        run: list[str] = []
        role = roles[0] if roles else ""
        for ch, r in zip(chars, roles):
            if r != role and run:
                segments.append(Segment("".join(run), self._style(role)))
                run = []
            role = r
            run.append(ch)
        if run:
            segments.append(Segment("".join(run), self._style(role)))
        return Strip(segments, pic.width).adjust_cell_length(self.size.width, self._style(""))
