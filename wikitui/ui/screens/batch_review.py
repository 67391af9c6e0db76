"""The batch review: a batch's changesets as one review, its summary first, then by page (DESIGN §13).

The screen opens on the summary (sources, new pages, edited pages, hunks, the second
reviewer's ok/doubt/wrong counts, and each source's share); ``tab`` turns to the pages:
left the pages the batch changes, right the selected page's hunks across the batch
(the single review's :class:`~wikitui.ui.widgets.diff_view.DiffView`), each hunk's
header naming its source. The decisions live in a core
:class:`~wikitui.core.batch.review.BatchReview`; a rejection re-derives the page's
later hunks there (re-merged ``↻``, or ``✗ conflict``: shown, never applied).

Keys:

| key | action |
| --- | --- |
| `enter` | apply: each source's accepted hunks as its own changeset, in batch order |
| `esc` | leave; everything stays pending |
| `tab` | the summary / the pages (on the summary a hunk key turns to the pages and does nothing else) |
| `o` | accept every hunk the second reviewer found ok |
| `a` / `r` | accept / reject the hunk, then on to the next undecided one |
| `u` | the hunk undecided again |
| `A` / `R` | accept / reject the page's unquestioned hunks (no verdict, or ok) |
| `s` / `S` | accept / reject the unquestioned hunks of the hunk's source |
| `j` `k` / `↓` `↑` | next / previous hunk |
| `n` / `p` | next / previous page |
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.cache import LRUCache
from textual.containers import Container, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.scalar import Scalar, ScalarOffset
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from wikitui import gc_tuning
from wikitui.core.batch.review import ACCEPTED, BatchHunk, BatchReview, Decision, PageState
from wikitui.core.batch.review_apply import BatchApplied
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.visible_text import visible, visible_line
from wikitui.core.base.words import plural
from wikitui.ui.screens.batch_review_views import PageEntry, PageShown, ShownHunk, shown_hunk, summary_text
from wikitui.ui.widgets.changeset_files import ChangesetFileList
from wikitui.ui.widgets.diff_view import DiffView

#: Where the summary lies: over the pages, or its own width to the right of them (out of sight, still laid out).
_SHOWN = ScalarOffset.null()
_AWAY = ScalarOffset(Scalar.parse("100%"), Scalar.parse("0"))


class BatchReviewScreen(Screen[BatchApplied | None]):
    """Review a batch's changesets together; dismisses with what the apply did (None: left).

    Args:
        review: The batch's decisions (core).
        on_apply: Applies the review (in a thread): ``on_apply(review)`` returns a
            :class:`~wikitui.core.batch.review_apply.BatchApplied`.
    """

    CSS_PATH = "batch_review.tcss"
    AUTO_FOCUS = ""

    BINDINGS = [
        Binding("enter", "apply", "apply", tooltip="Apply: each source's accepted hunks as its own changeset"),
        Binding("escape", "leave", "leave", tooltip="Leave the review; everything stays pending"),
        Binding("tab", "switch", "summary/pages", tooltip="The summary, or the hunks by page"),
        Binding("o", "accept_ok", "accept ok", tooltip="Accept every hunk the second reviewer found ok"),
        Binding("a", "decide('accepted')", "accept", tooltip="Accept the hunk, on to the next undecided one"),
        Binding("r", "decide('rejected')", "reject", tooltip="Reject the hunk, on to the next undecided one"),
        Binding("A", "decide_page('accepted')", "accept page", key_display="A",
                tooltip="Accept the page's hunks the reviewer did not question"),
        Binding("R", "decide_page('rejected')", "reject page", key_display="R",
                tooltip="Reject the page's hunks the reviewer did not question"),
        Binding("s", "decide_source('accepted')", "accept source",
                tooltip="Accept every unquestioned hunk of this hunk's source"),
        Binding("S", "decide_source('rejected')", "reject source", key_display="S",
                tooltip="Reject every unquestioned hunk of this hunk's source"),
        Binding("u", "undecide", "undecide", show=False, tooltip="The hunk undecided again"),
        Binding("question_mark", "app.help", "help", tooltip="Every key"),
        Binding("j,down", "move(1)", "hunk", key_display="j/k", tooltip="Next hunk"),
        Binding("k,up", "move(-1)", "previous hunk", show=False, tooltip="Previous hunk"),
        Binding("n", "move_page(1)", "page", key_display="n/p", tooltip="Next page"),
        Binding("p", "move_page(-1)", "previous page", show=False, tooltip="Previous page"),
        Binding("pagedown,space", "page(1)", "page down", show=False, tooltip="Scroll the diff down a page"),
        Binding("pageup", "page(-1)", "page up", show=False, tooltip="Scroll the diff up a page"),
    ]

    def __init__(self, review: BatchReview, *, on_apply: Callable[[BatchReview], BatchApplied] | None = None,
                 name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.review = review
        self._on_apply = on_apply
        self._applying = False
        self.page = 0
        self.cursor = 0
        self._entries = [PageEntry(review, p) for p in range(len(review.pages))]
        self._shown: dict[int, tuple[list[BatchHunk], PageShown]] = {}
        self._shown_ahead: tuple[list[BatchHunk], PageShown] | None = None  # the page as `r` will leave it
        self._view_page: int | None = None
        # By key and hunk: a page as it stands and as a rejection will re-derive it are drawn side by side.
        self._hunk_views: LRUCache[tuple[str, int], tuple[Any, tuple[bool, str | None], ShownHunk]] = LRUCache(8192)
        self._changes = 0  # decisions taken so far (the summary and page list redraw when it moved)
        self._summary_drawn = -1
        self._pages_drawn = -1
        self._counts_drawn = -1
        self._quiet_gc = contextlib.ExitStack()
        self._summary_shown = True

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="batch-header"):
            yield Label(Content.assemble(("Batch review", "bold $text-accent"), "  ",
                                         (self.review.batch_id, "$text-muted")), id="batch-title")
            yield Label(id="batch-counts")
        # The summary lies over the pages on a layer above; tab moves it out of the way and back. Both stay laid
        # out, so the turn repaints from what each already drew. A ContentSwitcher hid one, and showing it again
        # laid it out anew, its scrollbars and the page list redrawn a paint or two later: bench/batch_review.py
        # at 2,000 hunks, tab to the whole answer 19.6-21.2 ms (median), now 5.8-6.6 ms (with SteadyScrollView).
        with Container(id="batch-views"):
            with Horizontal(id="batch-pages"):
                with Vertical(id="batch-pages-pane"):
                    yield Label("Pages", id="batch-pages-title")
                    yield ChangesetFileList(self._entries, id="batch-page-list")
                yield DiffView(id="batch-diff")
            with VerticalScroll(id="batch-summary"):
                yield Static(id="batch-summary-text")
        yield Footer(show_command_palette=False, compact=True)

    def on_mount(self) -> None:
        # No full garbage collection while the review is open: it walks every hunk, line and drawn row of
        # the batch, and at 2,000 hunks each one paused a key for 60-250 ms (bench/batch_review.py: 20 in a
        # run, the p95 of n and r 150-210 ms). The one owed runs when the review closes.
        self._quiet_gc.enter_context(gc_tuning.no_full_collections())
        self._update_counts()
        self._show_summary()
        # Highlight every page's hunks ahead, a hunk per event-loop turn: a key then only lays rows out.
        diff = self.query_one(DiffView)
        self.run_worker(diff.prewarm(self._page_shown(p) for p in range(len(self.review.pages))),
                        group="batch-prewarm", exclusive=True)

    def on_unmount(self) -> None:
        self._quiet_gc.close()

    @property
    def summary_shown(self) -> bool:
        """Whether the summary is the view shown (else the pages)."""
        return self._summary_shown

    # ---------------------------------------------------------------- the summary
    def _show_summary(self) -> None:
        if self.summary_shown and self._summary_drawn != self._changes:
            self._summary_drawn = self._changes
            self.query_one("#batch-summary-text", Static).update(summary_text(self.review))

    # ---------------------------------------------------------------- the pages
    def _page_shown(self, p: int) -> PageShown:
        """Page ``p`` for the diff view, made again only when the review re-derived it."""
        return self._shown_for(p, self.review.page_state(p))

    def _shown_for(self, p: int, state: PageState, *, ahead: bool = False) -> PageShown:
        """Page ``p`` in ``state`` for the diff view; ``ahead``: a state a rejection will install (kept aside)."""
        hunks = state.hunks
        for cached in (self._shown.get(p), self._shown_ahead):
            if cached is not None and cached[0] is hunks:
                if not ahead:
                    self._shown[p] = cached
                return cached[1]
        page = self.review.pages[p]
        names = [f"{s + 1}. {self.review.sources[s].source}" for s, _ in page.parts]
        reason = "from " + ", ".join(names)
        for s, regions in state.regions.items():
            why = state.conflicts.get(s)
            reason += f"\n✗ {s + 1}. {self.review.sources[s].source}: {why}\n" + visible("".join(regions)).rstrip()
        shown = PageShown(page.path, self._entries[p].action, reason, [self._shown_hunk(h) for h in hunks])
        if ahead:
            self._shown_ahead = (hunks, shown)
        else:
            self._shown[p] = (hunks, shown)
        return shown

    def _shown_hunk(self, h: BatchHunk) -> ShownHunk:
        """``h`` as drawn, the same object while it is unchanged (the diff view keeps its highlighting by identity)."""
        cached = self._hunk_views.get((h.key, id(h.hunk)))
        if cached is not None and cached[0] is h.hunk and cached[1] == (h.remerged, h.conflict):
            return cached[2]
        view = shown_hunk(self.review, h)
        self._hunk_views[(h.key, id(h.hunk))] = (h.hunk, (h.remerged, h.conflict), view)
        return view

    def _sync(self, changed: Sequence[str] = (), *, full: bool = False) -> None:
        """Bring the page list, the diff and the counts in line with the review."""
        if not self.review.pages:
            self._update_counts()
            return
        diff = self.query_one(DiffView)
        pages = self.query_one(ChangesetFileList)
        shown = self._page_shown(self.page)
        if full or self._view_page != self.page or diff.change is not shown:
            self._view_page = self.page
            diff.show(shown, self.review.decisions, cursor=self.cursor)
        else:
            at = {h.id: i for i, h in enumerate(shown.hunks)}
            for key in changed:
                if key in at:
                    diff.refresh_hunk(at[key])
            diff.cursor = self.cursor
        touched = {self.page} | self.review.pages_of(changed)
        for p in range(len(self._entries)) if full else touched:
            pages.set_decided(p, self.review.decided(p))
        self._pages_drawn = self._changes  # the list shows every decision taken
        pages.select(self.page)
        self._update_counts()
        self.call_after_refresh(self._warm_ahead)

    def _warm_ahead(self) -> None:
        """After the paint, render what the next key most likely shows, a row per event-loop turn.

        First the rows ``j`` and ``a`` show (the cursor's hunk not selected, as it is and
        accepted; the next hunk selected), then what ``r`` shows (the page re-derived without
        the cursor's hunk, :meth:`~wikitui.core.batch.review.BatchReview.preview_reject`, laid
        out and drawn with the cursor on the next undecided hunk), those ``A`` shows (the hunks
        on the screen it would accept, accepted), then the next page's first screen (where
        ``n``, and ``a`` / ``r`` on a page's last hunk, go); a key's rows are then painted from
        the cache.
        A key cancels the warming it interrupts and starts its own. bench/batch_review.py at
        2,000 hunks (2026-12-03, two runs each, the machine loop at 7-9.7 ms): ``n`` key to the
        whole answer 26-29 ms before, 17-18 ms with the next page warmed and the page list's lazy
        entries (a back-to-back run on a fast minute: 16.5 -> 7.6 ms); ``j`` / ``a`` 17 / 22-23 ms
        without the hunks warmed, 12-14 / 17-21 ms with; ``A`` 21-24 ms without the page's hunks
        warmed accepted, 16-18 ms with.
        """
        self._warm(self.page, self.cursor)

    # A worker made from the method (``@work``), not from a coroutine: one cancelled before it starts leaves no
    # coroutine never awaited.
    @work(group="batch-warm", exclusive=True)
    async def _warm(self, p: int, cursor: int) -> None:
        diff = self.query_one(DiffView)
        hunks = self.review.hunks(p)
        steps: list = []
        if diff.change is self._page_shown(p) and 0 <= cursor < len(hunks):
            decided = self.review.decisions.get
            steps.append(diff.warm_hunk(cursor, selected=False, decision=decided(hunks[cursor].key)))
            if cursor + 1 < len(hunks):
                steps.append(diff.warm_hunk(cursor + 1, selected=True, decision=decided(hunks[cursor + 1].key)))
            steps.append(diff.warm_hunk(cursor, selected=False, decision=ACCEPTED))
            steps.append(self._warm_rejection(p, cursor, hunks[cursor].key))
            # What `A` shows: the hunks on the screen it would accept, accepted.
            steps += [diff.warm_hunk(i, selected=i == cursor, decision=ACCEPTED) for i in diff.visible_hunks()
                      if hunks[i].key not in self.review.decisions and hunks[i].verdict in (None, "ok")]
        if self.review.has_reviewer:
            steps.append(self._warm_accept_ok())
        if p + 1 < len(self.review.pages):
            steps.append(diff.warm(self._page_shown(p + 1)))
        for step in steps:
            for _ in step:
                await asyncio.sleep(0)

    def _warm_accept_ok(self) -> Iterator[None]:
        """What ``o`` will show in the page list: the entries on the screen with its acceptances counted.

        (Its hunks on the screen are those ``A`` shows, warmed accepted already.)
        """
        pages = self.query_one(ChangesetFileList)
        decisions = self.review.decisions
        for p in pages.visible_entries():
            taken = sum(1 for key in self.review.reviewer_ok(p) if key not in decisions)
            if taken:
                yield from pages.warm_entry(p, self.review.decided(p) + taken)

    def _warm_rejection(self, p: int, cursor: int, key: str) -> Iterator[None]:
        """What ``r`` will show: page ``p`` re-derived without hunk ``key``, the cursor on the next undecided hunk."""
        state = self.review.preview_reject(key)  # the three-way re-merges, kept for the rejection
        yield
        if state is None:
            return
        shown = self._shown_for(p, state, ahead=True)
        after = next((i for i in range(cursor + 1, len(state.hunks)) if state.hunks[i].key not in state.decisions),
                     None)
        if after is not None:  # (else `r` goes on to another page)
            yield from self.query_one(DiffView).warm(shown, cursor=after, decisions=state.decisions)

    def _update_counts(self) -> None:
        if self._counts_drawn == self._changes:
            return  # no decision since: moving about costs no summary
        self._counts_drawn = self._changes
        s = self.review.summary()
        counts = Content.assemble(
            (plural(s.hunks, "hunk"), "bold"), (" · ", "$text-muted"),
            (f"{s.accepted} accepted", "$text-success" if s.accepted else "$text-muted"), (" · ", "$text-muted"),
            (f"{s.rejected} rejected", "$text-error" if s.rejected else "$text-muted"), (" · ", "$text-muted"),
            (f"{s.undecided} undecided", "$text-warning" if s.undecided else "$text-muted"),
            *([(" · ", "$text-muted"), (plural(s.conflicts, "conflict"), "bold $text-error")] if s.conflicts else []),
        )
        label = self.query_one("#batch-counts", Label)
        # The label is as wide as the widest counts without a conflict (every figure as long as the hunks'),
        # the counts on its right: a decision redraws one row, no layout pass. A layout pass follows a label
        # whose size changed, a frame after the first paint (bench/batch_review.py: `o` and `a` painted twice).
        widest = len(f"{plural(s.hunks, 'hunk')} ·  accepted ·  rejected ·  undecided") + 3 * len(str(s.hunks))
        width = max(widest, counts.cell_length) + 2  # and its padding
        if label.styles.width is None or label.styles.width.value != width:
            label.styles.width = width
        if label.visual != counts:
            label.update(counts, layout=False)

    @property
    def current(self) -> BatchHunk | None:
        """The hunk under the cursor (None when the batch has none)."""
        if not self.review.pages:
            return None
        hunks = self.review.hunks(self.page)
        return hunks[min(self.cursor, len(hunks) - 1)] if hunks else None

    def _next_undecided(self) -> None:
        """Move to the first undecided hunk after the cursor, across pages, wrapping."""
        count, decisions = len(self.review.pages), self.review.decisions
        p, start = self.page, self.cursor + 1
        for _ in range(count + 1):  # the cursor's page last again, from its top
            hunks = self.review.hunks(p)
            for i in range(start, len(hunks)):
                if hunks[i].key not in decisions:
                    self.page, self.cursor = p, i
                    return
            p, start = (p + 1) % count, 0

    # ---------------------------------------------------------------- actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Nothing acts while the apply runs; the hunk keys only on the pages view."""
        if self._applying:
            return False
        return True  # the same keys in both views: turning the view changes no footer (its rebuild: ~150 ms)

    def _to_pages(self) -> bool:
        """On the summary a hunk key turns to the pages, and does nothing else (nothing unseen is decided)."""
        if self.summary_shown:
            self.action_switch()
            return True
        return False

    def action_switch(self) -> None:
        """``tab``: the summary or the pages."""
        self._summary_shown = not self._summary_shown
        summary = self.query_one("#batch-summary")
        # Its own style, not a class: a class re-applies the stylesheet to the summary and its scrollbars and
        # redraws them (~3 ms of a 9 ms turn); the offset alone moves it and keeps what it drew.
        summary.styles.offset = _SHOWN if self._summary_shown else _AWAY
        if not self._summary_shown and self.focused is not None and summary in self.focused.ancestors_with_self:
            self.set_focus(None)  # (clicked, it had the arrow keys: out of sight, they are the hunks' again)
        if self.summary_shown:
            self._show_summary()
        else:
            self._sync(full=self._pages_drawn != self._changes)

    def _after(self, changed: list[str]) -> None:
        # A page the decisions re-derived is shown anew (a new change for the diff view); the others redraw the
        # changed hunks only, and the page list the pages of the changed hunks.
        self._changes += 1
        if self.summary_shown:
            self._show_summary()
            self._update_counts()
        else:
            self._sync(changed)

    def action_accept_ok(self) -> None:
        """``o``: accept every hunk the second reviewer found ok."""
        keys = self.review.accept_ok()
        if not keys:
            self.notify("No undecided hunk the second reviewer found ok." if self.review.has_reviewer else
                        "No second reviewer read this batch: A accepts a page, s a source.", severity="warning")
        self._after(keys)  # acceptances re-derive nothing: the changed hunks and their pages redraw

    def action_decide(self, decision: Decision) -> None:
        """``a`` / ``r``: decide the hunk, then on to the next undecided one."""
        if self._to_pages():
            return
        h = self.current
        if h is None:
            return
        if not self.review.decide(h.key, decision):
            self.notify(f"{h.conflict}: this hunk cannot be applied; r rejects it, or take back the earlier "
                        "rejection (u).", title="Conflict", severity="error")
            return
        self._next_undecided()
        self._after([h.key])
        if self.review.summary().undecided == 0:
            self.notify("Every hunk is decided: enter applies, esc leaves it all pending.", timeout=3)

    def action_undecide(self) -> None:
        """``u``: the hunk undecided again (a rejection taken back re-derives what built on it)."""
        if self._to_pages():
            return
        h = self.current
        if h is not None:
            self.review.decide(h.key, None)
            self._after([h.key])

    def action_decide_page(self, decision: Decision) -> None:
        """``A`` / ``R``: the page's unquestioned hunks."""
        if self._to_pages():
            return
        if self.review.pages:
            self._after(self.review.decide_page(self.page, decision))

    def action_decide_source(self, decision: Decision) -> None:
        """``s`` / ``S``: every unquestioned hunk of the source of the hunk under the cursor."""
        if self._to_pages():
            return
        h = self.current
        if h is not None:
            keys = self.review.decide_source(h.source, decision)
            self.notify(f"{'Accepted' if decision == ACCEPTED else 'Rejected'} {plural(len(keys), 'hunk')} of "
                        f"{visible_line(self.review.sources[h.source].source)}", timeout=2)
            self._after(keys)

    def action_move(self, delta: int) -> None:
        """``j`` / ``k``: the next or previous hunk, across pages."""
        if self._to_pages():
            return
        hunks = self.review.hunks(self.page)
        target = self.cursor + delta
        if 0 <= target < len(hunks):
            self.cursor = target
        elif target < 0 and self.page > 0:
            self.page -= 1
            self.cursor = len(self.review.hunks(self.page)) - 1
        elif target >= len(hunks) and self.page + 1 < len(self.review.pages):
            self.page, self.cursor = self.page + 1, 0
        else:
            return
        self._sync()

    def action_move_page(self, delta: int) -> None:
        """``n`` / ``p``: the next or previous page."""
        if self._to_pages():
            return
        target = self.page + delta
        if 0 <= target < len(self.review.pages):
            self.page, self.cursor = target, 0
            self._sync()

    def action_page(self, direction: int) -> None:
        """Scroll the diff by a page."""
        if self._to_pages():
            return
        diff = self.query_one(DiffView)
        if direction > 0:
            diff.scroll_page_down(animate=False)
        else:
            diff.scroll_page_up(animate=False)

    def action_leave(self) -> None:
        """``esc``: leave, everything pending."""
        self.dismiss(None)

    def action_apply(self) -> None:
        """``enter``: apply each source's decided hunks as its own changeset, in batch order."""
        s = self.review.summary()
        if not s.accepted and not s.rejected:
            self.notify("Nothing decided yet: o accepts the ok hunks, a / r one hunk (esc leaves it all pending).",
                        severity="warning")
            return
        if self._on_apply is None:
            self.dismiss(None)
            return
        self._run_apply()

    @work(exclusive=True, group="batch-apply")
    async def _run_apply(self) -> None:
        assert self._on_apply is not None
        self._applying = True
        self.add_class("-applying")
        self.refresh_bindings()
        try:
            done = await asyncio.to_thread(self._on_apply, self.review)
        except WikituiError as exc:
            self.notify(str(exc), title="Not applied", severity="error")
            return
        finally:
            self._applying = False
            self.remove_class("-applying")
        self.dismiss(done)

    # ---------------------------------------------------------------- mouse
    @on(ChangesetFileList.Clicked)
    def _page_clicked(self, event: ChangesetFileList.Clicked) -> None:
        event.stop()
        self.page, self.cursor = event.index, 0
        self._sync()

    @on(DiffView.HunkClicked)
    def _hunk_clicked(self, event: DiffView.HunkClicked) -> None:
        self.cursor = event.index
        self._sync()


