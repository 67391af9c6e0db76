"""Loading a page's embedded pictures (``![[x.png]]``, ``![alt](x.png)``) off the UI thread.

When a page is shown, its embeds that resolve to a picture in the vault are decoded
and scaled down in a thread worker (:func:`~wikitui.ui.markdown.pictures.small_picture`);
when they are ready, and the page is still the one shown, the page is laid out again
with each picture under its embed line. A picture that cannot be read keeps just its
line (the alt text). A page with no embedded picture costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wikitui.core.vault.formats.kinds import kind_of

if TYPE_CHECKING:
    from wikitui.ui.screens.page_display import PageDisplay

#: Most pictures of one page that are drawn (the rest keep their line).
MAX_PICTURES = 24


def load_embedded_pictures(display: PageDisplay, path: str) -> None:
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

    def work() -> None:
        from wikitui.ui.markdown.pictures import small_picture

        decoded = {}
        for index, target in wanted.items():
            try:
                decoded[index] = small_picture(root / target)
            except Exception:  # noqa: BLE001 - unreadable, too large, not a picture: the alt line stays
                continue
        if decoded:
            display.screen.app.call_from_thread(_arrived, display, doc, decoded)

    display.screen.run_worker(work, thread=True, group="page-pictures", exclusive=True, exit_on_error=False)


def _arrived(display: PageDisplay, doc, decoded: dict) -> None:
    page = display.page
    if page.document is not doc:
        return  # another page is shown now
    doc.add_pictures(decoded)
    page.relayout()
