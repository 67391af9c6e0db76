"""Loading a page's embedded pictures (``![[x.png]]``, ``![alt](x.png)``) off the UI thread.

When a page is shown, its embeds that resolve to a picture in the vault are decoded
and scaled down in a thread worker (:func:`~wikitui.ui.markdown.pictures.small_picture`);
when they are ready, and the page is still the one shown, the page is laid out again
with each picture under its embed line. A picture that cannot be read keeps just its
line (the alt text). A page with no embedded picture costs nothing.

How they are drawn is the terminal's one drawing method
(:func:`~wikitui.ui.picture_method.method_in_use`): under kitty's protocol the worker
encodes each picture as PNG (at most 72×24 cells) and the page draws it as placeholder
cells (:mod:`~wikitui.ui.markdown.kitty_pictures`), its data sent through the app's
driver; under sixel the worker also encodes each picture as sixel for the pane's
width, and the page writes it where the picture's rows are when all of them are in
view (:mod:`~wikitui.ui.markdown.sixel_pictures`; another width is encoded in a
worker too, half blocks meanwhile); everywhere else as half blocks.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from wikitui.core.vault.formats.kinds import kind_of
from wikitui.ui.markdown.pictures import picture_box, picture_size, small_picture
from wikitui.ui.picture_method import method_in_use
from wikitui.ui.terminal_pictures import app_truecolor, cell_pixels, driver_writer

if TYPE_CHECKING:
    from wikitui.ui.screens.shown_place import ShownPlace

#: Most pictures of one page that are drawn (the rest keep their line).
MAX_PICTURES = 24


def load_embedded_pictures(display: ShownPlace, path: str) -> None:
    """Start decoding the pictures ``path`` (just shown) embeds; they are drawn when ready."""
    graph = display.workspace.graph
    page = display.page
    doc = page.document
    if graph is None or not any(link.embed for link in doc.links):
        return
    wanted: dict[int, str] = {}
    for index, link in enumerate(doc.links):
        if link.embed and len(wanted) < MAX_PICTURES:
            target = graph.resolve(link, path)
            if target is not None and kind_of(target) == "image":
                wanted[index] = target
    if not wanted:
        return
    root = display.workspace.root
    app = display.screen.app
    method = page_method(app)
    # The cell size here, not in the worker: reading it may load textual-image with stdout swapped out.
    cell = cell_pixels() if method != "halfcell" else None
    # Each at its ``|W`` / ``|WxH`` size, else the largest size drawn (the terminal scales it for a narrower pane).
    sizes = {index: picture_size(doc.links[index].label, doc.links[index].kind) for index in wanted}
    sized = any(picture_box(size) != picture_box("") for size in sizes.values())
    size_cell = cell or (cell_pixels() if sized else (10, 20))  # pixels to cells as the terminal draws them
    boxes = {index: picture_box(size, size_cell) for index, size in sizes.items()}
    if method == "sixel":
        from wikitui.ui.markdown.sixel_pictures import SixelPicture, decode_picture, encode_sixel

        assert cell is not None  # read above for sixel and kitty
        request = sixel_encoder(display, doc, cell)
        width = page.scrollable_content_region.width

    def decode(file, box):
        if method == "sixel" and cell is not None:  # decoded, and encoded for the pane's width, once per picture
            picture = SixelPicture(decode_picture(file, cell, box), cell, request)
            size = picture.cells(width)
            picture.add_sixel(size, encode_sixel(picture.image, cell, size))
            return picture
        if method == "kitty" and cell is not None:  # (the cell is read for kitty and sixel)
            from wikitui.ui.markdown.kitty_pictures import encode_picture

            return encode_picture(file, box, cell)
        return small_picture(file, *box)

    def work() -> None:
        decoded, by_target = {}, {}
        for index, target in wanted.items():
            key = (target, boxes[index])
            if key not in by_target:  # a picture embedded twice at one size is decoded (and sent) once
                try:
                    by_target[key] = decode(root / target, boxes[index])
                except Exception:  # noqa: BLE001 - unreadable, too large, not a picture: the alt line stays
                    by_target[key] = None
            if by_target[key] is not None:
                decoded[index] = by_target[key]
        if decoded:
            app.call_from_thread(_arrived, display, doc, decoded, cell if method == "kitty" else None)

    display.screen.run_worker(work, thread=True, group="page-pictures", exclusive=True, exit_on_error=False)


def page_method(app) -> str:
    """How a page's pictures are drawn in ``app``'s terminal: ``kitty``, ``sixel``, else ``halfcell``."""
    method = method_in_use(os.environ, truecolor=app_truecolor(app))
    return method if method in ("kitty", "sixel") else "halfcell"


def sixel_encoder(display: ShownPlace, doc, cell: tuple[int, int]):
    """A function that encodes a sixel picture of ``doc`` for another size in a worker, then repaints the page."""
    from textual.worker import get_current_worker

    from wikitui.ui.markdown.sixel_pictures import encode_sixel

    def request(picture, size: tuple[int, int]) -> None:
        def work() -> None:
            data = encode_sixel(picture.image, cell, size)
            if not get_current_worker().is_cancelled:
                display.screen.app.call_from_thread(_encoded, display, doc, picture, size, data)

        display.screen.run_worker(work, thread=True, group="page-sixel", exit_on_error=False)

    return request


def _encoded(display: ShownPlace, doc, picture, size: tuple[int, int], data: str | None) -> None:
    if display.page.document is not doc:
        return  # another page is shown now
    picture.add_sixel(size, data)
    display.page.refresh()


def _arrived(display: ShownPlace, doc, decoded: dict, cell: tuple[int, int] | None) -> None:
    page = display.page
    if page.document is not doc:
        return  # another page is shown now (nothing was sent to the terminal yet)
    if cell is not None:
        from wikitui.ui.markdown.kitty_pictures import KittyPicture

        send = driver_writer(display.screen.app)
        shared: dict[int, KittyPicture] = {}  # by the encoded data's identity: one picture, one id per size
        # (data, pixels) from encode_picture, by position: mypy takes a starred Any for all the arguments
        decoded = {index: shared.setdefault(id(encoded), KittyPicture(encoded[0], encoded[1], cell, send))
                   for index, encoded in decoded.items()}
    if any(hasattr(picture, "sixels") for picture in decoded.values()):
        from wikitui.ui.markdown.sixel_pictures import repaint_on_return

        repaint_on_return(page)
    doc.add_pictures(decoded)
    page.relayout()
