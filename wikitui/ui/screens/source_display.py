"""Showing a raw source that needs a converter (PDF, web page, document, table, picture) in the page pane.

The converted text comes from :func:`~wikitui.core.vault.formats.source_text`: cached
after the first time, but that first conversion of a big PDF takes seconds, and even
a cache hit hashes the file. So it runs in a thread worker (the conversion itself in
a child process with a time limit: a hostile file cannot hang the app), the pane says
"Converting…" meanwhile, and keys keep working. When the text arrives, and the pane
still shows that source, it is shown as read-only markdown; a citation's page
(``raw/x.pdf#page=3``, the link anchor ``page=3``) scrolls to its ``[page 3]`` line.
A picture is shown as a picture (:mod:`~wikitui.ui.widgets.picture`). A file that
cannot be converted gets its one line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from wikitui.core.vault.formats import kind_of
from wikitui.core.vault.formats.citations import locate

if TYPE_CHECKING:
    from wikitui.core.vault.formats import Conversion
    from wikitui.ui.screens.page_display import PageDisplay

_PAGE_ANCHOR = re.compile(r"^(?:page|slide)=?(\d{1,9})$", re.IGNORECASE)


def lexer_for(path: str) -> str:
    """The pygments lexer name for a source file, from its name ("text" when none fits)."""
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_for_filename(path).aliases[0]
    except (ClassNotFound, IndexError):
        return "text"


def cited_page(anchor: str) -> int | None:
    """The page a link's anchor cites (``page=3`` → 3), or None."""
    m = _PAGE_ANCHOR.match(anchor.strip()) if anchor else None
    return int(m.group(1)) if m else None


def show_converted(display: PageDisplay, path: str, *, anchor: str, line: int | None, scroll_y: float) -> None:
    """Show ``path`` through its converter: a "Converting…" message now, the text from a worker."""
    screen, page = display.screen, display.page
    kind = kind_of(path) or "text"
    page.border_title = f"{path} · read-only source"
    page.border_subtitle = "converting…"
    if kind == "text":
        page.show_message("Reading…", f"{path} is large: its first megabytes are being read.")
    else:
        page.show_message("Converting…", f"{path} is being converted to text (the first time takes a moment; "
                                         "it is cached afterwards).")
    vault = display.workspace.vault

    def work() -> None:
        from wikitui.core.vault.formats import source_text

        conversion = source_text(vault, path, isolate=kind != "image")
        if kind == "image" and conversion.ok:
            picture = _decode(vault.root / path)
            screen.app.call_from_thread(show_picture, display, path, picture, conversion.text.strip())
            return
        screen.app.call_from_thread(_arrived, display, path, conversion, anchor, line, scroll_y)

    screen.run_worker(work, thread=True, group="source-text", exclusive=True, exit_on_error=False)


def _arrived(display: PageDisplay, path: str, conversion: Conversion, anchor: str, line: int | None,
             scroll_y: float) -> None:
    if display.current_path != path or display.current_kind != "source":
        return  # the user moved on meanwhile
    page, notify = display.page, display.screen.notify
    if not conversion.ok:
        page.border_subtitle = "not readable"
        page.show_message("Cannot show this source", conversion.error or f"{path} has no text")
        notify(conversion.error or f"{path} has no text", severity="warning")
        return
    unit = "slides" if conversion.kind == "pptx" else "pages"
    if conversion.kind == "text":  # a large text file: its first megabytes (the note says how many)
        page.border_subtitle = "large file" + (" · cut" if conversion.notes else "")
        lexer = lexer_for(path)
    else:
        page.border_subtitle = f"converted from {conversion.kind.upper()}" + (
            f" · {conversion.pages:,} {unit}" if conversion.pages else "")
        lexer = "markdown"
    page.show(conversion.text, path=path, scroll_y=scroll_y, read_only_source=lexer, valid_utf8=True)
    number = cited_page(anchor)
    if number is not None:
        cite = locate(path, number, conversion)
        if cite.problem:
            notify(cite.problem, severity="warning")
        line = cite.line
    if line:
        page.scroll_to_line(line)


def _decode(path):
    """The picture, decoded and scaled down (in the worker), or None when Pillow cannot read it safely."""
    from wikitui.ui.widgets.picture import load_picture

    try:
        return load_picture(path)
    except Exception:  # noqa: BLE001 - OSError, ValueError, a decompression bomb: the description stands in
        return None


def show_picture(display: PageDisplay, path: str, picture, caption: str) -> None:
    """Show an image source as a picture in place of the page pane (its description below it)."""
    from wikitui.ui.widgets.picture import PictureView

    if display.current_path != path or display.current_kind != "source":
        return
    page = display.page
    focused = page.has_focus
    hide_picture(display)
    view = PictureView(picture, caption, id="picture")
    view.border_title = f"{path} · read-only source"
    view.border_subtitle = "picture" if picture is not None else "cannot be drawn"
    page.parent.mount(view, after=page)
    page.display = False
    if focused:
        view.focus()


def hide_picture(display: PageDisplay) -> None:
    """Put the page pane back in place of a picture shown by :func:`show_picture` (nothing when none is)."""
    pictures = display.screen.query("#picture")
    if pictures:
        focused = any(v.has_focus for v in pictures)
        pictures.remove()
        page = display.page
        page.display = True
        if focused:
            page.focus()
