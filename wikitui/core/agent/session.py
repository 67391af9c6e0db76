"""The agent session: the tool loop, ingest's two phases, changesets and the transcript.

An :class:`AgentSession` runs operations (``ask``, ``ingest`` then ``go``, ``lint``,
``file_answer``, ``fold_answer``) as turns. A turn sends the system prompt (WIKI.md, index.md and the
operation's instructions), streams the answer, runs the tools the model calls and
repeats until the model answers (at most ``settings.max_rounds`` rounds). The
proposals of a turn form ONE changeset, saved as pending and handed to the injected
``approver``. Everything the UI shows comes through ``on_event`` (see
:mod:`~wikitui.core.agent.events`); the core never imports a UI toolkit.

Usage (from a script or a Textual async worker)::

    session = AgentSession(vault, graph, index, settings, on_event=print)
    await session.ask("Why is the Hatter always at tea?")
    await session.ingest("raw/chapter-13.md")   # the plan; the user reads it
    await session.go()                          # the write phase: one changeset
"""

from __future__ import annotations

import asyncio
import inspect
import json
from pathlib import Path
from typing import Any, Awaitable, Callable

from wikitui.core.agent.argcheck import display
from wikitui.core.agent.context import Entry, Turn, TurnUsageTotals
from wikitui.core.agent.events import LintReady, Notice, TurnFinished, TurnStarted, TurnUsage
from wikitui.core.agent.filing import answer_page, backlinks_to_answer, cited_pages, link_target
from wikitui.core.agent.phase import TokenCounters, run_phase, used_tools
from wikitui.core.agent.prompts import ask as ask_prompt
from wikitui.core.agent.prompts import compact
from wikitui.core.agent.prompts import fold as fold_prompt
from wikitui.core.agent.prompts import ingest as ingest_prompt
from wikitui.core.agent.prompts import lint as lint_prompt
from wikitui.core.agent.prompts import research as research_prompt
from wikitui.core.agent.prompts.system import INDEX_MARKER
from wikitui.core.agent.reading import resolve_readable
from wikitui.core.agent.recent_models import remember_model
from wikitui.core.agent.sources import sees_pictures, unreadable_source
from wikitui.core.agent.transcript import Transcript, chat_log, turns_from_records
from wikitui.core.agent.turn_catalog import Focus, lint_focus, source_focus
from wikitui.core.agent.turn_end import TurnEndings
from wikitui.core.agent.window import ContextWindow
from wikitui.core.config.settings import Settings
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.files import is_binary
from wikitui.core.vault.formats.kinds import needs_conversion
from wikitui.core.base.words import plural

Approver = Callable[[Any], Awaitable[Any]]


