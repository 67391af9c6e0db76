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

import errno
import os
import time
from collections.abc import Callable
from pathlib import Path

from wikitui.core.base import faults
from wikitui.core.changes.exchange import create_new, maybe_partial, put_in, read_or_none, settled, swap_in
from wikitui.core.vault.files import append_bytes, file_mode, sync_dir, temp_path, unlink_quietly, write_temp

#: ``merge(base, theirs, ours, later=False)``: the file was expected to hold ``base``
#: but holds ``theirs``; return what to write instead of ``ours`` (None: no file), or
#: raise. ``later`` says ``base`` is our own write and ``theirs`` a later save on it.
Merge = Callable[..., bytes | None]
#: ``noted(found, writing)``: the file held ``found`` (someone else's bytes), and
#: ``writing`` will be written instead (None: not known yet). Called before any write
#: that follows, so a journal can record ``found`` as the text to restore.
Noted = Callable[[bytes | None, bytes | None], None]

#: Merges in a row before giving up on a file that never stops changing.
_MAX_ROUNDS = 64
#: Longest wait for a thread of this process still holding a replaced file open.
_WRITER_WAIT = 2.0


class KeepsChanging(OSError):
    """The file changed again after every merge: someone is writing it continuously."""


def _open_elsewhere(watch: list) -> bool:
    """Whether a descriptor of this process, other than ours, still has one of the replaced files open."""
    try:
        keys = {(st.st_dev, st.st_ino) for st in (os.fstat(item.fd) for item in watch)}
        names = os.listdir("/proc/self/fd")
    except OSError:
        return False
    ours = {item.fd for item in watch}
    for name in names:
        try:
            fd = int(name)
            if fd in ours:
                continue
            st = os.fstat(fd)
        except (ValueError, OSError):
            continue
        if (st.st_dev, st.st_ino) in keys:
            return True
    return False


def _let_writers_finish(watch: list) -> None:
    """Give a writer that opened a file just before our rename the moment it needs to finish its write.

    One in another process needs microseconds; a thread of this process may be
    waiting for the interpreter lock, and is waited for while it holds the file open
    (at most two seconds).
    """
    deadline = time.monotonic() + _WRITER_WAIT
    time.sleep(0.002)
    while _open_elsewhere(watch) and time.monotonic() < deadline:
        time.sleep(0.001)


def late_saves(watch: list, merge_for: Callable[[Path], Merge]) -> None:
    """Bring in what was written to replaced files after the rename handed them back.

    A writer that opened a file just before wikitui renamed over it writes into the
    old file. Each such late write is merged into the file now at the path, the
    same way as a save found before the rename (and that write is watched in turn).
    The descriptors are closed.
    """
    pending = list(watch)
    watch.clear()
    try:
        for _round in range(_MAX_ROUNDS):
            if not pending:
                return
            _let_writers_finish(pending)
            more: list = []
            for item in pending:
                late = settled(item.now, item.now())
                if late == item.seen:
                    continue
                tail = appended(item.seen, late)
                if tail is not None:
                    append_bytes(item.path, tail)
                    continue
                current = read_or_none(item.path)
                merge = merge_for(item.path)
                target = merge(item.seen, late, current, later=True)
                replace_checked(item.path, target, current, merge, watch=more)
            for item in pending:
                item.close()
            pending = more
    finally:
        for item in pending:
            item.close()


def _take_away(path: Path) -> tuple[bytes | None, Path | None]:
    """Rename ``path`` aside atomically: (its bytes, where it now is); (None, None) when it is gone."""
    aside = temp_path(path)
    faults.step("rename")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return None, None
    return read_or_none(aside), aside


