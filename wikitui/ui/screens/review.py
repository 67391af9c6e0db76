"""The review screen: accept or reject a changeset hunk by hunk, like ``git add -p``.

Left, the changeset's files (action, path, +/−, how many hunks are decided);
right, the selected file's unified diff with a cursor on one hunk. Hunks start
undecided and nothing is written until ``enter``: the screen dismisses with a
:class:`ReviewResult` and the caller applies the accepted hunks (or hands an
``on_apply`` callback that does, and a :class:`~wikitui.core.base.errors.Conflict`
keeps the review open and is shown in a :class:`ConflictScreen`).

Keys (DESIGN §4 "Changesets"):

| key | action |
| --- | --- |
| `enter` | apply: accepted hunks are written, rejected dropped, undecided stay pending |
| `esc` | leave; everything stays pending |
| `?` | every key (the help, with the review's keys first) |
| `a` / `r` | accept / reject the hunk under the cursor, then go to the next undecided hunk (across files, wrapping) |
| `A` / `R` | accept / reject every undecided hunk of the current file |
| `j` `k` / `↓` `↑` | next / previous hunk, deciding nothing |
| `n` / `p` | next / previous file |
| `e` | write a reason for the agent about this hunk |
| `v` | the next evidence line of the hunk (its source's lines, DESIGN §11); `enter` on one opens the source there |
| `g` | on a chart: draw its picture again from the spec (the sidecar) |

``ctrl+p`` lists these keys as commands (:func:`wikitui.ui.commands.screen_commands`).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import partial
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, Label

from wikitui.core.changes.disk_status import DiskStatus
from wikitui.core.base.errors import Conflict, WikituiError
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.visible_text import visible_line
from wikitui.ui.handover import handed_over
from wikitui.ui.messages import VaultChanged
from wikitui.ui.screens.conflict import ConflictScreen
from wikitui.ui.screens.review_disk import DiskMarks
from wikitui.ui.screens.review_state import ReviewResult, ReviewState
from wikitui.ui.widgets.changeset_files import DISK_LABELS, ChangesetFileList
from wikitui.ui.widgets.chart_preview import ChartPreview
from wikitui.ui.widgets.diff_view import Decision, DiffView
from wikitui.ui.widgets.evidence_marks import find_evidence_marks
from wikitui.ui.widgets.link_marks import find_link_marks
from wikitui.ui.widgets.reason_input import ReasonInput

__all__ = ["ConflictScreen", "ReasonInput", "ReviewResult", "ReviewScreen", "ReviewState"]


class ReviewScreen(Screen[ReviewResult]):
    """Review a changeset per hunk; dismisses with a :class:`ReviewResult`.

    Args:
        changeset: The changeset (``.id``, ``.files`` of FileChange with hunks).
        on_apply: Optional callable run with the result when the user presses
            ``enter``, in a thread (it may write files); a coroutine function is
            awaited instead. Raising :class:`Conflict` keeps the review open and
            shows the conflict; another :class:`WikituiError` is shown as an error.
            Without it, ``enter`` dismisses at once and the caller applies.
        vault: The vault the changeset belongs to. With it, a file that changed on
            disk since the proposal is marked in the file list (with what ``enter``
            would do: merge or conflict) when the review opens and as soon as the app's
            watcher reports a change (:class:`~wikitui.ui.messages.VaultChanged`).
    """

    CSS_PATH = "review.tcss"
    #: Keys belong to the screen; the reason input takes focus only while open.
    AUTO_FOCUS = ""

    #: In footer order: what ends the review first (at 80 columns the footer shows the first few).
    BINDINGS = [
        Binding("enter", "apply", "apply", tooltip="Apply: write the accepted hunks, drop the rejected ones"),
        Binding("escape", "leave", "leave", tooltip="Leave the review; everything stays pending"),
        Binding("a", "decide('accepted')", "accept", tooltip="Accept the hunk, on to the next undecided one"),
        Binding("r", "decide('rejected')", "reject", tooltip="Reject the hunk, on to the next undecided one"),
        Binding("question_mark", "app.help", "help", tooltip="Every key (this list)"),
        Binding("e", "reason", "reason", tooltip="Write a reason for the agent about this hunk"),
        Binding("v", "evidence", "evidence", show=False,
                tooltip="The hunk's next evidence line; enter opens its source there"),
        Binding("A", "decide_file('accepted')", "accept file", key_display="A",
                tooltip="Accept every undecided hunk of this file"),
        Binding("R", "decide_file('rejected')", "reject file", key_display="R",
                tooltip="Reject every undecided hunk of this file"),
        Binding("j,down", "move(1)", "hunk", key_display="j/k", tooltip="Next hunk, deciding nothing"),
        Binding("k,up", "move(-1)", "previous hunk", show=False, tooltip="Previous hunk, deciding nothing"),
        Binding("n", "move_file(1)", "file", key_display="n/p", tooltip="Next file"),
        Binding("p", "move_file(-1)", "previous file", show=False, tooltip="Previous file"),
        Binding("g", "rerender_chart", "draw chart again", show=False,
                tooltip="On a chart: draw its picture again from the spec"),
        Binding("pagedown,space", "page(1)", "page down", show=False, tooltip="Scroll the diff down a page"),
        Binding("pageup", "page(-1)", "page up", show=False, tooltip="Scroll the diff up a page"),
    ]

    def __init__(
        self,
        changeset: Any,
        *,
        on_apply: Callable[[ReviewResult], Any] | None = None,
        vault: Vault | None = None,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id)
        self.changeset = changeset
        self.state = ReviewState(changeset.files)
        self._on_apply = on_apply
        self._applying = False
        self._shown_file: int | None = None
        self._disk = DiskMarks(vault, self.state.files) if vault is not None else None
        self._vault = vault
        self._disk_looked = False

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="review-header"):
            yield Label(self._title(), id="review-title")
            yield Label(id="review-counts")
        with Horizontal(id="review-body"):
            with Vertical(id="review-files-pane"):
                yield Label("Files", id="review-files-title")
                yield ChangesetFileList(self.state.files, id="review-files")
            with Vertical(id="review-right"):
                yield DiffView(id="review-diff")
                yield ChartPreview(truecolor=self.app.console.color_system == "truecolor", id="review-chart")
        with Horizontal(id="review-reason-bar"):
            yield Label("✎ reason", id="review-reason-label")
            yield ReasonInput(
                placeholder="tell the agent why — enter saves, esc cancels",
                id="review-reason",
                disabled=True,
                select_on_focus=False,  # editing a reason goes on from its end
            )
        yield Footer(show_command_palette=False, compact=True)

    def _title(self) -> Content:
        title = visible_line(getattr(self.changeset, "title", "") or "")
        op = getattr(self.changeset, "op", "") or ""
        parts: list[Any] = [("Review", "bold $text-accent")]
        if op:
            parts += ["  ", (op, "$text-muted")]
        if title:
            parts += ["  ", (title, "bold")]
        return Content.assemble(*parts, ("  ", ""), (str(self.changeset.id), "$text-muted"))

    def on_mount(self) -> None:
        self._sync(full=True)
        self.run_worker(self.diff_view.prewarm(self.state.files), group="review-prewarm", exclusive=True)
        if self._vault is not None:
            self.run_worker(self._mark_links, thread=True, group="review-links", exclusive=True)
            self.run_worker(self._mark_evidence, thread=True, group="review-evidence", exclusive=True)

    def _mark_evidence(self) -> None:
        """Read each hunk's evidence lines from its sources (DESIGN §11); a thread: it reads files."""
        marks = find_evidence_marks(self._vault, self.changeset)
        if marks:
            self.app.call_from_thread(self._show_evidence_marks, marks)

    @handed_over
    def _show_evidence_marks(self, marks: dict[str, Any]) -> None:
        self.diff_view.evidence_marks = marks
        self._sync(full=True)

    def _mark_links(self) -> None:
        """Mark the hunks that add an unresolved link (DESIGN §11); a thread: it loads the link graph."""
        marks = find_link_marks(self._vault, self.changeset)
        if marks:
            self.app.call_from_thread(self._show_link_marks, marks)

    @handed_over
    def _show_link_marks(self, marks: dict[str, list[str]]) -> None:
        self.diff_view.link_marks = marks
        self._sync(full=True)

    # ---------------------------------------------------------------- files changed on disk
    @on(VaultChanged)
    def _vault_changed(self, message: VaultChanged) -> None:
        if self._disk is not None:
            self._check_disk(self._disk.indices_for(message.paths))

    def on_screen_resume(self) -> None:
        """Shown (opened, or back from a dialog): look at the disk; news are told after the first look."""
        self._check_disk(range(len(self.state.files)), announce=self._disk_looked)
        self._disk_looked = True

    def _check_disk(self, indices: Iterable[int], *, announce: bool = True) -> None:
        """Compare files with the disk in a thread; the file list marks those that changed."""
        indices = list(indices)
        if self._disk is None or not indices:
            return
        rejected = frozenset(self.state.result(applied=False).rejected)
        seq = self._disk.request(indices)
        self.run_worker(
            partial(self._disk_worker, seq, indices, rejected, announce), thread=True, group="review-disk"
        )

    def _disk_worker(self, seq: int, indices: list[int], rejected: frozenset[str], announce: bool) -> None:
        assert self._disk is not None
        found = self._disk.check(indices, rejected)
        self.app.call_from_thread(self._show_disk, seq, found, announce)

    @handed_over
    def _show_disk(self, seq: int, found: list[tuple[int, DiskStatus]], announce: bool) -> None:
        assert self._disk is not None
        files = self.query_one(ChangesetFileList)
        for index, status in self._disk.accept(seq, found):
            was = files.disk_state(index)
            files.set_disk_state(index, status.state)
            if announce and status.state in ("merges", "conflict") and status.state != was:
                path = self.state.files[index].path
                self.notify(f"{path}: {status.why}", title=DISK_LABELS[status.state][0].lstrip("⚠✗ "),
                            severity="error" if status.state == "conflict" else "warning")

    def _recheck_marked(self, indices: Iterable[int]) -> None:
        """Decisions changed in these files: a marked one may now merge (or conflict)."""
        files = self.query_one(ChangesetFileList)
        self._check_disk(i for i in set(indices) if files.disk_state(i) != "same")

    # ---------------------------------------------------------------- keeping the view in step
    @property
    def diff_view(self) -> DiffView:
        """The diff of the current file."""
        return self.query_one(DiffView)

    def _sync(self, *, full: bool = False, changed: Sequence[str] = ()) -> None:
        """Bring the file list, diff, header and counts in line with the state."""
        state = self.state
        diff = self.diff_view
        if not state.files:
            self._update_counts()
            return
        if full or self._shown_file != state.file_index:
            self._shown_file = state.file_index
            diff.show(state.files[state.file_index], state.decisions, state.reasons, cursor=state.hunk_index)
            self.query_one(ChartPreview).show_for(state.files, state.file_index)
        else:
            index_by_id = {h.id: i for i, h in enumerate(state.files[state.file_index].hunks)}
            for hunk_id in changed:
                if hunk_id in index_by_id:
                    diff.refresh_hunk(index_by_id[hunk_id])
            diff.cursor = state.hunk_index
        files = self.query_one(ChangesetFileList)
        touched = {state.file_index} | {
            f for f, change in enumerate(state.files) if any(h.id in changed for h in change.hunks)
        }
        for f in range(len(state.files)) if full else touched:
            files.set_decided(f, state.file_decided(f))
        files.select(state.file_index)
        self._update_counts()

    def _update_counts(self) -> None:
        total, accepted, rejected, undecided = self.state.counts()
        counts = Content.assemble(
            (f"{total} hunk{'s' if total != 1 else ''}", "bold"),
            (" · ", "$text-muted"),
            (f"{accepted} accepted", "$text-success" if accepted else "$text-muted"),
            (" · ", "$text-muted"),
            (f"{rejected} rejected", "$text-error" if rejected else "$text-muted"),
            (" · ", "$text-muted"),
            (f"{undecided} undecided", "$text-warning" if undecided else "$text-muted"),
        )
        label = self.query_one("#review-counts", Label)
        if label.visual != counts:
            # The label is as wide as its text (the title gives way, with an ellipsis): a layout
            # pass only when the counts' length changes.
            was = label.visual.cell_length if isinstance(label.visual, Content) else -1
            label.update(counts, layout=was != counts.cell_length)

    # ---------------------------------------------------------------- actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No key acts while ``on_apply`` runs (the decisions are being written)."""
        return not self._applying

    def action_rerender_chart(self) -> None:
        """``g``: draw the chart under review again from its sidecar's spec."""
        self.query_one(ChartPreview).rerender()

    def action_decide(self, decision: Decision) -> None:
        """``a`` / ``r``: decide the hunk under the cursor, then on to the next undecided one."""
        hunk = self.state.hunk
        if hunk is None:
            return
        file_index = self.state.file_index
        self.state.decide(decision)
        self._sync(changed=[hunk.id])
        self._recheck_marked([file_index])
        if self.state.counts()[3] == 0:
            self.notify("Every hunk is decided: enter applies, esc leaves it all pending.", timeout=3)

    def action_decide_file(self, decision: Decision) -> None:
        """``A`` / ``R``: decide every undecided hunk of the current file."""
        if not self.state.files:
            return
        before = set(self.state.decisions)
        file_index = self.state.file_index
        self.state.decide_file(decision)
        self._sync(changed=[k for k in self.state.decisions if k not in before])
        self._recheck_marked([file_index])

    def action_move(self, delta: int) -> None:
        """``j`` / ``k``: move by hunk without deciding."""
        if self.state.move(delta):
            self._sync()

    def action_move_file(self, delta: int) -> None:
        """``n`` / ``p``: move by file without deciding."""
        if self.state.move_file(delta):
            self._sync()

    def action_page(self, direction: int) -> None:
        """Scroll the diff by a page (for hunks taller than the screen)."""
        if direction > 0:
            self.diff_view.scroll_page_down(animate=False)
        else:
            self.diff_view.scroll_page_up(animate=False)

    def action_reason(self) -> None:
        """``e``: open the reason bar for the hunk under the cursor."""
        hunk = self.state.hunk
        if hunk is None:
            return
        reason_input = self.query_one("#review-reason", Input)
        reason_input.value = self.state.reasons.get(hunk.id, "")
        reason_input.cursor_position = len(reason_input.value)
        # Name what the reason is about: the file, and the hunk's range (not its trailing context).
        where = hunk.header.split(" @@", 1)[0] + " @@" if hunk.header.startswith("@@ ") else hunk.header
        file_name = self.state.files[self.state.file_index].path.rsplit("/", 1)[-1]
        self.query_one("#review-reason-label", Label).update(
            Content.assemble(("✎ why · ", "$text-warning"), (file_name, "bold"), " ", (where, "$text-accent"))
        )
        self.add_class("-editing")
        reason_input.disabled = False
        reason_input.focus()

    @on(Input.Submitted, "#review-reason")
    def _reason_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        hunk = self.state.hunk
        if hunk is not None:
            self.state.set_reason(hunk.id, event.value)
            self._sync(changed=[hunk.id])
        self._close_reason()

    def _close_reason(self) -> None:
        self.remove_class("-editing")
        self.query_one("#review-reason", Input).disabled = True
        self.set_focus(None)

    def action_leave(self) -> None:
        """``esc``: close the reason bar, or leave the review with everything pending."""
        if self.has_class("-editing"):
            self._close_reason()
            return
        self.dismiss(self.state.result(applied=False))

    def action_evidence(self) -> None:
        """``v``: the hunk's next evidence line (past the last, none)."""
        if not self.diff_view.next_evidence():
            self.notify("This hunk shows no evidence lines.", severity="warning", timeout=3)

    def action_apply(self) -> None:
        """``enter``: apply the accepted hunks and drop the rejected ones; on an evidence line (``v``),
        open its source at that line instead."""
        target = self.diff_view.selected_evidence
        if target is not None and self._vault is not None:
            from wikitui.ui.screens.evidence_source import EvidenceSourceScreen

            self.app.push_screen(EvidenceSourceScreen(self._vault, *target))
            return
        result = self.state.result(applied=True)
        if not result.accepted and not result.rejected:
            self.notify("Nothing decided yet: a accepts, r rejects (esc leaves it all pending).", severity="warning")
            return
        if self._on_apply is None:
            self.dismiss(result)
            return
        self._run_apply(result)

    @work(exclusive=True, group="review-apply")
    async def _run_apply(self, result: ReviewResult) -> None:
        """Run ``on_apply`` off the event loop; a conflict keeps the review open."""
        assert self._on_apply is not None  # action_apply dismisses the review itself when there is none
        self._applying = True
        self.add_class("-applying")
        try:
            if inspect.iscoroutinefunction(self._on_apply):
                await self._on_apply(result)
            else:
                await asyncio.to_thread(self._on_apply, result)
        except Conflict as exc:
            self.app.push_screen(ConflictScreen(exc))
            return
        except WikituiError as exc:
            self.notify(str(exc), title="Not applied", severity="error")
            return
        finally:
            self._applying = False
            self.remove_class("-applying")
        self.dismiss(result)

    # ---------------------------------------------------------------- mouse
    @on(ChangesetFileList.Clicked)
    def _file_clicked(self, event: ChangesetFileList.Clicked) -> None:
        event.stop()
        if event.index != self.state.file_index:
            self.state.goto(event.index, 0)
            self._sync()

    @on(DiffView.HunkClicked)
    def _hunk_clicked(self, event: DiffView.HunkClicked) -> None:
        self.state.goto(self.state.file_index, event.index)
        self._sync()


def screen_reviewer(app: App, vault: Vault | None = None) -> Callable[[Any, Callable[[ReviewResult], Any]], Awaitable[Any]]:
    """A reviewer for the chat: it pushes the review screen and waits for the person's decision.

    The chat pane is handed one (it never imports a screen): ``await reviewer(changeset,
    on_apply)`` returns the :class:`ReviewResult`, or None when the review was left.
    Call it from a worker (it waits on the screen).
    """

    async def review(changeset: Any, on_apply: Callable[[ReviewResult], Any]) -> Any:
        return await app.push_screen_wait(ReviewScreen(changeset, on_apply=on_apply, vault=vault))

    return review
