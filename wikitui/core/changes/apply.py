"""Applying a changeset: the accepted hunks, merged with what changed on disk, all or nothing.

For each file the text to write is the proposal's base with only the accepted
hunks applied, exactly: wikitui adds nothing of its own (the ``updated:`` date is a
hunk of the proposal, :mod:`wikitui.core.changes.updated`). When the file changed on disk
since the proposal, the change is merged three-way (merge3) with the person's
edits; when it does not merge, the apply stops with a
:class:`~wikitui.core.changes.builder.FileConflict` before anything is written. Writing
goes through a :class:`wikitui.core.changes.transaction.WriteTransaction` (journal, compare before
replace, index.md, log.md, history record, pending record, git commits).

Undecided hunks stay pending as a smaller changeset with the same id, rebased on
what the apply left on disk so they still apply later.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wikitui.core.changes.assets import is_asset_path
from wikitui.core.changes.model import (
    Changeset,
    FileChange,
    FileConflict,
    make_file_change,
    sha256_bytes,
)
from wikitui.core.changes.diffs import HunkMismatch, apply_hunks, merge_texts, split_lines
from wikitui.core.changes.lock import write_lock
from wikitui.core.changes.policy import refusal_at_apply
from wikitui.core.changes.recovery import recover_locked
from wikitui.core.changes.transaction import ApplyResult, WriteTransaction, text_of, unresolved_in
from wikitui.core.base.errors import UnsafePath, WikituiError
from wikitui.core.vault.files import encode_exact
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.evidence import evidence_summary
from wikitui.core.vault.log_md import review_usage

__all__ = ["ApplyResult", "apply_changeset", "apply_hunks"]


@dataclass
class _Plan:
    """What applying one file's accepted hunks means on disk."""

    fc: FileChange
    taken: set[str]
    undecided: list[str]
    writes: list[tuple[str, str | None]] = field(default_factory=list)
    before: dict[str, str | None] = field(default_factory=dict)  # disk text of each written path
    intended: str | None = None  # base + accepted hunks (no merge, no bookkeeping)
    on_disk: str | None = None  # the file's text after the apply
    at: str | None = None  # the file's path after the apply
    merged: bool = False
    refused: str | None = None  # why the page's policy refused the file's accepted hunks


def _check_path(vault: Vault, rel: str) -> None:
    """Re-check a path from a (possibly tampered) pending file: confined, a page or a chart's file, not log.md."""
    vault.writable_path(rel)
    if not (rel.lower().endswith(".md") or is_asset_path(vault, rel)) or rel == vault.log_path:
        raise UnsafePath(f"{rel}: not a page wikitui may write")


def _plan_binary(vault: Vault, fc: FileChange, plan: _Plan) -> _Plan:
    """A binary file (a chart's picture) is written whole, or not: any change on disk since is a conflict."""
    _check_path(vault, fc.path)
    disk = text_of(vault, fc.path)
    plan.before[fc.path] = disk
    if fc.action == "create" and disk is not None and disk != fc.new_text:
        raise FileConflict(fc.path, "was created on disk since the proposal, with other content")
    if fc.action != "create" and (disk is None or sha256_bytes(encode_exact(disk)) != fc.base_hash):
        raise FileConflict(fc.path, "changed on disk since the proposal (a binary file is never merged)")
    plan.intended = plan.on_disk = fc.new_text
    if disk != fc.new_text:
        plan.writes.append((fc.path, fc.new_text))
    return plan


def _content(vault: Vault, fc: FileChange, taken: set[str], plan: _Plan) -> str:
    """The text to write for an edit or move: accepted hunks, merged with the disk when it changed."""
    intended = apply_hunks(fc.base_text, fc.hunks, taken)
    plan.intended = intended
    disk = text_of(vault, fc.path)
    if disk is None:
        raise FileConflict(fc.path, "was deleted on disk since the change was proposed (or is a page an earlier "
                                    "changeset of its batch proposed, not applied)")
    plan.before[fc.path] = disk
    if sha256_bytes(encode_exact(disk)) == fc.base_hash:
        final = intended
    else:
        merge = merge_texts(fc.base_text, disk, intended)
        if not merge.clean:
            raise FileConflict(fc.path, "changed on disk since the proposal, and the change does not merge",
                               merge.conflicts)
        final = merge.text
        plan.merged = final != intended
    return final


