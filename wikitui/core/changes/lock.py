"""The vault's write lock: one apply, undo or recovery at a time (``.wikitui/write.lock``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from wikitui.core.errors import ReadOnlyVault, WikituiError
from wikitui.core.vault.files import pid_alive
from wikitui.core.vault.layout import Vault

LOCK_NAME = "write.lock"


class VaultBusy(WikituiError):
    """Another wikitui process is applying or undoing changes in this vault right now."""


@contextmanager
def write_lock(vault: Vault) -> Iterator[None]:
    """Hold the vault's write lock (``.wikitui/write.lock``) for an apply, an undo or a recovery.

    The lock names its holder's pid; a lock left by a process that died (a crash)
    is taken over.

    Raises:
        VaultBusy: A live process holds the lock.
        ReadOnlyVault: The vault cannot be written (a read-only folder or mount); nothing was written.
    """
    from wikitui.core.vault.statedir import ensure_state_dir

    if not vault.state_writable():
        raise ReadOnlyVault(f"{vault.root} is read-only: nothing was written")
    path = ensure_state_dir(vault) / LOCK_NAME
    for _attempt in range(3):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)  # 0666 & ~umask, as every file
        except FileExistsError:
            try:
                pid = int(path.read_text(encoding="ascii").strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and pid != os.getpid() and pid_alive(pid):
                raise VaultBusy(f"another wikitui (pid {pid}) is applying changes in this vault; try again in a moment") from None
            path.unlink(missing_ok=True)  # stale: its holder is gone
            continue
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(str(os.getpid()))
        break
    else:
        raise VaultBusy("could not take the vault's write lock; try again in a moment")
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
