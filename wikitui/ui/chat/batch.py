"""A batch from the chat: ``/ingest raw/papers/``, ``/ingest raw/**/*.pdf``, ``/ingest --new``, ``/ingest --resume``.

The same pre-flight as headless ``wikitui ingest`` (:func:`~wikitui.core.batch.preflight.prepare`:
sources, skipped and why, the estimate for the configured model, the cap) as a note, then
``/go`` starts it. It runs in a worker on the app's loop through the core's
:class:`~wikitui.core.batch.runner.BatchRunner`, whose typed events fill the batch panel
(N of M, current source, tokens, cost, time left, failures) and put each source's
changeset card in the chat. esc stops after the current source; quitting keeps the queue
on disk, and the next start of the workspace offers to continue it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable, Protocol

from textual.content import Content

from wikitui.core.agent.events import AgentError, ChangesetReady, TextDelta
from wikitui.core.batch.events import AgentEvent, BatchEvent, BatchNotice, SourceFinished
from wikitui.core.base.errors import WikituiError

if TYPE_CHECKING:
    from wikitui.core.batch.preflight import Preflight
    from wikitui.core.batch.runner import BatchRunner
    from wikitui.core.config.settings import Settings
    from wikitui.core.workspace import Workspace
    from wikitui.ui.chat.view import ChatView
    from wikitui.ui.widgets.chat_log import ChatLog


class BatchChat(Protocol):
    """What a batch uses of its chat (a :class:`~wikitui.ui.chat.controller.ChatController`)."""

    view: ChatView
    workspace: Workspace
    settings: Settings
    running: bool
    client_factory: Callable[[Settings], Any] | None

    @property
    def log(self) -> ChatLog:
        """The chat's log, where notes and cards go."""

    def show_setup(self) -> None:
        """Say how to configure a model."""

    async def wait_for_graph(self) -> bool:
        """Wait for the link graph; whether it loaded."""

    async def ensure_model_client(self) -> None:
        """Import litellm once, off the event loop."""

    def update_footer(self) -> None:
        """Redraw the line below the input."""


def batch_request(arg: str) -> tuple[str | None, bool, bool] | None:
    """``/ingest ARG`` as a batch: (folder or glob, new, resume), or None when ARG names one source."""
    from wikitui.core.batch.select import is_batch_argument

    words = arg.split()
    if words in (["--new"], ["--resume"]):
        return None, words[0] == "--new", words[0] == "--resume"
    if is_batch_argument(arg.strip()):
        return arg.strip(), False, False
    return None


