"""A page's embedded pictures under kitty's graphics protocol: placeholder cells, sent through the driver."""

from __future__ import annotations

import base64
import io
import re

import pytest

from tests.ui.test_pictures import embeds, make_picture, open_photos
from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace
from wikitui.ui.markdown.kitty_pictures import PLACEHOLDER, KittyPicture, diacritics
from wikitui.ui.widgets.page_view import PageView

TRANSMIT = re.compile(r"\x1b_Ga=t,f=100,i=(\d+),q=2,m=([01]);([A-Za-z0-9+/=]*)\x1b\\")
MORE = re.compile(r"\x1b_Gq=2,m=([01]);([A-Za-z0-9+/=]*)\x1b\\")
PLACE = re.compile(r"\x1b_Ga=p,U=1,i=(\d+),c=(\d+),r=(\d+),q=2\x1b\\")


@pytest.fixture
def kitty(monkeypatch):
    """A kitty terminal with 24-bit colours (kitty sets both), cells of 10×20 pixels."""
    monkeypatch.setenv("WIKITUI_PICTURES", "kitty")
    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.setattr("wikitui.ui.screens.embedded_pictures.cell_pixels", lambda: (10, 20))


def _record_driver(app) -> list[str]:
    written: list[str] = []
    real = app._driver.write

    def write(data: str) -> None:
        written.append(data)
        real(data)

    app._driver.write = write
    return written


def _png_sent(stream: str, image_id: int) -> bytes:
    """The PNG that ``stream`` transmits as image ``image_id`` (its chunks put back together)."""
    first = next(m for m in TRANSMIT.finditer(stream) if int(m.group(1)) == image_id)
    data, more, pos = first.group(3), first.group(2), first.end()
    while more == "1":
        nxt = MORE.match(stream, pos)
        assert nxt is not None, "a chunk is missing"
        more, pos = nxt.group(1), nxt.end()
        data += nxt.group(2)
    return base64.b64decode(data)


