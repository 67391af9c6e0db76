"""Atomic, confined file writes and tolerant file reads.

Every write wikitui makes goes through :func:`atomic_write` (or, for a write that
must not lose a concurrent edit, :mod:`wikitui.core.changes.replace`): a temporary file in
the same folder, ``fsync``, then a rename, so a crash never leaves half a page.

Modes are kept: a replaced file keeps its permission bits, and a new file gets
``0666 & ~umask`` as any program's would. Temporary files are named
``.<name>.wikitui-<pid>-<random>.tmp``; one whose process is gone was left by a
crash, and :func:`remove_stale_temps` removes it (and nothing else).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
import stat
import time
from pathlib import Path

from wikitui.core.base import faults

#: Bytes sniffed to decide whether a file is binary.
_SNIFF = 8192
_TEMP = re.compile(r"^\..+\.wikitui-(\d+)-[0-9a-f]{8}\.tmp$")
#: What ``tempfile.mkstemp`` named wikitui's temp files before they carried a pid.
_LEGACY_TEMP = re.compile(r"^\..*\.(?:md|json|toml|txt|gitignore)\.[a-z0-9_]{8}\.tmp$")
#: A legacy temp file younger than this may belong to a running older wikitui.
_LEGACY_AGE = 60.0
_O_BINARY = getattr(os, "O_BINARY", 0)


def decode_exact(data: bytes) -> str:
    """File bytes as text that encodes back to the same bytes (:func:`encode_exact`).

    Invalid UTF-8 bytes become lone surrogates (``surrogateescape``), a BOM stays
    ``\\ufeff`` and CRLF stays ``\\r\\n``: text edits keep every byte outside the
    region they change.
    """
    return data.decode("utf-8", "surrogateescape")


def encode_exact(text: str) -> bytes:
    """The inverse of :func:`decode_exact`.

    Raises:
        UnicodeEncodeError: ``text`` holds a lone surrogate that no file byte maps to.
    """
    return text.encode("utf-8", "surrogateescape")


def json_bytes(obj: object, *, indent: int | None = 1) -> bytes:
    """``obj`` as UTF-8 JSON bytes; lone surrogates (kept invalid bytes) are written as ``\\udcXX`` escapes."""
    import json

    # Only strings can hold a surrogate, and inside a JSON string "\udc80" is a valid escape.
    return (json.dumps(obj, ensure_ascii=False, indent=indent) + "\n").encode("utf-8", "backslashreplace")


def temp_path(path: Path) -> Path:
    """A fresh temp file name beside ``path``, in the pattern :func:`remove_stale_temps` knows."""
    name = path.name
    if len(name.encode("utf-8", "surrogateescape")) > 180:  # stay under NAME_MAX with the suffix
        name = name[:40] + "-" + hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return path.with_name(f".{name}.wikitui-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def file_mode(path: Path) -> int | None:
    """The permission bits of an existing file (None when there is none)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return None


def write_temp(path: Path, raw: bytes, mode: int | None = None) -> Path:
    """Write ``raw`` to a new, fsynced temp file beside ``path`` and return its name.

    Args:
        path: The file the temp file will replace.
        raw: The bytes.
        mode: Permission bits to give it; None gives ``0666 & ~umask`` (the kernel
            applies the umask, so no thread races on changing it).
    """
    tmp = temp_path(path)
    faults.step("create")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | _O_BINARY, 0o666)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        faults.step("write")
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view):]
        faults.step("fsync")
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        unlink_quietly(tmp)
        raise
    os.close(fd)
    return tmp


def sync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (not every filesystem allows it)."""
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file, fsync, rename).

    Text is written as UTF-8 with the newlines exactly as given (lone surrogates from
    :func:`decode_exact` back as the bytes they stand for). A replaced file keeps its
    permission bits; a new one gets ``0666 & ~umask``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = encode_exact(data) if isinstance(data, str) else data
    tmp = write_temp(path, raw, file_mode(path))
    try:
        faults.step("rename")
        os.replace(tmp, path)
    except BaseException:
        unlink_quietly(tmp)
        raise
    sync_dir(path.parent)


def append_bytes(path: Path, chunk: bytes) -> None:
    """Append ``chunk`` to ``path`` (created with ``0666 & ~umask`` when missing) and fsync it.

    The old bytes are never read or rewritten. A symlink or a read-only file is not
    appended through: it is replaced by a file holding its bytes and the chunk.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    faults.step("append")
    try:
        fd = os.open(path, flags | _O_BINARY, 0o666)
    except OSError as exc:
        if not isinstance(exc, PermissionError) and exc.errno != errno.ELOOP:
            raise
        try:
            old = read_bytes(path)
        except FileNotFoundError:
            old = b""
        atomic_write(path, old + chunk)
        return
    try:
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd, view):]
        faults.step("fsync")
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_stale_temps(folder: Path) -> list[Path]:
    """Remove the temp files a killed wikitui left in ``folder`` (not recursive).

    Only wikitui's own names are touched: ``.<name>.wikitui-<pid>-<hex>.tmp`` whose
    process is gone, and the older ``tempfile`` names of page and record files once
    they are a minute old. A live process's temp file is left alone.

    Returns:
        The files removed.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        if not name.endswith(".tmp") or not name.startswith("."):
            continue
        m = _TEMP.match(name)
        if m:
            pid = int(m.group(1))
            if pid == os.getpid() or pid_alive(pid):
                continue
        elif _LEGACY_TEMP.match(name):
            try:
                if now - entry.stat(follow_symlinks=False).st_mtime < _LEGACY_AGE:
                    continue
            except OSError:
                continue
        else:
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (someone else's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


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
