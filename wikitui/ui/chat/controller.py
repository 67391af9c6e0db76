"""The glue between an :class:`~wikitui.core.agent.session.AgentSession` and the chat widgets.

The controller turns what the user types into session calls, runs each turn in an
async worker (the session streams on the app's event loop; litellm's slow first
import happens in a thread), and turns the session's events into widgets: streamed
answers, quiet tool lines, notes, changeset cards and the token footer. Slash
commands are :mod:`wikitui.ui.chat.slash`'s; reviews, applies and undos are the
chat pane's. The controller knows the pane only as a :class:`ChatView`, and the
vault as the :class:`~wikitui.core.workspace.Workspace` it is given.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from textual.content import Content

from wikitui import gc_tuning
from wikitui.core.agent.events import (
    AgentError,
    ChangesetReady,
    LintReady,
    Notice,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    TurnUsage,
)
from wikitui.core.config.settings import NoModelConfigured, Settings, load_settings
from wikitui.core.base.words import plural
from wikitui.ui.chat.batch import ChatBatch
from wikitui.ui.chat.notes import error_note, lint_note, notice_note, usage_line
from wikitui.ui.chat.slash import SlashCommands
from wikitui.ui.chat.view import ChatView

if TYPE_CHECKING:
    from wikitui.core.agent.session import AgentSession
    from wikitui.core.workspace import Workspace
    from wikitui.ui.widgets.chat_log import ChatLog, ToolLine
    from wikitui.ui.widgets.chat_message import ChatMessage

#: At most this many entries of a restored conversation are shown.
RESTORE_LIMIT = 300
#: Seconds a turn waits for the workspace's link graph to load before giving up.
GRAPH_WAIT = 15.0


def load_model_client() -> None:
    """Import litellm, then keep the garbage collector off its objects.

    litellm leaves ~200 MB of long-lived objects; every full collection would walk them
    all and stall the UI for ~0.5 s every few seconds while an answer streams.
    """
    from wikitui.core.agent.llm import load_litellm

    load_litellm()
    gc_tuning.freeze()


class ChatController:
    """Runs the agent for a chat view (the chat pane).

    Args:
        view: The view whose log, input and footer this controller fills.
        workspace: The open vault the agent works on (its graph and index, once loaded).
        client_factory: Builds the model client from the settings (None: the session's
            own ``LLMClient``); tests pass one that does not wait between retries.
    """

    def __init__(self, view: ChatView, workspace: Workspace, *,
                 client_factory: Callable[[Settings], Any] | None = None) -> None:
        self.view = view
        self.workspace = workspace
        self.commands = SlashCommands(self)
        #: The chat's batch (``/ingest raw/papers/``): its pre-flight waiting for ``/go``, or its run.
        self.batch = ChatBatch(self)
        self.client_factory = client_factory
        self.settings: Settings = Settings()
        self.session: AgentSession | None = None
        self.running = False
        """Whether a turn is running."""
        self._answer: ChatMessage | None = None
        #: The first answer of a turn whose citations went back to the model: replaced by the next one.
        self._superseded: ChatMessage | None = None
        self._revised = False
        self._tools: dict[str, ToolLine] = {}
        self._last_usage: TurnUsage | None = None
        self._review: dict | None = None  # the second reviewer's usage for the last changeset (DESIGN §11)
        self._litellm_ready = False
        self._cancel_requested = False

    # ------------------------------------------------------------------ set-up
    @property
    def log(self) -> ChatLog:
        """The view's conversation."""
        return self.view.chat_log

    def start(self) -> None:
        """Load the settings and the vault's last conversation, and say what is missing."""
        self.settings = load_settings(self.workspace.vault)
        for warning in self.settings.warnings:
            self.log.add_note(f"⚠ {warning}", "error")
        self.session = self.new_session(resume=True)
        self._restore()
        self.batch.offer_resume()
        if not self.settings.model:
            self.show_setup()
        self.update_footer()

    def new_session(self, *, resume: bool = False, session_id: str | None = None) -> AgentSession:
        """A session on the workspace (``resume``: the vault's last conversation)."""
        from wikitui.core.agent.session import AgentSession

        ws = self.workspace
        client = self.client_factory(self.settings) if self.client_factory is not None else None
        kwargs: dict[str, Any] = {"client": client, "on_event": self.on_event}
        if resume:
            return AgentSession.resume(ws.vault, ws.graph, ws.search_index, self.settings, **kwargs)
        return AgentSession(ws.vault, ws.graph, ws.search_index, self.settings, session_id=session_id, **kwargs)

    def _restore(self) -> None:
        """Show the restored conversation, its input history and the pending changesets."""
        assert self.session is not None
        entries = self.session.chat_log()
        if len(entries) > RESTORE_LIMIT:
            self.log.add_note(f"… {len(entries) - RESTORE_LIMIT} earlier messages of this conversation")
            entries = entries[-RESTORE_LIMIT:]
        pending = {str(c.id): c for c in self.workspace.pending.list()}
        outcomes = _outcomes(self.workspace.vault)
        cards = {str(t.changeset_id): t.card for t in self.session.turns if t.changeset_id}
        for kind, text in entries:
            if kind == "changeset":
                self._restore_card(text, pending.pop(text, None), outcomes.get(text), cards.get(text))
            elif kind == "user":
                self.log.add_user(text)
                self.view.chat_input.sent.append(text)
            elif kind == "assistant":
                self.log.start_answer(text, streaming=False)
            elif kind == "tool":
                self.log.add_tool(text)
            elif kind == "error":
                self._show_error(text)
            else:  # the notes a turn left: cancelled, cut, pending, tools
                self._show_notice(Notice(text, kind))
        for changeset in pending.values():  # proposed elsewhere (the command line, an older session)
            self.log.add_card(changeset)
        if entries:
            self.log.add_note("— restored from the last session · /clear starts afresh —")
        if self.session.awaiting_go:
            self.view.set_status("plan ready · /go carries it out, or reply to steer it")

    def show_setup(self) -> None:
        """Say exactly how to configure a model."""
        message = str(NoModelConfigured(_home_relative(self.settings.user_config)))
        how = message.split(": ", 1)[-1]  # the heading already says "No model configured"
        text = Content.assemble(
            ("No model configured\n", "bold $text-warning"),
            how[0].upper() + how[1:] + ".\n",
            ("Browsing, search and lint work without one; /model NAME sets one for this session.", "$text-muted"),
        )
        self.log.add_note(text, "setup")

    def update_footer(self) -> None:
        """The model, then the last turn's and the session's tokens (sent → received) and cost."""
        parts: list[Any] = [(self.settings.model or "no model", "bold")]
        usage = self._last_usage
        totals = self.session.totals if self.session is not None else None
        if usage is not None:
            parts += usage_line("turn", usage.prompt_tokens, usage.completion_tokens, usage.cost)
            parts += usage_line("session", usage.session_prompt_tokens, usage.session_completion_tokens,
                                 usage.session_cost)
        elif totals is not None and totals.requests:
            parts += usage_line("session", totals.prompt_tokens, totals.completion_tokens, totals.cost)
        review = self._review if isinstance(self._review, dict) else {}
        tokens = review.get("tokens") if isinstance(review.get("tokens"), dict) else None
        if tokens:  # logged apart from the turn's own usage
            parts += usage_line("review", int(tokens.get("in") or 0), int(tokens.get("out") or 0),
                                float(review.get("cost") or 0.0))
        self.view.set_footer(Content.assemble(*parts))

    # ------------------------------------------------------------------ commands
    def submit(self, text: str) -> None:
        """Handle what the user sent: a slash command, or a question (or steering of a plan)."""
        stripped = text.strip()
        if not stripped.startswith("/"):
            self.batch.cancel_waiting()
            self.log.add_user(text)
            self.model_turn("ask", lambda s: s.send(text))
            return
        name, _, arg = stripped[1:].partition(" ")
        if name.lower() != "go":
            self.batch.cancel_waiting()
        self.log.add_user(stripped)
        self.commands.run(name.lower(), arg.strip())

    async def clear(self) -> None:
        """Start a new conversation (``/clear``): the wiki and the pending changesets stay as they are."""
        await self.log.clear()
        self.session = self.new_session()
        self._last_usage = None
        self.view.set_status("")
        self.update_footer()
        self.log.add_note("New conversation. The wiki and pending changesets are as they were.")

    # ------------------------------------------------------------------ turns
    def model_turn(self, label: str, call: Callable[[AgentSession], Awaitable[Any]]) -> None:
        """Run a turn that needs the model (say how to configure one when there is none)."""
        if not self.settings.model:
            self.show_setup()
            self.view.notify("No model configured: see the Agent pane for how to set one.", severity="warning")
            return
        self.turn(label, call, needs_model=True)

    def turn(self, label: str, call: Callable[[AgentSession], Awaitable[Any]], *, needs_model: bool) -> None:
        """Run ``call(session)`` as a turn in a worker (one at a time)."""
        if self.batch.running:
            self.log.add_note("A batch is running: esc stops it after the current source.", "error")
            return
        if self.running:
            self.log.add_note("The agent is busy with another turn: wait for it, or esc to cancel it.", "error")
            return
        self.running = True
        self._cancel_requested = False
        self.view.set_busy(True, "starting…")
        self.view.run_worker(self._run(call, needs_model), group="chat-turn", name=f"chat {label}",
                             exit_on_error=False)

    async def _run(self, call: Callable[[AgentSession], Awaitable[Any]], needs_model: bool) -> None:
        try:
            if not await self._wait_for_graph():
                self.log.add_note("The wiki is still loading; send the message again in a moment.", "error")
                return
            session = self.session
            assert session is not None
            session.graph = self.workspace.graph
            if session.search_index is None:
                session.search_index = self.workspace.search_index
            if needs_model:
                await self.ensure_model_client()
            if self._cancel_requested:  # esc while the wiki or the client loaded
                self.log.add_note("Cancelled before the agent started.", "error")
                return
            self.view.set_busy(True, "thinking…")
            with gc_tuning.no_full_collections():
                await call(session)
        except Exception as exc:  # a bug must not take the app down: show it, keep the chat usable
            self.log.add_note(f"Unexpected error: {type(exc).__name__}: {exc}", "error")
        finally:
            self._end_answer()
            self.running = False
            self.view.set_busy(False)
            if self.session is not None and self.session.awaiting_go:
                self.view.set_status("plan ready · /go carries it out, or reply to steer it")

    async def ensure_model_client(self) -> None:
        """Import litellm once, off the event loop (~3 s the first time)."""
        if not self._litellm_ready:
            self.view.set_busy(True, "loading the model client…")
            await asyncio.to_thread(load_model_client)
            self._litellm_ready = True

    async def wait_for_graph(self) -> bool:
        """Wait (briefly) for the workspace to load the link graph; whether it did."""
        return await self._wait_for_graph()

    async def _wait_for_graph(self) -> bool:
        """Wait (briefly) for the workspace to load the link graph the tools read."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GRAPH_WAIT
        while self.workspace.graph is None:
            if loop.time() > deadline:
                return False
            self.view.set_busy(True, "waiting for the wiki to load…")
            await asyncio.sleep(0.05)
        return True

    def cancel(self) -> bool:
        """Cancel the running turn (a batch: stop it after the current source); whether there was one."""
        if self.batch.stop():
            return True
        if not self.running or self.session is None:
            return False
        self._cancel_requested = True
        self.session.cancel()
        self.view.set_busy(True, "cancelling…")
        return True

    def queue_feedback(self, text: str) -> None:
        """Keep the review's reasons for the user's next message: no model call the user did not start."""
        if self.session is None or not text.strip():
            return
        self.session.queue_feedback(text)
        self.log.add_note(Content.assemble(("Your reasons will go to the agent with your next message", "bold"),
                                           (" (nothing is sent until you send something).", "$text-muted")), "plan")

    def _restore_card(self, changeset_id: str, pending: Any, outcome: str | None, card: dict | None) -> None:
        """The card of a restored turn's changeset, saying what became of it: pending, applied, undone, discarded."""
        from wikitui.core.agent.transcript import CardChangeset

        if pending is not None:
            self.log.add_card(pending, "partial" if outcome == "applied" else "pending")
            return
        status = outcome if outcome in ("applied", "undone") else "discarded"
        if card is not None:
            self.log.add_card(CardChangeset(card), status)
        else:  # a transcript from before cards were recorded: the outcome alone
            self.log.add_note(f"changeset {changeset_id}: {status}", "success" if status == "applied" else "note")

    # ------------------------------------------------------------------ events
    def on_event(self, event: Any) -> None:
        """Show one session event."""
        log = self.log
        if isinstance(event, TextDelta):
            if self._answer is None:
                self._answer = log.start_answer()
                if self._superseded is not None:  # the revised answer replaces the first one
                    self._superseded.remove()
                    self._superseded = None
            self._answer.append(event.text)
        elif isinstance(event, ToolStarted):
            self._end_answer()
            self._tools[event.call_id] = log.add_tool(event.description)
            self.view.set_busy(True, event.description)
        elif isinstance(event, ToolFinished):
            line = self._tools.pop(event.call_id, None)
            if line is not None:
                line.finish(event.summary, event.ok)
        elif isinstance(event, TurnStarted):
            self._answer = self._superseded = None
            self._revised = False
            self._last_usage = None  # the footer's turn line follows the new turn (its first TurnUsage)
            self._review = None
            self.view.set_busy(True, "writing the changes…" if event.op in ("ingest-write", "fold") else "thinking…")
        elif isinstance(event, Notice) and event.kind == "revising":
            # The answer's citations went back to the model: its next answer takes this one's place.
            self._end_answer(superseded=True)
            self._revised = True
            self.view.set_busy(True, "revising the answer's citations…")
        elif isinstance(event, Notice):
            self._end_answer()
            self._show_notice(event)
        elif isinstance(event, LintReady):
            self.show_lint(event.report)
        elif isinstance(event, ChangesetReady):
            self._end_answer()
            log.add_card(event.changeset)
            self._review = event.changeset.review
            self.update_footer()
        elif isinstance(event, TurnUsage):
            self._last_usage = event
            self.update_footer()
        elif isinstance(event, AgentError):
            self._end_answer()
            self._show_error(event.message)
        elif isinstance(event, TurnFinished):
            self._finish_turn(event)

    def _end_answer(self, *, superseded: bool = False) -> None:
        if self._answer is not None:
            self._answer.finish()
            if superseded:
                self._superseded = self._answer
            self._answer = None

    def _finish_turn(self, event: TurnFinished) -> None:
        self._end_answer()
        if self._revised and self._superseded is None:  # the first answer gave way to the revised one
            self.log.add_note(Content.styled("↻ revised: the first answer cited pages that do not exist, and the "
                                             "model was asked once to fix them", "$text-muted"))
        self._revised, self._superseded = False, None
        if event.cancelled and event.changeset is not None:
            self.log.add_note("Cancelled. What was proposed before is pending: ctrl+r reviews it.", "error")
        elif event.cancelled:
            self.log.add_note("Cancelled. Nothing was proposed; send again or ask something else.", "error")
        elif event.awaiting_go:
            self.log.add_note(Content.assemble(("Plan ready. ", "bold"), "/go carries it out; "
                                               "or reply to steer it."), "plan")
        elif event.changeset is not None and not event.failed:
            files = len(event.changeset.files)
            self.view.notify(f"{plural(files, 'file')} changed · ctrl+r to review",
                             title="Changes proposed")
            if event.op == "file":  # the pattern's next step: the answer's synthesis into the pages it cites
                self.log.add_note(Content.assemble(("Filed. ", "bold"), "/fold folds the answer into the pages "
                                                   "it cites: the agent proposes the edits, for you to review."),
                                  "plan")
        if event.sources is not None and event.op == "research" and not event.cancelled:
            self.view.review_sources()  # what /research was asked for: its review opens at once
        elif event.sources is not None:
            self.log.add_note("Web sources were proposed too: /research alone reviews them (nothing is fetched "
                              "until you accept them).", "plan")

    def _show_notice(self, notice: Notice) -> None:
        """A session's note; a live cancel is said by the turn's end instead (``_finish_turn``)."""
        if notice.kind == "cancelled" and self.running:
            return
        self.log.add_note(*notice_note(notice))

    def _show_error(self, message: str) -> None:
        if message.startswith("no model configured"):
            self.show_setup()
            return
        self.log.add_note(error_note(message), "error")

    def show_lint(self, report: Any) -> None:
        """A lint report as a note."""
        self.log.add_note(*lint_note(report))


def _outcomes(vault: Any) -> dict[str, str]:
    """Changeset id → "applied" or "undone", from the vault's history (nothing when it does not read)."""
    from wikitui.core.changes.undo import outcomes

    try:
        return outcomes(vault)
    except Exception:  # a damaged history must not keep the chat from opening
        return {}


def _home_relative(path: Path | None) -> Path | None:
    """``path`` with the home folder written ``~`` (shorter, and the same on every machine)."""
    if path is None:
        return None
    try:
        return Path("~") / path.relative_to(Path.home())
    except ValueError:
        return path