class AgentSession:
    """A conversation with the agent about one vault.

    Args:
        vault: The vault.
        graph: Its link graph (read by the tools; the UI keeps it current).
        search_index: Its search index (None: opened on the first search).
        settings: Model and limits.
        client: The model client (an ``LLMClient`` for ``settings`` when None).
        approver: ``async approver(changeset)`` called with each changeset the agent
            proposes (the UI shows its review). A returned non-empty string is the user's
            feedback, sent to the model with the next message.
        on_event: Called with every session event (sync or async).
        session_id: Continue this saved session (its transcript is reloaded).
        builder_factory: Makes a turn's ChangesetBuilder (tests may inject one).
        overlay: A batch's earlier pending proposals (:class:`~wikitui.core.changes.overlay.Overlay`):
            the tools read, search and list through it before the disk (pass its ``graph`` as ``graph``).
        transcripts: The folder of the session's transcript (default ``.wikitui/sessions/``, whose newest
            session the chat resumes; a batch keeps its sources' sessions apart).
    """

    def __init__(self, vault, graph, search_index, settings: Settings, client=None,
                 approver: Approver | None = None, on_event: Callable[[Any], Any] | None = None, *,
                 session_id: str | None = None, builder_factory: Callable[[], Any] | None = None,
                 overlay: Any = None, transcripts: Path | None = None) -> None:
        self.vault = vault
        self.overlay = overlay
        self.graph = graph
        self.search_index = search_index
        self.settings = settings
        if client is None:
            from wikitui.core.agent.llm import LLMClient

            client = LLMClient(settings)
        self.client = client
        self.approver = approver
        self.on_event = on_event
        self._builder_factory = builder_factory
        self.transcript = Transcript(transcripts or vault.state_dir / "sessions", session_id, settings)
        #: Every turn of the session, oldest first.
        self.turns: list[Turn] = []
        #: Tokens and cost of the whole session.
        self.totals = TurnUsageTotals()
        #: Seconds wikitui spent per tool round trip, model time excluded (for the benchmark).
        self.round_overheads: list[float] = []
        #: Seconds spent preparing each turn phase before its first request (prompt, context).
        self.prep_times: list[float] = []
        self._cancel = asyncio.Event()
        self._running = False
        self._feedback: str | None = None
        self._window: ContextWindow | None = None
        self._tools_tokens: dict[tuple[str, ...], int] = {}  # per tool set (full, compact), per model
        self._told_compact: int | None = None  # the window the compact set was last announced for
        self._sync: asyncio.Future | None = None
        self._filed: dict[str, str] = {}  # question -> the page its answer was filed as (this session's /file)
        #: How its turns end (answered, awaiting ``/go``, cancelled, failed): their proposals are never lost.
        self.endings = TurnEndings(self, set_feedback=self._set_feedback)
        #: The token counters of the session's model.
        self.counters = TokenCounters(text=self._count_text, message=self._count_message, tools=self._count_tools)
        if session_id and self.transcript.path.exists():
            self._restore()

    # ----------------------------------------------------------------- state
    @classmethod
    def resume(cls, vault, graph, search_index, settings: Settings, **kwargs) -> "AgentSession":
        """The most recent saved session of this vault, reloaded (a new one when there is none)."""
        latest = Transcript.latest_id(vault.state_dir / "sessions")
        return cls(vault, graph, search_index, settings, session_id=latest, **kwargs)

    @property
    def id(self) -> str:
        """The session's id (its transcript is ``.wikitui/sessions/<id>.jsonl``)."""
        return self.transcript.id

    @property
    def busy(self) -> bool:
        """Whether a turn is running."""
        return self._running

    @property
    def awaiting_go(self) -> bool:
        """Whether an ingest's plan waits for ``go()`` or a steering message."""
        return bool(self.turns) and self.turns[-1].state == "awaiting_go"

    @property
    def last_answer(self) -> tuple[str, str] | None:
        """(question, answer) of the last answered ask, for ``file_answer``."""
        for turn in reversed(self.turns):
            if turn.op == "ask" and turn.state == "done" and turn.final_answer():
                return turn.prompt, turn.final_answer()
        return None

    def cancel(self) -> None:
        """Stop the running turn promptly (the stream is closed; its proposals are kept as pending).

        A cancel that arrives while a turn is being started (before its first request)
        still stops it: the flag is cleared only when a turn ends.
        """
        self._cancel.set()

    def set_model(self, model: str) -> None:
        """Use another model for the rest of this session (the transcript goes on)."""
        from wikitui.core.agent.llm import LLMClient

        self.settings.model = model
        self.client = LLMClient(self.settings)
        self._window = None
        self._tools_tokens = {}

    def queue_feedback(self, text: str) -> None:
        """Send ``text`` (the review's reasons) with the user's next message, not as a turn of its own."""
        text = text.strip()
        if text:
            self._feedback = f"{self._feedback}\n\n{text}" if self._feedback else text

    @property
    def feedback_waiting(self) -> bool:
        """Whether review reasons wait to go with the next message."""
        return bool(self._feedback)

    def _set_feedback(self, text: str) -> None:
        """What the approver said of the last changeset (it replaces what waited)."""
        self._feedback = text

    @property
    def cancel_event(self) -> asyncio.Event:
        """Set when the running turn is cancelled (a new one for each turn)."""
        return self._cancel

    def announce_compact(self, window_tokens: int) -> bool:
        """Whether the compact tool set is new for this window (then it is told once, until the window changes)."""
        if self._told_compact == window_tokens:
            return False
        self._told_compact = window_tokens
        return True

    # ------------------------------------------------------------ operations
    async def send(self, text: str) -> TurnFinished:
        """A chat message: steers a waiting ingest plan into its write phase, else a question."""
        if self.awaiting_go:
            return await self.go(text, typed=text)
        return await self.ask(text)

    async def ask(self, question: str) -> TurnFinished:
        """Answer a question from the wiki (tools allowed; proposals only if the user asks for them)."""
        if self._running:
            return await self.endings.fail_early("ask", question, _busy())
        turn = self._new_turn("ask", question)
        task = compact.Task(ask_prompt.ask_task(), compact.ask_task())
        return await self._run(turn, task, self._with_feedback(question), phase="write")

    async def ingest(self, raw_path: str, *, auto_go: bool = False, typed: str | None = None) -> TurnFinished:
        """Ingest a source: the plan phase (then ``go()``), or both phases at once with ``auto_go``.

        ``typed``: what the user typed (a restored chat shows it; default ``/ingest PATH``).
        """
        if self._running:
            return await self.endings.fail_early("ingest", raw_path, _busy())
        try:
            rel, absolute = resolve_readable(self.vault, self.graph, raw_path)
            if needs_conversion(rel):  # converted now, off the loop: the tools then read the cached text
                problem = await asyncio.to_thread(unreadable_source, self.vault, rel, sees_pictures(self.client))
                if problem:
                    raise WikituiError(problem)
            elif is_binary(absolute.read_bytes()[:8192]):
                raise WikituiError(f"{rel} is a binary file; only text sources can be ingested")
        except (WikituiError, OSError, ValueError) as exc:  # ValueError: a NUL in the path
            return await self.endings.fail_early("ingest", display(raw_path), exc)
        turn = self._new_turn("ingest", rel)
        turn.source = rel
        message = f"Ingest {rel}."
        task = compact.Task(ingest_prompt.ingest_plan_task(rel), compact.ingest_plan_task(rel))
        done = await self._run(turn, task, self._with_feedback(message), phase="plan",
                               typed=typed or f"/ingest {raw_path}")
        if auto_go and done.awaiting_go:
            return await self.go()
        return done

    async def go(self, message: str | None = None, *, typed: str | None = None,
                 context: str | None = None) -> TurnFinished:
        """Approve (or steer) the waiting ingest plan and run the write phase.

        ``typed``: what the user typed (a restored chat shows it; default ``/go [NOTE]``).
        ``context``: said to the model with the approval (a batch: the pages proposed since the plan began).
        """
        if self._running:
            return await self.endings.fail_early("go", message or "", _busy())
        if not self.awaiting_go:
            return await self.endings.fail_early("go", message or "",
                                                 WikituiError("no ingest plan is waiting for /go"))
        turn = self.turns[-1]
        turn.state = "running"
        if message and message.strip():
            text = (f"My reply to your plan: {message.strip()}\n\nTake this into account and carry out the plan now: "
                    "propose the changes.")
        else:
            text = "The plan is approved. Carry it out now: propose the changes."
        if context:
            text = f"{context}\n\n{text}"
        index_managed = INDEX_MARKER in self._read(self.vault.index_path)
        attach = turn.source if not used_tools(turn) else None
        if attach:
            await self.endings.note(turn, "tools", "The model answered the plan without calling any tool, so it "
                                    f"never read {attach}: it may not support tool calls (the README's \"Local "
                                    "models\" says which servers and chat templates do). The source goes with the "
                                    "next request instead.")
        source = turn.source or turn.prompt
        task = compact.Task(ingest_prompt.ingest_write_task(source, index_managed),
                            compact.ingest_write_task(source, index_managed))
        typed = typed or ("/go " + message.strip() if message and message.strip() else "/go")
        return await self._run(turn, task, text, phase="write", attach_source=attach, typed=typed)

    async def lint(self) -> TurnFinished:
        """Deterministic checks (reported at once as :class:`LintReady`), then the model's semantic pass."""
        from wikitui.core.agent.lint_plan import reading_plan
        from wikitui.core.vault.lint import run_lint

        if self._running:
            return await self.endings.fail_early("lint", "", _busy())
        report = run_lint(self.vault, self.graph)
        text = lint_prompt.format_lint_report(report)
        await self.emit(LintReady(report))
        await self.emit(Notice("lint: " + text.splitlines()[0]))
        turn = self._new_turn("lint", "health check")
        turn.research = self.source_finder()  # with a search provider: web search for the sources to look for
        plan = reading_plan(self.vault, self.graph, report)
        short = lint_prompt.format_lint_report(report, limit=30, per_check=6)  # for a small window's compact pass
        extra = research_prompt.LINT_SOURCES if turn.research is not None else ""
        task = compact.Task(lint_prompt.lint_task(text, plan) + extra, compact.lint_task(short) + extra)
        focus = lint_focus(self.vault, self.graph, report)  # its catalog, when index.md is too big: those pages
        return await self._run(turn, task, "Health-check the wiki.", phase="write", typed="/lint", focus=focus)

    def source_finder(self):
        """A :class:`~wikitui.core.research.proposals.SourceFinder` for a turn, or None with no search provider."""
        from wikitui.core.research.proposals import SourceFinder
        from wikitui.core.research.provider import provider_from

        provider = provider_from(self.settings.research)
        return SourceFinder(provider) if provider is not None else None

    async def research(self, topic: str, *, typed: str | None = None) -> TurnFinished:
        """Search the web for sources on ``topic``; the URLs found are proposed, nothing fetched (DESIGN §9).

        The turn ends with a pending :class:`~wikitui.core.research.proposals.SourceProposal`
        (``TurnFinished.sources``) the person accepts or rejects URL by URL.
        """
        from wikitui.core.research.provider import NoSearchProvider

        if self._running:
            return await self.endings.fail_early("research", topic, _busy())
        finder = self.source_finder()
        if finder is None:
            return await self.endings.fail_early("research", topic, NoSearchProvider())
        topic = " ".join(topic.split())
        if not topic:
            return await self.endings.fail_early("research", "", WikituiError("research needs a topic: /research TOPIC"))
        turn = self._new_turn("research", topic)
        turn.research = finder
        text = research_prompt.research_task(topic)
        return await self._run(turn, compact.Task(text, text), self._with_feedback(f"Research: {topic}"),
                               phase="write", typed=typed or f"/research {topic}", focus=Focus(topic))

    async def challenge(self, paths: list[str], *, label: str) -> TurnFinished:
        """Compare new material (``paths``, vault-relative files) with the wiki: contradiction callouts and
        updates are proposed where they disagree, as one pending changeset (``lint --challenge``)."""
        if self._running:
            return await self.endings.fail_early("challenge", label, _busy())
        if not paths:
            return await self.endings.fail_early("challenge", label, WikituiError(f"{label}: no file to compare"))
        turn = self._new_turn("challenge", label)
        text = research_prompt.challenge_task(paths)
        message = f"Check the wiki's assumptions against {label}."
        return await self._run(turn, compact.Task(text, text), self._with_feedback(message), phase="write",
                               typed=f"lint --challenge {label}",
                               focus=source_focus(self.vault, paths[0]) if len(paths) == 1 else Focus(label))

    async def file_answer(self) -> TurnFinished:
        """Propose the last answer as a page under the wiki's answers/ folder, linked from the pages it cites.

        No model call: the page and the links back to it are made by wikitui (DESIGN §11).
        """
        if self._running:
            return await self.endings.fail_early("file", "", _busy())
        last = self.last_answer
        if last is None:
            return await self.endings.fail_early("file", "", WikituiError(
                "nothing to file yet: ask a question first"))
        question, answer = last
        turn = self._new_turn("file", question)
        await self.emit(TurnStarted("file", question))
        builder = self.new_builder()
        path, content = answer_page(self.vault, question, answer)
        try:
            builder.new_page(path, content, f"filed the answer to: {question}")
            linked = backlinks_to_answer(self.vault, self.graph, answer, path, question)
            for cited, text in linked.items():
                builder.new_page(cited, text, f"links the filed answer {path}")
        except WikituiError as exc:
            return await self.endings.finish_failed(turn, str(exc), exc.exit_code)
        self._filed[question] = path
        also = f", linked from {plural(len(linked), 'page')} it cites" if linked else ""
        return await self.endings.finish(turn, builder, f"Proposed {path} with the answer{also}.")

    async def fold_answer(self, *, typed: str = "/fold", join=None) -> TurnFinished:
        """Fold the last answer into the pages it cites: a model turn proposing the edits (DESIGN §11).

        ``/file`` keeps the answer verbatim; this turn brings its new synthesis into the concept and
        entity pages it cites (search before create, contradictions in the one callout format), as
        one pending changeset, reviewed like an ingest's.

        Args:
            typed: What the user typed for it (a restored chat shows it).
            join: A pending changeset (``ask --file --fold``: the filed answer's) the fold's proposals
                join: the turn starts from its proposals, and the one changeset it saves replaces it.
                None: the fold's changeset is one of its own (the chat's ``/fold``).
        """
        if self._running:
            return await self.endings.fail_early("fold", "", _busy())
        last = self.last_answer
        if last is None:
            return await self.endings.fail_early("fold", "", WikituiError(
                "nothing to fold in yet: ask a question first"))
        question, answer = last
        filed = self._filed.get(question)
        cited = cited_pages(self.vault, self.graph, answer, skip=(filed,) if filed else ())
        if not cited:
            return await self.endings.fail_early("fold", question, WikituiError(
                "the last answer cites no wiki page, so there is nothing to fold it into"))
        turn = self._new_turn("fold", question)
        titles = [(p, self.graph.pages[p].title) for p in cited]
        message = fold_prompt.fold_message(question, answer, titles,
                                           (filed, link_target(self.vault, filed)) if filed else None)
        task = compact.Task(fold_prompt.fold_task(), compact.fold_task())
        if join is not None:
            turn.builder = self.new_builder()
            try:
                for change in join.files:  # the fold's edits stack on these: one changeset, one patch
                    turn.builder.new_page(change.path, change.new_text, change.reason)
            except WikituiError as exc:  # the filed answer's changeset stays pending as it was
                turn.builder = None
                return await self.endings.finish_failed(turn, str(exc), exc.exit_code)
        done = await self._run(turn, task, self._with_feedback(message), phase="write", typed=typed)
        if join is not None and done.changeset is not None and done.changeset.id != join.id:
            from wikitui.core.changes.pending import PendingStore

            PendingStore(self.vault).discard(join.id)  # all of it is in the fold's changeset now
        return done

    # ------------------------------------------------------------- the loop
    def _new_turn(self, op: str, prompt: str) -> Turn:
        turn = Turn(number=len(self.turns) + 1, op=op, prompt=prompt)
        self.turns.append(turn)
        return turn

    def new_builder(self):
        """A new ChangesetBuilder for a turn's proposals (through the session's overlay, if any)."""
        if self._builder_factory is not None:
            return self._builder_factory()
        from wikitui.core.changes.builder import ChangesetBuilder

        return ChangesetBuilder(self.vault, self.graph, self.overlay)

    def _with_feedback(self, text: str) -> str:
        if self._feedback:
            text = f"(Feedback on your last changeset: {self._feedback})\n\n{text}"
            self._feedback = None
        return text

    async def _run(self, turn: Turn, task: compact.Task | str, user_text: str, *, phase: str,
                   attach_source: str | None = None, typed: str | None = None,
                   focus: Focus | None = None) -> TurnFinished:
        """Run one phase of a turn until the model answers, fails or is cancelled (see :mod:`~wikitui.core.agent.phase`)."""
        remember_model(self.vault, self.settings.model)  # for /model's listing of the models used lately
        self._running = True
        try:
            return await run_phase(self, turn, task, user_text, phase=phase, attach_source=attach_source,
                                   typed=typed, focus=focus)
        finally:
            self._running = False
            self._cancel = asyncio.Event()  # the next turn starts uncancelled

    # ---------------------------------------------------------- persistence
    def add_message(self, turn: Turn, message: dict, *, description: str | None = None,
                    prompt: str | None = None) -> None:
        """Append ``message`` to the turn and to the transcript (``description``: what the chat shows for it)."""
        turn.entries.append(Entry(message, description))
        self.transcript.add_message(turn, message, description=description, prompt=prompt)

    def record_turn(self, turn: Turn) -> None:
        """Save the turn's state and usage in the transcript."""
        self.transcript.record_turn(turn)

    def _restore(self) -> None:
        """Rebuild the turns and totals from the transcript."""
        self.turns = turns_from_records(self.transcript.records())
        for turn in self.turns:
            self.totals.prompt_tokens += turn.usage.prompt_tokens
            self.totals.completion_tokens += turn.usage.completion_tokens
            self.totals.cost += turn.usage.cost
            self.totals.requests += turn.usage.requests

    def chat_log(self) -> list[tuple[str, str]]:
        """What a chat pane shows for the (restored) session: (kind, text), kind user, assistant or tool."""
        return chat_log(self.turns)

    # --------------------------------------------------------------- helpers
    async def synced(self) -> None:
        """Wait for the transcript's last round to be on disk."""
        if self._sync is not None:
            task, self._sync = self._sync, None
            await task

    def sync_soon(self) -> None:
        """Make the transcript durable in a thread (one fsync; await :meth:`synced` before the next)."""
        self._sync = asyncio.ensure_future(asyncio.to_thread(self.transcript.sync))

    async def emit(self, event: Any) -> None:
        """Hand ``event`` to ``on_event`` (awaited when it is async)."""
        if self.on_event is None:
            return
        result = self.on_event(event)
        if inspect.isawaitable(result):
            await result

    async def emit_usage(self, turn: Turn, *, final: bool = True) -> None:
        """The turn's and the session's tokens and cost so far (``final``: the turn has ended)."""
        u, s = turn.usage, self.totals
        await self.emit(TurnUsage(prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, cost=u.cost,
                                  session_prompt_tokens=s.prompt_tokens,
                                  session_completion_tokens=s.completion_tokens, session_cost=s.cost,
                                  requests=u.requests, final=final))

    async def window_info(self) -> ContextWindow:
        """The model's context window, found once per model (may ask the server: off the event loop)."""
        if self._window is None:
            configured = self.settings.context_tokens
            if configured and configured > 0:  # the session's settings win over an injected client's
                self._window = ContextWindow(configured, "context_tokens in the config")
            else:
                found: ContextWindow = await asyncio.to_thread(self.client.context_window_info)
                self._window = found
        return self._window

    def _count_tools(self, tools: list[dict]) -> int:
        key = tuple(t["function"]["name"] for t in tools)
        if key not in self._tools_tokens:
            self._tools_tokens[key] = self._count_text(json.dumps(tools))
        return self._tools_tokens[key]

    def _count_text(self, text: str) -> int:
        return self.client.count_tokens(text=text)

    def _count_message(self, message: dict) -> int:
        return self.client.count_tokens([message])

    def _read(self, rel: str) -> str:
        try:
            return (self.vault.root / rel).read_text("utf-8-sig")
        except (OSError, UnicodeDecodeError):
            return ""


def _busy() -> WikituiError:
    return WikituiError("the agent is busy with another turn: wait for it or cancel it (esc)")
