"""The chat with the agent: the conversation, the input, and the review of what the agent proposes.

Self-contained: it is given the :class:`~wikitui.core.workspace.Workspace` and reads its
link graph and search index from it, once they are there. The app answers its two
messages: :class:`ChatPane.OpenPage` (open a page the chat links to)
and :class:`ChatPane.ChangesetApplied` (pages changed on disk: refresh what shows them).

| Key | Action |
| :- | :- |
| enter | Send (shift+enter or ctrl+j: new line). |
| esc | Cancel the running turn; a batch: stop it after the current source (again: now). |
| ctrl+r | Review the pending changeset (an app key; :meth:`ChatPane.action_review`). |
| tab in the log | Next link of the answers; enter opens it. |
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static

from wikitui.core.base.errors import Conflict, WikituiError
from wikitui.core.vault.links import Link
from wikitui.core.base.words import plural
from wikitui.ui.chat.controller import ChatController
from wikitui.ui.chat.notes import (
    applied_note,
    conflict_note,
    review_feedback,
    sentence,
    sources_note,
    undone_note,
    unresolved_links,
)
from wikitui.ui.chat.slash import COMMANDS
from wikitui.ui.widgets.batch_panel import BatchPanel
from wikitui.ui.widgets.changeset_card import ChangesetCard
from wikitui.ui.widgets.chat_input import ChatInput, Completion, complete
from wikitui.ui.widgets.chat_log import ChatLog

if TYPE_CHECKING:
    from wikitui.core.workspace import Workspace

#: Shows a changeset for review: ``await reviewer(changeset, on_apply)`` is the decision (None: left pending).
Reviewer = Callable[[Any, Callable[[Any], None]], Awaitable[Any]]
#: Shows proposed web sources for review: ``await sources_reviewer(proposal)`` is the decision (None: left pending).
SourcesReviewer = Callable[[Any], Awaitable[Any]]


class ChatPane(Vertical):
    """The agent's conversation with its input, status and token footer.

    Args:
        workspace: The open vault the chat is about.
        reviewer: Shows a changeset for review and returns the decision (``await
            reviewer(changeset, on_apply)``; the workspace screen hands the review
            screen's); None: ``ctrl+r`` says reviews are not available here.
        sources_reviewer: Shows web sources a research turn proposed (``await sources_reviewer(proposal)``
            returns what was accepted and rejected); None: they are reviewed with ``wikitui research``.
        client_factory: Builds the model client from the settings (tests pass one that
            does not wait between retries); None: the agent's own client.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel turn", show=False)]

    DEFAULT_CSS = """
    ChatPane {
        height: 1fr;
        background: $surface;
        & > #chat-complete {
            height: auto;
            max-height: 9;
            border: none;
            padding: 0;
            margin: 0 1;
            background: $panel;
            display: none;
        }
        & > #chat-status {
            height: 1;
            padding: 0 1;
            color: $text-accent;
            display: none;
            &.-shown { display: block; }
        }
        & > #chat-footer {
            height: auto;
            padding: 0 1;
            color: $text-muted;
            background: $surface;
        }
    }
    """

    class OpenPage(Message):
        """Open a page the chat links to.

        Attributes:
            path: Vault-relative path of the page (or raw file).
            anchor: Heading or ``^block`` to scroll to ("" for the top).
        """

        def __init__(self, path: str, anchor: str = "") -> None:
            super().__init__()
            self.path = path
            self.anchor = anchor

    class ChangesetApplied(Message):
        """Pages changed on disk through the chat (an apply or an undo).

        The workspace's link graph and search index are already up to date (the
        workspace updates them); the page shown, the trees and the links panel should follow.

        Attributes:
            paths: Vault-relative paths written or deleted.
            result: The core's ``ApplyResult``.
        """

        def __init__(self, paths: list[str], result: Any) -> None:
            super().__init__()
            self.paths = paths
            self.result = result

    def __init__(self, workspace: Workspace, *, reviewer: Reviewer | None = None,
                 client_factory: Callable[[Any], Any] | None = None,
                 sources_reviewer: SourcesReviewer | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.workspace = workspace
        self.reviewer = reviewer
        self.sources_reviewer = sources_reviewer
        self.controller = ChatController(self, workspace, client_factory=client_factory)
        self.chat_log = ChatLog(id="chat-log", resolve=self._resolve)
        self.batch_panel = BatchPanel(id="batch-panel")
        self._menu = OptionList(id="chat-complete")
        self._menu.can_focus = False
        self.chat_input = ChatInput(menu=self._menu, completer=self._complete, id="agent-input",
                               placeholder="Ask the wiki…  (/ commands, [[ pages)")
        self._reviewing = False

    # ------------------------------------------------------------------ context
    @property
    def vault(self) -> Any:
        """The vault the chat is about."""
        return self.workspace.vault

    @property
    def graph(self) -> Any:
        """The workspace's link graph (None while it loads)."""
        return self.workspace.graph

    @property
    def reviewing(self) -> bool:
        """Whether the review screen opened from this chat is showing."""
        return self._reviewing

    @property
    def busy(self) -> bool:
        """Whether a turn (or a batch) is running."""
        return self.controller.running or self.controller.batch.running

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield self.chat_log
        yield self.batch_panel
        yield self._menu
        yield Static(id="chat-status")
        yield self.chat_input
        yield Static(id="chat-footer")

    def on_mount(self) -> None:
        self.controller.start()
        if self.graph is None:
            # Links restored before the wiki loaded are painted as plain links: resolve them once it has.
            self._graph_timer = self.set_interval(0.25, self._graph_loaded, name="chat-wait-graph")

    def _graph_loaded(self) -> None:
        if self.graph is not None:
            self._graph_timer.stop()
            self.relink()

    def relink(self) -> None:
        """Resolve the links of every answer again (pages were created, deleted or loaded)."""
        for answer in self.chat_log.answers:
            answer.relink()

    def set_busy(self, busy: bool, activity: str = "") -> None:
        """Show what the agent is doing (and that esc cancels it), or nothing."""
        if busy:
            self.set_status(Content.assemble(("● ", "$text-accent"), activity or "working…",
                                             (" · esc cancels", "$text-muted")))
        else:
            self.set_status("")

    def set_status(self, text: str | Content) -> None:
        """The line above the input ("" hides it)."""
        status = self.query_one("#chat-status", Static)
        status.update(text)
        status.set_class(bool(text), "-shown")

    def set_footer(self, text: Content) -> None:
        """The line below the input: model, tokens and cost."""
        self.query_one("#chat-footer", Static).update(text)

    # ------------------------------------------------------------------ public API
    def submit(self, text: str) -> None:
        """Send ``text`` as if typed (a slash command or a question)."""
        self.controller.submit(text)

    def start_ingest(self, raw_path: str) -> None:
        """Ingest a raw source (the sources pane's ``i``): the plan first, then ``/go``."""
        if not self.controller.settings.model:
            self.notify(f"ingest {raw_path}: no model configured (see the Agent pane)", severity="warning")
        self.submit(f"/ingest {raw_path}")

    def prefill(self, text: str) -> None:
        """Put ``text`` in the input, ready to send, and focus it."""
        self.chat_input.set_text(text)
        self.chat_input.focus()
        if not self.controller.settings.model:
            self.notify("No model configured: see the Agent pane for how to set one.", severity="warning")

    def say(self, text: str) -> None:
        """Add a quiet note to the conversation."""
        self.chat_log.add_note(text)

    def action_cancel(self) -> None:
        """Cancel the running turn (esc)."""
        if not self.controller.cancel() and self.chat_input.menu_open:
            self.chat_input.close_menu()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """esc is only this pane's while a turn runs (elsewhere it belongs to others)."""
        if action == "cancel":
            return self.controller.running or self.controller.batch.running or self.chat_input.menu_open
        return True

    # ------------------------------------------------------------------ input
    def on_key(self, event: events.Key) -> None:
        """Typing while the log has the focus goes to the input (the log's own keys are not letters)."""
        if self.screen.focused is self.chat_log and event.is_printable and event.character:
            event.stop()
            self.chat_input.focus()
            self.chat_input.insert(event.character)

    @on(ChatInput.Submitted)
    def _submitted(self, event: ChatInput.Submitted) -> None:
        event.stop()
        self.submit(event.text)

    @on(OptionList.OptionSelected, "#chat-complete")
    def _completion_clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.chat_input.accept_completion(event.option_index)
        self.chat_input.focus()

    def _complete(self, before: str) -> Completion | None:
        graph = self.graph

        def titles():
            if graph is None:
                return ()
            for info in graph.pages.values():
                yield info.title
                yield from info.aliases

        def raw_files():
            return sorted(graph.raw_files) if graph is not None else ()

        return complete(before, commands=COMMANDS, titles=titles, raw_files=raw_files)

    # ------------------------------------------------------------------ links
    def _resolve(self, link: Link) -> str | None:
        graph = self.graph
        if graph is None:
            return link.target  # not known yet: painted as a plain link
        return graph.resolve(link, self.vault.index_path)

    @on(ChatLog.LinkChosen)
    def _link_chosen(self, event: ChatLog.LinkChosen) -> None:
        event.stop()
        link, target = event.link, event.target
        if link.kind == "url":
            self.notify(f"↗ {link.target}", title="External link")
        elif target is None or self.graph is None:
            self.notify(f"No page [[{link.target}]] yet. Ask the agent to write it?", severity="warning")
            self.prefill(f"Write the missing page [[{link.target}]].")
        else:
            self.post_message(self.OpenPage(target, link.anchor))

    @on(ChangesetCard.ReviewRequested)
    def _card_clicked(self, event: ChangesetCard.ReviewRequested) -> None:
        event.stop()
        self.action_review()

    # ------------------------------------------------------------------ review and apply
    def action_review(self) -> None:
        """Review the newest pending changeset, apply what was decided, tell the agent the reasons."""
        if self._reviewing:
            return
        self._review()

    class BatchReviewRequested(Message):
        """``/review batch [ID]``: the app opens the batch review.

        Attributes:
            batch_id: The batch (None: the newest with a changeset pending).
        """

        def __init__(self, batch_id: str | None) -> None:
            super().__init__()
            self.batch_id = batch_id

    def review_batch(self, batch_id: str | None) -> None:
        """Ask the app for the batch review (``/review batch [ID]``)."""
        self.post_message(self.BatchReviewRequested(batch_id))

    @work(exclusive=True, group="chat-review")
    async def _review(self) -> None:
        if self.reviewer is None:
            self.notify("Reviews are not available here.", severity="warning")
            return
        if self.graph is None:
            self.notify("The wiki is still loading; try again in a moment.")
            return
        changeset = await asyncio.to_thread(self.workspace.pending.latest)
        if changeset is None:
            if await asyncio.to_thread(self._pending_sources) is not None:  # the web sources wait instead
                self.review_sources()
                return
            self.notify("Nothing to review: no changeset is pending.")
            return
        outcome: dict[str, Any] = {}

        def apply(decision) -> None:
            # A reason about a hunk left undecided waits on it, in the pending file, until it is decided.
            changeset.keep_reasons(decision.reasons, set(changeset.hunk_ids()) - decision.accepted - decision.rejected)
            try:
                outcome["result"] = self.workspace.apply(changeset, decision.accepted, rejected=decision.rejected)
            except Conflict as exc:
                outcome["conflict"] = exc
                raise

        self._reviewing = True
        try:
            decision = await self.reviewer(changeset, apply)
        finally:
            self._reviewing = False
        result = outcome.get("result")
        if result is None:
            conflict = outcome.get("conflict")
            if conflict is not None:
                self._show_conflict(conflict)
            else:
                self.chat_log.add_note("Left pending: ctrl+r reviews it again.")
            reasons = getattr(decision, "reasons", None) or {}
            if reasons and await asyncio.to_thread(self.workspace.pending.keep_reasons, changeset.id, reasons):
                self.chat_log.add_note("Your reasons are kept with their hunks; they go to the agent once "
                                       "you decide those hunks.")
            return
        self._applied(changeset, decision, result)

    # ------------------------------------------------------------------ proposed web sources
    def _pending_sources(self) -> Any:
        from wikitui.core.research.proposals import ResearchStore

        return ResearchStore(self.vault).latest()

    def review_sources(self) -> None:
        """Review the newest pending web sources; clip the accepted ones into raw/ (``/research``, ctrl+r)."""
        if self._reviewing:
            return
        self._review_sources()

    @work(exclusive=True, group="chat-review")
    async def _review_sources(self) -> None:
        from wikitui.core.batch.queue import queue_sources
        from wikitui.core.research.proposals import decide

        if self.sources_reviewer is None:
            self.notify("Review the sources with `wikitui research accept ID`.", severity="warning")
            return
        proposal = await asyncio.to_thread(self._pending_sources)
        if proposal is None:
            self.notify("No web sources are pending.")
            return
        self._reviewing = True
        try:
            decision = await self.sources_reviewer(proposal)
        finally:
            self._reviewing = False
        if decision is None:
            self.chat_log.add_note("Sources left pending: /research alone (or ctrl+r) reviews them again.")
            return
        if decision.accepted or any(s.decision == "accepted" and not s.clipped for s in proposal.sources):
            self.set_status(Content.assemble(("● ", "$text-accent"), "clipping the accepted sources…"))
        try:
            def queue(paths: list[str]) -> str:
                return queue_sources(self.vault, paths, f"research {proposal.id}", self.controller.settings.model)

            done = await asyncio.to_thread(decide, self.vault, proposal, accepted=decision.accepted,
                                           rejected=decision.rejected, queue=queue if decision.queue else None)
        except (WikituiError, OSError) as exc:  # OSError: the proposal could not be saved
            self.chat_log.add_note(sentence(str(exc)), "error")
            return
        finally:
            self.set_status("")
        self.chat_log.add_note(sources_note(done, len(decision.rejected)), "success" if done.clipped else "note")
        if done.clipped:
            self.notify(f"Clipped {plural(len(done.clipped), 'source')} into raw/", title="Sources clipped")

    def _show_conflict(self, conflict: Conflict) -> None:
        self.chat_log.add_note(conflict_note(conflict), "error")

    def _applied(self, changeset: Any, decision: Any, result: Any) -> None:
        applied = len(result.applied)
        card = self.chat_log.cards.get(str(changeset.id))
        if card is None:
            card = self.chat_log.add_card(changeset)
        if result.remaining is not None:  # "partly applied" only when something was: else it is still pending
            card.update_changeset(result.remaining, "partial" if applied else "pending")
        else:
            card.status = "applied" if applied else "discarded"
        self.chat_log.add_note(applied_note(result, len(decision.rejected)), "success" if applied else "note")
        if applied:
            self.notify(f"Applied {plural(applied, 'hunk')} · /undo to revert", title="Changeset applied")
        self._written(result)
        decided = decision.accepted | decision.rejected
        ids = set(changeset.hunk_ids())
        sent = {k: v for k, v in decision.reasons.items() if k in decided or k not in ids}  # the rest wait, pending
        if sent:  # they go with the user's next message: a paid call is the user's to start
            self.controller.queue_feedback(review_feedback(changeset, SimpleNamespace(
                accepted=decision.accepted, rejected=decision.rejected, reasons=sent)))

    def _written(self, result: Any) -> None:
        """Tell the workspace's screens what an apply or undo wrote; report links it left unresolved."""
        if result.written or result.deleted:
            self.post_message(self.ChangesetApplied(self.workspace.touched(result), result))
            self.relink()
        unresolved = unresolved_links(result)
        if unresolved is not None:
            note, ask = unresolved
            self.chat_log.add_note(note, "error")
            if not self.chat_input.text.strip():
                self.chat_input.set_text(ask)

    def run_undo(self) -> None:
        """Revert the last applied changeset (``/undo``)."""
        self._undo()

    @work(exclusive=True, group="chat-undo")
    async def _undo(self) -> None:
        if self.graph is None:
            self.chat_log.add_note("The wiki is still loading; /undo again in a moment.", "error")
            return
        try:
            result = await asyncio.to_thread(self.workspace.undo)
        except Conflict as exc:
            self._show_conflict(exc)
            return
        except WikituiError as exc:
            self.chat_log.add_note(sentence(str(exc)), "error")
            return
        card = self.chat_log.cards.get(str(result.changeset_id))
        if card is not None:  # its card says so, as a restored chat's does
            card.status = "undone"
        self.chat_log.add_note(undone_note(result), "success")
        self.notify(f"Undid {result.changeset_id}", title="Undo")
        self._written(result)
