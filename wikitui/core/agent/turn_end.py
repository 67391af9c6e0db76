"""How a turn ends — answered, waiting for ``/go``, cancelled or failed — mixed into ``AgentSession``.

Whatever the ending, a turn's proposals are never lost (DESIGN §8): when the model
fails, the stream is cut or the user cancels after some ``propose_*`` calls, what was
proposed is saved as a pending changeset and a note says so. Notes worth seeing again
(errors, cancels, cut answers, saved proposals) go to the transcript too, so a restored
chat shows them where they happened.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from wikitui.core.agent.context import Turn
from wikitui.core.agent.events import AgentError, ChangesetReady, Notice, SourcesProposed, TurnFinished, TurnUsage
from wikitui.core.agent.titles import turn_title
from wikitui.core.base.errors import WikituiError

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.agent.context import TurnUsageTotals
    from wikitui.core.agent.transcript import Transcript
    from wikitui.core.config.settings import Settings
    from wikitui.core.vault.layout import Vault

#: The ops a changeset records for each session operation (log.md's vocabulary).
LOG_OP = {"ask": "query", "ingest": "ingest", "lint": "lint", "file": "query", "fold": "query", "research": "query",
          "challenge": "lint"}


class TurnEndings:
    """The endings of a turn; expects the session's ``vault``, ``settings``, ``transcript``,
    ``totals``, ``approver``, ``on_event`` and ``_feedback``."""

    if TYPE_CHECKING:  # pragma: no cover - what the host (AgentSession) provides, declared for the type checker
        vault: Vault
        settings: Settings
        client: Any  # an LLMClient, or a test's stand-in
        transcript: Transcript
        totals: TurnUsageTotals
        approver: Callable[[Any], Awaitable[Any]] | None
        on_event: Callable[[Any], Any] | None
        _feedback: str | None

        def _add(self, turn: Turn, message: dict, *, description: str | None = None,
                 prompt: str | None = None) -> None: ...

        def _record_turn(self, turn: Turn) -> None: ...

    async def _finish(self, turn: Turn, builder, text: str, *, awaiting_go: bool = False,
                      cut: bool = False) -> TurnFinished:
        changeset = self._save_changeset(turn, builder)
        if changeset is not None and self.settings.review_model:
            await self._second_review(turn, changeset)
        turn.state = "awaiting_go" if awaiting_go else "done"
        self._record_turn(turn)
        await self._emit_usage(turn)
        if changeset is not None:
            await self._emit(ChangesetReady(changeset))
        sources = await self._save_sources(turn)
        done = TurnFinished(turn.op, text, changeset, awaiting_go=awaiting_go, cut=cut, sources=sources)
        await self._emit(done)
        if changeset is not None and self.approver is not None:
            feedback = await self.approver(changeset)
            if isinstance(feedback, str) and feedback.strip():
                self._feedback = feedback.strip()
        return done

    async def _second_review(self, turn: Turn, changeset) -> None:
        """``review_model`` annotates the changeset's hunks (saved pending again); a failure only says so."""
        from wikitui.core.agent.review_pass import review_changeset, review_client
        from wikitui.core.changes.pending import PendingStore

        assert self.settings.review_model  # _finish asks for a second review only when one is configured
        client = review_client(self.client, self.settings.review_model)
        await self._emit(Notice(f"review: {self.settings.review_model} reads {len(changeset.hunk_ids())} hunk(s)…",
                                "note"))
        try:
            outcome = await review_changeset(client, self.vault, changeset)
        except WikituiError as exc:  # ModelError: the changeset reaches the human unannotated
            await self._note(turn, "review", f"review by {self.settings.review_model} failed: {exc}; "
                             "no hunk is annotated")
            return
        PendingStore(self.vault).save(changeset)
        await self._note(turn, "review", outcome.notice)

    async def _finish_cancelled(self, turn: Turn, partial: str) -> TurnFinished:
        if partial:
            self._add(turn, {"role": "assistant", "content": partial + "\n[cancelled by the user]"})
        turn.state = "cancelled"
        changeset = self._save_changeset(turn, turn.builder)
        await self._note(turn, "cancelled", "Cancelled.")
        if changeset is not None:
            await self._note(turn, "pending", _pending_line(changeset, "cancel"))
        self._record_turn(turn)
        await self._emit_usage(turn)
        if changeset is not None:
            await self._emit(ChangesetReady(changeset))
        sources = await self._save_sources(turn)
        done = TurnFinished(turn.op, partial, changeset, cancelled=True, sources=sources)
        await self._emit(done)
        return done

    async def _finish_failed(self, turn: Turn, message: str, exit_code: int, *, partial: str = "") -> TurnFinished:
        """A failed turn; ``partial``: the words of an answer whose stream was cut (kept, marked as cut)."""
        turn.state = "failed"
        if partial:
            self._add(turn, {"role": "assistant", "content": partial})  # a failed turn is not sent again
        changeset = self._save_changeset(turn, turn.builder)
        self.transcript.append({"type": "event", "turn": turn.number, "error": message})
        turn.notes.append((len(turn.entries), "error", message))
        self._record_turn(turn)
        await self._emit(AgentError(message, exit_code))
        if partial:
            await self._note(turn, "cut", "The answer was cut off: the stream ended before the answer did, so "
                             "what arrived is incomplete. Ask again to get it whole.")
        if changeset is not None:
            await self._note(turn, "pending", _pending_line(changeset, "failure"))
            await self._emit(ChangesetReady(changeset))
        await self._emit_usage(turn)
        sources = await self._save_sources(turn)
        done = TurnFinished(turn.op, "", changeset, failed=True, sources=sources)
        await self._emit(done)
        return done

    def _abandon(self, turn: Turn) -> None:
        """The task running the turn was cancelled (the app quits, ctrl+c): keep its proposals, record it.

        Nothing can be awaited any more; a synchronous ``on_event`` (the headless printer)
        still hears where the proposals went.
        """
        turn.state = "cancelled"
        changeset = self._save_changeset(turn, turn.builder)
        if turn.research is not None:  # the sources proposed so far stay pending too
            turn.research.save(self.vault, _sources_topic(turn), turn.op)
        if changeset is not None:
            line = _pending_line(changeset, "cancel")
            self.transcript.append({"type": "event", "turn": turn.number, "kind": "pending", "text": line})
            turn.notes.append((len(turn.entries), "pending", line))
            if self.on_event is not None:
                result = self.on_event(Notice(line, "pending"))
                if inspect.iscoroutine(result):
                    result.close()
        self._record_turn(turn)

    async def _fail_early(self, op: str, prompt: str, exc: BaseException) -> TurnFinished:
        message = str(exc) if isinstance(exc, WikituiError) else f"{prompt}: {getattr(exc, 'strerror', None) or exc}"
        await self._emit(AgentError(message, getattr(exc, "exit_code", 2)))
        done = TurnFinished(op, "", None, failed=True)
        await self._emit(done)
        return done

    def _save_changeset(self, turn: Turn, builder):
        """The turn's proposals as a pending changeset (None when it proposed nothing); saved at most once."""
        if builder is None or turn.changeset_id is not None:
            return None
        changeset = builder.build(
            LOG_OP.get(turn.op, "edit"), turn_title(turn.op, turn.prompt, self.vault.root, turn.source),
            model=self.settings.model,
            tokens={"in": turn.usage.prompt_tokens, "out": turn.usage.completion_tokens},
            cost=round(turn.usage.cost, 6),
        )
        if changeset is None:
            return None
        from wikitui.core.changes.pending import PendingStore

        from wikitui.core.agent.transcript import card_summary

        PendingStore(self.vault).save(changeset)
        turn.changeset_id = changeset.id
        turn.card = card_summary(changeset)  # a restored chat shows its card, applied or undone since
        self.transcript.append({"type": "event", "turn": turn.number, "changeset": turn.card})
        return changeset

    async def _save_sources(self, turn: Turn):
        """The web sources the turn proposed, saved as a pending proposal (None when none); nothing is fetched."""
        finder = turn.research
        if finder is None:
            return None
        proposal = finder.save(self.vault, _sources_topic(turn), turn.op)
        if proposal is None:
            return None
        n = len(proposal.sources)
        await self._note(turn, "sources", f"{n} web source{'s' if n != 1 else ''} proposed ({proposal.id}); "
                         "nothing is fetched until you accept them: the review in wikitui, or "
                         f"`wikitui research accept {proposal.id} [URL...]`")
        await self._emit(SourcesProposed(proposal))
        return proposal

    async def _note(self, turn: Turn, kind: str, text: str) -> None:
        """A note the chat shows now and again when the conversation is restored."""
        self.transcript.append({"type": "event", "turn": turn.number, "kind": kind, "text": text})
        turn.notes.append((len(turn.entries), kind, text))
        await self._emit(Notice(text, kind))

    async def _emit_usage(self, turn: Turn, *, final: bool = True) -> None:
        u, s = turn.usage, self.totals
        await self._emit(TurnUsage(prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens, cost=u.cost,
                                   session_prompt_tokens=s.prompt_tokens,
                                   session_completion_tokens=s.completion_tokens, session_cost=s.cost,
                                   requests=u.requests, final=final))

    async def _emit(self, event: Any) -> None:
        if self.on_event is None:
            return
        result = self.on_event(event)
        if inspect.isawaitable(result):
            await result


def _sources_topic(turn: Turn) -> str:
    """What a turn's proposed web sources are about: the research topic, or the operation's sources pass."""
    return turn.prompt if turn.op == "research" else f"{turn.op}: sources to look for"


def _pending_line(changeset, why: str) -> str:
    """The note for proposals kept after a failure or a cancel."""
    n = len(changeset.files)
    files = f"{n} file{'s' if n != 1 else ''}"
    before = "before the failure" if why == "failure" else "before the cancel"
    return (f"The changes proposed {before} are kept: changeset {changeset.id} ({files}) is pending; "
            "review it with ctrl+r in wikitui")
