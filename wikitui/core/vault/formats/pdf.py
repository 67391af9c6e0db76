"""PDF to markdown with page markers, through pypdf.

Each page's text follows a ``[page N]`` line, so a citation ``raw/x.pdf#page=3``
finds its place and the model can cite pages. The file is read through an open file
object, which pypdf reads as it needs (a path would be read into memory whole).
"""

from __future__ import annotations

import logging
from pathlib import Path

from wikitui.core.vault.formats.conversion import (
    MAX_PDF_PAGES,
    MAX_TEXT_CHARS,
    Conversion,
    clean_text,
    escape_markers,
    failed,
    finish,
)

#: What a page with no text says, in place of its text.
NO_TEXT_PAGE = "(no text on this page: a scanned image or a drawing)"


def page_marker(number: int) -> str:
    """The marker line that opens page ``number`` (1-based) in converted text."""
    return f"[page {number}]"


def convert_pdf(path: Path) -> Conversion:
    """Convert the PDF at ``path``; never raises for a bad file (the Conversion says why)."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    # pypdf reports every oddity of a real-world PDF as a logging warning; with no
    # handler configured Python prints those on stderr, over the TUI or a CLI's output.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    name = path.name
    try:
        with open(path, "rb") as fh:
            reader = PdfReader(fh)
            if reader.is_encrypted:
                problem = _decrypt(reader, name)
                if problem is not None:
                    return failed("pdf", problem)
            return _pages(reader, name)
    except FileNotDecryptedError:
        return failed("pdf", f"{name} is encrypted (password-protected); wikitui cannot read it")
    except DependencyError as exc:
        return failed("pdf", f"{name} needs a library to decrypt it ({exc})", cacheable=False)
    except OSError as exc:
        return failed("pdf", f"{name} could not be read: {exc.strerror or exc}", cacheable=False)
    except Exception as exc:  # noqa: BLE001 - PdfReadError or any parser failure: "not a readable PDF"
        return failed("pdf", f"{name} is not a readable PDF ({_reason(exc)})")


def page_pictures(path: Path, page: int, *, limit: int = 4) -> list[tuple[str, bytes]]:
    """The pictures on page ``page`` (1-based) of a PDF as (MIME type, bytes): what a scanned page is.

    For a vision model reading a page with no text. PNG or JPEG as pypdf extracts
    them; an unreadable PDF or page gives an empty list.
    """
    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    found: list[tuple[str, bytes]] = []
    try:
        with open(path, "rb") as fh:
            reader = PdfReader(fh)
            if reader.is_encrypted and _decrypt(reader, path.name) is not None:
                return []
            if not 1 <= page <= len(reader.pages):
                return []
            for image in reader.pages[page - 1].images:
                data = image.data
                mime = "image/jpeg" if data[:3] == b"\xff\xd8\xff" else "image/png" \
                    if data[:8] == b"\x89PNG\r\n\x1a\n" else None
                if mime is None:
                    continue
                found.append((mime, data))
                if len(found) >= limit:
                    break
    except Exception:  # noqa: BLE001 - no pictures is the answer for a PDF that cannot be read
        return []
    return found


def _decrypt(reader, name: str) -> str | None:
    """Open a PDF that is encrypted with an empty user password (only its permissions are locked)."""
    try:
        if reader.decrypt(""):
            return None
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds here
        if type(exc).__name__ == "DependencyError":
            raise
    return f"{name} is encrypted (password-protected); wikitui cannot read it"


def _pages(reader, name: str) -> Conversion:
    total = len(reader.pages)
    title = _title(reader)
    if total == 0:
        return failed("pdf", f"{name} has no pages")
    texts: list[str] = []
    notes: list[str] = []
    chars = 0
    with_text = 0
    count = min(total, MAX_PDF_PAGES)
    for index in range(count):
        try:
            text = clean_text(reader.pages[index].extract_text() or "").strip()
        except Exception as exc:  # noqa: BLE001 - one bad page must not lose the others
            text = f"(this page could not be read: {_reason(exc)})"
        else:
            with_text += bool(text)
        texts.append(text)
        chars += len(text)
        if chars > MAX_TEXT_CHARS and index + 1 < count:
            count = index + 1
            break
    if with_text == 0:
        conv = failed("pdf", f"{name} has no text layer ({_pages_word(total)} of scanned images?); "
                             "wikitui cannot read it as text")
        conv.pages = total
        return conv
    if count < total:
        notes.append(f"only the first {count:,} of {total:,} pages were converted")
    return finish("pdf", join_pages(texts), notes=notes, title=title, pages=total)


def join_pages(texts: list[str]) -> str:
    """Pages' texts as one markdown text, each after its ``[page N]`` line.

    A page's own lines that look like markers are escaped; an empty page says so.
    """
    return "\n".join(f"{page_marker(n)}\n\n{escape_markers(text) if text else NO_TEXT_PAGE}\n"
                     for n, text in enumerate(texts, 1))


def _title(reader) -> str | None:
    try:
        meta = reader.metadata
        title = meta.title if meta is not None else None
    except Exception:  # noqa: BLE001 - a broken info dictionary is no reason to fail
        return None
    return title if isinstance(title, str) and title.strip() else None


def _pages_word(n: int) -> str:
    return f"{n} page" if n == 1 else f"{n:,} pages"


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
