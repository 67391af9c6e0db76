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


def read_bytes(path: Path | str, limit: int | None = None, size: int | None = None) -> bytes:
    """A file's bytes (its first ``limit`` bytes when given), read with plain descriptors.

    ``open()`` builds a buffered file object per file, which costs as much again as
    reading a small page; a cold load reads every page and a search ten files. The
    first read asks for the size ``fstat`` gives and one byte more, so a file that
    grew since is still read whole, and a short read ends it (regular files only
    read short at their end). A caller that just listed the file passes its
    ``size`` and saves the ``fstat``; so does one asking for a small ``limit``.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        if size is not None:
            ask = max(size, 0) + 1
        elif limit is not None and limit <= 65536:
            ask = limit  # no need to know the size: a read returns at most what is there
        else:
            ask = os.fstat(fd).st_size + 1
        parts: list[bytes] = []
        left = limit
        while left is None or left > 0:
            n = ask if left is None else min(ask, left)
            chunk = os.read(fd, n)
            if chunk:
                parts.append(chunk)
                if left is not None:
                    left -= len(chunk)
            if len(chunk) < n:
                break
            ask = 65536
        return parts[0] if len(parts) == 1 else b"".join(parts)
    finally:
        os.close(fd)


def read_text(path: Path) -> str:
    """Read a text file tolerantly (BOM stripped, bad bytes replaced)."""
    return decode_text(Path(path).read_bytes())[0]
