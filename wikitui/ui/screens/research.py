"""The review of proposed web sources: accept or reject each URL like a hunk; only accepted ones are clipped.

The proposal is a :class:`~wikitui.core.research.proposals.SourceProposal` (``/research
TOPIC``, lint's sources pass). Nothing has been fetched: this screen only decides; the
chat pane then clips the accepted URLs through ``clip``'s path, in a worker.

| Key | Action |
| :- | :- |
| a / r | Accept / reject the URL under the cursor, then move to the next undecided one. |
| A / R | Accept / reject every undecided URL. |
| j / k, arrows | Move without deciding. |
| i | Also queue the clipped sources for a batch ingest (on / off). |
| enter | Clip the accepted URLs into raw/ (rejected ones are dropped; undecided ones stay pending). |
| escape | Leave everything pending. |
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from wikitui.core.vault.visible_text import visible_line

_MARK = {"undecided": ("·", "$text-muted"), "accepted": ("✓", "bold $text-success"),
         "rejected": ("✗", "bold $text-error")}


@dataclass
class SourcesDecision:
    """What the person decided: the URLs accepted and rejected now, and whether to queue them for ingest."""

    accepted: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    queue: bool = False


class ResearchReviewScreen(ModalScreen[SourcesDecision | None]):
    """Accept or reject each proposed URL; dismisses with the decision (None: all left pending)."""

    DEFAULT_CSS = """
    ResearchReviewScreen { align: center middle; }
    ResearchReviewScreen > #sources-box {
        width: 90%; max-width: 120; height: 80%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    ResearchReviewScreen #sources-list { height: 1fr; border: none; }
    ResearchReviewScreen #sources-help { height: auto; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "decide('accepted')", "Accept", show=False),
        Binding("r", "decide('rejected')", "Reject", show=False),
        Binding("A", "decide_all('accepted')", "Accept all", show=False),
        Binding("R", "decide_all('rejected')", "Reject all", show=False),
        Binding("j", "move(1)", "Down", show=False),
        Binding("k", "move(-1)", "Up", show=False),
        Binding("i", "toggle_queue", "Queue for ingest", show=False),
        Binding("enter", "apply", "Clip accepted", show=False, priority=True),
        Binding("escape", "leave", "Leave pending", show=False),
    ]

    def __init__(self, proposal: Any) -> None:
        super().__init__()
        self.proposal = proposal
        #: Each URL's decision as shown, starting from the proposal's.
        self.decisions: dict[str, str] = {s.url: s.decision for s in proposal.sources}
        self.queue = False

    def compose(self) -> ComposeResult:
        with Vertical(id="sources-box") as box:
            box.border_title = f"Sources proposed: {visible_line(self.proposal.topic)[:80]}"
            yield OptionList(*self._options(), id="sources-list")
            yield Static(self._help(), id="sources-help")

    def on_mount(self) -> None:
        """The cursor on the first undecided URL."""
        listing = self.query_one(OptionList)
        listing.focus()
        listing.highlighted = self._next_undecided(-1) if self._next_undecided(-1) is not None else 0

    # ----------------------------------------------------------------- drawing
    def _options(self) -> list[Option]:
        options = []
        for s in self.proposal.sources:
            decision = self.decisions[s.url]
            mark, style = _MARK[decision]
            if s.clipped:
                mark, style = "✓", "$text-success"
            title = visible_line(s.title or s.url)[:100]
            lines: list[str | tuple[str, str]] = [(f"{mark} ", style), (title, "bold"), "\n  ",
                                                  (visible_line(s.url)[:200], "$text-accent")]
            if s.why:
                lines += ["\n  ", visible_line(s.why)]
            if s.clipped:
                lines += ["\n  ", (f"clipped as {s.clipped}", "$text-muted")]
            options.append(Option(Content.assemble(*lines), id=s.url))
        return options

    def _help(self) -> Content:
        counts = {k: sum(1 for v in self.decisions.values() if v == k) for k in _MARK}
        queue = "on" if self.queue else "off"
        return Content.assemble(
            (f"{counts['accepted']} accepted, {counts['rejected']} rejected, {counts['undecided']} undecided · ",
             "bold"),
            "a/r accept/reject · A/R all · i queue for ingest: ", (queue, "bold"),
            " · enter clips the accepted · esc leaves them pending. Nothing is fetched until you accept it.")

    def _redraw(self) -> None:
        listing = self.query_one(OptionList)
        at = listing.highlighted
        listing.clear_options()
        listing.add_options(self._options())
        listing.highlighted = at
        self.query_one("#sources-help", Static).update(self._help())

    # ----------------------------------------------------------------- actions
    def _next_undecided(self, after: int) -> int | None:
        urls = [s.url for s in self.proposal.sources]
        order = list(range(after + 1, len(urls))) + list(range(0, after + 1))
        for i in order:
            if self.decisions[urls[i]] == "undecided" and not self.proposal.sources[i].clipped:
                return i
        return None

    def action_decide(self, decision: str) -> None:
        """Decide the URL under the cursor and move to the next undecided one."""
        listing = self.query_one(OptionList)
        at = listing.highlighted
        if at is None:
            return
        source = self.proposal.sources[at]
        if source.clipped:
            self.notify("Already clipped.", severity="warning")
            return
        self.decisions[source.url] = decision
        self._redraw()
        following = self._next_undecided(at)
        if following is not None:
            listing.highlighted = following

    def action_decide_all(self, decision: str) -> None:
        """Decide every undecided URL."""
        for s in self.proposal.sources:
            if self.decisions[s.url] == "undecided" and not s.clipped:
                self.decisions[s.url] = decision
        self._redraw()

    def action_move(self, step: int) -> None:
        """Move the cursor without deciding."""
        listing = self.query_one(OptionList)
        count = listing.option_count
        if count:
            listing.highlighted = max(0, min(count - 1, (listing.highlighted or 0) + step))

    def action_toggle_queue(self) -> None:
        """Queue the clipped sources for a batch ingest, or not."""
        self.queue = not self.queue
        self._redraw()

    def action_apply(self) -> None:
        """Dismiss with the decisions made here."""
        before = {s.url: s.decision for s in self.proposal.sources}
        decided = {u: d for u, d in self.decisions.items() if d != before[u] and d != "undecided"}
        self.dismiss(SourcesDecision([u for u, d in decided.items() if d == "accepted"],
                                     [u for u, d in decided.items() if d == "rejected"], self.queue))

    def action_leave(self) -> None:
        """Close, leaving every URL as it was."""
        self.dismiss(None)


def sources_reviewer(app: Any):
    """A sources reviewer for the chat: ``await review(proposal)`` pushes this screen and waits for the decision.

    The chat pane is handed one (widgets never import a screen). Call it from a worker.
    """

    async def review(proposal: Any) -> SourcesDecision | None:
        return await app.push_screen_wait(ResearchReviewScreen(proposal))

    return review
