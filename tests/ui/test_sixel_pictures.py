"""A page's embedded pictures under sixel: blank rows, the image written by the last row's strip when all is in view."""

from __future__ import annotations

import re
import threading

import pytest

from tests.ui.test_kitty_pictures import _record_driver
from tests.ui.test_pictures import EMBEDS, make_picture
from tests.ui.workspace_helpers import wait_for, wait_ready, workspace
from wikitui.ui.markdown import sixel_pictures
from wikitui.ui.markdown.sixel_pictures import SixelPicture, SixelRow
from wikitui.ui.widgets.page_view import PageView

#: A sixel image: DCS, parameters, ``q``, the raster attributes ("1;1;width;height), the data, ST.
SIXEL = re.compile(r'\x1bP[0-9;]*q"1;1;(\d+);(\d+)[^\x1b]*\x1b\\')
#: An image written at a screen cell, the cursor saved and restored around it.
IMAGE = re.compile(r"\x1b7\x1b\[(\d+);(\d+)H(\x1bP[^\x1b]*\x1b\\)\x1b8")


@pytest.fixture
def sixel(monkeypatch):
    """A sixel terminal with cells of 10×20 pixels; every encoding recorded with its thread."""
    monkeypatch.setenv("WIKITUI_PICTURES", "sixel")
    monkeypatch.setattr("wikitui.ui.screens.embedded_pictures.cell_pixels", lambda: (10, 20))
    threads: list[threading.Thread] = []
    real = sixel_pictures.encode_sixel

    def encode(*args):
        threads.append(threading.current_thread())
        return real(*args)

    monkeypatch.setattr(sixel_pictures, "encode_sixel", encode)
    return threads


def _rows(page: PageView) -> tuple[int, int]:
    """(first, last) page line of the first picture."""
    lines = page.document.lines
    first = next(i for i, line in enumerate(lines) if isinstance(line, SixelRow))
    return first, first + lines[first].rows - 1


async def test_a_fully_visible_picture_is_blank_rows_and_its_last_row_writes_the_sixel_at_its_place(
    sample_vault, sixel
):
    make_picture(sample_vault / "raw" / "bands.png")
    (sample_vault / "wiki" / "photos.md").write_text(EMBEDS, encoding="utf-8")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/photos.md")
        page = app.query_one(PageView)
        await wait_for(pilot, lambda: page.document.pictures, "the pictures to be encoded", timeout=20)
        await pilot.pause()
        pictures = page.document.pictures
        assert all(isinstance(p, SixelPicture) for p in pictures.values())
        assert len({id(p) for p in pictures.values()}) == 1  # both embeds name raw/bands.png: one picture
        assert sixel and all(t is not threading.main_thread() for t in sixel)  # encoded in a worker
        first, last = _rows(page)
        assert (last - first + 1) == 10  # 320×200 pixels in 10×20-pixel cells: 10 rows
        written = _record_driver(app)
        page.scroll_to(y=first - 2, animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        top = page.scroll_offset.y
        content = page.scrollable_content_region
        for index in range(first, last + 1):  # blank cells where the image goes
            strip = page.render_line(index - top)
            assert strip.text.strip() == "" and not any(s.control for s in strip)
        stream = "".join(written)
        images = {(int(x) - 1, int(y) - 1): data for y, x, data in IMAGE.findall(stream)}
        assert (content.x, content.y + first - top) in images  # at the picture's top-left cell, after the frame
        [size] = SIXEL.findall(images[content.x, content.y + first - top])
        assert tuple(map(int, size)) == (320, 198)  # its 200 pixels cut to whole bands of 6
        assert len(IMAGE.findall(stream)) == len(images) == 2  # each embed in view once (the second is lower)
        assert stream.count("\x1bP") == 2
