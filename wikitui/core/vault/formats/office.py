"""DOCX, PPTX and XLSX to markdown, through markitdown (the optional extra ``wikitui[documents]``).

markitdown pulls in a file-type model (magika, on ONNX) that is heavy to install
and to import, so it is optional and imported on first use; without it each Office
file gets one line saying how to install it. Slides come out with ``[slide N]``
markers, the same shape as a PDF's ``[page N]``, so citations find them.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import tempfile
import threading
import zipfile
from pathlib import Path

from wikitui.core.vault.formats.conversion import (
    MAX_OFFICE_XML_BYTES,
    Conversion,
    escape_markers,
    failed,
    finish,
    human_size,
)

#: How to install what Office files need (said in every "cannot read" line about it).
DOCUMENTS_HINT = "pip install 'wikitui[documents]'"
#: The name people know each format by.
KIND_NAMES = {"docx": "Word", "pptx": "PowerPoint", "xlsx": "Excel"}

#: Pictures and media inside an Office file, past this size in all, are swapped for a tiny placeholder
#: before conversion: they hold no text, and markitdown inlines them as base64 (memory many times their size).
MEDIA_SWAP_BYTES = 1024 * 1024
_PLACEHOLDER = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
_SLIDE_COMMENT = re.compile(r"^<!-- Slide number: (\d+) -->$", re.MULTILINE)
_lock = threading.Lock()
_converter = None


def slide_marker(number: int) -> str:
    """The marker line that opens slide ``number`` (1-based) in converted text."""
    return f"[slide {number}]"


def _markitdown():
    """The one MarkItDown of the process (built on first use: ~0.1 s after a ~1.5 s import)."""
    global _converter
    with _lock:
        if _converter is None:
            from markitdown import MarkItDown

            _converter = MarkItDown(enable_plugins=False)
        return _converter


def missing_library(kind: str, name: str) -> Conversion:
    """The line for an Office file when markitdown (or one of its format libraries) is not installed."""
    return failed(kind, f"{name}: reading {KIND_NAMES.get(kind, kind.upper())} files needs the optional "
                        f"documents support: {DOCUMENTS_HINT}", cacheable=False)


def _zip_problem(path: Path, kind: str) -> str | None:
    """Why ``path`` is not a sane Office file (not a zip, or XML too big to convert), else None."""
    try:
        with zipfile.ZipFile(path) as zf:
            xml = sum(info.file_size for info in zf.infolist() if info.filename.lower().endswith(".xml"))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return f"{path.name} is not a readable {KIND_NAMES[kind]} file (not a valid .{kind} archive)"
    if xml > MAX_OFFICE_XML_BYTES:
        return (f"{path.name} is too large to convert ({human_size(xml)} of document XML; "
                f"the limit is {human_size(MAX_OFFICE_XML_BYTES)})")
    return None


def text_only_copy(path: Path, kind: str) -> Path | None:
    """A temporary copy of an Office file with its media swapped for a placeholder, or None when they are small.

    The copy is made in the system's temporary folder (never beside the source: raw/
    is not written) and streamed entry by entry, so memory stays flat.
    """
    with zipfile.ZipFile(path) as zf:
        entries = zf.infolist()
        media = {i.filename for i in entries if "/media/" in i.filename.lower()}
        if sum(i.file_size for i in entries if i.filename in media) <= MEDIA_SWAP_BYTES:
            return None
        fd, tmp = tempfile.mkstemp(prefix="wikitui-office-", suffix=f".{kind}")
        try:
            with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as out:
                for info in entries:
                    if info.filename in media:
                        out.writestr(info.filename, _PLACEHOLDER)
                        continue
                    # Stored, not compressed: the copy lives for one conversion, and storing is fastest.
                    with zf.open(info) as src, out.open(zipfile.ZipInfo(info.filename, info.date_time), "w") as dst:
                        shutil.copyfileobj(src, dst, 1024 * 1024)
        except BaseException:
            os.unlink(tmp)
            raise
    return Path(tmp)


def convert_office(path: Path, kind: str) -> Conversion:
    """Convert a ``docx``, ``pptx`` or ``xlsx`` file; never raises for a bad file."""
    problem = _zip_problem(path, kind)
    if problem is not None:
        return failed(kind, problem)
    try:
        converter = _markitdown()
    except ImportError:
        return missing_library(kind, path.name)
    copy = None
    try:
        copy = text_only_copy(path, kind)
        result = converter.convert_local(str(copy or path), file_extension=f".{kind}")
    except Exception as exc:  # noqa: BLE001 - the library's many failures are one line to the user
        if type(exc).__name__ == "MissingDependencyException":
            return missing_library(kind, path.name)
        return failed(kind, f"{path.name} could not be converted ({type(exc).__name__})")
    finally:
        if copy is not None:
            copy.unlink(missing_ok=True)
    text = result.markdown or ""
    pages = None
    if kind == "pptx":
        pages = len(_SLIDE_COMMENT.findall(text)) or None
        text = _SLIDE_COMMENT.sub(lambda m: slide_marker(int(m.group(1))) + "\n", escape_markers(text))
    if not text.strip():
        return failed(kind, f"{path.name} has no text")
    return finish(kind, text, title=result.title, pages=pages)
