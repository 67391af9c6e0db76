"""The journal that makes writing several files all-or-nothing, and takes a half-done step back.

Each file is written atomically and compared before it is replaced
(:func:`~wikitui.core.changes.replace.replace_checked`); across files,
``.wikitui/journal.json`` records every file's old bytes *before* the first write
(for log.md, which is only appended to, its old size and hash). A crash mid-way
leaves the journal behind and :func:`~wikitui.core.changes.recovery.recover` (run at
start-up, and before every apply or undo) puts the old bytes back, exactly, and
removes the temp files the crash left. Once pages, index.md, log.md and wikitui's own records are all
written, the journal is marked ``written``; from then on recovery completes the
step (the git commits) instead of undoing it.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikitui.core.base import faults
from wikitui.core.changes.model import sha256_bytes
from wikitui.core.changes.replace import Merge, late_saves, replace_checked
from wikitui.core.vault.files import append_bytes, atomic_write
from wikitui.core.vault.layout import Vault

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.changes.git import CommitRecord

JOURNAL_NAME = "journal.json"
_UNKNOWN = "?"  # new content not known when the journal is written (index.md, records)
ANY = object()  #: ``expected`` for wikitui's own records: written whatever they hold


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
        removed_temps: Temp files the crash left, removed (vault-relative).
    """

    action: str
    kind: str
    changeset_id: str
    restored: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    removed_temps: list[str] = field(default_factory=list)


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


def _sha(data: bytes | None) -> str | None:
    return None if data is None else sha256_bytes(data)


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
            "version": 2, "kind": kind, "changeset": changeset_id, "phase": "writing",
            "files": {}, "appends": {}, "commit": None,
        }
        self._written: dict[str, bytes | None] = {}  # what this process wrote, for an in-process rollback
        self._watch: list = []  # files our renames replaced, still open (see settle)
        #: Whether this journal was left by a crash (loaded from disk): what was written is known by hash only.
        self.from_crash = False
        #: Files someone saved while this step was writing them (their saves are merged in).
        self.saved_by_others: set[str] = set()

    @property
    def path(self):
        """``.wikitui/journal.json``."""
        return self.vault.state_dir / JOURNAL_NAME

    def protect(self, rel: str, new: bytes | None | str = _UNKNOWN) -> None:
        """Record ``rel``'s current bytes before it is written (``new``: what will be written)."""
        new_sha = _UNKNOWN if isinstance(new, str) else _sha(new)  # (the only text it takes is _UNKNOWN)
        entry = self.data["files"].get(rel)
        if entry is not None:  # written twice (a page edit of index.md, then the catalog): final content unknown
            if entry["new_sha"] != new_sha:
                entry["new_sha"] = _UNKNOWN
            return
        self.data["files"][rel] = {"old": _b64(read_file_bytes(self.vault.root / rel)), "new_sha": new_sha}

    def protect_append(self, rel: str, chunk: bytes) -> None:
        """Record the size and hash of a file that will only be appended to (log.md), and what will be appended."""
        old = read_file_bytes(self.vault.root / rel)
        self.data["appends"][rel] = {"size": None if old is None else len(old), "sha": _sha(old), "chunk": _b64(chunk)}

    def save(self) -> None:
        """Write the journal (atomically, durably)."""
        atomic_write(self.path, json.dumps(self.data))

    def write(self, rel: str, data: bytes | None, *, expected: Any = ANY, merge: Merge | None = None) -> tuple[bytes | None, bytes | None]:
        """Write (or, with None, delete) a file the journal protects, comparing before replacing.

        Args:
            rel: The vault-relative path.
            data: The new bytes (None: delete).
            expected: What the file held when ``data`` was worked out; :data:`ANY` for
                wikitui's own records, which are written whatever they hold.
            merge: Combines an edit found on disk with ``data`` (raises when they do not).

        Returns:
            (the bytes written, the bytes they replaced).
        """
        entry = self.data["files"].get(rel)
        if entry is None:
            raise RuntimeError(f"{rel} is not protected by the journal")
        path = self.vault.root / rel
        if expected is ANY or merge is None:
            replaced = read_file_bytes(path)
            _write_file(path, data)
            self._written[rel] = data
            return data, replaced

        def noted(found: bytes | None, writing: bytes | None) -> None:
            # Someone saved the file since: rolling back must give them their bytes, not older ones.
            self.saved_by_others.add(rel)
            entry["old"] = _b64(found)
            entry["new_sha"] = _UNKNOWN if writing is None else _sha(writing)
            self.save()

        written, replaced = replace_checked(path, data, expected, merge, noted, self._watch)
        self._written[rel] = written
        return written, replaced

    def settle(self, merge_for) -> None:
        """Merge in what someone still wrote to a file after our rename replaced it (before marking written).

        Args:
            merge_for: ``merge_for(rel)`` gives the merge for a file.
        """
        root = self.vault.root
        late_saves(self._watch, lambda path: merge_for(path.relative_to(root).as_posix()))

    def append(self, rel: str, make_chunk) -> bytes:
        """Append to ``rel`` the bytes ``make_chunk(current bytes or None)`` gives; returns them."""
        record = self.data["appends"][rel]
        current = read_file_bytes(self.vault.root / rel)
        chunk = make_chunk(current)
        size = None if current is None else len(current)
        if (size, _sha(current), _b64(chunk)) != (record["size"], record["sha"], record["chunk"]):
            # It changed since it was protected (someone appended): record what is really there.
            self.data["appends"][rel] = {"size": size, "sha": _sha(current), "chunk": _b64(chunk)}
            self.save()
        append_bytes(self.vault.root / rel, chunk)
        return chunk

    def old_bytes(self, rel: str) -> bytes | None:
        """The bytes ``rel`` held before this step (for log.md: the part before the append)."""
        if rel in self.data["files"]:
            return _unb64(self.data["files"][rel].get("old"))
        record = self.data["appends"].get(rel)
        if not isinstance(record, dict) or record.get("size") is None:
            return None
        current = read_file_bytes(self.vault.root / rel) or b""
        return current[: record["size"]]

    def mark_written(self, commit: CommitRecord | None) -> None:
        """Every file is written: from now on recovery completes instead of rolling back."""
        self.data["phase"] = "written"
        self.data["commit"] = commit
        self.save()

    def finish(self) -> None:
        """Remove the journal: the step is over."""
        for item in self._watch:
            item.close()
        self._watch.clear()
        faults.step("unlink")
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def rollback(self, merge_for=None) -> RecoveryReport:
        """Put every protected file back as it was; edits made by someone else since are kept.

        Args:
            merge_for: ``merge_for(rel)`` gives the text merge for a file, used when
                someone edited a file after this journal wrote it (in the same process
                only: a crashed one's written bytes are not known).
        """
        report = RecoveryReport("rolled back", self.data.get("kind", "?"), self.data.get("changeset", "?"))
        for rel, record in self.data.get("appends", {}).items():
            _undo_append(self.vault.root / rel, record, rel, report)
        for rel, entry in self.data.get("files", {}).items():
            self._restore(rel, entry, merge_for, report)
        self.finish()
        return report

    def _restore(self, rel: str, entry: dict, merge_for, report: RecoveryReport) -> None:
        path = self.vault.root / rel
        old = _unb64(entry.get("old"))
        current = read_file_bytes(path)
        if current == old:
            return
        new_sha = entry.get("new_sha")
        written = self._written.get(rel, _UNKNOWN)
        if written is _UNKNOWN and not self.from_crash:
            return  # never written by this process: what is there is someone else's
        if written is not _UNKNOWN:  # this process wrote it: take back exactly that
            if current == written:
                target = old
            elif merge_for is not None:
                try:  # keep what they did after our write, take back what we did
                    target = merge_for(rel)(written, current, old)
                except Exception:
                    report.skipped.append(rel)
                    return
            else:
                report.skipped.append(rel)
                return
        elif new_sha == _UNKNOWN or _sha(current) == new_sha:  # after a crash: ours, by its hash
            target = old
        else:
            report.skipped.append(rel)  # someone else's since the crash
            return
        try:
            replace_checked(path, target, current, merge_for(rel) if merge_for else _refuse)
        except Exception:
            report.skipped.append(rel)
            return
        report.restored.append(rel)


