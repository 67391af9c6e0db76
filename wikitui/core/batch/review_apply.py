"""Applying a batch's review: each source's accepted hunks as its own changeset, in batch order (DESIGN §13).

For each source in order, its changeset (with its re-merged file changes, where an
earlier rejection re-derived them) goes through the one apply path there is,
:meth:`~wikitui.core.workspace.Workspace.apply`: atomic per changeset, its own log.md
entry and commit, its own history record, so ``/undo`` takes back one source at a time.
Undecided hunks, and every hunk of a change in conflict, stay pending; rejected ones
are dropped. The first source that cannot be applied (a page changed on disk meanwhile
in a way that does not merge) stops the run: the sources before it are applied, it and
those after it stay pending as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from wikitui.core.batch.review import ACCEPTED, REJECTED, BatchReview, SourceChanges
from wikitui.core.changes.model import Changeset
from wikitui.core.changes.transaction import ApplyResult
from wikitui.core.base.errors import WikituiError


class Applier(Protocol):
    """How one changeset is applied: :meth:`wikitui.core.workspace.Workspace.apply`."""

    def __call__(self, changeset: Changeset, accepted: set[str] | None = None, *,
                 rejected: set[str] | None = None) -> ApplyResult: ...


@dataclass(slots=True)
class SourceApplied:
    """What applying one source did.

    Attributes:
        source: The source.
        changeset: Its changeset's id.
        result: The apply's result (None when nothing of it was decided: nothing done).
    """

    source: str
    changeset: str
    result: ApplyResult | None


@dataclass(slots=True)
class BatchApplied:
    """What applying a batch review did.

    Attributes:
        done: Each source applied (or left alone, nothing decided), in batch order.
        failed: The source that stopped the run, and why (None: every source went through).
        conflicts: Sources whose hunks stayed pending because their change is in conflict.
    """

    done: list[SourceApplied] = field(default_factory=list)
    failed: tuple[str, WikituiError] | None = None
    conflicts: list[str] = field(default_factory=list)

    @property
    def written(self) -> list[str]:
        """Every page written or deleted, in order, once each."""
        out: dict[str, None] = {}
        for d in self.done:
            if d.result is not None:
                out.update(dict.fromkeys([*d.result.written, *d.result.deleted]))
        return list(out)


def source_changeset(review: BatchReview, src: SourceChanges) -> tuple[Changeset, set[str], set[str], bool]:
    """(changeset to apply, accepted ids, rejected ids, whether a change of it is in conflict) for ``src``.

    The changeset is the pending one with each file as it stands after the earlier
    sources' decisions (re-merged where a rejection changed what it built on).
    """
    cs = src.changeset
    files, accepted, rejected, conflict = [], set(), set(), False
    for f in range(len(cs.files)):
        derived = review.derived(src.index, f)
        files.append(derived.change)
        for h in derived.change.hunks:
            decision = review.decisions.get(f"{src.index}:{h.id}")
            if decision == REJECTED:
                rejected.add(h.id)
            elif decision == ACCEPTED and not derived.conflict:
                accepted.add(h.id)
        conflict = conflict or derived.conflict is not None
    changeset = Changeset(id=cs.id, op=cs.op, title=cs.title, created=cs.created, model=cs.model, tokens=cs.tokens,
                          cost=cs.cost, files=files, usage_logged=cs.usage_logged, review=cs.review)
    return changeset, accepted, rejected, conflict


def apply_batch(review: BatchReview, apply: Applier,
                on_source: Callable[[int, int, str], None] | None = None) -> BatchApplied:
    """Apply every source's decided hunks, source by source, each its own changeset.

    Args:
        review: The decisions.
        apply: Applies one changeset (the workspace's ``apply``).
        on_source: Called as ``on_source(done, total, source)`` before each source.

    Returns:
        What was applied; :attr:`BatchApplied.failed` names the source that stopped it.
    """
    out = BatchApplied()
    total = len(review.sources)
    for n, src in enumerate(review.sources):
        if on_source is not None:
            on_source(n, total, src.source)
        changeset, accepted, rejected, conflict = source_changeset(review, src)
        if conflict:
            out.conflicts.append(src.source)
        if not accepted and not rejected:
            out.done.append(SourceApplied(src.source, changeset.id, None))
            continue
        try:
            result = apply(changeset, accepted, rejected=rejected)
        except WikituiError as exc:
            out.failed = (src.source, exc)
            break
        out.done.append(SourceApplied(src.source, changeset.id, result))
    return out
