"""The write pipeline of an apply or an undo: pages all-or-nothing, then the bookkeeping.

:func:`run_writes` writes the pages under a :class:`~wikitui.core.changes.journal.Journal`,
each compared before it is replaced (an edit saved meanwhile is merged, never
lost), updates the link graph, regenerates index.md, appends to log.md (bytes,
never re-encoded), writes wikitui's history and pending records, then commits to
git (the person's own edits to those files first) and updates source records and
the search index. :class:`ApplyResult` is what an apply or an undo reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wikitui.core.changes.model import FileConflict
from wikitui.core.changes.diffs import merge_texts
from wikitui.core.errors import WikituiError
from wikitui.core.vault.files import decode_exact, encode_exact
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.changes.journal import Journal, read_file_bytes
from wikitui.core.vault.links import Link
from wikitui.core.changes.replace import Merge
from wikitui.core.vault.layout import Vault

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.changes.model import Changeset


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


@dataclass
class WriteOutcome:
    """What :func:`run_writes` did beyond the page writes.

    ``done_writes`` holds, per page written, (path, the text replaced, the text
    written): what was really on disk, merges with edits saved meanwhile included.
    """

    log_entry: str | None = None
    commit: str | None = None
    your_commit: str | None = None
    index_updated: bool = False
    warnings: list[str] = field(default_factory=list)
    done_writes: list[tuple[str, str | None, str | None]] = field(default_factory=list)


def _page_sources_update(vault: Vault, graph: LinkGraph, written: list[str], deleted: list[str]) -> None:
    from wikitui.core.vault.staleness import SourceRecords, page_sources

    records = SourceRecords(vault)
    for rel in deleted:
        records.forget(rel)
    for rel in written:
        info = graph.pages.get(rel)
        if info is not None:
            records.record(rel, page_sources(info), graph=graph)


def file_merge(rel: str, during: str) -> Merge:
    """How to combine an edit someone saved to ``rel`` while ``during`` was being written with ours.

    Text is merged three-way (merge3) over what the write expected; a creation,
    a deletion or overlapping edits cannot merge and raise :class:`FileConflict`.
    With ``later`` (two saves of one person around wikitui's rename), lines both
    inserted at one place are kept in the order they were saved.
    """

    def merge(base: bytes | None, theirs: bytes | None, ours: bytes | None, later: bool = False) -> bytes | None:
        if theirs == ours or theirs == base:
            return ours
        if base is None:
            raise FileConflict(rel, f"was created on disk while {during} was being written, with other content")
        if theirs is None:
            raise FileConflict(rel, f"was deleted on disk while {during} was being written")
        if ours is None:
            raise FileConflict(rel, f"was edited on disk while {during} was deleting it")
        if theirs.startswith(base) and base.endswith(b"\n"):
            # Lines added at the end (a log, a note typed below): they follow ours. Bytes only, so a
            # merge keeps pace with a writer that appends every few milliseconds.
            return ours + theirs[len(base):] if ours.endswith(b"\n") or not ours else ours + b"\n" + theirs[len(base):]
        result = merge_texts(decode_exact(base), decode_exact(theirs), decode_exact(ours), insertions_in_order=later)
        if not result.clean:
            raise FileConflict(rel, f"was edited on disk while {during} was being written, in the same place",
                               result.conflicts)
        return encode_exact(result.text)

    return merge


def _encode(rel: str, text: str | None) -> bytes | None:
    if text is None:
        return None
    try:
        return encode_exact(text)
    except UnicodeEncodeError:
        raise WikituiError(f"{rel}: the new text holds characters that cannot be written as UTF-8; nothing was written") from None


def run_writes(
    vault: Vault,
    graph: LinkGraph,
    writes: list[tuple[str, str | None, str | None]],
    *,
    kind: str,
    changeset_id: str,
    op: str,
    title: str,
    log_pages: list[str],
    log_fields: dict,
    state_writes: list[tuple[str, bytes | None]],
    commit_subject: str,
    commit_body: str,
    search_index: Any = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> WriteOutcome:
    """Write pages all-or-nothing and do the bookkeeping that goes with them.

    Every page is compared before it is replaced: an edit someone saved since the
    caller read it is merged in (or the whole step stops with a
    :class:`FileConflict` and is rolled back), never overwritten.

    Args:
        vault: The vault.
        graph: The link graph (brought up to date here).
        writes: (vault-relative path, new text or None to delete, the text the caller
            read there or None when there was no file), checked by the caller.
        kind: ``apply`` or ``undo`` (for the journal).
        changeset_id: The changeset concerned.
        op: The log entry's operation.
        title: The log entry's title.
        log_pages: The pages the log entry names.
        log_fields: More log fields (model, tokens, cost, hunks).
        state_writes: wikitui's own records to write in the same step (history,
            pending): bytes, or None to remove one.
        commit_subject: The git commit's first line.
        commit_body: The git commit's body.
        search_index: A search index to update (anything with ``update_paths(paths)``).
        on_progress: Called as ``on_progress(done, total)``.

    Raises:
        FileConflict: A page was edited meanwhile in a way that does not merge (nothing written).
        WikituiError: A new text cannot be encoded (nothing written).
    """
    from wikitui.core.vault.catalog import render_index
    from wikitui.core.changes.git import GitError, dirty_paths, finish_commits, is_git_vault
    from wikitui.core.vault.log_md import format_log_entry, log_chunk

    outcome = WriteOutcome()
    total = len(writes) + 3
    done = 0

    def progress() -> None:
        nonlocal done
        done += 1
        if on_progress is not None:
            on_progress(done, total)

    index_rel, log_rel = vault.index_path, vault.log_path
    use_git = is_git_vault(vault)
    if use_git and "commit" not in log_fields:
        # log.md is part of the commit, so the entry cannot hold the commit's own hash;
        # it says where to find it (the commit message carries the changeset id).
        log_fields = {**log_fields, "commit": f"git log --grep {changeset_id}"}
    entry = format_log_entry(op, title, log_pages, changeset=changeset_id, **log_fields)  # fails before any write
    commit_subject = " ".join(commit_subject.split())
    encoded = [(rel, _encode(rel, new), _encode(rel, old)) for rel, new, old in writes]
    journal = Journal(vault, kind, changeset_id)
    for rel, data, _old in encoded:
        journal.protect(rel, data)
    journal.protect(index_rel)
    journal.protect_append(log_rel, log_chunk(read_file_bytes(vault.root / log_rel), entry))
    for rel, _data in state_writes:
        journal.protect(rel)
    touched = [rel for rel, _, _ in writes]
    dirty: list[str] = []
    if use_git:
        try:  # the person's own uncommitted edits to these files get a commit of their own
            dirty = dirty_paths(vault, [*touched, index_rel, log_rel])
        except GitError as exc:
            outcome.warnings.append(f"{exc}; your edits to these files may be in wikitui's commit")
    journal.save()
    during = "the undo" if kind == "undo" else "the change"
    try:
        done_writes: list[tuple[str, str | None, str | None]] = []
        for rel, data, old in encoded:
            written, replaced = journal.write(rel, data, expected=old, merge=file_merge(rel, during))
            done_writes.append((rel, _text(replaced), _text(written)))
            progress()
        for rel in touched:
            graph.update_path(rel)
        index_bytes = read_file_bytes(vault.root / index_rel)
        if index_bytes is not None:
            current = decode_exact(index_bytes)
            new_index = render_index(vault, graph, current)
            if new_index is not None and new_index != current:
                journal.write(index_rel, encode_exact(new_index), expected=index_bytes,
                              merge=file_merge(index_rel, during))
                graph.update_path(index_rel)
                outcome.index_updated = True
        progress()
        journal.append(log_rel, lambda current: log_chunk(current, entry))
        graph.update_path(log_rel)
        outcome.log_entry = entry
        progress()
        for rel, data in state_writes:
            journal.write(rel, data)
        journal.settle(lambda rel: file_merge(rel, during))
        outcome.done_writes = done_writes
        commit_list = sorted({*touched, log_rel, *([index_rel] if outcome.index_updated else [])})
        commit = None
        if use_git:
            # Edits saved during the apply are the person's too: they go in their commit, not ours.
            before = sorted((set(dirty) | journal.saved_by_others) & set(commit_list))
            commit = {"paths": commit_list, "subject": commit_subject, "body": commit_body, "id": changeset_id,
                      "before": before}
        journal.mark_written(commit)
    except BaseException:
        journal.rollback(merge_for=lambda rel: file_merge(rel, "the rollback"))
        for rel in (*touched, index_rel, log_rel):
            graph.update_path(rel)
        raise
    # The step is durable now; what follows only completes it.
    written = [rel for rel, text, _ in writes if text is not None and vault.is_page_path(rel)]
    deleted = [rel for rel, text, _ in writes if text is None and vault.is_page_path(rel)]
    try:
        _page_sources_update(vault, graph, written, deleted)
    except Exception as exc:  # a verdict cache: never worth failing an apply for
        outcome.warnings.append(f"source records not updated: {exc}")
    if search_index is not None:
        try:
            search_index.update_paths(sorted({*touched, log_rel, index_rel}))
        except Exception as exc:
            outcome.warnings.append(f"search index not updated (run `wikitui index`): {exc}")
    if commit is not None:
        try:
            outcome.your_commit, outcome.commit = finish_commits(
                vault, commit, {rel: journal.old_bytes(rel) for rel in commit["before"]})
        except GitError as exc:
            outcome.warnings.append(f"{exc}; the files are written but not committed")
    progress()
    journal.finish()
    return outcome


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
