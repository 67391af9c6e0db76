"""Embedded pictures drawn as sixel in the line-painted, scrolling page.

A sixel image is not made of cells: it is written at the cursor and covers the
cells under it until they are written again. So a picture keeps its rows in the
page (:class:`SixelRow` lines, which are its half blocks), and how a row is painted
depends on where the picture is on the screen (:func:`paint_row`):

- All of its rows in view, the page's screen active and nothing over it: its rows
  are blank cells, and once the frame that painted its last row has gone to the
  terminal, the image is written through the app's driver at the picture's top-left
  screen cell (cursor saved and restored around it). Not inside the strip: Textual's
  line filters and its cutting of lines at the pane's edges drop zero-width control
  segments at a strip's end. The write is skipped if the page scrolled or changed
  in between (the newer frame writes its own). When only some rows are painted again
  (a toast over the page went away), their cells covered part of the image, so the
  last row is painted again, which writes the image again.
- Partly scrolled out, under a modal or another layer, or not yet encoded at this
  size: the half blocks, as on every terminal (a sixel cannot be cut by the pane).

The image is encoded once per picture and size (:func:`encode_sixel`, ~100 ms for
a large picture) in a thread worker, never while painting: the worker that decodes
the page's pictures encodes them for the pane's width; another width (a resize) is
encoded when its picture is first fully in view, and half blocks show meanwhile.
Its height in pixels is a multiple of 6 (a sixel band) and never more than its rows
of cells, so it never spills below them (an image reaching the screen's last line
would scroll the whole terminal; a picture ending there keeps its half blocks).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from rich.control import Control
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip

from wikitui.ui.markdown.line import Line
from wikitui.ui.markdown.pictures import MAX_COLUMNS, MAX_ROWS, on_white, picture_lines

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage
    from textual.widget import Widget

#: Pixel rows in one sixel band: an image's height is a multiple of it.
BAND = 6
#: Sizes (columns, rows) whose sixel a picture keeps (the last ones drawn).
KEPT_SIZES = 2
#: The page widgets painted again when their screen comes back (:func:`repaint_on_return`), each subscribed once.
_REPAINTING: weakref.WeakSet[Widget] = weakref.WeakSet()


@dataclass(slots=True)
class SixelRow(Line):
    """One row of a sixel picture in the page: its half blocks, and which row of which picture it is.

    Attributes:
        picture: The picture.
        row: 0-based row of the picture.
        rows: How many rows the picture has at this width.
    """

    picture: SixelPicture | None = None
    row: int = 0
    rows: int = 1


def decode_picture(path, cell: tuple[int, int], box: tuple[int, int] | None = None) -> PILImage:
    """The picture at ``path``, scaled to fit ``box`` cells (the largest size a page draws), on white (call in a worker).

    Raises:
        OSError, ValueError, PIL.Image.DecompressionBombError: not a picture Pillow can read safely.
    """
    from PIL import Image

    columns, rows = box or (MAX_COLUMNS, MAX_ROWS)
    limit = (columns * cell[0], rows * cell[1])
    with Image.open(path) as img:
        img.draft("RGB", limit)  # JPEG: decode at a reduced scale
        img.thumbnail(limit)
        return on_white(img)


def sixel_pixels(pixels: tuple[int, int], cell: tuple[int, int], size: tuple[int, int]) -> tuple[int, int] | None:
    """The (width, height) in pixels of a picture of ``pixels`` drawn in ``size`` cells, or None when too small.

    It fits the cells (its shape kept) and its height is a whole number of sixel bands,
    so it never reaches below its last row.
    """
    box_w, box_h = size[0] * cell[0], size[1] * cell[1]
    scale = min(box_w / max(1, pixels[0]), box_h / max(1, pixels[1]))
    width = max(1, min(box_w, round(pixels[0] * scale)))
    height = min(box_h, round(pixels[1] * scale)) // BAND * BAND
    return (width, height) if height >= BAND else None


def encode_sixel(image: PILImage, cell: tuple[int, int], size: tuple[int, int]) -> str | None:
    """``image`` as a sixel image (``ESC P … q … ESC \\``) for ``size`` cells (slow: call in a worker)."""
    from PIL import Image

    from wikitui.ui.terminal_pictures import image_to_sixels

    pixels = sixel_pixels(image.size, cell, size)
    if pixels is None:
        return None
    return image_to_sixels(image.resize(pixels, Image.Resampling.LANCZOS))


class SixelPicture:
    """One embedded picture under sixel: its rows as half blocks, its sixel images by size.

    Args:
        image: The decoded picture (:func:`decode_picture`).
        cell: A terminal cell's size in pixels.
        request: Starts encoding the picture for a size in a worker (:meth:`add_sixel` takes the result).
    """

    def __init__(self, image: PILImage, cell: tuple[int, int], request: Callable[[SixelPicture, tuple], None]) -> None:
        self.image = image
        self.cell = (max(1, cell[0]), max(1, cell[1]))
        self.request = request
        self.sixels: dict[tuple[int, int], str | None] = {}
        self._asked: set[tuple[int, int]] = set()
        self._half: dict[tuple[int, int], list[Line]] = {}
        # An embed's place is its first line: a picture embedded twice is drawn twice.
        # first line -> (scroll top, screen cell, size) of an image to write
        self.pending: dict[int, tuple[int, tuple[int, int], tuple[int, int]]] = {}

    def cells(self, width: int) -> tuple[int, int]:
        """(columns, rows) the picture takes in a page ``width`` cells wide: its shape, never enlarged."""
        room_w, room_h = max(1, min(width, MAX_COLUMNS)), MAX_ROWS
        cols, rows = self.image.width / self.cell[0], self.image.height / self.cell[1]
        scale = min(1.0, room_w / max(cols, 1e-9), room_h / max(rows, 1e-9))
        return min(room_w, max(1, round(cols * scale))), min(room_h, max(1, round(rows * scale)))

    def lines(self, width: int, source_line: int) -> list[Line]:
        """The picture's rows in a page ``width`` cells wide (half blocks until painted as sixel)."""
        size = self.cells(width)
        half = self._half.get(size)
        if half is None:
            from PIL import Image

            small = self.image.resize((size[0], size[1] * 2), Image.Resampling.BOX)
            half = self._half[size] = picture_lines(small, size[0], 0)
        return [SixelRow(line.segments, source_line, picture=self, row=r, rows=len(half)) for r, line in enumerate(half)]

    def sixel(self, size: tuple[int, int]) -> str | None:
        """The sixel image for ``size`` cells; None (and its encoding asked for, once) while there is none."""
        if size in self.sixels:
            return self.sixels[size]
        if size not in self._asked:
            self._asked.add(size)
            self.request(self, size)
        return None

    def add_sixel(self, size: tuple[int, int], data: str | None) -> None:
        """Keep the sixel image encoded for ``size`` cells (None: too small to draw as sixel)."""
        self.sixels[size] = data
        while len(self.sixels) > KEPT_SIZES:
            oldest = next(iter(self.sixels))
            del self.sixels[oldest]
            self._asked.discard(oldest)

    def release(self) -> None:
        """Forget the encoded images (the page is no longer shown)."""
        self.sixels.clear()
        self._asked.clear()


