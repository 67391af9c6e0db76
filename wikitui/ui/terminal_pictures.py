"""What drawing pictures needs from the terminal, got without asking it (so no typed key is read).

textual-image loaded quietly (:func:`import_quietly`), a cell's size in pixels
(:func:`cell_pixels`), whether the app writes 24-bit colours (:func:`app_truecolor`),
and a writer of escape sequences through the app's driver (:func:`driver_writer`).
Shared by the page pane's embedded pictures and the picture widgets.

It is also the adapter over textual-image's internals: the one module importing its private
modules (the cell size it caches, its sixel encoder, the kitty protocol's diacritics table),
which it has no public name for; tests/test_private_access.py holds every other module to that.
"""

from __future__ import annotations

import os
import threading

from wikitui.ui.picture_method import choose_method

#: Held while textual-image loads: the app loads it in a worker after its first screen, and a
#: picture shown meanwhile waits for that load instead of seeing a half-initialised module.
_LOADING = threading.Lock()


def import_quietly():
    """textual-image's widget module, loaded as if stdout were not a terminal (it asks nothing).

    The cell size is then read from the kernel (an ioctl: no escape sequence, no keys read).
    Safe from any thread (one load at a time).
    """
    with _LOADING:
        return _import_quietly()


def _import_quietly():
    import io
    import sys

    if "textual_image.widget" in sys.modules:
        return sys.modules["textual_image.widget"]
    real = sys.__stdout__
    # Not a terminal: textual-image asks nothing (Textual draws on stderr). typeshed calls sys.__stdout__ Final,
    # but Python lets it be replaced, and it is put back below.
    sys.__stdout__ = io.StringIO()  # type: ignore[misc,assignment]
    try:
        from textual_image import widget
        from textual_image._terminal import CellSize, get_cell_size
    finally:
        sys.__stdout__ = real  # type: ignore[misc]  # (see above)
    try:  # the real cell size, from the kernel (no escape sequence, no keys read)
        from textual_image._posix import get_tiocgwinsz

        rows, columns, width, height = get_tiocgwinsz()
        if rows and columns and width and height:
            get_cell_size._result = CellSize(width // columns, height // rows)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - not a terminal, or another platform: 10x20-pixel cells assumed
        pass
    return widget


def cell_pixels() -> tuple[int, int]:
    """A terminal cell's (width, height) in pixels, never asking the terminal (10×20 when it cannot be known)."""
    try:
        if choose_method(os.environ) != "auto":
            import_quietly()  # the size from the kernel, cached before textual-image could ask
    except Exception:  # noqa: BLE001 - a terminal that cannot say: the usual 1:2 cell
        return 10, 20
    return cell_size()


def cell_size() -> tuple[int, int]:
    """The cell size textual-image knows now, in pixels (10×20 when it cannot say)."""
    try:
        from textual_image._terminal import get_cell_size

        cell = get_cell_size()
        return (cell.width or 10), (cell.height or 20)
    except Exception:  # noqa: BLE001 - a terminal that cannot say: the usual 1:2 cell
        return 10, 20


def kitty_diacritics() -> list[int]:
    """The kitty protocol's row/column diacritics (number → code point), textual-image's private table."""
    import_quietly()  # importing textual-image's renderables otherwise asks the terminal (and eats keys)
    from textual_image.renderable.tgp import _NUMBER_TO_DIACRITIC

    return _NUMBER_TO_DIACRITIC


def image_to_sixels(image) -> str:
    """A PIL image as one sixel image (``ESC P … q … ESC \\``): textual-image's encoder (it has no public one)."""
    from textual_image._sixel import image_to_sixels as encode

    return encode(image)


def app_truecolor(app) -> bool:
    """Whether ``app`` writes 24-bit colours to its terminal."""
    return getattr(app.console, "color_system", None) == "truecolor"


def driver_writer(app):
    """A function writing escape sequences through ``app``'s driver: ordered with its frames, never from a thread.

    textual-image's own kitty renderable writes to ``sys.__stdout__`` from whichever
    thread renders, which can land in the middle of a frame; the driver's writer keeps
    one queue. Nothing is written once the driver is gone (the app is closing).
    """

    def send(sequence: str) -> None:
        driver = getattr(app, "_driver", None)
        if driver is not None:
            driver.write(sequence)

    return send
