"""What a conversion gives back, and the caps that keep every conversion bounded.

A :class:`Conversion` is either markdown text (with ``[page N]`` markers where the
source has pages, and ``[note: ...]`` lines at the top when something was left out)
or one clear line saying why the file could not be converted. Converters never
raise for a bad file: a broken, encrypted or text-less file is a ``Conversion``
with ``error`` set, so a caller (the ``read`` tool, the search index, the viewer)
shows the line and goes on.
"""

from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass


#: Bump when a converter's output changes: cached text of an older version is re-converted.
CONVERTER_VERSION = 1

#: Characters cleaned at a time (then up to the next newline). Each step is a short C call:
#: a thread converting megabytes (a large text file is read in the viewer's worker) lets
#: the UI thread take the interpreter lock between steps (one call over 4 MB held it ~30 ms).
SLICE_CHARS = 128 * 1024
#: Files larger than this are not converted at all (one line says so).
MAX_FILE_BYTES = 200 * 1024 * 1024
#: Converted text longer than this is cut at a line, with a note.
MAX_TEXT_CHARS = 4_000_000
#: PDF pages converted at most (a note says how many were left out).
MAX_PDF_PAGES = 2_000
#: HTML read at most: the article of a page is never past its first few megabytes.
MAX_HTML_BYTES = 5 * 1024 * 1024
#: Text files (CSV, JSON Lines, plain text) read at most before sampling.
MAX_TEXT_BYTES = 4 * 1024 * 1024
#: An Office file whose XML parts add up to more than this is refused (a zip bomb, or too big to convert).
MAX_OFFICE_XML_BYTES = 100 * 1024 * 1024

# Control characters other than tab and newline: PDFs and Office files carry them
# (form feeds, NULs, stray escapes); they have no place in markdown text.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# A line of a document's own text that looks like a page marker would mislead citations.
_MARKER_LIKE = re.compile(r"^(\[(?:page|slide) \d+\])$", re.MULTILINE)


@dataclass(slots=True)
class Conversion:
    """A raw source as markdown text, or the reason it has none.

    Attributes:
        kind: The converter that ran: ``pdf``, ``html``, ``docx``, ``pptx``, ``xlsx``,
            ``csv``, ``json``, ``image``, ``text`` or ``binary``.
        text: The markdown ("" when ``error`` is set).
        error: One line saying why the file could not be converted, else None.
        title: The document's own title when it has one (HTML, PDF metadata).
        pages: Page (or slide) count for paged formats, else None.
        notes: What was left out or sampled; the same notes open ``text``.
        cacheable: False for failures that a change outside the file can fix (an
            optional library not installed, a read error): they are not cached.
    """

    kind: str
    text: str = ""
    _: KW_ONLY
    error: str | None = None
    title: str | None = None
    pages: int | None = None
    notes: tuple[str, ...] = ()
    cacheable: bool = True

    def __post_init__(self) -> None:
        self.notes = tuple(self.notes)  # the cache's JSON gives a list

    @property
    def ok(self) -> bool:
        """Whether the file has text (no error)."""
        return self.error is None

    def as_dict(self) -> dict:
        """The fields as a JSON-ready dict (what the cache stores beside the text)."""
        return {name: getattr(self, name) for name in self.__slots__ if name != "text"} | {"notes": list(self.notes)}


def failed(kind: str, message: str, *, cacheable: bool = True) -> Conversion:
    """A :class:`Conversion` that carries one line saying why there is no text."""
    return Conversion(kind, error=" ".join(message.split()), cacheable=cacheable)


def clean_text(text: str) -> str:
    """Text fit for markdown: newlines normalised, control characters and lone surrogates gone.

    A long text is cleaned :data:`SLICE_CHARS` at a time (see there).
    """
    if len(text) <= SLICE_CHARS:
        return _clean(text)
    parts, start = [], 0
    while start < len(text):
        cut = text.find("\n", start + SLICE_CHARS)
        end = len(text) if cut < 0 else cut + 1  # with its newline: a CRLF is never cut in two
        parts.append(_clean(text[start:end]))
        start = end
    return "".join(parts)


def _clean(text: str) -> str:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    # A lone surrogate cannot be written as UTF-8; it becomes U+FFFD like any bad byte.
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if _has_surrogate(text) else text


def escape_markers(text: str) -> str:
    """A document's own lines that read ``[page N]`` or ``[slide N]``, escaped (``\\[page N]``).

    Only the converter's markers may be whole lines of that form, so a citation
    never lands on a line the document wrote.
    """
    return _MARKER_LIKE.sub(r"\\\1", text) if "[" in text else text


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def finish(kind: str, body: str, *, notes: list[str] | tuple[str, ...] = (), title: str | None = None,
           pages: int | None = None) -> Conversion:
    """Clean ``body``, cut it at :data:`MAX_TEXT_CHARS`, put the notes on top; the final Conversion."""
    body = clean_text(body).strip("\n")
    if pages is None:  # paged converters escape the pages' text before adding their markers
        body = escape_markers(body)
    notes = list(notes)
    if len(body) > MAX_TEXT_CHARS:
        cut = body.rfind("\n", 0, MAX_TEXT_CHARS)
        cut = cut if cut > 0 else MAX_TEXT_CHARS
        notes.append(f"the text was cut after {cut:,} of {len(body):,} characters")
        body = body[:cut]
    head = "".join(f"[note: {n}]\n" for n in notes)
    text = f"{head}\n{body}\n" if head else body + "\n"
    title = (clean_text(title).strip() or None) if title else None
    return Conversion(kind, text, title=title, pages=pages,
                      notes=tuple(notes))


def human_size(size: int) -> str:
    """A byte count as people say it: ``812 bytes``, ``14 KB``, ``3.2 MB``."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
