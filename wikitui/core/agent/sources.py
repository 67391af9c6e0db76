"""What the ``read`` tool gives for a source that is not text: its converted text, or its picture.

A PDF, a web page, a Word/PowerPoint/Excel file, a CSV or JSON file is read as the
markdown :func:`~wikitui.core.vault.formats.source_text` makes of it (converted once,
then cached), paged like any file, with a line on top saying how to cite a page. A
file that cannot be converted (encrypted, no text layer, broken) is one line saying
so. A picture goes to a vision model as the picture itself (:class:`WithPictures`:
the tool loop sends it in a user message right after the tool results, since tool
messages carry only text); any other model gets a one-line description. A scanned
PDF's pages go to a vision model as their pictures.

The conversion may take seconds the first time. It runs in a child process with a
time limit (:mod:`~wikitui.core.vault.formats.isolated`): the tool loop runs tools in
a thread of the app's process, where a pure-Python parser would hold the interpreter
lock the UI needs, and a hostile file could hang it. Later reads take the cache.
"""

from __future__ import annotations

from dataclasses import dataclass

from wikitui.core.agent.numbered import numbered
from wikitui.core.agent.reading import describe_binary
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.formats import Conversion, kind_of, source_text

#: A picture Pillow cannot open is described from its header when it is at most this large.
MAX_HEADER_READ = 32 * 1024 * 1024
#: Pages of a scanned PDF whose pictures one ``read`` sends to a vision model.
SCANNED_PAGES_PER_READ = 3

_KIND_NAMES = {"pdf": "PDF", "html": "web page", "docx": "Word document", "pptx": "PowerPoint deck",
               "xlsx": "Excel workbook", "csv": "table (CSV)", "json": "JSON file", "jsonl": "JSON Lines file"}


@dataclass(slots=True)
class WithPictures:
    """A tool result carrying pictures for a vision model.

    Attributes:
        text: What the tool message says.
        pictures: ``(label, mime type, bytes)`` for each picture, in order.
    """

    text: str
    pictures: list[tuple[str, str, bytes]]


def read_source(box, rel: str, offset: int, limit: int) -> str | WithPictures:
    """The ``read`` result for ``rel``, a file that needs a converter (see :func:`formats.needs_conversion`)."""
    vault = box.vault
    kind = kind_of(rel)
    head = f"{rel} (raw source, read-only)" if vault.is_raw(rel) else rel
    if kind == "image":
        return _read_image(box, rel)
    conversion = source_text(vault, rel, isolate=True)
    if not conversion.ok:
        if kind == "pdf" and conversion.pages and box.vision:
            return _scanned_pages(box, rel, conversion, offset)
        return f"{rel}: {conversion.error}" + _linked_from(box, rel)
    return numbered(head, conversion.text, offset, limit, box.max_result_chars - 600, top=[about(rel, conversion)])


def sees_pictures(client) -> bool:
    """Whether the model sees pictures (a client without the question, as a test's stand-in, does not)."""
    supports = getattr(client, "supports_vision", None)
    try:
        return bool(supports()) if supports is not None else False
    except WikituiError:  # no model configured: the turn fails on that with its own message
        return False


def unreadable_source(vault, rel: str, vision: bool) -> str | None:
    """Why ``rel`` (a file that needs a converter) cannot be ingested, in one line; None when it can.

    Converting it here fills the cache, so the turn's reads of it are quick.
    """
    conversion = source_text(vault, rel, isolate=kind_of(rel) != "image")
    if conversion.ok or (vision and conversion.kind == "pdf" and conversion.pages):
        return None  # a scanned PDF goes to a vision model as pictures of its pages
    return f"{rel} cannot be ingested: {conversion.error}"


def about(rel: str, conversion: Conversion) -> str:
    """The line above a converted source's text: what it was, and how to cite a page of it."""
    name = _KIND_NAMES.get(conversion.kind, conversion.kind)
    bits = [f"converted from a {name} to text"]
    if conversion.title:
        bits.append(f'title "{conversion.title}"')
    if conversion.pages:
        unit = "slide" if conversion.kind == "pptx" else "page"
        bits.append(f"{conversion.pages:,} {unit}s; each {unit} starts at a [{unit} N] line; "
                    f"cite {unit} N as {rel}#page=N")
    return "[" + "; ".join(bits) + "]"


def _read_image(box, rel: str) -> str | WithPictures:
    from wikitui.core.vault.formats.images import image_for_model

    described = source_text(box.vault, rel)
    if not described.ok:  # Pillow cannot open it: what its header says, if anything
        path = box.vault.root / rel
        if path.stat().st_size <= MAX_HEADER_READ:
            return describe_binary(box.vault, box.graph, rel, path.read_bytes())
        return f"{rel}: {described.error}" + _linked_from(box, rel)
    line = described.text.strip().splitlines()[-1]
    if not box.vision:
        return (f"{rel}: {line}. The model in use cannot see pictures; describe it from the pages that "
                "embed it" + _linked_from(box, rel))
    picture = image_for_model(box.vault.root / rel)
    if picture is None:
        return f"{rel}: {line}; it could not be decoded to send it" + _linked_from(box, rel)
    mime, data = picture
    return WithPictures(f"{rel}: {line}. The picture itself follows in the next message." + _linked_from(box, rel),
                        [(rel, mime, data)])


def _scanned_pages(box, rel: str, conversion: Conversion, offset: int) -> str | WithPictures:
    """Pictures of the pages of a PDF with no text layer, a few per read (``offset`` counts pages)."""
    from wikitui.core.vault.formats.pdf import page_pictures

    total = conversion.pages or 0
    first = max(0, offset) + 1
    if first > total:
        return f"{rel}: only {total} pages; offset {offset} is past the end"
    last = min(total, first + SCANNED_PAGES_PER_READ - 1)
    pictures = []
    for page in range(first, last + 1):
        for n, (mime, data) in enumerate(page_pictures(box.vault.root / rel, page, limit=2)):
            pictures.append((f"{rel}#page={page}" + (f" (picture {n + 1})" if n else ""), mime, data))
    if not pictures:
        return f"{rel}: {conversion.error}" + _linked_from(box, rel)
    more = f" Call read with offset={last} for the next pages." if last < total else ""
    text = (f"{rel}: {conversion.error}. The pictures of pages {first}-{last} of {total} follow in the next "
            f"message; cite a page as {rel}#page=N.{more}")
    return WithPictures(text, pictures)


def _linked_from(box, rel: str) -> str:
    users = sorted({b.source for b in box.graph.backlinks(rel)})
    return "\nLinked from: " + ", ".join(users[:20]) if users else ""