class ChatBatch:
    """The chat's batch: its pre-flight waiting for ``/go``, or its run.

    Args:
        chat: The controller whose log, view, settings and model client factory the batch uses.
    """

    def __init__(self, chat: BatchChat) -> None:
        self.chat = chat
        #: The pre-flight waiting for ``/go`` (None: none).
        self.waiting: Preflight | None = None
        self.runner: BatchRunner | None = None
        self.running = False
        self._selection = ""

    # ------------------------------------------------------------------ offer
    def offer_resume(self) -> None:
        """At start: say so when the vault has a batch with sources left to run."""
        from wikitui.core.batch.queue import NoBatch, last_unfinished

        try:
            batch = last_unfinished(self.chat.workspace.vault)
        except NoBatch:
            return
        left = sum(1 for e in batch.entries if e.retryable)
        done = sum(1 for e in batch.entries if e.state == "proposed")
        self.chat.log.add_note(Content.assemble(
            ("An unfinished batch: ", "bold"), f"{batch.selection} ({done} proposed, {left} left). ",
            ("/ingest --resume", "$text-accent"), " continues it (as `wikitui ingest --resume` does)."), "plan")

    # ------------------------------------------------------------------ pre-flight
    def prepare(self, argument: str | None, *, new: bool, resume: bool) -> None:
        """Work out the batch (a worker), then show the pre-flight and wait for ``/go``."""
        chat = self.chat
        if self.running:
            chat.log.add_note("A batch is running: esc stops it after the current source.", "error")
            return
        if chat.running:
            chat.log.add_note("The agent is busy with another turn: wait for it, or esc to cancel it.", "error")
            return
        if not chat.settings.model:
            chat.show_setup()
            chat.view.notify("No model configured: see the Agent pane for how to set one.", severity="warning")
            return
        self.waiting = None
        chat.running = True
        chat.view.set_busy(True, "counting the sources…")
        chat.view.run_worker(self._prepare(argument, new, resume), group="chat-batch", name="batch pre-flight",
                             exit_on_error=False)

    async def _prepare(self, argument: str | None, new: bool, resume: bool) -> None:
        from wikitui.core.batch.preflight import prepare
        from wikitui.core.batch.runner import BatchRunner

        chat = self.chat
        try:
            if not await chat.wait_for_graph():
                chat.log.add_note("The wiki is still loading; send the command again in a moment.", "error")
                return
            await chat.ensure_model_client()
            client = chat.client_factory(chat.settings) if chat.client_factory is not None else None
            runner = BatchRunner(chat.workspace, chat.settings, self._on_event, client=client)
            try:
                plan = await asyncio.to_thread(prepare, chat.workspace, argument, settings=chat.settings,
                                               client=runner.client, new=new, resume=resume)
            except WikituiError as exc:
                chat.log.add_note(_sentence(str(exc)), "error")
                return
            runner.max_cost = plan.cap
            self._show_preflight(plan)
            if plan.todo:
                self.waiting, self.runner = plan, runner
                chat.view.set_status(Content.assemble(("● ", "$text-accent"), "batch ready · ",
                                                      ("/go", "$text-accent"), " starts it"))
                return
        except Exception as exc:  # a bug must not take the app down
            chat.log.add_note(f"Unexpected error: {type(exc).__name__}: {exc}", "error")
        finally:
            chat.running = False
            if self.waiting is None:
                chat.view.set_busy(False)

    def _show_preflight(self, plan: Preflight) -> None:
        lines: list[Any] = [("Batch ingest\n", "bold")]
        for note in plan.notes:
            lines += [(f"{note}\n", "$text-muted")]
        for line in plan.lines():
            lines.append(f"{line[0].upper()}{line[1:]}\n")
        for e in plan.skipped[:5]:
            lines.append((f"  skipped {e.source}: {e.why}\n", "$text-muted"))
        if len(plan.skipped) > 5:
            lines.append((f"  … and {len(plan.skipped) - 5} more skipped\n", "$text-muted"))
        if plan.todo:
            lines += ["Each source becomes a pending changeset of its own. ", ("/go", "$text-accent"),
                      " starts the batch; esc stops it after the current source."]
        else:
            lines.append(("Nothing to ingest.", "$text-muted"))
        self.chat.log.add_note(Content.assemble(*lines), "plan")

    def cancel_waiting(self) -> None:
        """Another command was sent: the pre-flight no longer waits for ``/go``."""
        if self.waiting is not None:
            self.waiting, self.runner = None, None
            self.chat.view.set_status("")
            self.chat.log.add_note("The batch was not started (/ingest again shows it).")

    # ------------------------------------------------------------------ run
    def go(self) -> None:
        """``/go``: start the batch that waits."""
        plan, runner = self.waiting, self.runner
        if plan is None or runner is None:
            return
        self.waiting = None
        self.running = True
        self._selection = plan.selection
        self.chat.view.set_status("")
        self.chat.view.run_worker(self._run(plan, runner), group="chat-batch", name="batch", exit_on_error=False)

    async def _run(self, plan: Preflight, runner: BatchRunner) -> None:
        chat = self.chat
        panel = chat.view.batch_panel
        try:
            batch = await asyncio.to_thread(plan.start, chat.workspace.vault)
            panel.show_progress(plan.selection, runner.progress("queued"))
            chat.log.add_note(Content.assemble(("Batch started: ", "bold"), f"{batch.id} · "
                                               f"{len(plan.todo)} source(s)"))
            await runner.run(batch)
            counts = batch.counts()
            shown = ", ".join(f"{n} {state}" for state, n in counts.items() if n)
            spent = runner.tokens["in"] + runner.tokens["out"]
            tail = " /ingest --resume continues it." if batch.unfinished else ""
            why = f"Stopped ({runner.stopped}). " if runner.stopped else "Done. "
            chat.log.add_note(Content.assemble(("Batch ", "bold"), (f"{batch.id}: ", "bold"), why, shown,
                                               f"; {spent:,} tokens, ${runner.spent:.4f}.",
                                               " Each source's changeset is pending: ctrl+r reviews." if
                                               counts["proposed"] else "", tail),
                              "success" if not batch.unfinished and not counts["failed"] else "plan")
        except Exception as exc:  # a bug must not take the app down
            chat.log.add_note(f"Unexpected error: {type(exc).__name__}: {exc}", "error")
        finally:
            self.running = False
            self.runner = None
            panel.hide()
            chat.view.set_busy(False)
            chat.update_footer()

    def stop(self) -> bool:
        """esc: stop after the current source (again: now); whether a batch runs."""
        if not self.running or self.runner is None:
            return False
        self.runner.stop()
        return True

    # ------------------------------------------------------------------ events
    def _on_event(self, event: BatchEvent) -> None:
        chat, runner = self.chat, self.runner
        if isinstance(event, AgentEvent):
            inner = event.event
            if isinstance(inner, TextDelta):
                return  # the plan's and the write's text are not shown: the cards and the panel are
            if isinstance(inner, ChangesetReady):
                chat.log.add_card(inner.changeset)
            elif isinstance(inner, AgentError):
                chat.log.add_note(Content.assemble((f"{event.source}: ", "bold"), _sentence(inner.message)),
                                  "error")
        elif isinstance(event, SourceFinished) and event.state == "failed":
            chat.log.add_note(Content.assemble((f"{event.source} failed: ", "bold"), _sentence(event.why or "")),
                              "error")
        elif isinstance(event, BatchNotice) and event.kind in ("stopping", "stopped", "error"):
            chat.log.add_note(_sentence(event.text), "error" if event.kind == "error" else "plan")
        if runner is not None and self.running:
            chat.view.batch_panel.show_progress(self._selection, runner.progress())


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ")")) else text + "."
