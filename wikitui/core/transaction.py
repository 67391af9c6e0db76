"""The write pipeline of an apply or an undo: pages all-or-nothing, then the bookkeeping.

:func:`run_writes` writes the pages under a :class:`~wikitui.core.journal.Journal`,
updates the link graph, regenerates index.md, appends to log.md, writes wikitui's
history and pending records, then commits to git and updates source records and
the search index. :class:`ApplyResult` is what an apply or an undo reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from wikitui.core.graph import LinkGraph
from wikitui.core.journal import Journal, read_file_bytes
from wikitui.core.links import Link
from wikitui.core.vault import Vault

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.changeset_model import Changeset


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
    log_entry: str | None = None
    unresolved_links: list[tuple[str, Link]] = field(default_factory=list)
    index_updated: bool = False
    warnings: list[str] = field(default_factory=list)


@dataclass
class WriteOutcome:
    """What :func:`run_writes` did beyond the page writes."""

    log_entry: str | None = None
    commit: str | None = None
    index_updated: bool = False
    warnings: list[str] = field(default_factory=list)


def _page_sources_update(vault: Vault, graph: LinkGraph, written: list[str], deleted: list[str]) -> None:
    from wikitui.core.sources import SourceRecords, page_sources

    records = SourceRecords(vault)
    for rel in deleted:
        records.forget(rel)
    for rel in written:
        info = graph.pages.get(rel)
        if info is not None:
            records.record(rel, page_sources(info), graph=graph)


def run_writes(
    vault: Vault,
    graph: LinkGraph,
    writes: list[tuple[str, str | None]],
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

    Args:
        vault: The vault.
        graph: The link graph (brought up to date here).
        writes: (vault-relative path, new text or None to delete), checked by the caller.
        kind: ``apply`` or ``undo`` (for the journal).
        changeset_id: The changeset concerned.
        op: The log entry's operation.
        title: The log entry's title.
        log_pages: The pages the log entry names.
        log_fields: More log fields (model, tokens, cost, hunks).
        state_writes: wikitui's own records to write in the same step (history, pending).
        commit_subject: The git commit's first line.
        commit_body: The git commit's body.
        search_index: A search index to update (anything with ``update_paths(paths)``).
        on_progress: Called as ``on_progress(done, total)``.
    """
    from wikitui.core.catalog import render_index
    from wikitui.core.gitrepo import GitError, commit_paths, is_git_vault
    from wikitui.core.log import append_log, format_log_entry

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
    journal = Journal(vault, kind, changeset_id)
    for rel, text in writes:
        journal.protect(rel, None if text is None else text.encode("utf-8"))
    journal.protect(index_rel)
    journal.protect_append(log_rel)
    for rel, _data in state_writes:
        journal.protect(rel)
    journal.save()
    touched = [rel for rel, _ in writes]
    try:
        for rel, text in writes:
            journal.write(rel, None if text is None else text.encode("utf-8"))
            progress()
        for rel in touched:
            graph.update_path(rel)
        index_bytes = read_file_bytes(vault.root / index_rel)
        if index_bytes is not None:
            current = index_bytes.decode("utf-8", errors="strict") if _is_utf8(index_bytes) else None
            new_index = render_index(vault, graph, current) if current is not None else None
            if new_index is not None and new_index != current:
                journal.write(index_rel, new_index.encode("utf-8"))
                graph.update_path(index_rel)
                outcome.index_updated = True
        progress()
        append_log(vault, entry)
        graph.update_path(log_rel)
        outcome.log_entry = entry
        progress()
        for rel, data in state_writes:
            journal.write(rel, data)
        commit_list = sorted({*touched, log_rel, *([index_rel] if outcome.index_updated else [])})
        commit = {"paths": commit_list, "subject": commit_subject, "body": commit_body} if use_git else None
        journal.mark_written(commit)
    except Exception:
        journal.rollback()
        for rel in (*touched, index_rel, log_rel):
            graph.update_path(rel)
        raise
    # The step is durable now; what follows only completes it.
    written = [rel for rel, text in writes if text is not None and vault.is_page_path(rel)]
    deleted = [rel for rel, text in writes if text is None and vault.is_page_path(rel)]
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
            outcome.commit = commit_paths(vault, commit["paths"], commit_subject, commit_body)
        except GitError as exc:
            outcome.warnings.append(f"{exc}; the files are written but not committed")
    progress()
    journal.finish()
    return outcome


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


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
    """A file's exact text (BOM kept as ``\\ufeff``), None when missing.

    Raises:
        UnicodeDecodeError: The file is not UTF-8.
    """
    data = read_file_bytes(vault.root / rel)
    return None if data is None else data.decode("utf-8")