def paint_row(view: Widget, index: int, line: Line, half: Strip, base: Style) -> Strip:
    """The strip of picture row ``line`` at page line ``index`` in ``view`` (a scrolled line-API page).

    Args:
        view: The page widget (its scroll offset and screen region place the picture;
            its ``document`` holds the lines).
        index: The line's index in the page.
        line: The row.
        half: The row painted as half blocks.
        base: The page's background style (the blank cells).

    Returns:
        Blank cells when the whole picture is in view and encoded at this size (its
        image is written after the frame: :func:`write_after_frame`), else ``half``;
        ``half`` for a line that is not a picture row.
    """
    if not isinstance(line, SixelRow) or line.picture is None:
        return half
    picture = line.picture
    first = index - line.row
    top = view.scroll_offset.y
    size = (sum(len(text) for text, _r, _l in line.segments), line.rows)
    place = _screen_place(view, first - top, size)
    if place is None or not picture.sixel(size):
        return half
    return Strip.blank(half.cell_length, base)


def write_after_frame(view: Widget, crop: Region, strips: list[Strip]) -> list[Strip]:
    """``strips``, the lines of ``view`` in ``crop`` going to the terminal; the pictures they cover written after.

    Called with every frame's lines of the page (kept lines too: Textual repaints a
    screen from them after a modal closes, say), so whenever cells of a picture drawn
    as sixel are written, its image is written again over them once the frame is out.

    Args:
        view: The page widget (its ``document`` holds the lines).
        crop: The part of the widget painted, in its own cells (borders and padding included).
        strips: Its lines.
    """
    lines = view.document.lines  # type: ignore[attr-defined]
    gutter = view.styles.gutter
    top = view.scroll_offset.y
    done: set[int] = set()
    for y in range(max(0, crop.y - gutter.top), crop.bottom - gutter.top):
        line = lines[top + y] if top + y < len(lines) else None
        if not isinstance(line, SixelRow) or line.picture is None or top + y - line.row in done:
            continue
        first = top + y - line.row
        done.add(first)
        size = (sum(len(text) for text, _r, _l in line.segments), line.rows)
        if not crop.overlaps(Region(gutter.left, gutter.top + first - top, *size)):
            continue
        place = _screen_place(view, first - top, size)
        if place is not None and line.picture.sixels.get(size):
            if first not in line.picture.pending:
                view.call_later(_write_image, view, line.picture, first)
            line.picture.pending[first] = (top, place, size)
    return strips


