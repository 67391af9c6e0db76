"""Turns, and fitting a conversation into the model's context window.

A session is a list of :class:`Turn` s. The request for the current turn is the
system prompt, the earlier turns *condensed* to their question and final answer (their
tool calls and results are not resent: the answer cites what mattered), and the
current turn in full. When that still does not fit, :func:`build_request` condenses
the current turn's older tool results first, then drops the oldest earlier turns, and
only then condenses the latest results too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from wikitui.core.agent.argcheck import ToolArgError, check_strings, decode_arguments
from wikitui.core.base.words import plural


@dataclass(slots=True)
class Entry:
    """One message of a turn, with what the fitting needs to know about it.

    Attributes:
        message: The message in OpenAI format (what is sent).
        description: For a tool result: the call's one-line description (used when condensed).
        tokens: Its token count, once counted.
    """

    message: dict
    description: str | None = None
    tokens: int | None = None


@dataclass(slots=True)
class TurnUsageTotals:
    """Tokens, cost and requests of a turn (or of a session)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    requests: int = 0

    def add(self, prompt: int, completion: int, cost: float) -> None:
        """Count one request."""
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.cost += cost
        self.requests += 1

    def as_dict(self) -> dict:
        """JSON-ready form (for the transcript)."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost": self.cost, "requests": self.requests}


@dataclass
class Turn:
    """One exchange: the user's request and everything the agent did for it.

    An ingest's plan and write phases are one turn (one changeset, one log entry).

    Attributes:
        number: 1-based turn number in the session.
        op: ask, ingest, lint or file.
        prompt: What the user asked (the question, the source path...).
        entries: The messages, in order.
        state: running, awaiting_go, done, cancelled, failed or interrupted (restored after a crash).
        usage: Tokens and cost so far.
        answer: The final answer text.
        changeset_id: The pending changeset the turn produced.
        source: For an ingest, the source's path.
        notes: Notes shown in the chat, as (position among ``entries``, kind, text): errors,
            cancels, cut answers, saved proposals (restored with the conversation).
        builder: The turn's ChangesetBuilder while it runs (not persisted).
        compact: Whether the turn uses the compact instructions and tools (set by its first phase,
            kept by an ingest's write phase; None until then; not persisted).
        card: What a restored chat's card shows of the turn's changeset (see
            :func:`~wikitui.core.agent.transcript.card_summary`), once it is saved.
        research: The turn's :class:`~wikitui.core.research.proposals.SourceFinder` when a search provider
            is configured and the operation may search the web (not persisted).
    """

    number: int
    op: str
    prompt: str
    entries: list[Entry] = field(default_factory=list)
    state: str = "running"
    usage: TurnUsageTotals = field(default_factory=TurnUsageTotals)
    answer: str = ""
    changeset_id: str | None = None
    source: str | None = None
    notes: list[tuple[int, str, str]] = field(default_factory=list)
    builder: Any = field(default=None, repr=False, compare=False)
    compact: bool | None = field(default=None, repr=False, compare=False)
    card: dict | None = field(default=None, repr=False, compare=False)
    research: Any = field(default=None, repr=False, compare=False)
    _summary: list[Entry] | None = field(default=None, repr=False, compare=False)

    def summary_entries(self) -> list[Entry]:
        """The turn as later turns see it: the question and the final answer (cached with their token counts)."""
        if self._summary is None:
            user = self.first_user()
            if user is None:
                return []
            answer = self.final_answer() or f"[turn {self.state}; no answer]"
            self._summary = [Entry(user), Entry({"role": "assistant", "content": answer})]
        return self._summary

    def first_user(self) -> dict | None:
        """The turn's opening user message."""
        return next((e.message for e in self.entries if e.message.get("role") == "user"), None)

    def final_answer(self) -> str:
        """The last assistant text of the turn."""
        for e in reversed(self.entries):
            if e.message.get("role") == "assistant" and e.message.get("content"):
                return str(e.message["content"])
        return self.answer


def condensed(entry: Entry) -> dict:
    """A tool result reduced to a one-line stub (the call id kept, so pairing stays valid).

    A message of pictures (:mod:`~wikitui.core.agent.pictures`) becomes one line too.
    """
    msg = dict(entry.message)
    if msg.get("role") == "user":
        msg["content"] = "[wikitui: pictures removed to save context; read the files again if you need them]"
        return msg
    what = entry.description or "an earlier tool call"
    msg["content"] = f"[result of {what} removed to save context; call the tool again if you need it]"
    return msg


def _bulky(message: dict) -> bool:
    """A tool result, or a message of pictures: what may be condensed when the window is full."""
    return message.get("role") == "tool" or (message.get("role") == "user" and isinstance(message.get("content"), list))


def repair(messages: list[dict]) -> list[dict]:
    """Drop tool calls without results and results without calls (after a crash or a cancel).

    Providers reject a conversation where an assistant's tool call is not answered.
    """
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    out: list[dict] = []
    open_ids: set[str] = set()
    for m in messages:
        if m.get("role") == "assistant" and m.get("tool_calls"):
            calls = [c for c in m["tool_calls"] if c.get("id") in answered]
            if len(calls) != len(m["tool_calls"]):
                m = {k: v for k, v in m.items() if k != "tool_calls"}
                if calls:
                    m["tool_calls"] = calls
                elif not m.get("content"):
                    continue
            open_ids |= {c["id"] for c in m.get("tool_calls", [])}
        elif m.get("role") == "tool":
            if m.get("tool_call_id") not in open_ids:
                continue
            open_ids.discard(m.get("tool_call_id"))
        out.append(m)
    return out


def safe_arguments(arguments_json: str) -> str:
    """The arguments to resend in history: malformed or hostile JSON becomes ``{}``.

    Some providers parse the arguments of earlier calls and reject the whole request
    when they are not JSON; the tool's error result already told the model what was wrong.
    Arguments nested to break a parser, or holding what no text may hold (a lone
    surrogate, NUL), are not resent either.
    """
    try:
        check_strings(decode_arguments(arguments_json))
    except ToolArgError:
        return "{}"
    return arguments_json or "{}"


def build_request(system: str, previous: list[Turn], current: Turn, budget: int,
                  count: Callable[[dict], int], *, system_tokens: int | None = None,
                  measured: list[int] | None = None) -> tuple[list[dict], list[str]]:
    """The messages to send for the current turn, fitted to ``budget`` tokens.

    Args:
        system: The system prompt.
        previous: Earlier turns (condensed to question and answer).
        current: The turn being run (sent in full unless it does not fit).
        budget: Tokens available for the messages.
        count: Counts one message's tokens.
        system_tokens: The system prompt's tokens, when already counted.
        measured: When given, the messages' counted tokens are appended to it (so the answer may be
            given the room the request leaves).

    Returns:
        (messages, notes saying what was trimmed).
    """
    def tokens(entry: Entry) -> int:
        if entry.tokens is None:
            entry.tokens = count(entry.message)
        return entry.tokens

    history = [pair for pair in (turn.summary_entries() for turn in previous) if pair]
    if system_tokens is None:
        system_tokens = count({"role": "system", "content": system})
    notes: list[str] = []
    entries = list(current.entries)
    condensed_ids: set[int] = set()

    def total() -> int:
        n = system_tokens + sum(tokens(e) for pair in history for e in pair)
        for i, e in enumerate(entries):
            n += 12 if i in condensed_ids else tokens(e)
        return n

    last_assistant = max((i for i, e in enumerate(entries) if e.message.get("role") == "assistant"), default=-1)
    tool_positions = [i for i, e in enumerate(entries) if _bulky(e.message)]
    older = [i for i in tool_positions if i < last_assistant]
    latest = [i for i in tool_positions if i > last_assistant]
    if total() > budget:
        for i in older:
            condensed_ids.add(i)
            if total() <= budget:
                break
        if condensed_ids:
            notes.append(f"condensed {plural(len(condensed_ids), 'older tool result')} to fit the context window")
    dropped = 0
    while total() > budget and history:
        history.pop(0)
        dropped += 1
    if dropped:
        notes.append(f"left out the {plural(dropped, 'oldest turn')} of this session to fit the context window")
    if total() > budget:
        before = len(condensed_ids)
        for i in latest[:-1]:
            condensed_ids.add(i)
            if total() <= budget:
                break
        if len(condensed_ids) > before:
            notes.append("condensed the latest tool results too: the context window is nearly full")

    if measured is not None:
        measured.append(total())
    messages = [{"role": "system", "content": system}]
    messages += [e.message for pair in history for e in pair]
    messages += [condensed(e) if i in condensed_ids else e.message for i, e in enumerate(entries)]
    return repair(messages), notes
