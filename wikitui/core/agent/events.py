"""Events: what the model client streams and what an agent session reports.

Plain dataclasses, no UI types: the chat pane renders them, the headless commands
print them, tests collect them. Two families:

* **stream events** yielded by :meth:`LLMClient.stream` for one model request
  (:class:`TextDelta`, :class:`ToolCallDelta`, :class:`ToolCall`, :class:`Usage`,
  :class:`Retrying`, :class:`Done`);
* **session events** passed to ``AgentSession``'s ``on_event`` callback for a whole
  turn (:class:`TurnStarted`, the text deltas, :class:`ToolStarted`,
  :class:`ToolFinished`, :class:`LintReady`, :class:`Notice`, :class:`ChangesetReady`,
  :class:`TurnUsage`, :class:`AgentError`, :class:`TurnFinished`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


# ------------------------------------------------------------------ stream events
@dataclass(slots=True)
class TextDelta:
    """A piece of the assistant's answer, in order."""

    text: str


@dataclass(slots=True)
class ToolCallDelta:
    """A piece of a tool call as it streams (name first, then argument fragments)."""

    index: int
    name: str | None
    arguments_delta: str


@dataclass(slots=True)
class ToolCall:
    """A complete tool call the model asked for.

    Attributes:
        id: The call id to answer with a tool message.
        name: The tool's name.
        arguments_json: The arguments exactly as the model sent them (may be malformed); "" when
            they were too long to keep.
        too_long: The arguments' length when it passed the limit of one call's arguments (they
            were not kept: the call gets an error result naming the limit); 0 otherwise.
    """

    id: str
    name: str
    arguments_json: str
    too_long: int = 0


@dataclass(slots=True)
class Usage:
    """Tokens and cost of one model request.

    Attributes:
        prompt_tokens: Tokens sent.
        completion_tokens: Tokens received.
        cost: US dollars from litellm's offline price map (0.0 for unknown models).
        estimated: True when the server reported no usage and the tokens were counted locally.
    """

    prompt_tokens: int
    completion_tokens: int
    cost: float = 0.0
    estimated: bool = False


@dataclass(slots=True)
class Retrying:
    """A request failed in a way worth retrying; the client waits ``delay`` seconds."""

    attempt: int
    max_attempts: int
    delay: float
    reason: str


@dataclass(slots=True)
class Done:
    """The request finished.

    Attributes:
        text: The whole answer text.
        tool_calls: The complete tool calls, in order.
        finish_reason: The provider's finish reason ("stop", "tool_calls", "length"...).
        cancelled: True when the stream was stopped by a cancel.
    """

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    cancelled: bool = False


# ----------------------------------------------------------------- session events
@dataclass(slots=True)
class TurnStarted:
    """A turn began: ``op`` is ask, ingest-plan, ingest-write, lint or file; ``prompt`` is what the user asked."""

    op: str
    prompt: str


@dataclass(slots=True)
class ToolStarted:
    """The agent called a tool; ``description`` is one quiet line (``searched "x"``, ``read wiki/x.md``)."""

    call_id: str
    name: str
    description: str


@dataclass(slots=True)
class ToolFinished:
    """A tool call finished.

    Attributes:
        call_id: The call's id.
        name: The tool's name.
        ok: False when the result is an error message returned to the model.
        summary: One line for the chat (``3 hits``, ``lines 1-120 of 120``, the error).
        result: The full text the model received.
    """

    call_id: str
    name: str
    ok: bool
    summary: str
    result: str


@dataclass(slots=True)
class ChangesetReady:
    """The turn's proposals form a changeset, saved as pending; ``changeset`` is a core Changeset."""

    changeset: Any


@dataclass(slots=True)
class SourcesProposed:
    """The turn proposed web sources to clip (DESIGN §9): ``proposal`` is a pending
    :class:`~wikitui.core.research.proposals.SourceProposal`, nothing fetched yet."""

    proposal: Any


@dataclass(slots=True, kw_only=True)
class TurnUsage:
    """Tokens and cost of the current turn, and of the whole session so far.

    Sent when a turn (or an ingest phase) starts, after each model request, and when the
    turn ends (``final``): the footer always shows the turn that is running.
    """

    prompt_tokens: int
    completion_tokens: int
    cost: float
    session_prompt_tokens: int
    session_completion_tokens: int
    session_cost: float
    requests: int = 0
    final: bool = True


@dataclass(slots=True)
class LintReady:
    """The deterministic lint report (a core ``LintReport``), before the model's pass begins."""

    report: Any


@dataclass(slots=True)
class Notice:
    """Something worth one line in the chat that is not an error.

    Attributes:
        text: The line.
        kind: ``note`` (a retry, a trimmed context), ``cut`` (the answer was cut by the
            output limit), ``pending`` (proposals saved after a failure or a cancel),
            ``tools`` (the model is not using tools), ``unsourced`` (an answer with no tool call and
            no citation: it may come from the model's memory), ``cancelled``, or ``revising`` (the
            answer's unresolved citations went back to the model: its next answer replaces
            this one). All but ``note`` and ``revising`` are kept in the transcript and shown
            again in a restored chat.
    """

    text: str
    kind: str = "note"


@dataclass(slots=True)
class AgentError:
    """The turn failed; ``message`` is one clear line (never an API key), ``exit_code`` as in errors.py."""

    message: str
    exit_code: int = 3


@dataclass(slots=True)
class TurnFinished:
    """A turn ended.

    Attributes:
        op: The operation.
        text: The assistant's final answer (the plan, for an ingest's plan phase).
        changeset: The pending changeset the turn produced, or None.
        cancelled: True when the user cancelled the turn.
        failed: True when it ended with an :class:`AgentError`.
        awaiting_go: True after an ingest's plan: ``go()`` (or a steering message) continues.
        cut: True when the answer was cut off by the model's output limit (``finish_reason: length``).
        sources: The web sources the turn proposed to clip (a pending ``SourceProposal``), or None.

    A failed or cancelled turn may still carry a ``changeset``: the proposals made before
    the failure, saved as pending (DESIGN §8: a turn's proposals are never lost).
    """

    op: str
    text: str
    changeset: Any = None
    cancelled: bool = False
    failed: bool = False
    awaiting_go: bool = False
    cut: bool = False
    sources: Any = None
