"""The journal that makes writing several files all-or-nothing, and recovery after a crash.

Each file is written atomically (:func:`~wikitui.core.fsutil.atomic_write`); across
files, ``.wikitui/journal.json`` records every file's old content *before* the
first write. A crash mid-way leaves the journal behind and :func:`recover` (run at
start-up, and before every apply or undo) puts the old contents back. Once pages,
index.md, log.md and wikitui's own records are all written, the journal is marked
``written``; from then on recovery completes the step (the git commit) instead of
undoing it.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from wikitui.core.changeset_model import sha256_bytes
from wikitui.core.errors import WikituiError
from wikitui.core.fsutil import atomic_write
from wikitui.core.vault import Vault

JOURNAL_NAME = "journal.json"
LOCK_NAME = "write.lock"
_UNKNOWN = "?"  # new content not known when the journal is written (index.md, records)


@dataclass
class RecoveryReport:
    """What :func:`recover` found and did.

    Attributes:
        action: ``rolled back`` (a crash mid-write: old contents restored) or
            ``completed`` (a crash after all writes: the commit finished).
        kind: ``apply`` or ``undo``.
        changeset_id: The changeset being applied or undone.
        restored: Files put back to their old content.
        skipped: Files changed by someone else since the crash, left alone.
    """

    action: str
    kind: str
    changeset_id: str
    restored: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def read_file_bytes(path: os.PathLike) -> bytes | None:
    """A file's bytes, or None when it does not exist."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


class Journal:
    """The record that makes a multi-file write all-or-nothing.

    Args:
        vault: The vault.
        kind: ``apply`` or ``undo``.
        changeset_id: The changeset concerned.
    """

    def __init__(self, vault: Vault, kind: str, changeset_id: str) -> None:
        self.vault = vault
        self.data: dict[str, Any] = {
            "version": 1, "kind": kind, "changeset": changeset_id, "phase": "writing",
            "files": {}, "appends": {}, "commit": None,
        }

    @property
    def path(self):
        """``.wikitui/journal.json``."""
        return self.vault.state_dir / JOURNAL_NAME

    def protect(self, rel: str, new: bytes | None | str = _UNKNOWN) -> None:
        """Record ``rel``'s current content before it is written (``new``: what will be written)."""
        new_sha = _UNKNOWN if new == _UNKNOWN else (None if new is None else sha256_bytes(new))  # type: ignore[arg-type]
        entry = self.data["files"].get(rel)
        if entry is not None:  # written twice (a page edit of index.md, then the catalog): final content unknown
            if entry["new_sha"] != new_sha:
                entry["new_sha"] = _UNKNOWN
            return
        self.data["files"][rel] = {"old": _b64(read_file_bytes(self.vault.root / rel)), "new_sha": new_sha}

    def protect_append(self, rel: str) -> None:
        """Record the size of a file that will only be appended to (log.md)."""
        try:
            size: int | None = os.path.getsize(self.vault.root / rel)
        except OSError:
            size = None
        self.data["appends"][rel] = size

    def save(self) -> None:
        """Write the journal (atomically, durably)."""
        atomic_write(self.path, json.dumps(self.data))

    def write(self, rel: str, data: bytes | None) -> None:
        """Write (or, with None, delete) a file the journal protects."""
        if rel not in self.data["files"]:
            raise RuntimeError(f"{rel} is not protected by the journal")
        _write_file(self.vault.root / rel, data)

    def mark_written(self, commit: dict | None) -> None:
        """Every file is written: from now on recovery completes instead of rolling back."""
        self.data["phase"] = "written"
        self.data["commit"] = commit
        self.save()

    def finish(self) -> None:
        """Remove the journal: the step is over."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def rollback(self) -> RecoveryReport:
        """Put every protected file back as it was; files changed by someone else since are left alone."""
        report = RecoveryReport("rolled back", self.data.get("kind", "?"), self.data.get("changeset", "?"))
        for rel, size in self.data.get("appends", {}).items():
            target = self.vault.root / rel
            if size is None:
                if target.exists():
                    target.unlink()
                    report.restored.append(rel)
                continue
            try:
                if os.path.getsize(target) > size:
                    with open(target, "r+b") as fh:
                        fh.truncate(size)
                        fh.flush()
                        os.fsync(fh.fileno())
                    report.restored.append(rel)
            except OSError:
                report.skipped.append(rel)
        for rel, entry in self.data.get("files", {}).items():
            old = _unb64(entry.get("old"))
            current = read_file_bytes(self.vault.root / rel)
            if current == old:
                continue
            new_sha = entry.get("new_sha")
            ours = new_sha == _UNKNOWN or (current is None if new_sha is None else current is not None and sha256_bytes(current) == new_sha)
            if not ours:
                report.skipped.append(rel)
                continue
            _write_file(self.vault.root / rel, old)
            report.restored.append(rel)
        self.finish()
        return report


def _write_file(path: os.PathLike, data: bytes | None) -> None:
    """Write or delete one file (the single place file contents change; tests hook it to simulate a crash)."""
    if data is None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    else:
        atomic_write(path, data)


class VaultBusy(WikituiError):
    """Another wikitui process is applying or undoing changes in this vault right now."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's
        return True
    return True


@contextmanager
def write_lock(vault: Vault) -> Iterator[None]:
    """Hold the vault's write lock (``.wikitui/write.lock``) for an apply, an undo or a recovery.

    The lock names its holder's pid; a lock left by a process that died (a crash)
    is taken over.

    Raises:
        VaultBusy: A live process holds the lock.
    """
    path = vault.state_dir / LOCK_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    for _attempt in range(3):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = int(path.read_text(encoding="ascii").strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and pid != os.getpid() and _alive(pid):
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


def recover(vault: Vault) -> RecoveryReport | None:
    """Finish or undo an apply that a crash interrupted (None when there was none).

    Call it at start-up. A journal still in the ``writing`` phase is rolled back:
    every file goes back to its old content, unless someone changed it since. One
    in the ``written`` phase is completed: its git commit is made if it is missing.
    Returns None too when another live process is busy writing (its journal is its own).
    """
    if not (vault.state_dir / JOURNAL_NAME).exists():
        return None
    try:
        with write_lock(vault):
            return recover_locked(vault)
    except VaultBusy:
        return None


def recover_locked(vault: Vault) -> RecoveryReport | None:
    """:func:`recover`, for a caller that already holds :func:`write_lock`."""
    path = vault.state_dir / JOURNAL_NAME
    raw = read_file_bytes(path)
    if raw is None:
        return None
    journal = Journal(vault, "?", "?")
    try:
        journal.data = json.loads(raw)
    except ValueError:
        # An atomic write cannot leave half a journal; an unreadable one is not ours to act on.
        os.replace(path, path.with_suffix(".corrupt"))
        return RecoveryReport("ignored unreadable journal", "?", "?")
    if journal.data.get("phase") != "written":
        return journal.rollback()
    report = RecoveryReport("completed", journal.data.get("kind", "?"), journal.data.get("changeset", "?"))
    commit = journal.data.get("commit")
    if commit:
        from wikitui.core.gitrepo import GitError, commit_paths, is_git_vault

        if is_git_vault(vault):
            try:
                commit_paths(vault, commit["paths"], commit["subject"], commit.get("body", ""))
            except GitError:
                report.skipped.extend(commit["paths"])
    journal.finish()
    return report
