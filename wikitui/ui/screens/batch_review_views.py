"""What the batch review draws: its summary, and a page's hunks across the batch as one change for the diff view.

The review screen (:mod:`wikitui.ui.screens.batch_review`) shows the summary in a
``Static`` and the pages in the single review's widgets: the page list
(:class:`~wikitui.ui.widgets.changeset_files.ChangesetFileList`) reads :class:`PageEntry`,
the diff (:class:`~wikitui.ui.widgets.diff_view.DiffView`) a :class:`PageShown` of
:class:`ShownHunk` s, whose headers name their source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.content import Content

from wikitui.core.batch.review import BatchHunk, BatchReview
from wikitui.core.vault.visible_text import visible_line
from wikitui.core.base.words import plural


@dataclass(frozen=True, slots=True)
class ShownHunk:
    """A batch hunk as the diff view draws it: its header names its source (and a re-merge or conflict)."""

    id: str
    header: str
    lines: list[str]
    display_lines: list[str]
    kind: str
    review: dict | None
    added: int
    removed: int


def shown_hunk(review: BatchReview, h: BatchHunk) -> ShownHunk:
    """``h`` for the diff view, its header followed by ``· <n>. <source's file name>``."""
    # The source's number and file name: the header is one row, and the page's top names each source in full.
    # What matters most first: a narrow diff cuts the header's end.
    mark = " ✗ conflict" if h.conflict else " ↻ re-merged" if h.remerged else ""
    tag = f"{mark} · {h.source + 1}. {review.sources[h.source].source.rsplit('/', 1)[-1]}"
    x = h.hunk
    return ShownHunk(h.key, x.header + tag, x.lines, x.display_lines, x.kind, x.review,
                     x.added, x.removed)


class PageEntry:
    """A page of the batch as the page list reads it (its hunks follow the review's re-derivations)."""

    def __init__(self, review: BatchReview, index: int) -> None:
        self._review = review
        self._index = index
        page = review.pages[index]
        self.path = page.path
        self.action = "create" if page.created else review.sources[page.parts[0][0]].changeset.files[
            page.parts[0][1]].action
        self.new_path: str | None = None

    @property
    def hunks(self) -> list[Any]:
        """The page's hunks across the batch."""
        return [h.hunk for h in self._review.hunks(self._index)]


@dataclass(frozen=True, slots=True)
class PageShown:
    """One page's hunks across the batch, as one change for the diff view (a snapshot: a re-derivation makes a new one)."""

    path: str
    action: str
    reason: str
    hunks: list[ShownHunk]
    new_path: None = None
    binary: bool = False


def summary_text(review: BatchReview) -> Content:
    """The summary: the batch in numbers, then each source's share."""
    s = review.summary()
    lines: list[Content] = [Content.assemble(
        (plural(s.sources, "source"), "bold"), " · ", (plural(s.new_pages, "new page"), "$text-success"), " · ",
        (plural(s.edited_pages, "edited page"), "$text-warning"), " · ", (plural(s.hunks, "hunk"), "bold"))]
    if s.verdicts:
        lines.append(Content.assemble(
            "Second reviewer: ", (f"{s.verdicts['ok']} ok", "$text-success"), " · ",
            (f"{s.verdicts['doubt']} doubt", "$text-warning"), " · ", (f"{s.verdicts['wrong']} wrong", "$text-error"),
            ("  (o accepts every ok hunk)", "$text-muted")))
    else:
        lines.append(Content.styled("No second reviewer read this batch (review_model): tab, then A accepts a "
                                    "page, s a source.", "$text-muted"))
    if s.remerged or s.conflicts:
        lines.append(Content.assemble((f"{s.remerged} re-merged", "$text-accent"), " · ",
                                      (f"{plural(s.conflicts, 'conflict')} (never applied)",
                                       "bold $text-error" if s.conflicts else "$text-muted")))
    lines += [Content(""), Content.styled("Sources, in batch order", "bold $text-muted")]
    per_source: dict[int, list[BatchHunk]] = {}
    for h in review.all_hunks():
        per_source.setdefault(h.source, []).append(h)
    for src in review.sources:
        hunks = per_source.get(src.index, [])
        decided = sum(1 for h in hunks if h.key in review.decisions)
        pages = len({h.page for h in hunks})
        doubts = sum(1 for h in hunks if h.verdict in ("doubt", "wrong"))
        lines.append(Content.assemble(
            (f"{src.index + 1:>3}. ", "$text-muted"), (visible_line(src.source), "bold"), "  ",
            (f"{plural(pages, 'page')} · {plural(len(hunks), 'hunk')} · {decided} decided", "$text-muted"),
            *([("  ", ""), (f"{doubts} to look at", "$text-warning")] if doubts else [])))
    lines += [Content(""), Content.styled("tab: the hunks by page · enter applies · esc leaves", "$text-muted")]
    return Content("\n").join(lines)

