"""Pictures in the terminal: an image source in the page pane, drawn with textual-image.

The drawing method is the one :mod:`wikitui.ui.picture_method` chooses from the
environment (kitty's graphics protocol, sixel or coloured half blocks ``▀``), the same
choice the page pane's embedded pictures use; ``WIKITUI_PICTURES`` forces one, and
``auto`` lets textual-image ask the terminal (see :func:`prepare_terminal`, called
by the launcher: why it does not ask by default). The tests force half blocks so
snapshots are the same on every terminal.

A picture is decoded and scaled down off the UI thread (:func:`load_picture`, in a
worker): Pillow refuses decompression bombs, and nothing larger than
:data:`MAX_SIDE` pixels a side reaches the widget. When it cannot be drawn, the
caption (its alt text, or its description) stands in its place.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from wikitui.ui.picture_method import choose_method, method_in_use
from wikitui.ui.terminal_pictures import app_truecolor, import_quietly

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

#: Longest side, in pixels, of a picture handed to the widget (a terminal shows far fewer).
MAX_SIDE = 1024


def prepare_terminal() -> None:
    """Load textual-image before the app starts, without letting it question the terminal.

    textual-image asks the terminal what it can draw and how large its cells are by
    writing escape sequences and reading the answers from stdin, which swallows the
    keys typed meanwhile (a fast typist's ``/rabbit`` right after launch). So by
    default it is loaded as if stdout were not a terminal (it asks nothing), the cell
    size is read with an ioctl (no keys read), and :func:`picture_widget_class` draws
    with what :func:`~wikitui.ui.picture_method.choose_method` finds in the environment.
    ``WIKITUI_PICTURES=auto`` lets it ask, at that price.
    """
    try:
        if choose_method(os.environ) == "auto":
            import textual_image.widget  # noqa: F401 - importing it queries the terminal once
        else:
            import_quietly()
    except Exception:  # noqa: BLE001 - no pictures is better than no app
        pass


def picture_widget_class(truecolor: bool = True):
    """The textual-image widget class for this terminal (or the one ``WIKITUI_PICTURES`` names).

    Args:
        truecolor: Whether the app writes 24-bit colours (kitty's placeholders need them).
    """
    method = method_in_use(os.environ, truecolor=truecolor)  # under auto: what textual-image found at launch
    if method == "kitty":  # our own: its escape sequences go through the driver, never mid-frame
        from wikitui.ui.widgets.kitty_picture import KittyPictureWidget

        return KittyPictureWidget
    if choose_method(os.environ) == "auto":
        from textual_image import widget

        return widget.Image
    widget = import_quietly()
    return {"halfcell": widget.HalfcellImage, "unicode": widget.UnicodeImage,
            "sixel": widget.SixelImage}.get(method, widget.HalfcellImage)


def load_picture(path: Path | str, max_side: int = MAX_SIDE) -> PILImage:
    """The picture at ``path``, decoded and scaled to at most ``max_side`` pixels a side (call it in a worker).

    Raises:
        OSError, ValueError, PIL.Image.DecompressionBombError: not a picture Pillow can read safely.
    """
    from PIL import Image

    img: Image.Image  # (convert below makes a plain Image of the opened file)
    with Image.open(path) as img:
        img.draft("RGB", (max_side, max_side))  # JPEG: decode at a reduced scale (cheap for huge photos)
        img.thumbnail((max_side, max_side))
        if img.mode not in ("RGB", "RGBA"):
            img = img.convert("RGBA")
        img.load()
        return img.copy()


class PictureView(Vertical, can_focus=True):
    """A picture with its caption below; the caption alone when the picture cannot be drawn.

    Args:
        picture: The decoded picture (None: show only the caption).
        caption: The alt text or a description (format, size).
    """

    DEFAULT_CSS = """
    PictureView { height: 1fr; border: round $foreground 20%; border-title-color: $text-muted;
                  border-title-style: bold; border-subtitle-color: $text-muted; background: $surface; }
    PictureView:focus { border: round $primary; border-title-color: $primary; }
    PictureView > .picture-caption { color: $text-muted; height: auto; margin-top: 1; }
    """
    #: Rows kept for the caption below the picture.
    CAPTION_ROWS = 3

    def __init__(self, picture: PILImage | None, caption: str, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.picture = picture
        self.caption = caption

    def compose(self) -> ComposeResult:
        if self.picture is not None:
            try:
                yield picture_widget_class(app_truecolor(self.app))(self.picture, classes="picture")
            except Exception:  # noqa: BLE001 - textual-image missing or failing: the caption stands in
                pass
        yield Static(self.caption, classes="picture-caption", markup=False)

    def on_resize(self) -> None:
        """Fit the picture in the pane, keeping its shape (never larger than its own size)."""
        self._fit()

    def on_mount(self) -> None:
        """Size the picture once the pane has a size."""
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        pictures = self.query(".picture")
        if not pictures or self.picture is None:
            return
        width, height = fitted_cells(self.picture.size, (self.content_size.width,
                                                         self.content_size.height - self.CAPTION_ROWS))
        for widget in pictures:
            widget.styles.width, widget.styles.height = width, height


def fitted_cells(pixels: tuple[int, int], room: tuple[int, int]) -> tuple[int, int]:
    """(columns, rows) that show a picture of ``pixels`` whole in ``room`` cells, in its shape, not enlarged."""
    from wikitui.ui.terminal_pictures import cell_size

    cell_w, cell_h = cell_size()
    cols, rows = pixels[0] / cell_w, pixels[1] / cell_h
    scale = min(1.0, max(1, room[0]) / max(cols, 1e-9), max(1, room[1]) / max(rows, 1e-9))
    return max(1, int(cols * scale)), max(1, int(rows * scale))
