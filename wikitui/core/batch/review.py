"""A batch's review: its pending changesets as one decision space, grouped by page (DESIGN §13).

:class:`BatchReview` loads a batch's pending changesets in batch order and holds:

- the summary (:meth:`BatchReview.summary`): sources, new pages, edited pages, hunks, the
  second reviewer's ok/doubt/wrong counts, the decisions so far, re-merges and conflicts;
- the pages (:attr:`BatchReview.pages`), each with its hunks across the batch
  (:meth:`BatchReview.hunks`), every hunk naming its source;
- a decision per hunk, and the keys that decide many at once: every ``ok`` hunk of the
  batch (:meth:`BatchReview.accept_ok`), a page's or a source's unquestioned hunks
  (:meth:`BatchReview.decide_page`, :meth:`BatchReview.decide_source`).

A rejection re-derives the later sources' changes of that page three-way
(:mod:`.restack`): a hunk that built on the rejected one is re-merged, a change that does
not merge is a conflict whose hunks cannot be accepted. Applying
(:func:`wikitui.core.batch.review_apply.apply_batch`) writes each source as its own changeset.

No UI here: the TUI's batch review screen turns keys into these calls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from wikitui.core.batch.queue import Batch, NoBatch, all_batches, folder, load
from wikitui.core.batch.restack import Restacked, restack_page
from wikitui.core.changes.diffs import Hunk
from wikitui.core.changes.model import Changeset, FileChange
from wikitui.core.changes.pending import PendingStore, UnknownChangeset
from wikitui.core.vault.layout import Vault

Decision = Literal["accepted", "rejected"]
ACCEPTED: Decision = "accepted"
REJECTED: Decision = "rejected"
#: The second reviewer's verdicts (DESIGN §11); a hunk it did not read has none.
VERDICTS = ("ok", "doubt", "wrong")


@dataclass(slots=True)
class SourceChanges:
    """One source of the batch and its pending changeset.

    Attributes:
        index: Its place among the batch's reviewed sources (0: the first).
        source: The source's vault-relative path.
        changeset: Its pending changeset, as stored.
    """

    index: int
    source: str
    changeset: Changeset


@dataclass(slots=True)
class BatchHunk:
    """One hunk of the batch, where it stands now.

    Attributes:
        key: Unique in the batch: ``<source index>:<hunk id>``.
        source: Index of its source (:attr:`BatchReview.sources`).
        page: The page it changes.
        hunk: The hunk (a re-merged change's own hunk after a rejection upstream).
        remerged: Its change was re-merged over what an earlier rejection left.
        conflict: Why its change cannot be applied (None: it can).
    """

    key: str
    source: int
    page: str
    hunk: Hunk
    remerged: bool = False
    conflict: str | None = None

    @property
    def verdict(self) -> str | None:
        """The second reviewer's verdict (``ok``, ``doubt``, ``wrong``), None when none read it."""
        review = self.hunk.review
        verdict = review.get("verdict") if isinstance(review, dict) else None
        return verdict if verdict in VERDICTS else None


@dataclass(slots=True)
class PageChanges:
    """One page the batch changes.

    Attributes:
        path: The page.
        created: Whether the batch creates it (else it edits, moves or deletes it).
        parts: (source index, file index in that source's changeset), in batch order.
        regions: Conflict regions of its changes, by source index (git-style).
    """

    path: str
    created: bool
    parts: list[tuple[int, int]] = field(default_factory=list)
    regions: dict[int, list[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchSummary:
    """The batch review's first screen, in numbers."""

    sources: int
    new_pages: int
    edited_pages: int
    hunks: int
    verdicts: dict[str, int]
    """How many hunks the second reviewer found ``ok``, ``doubt``, ``wrong`` (empty: no reviewer read any)."""
    accepted: int
    rejected: int
    undecided: int
    remerged: int
    conflicts: int


@dataclass(slots=True)
class _PageStats:
    """A page's share of the summary, kept as it is (re-)derived."""

    verdicts: Counter[str]
    remerged: int
    conflicts: int
    ok: list[str] = field(default_factory=list)
    """The keys of its hunks the second reviewer found ``ok`` that can be applied (no conflict), in order."""


@dataclass(frozen=True, slots=True)
class PageState:
    """One page of the batch as derived over a set of decisions: now, or once a hunk is rejected.

    Attributes:
        hunks: Its hunks across the batch, source by source (:meth:`BatchReview.hunks`).
        regions: The conflict regions of its changes, by source index (git-style).
        conflicts: Why a source's change of it cannot be applied, by source index.
        decisions: Every decision of the batch in that state (a hunk absent is undecided).
    """

    hunks: list[BatchHunk]
    regions: dict[int, list[str]]
    conflicts: dict[int, str]
    decisions: Mapping[str, Decision]


@dataclass(slots=True)
class _Derivation:
    """A page re-derived (:meth:`BatchReview._derive`), to install now or once its rejection is decided."""

    page: int
    state: PageState
    derived: dict[tuple[int, int], Restacked]
    stats: _PageStats


class BatchReview:
    """The decisions of a batch's review, with no UI.

    Args:
        batch_id: The batch.
        sources: Its sources with a pending changeset, in batch order.
    """

    def __init__(self, batch_id: str, sources: list[SourceChanges]) -> None:
        self.batch_id = batch_id
        self.sources = sources
        self.pages: list[PageChanges] = []
        self.decisions: dict[str, Decision] = {}
        self._page_at: dict[str, int] = {}
        self._derived: dict[tuple[int, int], Restacked] = {}
        self._hunks: list[list[BatchHunk]] = []
        self._states: list[PageState] = []
        # Every change of the decisions moves the version: a prepared rejection, and the summary, are of one.
        self._version = 0
        self._preview: tuple[tuple[str, int], _Derivation] | None = None
        self._summary: tuple[int, BatchSummary] | None = None
        self._by_key: dict[str, tuple[int, int]] = {}  # key -> (page index, position in its hunks)
        for src in sources:
            for f, fc in enumerate(src.changeset.files):
                at = self._page_at.setdefault(fc.path, len(self.pages))
                if at == len(self.pages):
                    self.pages.append(PageChanges(fc.path, fc.action == "create"))
                self.pages[at].parts.append((src.index, f))
        for page in self.pages:  # a hunk the second reviewer found wrong starts rejected (DESIGN §11)
            for s, f in page.parts:
                for h in self.sources[s].changeset.files[f].hunks:
                    if isinstance(h.review, dict) and h.review.get("verdict") == "wrong":
                        self.decisions[f"{s}:{h.id}"] = REJECTED
        self._hunks = [[] for _ in self.pages]
        self._states = [PageState([], {}, {}, self.decisions) for _ in self.pages]
        self._stats = [_PageStats(Counter(), 0, 0) for _ in self.pages]
        for p in range(len(self.pages)):
            self._restack(p)

    # ---------------------------------------------------------------- loading
    @classmethod
    def load(cls, vault: Vault, batch_id: str | None = None) -> BatchReview:
        """The review of batch ``batch_id`` (None: the newest batch with a changeset pending).

        Raises:
            NoBatch: No such batch, or none has a changeset pending.
        """
        if batch_id is None:
            found = reviewable_batches(vault)
            if not found:
                raise NoBatch("no batch has a changeset pending review")
            batch = found[-1]
        else:
            batch = load(folder(vault) / f"{batch_id}.json")
        return cls(batch.id, _pending_sources(vault, batch))

    # ---------------------------------------------------------------- views
    def hunks(self, page: int) -> list[BatchHunk]:
        """The hunks of page ``page`` across the batch: source by source, each in its order."""
        return self._hunks[page]

    def page_state(self, page: int) -> PageState:
        """Page ``page`` as it stands: its hunks, conflicts and the decisions."""
        return self._states[page]

    def find(self, key: str) -> BatchHunk:
        """The hunk with ``key`` (KeyError when there is none)."""
        p, i = self._by_key[key]
        return self._hunks[p][i]

    def page_of(self, key: str) -> int:
        """Index of the page the hunk ``key`` belongs to."""
        return self._by_key[key][0]

    def pages_of(self, keys: Iterable[str]) -> set[int]:
        """The indexes of the pages the hunks ``keys`` belong to (a key no hunk has any more is left out)."""
        by_key = self._by_key
        return {by_key[k][0] for k in keys if k in by_key}

    def decided(self, page: int) -> int:
        """How many of page ``page``'s hunks are decided."""
        decisions = self.decisions
        return sum(h.key in decisions for h in self._hunks[page])

    def reviewer_ok(self, page: int) -> list[str]:
        """The keys of page ``page``'s hunks the second reviewer found ``ok`` that can be applied (what ``o`` takes)."""
        return self._stats[page].ok

    def derived(self, source: int, file: int) -> Restacked:
        """File ``file`` of source ``source``'s changeset as it stands now (re-merged, conflicting, or as proposed)."""
        return self._derived[(source, file)]

    def all_hunks(self) -> list[BatchHunk]:
        """Every hunk, page by page."""
        return [h for hunks in self._hunks for h in hunks]

    def summary(self) -> BatchSummary:
        """The numbers the review opens with."""
        if self._summary is not None and self._summary[0] == self._version:
            return self._summary[1]
        # Per-page figures are kept as pages are (re-)derived: a key press costs a sum over pages, not hunks.
        verdicts: Counter[str] = Counter()
        for stats in self._stats:
            verdicts.update(stats.verdicts)
        total = sum(len(hunks) for hunks in self._hunks)
        accepted = sum(1 for d in self.decisions.values() if d == ACCEPTED)
        rejected = len(self.decisions) - accepted
        summary = BatchSummary(
            sources=len(self.sources), new_pages=sum(1 for p in self.pages if p.created),
            edited_pages=sum(1 for p in self.pages if not p.created), hunks=total,
            verdicts={v: verdicts.get(v, 0) for v in VERDICTS} if verdicts else {},
            accepted=accepted, rejected=rejected, undecided=total - accepted - rejected,
            remerged=sum(s.remerged for s in self._stats), conflicts=sum(s.conflicts for s in self._stats),
        )
        self._summary = (self._version, summary)
        return summary

    @property
    def has_reviewer(self) -> bool:
        """Whether a second reviewer read any of the batch's hunks."""
        return any(s.verdicts for s in self._stats)

    # ---------------------------------------------------------------- deciding
    def decide(self, key: str, decision: Decision | None) -> bool:
        """Decide one hunk (None: undecided again); False when refused (accepting a conflict)."""
        h = self.find(key)
        if decision == ACCEPTED and h.conflict:
            return False
        was = self.decisions.get(key)
        preview = self._preview
        prepared = preview is not None and preview[0] == (key, self._version) and decision == REJECTED
        if decision is None:
            self.decisions.pop(key, None)
        else:
            self.decisions[key] = decision
        if (was == REJECTED) != (decision == REJECTED):  # what the page's later sources build on changed
            if prepared and preview is not None:
                self._install(preview[1])  # derived ahead, over exactly these decisions
            else:
                self._restack(self.page_of(key))
        self._version += 1
        return True

    def preview_reject(self, key: str) -> PageState | None:
        """The page of hunk ``key`` as it will stand once ``key`` is rejected; nothing is decided.

        The review keeps the derivation: :meth:`decide` rejecting ``key`` next takes it as it
        is (the same hunks), unless another decision came in between. None when ``key`` is
        rejected already.
        """
        if self.decisions.get(key) == REJECTED:
            return None
        if self._preview is not None and self._preview[0] == (key, self._version):
            return self._preview[1].state
        decisions = dict(self.decisions)
        decisions[key] = REJECTED
        derivation = self._derive(self.page_of(key), decisions)
        self._preview = ((key, self._version), derivation)
        return derivation.state

    def accept_ok(self) -> list[str]:
        """Accept every undecided hunk the second reviewer found ``ok``; the keys accepted."""
        decisions = self.decisions
        keys = [key for stats in self._stats for key in stats.ok if key not in decisions]
        for key in keys:
            decisions[key] = ACCEPTED
        self._version += 1
        return keys

    def decide_page(self, page: int, decision: Decision) -> list[str]:
        """Decide the page's undecided hunks the reviewer did not question (no verdict, or ``ok``)."""
        if decision == ACCEPTED:
            return self._accept(h for h in self._hunks[page] if h.verdict in (None, "ok"))
        return self._reject([h for h in self._hunks[page] if h.verdict in (None, "ok")])

    def decide_source(self, source: int, decision: Decision) -> list[str]:
        """Decide the source's undecided hunks the reviewer did not question (no verdict, or ``ok``)."""
        chosen = [h for h in self.all_hunks() if h.source == source and h.verdict in (None, "ok")]
        return self._accept(chosen) if decision == ACCEPTED else self._reject(chosen)

    def _accept(self, hunks: Iterable[BatchHunk]) -> list[str]:
        keys = [h.key for h in hunks if h.key not in self.decisions and not h.conflict]
        for key in keys:
            self.decisions[key] = ACCEPTED  # an acceptance changes no later base: nothing to re-derive
        self._version += 1
        return keys

    def _reject(self, hunks: list[BatchHunk]) -> list[str]:
        keys = [h.key for h in hunks if h.key not in self.decisions]
        pages = {self.page_of(k) for k in keys}
        for key in keys:
            self.decisions[key] = REJECTED
        for p in sorted(pages):
            self._restack(p)
        self._version += 1
        return keys

    # ---------------------------------------------------------------- re-deriving
    def _restack(self, p: int) -> None:
        """Re-derive page ``p``'s changes over the decisions of its earlier sources (:mod:`.restack`)."""
        self._install(self._derive(p, self.decisions))

    def _derive(self, p: int, decisions: dict[str, Decision]) -> _Derivation:
        """Page ``p`` derived over ``decisions``, which it changes (decisions carried to re-merged hunks,
        acceptances of a conflict dropped); the review's own state is left as it is."""
        page = self.pages[p]
        originals = [self.sources[s].changeset.files[f] for s, f in page.parts]
        labels = [self.sources[s].source for s, _ in page.parts]

        def rejected(i: int, here: Restacked) -> set[str]:
            s, f = page.parts[i]
            before = self._derived.get((s, f))
            if before is not None and before.change is not here.change:
                _carry_decisions(decisions, s, before.change, here.change)
            return {h.id for h in here.change.hunks if decisions.get(f"{s}:{h.id}") == REJECTED}

        derived = restack_page(originals, rejected, labels)
        hunks: list[BatchHunk] = []
        regions: dict[int, list[str]] = {}
        conflicts: dict[int, str] = {}
        by_part: dict[tuple[int, int], Restacked] = {}
        for (s, f), d in zip(page.parts, derived):
            by_part[(s, f)] = d
            if d.regions:
                regions[s] = d.regions
            if d.conflict:
                conflicts[s] = d.conflict
            for h in d.change.hunks:
                key = f"{s}:{h.id}"
                if d.conflict and decisions.get(key) == ACCEPTED:
                    del decisions[key]  # a conflict is never applied
                hunks.append(BatchHunk(key, s, page.path, h, d.remerged, d.conflict))
        stats = _PageStats(Counter(h.verdict for h in hunks if h.verdict),
                           sum(1 for d in derived if d.remerged), sum(1 for d in derived if d.conflict),
                           [h.key for h in hunks if h.verdict == "ok" and not h.conflict])
        return _Derivation(p, PageState(hunks, regions, conflicts, decisions), by_part, stats)

    def _install(self, derivation: _Derivation) -> None:
        """Make ``derivation`` the page's state (its decisions become the review's)."""
        p = derivation.page
        for old in self._hunks[p]:
            self._by_key.pop(old.key, None)
        self._derived.update(derivation.derived)
        hunks = derivation.state.hunks
        for i, h in enumerate(hunks):
            self._by_key[h.key] = (p, i)
        self.pages[p].regions = derivation.state.regions
        self._hunks[p] = hunks
        self._stats[p] = derivation.stats
        decisions = derivation.state.decisions
        if decisions is not self.decisions:  # a preview's: the review's own mapping stays the one shown
            self.decisions.clear()
            self.decisions.update(decisions)
        self._states[p] = replace(derivation.state, decisions=self.decisions)
        self._preview = None


def _carry_decisions(decisions: dict[str, Decision], s: int, old: FileChange, new: FileChange) -> None:
    """A re-derived change's hunks keep the decisions of the hunks with the same lines."""
    by_lines = {}
    for h in old.hunks:
        key = f"{s}:{h.id}"
        if key in decisions:
            by_lines[tuple(h.lines)] = decisions.pop(key)
    for h in new.hunks:
        decision = by_lines.get(tuple(h.lines))
        if decision is not None:
            decisions[f"{s}:{h.id}"] = decision


def _pending_sources(vault: Vault, batch: Batch) -> list[SourceChanges]:
    """The batch's entries whose changeset is still pending, in batch order."""
    store = PendingStore(vault)
    out: list[SourceChanges] = []
    for e in batch.entries:
        if not e.changeset or not (store.folder / f"{e.changeset}.json").is_file():
            continue
        try:
            out.append(SourceChanges(len(out), e.source, store.load(e.changeset)))
        except UnknownChangeset:
            continue
    return out


def reviewable_batches(vault: Vault) -> list[Batch]:
    """The batches with at least one changeset pending review, oldest first."""
    store = PendingStore(vault)
    return [b for b in all_batches(vault)
            if any(e.changeset and (store.folder / f"{e.changeset}.json").is_file() for e in b.entries)]


__all__ = ["ACCEPTED", "REJECTED", "BatchHunk", "BatchReview", "BatchSummary", "NoBatch", "PageChanges", "PageState",
           "SourceChanges", "reviewable_batches"]
