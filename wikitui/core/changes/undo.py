"""The applied-changeset history and ``/undo`` (DESIGN §4), with or without git.

Every apply leaves a record in ``.wikitui/history/`` (``000012-cs-....json``): the
old and new text of each file it wrote. :func:`undo_last` takes the newest record
not yet undone and puts the old texts back: directly when a file is still what the
changeset wrote, merged three-way when someone edited it since, and not at all
(a :class:`~wikitui.core.changes.builder.FileConflict`) when that edit overlaps. An undo
writes its own log entry and, in a git vault, its own commit (history is never
rewritten). Undoing again undoes the apply before. The newest ``history_keep`` records (200 by
default) are kept; a page's history without git reads them too. Like an apply, an undo compares
each file right before replacing it, so a save landing meanwhile is merged, not lost.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Callable

from wikitui.core.changes.assets import from_base64, is_binary_text, to_base64
from wikitui.core.changes.diffs import merge_texts
from wikitui.core.changes.lock import write_lock
from wikitui.core.changes.model import Changeset, FileConflict
from wikitui.core.changes.recovery import recover_locked
from wikitui.core.changes.transaction import ApplyResult, WriteTransaction, text_of, unresolved_in
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.catalog import INDEX_MARKER
from wikitui.core.vault.files import atomic_write, decode_exact, json_bytes
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault

HISTORY_DIR = "history"
_RECORD = re.compile(r"^(\d{6,})-((?:cs|mcp)-[0-9a-z-]+)\.json$")


class NothingToUndo(WikituiError):
    """No applied changeset is left to undo."""

    exit_code = 1


def _folder(vault: Vault):
    return vault.state_dir / HISTORY_DIR


def _rel(vault: Vault, name: str) -> str:
    return vault.state_rel(f"{HISTORY_DIR}/{name}")


def list_records(vault: Vault) -> list[tuple[str, dict]]:
    """Every history record as (vault-relative path, data), oldest first; unreadable ones skipped."""
    out: list[tuple[int, str, dict]] = []
    try:
        entries = list(_folder(vault).iterdir())
    except OSError:
        return []
    for path in entries:
        m = _RECORD.match(path.name)
        if not m:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("files"), list):
            out.append((int(m.group(1)), _rel(vault, path.name), data))
    out.sort(key=lambda t: t[0])
    return [(rel, data) for _seq, rel, data in out]


def outcomes(vault: Vault) -> dict[str, str]:
    """What became of each changeset the history knows: ``"applied"``, or ``"undone"`` once every apply of it is."""
    out: dict[str, str] = {}
    for _rel, data in list_records(vault):
        changeset_id = str(data.get("changeset", ""))
        if changeset_id and out.get(changeset_id) != "applied":
            out[changeset_id] = "undone" if data.get("undone") else "applied"
    return out


def _encode(record: dict) -> bytes:
    return json_bytes(record)  # kept invalid bytes of a page travel as \udcXX escapes


def _next_seq(vault: Vault) -> int:
    records = list_records(vault)
    return max((int(_RECORD.match(rel.rsplit("/", 1)[-1]).group(1)) for rel, _ in records), default=0) + 1  # type: ignore[union-attr]


def next_record_path(vault: Vault, changeset: Changeset) -> str:
    """The vault-relative path the history record of applying ``changeset`` now gets."""
    return _rel(vault, f"{_next_seq(vault):06d}-{changeset.id}.json")


def record_for_apply(
    vault: Vault, changeset: Changeset, files: list[tuple[str, str | None, str | None]], applied: list[str]
) -> bytes:
    """The bytes of the history record of an apply (its path: :func:`next_record_path`).

    Args:
        vault: The vault.
        changeset: The changeset being applied.
        files: (path, text written or None when deleted, text read there before or None).
        applied: The hunk ids applied.
    """
    seq = _next_seq(vault)
    record = {
        "seq": seq, "changeset": changeset.id, "op": changeset.op, "title": changeset.title,
        "model": changeset.model,  # for the page's history (DESIGN §15) when there is no git
        "applied_at": _dt.datetime.now().isoformat(timespec="seconds"), "hunks": applied,
        "files": [_file_entry(p, old, new) for p, new, old in files],
        "commit": None, "undone": False,
    }
    return _encode(record)


def _file_entry(path: str, old: str | None, new: str | None) -> dict:
    """One file of a record; a binary file's texts as base64 (``"binary": true``), not as ``\\udcXX`` escapes."""
    if not (is_binary_text(old) or is_binary_text(new)):
        return {"path": path, "old": old, "new": new}
    code = (lambda t: None if t is None else to_base64(t))
    return {"path": path, "old": code(old), "new": code(new), "binary": True}


def _texts(item: dict) -> tuple[str | None, str | None]:
    """(old, new) of a record's file, a binary one decoded back to ``decode_exact`` text."""
    old, new = item.get("old"), item.get("new")
    if item.get("binary") is True:
        old, new = (None if t is None else decode_exact(from_base64(t)) for t in (old, new))
    return old, new


def file_texts(item: dict) -> tuple[str | None, str | None]:
    """(text replaced, text written) of one file of a record (None: no file), for a page's history."""
    return _texts(item)


#: How many apply records are kept when the config does not say (``history_keep``).
DEFAULT_KEEP = 200


