"""A picture widget drawn with kitty's graphics protocol and Unicode placeholders, written through the driver.

textual-image's own kitty widget writes the picture's escape sequences to
``sys.__stdout__`` from whichever thread renders, where they can land in the middle
of one of Textual's frames. This widget draws the same way the page pane's embedded
pictures do (:class:`~wikitui.ui.markdown.kitty_pictures.KittyPicture`): the PNG is
encoded in a worker, sent through the app's driver once (ordered with the frames;
a new size only replaces its placement), shown as placeholder cells in the picture's id colour, and deleted when the
widget goes away. It takes the place of textual-image's widget wherever the one
drawing method (:mod:`wikitui.ui.picture_method`) is kitty: the source viewer and the
review's chart preview.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from wikitui.ui.markdown.kitty_pictures import KittyPicture, placeholder_row, png_base64
from wikitui.ui.terminal_pictures import cell_pixels, driver_writer

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage


class KittyPictureWidget(Widget):
    """A picture filling the widget's size (its shape kept), drawn by the terminal.

    Args:
        image: The decoded picture.
        classes: CSS classes.
    """

    DEFAULT_CSS = "KittyPictureWidget { width: auto; height: auto; }"

    @dataclass
    class Encoded(Message):
        """The worker encoded the picture, ready to send."""

        bubble: ClassVar[bool] = False
        picture: KittyPicture

    def __init__(self, image: PILImage, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.image = image
        self.picture: KittyPicture | None = None

    def on_mount(self) -> None:
        """Encode the picture as PNG off the UI thread; it shows when that is done."""
        image, cell, send = self.image, cell_pixels(), driver_writer(self.app)

        def encode() -> None:
            data = png_base64(image)
            self.post_message(self.Encoded(KittyPicture(data, image.size, cell, send)))  # post_message is thread-safe

        self.run_worker(encode, thread=True, group="kitty-picture", exclusive=True, exit_on_error=False)

    def on_kitty_picture_widget_encoded(self, message: Encoded) -> None:
        if not self.is_attached:
            return  # gone before it was ready: nothing was sent
        self.picture = message.picture
        self.refresh()

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the picture, as placeholder cells (blank until it is encoded)."""
        width, height = self.size
        if self.picture is None or width <= 0 or height <= 0:
            return Strip.blank(width)
        columns, rows = self.picture.cells(width, height, widest=width)
        if y >= rows:
            return Strip.blank(width)
        image_id = self.picture.place(columns, rows)
        style = Style(color=self.picture.colour())  # the colour names the picture
        return Strip([Segment(placeholder_row(y, columns, image_id), style)], columns).adjust_cell_length(width)

    def on_unmount(self) -> None:
        """Delete what the terminal keeps of the picture."""
        if self.picture is not None:
            self.picture.release()
