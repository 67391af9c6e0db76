"""Atomic, confined file writes and tolerant file reads.

Every write wikitui makes goes through :func:`atomic_write`: a temporary file in the
same folder, ``fsync``, then ``os.replace``, so a crash never leaves half a page.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

#: Bytes sniffed to decide whether a file is binary.
_SNIFF = 8192


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file, fsync, rename).

    Text is written as UTF-8 with the newlines exactly as given.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable; not every filesystem allows it
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def is_binary(data: bytes) -> bool:
    """Whether ``data`` (the head of a file) looks like a binary file."""
    return b"\x00" in data[:_SNIFF]


def decode_text(data: bytes) -> tuple[str, bool]:
    """Decode file bytes as text.

    Returns the text (a UTF-8 byte-order mark removed) and whether the bytes were
    valid UTF-8; invalid bytes are replaced rather than raising.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), False


def read_text(path: Path) -> str:
    """Read a text file tolerantly (BOM stripped, bad bytes replaced)."""
    return decode_text(Path(path).read_bytes())[0]
