"""Which converter a file needs, by its suffix (no converter is imported here)."""

from __future__ import annotations

import os
from pathlib import Path

#: File suffix (lower case) → converter kind.
KINDS = {
    ".pdf": "pdf",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    ".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx",
    ".csv": "csv", ".tsv": "csv",
    ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl",
    ".png": "image", ".jpg": "image", ".jpeg": "image", ".gif": "image", ".webp": "image",
    ".bmp": "image", ".tif": "image", ".tiff": "image",
}
#: Kinds worth caching: converting them costs more than reading the cache.
CACHED_KINDS = frozenset({"pdf", "html", "docx", "pptx", "xlsx", "csv", "json", "jsonl"})


def kind_of(path: str | Path) -> str | None:
    """The converter kind of a file by its suffix, or None for text and unknown files."""
    return KINDS.get(os.path.splitext(str(path))[1].lower())


def needs_conversion(path: str | Path) -> bool:
    """Whether a file is read through a converter (PDF, HTML, Office, tables, images) rather than as text."""
    return kind_of(path) is not None