def applied_line(done: BatchApplied) -> tuple[str, SeverityLevel]:
    """(what a batch apply did in one line, its severity)."""
    applied = [d for d in done.done if d.result is not None and d.result.applied]
    hunks = sum(len(d.result.applied) for d in applied if d.result is not None)
    line = (f"Applied {plural(hunks, 'hunk')} of {plural(len(applied), 'source')}, each its own changeset "
            "(/undo takes back the last one).")
    if done.conflicts:
        line += f" {plural(len(done.conflicts), 'source')} kept a conflict pending."
    if done.failed is not None:
        source, exc = done.failed
        line += f" Stopped at {visible_line(source)}: {visible_line(str(exc))}; it and the rest stay pending."
        return line, "error"
    return line, "warning" if done.conflicts else "information"


async def review_batch(app: App, workspace: Any, batch_id: str | None = None) -> BatchApplied | None:
    """Open the batch review on the newest batch with a changeset pending (or ``batch_id``); what it applied.

    Call it from a worker: it waits on the screen. None when there was nothing to review or the
    review was left.
    """
    from wikitui.core.batch.review_apply import apply_batch

    try:
        review = await asyncio.to_thread(BatchReview.load, workspace.vault, batch_id)
    except WikituiError as exc:
        app.notify(str(exc), severity="warning")
        return None
    if not review.pages:
        app.notify(f"Batch {review.batch_id} has nothing left to review.")
        return None

    def apply(r: BatchReview) -> BatchApplied:
        return apply_batch(r, workspace.apply)

    return await app.push_screen_wait(BatchReviewScreen(review, on_apply=apply))
