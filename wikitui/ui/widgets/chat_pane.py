"""The chat with the agent: the conversation, the input, and the review of what the agent proposes.

Self-contained: it needs only a vault, and reads the workspace's link graph and search
index from the app (``app.graph``, ``app.search_index``) when they are there. The app
answers its two messages: :class:`ChatPane.OpenPage` (open a page the chat links to)
and :class:`ChatPane.ChangesetApplied` (pages changed on disk: refresh what shows them).

| Key | Action |
| :- | :- |
| enter | Send (shift+enter or ctrl+j: new line). |
| esc | Cancel the running turn. |
| ctrl+r | Review the pending changeset (an app key; :meth:`ChatPane.action_review`). |
| tab in the log | Next link of the answers; enter opens it. |
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static

from wikitui.core.errors import Conflict, WikituiError
from wikitui.core.vault.links import Link
from wikitui.ui.chat_controller import COMMANDS, ChatController
from wikitui.ui.widgets.changeset_card import ChangesetCard
from wikitui.ui.widgets.chat_input import ChatInput, Completion, complete
from wikitui.ui.widgets.chat_log import ChatLog


class ChatPane(Vertical):
    """The agent's conversation with its input, status and token footer.

    Args:
        vault: The vault (the app's ``vault`` when None).
        client_factory: Builds the model client from the settings (tests pass one that
            does not wait between retries); None: the agent's own client.
    """

    BINDINGS: list[BindingType] = [Binding("escape", "cancel", "Cancel turn", show=False)]

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

        The link graph is already up to date (the core updates it); the page shown,
        the trees, the links panel and the search index should follow.

        Attributes:
            paths: Vault-relative paths written or deleted.
            result: The core's ``ApplyResult``.
        """

        def __init__(self, paths: list[str], result: Any) -> None:
            super().__init__()
            self.paths = paths
            self.result = result

    def __init__(self, vault: Any = None, *, client_factory: Callable[[Any], Any] | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._vault = vault
        self.controller = ChatController(self, client_factory=client_factory)
        self.chat_log = ChatLog(id="chat-log", resolve=self._resolve)
        self._menu = OptionList(id="chat-complete")
        self._menu.can_focus = False
        self.chat_input = ChatInput(menu=self._menu, completer=self._complete, id="agent-input",
                               placeholder="Ask the wiki…  (/ commands, [[ pages)")
        self._reviewing = False

    # ------------------------------------------------------------------ context
    @property
    def vault(self) -> Any:
        """The vault the chat is about."""
        return self._vault if self._vault is not None else self.app.vault  # type: ignore[attr-defined]

    @property
    def graph(self) -> Any:
        """The workspace's link graph (None while it loads)."""
        return getattr(self.app, "graph", None)

    @property
    def search_index(self) -> Any:
        """The workspace's search index (None: the agent opens one)."""
        return getattr(self.app, "search_index", None)

    @property
    def reviewing(self) -> bool:
        """Whether the review screen opened from this chat is showing."""
        return self._reviewing

    @property
    def busy(self) -> bool:
        """Whether a turn is running."""
        return self.controller.running

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield self.chat_log
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
            return self.controller.running or self.chat_input.menu_open
        return True

    # ------------------------------------------------------------------ input
    def on_key(self, event: events.Key) -> None:
        """Typing while the log has the focus goes to the input (the log's own keys are not letters)."""
        if self.app.focused is self.chat_log and event.is_printable and event.character:
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

    @work(exclusive=True, group="chat-review")
    async def _review(self) -> None:
        from wikitui.core.changes.pending import PendingStore
        from wikitui.ui.screens.review import ReviewScreen

        if self.graph is None:
            self.notify("The wiki is still loading; try again in a moment.")
            return
        changeset = await asyncio.to_thread(PendingStore(self.vault).latest)
        if changeset is None:
            self.notify("Nothing to review: no changeset is pending.")
            return
        outcome: dict[str, Any] = {}

        def apply(decision) -> None:
            from wikitui.core.changes.apply import apply_changeset

            try:
                outcome["result"] = apply_changeset(self.vault, self.graph, changeset, decision.accepted,
                                                    rejected=decision.rejected)
            except Conflict as exc:
                outcome["conflict"] = exc
                raise

        self._reviewing = True
        try:
            decision = await self.app.push_screen_wait(ReviewScreen(changeset, on_apply=apply, vault=self.vault))
        finally:
            self._reviewing = False
        result = outcome.get("result")
        if result is None:
            conflict = outcome.get("conflict")
            if conflict is not None:
                self._show_conflict(conflict)
            else:
                self.chat_log.add_note("Left pending: ctrl+r reviews it again.")
            return
        self._applied(changeset, decision, result)

    def _show_conflict(self, conflict: Conflict) -> None:
        text = Content.assemble(("Not applied: conflict\n", "bold $text-error"), str(conflict),
                                ("\nYour edit on disk is kept. ctrl+r to review again (reject that hunk), "
                                 "or ask the agent to redo it.", "$text-muted"))
        self.chat_log.add_note(text, "error")

    def _applied(self, changeset: Any, decision: Any, result: Any) -> None:
        applied, rejected = len(result.applied), len(decision.rejected)
        paths = [*result.written, *result.deleted]
        card = self.chat_log.cards.get(str(changeset.id))
        if card is None:
            card = self.chat_log.add_card(changeset)
        if result.remaining is not None:
            card.update_changeset(result.remaining, "partial")
        else:
            card.status = "applied" if applied else "discarded"
        hunks = f"{applied} hunk{'s' if applied != 1 else ''}"
        parts: list[Any] = [(f"✓ Applied {hunks}", "bold $text-success") if applied else ("Nothing applied", "bold")]
        if paths:
            parts += [" to ", ", ".join(paths)]
        if rejected:
            parts += [(f" · {rejected} rejected", "$text-muted")]
        if result.remaining is not None:
            parts += [(f" · {len(result.remaining.hunk_ids())} still pending (ctrl+r)", "$text-warning")]
        if applied:
            parts += [("\n/undo reverts it.", "$text-muted")]
        if result.merged:
            parts += [("\nMerged with your edits in " + ", ".join(result.merged), "$text-muted")]
        for warning in result.warnings:
            parts += [("\n⚠ " + warning, "$text-warning")]
        self.chat_log.add_note(Content.assemble(*parts), "success" if applied else "note")
        if applied:
            self.notify(f"Applied {hunks} · /undo to revert", title="Changeset applied")
        if paths:
            self.post_message(self.ChangesetApplied(self._touched(paths, result), result))
            self.relink()
        self._report_unresolved(result)
        if decision.reasons:  # they go with the user's next message: a paid call is the user's to start
            self.controller.queue_feedback(_feedback(changeset, decision))

    def _report_unresolved(self, result: Any) -> None:
        links = list(getattr(result, "unresolved_links", []) or [])
        if not links:
            return
        shown = [f"[[{link.target}]] in {page}" for page, link in links[:6]]
        more = f" and {len(links) - 6} more" if len(links) > 6 else ""
        ask = "/ask Mend the unresolved links: " + "; ".join(shown) + more
        self.chat_log.add_note(Content.assemble(
            (f"{len(links)} link{'s' if len(links) != 1 else ''} left unresolved: ", "bold $text-warning"),
            "; ".join(shown) + more, ("\nAsk the agent to mend them: the command is in the input, enter sends it.",
                                      "$text-muted")), "error")
        if not self.chat_input.text.strip():
            self.chat_input.set_text(ask)

    def run_undo(self) -> None:
        """Revert the last applied changeset (``/undo``)."""
        self._undo()

    @work(exclusive=True, group="chat-undo")
    async def _undo(self) -> None:
        from wikitui.core.changes.undo import undo_last

        if self.graph is None:
            self.chat_log.add_note("The wiki is still loading; /undo again in a moment.", "error")
            return
        try:
            result = await asyncio.to_thread(undo_last, self.vault, self.graph)
        except Conflict as exc:
            self._show_conflict(exc)
            return
        except WikituiError as exc:
            self.chat_log.add_note(str(exc)[:1].upper() + str(exc)[1:], "error")
            return
        paths = [*result.written, *result.deleted]
        self.chat_log.add_note(Content.assemble((f"↶ Undid {result.changeset_id}", "bold $text-success"),
                                           f": restored {', '.join(paths) or 'nothing (already as before)'}"),
                          "success")
        self.notify(f"Undid {result.changeset_id}", title="Undo")
        if paths:
            self.post_message(self.ChangesetApplied(self._touched(paths, result), result))
            self.relink()
        self._report_unresolved(result)

    def _touched(self, paths: list[str], result: Any) -> list[str]:
        """The pages written, plus index.md and log.md when the apply rewrote them."""
        extra = [self.vault.index_path] if result.index_updated else []
        if result.log_entry:
            extra.append(self.vault.log_path)
        return [*paths, *(p for p in extra if p not in paths)]


def _feedback(changeset: Any, decision: Any) -> str:
    """The review's reasons as a message to the agent."""
    lines = [f"Review of changeset {changeset.id}: {len(decision.accepted)} hunks accepted, "
             f"{len(decision.rejected)} rejected. My reasons:"]
    for key, reason in decision.reasons.items():
        try:
            header = changeset.hunk(key).header
            where = f"{changeset.file_of(key).path} {header.split(' @@')[0] + ' @@' if header.startswith('@@') else header}"
            verdict = "accepted" if key in decision.accepted else "rejected" if key in decision.rejected else "undecided"
        except (KeyError, IndexError):
            where, verdict = key, ""  # a reason about a whole file: keyed by its path
        lines.append(f"- {where}{f' ({verdict})' if verdict else ''}: {reason}")
    return "\n".join(lines)

