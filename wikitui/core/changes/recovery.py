"""Recovery after a crash: a half-done apply or undo finished or rolled back, and the temp files swept.

:func:`recover` runs whenever a workspace is opened and a journal was left
(:func:`recover_before_reading`: every command that reads the vault, the MCP server
and the TUI open one; the MCP server checks again before each call) and, under the
vault's write lock, before every apply or undo (:func:`recover_locked`). A journal
left in the ``writing`` phase is rolled back (every file back to its old bytes,
unless someone changed it since); one in the ``written`` phase is completed (its
git commits made if missing). See :mod:`wikitui.core.changes.journal`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from wikitui.core.changes.journal import JOURNAL_NAME, Journal, RecoveryReport, read_file_bytes
from wikitui.core.changes.lock import VaultBusy, write_lock
from wikitui.core.vault.files import remove_stale_temps
from wikitui.core.vault.layout import Vault


def sweep_temps(vault: Vault, rels: Iterable[str] = ()) -> list[str]:
    """Remove the temp files crashed wikitui processes left in the state folder and beside ``rels``.

    Returns:
        The files removed, vault-relative.
    """
    folders = {vault.state_dir, vault.wiki_dir, (vault.root / vault.log_path).parent, vault.root}
    try:
        folders |= {p for p in vault.state_dir.iterdir() if p.is_dir() and p.name != "index"}
    except OSError:
        pass
    folders |= {(vault.root / rel).parent for rel in rels}
    removed: list[str] = []
    for folder in sorted(folders):
        removed += [p.relative_to(vault.root).as_posix() if p.is_relative_to(vault.root) else p.as_posix()
                    for p in remove_stale_temps(folder)]
    return removed


def recover(vault: Vault) -> RecoveryReport | None:
    """Finish or undo an apply that a crash interrupted, and remove the temp files crashes left.

    Call it at start-up. A journal still in the ``writing`` phase is rolled back:
    every file goes back to its old bytes, unless someone changed it since. One
    in the ``written`` phase is completed: its git commits are made if missing.

    Returns:
        What was done; None when no journal was left (stray temp files are still
        removed), when another live process is busy writing (its journal is its own),
        or when the vault is read-only (nothing can have been writing in it).
    """
    from wikitui.core.vault.statedir import ensure_state_dir

    if not vault.state_writable():
        return None
    ensure_state_dir(vault, create=False)
    try:
        with write_lock(vault, wait_s=0):  # a live writer's journal is its own: never wait on it here
            return recover_locked(vault)
    except VaultBusy:
        return None


def interrupted(vault: Vault) -> bool:
    """Whether an apply or undo left its journal (one ``stat``: what every command that reads checks first)."""
    return (vault.state_dir / JOURNAL_NAME).exists()


def recover_before_reading(vault: Vault) -> tuple[RecoveryReport | None, str | None]:
    """Recover an interrupted apply or undo before the vault is read, so no reader sees half of one.

    Costs one ``stat`` when no journal was left (the usual case); otherwise runs
    :func:`recover`. A vault that cannot be written (read-only) cannot be recovered:
    it is read as it is, and the second value says so in one line.

    Returns:
        (what recovery did or None, a one-line problem or None).
    """
    if not interrupted(vault):
        return None, None
    try:
        return recover(vault), None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return None, (f"an interrupted apply could not be finished or rolled back ({reason}: the vault is not "
                      "writable); reading the vault as it is")


def recover_locked(vault: Vault) -> RecoveryReport | None:
    """:func:`recover`, for a caller that already holds :func:`write_lock`."""
    path = vault.state_dir / JOURNAL_NAME
    raw = read_file_bytes(path)
    if raw is None:
        sweep_temps(vault)
        return None
    journal = Journal(vault, "?", "?")
    journal.from_crash = True
    try:
        journal.data = json.loads(raw)
    except ValueError:
        # An atomic write cannot leave half a journal; an unreadable one is not ours to act on.
        os.replace(path, path.with_suffix(".corrupt"))
        return RecoveryReport("ignored unreadable journal", "?", "?")
    rels = [*journal.data.get("files", {}), *journal.data.get("appends", {})]
    if journal.data.get("phase") != "written":
        report = journal.rollback()
    else:
        report = RecoveryReport("completed", journal.data.get("kind", "?"), journal.data.get("changeset", "?"))
        commit = journal.data.get("commit")
        if commit:
            from wikitui.core.changes.git import GitError, finish_commits, is_git_vault

            if is_git_vault(vault):
                try:
                    finish_commits(vault, commit, {rel: journal.old_bytes(rel) for rel in commit.get("before", [])})
                except GitError:
                    report.skipped.extend(commit.get("paths", []))
        journal.finish()
    report.removed_temps = sweep_temps(vault, rels)
    return report