def _refuse(base, theirs, ours, later=False):
    raise ValueError("changed again during the rollback")


def _undo_append(path, record: Any, rel: str, report: RecoveryReport) -> None:
    """Take back an append: the old bytes come back exactly, and bytes others appended after ours stay."""
    current = read_file_bytes(path)
    if current is None:
        return
    if not isinstance(record, dict):  # a version-1 journal recorded the old size only
        if record is not None and len(current) > record:
            atomic_write(path, current[:record])
            report.restored.append(rel)
        return
    size, chunk = record.get("size"), _unb64(record.get("chunk")) or b""
    if size is not None and (len(current) < size or _sha(current[:size]) != record.get("sha")):
        report.skipped.append(rel)  # its old part was rewritten since: not ours to cut
        return
    start = size or 0
    rest = current[start:]
    if not rest:
        return  # never appended
    if rest.startswith(chunk):
        rest = rest[len(chunk):]
    elif chunk.startswith(rest):
        rest = b""  # the append was cut short
    elif chunk and chunk in rest:
        at = rest.index(chunk)
        rest = rest[:at] + rest[at + len(chunk):]
    else:
        return  # our entry is not there
    if size is None and not rest:
        faults.step("unlink")
        path.unlink(missing_ok=True)
    else:
        atomic_write(path, current[:start] + rest)
    report.restored.append(rel)


def _write_file(path: Path, data: bytes | None) -> None:
    """Write or delete one of wikitui's own files."""
    if data is None:
        faults.step("unlink")
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    else:
        atomic_write(path, data)