def replace_checked(
    path: Path, data: bytes | None, expected: bytes | None, merge: Merge, noted: Noted | None = None,
    watch: list | None = None,
) -> tuple[bytes | None, bytes | None]:
    """Replace ``path``'s content with ``data`` (None: delete it), compare before replace.

    The file is expected to hold ``expected`` (None: not to exist). When it holds
    something else, ``merge`` combines that change with ours and the result is
    written instead; ``merge`` raises when they do not combine, and then the file
    keeps (or gets back) the other writer's bytes.

    When a save lands in the instant between the last read and the rename, the
    rename hands the saved file back; the file then holds our text, and the
    person's save is merged into it next. Any further change found on top of our
    own text is that person's too, made later: ``merge`` is then called with
    ``later=True`` and keeps lines both sides inserted at one place in that order.

    Args:
        path: The file.
        data: What to write (None: remove the file).
        expected: What the file held when ``data`` was worked out.
        merge: How to combine someone else's change with ours (see :data:`Merge`).
        noted: Told about the foreign content found, before the write that follows.
        watch: Collects the replaced files, still open (see :func:`swap_in`).

    Returns:
        (what the file now holds, what it held before this write began).

    Raises:
        KeepsChanging: The file changed again after every one of many merges.
        Exception: Whatever ``merge`` raises.
    """
    replaced, wrote = expected, False
    tmp: Path | None = None
    tmp_data: bytes | None = None

    def ready(data: bytes | None) -> None:
        # The temp file is written and synced before the rename that uses it.
        nonlocal tmp, tmp_data
        if data is None or (tmp is not None and tmp_data is data):
            return
        if tmp is not None:
            unlink_quietly(tmp)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp, tmp_data = write_temp(path, data, file_mode(path)), data

    try:
        for _round in range(_MAX_ROUNDS):
            ready(data)
            current = read_or_none(path)
            if current != expected and maybe_partial(current):
                current = settled(lambda: read_or_none(path), current)
            if current != expected:
                data = merge(expected, current, data, later=wrote)
                if not wrote:
                    replaced = current
                    if noted is not None:
                        noted(current, data)
                expected = current
                ready(data)  # no second read: what is saved from now on, the rename hands back
            if data == expected:
                return data, replaced
            if data is None:
                displaced, aside = _take_away(path)
                if aside is None:  # removed meanwhile, as we wanted
                    return None, replaced
                if displaced == expected:
                    faults.step("unlink")
                    unlink_quietly(aside)
                    sync_dir(path.parent)
                    return None, replaced
                _put_back(aside, path)  # changed between the read and the rename: theirs goes back, then merge
                continue
            assert tmp is not None
            displaced = put_in(tmp, path, watch, expected)
            tmp = None
            if displaced == expected:
                return data, replaced
            # A save landed between the read and the rename: the file holds ours, theirs came back.
            if not wrote:
                replaced = displaced
                if noted is not None:
                    noted(displaced, None)
            tail = appended(expected, displaced)
            if tail is not None and data.endswith(b"\n"):
                # Lines added at the end: they go at the end of the file as it is now, in place,
                # as the writer itself would put them (a writer appending every few ms never waits).
                append_bytes(path, tail)
                return data + tail, replaced
            try:
                merged = merge(expected, displaced, data, later=wrote)
            except BaseException:
                _restore(path, displaced)
                raise
            expected, data, wrote = data, merged, True
    finally:
        if tmp is not None:
            unlink_quietly(tmp)
    raise KeepsChanging(errno.EAGAIN, "the file kept changing while it was being written", str(path))


def appended(before: bytes | None, after: bytes | None) -> bytes | None:
    """The bytes ``after`` adds at the end of ``before``, when that is all it changes (None otherwise).

    ``before`` must end at a line's end (or be empty), so the bytes are whole new lines.
    """
    if before is None or after is None or len(after) <= len(before) or not after.startswith(before):
        return None
    if before and not before.endswith(b"\n"):
        return None
    return after[len(before):]


def _put_back(aside: Path, path: Path) -> None:
    """Return a file renamed aside to its place (a file saved there meanwhile is newer and stays)."""
    faults.step("rename")
    create_new(aside, path)
    unlink_quietly(aside)


def _restore(path: Path, content: bytes | None) -> None:
    """Give a file back the content someone else saved (after a failed merge)."""
    if content is None:
        faults.step("unlink")
        unlink_quietly(path)
    else:
        swap_in(path, content)
