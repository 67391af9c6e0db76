"""DOCX, PPTX and XLSX to markdown, through markitdown (the optional extra ``wikitui[documents]``).

markitdown pulls in a file-type model (magika, on ONNX) that is heavy to install
and to import, so it is optional and imported on first use; without it each Office
file gets one line saying how to install it. Slides come out with ``[slide N]``
markers, the same shape as a PDF's ``[page N]``, so citations find them.
"""

from __future__ import annotations

import re
import threading
import zipfile
from pathlib import Path

from wikitui.core.formats.conversion import (
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


def convert_office(path: Path, kind: str) -> Conversion:
    """Convert a ``docx``, ``pptx`` or ``xlsx`` file; never raises for a bad file."""
    problem = _zip_problem(path, kind)
    if problem is not None:
        return failed(kind, problem)
    try:
        converter = _markitdown()
    except ImportError:
        return missing_library(kind, path.name)
    try:
        result = converter.convert_local(str(path), file_extension=f".{kind}")
    except Exception as exc:  # noqa: BLE001 - the library's many failures are one line to the user
        if type(exc).__name__ == "MissingDependencyException":
            return missing_library(kind, path.name)
        return failed(kind, f"{path.name} could not be converted ({type(exc).__name__})")
    text = result.markdown or ""
    pages = None
    if kind == "pptx":
        pages = len(_SLIDE_COMMENT.findall(text)) or None
        text = _SLIDE_COMMENT.sub(lambda m: slide_marker(int(m.group(1))) + "\n", escape_markers(text))
    if not text.strip():
        return failed(kind, f"{path.name} has no text")
    return finish(kind, text, title=result.title, pages=pages)