def _plan_file(vault: Vault, fc: FileChange, accepted: set[str], undecided: set[str]) -> _Plan:
    ids = [h.id for h in fc.hunks]
    if fc.action in ("create", "delete"):  # one decision for the whole file
        taken = set(ids) if any(i in accepted for i in ids) else set()
    else:
        taken = {i for i in ids if i in accepted}
    plan = _Plan(fc, taken, [] if taken and fc.action in ("create", "delete") else [i for i in ids if i in undecided])
    plan.at = fc.path
    if not taken:
        return plan
    if fc.binary:
        return _plan_binary(vault, fc, plan)
    _check_path(vault, fc.path)
    page = fc.path.lower().endswith(".md")  # only pages have frontmatter, hence a policy
    refusal = page and refusal_at_apply(fc.path, text_of(vault, fc.path), [h for h in fc.hunks if h.id in taken],
                                        fc.action)
    if refusal:  # the page's `llm:` policy (set since the proposal, or a changeset made elsewhere): it all stays
        plan.refused, plan.taken, plan.undecided = refusal, set(), ids
        return plan
    if fc.action == "create":
        text = apply_hunks("", fc.hunks, taken)
        disk = text_of(vault, fc.path)
        plan.before[fc.path] = disk
        if disk is not None and disk != text:
            raise FileConflict(fc.path, "was created on disk since the proposal, with other content")
        plan.intended = plan.on_disk = text
        if disk is None:
            plan.writes.append((fc.path, text))
    elif fc.action == "delete":
        disk = text_of(vault, fc.path)
        plan.before[fc.path] = disk
        if disk is not None:
            if sha256_bytes(encode_exact(disk)) != fc.base_hash:
                raise FileConflict(fc.path, "changed on disk since it was proposed for deletion")
            plan.writes.append((fc.path, None))
        plan.at = None
    elif fc.action == "move" and fc.hunks[0].id in taken:
        assert fc.new_path is not None
        _check_path(vault, fc.new_path)
        final = _content(vault, fc, taken, plan)
        if (vault.root / fc.new_path).exists():
            raise FileConflict(fc.new_path, "exists on disk now; the page cannot be moved there")
        plan.before[fc.new_path] = None
        plan.writes += [(fc.new_path, final), (fc.path, None)]
        plan.at, plan.on_disk = fc.new_path, final
    else:  # an edit, or a move whose rename is not accepted (its content hunks apply in place)
        final = _content(vault, fc, taken, plan)
        plan.on_disk = final
        if final != plan.before[fc.path]:
            plan.writes.append((fc.path, final))
    return plan


def _remaining_file(plan: _Plan) -> FileChange | None:
    """The undecided part of a file, rebased on what the apply leaves on disk."""
    fc = plan.fc
    if not plan.undecided:
        return None
    if not plan.taken:  # nothing of it written: what is left is the proposal less the hunks rejected
        ids = [h.id for h in fc.hunks]
        if plan.undecided == ids or fc.binary or fc.action in ("create", "delete"):
            return make_file_change(0, fc.path, fc.action, fc.base_hash, fc.base_text, fc.new_text, fc.new_path,
                                    fc.reason, own_line=fc.own_line, binary=fc.binary)
        left = set(plan.undecided)
        new = apply_hunks(fc.base_text, fc.hunks, left)
        own = _own_line_in(fc, fc.base_text, new)
        if fc.action == "move" and fc.hunks[0].id in left:
            return make_file_change(0, fc.path, "move", fc.base_hash, fc.base_text, new, fc.new_path, fc.reason,
                                    own_line=own)
        if new == fc.base_text:
            return None
        return make_file_change(0, fc.path, "edit", fc.base_hash, fc.base_text, new, reason=fc.reason, own_line=own)
    keep = plan.taken | set(plan.undecided)
    wanted = apply_hunks(fc.base_text, fc.hunks, keep)
    intended, on_disk = plan.intended or "", plan.on_disk or ""
    merge = merge_texts(intended, on_disk, wanted)
    if merge.clean:
        base, new = on_disk, merge.text
    else:  # keep the remainder against the text without the person's edits; a later apply merges or flags it
        base, new = intended, wanted
    rename_open = fc.action == "move" and fc.hunks[0].id in plan.undecided
    own = _own_line_in(fc, base, new)
    if rename_open:
        return make_file_change(0, fc.path, "move", sha256_bytes(encode_exact(base)), base, new, fc.new_path, fc.reason,
                                own_line=own)
    if new == base:
        return None
    assert plan.at is not None
    return make_file_change(0, plan.at, "edit", sha256_bytes(encode_exact(base)), base, new, reason=fc.reason, own_line=own)


