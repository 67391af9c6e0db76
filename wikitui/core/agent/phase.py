"""One phase of an agent turn: the tool loop.

The model is asked with the system prompt and the conversation; it streams an
answer and may call tools; their results go back in the next request, round after
round, until it answers without a tool call, uses up ``settings.max_rounds``, fails
or is cancelled. :func:`run_phase` runs that loop for an
:class:`~wikitui.core.agent.session.AgentSession` (whose events, transcript and
endings it uses); the proposals of the phase accumulate in the turn's changeset.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Protocol

from wikitui.core.agent import citations
from wikitui.core.agent.argcheck import MAX_ARGUMENTS_CHARS
from wikitui.core.agent.context import Turn, build_request, safe_arguments
from wikitui.core.agent.events import (
    Done,
    Notice,
    Retrying,
    TextDelta,
    ToolCall,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    Usage,
)
from wikitui.core.agent.fitting import fit_first_request, overflow_message, source_excerpt
from wikitui.core.agent.llm_errors import ContextOverflow, CutAnswer
from wikitui.core.agent.pictures import pictures_message
from wikitui.core.agent.prompts.compact import Task
from wikitui.core.agent.sources import sees_pictures
from wikitui.core.agent.tools import ToolBox, describe_call
from wikitui.core.agent.turn_catalog import Focus, TurnCatalog, turn_focus
from wikitui.core.agent.toolschema import ToolArgError, parse_arguments
from wikitui.core.config.settings import scrub
from wikitui.core.base.errors import WikituiError

if TYPE_CHECKING:
    from wikitui.core.agent.context import TurnUsageTotals
    from wikitui.core.agent.transcript import Transcript
    from wikitui.core.agent.window import ContextWindow
    from wikitui.core.config.settings import Settings


class PhaseSession(Protocol):
    """What a phase uses of its session (an :class:`~wikitui.core.agent.session.AgentSession`).

    Named here so this module does not import the session that calls it. The
    underscored members are the session's own state the loop still shares with it
    (issue 22 point 2 makes the loop a collaborator with a public interface).
    """

    vault: Any
    graph: Any
    search_index: Any
    overlay: Any
    client: Any
    settings: Settings
    transcript: Transcript
    turns: list[Turn]
    totals: TurnUsageTotals
    round_overheads: list[float]
    prep_times: list[float]
    _cancel: asyncio.Event
    _running: bool
    _told_compact: int | None
    _sync: asyncio.Future | None

    async def _emit(self, event: Any) -> None: ...
    async def _note(self, turn: Turn, kind: str, text: str) -> None: ...
    async def _emit_usage(self, turn: Turn, *, final: bool = True) -> None: ...
    async def _finish(self, turn: Turn, builder: Any, text: str, *, awaiting_go: bool = False,
                      cut: bool = False) -> TurnFinished: ...
    async def _finish_cancelled(self, turn: Turn, partial: str) -> TurnFinished: ...
    async def _finish_failed(self, turn: Turn, message: str, exit_code: int, *,
                             partial: str = "") -> TurnFinished: ...
    def _abandon(self, turn: Turn) -> None: ...
    def _builder(self) -> Any: ...
    def _add(self, turn: Turn, message: dict, *, description: str | None = None,
             prompt: str | None = None) -> None: ...
    async def _synced(self) -> None: ...
    async def _window_info(self) -> ContextWindow: ...
    def _count_tools(self, tools: list[dict]) -> int: ...
    def _count_text(self, text: str) -> int: ...
    def _count_message(self, message: dict) -> int: ...

#: Said under an answer that rests on nothing the wiki showed (issue 25: ingest's "no tool calls" note, for ask).
UNSOURCED = ("The model answered without calling any tool or citing anything: the answer may come from its own "
             "memory, not from the wiki. Ask it to look the wiki up and cite its pages, or use a model and server "
             "that do tool calls (the README's \"Local models\").")

#: Told to the model when it used up its rounds.
_LAST_ROUND = ("[wikitui: the tool budget for this turn is used up. Answer now with what you have, and say "
               "what is left undone.]")


async def run_phase(session: PhaseSession, turn: Turn, task: Task | str, user_text: str, *, phase: str,
                    attach_source: str | None = None, typed: str | None = None,
                    focus: Focus | None = None) -> TurnFinished:
    """Run one phase of ``session``'s ``turn`` until the model answers, fails or is cancelled.

    ``task`` is the operation's instructions; a :class:`Task` carries them in both sizes, and the phase
    uses the compact ones (and tools) when the window calls for them (:func:`fit_first_request`).
    ``typed``: what the user typed for it (``/go``), which a restored chat shows
    instead of the message sent to the model. ``focus``: what the turn's catalog entries are chosen for
    when index.md is too big for the request (default: the question, or the source; :mod:`~wikitui.core.agent.turn_catalog`).
    """
    session._running = True
    start = time.perf_counter()
    toolbox: ToolBox | None = None
    try:
        await session._emit(TurnStarted(f"{turn.op}-{phase}" if turn.op == "ingest" else turn.op, turn.prompt))
        session.settings.require_model()  # fail with the how-to before anything slow
        await session._emit_usage(turn, final=False)  # the footer follows this turn from its start
        if phase == "write" and turn.builder is None:
            turn.builder = session._builder()
        window = await session._window_info()
        shown = typed
        if attach_source:  # the chat shows what the user sent, not the source pasted after it
            shown = shown or user_text
            user_text += source_excerpt(session.vault, attach_source, window, session._count_text)
        session._add(turn, {"role": "user", "content": user_text}, prompt=turn.prompt, description=shown)
        catalog = TurnCatalog(session.vault, session.graph, session.search_index,
                              focus or turn_focus(session.vault, turn))
        fitted = fit_first_request(session.vault, session.graph, task, window,
                                   lambda small: session._count_tools(ToolBox.tool_schemas(
                                       small, turn.research is not None)),
                                   turn.entries[-1].message, session._count_text, session._count_message,
                                   model=session.settings.model or "",
                                   initial_context_tokens=session.settings.initial_context_tokens,
                                   compact=session.settings.compact if turn.compact is None else turn.compact,
                                   catalog=catalog)
        turn.compact = fitted.compact  # an ingest's write phase keeps its plan's set
        budget, system, system_tokens = fitted.budget, fitted.system, fitted.system_tokens
        toolbox = ToolBox(session.vault, session.graph, session.search_index, turn.builder, phase,
                          budget.result_chars(), vision=sees_pictures(session.client), compact=fitted.compact,
                          overlay=session.overlay, research=turn.research)
        tools = toolbox.schemas()
        if fitted.compact and session._told_compact != window.tokens:
            session._told_compact = window.tokens
            await session._emit(Notice(f"compact prompt for a {window.tokens:,}-token window "
                                       f"(tools: {', '.join(t['function']['name'] for t in tools)})"))
        previous = [t for t in session.turns if t is not turn and t.state != "failed"]
        session.prep_times.append(time.perf_counter() - start)
        told: set[str] = set()
        finish: str | None = None
        cited_once = phase == "plan"  # a plan proposes nothing and its citations are checked with the write
        for round_no in range(session.settings.max_rounds + 1):
            last = round_no == session.settings.max_rounds
            if last:
                session._add(turn, {"role": "user", "content": _LAST_ROUND})
            measured: list[int] = []
            messages, notes = build_request(system, previous, turn, budget.messages, session._count_message,
                                            system_tokens=system_tokens, measured=measured)
            for note in notes:
                if note not in told:
                    told.add(note)
                    await session._emit(Notice(note))
            try:
                text, calls, cancelled, finish = await _request(session, turn, messages, None if last else tools,
                                                                budget.answer_tokens(measured[0]))
            except ContextOverflow as exc:
                sent = session.client.count_tokens(messages, tools=None if last else tools)
                first = round_no == 0 and len(messages) <= 2
                raise ContextOverflow(overflow_message(session.settings.model or "?", budget, sent, system_tokens,
                                                       first, str(exc))) from None
            if cancelled:
                return await session._finish_cancelled(turn, text)
            t0 = time.perf_counter()
            session._add(turn, _assistant(text, calls))
            if not calls:
                turn.answer = text
                if not cited_once and not last:
                    cited_once = True  # returned to the model once at most (DESIGN §11)
                    missing = await asyncio.to_thread(_unresolved, session, turn, text)  # may read a PDF
                    quotes = await asyncio.to_thread(_bad_evidence, turn)  # reads the sources the quotes name
                    if missing[0] or missing[1] or quotes:
                        session._add(turn, {"role": "user", "content": citations.feedback(*missing, quotes=quotes)})
                        # The chat shows the next answer in this one's place (kind "revising").
                        await session._emit(Notice("the answer's citations went back to the model once", "revising"))
                        continue
                break
            pictures: list = []
            for call in calls:
                if session._cancel.is_set():
                    return await session._finish_cancelled(turn, text)
                outcome = await _tool(session, toolbox, call)
                session._add(turn, {"role": "tool", "tool_call_id": call.id, "name": call.name,
                                 "content": outcome.text}, description=outcome.description)
                pictures += outcome.pictures
            if pictures:
                session._add(turn, pictures_message(pictures))
            # The round is made durable while the model works on the next request (one fsync
            # per round, in a thread): off the round trip, and never more than one behind.
            await session._synced()
            session._sync = asyncio.ensure_future(asyncio.to_thread(session.transcript.sync))
            session.round_overheads.append(time.perf_counter() - t0)
        cut = finish == "length"
        if cut:
            await session._note(turn, "cut", "The answer was cut off by the model's output limit (finish_reason: "
                             "length): it is incomplete. Ask it to go on, or raise the server's max tokens.")
        if phase == "write" and turn.op == "ingest" and attach_source and not used_tools(turn, since_plan=True):
            await session._note(turn, "tools", "The model made no tool calls, so it proposed nothing: ingesting "
                             "needs a model and server that support tool calls (see the README's \"Local models\").")
        # (A cut answer is already marked as such; its missing sources are the cut's, not the model's habit.)
        if turn.op == "ask" and not cut and not used_tools(turn) and not citations.check_citations(turn.answer or "",
                                                                                                      session.graph):
            await session._note(turn, "unsourced", UNSOURCED)
        if phase == "plan":
            return await session._finish(turn, None, turn.answer, awaiting_go=True, cut=cut)
        answer_missing, proposal_missing = await asyncio.to_thread(_unresolved, session, turn, turn.answer)
        if answer_missing or proposal_missing:
            unresolved = [*answer_missing, *(f"{t} (in {p})" for p, t in proposal_missing)]
            await session._note(turn, "citations", "Unresolved citations: " + ", ".join(unresolved))
        quotes = await asyncio.to_thread(_bad_evidence, turn)
        if quotes:
            await session._note(turn, "citations", "Evidence its source does not hold (marked ⚠ in the review): "
                                + "; ".join(f"{why} (for {page})" for page, why in quotes))
        return await session._finish(turn, turn.builder, turn.answer, cut=cut)
    except WikituiError as exc:  # ModelError, NoModelConfigured, ContextOverflow...
        partial = getattr(exc, "partial", "") if isinstance(exc, CutAnswer) else ""
        return await session._finish_failed(turn, scrub(str(exc), session.settings), exc.exit_code,
                                            partial=partial)
    except asyncio.CancelledError:  # the UI cancelled the worker: keep the proposals, record it, then let it end
        session._abandon(turn)
        raise
    finally:
        session._running = False
        session._cancel = asyncio.Event()  # the next turn starts uncancelled
        if session.search_index is None and toolbox is not None:
            session.search_index = toolbox.search_index  # opened by the first search: keep it

async def _request(session: PhaseSession, turn: Turn, messages: list[dict], tools,
                   max_tokens: int) -> tuple[str, list[ToolCall], bool, str | None]:
    """One streamed model request, its answer capped at ``max_tokens`` (the room the request leaves, at least
    the window's share kept for it);
    returns (text, tool calls, cancelled, finish reason)."""
    parts: list[str] = []
    try:
        async for ev in session.client.stream(messages, tools, cancel_event=session._cancel, max_tokens=max_tokens):
            if isinstance(ev, TextDelta):
                parts.append(ev.text)
                await session._emit(ev)
            elif isinstance(ev, Retrying):
                await session._emit(Notice(f"{ev.reason}; retrying in {ev.delay:.1f} s "
                                        f"(attempt {ev.attempt + 1} of {ev.max_attempts})"))
            elif isinstance(ev, Usage):
                turn.usage.add(ev.prompt_tokens, ev.completion_tokens, ev.cost)
                session.totals.add(ev.prompt_tokens, ev.completion_tokens, ev.cost)
                await session._emit_usage(turn, final=False)
            elif isinstance(ev, Done):
                return ev.text or "".join(parts), ev.tool_calls, ev.cancelled, ev.finish_reason
    except CutAnswer as exc:  # the words shown so far are kept with the turn, marked as cut
        exc.partial = "".join(parts)
        raise
    return "".join(parts), [], session._cancel.is_set(), None

async def _tool(session: PhaseSession, toolbox: ToolBox, call: ToolCall):
    try:
        args = parse_arguments(call.arguments_json)
    except ToolArgError:
        args = {}
    await session._emit(ToolStarted(call.id, call.name, describe_call(call.name, args)))
    if call.too_long:  # its arguments were not kept (see LLMClient): an error result naming the limit
        outcome = toolbox.refuse(call.name, f"the arguments are {call.too_long:,} characters long; at most "
                                            f"{MAX_ARGUMENTS_CHARS:,} are accepted: propose smaller pieces")
    else:  # off the event loop: a search or read on a big vault must not freeze the UI
        outcome = await asyncio.to_thread(toolbox.call, call.name, call.arguments_json)
    await session._emit(ToolFinished(call.id, call.name, outcome.ok, outcome.summary, outcome.text))
    return outcome


def _unresolved(session: PhaseSession, turn: Turn, text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The unresolved citations of the answer, and those the turn's proposals add.

    Only an answer to a question is checked for its citations: a lint report or an ingest's
    summary names broken links and missing pages on purpose.
    """
    answer = []
    if turn.op == "ask":
        answer = citations.unresolved(citations.check_citations(text or "", session.graph, builder=turn.builder))
    proposals: list[tuple[str, str]] = []
    if turn.builder is not None:
        proposals = citations.builder_unresolved(turn.builder, session.graph)
    return answer, proposals


def _bad_evidence(turn: Turn) -> list[tuple[str, str]]:
    """(page, what is wrong) of each evidence quote of the turn's proposals that its source does not hold."""
    return turn.builder.check_evidence() if turn.builder is not None else []


def _assistant(text: str, calls: list[ToolCall]) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": safe_arguments(c.arguments_json)}}
            for c in calls
        ]
    return message


def used_tools(turn: Turn, *, since_plan: bool = False) -> bool:
    """Whether the model called any tool in this turn (``since_plan``: in its write phase only)."""
    entries = turn.entries
    if since_plan:
        firsts = [i for i, e in enumerate(entries) if e.message.get("role") == "user"]
        entries = entries[firsts[1]:] if len(firsts) > 1 else entries
    return any(e.message.get("role") == "assistant" and e.message.get("tool_calls") for e in entries)
