"""Embedded pictures drawn by the terminal itself: kitty's graphics protocol with Unicode placeholders.

The page is painted line by line, and kitty's placeholders fit that exactly: the
picture's data is sent to the terminal once (``a=t``) with a *virtual* placement
(``a=p,U=1``) of so many columns and rows, and the page then writes ordinary text
cells where the picture goes. Each cell is U+10EEEE followed by three combining
diacritics (its row, its column, and the id's high byte), in a foreground colour
that is the id's lower 24 bits; the terminal draws that part of the picture there.
So the picture scrolls, is cut by the pane's edges and is repainted exactly like
text. Terminals: kitty and Ghostty (see :mod:`wikitui.ui.picture_method`).

The PNG is encoded in the worker that decodes the picture (:func:`encode_picture`,
at the largest size a page draws, 72×24 cells); :class:`KittyPicture` sends it
(through ``send``: the app's driver, so escape sequences stay ordered with frames)
once, the first time it is laid out; a new width replaces only the placement (the
terminal scales the picture), and :meth:`~KittyPicture.release` deletes the picture
and frees its data (``a=d,d=I``) when the page goes away.
"""

from __future__ import annotations

from itertools import count
from random import randint
from typing import Callable

from wikitui.ui.markdown.line import Line
from wikitui.ui.markdown.pictures import MAX_COLUMNS, MAX_ROWS, PIXEL_ROLE

#: The placeholder character of kitty's protocol.
PLACEHOLDER = "\U0010eeee"
#: Base64 characters per escape sequence (the protocol's limit per chunk).
CHUNK = 4096
#: Image ids: below 2**24, so the whole id is the cell's colour and the high-byte diacritic is 0.
_ids = count(randint(1, 2**23))


def diacritics() -> list[int]:
    """The protocol's table of row/column diacritics (number → code point), as textual-image has it."""
    from wikitui.ui.terminal_pictures import kitty_diacritics

    return kitty_diacritics()


def encode_picture(path, box: tuple[int, int], cell: tuple[int, int]) -> tuple[str, tuple[int, int]]:
    """The picture at ``path`` as base64 PNG, scaled to fit ``box`` cells of ``cell`` pixels (call in a worker).

    Returns:
        ``(base64 PNG, (width, height) in pixels)``.

    Raises:
        OSError, ValueError, PIL.Image.DecompressionBombError: not a picture Pillow can read safely.
    """
    from PIL import Image

    columns, rows = min(box[0], MAX_COLUMNS), min(box[1], MAX_ROWS)
    limit = (max(1, columns) * cell[0], max(1, rows) * cell[1])
    with Image.open(path) as img:
        img.draft("RGB", limit)  # JPEG: decode at a reduced scale
        img.thumbnail(limit)
        return png_base64(img), img.size


def png_base64(img) -> str:
    """A Pillow image as base64 PNG, the form kitty's protocol carries (slow for big pictures: call in a worker)."""
    import base64
    import io

    if img.mode not in ("RGB", "RGBA"):
        img = img.convert("RGBA")
    out = io.BytesIO()
    img.save(out, format="PNG")
    return base64.standard_b64encode(out.getvalue()).decode("ascii")


def transmission(image_id: int, data: str) -> str:
    """The escape sequences that send ``data`` (base64 PNG) to the terminal as image ``image_id``."""
    chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)] or [""]
    out = []
    for n, chunk in enumerate(chunks):
        more = 1 if n < len(chunks) - 1 else 0
        # Only the first chunk carries the keys; the others only m= (the protocol's rule).
        keys = f"a=t,f=100,i={image_id},q=2,m={more}" if n == 0 else f"q=2,m={more}"
        out.append(f"\x1b_G{keys};{chunk}\x1b\\")
    return "".join(out)


def placement(image_id: int, columns: int, rows: int) -> str:
    """The escape sequence that places image ``image_id`` virtually, in ``columns`` × ``rows`` placeholder cells."""
    return f"\x1b_Ga=p,U=1,i={image_id},c={columns},r={rows},q=2\x1b\\"


