"""Embedded pictures (``![[x.png]]``, ``![alt](x.png)``) drawn in the page as coloured half blocks.

The page is painted line by line (:mod:`~wikitui.ui.markdown.paint`), so a picture
becomes lines too: each cell is ``▀`` with the upper pixel as its colour and the
lower one as its background, two pixels a cell vertically, which keeps the picture's
shape on a cell twice as tall as wide. The embed's own line (``⧉ alt``) stays above
it: the alt text is what shows while the picture loads, or when it cannot be drawn.
A pixel's colours travel in its role (``px:#rrggbb:#rrggbb``), which the painter
turns into a style; the pictures themselves are small (decoded and scaled down in a
worker to at most :data:`MAX_COLUMNS` × :data:`MAX_ROWS` cells).

That is how pictures are drawn with ``halfcell`` and ``unicode``. Under kitty's
protocol a picture is a :class:`~wikitui.ui.markdown.kitty_pictures.KittyPicture`,
which draws its own lines (placeholder cells the terminal fills with the picture).
Under ``sixel`` it is a :class:`~wikitui.ui.markdown.sixel_pictures.SixelPicture`:
its rows are these half blocks while it is partly scrolled out of the pane, covered
(a modal, a toast) or not yet encoded at the pane's width, and blank cells with the
sixel image written over them once all of it is on screen.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from wikitui.ui.markdown.line import Line

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage
    from rich.style import Style

#: Widest a picture is drawn, in cells (a narrower pane draws it smaller).
MAX_COLUMNS = 72
#: Tallest a picture is drawn, in cells.
MAX_ROWS = 24
#: The role prefix that carries a cell's two colours.
PIXEL_ROLE = "px:"
#: An embed's size, as Obsidian reads it after ``|``: ``100`` (width) or ``100x145`` (width × height), in pixels.
_SIZE = re.compile(r"^\s*(\d{1,5})(?:\s*x\s*(\d{1,5}))?\s*$")


def picture_size(label: str, kind: str) -> str:
    """The size an embed asks for: a wikilink's label (``![[x.png|100]]``), a markdown image's alt after ``|``
    (``![photo|100x80](x.png)``); "" when none."""
    if kind == "wiki":
        return label
    return label.rpartition("|")[2] if "|" in label else ""


def picture_box(label: str, cell: tuple[int, int] = (10, 20)) -> tuple[int, int]:
    """The cells (columns, rows) an embedded picture may take: its ``|W`` or ``|WxH`` size, else the most.

    Pixels become cells by the terminal's cell size, as the picture is drawn at (10×20 when
    it cannot be known); a picture is never drawn larger than :data:`MAX_COLUMNS` × :data:`MAX_ROWS`.
    The picture keeps its shape inside the box (only the width given: as tall as that width makes it).
    """
    m = _SIZE.match(label)
    if m is None:
        return MAX_COLUMNS, MAX_ROWS
    columns = min(MAX_COLUMNS, max(1, math.ceil(int(m.group(1)) / max(1, cell[0]))))
    rows = MAX_ROWS if m.group(2) is None else min(MAX_ROWS, max(1, math.ceil(int(m.group(2)) / max(1, cell[1]))))
    return columns, rows


def picture_lines(picture: PILImage, width: int, source_line: int) -> list[Line]:
    """The picture as lines of half blocks, at most ``width`` cells wide."""
    img = picture
    if img.width > width:
        img = img.resize((max(1, width), max(1, round(img.height * width / img.width))))
    if img.mode != "RGB":
        img = img.convert("RGB")
    px = img.load()
    assert px is not None  # an RGB image always has its pixels (None is for images with no data)
    w, h = img.size
    lines = []
    for y in range(0, h, 2):
        segments: list = []
        for x in range(w):
            top = px[x, y]
            bottom = px[x, y + 1] if y + 1 < h else None
            role = PIXEL_ROLE + _hex(top) + ":" + (_hex(bottom) if bottom is not None else "")
            if segments and segments[-1][1] == role:
                segments[-1] = (segments[-1][0] + "▀", role, None)
            else:
                segments.append(("▀", role, None))
        lines.append(Line(segments, source_line))
    return lines


def with_pictures(lines: list[Line], pictures: dict, width: int) -> list[Line]:
    """``lines`` with each embed's picture (by link index, in ``pictures``) drawn under its line."""
    if not pictures:
        return lines
    out: list[Line] = []
    for line in lines:
        out.append(line)
        drawn: set[int] = set()
        for _text, _roles, link in line.segments:
            if link is not None and link in pictures and link not in drawn:
                drawn.add(link)
                picture = pictures[link]
                own = getattr(picture, "lines", None)  # a picture the terminal draws (kitty): its own lines
                out.extend(own(width, line.source_line) if own else picture_lines(picture, width, line.source_line))
    return out


def release_pictures(pictures: dict) -> None:
    """Free what the terminal keeps of a page's pictures (the page is no longer shown)."""
    for picture in pictures.values():
        release = getattr(picture, "release", None)
        if release is not None:
            release()


def pixel_style(role: str) -> Style:
    """The style of a ``px:`` role: the upper pixel's colour on the lower one's (none for a last odd row)."""
    from rich.color import Color
    from rich.style import Style

    top, _, bottom = role[len(PIXEL_ROLE):].partition(":")
    return Style(color=Color.parse(top), bgcolor=Color.parse(bottom) if bottom else None)


def small_picture(path, columns: int = MAX_COLUMNS, rows: int = MAX_ROWS) -> PILImage:
    """The picture at ``path`` scaled to fit ``columns`` × ``rows`` cells (2 pixels a cell vertically).

    Decodes the file: call it in a worker. Raises what Pillow raises for a file it cannot read safely.
    """
    from PIL import Image

    with Image.open(path) as img:
        img.draft("RGB", (columns * 4, rows * 8))  # JPEG: decode at a reduced scale
        img.thumbnail((columns, rows * 2))
        return on_white(img)


def on_white(img: PILImage) -> PILImage:
    """``img`` as RGB, its transparent parts drawn on white (as a page shows them)."""
    from PIL import Image

    if img.mode in ("RGBA", "LA", "P", "PA"):
        rgba = img.convert("RGBA")
        back = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        back.alpha_composite(rgba)
        return back.convert("RGB")
    return img.convert("RGB")


def _hex(rgb) -> str:
    r, g, b = rgb[:3] if isinstance(rgb, tuple) else (rgb, rgb, rgb)
    return f"#{r:02x}{g:02x}{b:02x}"
