"""Image sources shown as pictures in the page pane (textual-image; half blocks forced, as on any terminal)."""

from __future__ import annotations

import pytest

from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace
from wikitui.ui.widgets.page_view import PageView
from wikitui.ui.widgets.picture import PictureView


def make_picture(path, size=(320, 200)):
    """Four coloured bands, so a drawing of it is recognisable."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", size, (240, 240, 240))
    draw = ImageDraw.Draw(img)
    colours = [(200, 40, 40), (40, 160, 60), (40, 80, 200), (230, 200, 40)]
    for n, colour in enumerate(colours):
        draw.rectangle((n * size[0] // 4, 0, (n + 1) * size[0] // 4, size[1]), fill=colour)
    img.save(path)
    return path


@pytest.fixture(autouse=True)
def half_blocks(monkeypatch):
    monkeypatch.setenv("WIKITUI_PICTURES", "halfcell")


async def test_an_image_source_is_shown_as_a_picture_then_the_page_comes_back(sample_vault):
    make_picture(sample_vault / "raw" / "bands.png")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/bands.png")
        await wait_for(pilot, lambda: app.query(PictureView), "the picture", timeout=20)
        await wait_for(pilot, lambda: "PNG image, 320×200 pixels" in screen_text(app), "the picture's caption")
        view = app.query_one(PictureView)
        assert view.picture.size == (320, 200)
        text = screen_text(app)
        assert "▀" in text  # drawn with half blocks
        assert "PNG image, 320×200 pixels" in text and "raw/bands.png · read-only source" in text
        assert not app.query_one(PageView).display
        assert app.focused is view  # the picture took the page pane's focus
        await pilot.press("backspace")  # back to the page shown before
        await wait_for(pilot, lambda: not app.query(PictureView), "the picture to go")
        assert app.query_one(PageView).display and app.focused is app.query_one(PageView)


async def test_a_huge_picture_is_scaled_down_before_it_reaches_the_screen(sample_vault):
    make_picture(sample_vault / "raw" / "poster.png", size=(6000, 4000))
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/poster.png")
        await wait_for(pilot, lambda: app.query(PictureView), "the picture", timeout=30)
        await wait_for(pilot, lambda: "6000×4000 pixels" in screen_text(app), "the picture's caption")
        assert max(app.query_one(PictureView).picture.size) <= 1024


def test_snapshot_of_the_viewer_on_a_png(snap_compare, sample_vault):
    make_picture(sample_vault / "raw" / "bands.png")

    async def before(pilot):
        await wait_ready(pilot)
        pilot.app.main.open_path("raw/bands.png")
        await wait_for(pilot, lambda: pilot.app.query(PictureView), "the picture", timeout=20)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(workspace(sample_vault, watch=False, index=False), terminal_size=(120, 40), run_before=before)


EMBEDS = """---
title: Field Photos
type: note
---

# Field Photos

The bands, as a wikilink embed:

![[bands.png]]

And as a markdown image, with its alt text:

![Four coloured bands](../raw/bands.png)

A missing one keeps its line: ![[nowhere.png]]
"""


def embeds(vault):
    """``vault`` with raw/bands.png and wiki/photos.md, the page embedding it twice."""
    make_picture(vault / "raw" / "bands.png")
    (vault / "wiki" / "photos.md").write_text(EMBEDS, encoding="utf-8")
    return vault


async def open_photos(pilot, app) -> PageView:
    """Open wiki/photos.md and wait until its pictures are decoded (and encoded) and drawn; its page view."""
    app.main.open_path("wiki/photos.md")
    page = app.query_one(PageView)
    await wait_for(pilot, lambda: page.document.pictures, "the pictures to be decoded", timeout=20)
    await pilot.pause()
    return page


async def test_a_page_shows_its_embedded_pictures_under_their_alt_lines(sample_vault):
    app = workspace(embeds(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/photos.md")
        page = app.query_one(PageView)
        await wait_for(pilot, lambda: page.document.pictures, "the pictures to be decoded", timeout=20)
        await pilot.pause()
        lines = [line.text for line in page.document.lines]
        alt = next(i for i, t in enumerate(lines) if "⧉ Four coloured bands" in t)
        assert set(lines[alt + 1].strip()) == {"▀"}  # the picture right under its alt line
        wiki = next(i for i, t in enumerate(lines) if "⧉ bands.png" in t)
        assert set(lines[wiki + 1].strip()) == {"▀"}
        missing = next(i for i, t in enumerate(lines) if "nowhere.png" in t)
        assert "▀" not in lines[missing + 1] if missing + 1 < len(lines) else True
        assert sorted(page.document.pictures) and len(page.document.pictures) == 2
        [row] = [line for line in page.document.lines[wiki + 1:wiki + 2]]
        roles = [r for _t, r, _l in row.segments]
        assert roles[0].startswith("px:#c82828")  # the red band first, as in the file
        assert "▀" in screen_text(app)


def test_snapshot_of_a_page_with_an_embedded_picture(snap_compare, sample_vault):
    embeds(sample_vault)

    async def before(pilot):
        await wait_ready(pilot)
        pilot.app.main.open_path("wiki/photos.md")
        page = pilot.app.query_one(PageView)
        await wait_for(pilot, lambda: page.document.pictures, "the pictures", timeout=20)
        panel = pilot.app.main.query_one("#links")
        await wait_for(pilot, lambda: panel.counts()["unlinked"] is not None, "unlinked mentions", 20)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(workspace(sample_vault, watch=False, index=False), terminal_size=(120, 40), run_before=before)


async def test_a_decompression_bomb_is_one_line_in_the_viewer_and_its_alt_line_on_a_page(sample_vault):
    from tests.core.test_sources_read import bomb_png

    bomb_png(sample_vault / "raw" / "bomb.png")
    (sample_vault / "wiki" / "bomb.md").write_text("---\ntitle: Bomb\n---\n# Bomb\n\n![a bomb](../raw/bomb.png)\n")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/bomb.png")
        await wait_for(pilot, lambda: "bomb.png is not a readable image" in screen_text(app), "the one line", 20)
        assert not app.query(PictureView)
        app.main.open_path("wiki/bomb.md")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        page = app.query_one(PageView)
        assert page.document.pictures == {} and "⧉ a bomb" in screen_text(app)
