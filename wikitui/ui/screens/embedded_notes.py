"""Loading what a page's anchored embeds show (``![[Page#^id]]``, ``![[Page#Heading]]``) off the UI thread.

When a page is shown, its embeds of a block or a section of a page are resolved and
the pages read in a thread worker (:func:`~wikitui.core.vault.sections.embedded_parts`,
a few levels deep, loops stopped); when they are ready, and the page is still the one
shown, it is laid out again with each part under its embed line
(:class:`~wikitui.ui.markdown.embedded_notes.EmbeddedNote`). An embed whose page or
part is missing keeps its line. A page without such embeds costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wikitui.core.vault.sections import embedded_parts
from wikitui.core.vault.files import decode_text
from wikitui.ui.markdown.embedded_notes import MAX_EMBED_DEPTH, EmbeddedNote

if TYPE_CHECKING:
    from wikitui.ui.screens.shown_place import ShownPlace

#: Bytes of an embedded page read at most (a part of a huge page is not worth freezing for).
MAX_EMBEDDED_BYTES = 2_000_000


def load_embedded_notes(display: ShownPlace, path: str) -> None:
    """Start finding the parts ``path`` (just shown) embeds; they are drawn under their lines when ready."""
    graph = display.workspace.graph
    doc = display.page.document
    if graph is None or not any(link.embed and link.anchor for link in doc.links):
        return
    links = list(doc.links)
    root = display.workspace.root
    app = display.screen.app

    def read(rel: str) -> str | None:
        try:
            with open(root / rel, "rb") as f:
                data = f.read(MAX_EMBEDDED_BYTES)
        except OSError:
            return None
        return decode_text(data)[0]

    def work() -> None:
        parts = embedded_parts(links, path, graph.resolve, read, depth=MAX_EMBED_DEPTH)
        if parts:
            app.call_from_thread(_arrived, display, doc, {index: EmbeddedNote(part) for index, part in parts.items()})

    display.screen.run_worker(work, thread=True, group="page-embeds", exclusive=True, exit_on_error=False)


def _arrived(display: ShownPlace, doc, notes: dict) -> None:
    page = display.page
    if page.document is not doc:
        return  # another page is shown now
    doc.add_pictures(notes)
    page.relayout()