def _own_line_in(fc: FileChange, base: str, new: str) -> tuple[int, int] | None:
    """Where a file's own-hunk line (the ``updated:`` date) is in a rebased remainder, when still undecided."""
    if fc.own_line is None:
        return None
    u, v = fc.own_line
    old_lines, new_lines = split_lines(fc.base_text), split_lines(fc.new_text)
    if u >= len(old_lines) or v >= len(new_lines):
        return None
    b, n = split_lines(base), split_lines(new)
    at_old = [i for i, ln in enumerate(b) if ln == old_lines[u]]
    at_new = [i for i, ln in enumerate(n) if ln == new_lines[v]]
    return (at_old[0], at_new[0]) if len(at_old) == 1 and len(at_new) == 1 and old_lines[u] != new_lines[v] else None


def carry_reviews(changeset: Changeset, rest: list[FileChange]) -> None:
    """A second reviewer's notes and the person's reasons follow the hunks that stay pending (the same
    lines in the same file)."""
    notes = {(path, tuple(h.lines), h.header if not h.lines else ""): (h.review, h.reason, h.evidence)
             for fc in changeset.files for h in fc.hunks if h.review or h.reason or h.evidence
             for path in {fc.path, fc.final_path}}
    for fc in rest if notes else []:
        for h in fc.hunks:
            h.review, h.reason, evidence = notes.get((fc.path, tuple(h.lines), h.header if not h.lines else ""),
                                                     (None, "", []))
            h.evidence = list(evidence)


def _hunks_note(applied: list[str], total: int) -> str:
    if len(applied) == total:
        return f"all {total}"
    return f"{len(applied)} of {total}: {', '.join(applied)}"


