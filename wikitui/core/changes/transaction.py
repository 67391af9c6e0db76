"""The write transaction of an apply or an undo: pages all-or-nothing, then the bookkeeping.

A :class:`WriteTransaction` is set up with what to write (pages, wikitui's own
records, the log.md entry, the git commit's message) and then :meth:`~WriteTransaction.run`
once. It writes the pages under a :class:`~wikitui.core.changes.journal.Journal`,
each compared before it is replaced (an edit saved meanwhile is merged, never
lost), updates the link graph, regenerates index.md, appends to log.md (bytes,
never re-encoded) and writes the records, all in one durable step that a crash
rolls back or completes; then it commits to git (the person's own edits to those
files first) and updates the source records. :class:`ApplyResult` is what an
apply or an undo reports. Bringing the search index up to date is the caller's
(:meth:`wikitui.core.workspace.Workspace.apply`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from wikitui.core.changes.file_merge import file_merge
from wikitui.core.changes.journal import Journal, read_file_bytes
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.files import decode_exact, encode_exact
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.links import Link

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.changes.git import CommitRecord
    from wikitui.core.changes.model import Changeset

#: A page write: (vault-relative path, the new text or None to delete, the text the caller read or None).
PageWrite = tuple[str, "str | None", "str | None"]


@dataclass
class ApplyResult:
    """What an apply (or an undo) did.

    Attributes:
        changeset_id: The changeset applied (or undone).
        applied: Ids of the hunks applied (empty for an undo).
        written: Pages created or changed, vault-relative.
        deleted: Pages removed (a move's old path included).
        merged: Pages three-way merged with edits made on disk since the proposal.
        remaining: The undecided part of the changeset, still pending (None when nothing is left).
        commit: The git commit made, when the vault is a repository.
        your_commit: The commit of the person's own uncommitted edits to the files
            touched, made just before ``commit`` (None when there were none).
        log_entry: The entry appended to log.md (None when nothing was written).
        unresolved_links: (page, link) for every link left unresolved in the touched
            pages or in pages that linked to a page this apply removed.
        index_updated: Whether index.md was regenerated.
        warnings: Problems that did not stop the apply (a failed git commit, say).
        refused: Why a page's ``llm:`` policy refused a file's hunks (nothing of that file
            was applied; its hunks stay pending), one message per file.
    """

    changeset_id: str
    applied: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    remaining: "Changeset | None" = None
    commit: str | None = None
    your_commit: str | None = None
    log_entry: str | None = None
    unresolved_links: list[tuple[str, Link]] = field(default_factory=list)
    index_updated: bool = False
    warnings: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def take(self, outcome: WriteOutcome) -> None:
        """Copy in what the transaction did beyond the pages (commits, log entry, index.md, warnings)."""
        self.commit, self.your_commit, self.log_entry = outcome.commit, outcome.your_commit, outcome.log_entry
        self.index_updated, self.warnings = outcome.index_updated, outcome.warnings


@dataclass
class WriteOutcome:
    """What :meth:`WriteTransaction.run` did beyond the page writes.

    ``done_writes`` holds, per page written, (path, the text replaced, the text
    written): what was really on disk, merges with edits saved meanwhile included.
    """

    log_entry: str | None = None
    commit: str | None = None
    your_commit: str | None = None
    index_updated: bool = False
    warnings: list[str] = field(default_factory=list)
    done_writes: list[PageWrite] = field(default_factory=list)


def _encode(rel: str, text: str | None) -> bytes | None:
    if text is None:
        return None
    try:
        return encode_exact(text)
    except UnicodeEncodeError:
        raise WikituiError(f"{rel}: the new text holds characters that cannot be written as UTF-8; nothing was written") from None


class _LogPlan(NamedTuple):
    """The log.md entry a step makes (see :meth:`WriteTransaction.log_as`)."""

    op: str
    title: str
    pages: list[str]  # the pages it names
    fields: dict[str, Any]  # more fields (``source``, ``tokens``...)


class WriteTransaction:
    """Pages written all-or-nothing, with index.md, log.md, wikitui's records and a git commit.

    Every page is compared before it is replaced: an edit someone saved since the
    caller read it is merged in (or the whole step stops with a
    :class:`~wikitui.core.changes.model.FileConflict` and is rolled back), never
    overwritten.

    Args:
        vault: The vault.
        graph: The link graph (brought up to date as pages are written).
        kind: ``apply`` or ``undo`` (for the journal, and the words of a conflict).
        changeset_id: The changeset concerned.
        pages: The page writes, checked by the caller (see :data:`PageWrite`).
    """

    def __init__(self, vault: Vault, graph: LinkGraph, kind: str, changeset_id: str, pages: list[PageWrite]) -> None:
        self.vault = vault
        self.graph = graph
        self.kind = kind
        self.changeset_id = changeset_id
        self.pages = pages
        #: wikitui's own records written in the same step (history, pending): bytes, or None to remove one.
        self.records: list[tuple[str, bytes | None]] = []
        self._log = _LogPlan(kind, "", [p for p, _, _ in pages], {})
        self._commit_message = (f"wikitui: {kind}", f"changeset: {changeset_id}")
        self._during = "the undo" if kind == "undo" else "the change"
        self._outcome = WriteOutcome()

    def log_as(self, op: str, title: str, pages: list[str] | None = None, **fields) -> None:
        """The log.md entry: its operation, title, the pages it names (default: those written) and more fields."""
        self._log = _LogPlan(op, title, self._log.pages if pages is None else pages, fields)

    def commit_as(self, subject: str, body: str) -> None:
        """The git commit's message (when the vault is a repository)."""
        self._commit_message = (" ".join(subject.split()), body)

    # ----------------------------------------------------------------- running
    def run(self, on_progress: Callable[[int, int], None] | None = None) -> WriteOutcome:
        """Write everything; what was done.

        Raises:
            FileConflict: A page was edited meanwhile in a way that does not merge (nothing written).
            WikituiError: A new text cannot be encoded, or the log entry cannot be made (nothing written).
        """
        from wikitui.core.changes.git import is_git_vault

        total, done = len(self.pages) + 3, 0

        def progress() -> None:
            nonlocal done
            done += 1
            if on_progress is not None:
                on_progress(done, total)

        use_git = is_git_vault(self.vault)
        entry = self._log_entry(use_git)  # fails before any write
        encoded = [(rel, _encode(rel, new), _encode(rel, old)) for rel, new, old in self.pages]
        journal = self._journal(encoded, entry)
        dirty = self._dirty(use_git)
        journal.save()
        try:
            commit = self._write(journal, encoded, entry, dirty if use_git else None, progress)
        except BaseException:
            journal.rollback(merge_for=lambda rel: file_merge(rel, "the rollback"))
            for rel in (*self._touched(), self.vault.index_path, self.vault.log_path):
                self.graph.update_path(rel)
            raise
        self._complete(journal, commit)  # the step is durable now; this only completes it
        progress()
        journal.finish()
        return self._outcome

    def _touched(self) -> list[str]:
        return [rel for rel, _, _ in self.pages]

    def _log_entry(self, use_git: bool) -> str:
        from wikitui.core.vault.log_md import format_log_entry

        op, title, pages, fields = self._log
        if use_git and "commit" not in fields:
            # log.md is part of the commit, so the entry cannot hold the commit's own hash;
            # it says where to find it (the commit message carries the changeset id).
            fields = {**fields, "commit": f"git log --grep {self.changeset_id}"}
        if "author" not in fields:
            from wikitui.core.changes.authors import author_of

            fields = {**fields, "author": author_of(self.vault)}
        return format_log_entry(op, title, pages, changeset=self.changeset_id, **fields)

    def _journal(self, encoded: list, entry: str) -> Journal:
        """A journal protecting every file the step may write, saved before the first write."""
        from wikitui.core.vault.log_md import log_chunk

        vault = self.vault
        journal = Journal(vault, self.kind, self.changeset_id)
        for rel, data, _old in encoded:
            journal.protect(rel, data)
        journal.protect(vault.index_path)
        journal.protect_append(vault.log_path, log_chunk(read_file_bytes(vault.root / vault.log_path), entry))
        for rel, _data in self.records:
            journal.protect(rel)
        return journal

    def _dirty(self, use_git: bool) -> list[str]:
        """The files of this step with the person's own uncommitted edits (they get a commit of their own)."""
        if not use_git:
            return []
        from wikitui.core.changes.git import GitError, dirty_paths

        try:
            return dirty_paths(self.vault, [*self._touched(), self.vault.index_path, self.vault.log_path])
        except GitError as exc:
            self._outcome.warnings.append(f"{exc}; your edits to these files may be in wikitui's commit")
            return []

    def _write(self, journal: Journal, encoded: list, entry: str, dirty: list[str] | None,
               progress) -> CommitRecord | None:
        """The durable step: pages, index.md, log.md, records; returns the commit to make (None without git)."""
        from wikitui.core.vault.log_md import log_chunk

        vault, graph, outcome = self.vault, self.graph, self._outcome
        for rel, data, old in encoded:
            written, replaced = journal.write(rel, data, expected=old, merge=file_merge(rel, self._during))
            outcome.done_writes.append((rel, _text(replaced), _text(written)))
            progress()
        for rel in self._touched():
            graph.update_path(rel)
        self._regenerate_index(journal)
        progress()
        journal.append(vault.log_path, lambda current: log_chunk(current, entry))
        graph.update_path(vault.log_path)
        outcome.log_entry = entry
        progress()
        for rel, data in self.records:
            journal.write(rel, data)
        journal.settle(lambda rel: file_merge(rel, self._during))
        paths = sorted({*self._touched(), vault.log_path, *([vault.index_path] if outcome.index_updated else [])})
        commit: CommitRecord | None = None
        if dirty is not None:
            # Edits saved during the apply are the person's too: they go in their commit, not ours.
            before = sorted((set(dirty) | journal.saved_by_others) & set(paths))
            subject, body = self._commit_message
            commit = {"paths": paths, "subject": subject, "body": body, "id": self.changeset_id, "before": before}
        journal.mark_written(commit)
        return commit

    def _regenerate_index(self, journal: Journal) -> None:
        """index.md's catalog from the pages as they are now (when it has the marker and changed)."""
        from wikitui.core.vault.catalog import INDEX_MARKER, regenerate_index
        from wikitui.core.base.words import plural

        index_rel = self.vault.index_path
        index_bytes = read_file_bytes(self.vault.root / index_rel)
        if index_bytes is None:
            return
        current = decode_exact(index_bytes)
        update = regenerate_index(self.vault, self.graph, current)
        new_index = None if update is None else update.text
        if update is not None and update.moved:  # never dropped, never moved without a word
            self._outcome.warnings.append(
                f"{index_rel}: {plural(sum(1 for ln in update.moved if ln.strip()), 'line')} written below "
                f"{INDEX_MARKER} moved above it (below it is the catalog wikitui writes)")
        if new_index is not None and new_index != current:
            journal.write(index_rel, encode_exact(new_index), expected=index_bytes,
                          merge=file_merge(index_rel, self._during))
            self.graph.update_path(index_rel)
            self._outcome.index_updated = True

    def _complete(self, journal: Journal, commit: CommitRecord | None) -> None:
        """After the durable step: source records and the git commits (failures are warnings)."""
        from wikitui.core.changes.git import GitError, finish_commits

        vault, outcome = self.vault, self._outcome
        written = [rel for rel, text, _ in self.pages if text is not None and vault.is_page_path(rel)]
        deleted = [rel for rel, text, _ in self.pages if text is None and vault.is_page_path(rel)]
        try:
            _page_sources_update(vault, self.graph, written, deleted)
        except Exception as exc:  # a verdict cache: never worth failing an apply for
            outcome.warnings.append(f"source records not updated: {exc}")
        if commit is not None:
            try:
                outcome.your_commit, outcome.commit = finish_commits(
                    vault, commit, {rel: journal.old_bytes(rel) for rel in commit["before"]})
            except GitError as exc:
                outcome.warnings.append(f"{exc}; the files are written but not committed")


def _page_sources_update(vault: Vault, graph: LinkGraph, written: list[str], deleted: list[str]) -> None:
    from wikitui.core.vault.staleness import SourceRecords, page_sources

    records = SourceRecords(vault)
    for rel in deleted:
        records.forget(rel)
    seen: set[str] = set()
    for rel in written:
        info = graph.pages.get(rel)
        if info is not None:
            seen.update(records.record(rel, page_sources(info), graph=graph))
    records.see_sources(graph, seen)  # the other pages citing them: stale from now on when a source changes


def _text(data: bytes | None) -> str | None:
    return None if data is None else decode_exact(data)


def unresolved_in(graph: LinkGraph, pages: list[str]) -> list[tuple[str, Link]]:
    """Links in ``pages`` that resolve to nothing (external URLs aside), in page order.

    log.md is history (it may name pages since deleted) and is never reported.
    """
    out: list[tuple[str, Link]] = []
    for rel in sorted(set(pages) - {graph.vault.log_path}):
        for link, target in graph.outgoing(rel):
            if target is None and link.kind != "url":
                out.append((rel, link))
    return out


def text_of(vault: Vault, rel: str) -> str | None:
    """A file's exact text (None when missing): a BOM kept as ``\\ufeff``, CRLF as is,
    invalid UTF-8 bytes as lone surrogates (:func:`~wikitui.core.vault.files.decode_exact`)."""
    data = read_file_bytes(vault.root / rel)
    return None if data is None else decode_exact(data)