def prune_records(vault: Vault, keep: int = DEFAULT_KEEP) -> list[str]:
    """Remove all but the newest ``keep`` records (they are ``/undo``'s and the history's before-images).

    Records are kept for undo and for a page's history without git
    (:mod:`wikitui.core.changes.versions`); ``history_keep`` in the config sets ``keep``.

    Returns:
        The vault-relative paths removed.
    """
    records = list_records(vault)
    gone = [rel for rel, _data in records[:max(0, len(records) - max(keep, 1))]]
    for rel in gone:
        try:
            (vault.root / rel).unlink()
        except OSError:
            pass
    return gone


def set_record_commit(vault: Vault, rel: str, commit: str) -> None:
    """Note the git commit an apply made in its record (informational)."""
    path = vault.root / rel
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    data["commit"] = commit
    atomic_write(path, _encode(data))


def _split_index(text: str) -> tuple[str, str] | None:
    at = text.find(INDEX_MARKER)
    return None if at == -1 else (text[:at], text[at:])


def _undo_text(vault: Vault, path: str, old: str | None, new: str | None, disk: str | None) -> tuple[str | None, bool]:
    """What ``path`` should hold after undoing (old → new), given what it holds now.

    Returns:
        (text, or None for no file; whether a merge with later edits was needed).

    Raises:
        FileConflict: A later edit overlaps what the changeset did.
    """
    if disk == new:
        return old, False
    if new is None:  # the changeset deleted it, and it is back
        if disk == old:
            return old, False
        raise FileConflict(path, "was created again since the change being undone deleted it")
    if disk is None:
        if old is None:
            return None, False
        raise FileConflict(path, "was deleted since the change being undone; nothing to restore into")
    if old is None:
        raise FileConflict(path, "was edited since the change being undone created it; undoing would delete those edits")
    if any(is_binary_text(t) for t in (old, new, disk)):
        raise FileConflict(path, "was changed since the change being undone (a binary file is never merged)")
    if path == vault.index_path:  # the catalog below the marker is regenerated anyway: merge the head only
        parts = [_split_index(t) for t in (new, disk, old)]
        if all(parts):
            (new_head, _), (disk_head, disk_tail), (old_head, _) = parts  # type: ignore[misc]
            merge = merge_texts(new_head, disk_head, old_head, theirs_label="before the change")
            if merge.clean:
                return merge.text + disk_tail, True
            raise FileConflict(path, "was edited since in the same place the change being undone touched",
                               merge.conflicts)
    merge = merge_texts(new, disk, old, theirs_label="before the change")
    if not merge.clean:
        raise FileConflict(path, "was edited since in the same place the change being undone touched",
                           merge.conflicts)
    return merge.text, True


def undo_last(
    vault: Vault,
    graph: LinkGraph,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> ApplyResult:
    """Revert the most recently applied changeset that is not undone yet.

    Args:
        vault: The vault.
        graph: Its link graph (kept up to date).
        on_progress: Called as ``on_progress(done, total)``.

    Returns:
        What the undo wrote (``changeset_id`` names the changeset undone).

    Raises:
        NothingToUndo: No applied changeset is left.
        FileConflict: A file was edited since in a way the undo cannot merge (nothing written).
        VaultBusy: Another wikitui process is writing to the vault.
    """
    with write_lock(vault):
        recover_locked(vault)
        return _undo(vault, graph, on_progress)


def _undo(vault: Vault, graph: LinkGraph, on_progress: Callable[[int, int], None] | None) -> ApplyResult:
    records = [(rel, data) for rel, data in list_records(vault) if not data.get("undone")]
    if not records:
        raise NothingToUndo("nothing to undo: no applied changeset is left in this vault's history")
    rel, record = records[-1]
    writes: list[tuple[str, str | None, str | None]] = []
    merged: list[str] = []
    for item in record["files"]:
        path = str(item["path"])
        vault.writable_path(path)  # a tampered record must not write outside the wiki
        disk = text_of(vault, path)
        target, was_merged = _undo_text(vault, path, *_texts(item), disk)
        if was_merged:
            merged.append(path)
        if target != disk:
            writes.append((path, target, disk))
    changeset_id = str(record.get("changeset", "?"))
    title = str(record.get("title", ""))
    result = ApplyResult(changeset_id)
    record = dict(record, undone=True, undone_at=_dt.datetime.now().isoformat(timespec="seconds"))
    if not writes:  # already back as it was (by hand): just mark it
        atomic_write(vault.root / rel, _encode(record))
        return result
    removed = [p for p, t, _ in writes if t is None]
    linked_to_removed = {b.source for p in removed for b in graph.backlinks(p)}
    tx = WriteTransaction(vault, graph, "undo", changeset_id, writes)
    tx.log_as("undo", title)
    tx.records = [(rel, _encode(record))]
    tx.commit_as(f"wikitui: undo | {title}", f"undo of changeset: {changeset_id}")
    outcome = tx.run(on_progress)
    result.written = [p for p, t, _ in writes if t is not None]
    result.deleted = removed
    planned = {p: t for p, t, _ in writes}
    result.merged = merged + [p for p, _old, new in outcome.done_writes if new != planned.get(p) and p not in merged]
    result.take(outcome)
    result.unresolved_links = unresolved_in(graph, [*result.written, *(linked_to_removed - set(removed))])
    return result