def apply_changeset(
    vault: Vault,
    graph: LinkGraph,
    changeset: Changeset,
    accepted: set[str] | None = None,
    *,
    rejected: set[str] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> ApplyResult:
    """Apply the accepted hunks of a changeset.

    Args:
        vault: The vault.
        graph: Its link graph (kept up to date).
        changeset: The changeset (usually from the :class:`~wikitui.core.changes.pending.PendingStore`).
        accepted: Ids of the hunks to apply; None applies every hunk. A creation or
            deletion is one decision: any of its hunks accepted takes the whole file.
        rejected: Ids of the hunks the user rejected: dropped. Hunks neither accepted
            nor rejected stay pending (when ``accepted`` is None nothing is left).
        on_progress: Called as ``on_progress(done, total)`` while writing.

    Returns:
        What was applied and what remains pending.

    Raises:
        FileConflict: A file changed on disk in a way that does not merge (nothing written).
        UnsafePath: A path of the changeset is outside the writable area (nothing written).
        VaultBusy: Another wikitui process is writing to the vault.
        WikituiError: The changeset is corrupt (a hunk does not match its base).
    """
    with write_lock(vault):
        recover_locked(vault)  # a crashed apply first, so its files are not mistaken for edits
        return _apply(vault, graph, changeset, accepted, rejected, on_progress)


def _apply(
    vault: Vault, graph: LinkGraph, changeset: Changeset, accepted: set[str] | None, rejected: set[str] | None,
    on_progress: Callable[[int, int], None] | None,
) -> ApplyResult:
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.changes.undo import next_record_path, record_for_apply

    all_ids = changeset.hunk_ids()
    acc = set(all_ids) if accepted is None else set(accepted) & set(all_ids)
    rej = set() if rejected is None else (set(rejected) & set(all_ids)) - acc
    undecided = set() if accepted is None else set(all_ids) - acc - rej
    try:
        plans = [_plan_file(vault, fc, acc, undecided) for fc in changeset.files]
    except HunkMismatch as exc:
        raise WikituiError(f"changeset {changeset.id} is corrupt: {exc}") from None
    writes: list[tuple[str, str | None, str | None]] = []
    seen: set[str] = set()
    for plan in plans:
        for rel, text in plan.writes:
            if rel in seen:
                raise FileConflict(rel, f"changeset {changeset.id} writes it twice")
            seen.add(rel)
            writes.append((rel, text, plan.before.get(rel)))
    rest = [f for p in plans if (f := _remaining_file(p)) is not None]
    for i, f in enumerate(rest):  # number files and hunks afresh
        rest[i] = make_file_change(i, f.path, f.action, f.base_hash, f.base_text, f.new_text, f.new_path, f.reason,
                                   own_line=f.own_line, binary=f.binary)
    carry_reviews(changeset, rest)
    applied = [h for p in plans for h in (x.id for x in p.fc.hunks) if h in p.taken]
    remaining = None
    if rest:
        remaining = Changeset(
            id=changeset.id, op=changeset.op, title=changeset.title, created=changeset.created, model=changeset.model,
            tokens=changeset.tokens, cost=changeset.cost, files=rest,
            usage_logged=changeset.usage_logged or bool(writes), review=changeset.review,
        )
    store = PendingStore(vault)
    pending_rel, pending_data = store.relpath(changeset.id), store.encode(remaining) if remaining else None
    result = ApplyResult(changeset.id, applied=applied, remaining=remaining)
    result.refused = [p.refused for p in plans if p.refused]
    if not writes:
        store.write_raw(changeset.id, pending_data)
        return result
    removed = [rel for rel, text, _ in writes if text is None]
    linked_to_removed = {b.source for rel in removed for b in graph.backlinks(rel)}
    # The record holds the change as proposed (text read, text meant); /undo merges it with
    # whatever else is on disk then, saves that landed during this apply included.
    history_rel = next_record_path(vault, changeset)
    history_data = record_for_apply(vault, changeset, writes, applied)

    log_fields: dict[str, Any] = {"model": changeset.model, "hunks": _hunks_note(applied, len(all_ids)),
                                  "evidence": evidence_summary(_applied_evidence(changeset, set(applied)))}
    if not changeset.usage_logged:
        log_fields.update(tokens=changeset.tokens, cost=changeset.cost, review=review_usage(changeset.review))
    tx = WriteTransaction(vault, graph, "apply", changeset.id, writes)
    tx.log_as(changeset.op, changeset.title, **log_fields)
    tx.records = [(history_rel, history_data), (pending_rel, pending_data)]
    tx.commit_as(f"wikitui: {changeset.op} | {changeset.title}", f"changeset: {changeset.id}")
    outcome = tx.run(on_progress)
    if outcome.commit:
        from wikitui.core.changes.undo import set_record_commit

        set_record_commit(vault, history_rel, outcome.commit)
    _prune_history(vault, outcome.warnings)
    result.written = [rel for rel, text, _ in writes if text is not None]
    result.deleted = removed
    planned = {rel: text for rel, text, _ in writes}
    late = {rel for rel, _old, new in outcome.done_writes if new != planned.get(rel)}  # merged while writing
    result.merged = [p.fc.path for p in plans if p.merged or p.fc.path in late or (p.at in late)]
    result.take(outcome)
    result.unresolved_links = unresolved_in(graph, [*result.written, *(linked_to_removed - set(removed))])
    try:
        _record_claims(vault, graph, changeset, set(applied), result.written, removed)
    except Exception as exc:  # noqa: BLE001 - a cache of verdicts: never worth failing an apply for
        result.warnings.append(f"claim records not updated: {exc}")
    return result


def _applied_evidence(changeset: Changeset, applied: set[str]) -> list:
    return [ev for fc in changeset.files for h in fc.hunks if h.id in applied for ev in h.evidence]


def _record_claims(vault: Vault, graph: LinkGraph, changeset: Changeset, applied: set[str], written: list[str],
                   removed: list[str]) -> None:
    """Record the applied claims' evidence with the hash of the source lines as they are now (DESIGN §11)."""
    from wikitui.core.vault.claims import ClaimRecords
    from wikitui.core.vault.evidence import SourceTexts, check_evidence

    records = ClaimRecords(vault)
    for rel in removed:
        records.forget(rel)
    texts = SourceTexts(vault)
    done = set(written)
    for fc in changeset.files:
        evidence = [ev for h in fc.hunks if h.id in applied for ev in h.evidence]
        page = fc.final_path if fc.final_path in done else fc.path if fc.path in done else None
        if page is None or not evidence:
            continue
        text = text_of(vault, page) or ""
        records.record(page, text, [check_evidence(graph, ev, texts) for ev in evidence], texts)


def _prune_history(vault: Vault, warnings: list[str]) -> None:
    """Keep the newest ``history_keep`` apply records (undo's before-images, a page's history without git)."""
    from wikitui.core.changes.undo import prune_records
    from wikitui.core.config.settings import load_settings

    try:
        prune_records(vault, load_settings(vault).history_keep)
    except Exception as exc:  # bookkeeping: never worth failing an apply for
        warnings.append(f"old history records not pruned: {exc}")
