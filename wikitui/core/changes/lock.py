"""The vault's write lock: one apply, undo or recovery at a time (``.wikitui/write.lock``).

Two writers on one vault (two workspaces, a cron ``ingest --apply``, an MCP
client) take the lock in turn: the second *waits* for the first, within a bound
(:data:`WAIT_S`), and then plans its writes against what the first wrote (apply
reads every file under the lock). The lock is the operating system's (``flock``
on POSIX, ``msvcrt.locking`` on Windows) on a file that is never removed, so a
holder that dies (a crash, ``kill -9``) releases it at once and no waiter can
mistake a half-made lock for a stale one. The file holds its holder's pid, for
the message a waiter gives when its bound runs out.

A thread that holds the lock may take it again (an apply runs recovery inside
it); another thread of the same process waits like another process.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wikitui.core.base.errors import ReadOnlyVault, WikituiError
from wikitui.core.vault.layout import Vault

LOCK_NAME = "write.lock"
#: How long a writer waits for another one to finish before giving up (seconds). An apply of a large changeset
#: on a slow disk takes seconds; a writer stuck for longer than this is reported rather than waited on forever.
WAIT_S = 30.0

_held_lock = threading.Lock()
_held: dict[Path, tuple[int, int]] = {}  # lock path -> (owning thread id, depth)


class VaultBusy(WikituiError):
    """Another wikitui process kept the vault's write lock for longer than the writer would wait."""


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


def _holder(path: Path) -> str:
    try:
        pid = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        pid = ""
    return f" (pid {pid})" if pid.isdigit() else ""


def _reenter(path: Path) -> bool:
    """Count one more level when this thread already holds the lock on ``path``."""
    me = threading.get_ident()
    with _held_lock:
        owner = _held.get(path)
        if owner is not None and owner[0] == me:
            _held[path] = (me, owner[1] + 1)
            return True
    return False


def _leave(path: Path) -> bool:
    """Drop one level; True when this was the outermost one (the OS lock is to be released)."""
    with _held_lock:
        owner, depth = _held[path]
        if depth > 1:
            _held[path] = (owner, depth - 1)
            return False
        del _held[path]
        return True


@contextmanager
def write_lock(vault: Vault, *, wait_s: float | None = None) -> Iterator[None]:
    """Hold the vault's write lock (``.wikitui/write.lock``) for an apply, an undo or a recovery.

    Args:
        vault: The vault.
        wait_s: How long to wait while another writer holds it (default :data:`WAIT_S`; 0: do not wait).

    Raises:
        VaultBusy: Another writer held the lock for all of ``wait_s``; nothing was written.
        ReadOnlyVault: The vault cannot be written (a read-only folder or mount); nothing was written.
    """
    from wikitui.core.vault.statedir import ensure_state_dir

    if not vault.state_writable():
        raise ReadOnlyVault(f"{vault.root} is read-only: nothing was written")
    path = ensure_state_dir(vault) / LOCK_NAME
    if _reenter(path):
        try:
            yield
        finally:
            _leave(path)
        return
    bound = WAIT_S if wait_s is None else max(0.0, wait_s)
    fd = os.open(path, os.O_CREAT | os.O_RDWR | getattr(os, "O_CLOEXEC", 0), 0o666)  # 0666 & ~umask, as every file
    try:
        deadline = time.monotonic() + bound
        pause = 0.005
        while not _try_lock(fd):
            left = deadline - time.monotonic()
            if left <= 0:
                waited = f" for {bound:g} s" if bound else ""
                raise VaultBusy(f"another wikitui{_holder(path)} is applying changes in this vault and has not "
                                f"finished{waited}; nothing was written: try again when it has finished")
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.05)
        with _held_lock:
            _held[path] = (threading.get_ident(), 1)
        try:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, str(os.getpid()).encode("ascii"))
            yield
        finally:
            if _leave(path):
                try:
                    os.ftruncate(fd, 0)
                finally:
                    _unlock(fd)
    finally:
        os.close(fd)


def lock_held(vault: Vault) -> bool:
    """Whether some writer (this process or another) holds the vault's write lock now."""
    path = vault.state_dir / LOCK_NAME
    with _held_lock:
        if path in _held:
            return True
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        if _try_lock(fd):
            _unlock(fd)
            return False
        return True
    finally:
        os.close(fd)
