"""A page's embedded pictures under sixel: blank rows, the image written by the last row's strip when all is in view."""

from __future__ import annotations

import re
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ui.test_kitty_pictures import _record_driver
from tests.ui.test_pictures import EMBEDS, embeds, make_picture, open_photos
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
    app = workspace(embeds(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        page = await open_photos(pilot, app)
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
        assert len(images) == 2  # each embed in view (the second is lower)
        # Each frame draws each of them once at most: a later frame repainting the region (another widget's
        # refresh between the pauses) may draw them again, never twice in one frame, never a stray sixel.
        frames = [frame for frame in written if "\x1bP" in frame]
        for frame in frames:
            found = IMAGE.findall(frame)
            assert len(found) == len({(x, y) for y, x, _ in found}) == frame.count("\x1bP")


def _app(vault, size=(320, 200)):
    make_picture(vault / "raw" / "bands.png", size=size)
    text = EMBEDS + "".join(f"\nA line of text below the pictures, {n}.\n" for n in range(40))
    (vault / "wiki" / "photos.md").write_text(text, encoding="utf-8")
    return workspace(vault, watch=False, index=False)


async def _shown(pilot) -> PageView:
    await wait_ready(pilot)
    pilot.app.main.open_path("wiki/photos.md")
    page = pilot.app.query_one(PageView)
    await wait_for(pilot, lambda: page.document.pictures, "the pictures to be encoded", timeout=20)
    await pilot.pause()
    return page


def _images(written: list[str]) -> list[tuple[int, int]]:
    """The screen cells images were written at."""
    return [(int(x) - 1, int(y) - 1) for y, x, _data in IMAGE.findall("".join(written))]


async def test_a_picture_scrolled_half_out_is_half_blocks_and_scrolled_back_it_is_written_again(sample_vault, sixel):
    app = _app(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        page = await _shown(pilot)
        first, last = _rows(page)
        written = _record_driver(app)
        page.scroll_to(y=first + 4, animate=False, immediate=True)  # its first four rows above the view
        await pilot.pause()
        await pilot.pause()
        top = page.scroll_offset.y
        for index in range(first + 4, last + 1):
            assert set(page.render_line(index - top).text.strip()) == {"▀"}
        content = page.scrollable_content_region
        assert (content.x, content.y + first - top) not in _images(written)  # no image for the cut picture
        page.scroll_to(y=first, animate=False, immediate=True)  # all of it in view again
        await pilot.pause()
        await pilot.pause()
        assert (content.x, content.y) in _images(written)
        assert page.render_line(0).text.strip() == ""


async def test_under_a_modal_the_picture_is_half_blocks_and_nothing_is_written_over_it(sample_vault, sixel):
    app = _app(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        page = await _shown(pilot)
        first, last = _rows(page)
        written = _record_driver(app)
        page.scroll_to(y=first, animate=False, immediate=True)
        content = page.scrollable_content_region
        await wait_for(pilot, lambda: (content.x, content.y) in _images(written), "the picture at the top")
        written.clear()  # from here on nothing may be written over the palette
        await pilot.press("ctrl+p")  # the command palette, a modal over the page
        await wait_for(pilot, lambda: app.screen is not page.screen, "the palette")
        await pilot.pause()
        assert set(page.render_line(0).text.strip()) == {"▀"}
        assert _images(written) == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is page.screen, "the page's screen again")
        await pilot.pause()
        await pilot.pause()
        content = page.scrollable_content_region
        assert (content.x, content.y) in _images(written)  # drawn again once the modal is gone


async def test_whenever_a_frame_writes_a_pictures_cells_its_image_is_written_again_after_it(sample_vault, sixel):
    app = _app(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        page = await _shown(pilot)
        first, _last = _rows(page)
        page.scroll_to(y=first, animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        written = _record_driver(app)
        page.refresh_lines(first + 3, 2)  # e.g. a toast over these rows went away: their cells covered the image
        await pilot.pause()
        await pilot.pause()
        content = page.scrollable_content_region
        assert (content.x, content.y) in _images(written)
        written.clear()
        app.screen.refresh()  # the whole screen written again from the lines Textual keeps (a modal closed, say)
        await pilot.pause()
        await pilot.pause()
        assert (content.x, content.y) in _images(written)


async def test_a_new_width_is_encoded_in_a_worker_with_half_blocks_meanwhile(sample_vault, sixel, monkeypatch):
    gate = threading.Event()
    gate.set()
    record = sixel_pictures.encode_sixel  # the fixture's: records the thread

    def gated(*args):
        gate.wait(20)
        return record(*args)

    monkeypatch.setattr(sixel_pictures, "encode_sixel", gated)
    app = _app(sample_vault, size=(1600, 400))  # as wide as the pane
    async with app.run_test(size=(120, 40)) as pilot:
        page = await _shown(pilot)
        picture = next(iter(page.document.pictures.values()))
        before = picture.cells(page.scrollable_content_region.width)
        encoded = len(sixel)
        gate.clear()
        await pilot.resize_terminal(86, 40)
        await pilot.pause()
        first, last = _rows(page)
        size = picture.cells(page.scrollable_content_region.width)
        assert size != before and size == (len(page.document.lines[first].text), last - first + 1)
        written = _record_driver(app)
        page.scroll_to(y=first, animate=False, immediate=True)
        await pilot.pause()
        assert set(page.render_line(0).text.strip()) == {"▀"}  # half blocks while it is encoded
        gate.set()
        await wait_for(pilot, lambda: len(sixel) > encoded, "the new width to be encoded", timeout=20)
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        assert all(t is not threading.main_thread() for t in sixel)
        content = page.scrollable_content_region
        images = {(int(x) - 1, int(y) - 1): data for y, x, data in IMAGE.findall("".join(written))}
        [(width, height)] = SIXEL.findall(images[content.x, content.y])
        assert (int(width), int(height)) == sixel_pictures.sixel_pixels(picture.image.size, (10, 20), size)
        assert page.render_line(0).text.strip() == ""


async def test_a_page_left_before_its_pictures_are_encoded_gets_nothing_drawn(sample_vault, sixel, monkeypatch):
    release = threading.Event()
    real = sixel_pictures.encode_sixel

    def slow(*args):
        release.wait(20)
        return real(*args)

    monkeypatch.setattr(sixel_pictures, "encode_sixel", slow)
    app = workspace(embeds(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        written = _record_driver(app)
        app.main.open_path("wiki/photos.md")
        await pilot.pause()
        app.main.open_path("wiki/index.md")
        await pilot.pause()
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        page = app.query_one(PageView)
        assert page.document.path == "wiki/index.md" and page.document.pictures == {}
        assert "\x1bP" not in "".join(written)


@settings(max_examples=200, deadline=None)
@given(
    pixels=st.tuples(st.integers(1, 5000), st.integers(1, 5000)),
    cell=st.tuples(st.integers(1, 40), st.integers(1, 60)),
    size=st.tuples(st.integers(1, 72), st.integers(1, 24)),
)
def test_a_sixel_image_is_whole_bands_and_never_spills_out_of_its_cells(pixels, cell, size):
    drawn = sixel_pictures.sixel_pixels(pixels, cell, size)
    if drawn is None:  # under one band tall: left to half blocks
        assert size[1] * cell[1] < 6 or pixels[1] * min(size[0] * cell[0] / pixels[0], size[1] * cell[1] / pixels[1]) < 6.5
        return
    width, height = drawn
    assert height % 6 == 0 and 6 <= height <= size[1] * cell[1]  # never below its last row
    assert 1 <= width <= size[0] * cell[0]
