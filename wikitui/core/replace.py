"""Compare before replace: new bytes into a file without losing a save that lands meanwhile.

An apply reads a page, works out its new text, then renames that text over the
page. A person (an editor, Obsidian, a sync tool) may save the page in between.
:func:`replace_checked` closes that gap (DESIGN §8): right before the rename it
reads the file again and, when it no longer holds what the apply read, merges the
two changes (or stops with the caller's conflict) before writing.

The rename itself is an atomic exchange where the system has one (Linux
``renameat2(RENAME_EXCHANGE)``): the file it displaces comes back to us, so even a
save landing between that last read and the rename is seen and merged in, not
lost. Elsewhere a hard link to the old file catches saves made in place, which is
how most editors save.
"""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from wikitui.core import faults
from wikitui.core.fsutil import unlink_quietly, file_mode, sync_dir, temp_path, write_temp

#: ``merge(base, theirs, ours)``: the file was expected to hold ``base`` but holds
#: ``theirs``; return what to write instead of ``ours`` (None: no file), or raise.
Merge = Callable[[bytes | None, bytes | None, bytes | None], bytes | None]
#: ``noted(found, writing)``: the file held ``found`` (someone else's bytes), and
#: ``writing`` will be written instead (None: not known yet). Called before any write
#: that follows, so a journal can record ``found`` as the text to restore.
Noted = Callable[[bytes | None, bytes | None], None]

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
_UNSUPPORTED = {errno.ENOSYS, errno.EINVAL, getattr(errno, "ENOTSUP", -1), getattr(errno, "EOPNOTSUPP", -1)}
#: Merges in a row before giving up on a file that never stops changing.
_MAX_ROUNDS = 64


class KeepsChanging(OSError):
    """The file changed again after every merge: someone is writing it continuously."""


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


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _create_new(tmp: Path, path: Path) -> bool:
    """Rename ``tmp`` to ``path`` unless ``path`` exists (then False)."""
    try:
        if _rename2(tmp, path, _RENAME_NOREPLACE):
            return True
        os.link(tmp, path)  # fails when path exists: the portable no-replace rename
        return True
    except FileExistsError:
        return False


def _swap(tmp: Path, path: Path) -> bytes | None:
    """Put ``tmp`` at ``path`` atomically; the bytes it displaced (None: no file was there)."""
    while True:
        faults.step("rename")
        try:
            if _rename2(tmp, path, _RENAME_EXCHANGE):
                return _read(tmp)  # tmp now holds the file that was at path a moment ago
        except FileNotFoundError:
            if _create_new(tmp, path):
                return None
            continue  # created meanwhile: exchange with it
        return _swap_portable(tmp, path)


def _swap_portable(tmp: Path, path: Path) -> bytes | None:
    """:func:`_swap` without an exchange: a hard link keeps the old file to read after the rename."""
    keep = temp_path(path)
    try:
        os.link(path, keep)
    except FileNotFoundError:
        if _create_new(tmp, path):
            return None
        return _swap_portable(tmp, path)
    except OSError:  # no hard links on this filesystem: the last read is all we have
        before = _read(path)
        os.replace(tmp, path)
        return before
    try:
        os.replace(tmp, path)
        return _read(keep)  # in-place saves made up to the rename are in it
    finally:
        unlink_quietly(keep)


def swap_in(path: Path, data: bytes) -> bytes | None:
    """Write ``data`` to ``path`` atomically and return what the rename displaced.

    The new file keeps the old one's permission bits (a new file gets ``0666 & ~umask``).

    Returns:
        The bytes the file held at the moment of the rename; None when there was no file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = write_temp(path, data, file_mode(path))
    try:
        displaced = _swap(tmp, path)
    finally:
        faults.step("unlink")
        unlink_quietly(tmp)  # after an exchange it holds the displaced file
    sync_dir(path.parent)
    return displaced


def _take_away(path: Path) -> tuple[bytes | None, Path | None]:
    """Rename ``path`` aside atomically: (its bytes, where it now is); (None, None) when it is gone."""
    aside = temp_path(path)
    faults.step("rename")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return None, None
    return _read(aside), aside


def replace_checked(
    path: Path, data: bytes | None, expected: bytes | None, merge: Merge, noted: Noted | None = None
) -> tuple[bytes | None, bytes | None]:
    """Replace ``path``'s content with ``data`` (None: delete it), compare before replace.

    The file is expected to hold ``expected`` (None: not to exist). When it holds
    something else, ``merge`` combines that change with ours and the result is
    written instead; ``merge`` raises when they do not combine, and then the file
    keeps (or gets back) the other writer's bytes.

    Args:
        path: The file.
        data: What to write (None: remove the file).
        expected: What the file held when ``data`` was worked out.
        merge: How to combine someone else's change with ours (see :data:`Merge`).
        noted: Told about every foreign content found, before the write that follows.

    Returns:
        (what the file now holds, what it held just before: the text to restore to undo this write).

    Raises:
        KeepsChanging: The file changed again after every one of many merges.
        Exception: Whatever ``merge`` raises.
    """
    for _round in range(_MAX_ROUNDS):
        current = _read(path)
        if current != expected:
            data = merge(expected, current, data)
            if noted is not None:
                noted(current, data)
            expected = current
            continue  # read again: it may have moved on while we merged
        if data == current:
            return data, current
        if data is None:
            displaced, aside = _take_away(path)
            if aside is None:  # removed meanwhile, as we wanted
                return None, None
            if displaced == expected:
                faults.step("unlink")
                unlink_quietly(aside)
                sync_dir(path.parent)
                return None, displaced
            _put_back(aside, path)  # changed between the read and the rename: theirs goes back, then merge
            continue
        displaced = swap_in(path, data)
        if displaced == expected:
            return data, expected
        # A save landed between the read and the rename: the file holds ours, theirs came back.
        if noted is not None:
            noted(displaced, None)
        try:
            merged = merge(expected, displaced, data)
        except BaseException:
            _restore(path, displaced)
            raise
        expected, data = data, merged
    raise KeepsChanging(errno.EAGAIN, "the file kept changing while it was being written", str(path))


def _put_back(aside: Path, path: Path) -> None:
    """Return a file renamed aside to its place (a file saved there meanwhile is newer and stays)."""
    faults.step("rename")
    _create_new(aside, path)
    unlink_quietly(aside)


def _restore(path: Path, content: bytes | None) -> None:
    """Give a file back the content someone else saved (after a failed merge)."""
    if content is None:
        faults.step("unlink")
        unlink_quietly(path)
    else:
        swap_in(path, content)
