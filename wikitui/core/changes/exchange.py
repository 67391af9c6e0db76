"""Atomic renames that hand back the file they replace (Linux ``renameat2``), for compare before replace.

:func:`swap_in` writes new bytes beside a file and renames them over it in one
step; where the system can (``RENAME_EXCHANGE``) the old file comes back, still
open, so whatever someone saved to it up to that instant, or writes to it just
after, is not lost: :mod:`wikitui.core.changes.replace` merges it in. Elsewhere a hard link
keeps the old file for saves made in place, which is how most editors save.
"""

from __future__ import annotations

import ctypes
import errno
import os
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from wikitui.core.base import faults
from wikitui.core.vault.files import file_mode, sync_dir, temp_path, unlink_quietly, write_temp

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_UNSUPPORTED = {errno.ENOSYS, errno.EINVAL, getattr(errno, "ENOTSUP", -1), getattr(errno, "EOPNOTSUPP", -1)}
#: Reads of a changing file, a millisecond apart, before taking what is there.
_SETTLE_READS = 20
#: ``expected`` of a :func:`swap_in` that does not compare.
UNCHECKED = object()


@lru_cache(maxsize=1)
def _renameat2():
    """libc's ``renameat2``, or None where there is none."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _rename2(src: Path, dst: Path, flags: int) -> bool:
    """``renameat2(src, dst, flags)``; False when this system or filesystem cannot do it.

    Raises:
        FileNotFoundError: For an exchange, ``dst`` does not exist.
        FileExistsError: For a no-replace rename, ``dst`` exists.
    """
    fn = _renameat2()
    if fn is None:
        return False
    if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in _UNSUPPORTED:
        return False
    raise OSError(err, os.strerror(err), str(dst))


def read_or_none(path: Path) -> bytes | None:
    """A file's bytes, or None when there is no file."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def create_new(tmp: Path, path: Path) -> bool:
    """Rename ``tmp`` to ``path`` unless ``path`` exists (then False)."""
    try:
        if _rename2(tmp, path, _RENAME_NOREPLACE):
            return True
        os.link(tmp, path)  # fails when path exists: the portable no-replace rename
        return True
    except FileExistsError:
        return False


class Displaced:
    """A file a rename replaced, still open: a writer that opened it just before may still write to it.

    Attributes:
        fd: An open descriptor of the old file (None where it could not be kept).
        seen: Its bytes as read.
        path: Where it was.
    """

    def __init__(self, fd: int | None, seen: bytes, path: Path) -> None:
        self.fd, self.seen, self.path = fd, seen, path

    def now(self) -> bytes:
        """The old file's bytes now."""
        if self.fd is None:
            return self.seen
        size = os.fstat(self.fd).st_size
        return os.pread(self.fd, size + 1, 0) if size else b""

    def settle(self, expected: bytes | None) -> bytes:
        """Read it again until it holds still, when it is not ``expected`` and looks cut short."""
        if self.seen != expected and maybe_partial(self.seen):
            self.seen = settled(self.now, self.seen) or b""
        return self.seen

    def close(self) -> None:
        """Let the old file go."""
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None


def maybe_partial(data: bytes | None) -> bool:
    """Whether bytes read from a file being written may be a write half done (not at a line's end)."""
    return data is not None and not data.endswith(b"\n")


def settled(read: Callable[[], bytes | None], first: bytes | None) -> bytes | None:
    """Read until two reads agree. A reader can see part of a write (one crossing a page, a save
    that truncates, then writes); called only when a file is not what was expected."""
    last = first
    for _ in range(_SETTLE_READS):
        time.sleep(0.001)
        again = read()
        if again == last:
            break
        last = again
    return last


def _hold(path: Path) -> Displaced:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return Displaced(None, read_or_none(path) or b"", path)
    item = Displaced(fd, b"", path)
    item.seen = item.now()
    return item


def _swap(tmp: Path, path: Path) -> Displaced | None:
    """Put ``tmp`` at ``path`` atomically; the file it displaced, held open (None: there was none)."""
    while True:
        faults.step("rename")
        try:
            if _rename2(tmp, path, _RENAME_EXCHANGE):
                return _hold(tmp)  # tmp now holds the file that was at path a moment ago
        except FileNotFoundError:
            if create_new(tmp, path):
                return None
            continue  # created meanwhile: exchange with it
        return _swap_portable(tmp, path)


def _swap_portable(tmp: Path, path: Path) -> Displaced | None:
    """:func:`_swap` without an exchange: a hard link keeps the old file to read after the rename."""
    keep = temp_path(path)
    try:
        os.link(path, keep)
    except FileNotFoundError:
        if create_new(tmp, path):
            return None
        return _swap_portable(tmp, path)
    except OSError:  # no hard links on this filesystem: the last read is all we have
        before = read_or_none(path)
        os.replace(tmp, path)
        return None if before is None else Displaced(None, before, path)
    try:
        os.replace(tmp, path)
        return _hold(keep)  # in-place saves made up to the rename are in it
    finally:
        unlink_quietly(keep)


def put_in(tmp: Path, path: Path, watch: list | None, expected: object) -> bytes | None:
    """Rename the ready temp file ``tmp`` over ``path``; the bytes it displaced (see :func:`swap_in`)."""
    old = None
    try:
        old = _swap(tmp, path)
        if old is not None:
            old.path = path
            if expected is not UNCHECKED:
                old.settle(expected)  # type: ignore[arg-type]
    finally:
        faults.step("unlink")
        unlink_quietly(tmp)  # after an exchange it held the displaced file
        if old is not None and watch is None:
            old.close()
    sync_dir(path.parent)
    if old is None:
        return None
    if watch is not None:
        watch.append(old)
    return old.seen


def swap_in(path: Path, data: bytes, watch: list | None = None, expected: object = UNCHECKED) -> bytes | None:
    """Write ``data`` to ``path`` atomically and return what the rename displaced.

    The new file keeps the old one's permission bits (a new file gets ``0666 & ~umask``).

    Args:
        path: The file.
        data: Its new bytes.
        watch: When given, the displaced file, still open, is added to it as a
            :class:`Displaced`, so a write someone was still making to it can be
            brought in later (see :func:`late_saves`).
        expected: What the file was expected to hold; when it held something that
            looks cut short, it is read until it holds still.

    Returns:
        The bytes the file held at the moment of the rename; None when there was no file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    return put_in(write_temp(path, data, file_mode(path)), path, watch, expected)