def unplacing(image_id: int) -> str:
    """The escape sequence that deletes image ``image_id``'s placements and keeps its data (a size changes)."""
    return f"\x1b_Ga=d,d=i,i={image_id},q=2\x1b\\"


def deletion(image_id: int) -> str:
    """The escape sequence that deletes image ``image_id``'s placements and frees its data."""
    return f"\x1b_Ga=d,d=I,i={image_id},q=2\x1b\\"


def placeholder_row(row: int, columns: int, image_id: int) -> str:
    """Row ``row`` of a picture ``columns`` cells wide, as placeholder cells."""
    table = diacritics()
    high = chr(table[(image_id >> 24) & 255])
    row_mark = chr(table[row])
    return "".join(PLACEHOLDER + row_mark + chr(table[c]) + high for c in range(columns))


class KittyPicture:
    """One picture drawn with kitty's placeholders: its data sent once, one virtual placement at a time.

    Args:
        data: The picture as base64 PNG (:func:`encode_picture`).
        pixels: Its size in pixels.
        cell: A terminal cell's size in pixels.
        send: Writes escape sequences to the terminal (the app's driver).
    """

    def __init__(self, data: str, pixels: tuple[int, int], cell: tuple[int, int], send: Callable[[str], None]) -> None:
        self.data = data
        self.pixels = pixels
        self.cell = (max(1, cell[0]), max(1, cell[1]))
        self._send = send
        #: The picture's id in the terminal: also the colour of its placeholder cells.
        self.image_id = next(_ids) % (2**24 - 1) + 1
        #: Whether the data is in the terminal.
        self.transmitted = False
        #: (columns, rows) of the placement the terminal has, if any.
        self.placed: tuple[int, int] | None = None

    def cells(self, width: int, height: int = MAX_ROWS, widest: int = MAX_COLUMNS) -> tuple[int, int]:
        """(columns, rows) the picture takes in ``width`` × ``height`` cells: its shape, never enlarged."""
        most = len(diacritics())  # the protocol numbers rows and columns up to this
        room_w = max(1, min(width, widest, most))
        room_h = max(1, min(height, most))
        cols = self.pixels[0] / self.cell[0]
        rows = self.pixels[1] / self.cell[1]
        scale = min(1.0, room_w / max(cols, 1e-9), room_h / max(rows, 1e-9))
        return min(room_w, max(1, round(cols * scale))), min(room_h, max(1, round(rows * scale)))

    def place(self, columns: int, rows: int) -> int:
        """Make the terminal draw the picture in ``columns`` × ``rows`` placeholder cells; returns its id.

        The data is sent the first time only; a new size replaces the placement (the
        terminal scales the picture it has), so resizing the window sends no picture again.
        """
        if not self.transmitted:
            self._send(transmission(self.image_id, self.data))
            self.transmitted = True
        if self.placed != (columns, rows):
            if self.placed is not None:
                self._send(unplacing(self.image_id))
            self._send(placement(self.image_id, columns, rows))
            self.placed = (columns, rows)
        return self.image_id

    def colour(self) -> str:
        """The placeholder cells' foreground colour: the id's lower 24 bits (the id is below 2**24)."""
        return f"#{self.image_id & 0xFFFFFF:06x}"

    def lines(self, width: int, source_line: int) -> list[Line]:
        """The picture as lines of placeholder cells, in a page ``width`` cells wide."""
        columns, rows = self.cells(width)
        image_id = self.place(columns, rows)
        role = f"{PIXEL_ROLE}{self.colour()}:"  # the id as the foreground colour, no background
        return [Line([(placeholder_row(r, columns, image_id), role, None)], source_line) for r in range(rows)]

    def release(self) -> None:
        """Delete the picture from the terminal, data and placement (it is no longer shown)."""
        if self.transmitted:
            self._send(deletion(self.image_id))
        self.transmitted, self.placed = False, None