def image_sequence(x: int, y: int, data: str) -> str:
    """What writes sixel ``data`` with its top-left corner at screen cell (x, y), the cursor kept where it was."""
    return "\x1b7" + Control.move_to(x, y).segment.text + data + "\x1b8"


def _write_image(view: Widget, picture: SixelPicture, first: int) -> None:
    """Write the picture's image through the driver, after the frame that painted its blank rows.

    Textual writes a frame in one go once it has painted every line, so a sequence
    put inside a line's strip would be cut by the pane's edges; this runs after the
    frame went to the driver (ordered with frames). It writes nothing when the page
    was scrolled or changed since (that frame paints it again, or its half blocks).
    """
    from wikitui.ui.terminal_pictures import driver_writer

    key = picture.pending.pop(first, None)
    if key is None:
        return
    top, place, size = key
    lines = view.document.lines  # type: ignore[attr-defined]
    row = lines[first] if first < len(lines) else None
    if not isinstance(row, SixelRow) or row.picture is not picture or row.row != 0:
        return
    if view.scroll_offset.y != top or _screen_place(view, first - top, size) != place:
        return
    data = picture.sixels.get(size)
    if data:
        driver_writer(view.app)(image_sequence(*place, data))


def _screen_place(view: Widget, view_y: int, size: tuple[int, int]) -> tuple[int, int] | None:
    """The screen cell of the picture's top-left corner when all of it may be drawn as sixel, else None."""
    from textual.css.query import NoMatches
    from textual.dom import NoScreen
    from textual.errors import NoWidget

    columns, rows = size
    height = view.scrollable_content_region.height
    if view_y < 0 or view_y + rows > height or view.scroll_offset.x:
        return None
    try:
        screen = view.screen
        if not screen.is_active:
            return None  # a modal is over the page: its background is drawn as cells
        content = view.scrollable_content_region
        rect = Region(content.x, content.y + view_y, columns, rows)
        if not screen.find_widget(view).visible_region.contains_region(rect):
            return None
        if rect.bottom >= screen.size.height:
            return None  # an image ending on the screen's last line may scroll the terminal
        for y in range(rect.y, rect.bottom):  # another layer (a toast, a menu) over any part of it
            for x in (rect.x, rect.x + columns // 2, rect.right - 1):
                if screen.get_widget_at(x, y)[0] is not view:
                    return None
    except (NoScreen, NoWidget, NoMatches):
        return None
    return rect.x, rect.y


def repaint_on_return(view: Widget) -> None:
    """Paint ``view`` again whenever its screen comes back (a modal closed) or the app resumes ($EDITOR closed).

    Textual then repaints the screen from the lines it keeps, which writes the blank
    rows over the images without writing them again; painting the page again does.
    """
    if view in _REPAINTING:
        return
    _REPAINTING.add(view)

    def repaint(_changed: object = None) -> None:
        if view.is_attached:
            view.refresh()

    view.app.screen_change_signal.subscribe(view, repaint)
    view.app.app_resume_signal.subscribe(view, repaint)
