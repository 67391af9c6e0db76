"""Showing a raw source that needs a converter (PDF, web page, document, table, picture) in the page pane.

The converted text comes from :func:`~wikitui.core.vault.formats.source_text`: cached
after the first time, but that first conversion of a big PDF takes seconds, and even
a cache hit hashes the file. So it runs in a thread worker (the conversion itself in
a child process with a time limit: a hostile file cannot hang the app), the pane says
"Converting…" meanwhile, and keys keep working. The worker also prepares the text
for showing (:func:`prepare`: cleaned, cut into lines, its first screen or cited
page laid out), so the UI thread only swaps the prepared document in, when the pane
still shows that source. A citation's page (``raw/x.pdf#page=3``, the link anchor
``page=3``) scrolls to its ``[page 3]`` line.
A picture is shown as a picture (:mod:`~wikitui.ui.widgets.picture`). A file that
cannot be converted gets its one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikitui.core.vault.formats import kind_of
from wikitui.core.vault.formats.citations import locate
from wikitui.core.vault.visible_text import visible_line

if TYPE_CHECKING:
    from wikitui.core.vault.formats import Conversion
    from wikitui.ui.markdown.document import PageDocument
    from wikitui.ui.screens.shown_place import ShownPlace

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


def show_converted(display: ShownPlace, path: str, *, anchor: str, line: int | None, scroll_y: float) -> None:
    """Show ``path`` through its converter: a "Converting…" message now, the prepared text from a worker."""
    screen, page = display.screen, display.page
    kind = kind_of(path) or "text"
    page.border_title = f"{visible_line(path)} · read-only source"
    page.border_subtitle = "converting…"
    if kind == "text":
        page.show_message("Reading…", f"{path} is large: its first megabytes are being read.")
    else:
        page.show_message("Converting…", f"{path} is being converted to text (the first time takes a moment; "
                                         "it is cached afterwards).")
    vault = display.workspace.vault
    region = page.scrollable_content_region  # read here: the worker must not touch the widget
    size = (region.width, region.height)

    def work() -> None:
        from wikitui.core.vault.formats import source_text

        conversion = source_text(vault, path, isolate=kind != "image")
        if kind == "image" and conversion.ok:
            picture = _decode(vault.root / path)
            screen.app.call_from_thread(show_picture, display, path, picture, conversion.text.strip())
            return
        shown = prepare(path, conversion, anchor=anchor, line=line, scroll_y=scroll_y, size=size)
        screen.app.call_from_thread(_arrived, display, path, shown, scroll_y)

    screen.run_worker(work, thread=True, group="source-text", exclusive=True, exit_on_error=False)


@dataclass(slots=True)
class Prepared:
    """Converted text made ready to show by the worker: the UI thread only swaps it in.

    Attributes:
        conversion: What the converter gave.
        doc: The text as a page document, its lines cleaned and split, and its first
            screen (or the cited page's) parsed and laid out; None when there is no text.
        subtitle: The pane's border subtitle.
        line: The file line to scroll to (a citation's page, a search hit), else None.
        problem: A citation that could not be followed, in one line, else None.
    """

    conversion: Conversion
    doc: PageDocument | None = None
    subtitle: str = ""
    line: int | None = None
    problem: str | None = None


def prepare(path: str, conversion: Conversion, *, anchor: str, line: int | None, scroll_y: float,
            size: tuple[int, int]) -> Prepared:
    """Everything about showing ``conversion`` that does not need the widget (run in the worker).

    Cleaning the text and cutting it into lines costs ~50 ms for 4 MB, and laying out
    a cited page may parse many chunks: on the UI thread that would be a frozen frame.
    ``size`` is the pane's (width, height) when the conversion started; a pane resized
    meanwhile is laid out again by the widget.
    """
    from wikitui.ui.markdown.document import PageDocument

    if not conversion.ok:
        return Prepared(conversion, subtitle="not readable")
    unit = "slides" if conversion.kind == "pptx" else "pages"
    if conversion.kind == "text":  # a large text file: its first megabytes (the note says how many)
        subtitle = "large file" + (" · cut" if conversion.notes else "")
        lexer = lexer_for(path)
    else:
        subtitle = f"converted from {conversion.kind.upper()}" + (
            f" · {conversion.pages:,} {unit}" if conversion.pages else "")
        lexer = "markdown"
    doc = PageDocument(conversion.text, path=path, source_lexer=lexer, valid_utf8=True)
    problem = None
    number = cited_page(anchor)
    if number is not None:
        cite = locate(path, number, conversion)
        problem, line = cite.problem, cite.line
    width, height = size
    if width > 0:
        doc.set_width(width)
        doc.ensure_lines(int(scroll_y) + height + 1)
        if line:
            doc.line_for_source(line)  # lays out down to it, and a screen past it
            doc.ensure_lines(len(doc.lines) + height + 1)
    return Prepared(conversion, doc, subtitle, line, problem)


def _arrived(display: ShownPlace, path: str, shown: Prepared, scroll_y: float) -> None:
    if display.current_path != path or display.current_kind != "source":
        return  # the user moved on meanwhile
    page, notify, conversion = display.page, display.screen.notify, shown.conversion
    page.border_subtitle = shown.subtitle
    if shown.doc is None:
        page.show_message("Cannot show this source", conversion.error or f"{path} has no text")
        notify(conversion.error or f"{path} has no text", severity="warning")
        return
    page.show_document(shown.doc, scroll_y=scroll_y)
    if shown.problem:
        notify(shown.problem, severity="warning")
    if shown.line:
        page.scroll_to_line(shown.line)


def _decode(path):
    """The picture, decoded and scaled down (in the worker), or None when Pillow cannot read it safely."""
    from wikitui.ui.widgets.picture import load_picture

    try:
        return load_picture(path)
    except Exception:  # noqa: BLE001 - OSError, ValueError, a decompression bomb: the description stands in
        return None


def show_picture(display: ShownPlace, path: str, picture, caption: str) -> None:
    """Show an image source as a picture in place of the page pane (its description below it)."""
    from textual.widget import Widget

    from wikitui.ui.widgets.picture import PictureView

    if display.current_path != path or display.current_kind != "source":
        return
    page = display.page
    focused = page.has_focus
    hide_picture(display)
    view = PictureView(picture, caption, id="picture")
    view.border_title = f"{visible_line(path)} · read-only source"
    view.border_subtitle = "picture" if picture is not None else "cannot be drawn"
    parent = page.parent
    assert isinstance(parent, Widget)  # the page shown is mounted in its pane
    parent.mount(view, after=page)
    page.display = False
    if focused:
        view.focus()


def hide_picture(display: ShownPlace) -> None:
    """Put the page pane back in place of a picture shown by :func:`show_picture` (nothing when none is)."""
    pictures = display.screen.query("#picture")
    if pictures:
        focused = any(v.has_focus for v in pictures)
        pictures.remove()
        page = display.page
        page.display = True
        if focused:
            page.focus()