async def test_under_kitty_a_pages_picture_is_placeholder_cells_and_its_data_goes_through_the_driver(
    sample_vault, kitty
):
    from PIL import Image

    app = workspace(embeds(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        written = _record_driver(app)
        page = await open_photos(pilot, app)
        pictures = page.document.pictures
        assert len(pictures) == 2 and all(isinstance(p, KittyPicture) for p in pictures.values())
        assert len({id(p) for p in pictures.values()}) == 1  # both embeds name raw/bands.png: one picture

        stream = "".join(written)
        placements = [tuple(map(int, m.groups())) for m in PLACE.finditer(stream)]
        assert len(placements) == 1  # sent once, with its virtual placement
        assert len(TRANSMIT.findall(stream)) == 1
        table = diacritics()
        lines = page.document.lines
        texts = [line.text for line in lines]
        alt = next(i for i, t in enumerate(texts) if "⧉ Four coloured bands" in t)
        first_row = alt + 1
        role = lines[first_row].segments[0][1]
        image_id = int(role.split("#")[1].rstrip(":"), 16)
        [(_, columns, rows)] = [p for p in placements if p[0] == image_id]
        # 320×200 pixels in 10×20-pixel cells: 32 columns, 10 rows (its shape kept).
        assert (columns, rows) == (32, 10)
        for r in range(rows):
            text = texts[first_row + r].rstrip()
            cells = [text[i:i + 4] for i in range(0, len(text), 4)]
            assert len(cells) == columns
            for c, cell in enumerate(cells):
                assert cell == PLACEHOLDER + chr(table[r]) + chr(table[c]) + chr(table[0])
        assert PLACEHOLDER not in texts[first_row + rows]  # the picture ends there
        wiki = next(i for i, t in enumerate(texts) if "⧉ bands.png" in t)
        assert lines[wiki + 1].segments[0][1] == role and texts[wiki + 1] == texts[first_row]  # the same cells

        # Painted with the image id as the foreground colour, and nothing else drawn over it.
        y = first_row - page.scroll_offset.y
        assert 0 <= y < page.size.height
        strip = page.render_line(y)
        [segment] = [s for s in strip if PLACEHOLDER in s.text]
        assert segment.style.color.triplet == ((image_id >> 16) & 255, (image_id >> 8) & 255, image_id & 255)

        # The data sent is the picture itself, as PNG (at most 72×24 cells: this one is smaller).
        with Image.open(io.BytesIO(_png_sent(stream, image_id))) as sent:
            assert sent.format == "PNG" and sent.size == (320, 200)
            assert sent.convert("RGB").getpixel((10, 100)) == (200, 40, 40)  # the red band first

        # Laid out again at the same width: nothing sent again.
        page.relayout()
        await pilot.pause()
        assert len(PLACE.findall("".join(written))) == 1

        # Leaving the page deletes what was sent (and frees the data).
        ids = [p[0] for p in placements]
        app.main.open_path("wiki/index.md")
        await pilot.pause()
        stream = "".join(written)
        for sent_id in ids:
            assert f"\x1b_Ga=d,d=I,i={sent_id},q=2\x1b\\" in stream


async def test_a_narrower_pane_replaces_the_placement_without_sending_the_picture_again_and_closing_deletes_it(sample_vault, kitty):
    make_picture(sample_vault / "raw" / "bands.png", size=(1600, 400))
    (sample_vault / "wiki" / "wide.md").write_text("# Wide\n\n![[bands.png]]\n", encoding="utf-8")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await wait_ready(pilot)
        written = _record_driver(app)
        app.main.open_path("wiki/wide.md")
        page = app.query_one(PageView)
        await wait_for(pilot, lambda: page.document.pictures, "the picture", timeout=20)
        await pilot.pause()
        [picture] = page.document.pictures.values()
        width = page.scrollable_content_region.width
        columns, rows = picture.placed
        assert columns == min(width, 72) and rows == round(columns * (400 / 1600) * (10 / 20))
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.pause()
        narrower = page.scrollable_content_region.width
        assert narrower < width and picture.placed[0] == narrower
        stream = "".join(written)
        # The picture went once; the new width replaced its placement (the terminal scales it).
        assert len(TRANSMIT.findall(stream)) == 1
        assert [tuple(map(int, m.groups())) for m in PLACE.finditer(stream)] == [
            (picture.image_id, columns, rows), (picture.image_id, *picture.placed)]
        assert stream.index(f"\x1b_Ga=d,d=i,i={picture.image_id},q=2\x1b\\") < stream.rindex("\x1b_Ga=p,")
        assert picture.colour() in [line.segments[0][1][3:-1] for line in page.document.lines if line.segments]
        image_id = picture.image_id
    stream = "".join(written)  # the app has closed: the picture is deleted, its data freed
    assert f"\x1b_Ga=d,d=I,i={image_id},q=2\x1b\\" in stream


async def test_without_24_bit_colours_a_kitty_terminal_gets_half_blocks_in_pages(sample_vault, monkeypatch):
    monkeypatch.setenv("WIKITUI_PICTURES", "kitty")
    monkeypatch.setenv("TEXTUAL_COLOR_SYSTEM", "256")  # e.g. over ssh, where COLORTERM is lost
    import textual.constants

    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "256")
    app = workspace(embeds(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        written = _record_driver(app)
        page = await open_photos(pilot, app)
        assert not any(isinstance(p, KittyPicture) for p in page.document.pictures.values())
        assert "▀" in "".join(line.text for line in page.document.lines)
        assert "\x1b_G" not in "".join(written)


async def test_under_kitty_the_source_viewer_draws_a_picture_through_the_driver_and_deletes_it_on_leaving(
    sample_vault, kitty, monkeypatch
):
    from wikitui.ui.widgets.kitty_picture import KittyPictureWidget
    from wikitui.ui.widgets.picture import PictureView

    monkeypatch.setattr("wikitui.ui.widgets.kitty_picture.cell_pixels", lambda: (10, 20))
    make_picture(sample_vault / "raw" / "bands.png")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        written = _record_driver(app)
        app.main.open_path("raw/bands.png")
        await wait_for(pilot, lambda: app.query(KittyPictureWidget), "the picture widget", timeout=20)
        widget = app.query_one(KittyPictureWidget)
        await wait_for(pilot, lambda: widget.picture is not None and widget.picture.placed, "the picture sent", 20)
        await pilot.pause()
        columns, rows = widget.size
        assert widget.picture.placed == (columns, rows) == (32, 10)  # 320×200 pixels in 10×20-pixel cells
        image_id = widget.picture.image_id
        assert len(TRANSMIT.findall("".join(written))) == 1
        stream = "".join(written)
        assert f"\x1b_Ga=p,U=1,i={image_id},c={columns},r={rows},q=2\x1b\\" in stream
        strip = widget.render_line(rows - 1)
        [segment] = [s for s in strip if PLACEHOLDER in s.text]
        table = diacritics()
        assert segment.text == "".join(PLACEHOLDER + chr(table[rows - 1]) + chr(table[c]) + chr(table[0])
                                       for c in range(columns))
        assert segment.style.color.triplet == ((image_id >> 16) & 255, (image_id >> 8) & 255, image_id & 255)
        assert "PNG image, 320×200 pixels" in screen_text(app)  # its caption below it
        await pilot.press("backspace")  # back to the page shown before
        await wait_for(pilot, lambda: not app.query(PictureView), "the picture to go")
        assert f"\x1b_Ga=d,d=I,i={image_id},q=2\x1b\\" in "".join(written)
