"""The picture of a chart in the review: the proposed PNG, under its spec's diff.

Shown when the file under review is a chart's picture or its sidecar
(``wiki/assets/x.png`` / ``x.chart.json``, DESIGN §9). Where the page pane's picture
widget is installed (``wikitui.ui.widgets.picture``: textual-image, kitty's protocol
or sixel where the terminal has them) the chart is drawn with it; else, and when
the terminal's drawing method is half blocks (:mod:`wikitui.ui.picture_method`: most
terminals, and ``WIKITUI_PICTURES=halfcell``, which the tests set so pictures are the
same on every terminal), with half-block characters: each cell shows two pixels
(``▀`` with the upper pixel as its colour and the lower one as its background).
``rerender`` draws the chart again from the sidecar's spec in a worker (matplotlib is
slow to import) and says whether it gives the same picture as the proposal.

The workers hand their results back as messages to the widget itself; whether the
terminal shows true colour is given at construction: nothing is looked up on the app.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from wikitui.ui.picture_method import method_in_use

_UPPER = "▀"
#: How much darker what is not white gets after scaling down (thin lines stay visible).
_CONTRAST = 3


def picture_widget(truecolor: bool = True):
    """(the textual-image widget class, ``fitted_cells``) of the page pane's picture module; None for half blocks.

    Half blocks of our own (thin lines kept visible) wherever the one choice of drawing
    method (:mod:`wikitui.ui.picture_method`) is half blocks.
    """
    if method_in_use(os.environ, truecolor=truecolor) == "halfcell":
        return None
    try:
        from wikitui.ui.widgets import picture  # the page pane's pictures, when that module is installed
    except ImportError:
        return None
    try:
        return picture.picture_widget_class(truecolor), picture.fitted_cells
    except Exception:  # noqa: BLE001 - textual-image missing or failing: half blocks still show the chart
        return None


def decode_png(png: bytes):
    """The PNG as a Pillow image (slow: call it in a worker).

    Raises:
        ValueError: the bytes are not a picture Pillow can read (or one too large to decode safely).
    """
    from PIL import Image

    try:
        with Image.open(io.BytesIO(png)) as opened:
            return opened.convert("RGB")
    except Exception as exc:  # noqa: BLE001 - not a picture, a truncated one, a decompression bomb
        raise ValueError(f"not a picture: {exc}") from None


def half_block_strips(png: bytes, width: int, height: int) -> list[Strip]:
    """A PNG drawn in ``width`` × ``height`` cells (aspect kept), one strip per row (slow: call it in a worker).

    Raises:
        ValueError: the bytes are not a picture Pillow can read (or one too large to decode safely).
    """
    from PIL import Image

    image = decode_png(png)
    w, h = image.size
    scale = min(width / w, 2 * height / h)
    cols, rows = max(1, int(w * scale)), max(2, int(h * scale) // 2 * 2)
    small = image.resize((cols, rows), Image.Resampling.BOX)
    # Averaging a cell's pixels washes thin lines and text out to near white: stretch what is not white.
    pixels = small.point(lambda v: max(0, 255 - (255 - v) * _CONTRAST)).load()
    strips = []
    for y in range(0, rows, 2):
        segments = []
        for x in range(cols):
            top, bottom = pixels[x, y], pixels[x, y + 1]
            segments.append(Segment(_UPPER, Style(color=f"rgb{top}", bgcolor=f"rgb{bottom}")))
        strips.append(Strip(Segment.simplify(segments), cols))
    return strips


class ChartPreview(Widget):
    """A chart's picture under the review's diff (hidden for every other file)."""

    DEFAULT_CSS = """
    ChartPreview {
        display: none;
        height: 22;
        border-top: hkey $panel-lighten-2;
    }
    ChartPreview.-shown {
        display: block;
    }
    """

    @dataclass
    class Drawn(Message):
        """A worker decoded and scaled ``png``: half-block ``strips``, or the ``image`` for the picture widget."""

        bubble: ClassVar[bool] = False
        png: bytes
        strips: list[Strip]
        image: Any
        rich: Any

    @dataclass
    class Rerendered(Message):
        """A worker drew the chart again from its spec: the picture, and whether it is the proposal's."""

        bubble: ClassVar[bool] = False
        png: bytes
        same: bool

    @dataclass
    class RerenderFailed(Message):
        """The spec could not be drawn: why, in one line."""

        bubble: ClassVar[bool] = False
        reason: str

    def __init__(self, *, truecolor: bool = True, id: str | None = None) -> None:
        """``truecolor``: the terminal shows true colour (the picture widget's choice of method depends on it)."""
        super().__init__(id=id)
        self._truecolor = truecolor
        self._png: bytes | None = None
        self._sidecar: str | None = None
        self._strips: list[Strip] = []
        self._note = ""

    def show_for(self, files: list[Any], index: int) -> None:
        """Show the chart of file ``index`` of a changeset (its picture, or its sidecar's picture)."""
        path = files[index].path if files else ""
        stem = path[: -len(".chart.json")] if path.endswith(".chart.json") else path[: -len(".png")]
        if not path.endswith((".png", ".chart.json")):
            self._set(None, None, "")
            return
        by_path = {f.path: f for f in files}
        png = by_path.get(stem + ".png")
        sidecar = by_path.get(stem + ".chart.json")
        data = png.new_text.encode("utf-8", "surrogateescape") if png is not None and png.binary else None
        self._set(data, sidecar.new_text if sidecar is not None else None,
                  f"{stem}.png · g: draw again from the spec" if sidecar is not None else f"{stem}.png")

    def _set(self, png: bytes | None, sidecar: str | None, note: str) -> None:
        self._png, self._sidecar, self._note = png, sidecar, note
        self.set_class(png is not None, "-shown")
        self.border_title = note
        self._draw()

    def _draw(self) -> None:
        """Decode and scale the picture in a worker; it shows when that is done."""
        self._strips = []
        self.remove_children()
        self.refresh()
        png, width, height = self._png, self.size.width, self.size.height
        if png is None or width <= 0 or height <= 0:
            return
        rich = picture_widget(self._truecolor)

        def scale() -> None:
            strips: list[Strip] = []
            image = None
            try:
                if rich is None:
                    strips = half_block_strips(png, width, height)
                else:
                    image = decode_png(png)
            except ValueError as exc:
                strips = [Strip([Segment(str(exc)[:width])])]
            self.post_message(self.Drawn(png, strips, image, rich))  # post_message is thread-safe

        self.run_worker(scale, thread=True, group="chart-draw", exclusive=True)

    def on_chart_preview_drawn(self, message: Drawn) -> None:
        png, image, rich = message.png, message.image, message.rich
        if png is not self._png:  # another picture is shown since
            return
        self._strips = message.strips
        if image is not None and rich is not None:
            widget_class, fitted_cells = rich
            try:
                widget = widget_class(image)
                widget.styles.width, widget.styles.height = fitted_cells(image.size, (self.size.width,
                                                                                     self.size.height))
                self.mount(widget)
            except Exception as exc:  # noqa: BLE001 - the terminal cannot draw it after all: half blocks
                self.log.warning(f"picture widget failed ({exc}); half blocks instead")
                self._strips = half_block_strips(png, self.size.width, self.size.height)
        self.refresh()

    def rerender(self) -> None:
        """Draw the picture again from the sidecar's spec (in a worker thread)."""
        if self._sidecar is None:
            self.notify("no chart spec to draw from here", severity="warning")
            return
        self.run_worker(self._rerender, thread=True, group="chart-rerender", exclusive=True)

    def _rerender(self) -> None:
        from wikitui.core.outputs.chart_spec import ChartSpecError
        from wikitui.core.outputs.charts import render_from_sidecar

        try:
            png = render_from_sidecar(self._sidecar or "")
        except ChartSpecError as exc:
            self.post_message(self.RerenderFailed(str(exc)[:300]))
            return
        self.post_message(self.Rerendered(png, png == self._png))

    def on_chart_preview_rerender_failed(self, message: RerenderFailed) -> None:
        self.notify(message.reason, severity="error")

    def on_chart_preview_rerendered(self, message: Rerendered) -> None:
        png, same = message.png, message.same
        self._png = png
        self._draw()
        self.notify("drawn again from the spec: " + ("the same picture" if same else "it differs from the proposal"),
                    severity="information" if same else "warning")

    def render_line(self, y: int) -> Strip:
        """One row of the picture (blank until it is scaled)."""
        return self._strips[y] if y < len(self._strips) else Strip.blank(self.size.width)

    def on_resize(self) -> None:
        """A new size: draw the picture again at it."""
        self._draw()
