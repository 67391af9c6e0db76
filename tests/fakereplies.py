"""The replies a :class:`~tests.fakeserver.FakeLLM` can be scripted with: answers, tool calls and faults.

Plain dataclasses (picklable, so a server in another process can be scripted too) and
small constructors that read like the script they build::

    fake_llm.script(tool_call("search", query="Cheshire Cat"), cut(text("The Cat grins"), 2))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Reply:
    """Base of a scripted reply."""


@dataclass
class Text(Reply):
    """A streamed (or plain) assistant text answer.

    Attributes:
        text: The answer.
        chunk: Characters per SSE chunk.
        usage: (prompt_tokens, completion_tokens); None estimates them from the request.
        delay: Seconds to wait between chunks (to test cancellation).
        finish: The finish reason sent at the end ("length": cut by the output limit).
        cut_after: Drop the connection after this many content chunks (no end, no [DONE]).
        stall: Seconds to go silent after ``cut_after`` chunks instead of dropping (a hang).
        clean_end: After ``cut_after`` chunks, end the body properly (its last chunk sent, the
            connection closed) with no ``finish_reason`` and no ``[DONE]``: a stream without its end.
        batch: SSE events sent in one write (1: each on its own, as a model server does; more
            lets a test stream a million chunks without the server's writes dominating).
    """

    text: str
    chunk: int = 7
    usage: tuple[int, int] | None = None
    delay: float = 0.0
    finish: str = "stop"
    cut_after: int | None = None
    stall: float = 0.0
    clean_end: bool = False
    batch: int = 1


@dataclass
class ToolCalls(Reply):
    """Streamed tool calls, arguments split across chunks as OpenAI streams them.

    Attributes:
        calls: (name, arguments) pairs; a dict is JSON-encoded, a str is sent verbatim
            (so a test can send malformed JSON).
        text: Assistant text streamed before the calls.
        chunk: Characters of arguments per chunk.
        usage, delay, finish, cut_after, stall, clean_end, batch: As for :class:`Text`.
    """

    calls: list[tuple[str, dict | str]]
    text: str = ""
    chunk: int = 5
    usage: tuple[int, int] | None = None
    delay: float = 0.0
    finish: str = "tool_calls"
    cut_after: int | None = None
    stall: float = 0.0
    clean_end: bool = False
    batch: int = 1


@dataclass
class HTTPError(Reply):
    """An HTTP error answer (429, 500, 401, ...)."""

    status: int
    message: str = "error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Hang(Reply):
    """Sleep before answering (longer than the client's timeout), then answer ``then``."""

    seconds: float
    then: Reply | None = None


@dataclass
class Raw(Reply):
    """A 200 (or other) answer with an arbitrary body: not a chat completion at all."""

    body: bytes
    content_type: str = "application/json"
    status: int = 200


@dataclass
class PlainJSON(Reply):
    """A non-streamed JSON completion of ``reply``, sent even when a stream was asked for."""

    reply: Reply


@dataclass
class Dynamic(Reply):
    """A reply computed from the request body (for benchmarks that follow tool results)."""

    fn: Callable[[dict], Reply]


def text(content: str, **kw: Any) -> Text:
    """A streamed text answer."""
    return Text(content, **kw)


def tool_call(name: str, /, *, usage: tuple[int, int] | None = None, **arguments: Any) -> ToolCalls:
    """One streamed tool call with keyword arguments (``usage`` is the reply's, not the tool's)."""
    return ToolCalls([(name, arguments)], usage=usage)


def tool_calls(*calls: tuple[str, dict | str], text: str = "", **kw: Any) -> ToolCalls:
    """Several streamed tool calls in one assistant message."""
    return ToolCalls(list(calls), text=text, **kw)


def malformed_tool_call(name: str = "search", raw: str = '{"query": "alice", "limit": ') -> ToolCalls:
    """A tool call whose arguments are not valid JSON."""
    return ToolCalls([(name, raw)])


def error(status: int, message: str = "", *, retry_after: float | None = None) -> HTTPError:
    """An HTTP error; ``retry_after`` adds a Retry-After header."""
    headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
    return HTTPError(status, message or f"fake error {status}", headers)


def hang(seconds: float, then: Reply | None = None) -> Hang:
    """Hold the request for ``seconds`` (a client timeout), optionally answering afterwards."""
    return Hang(seconds, then)


def cut(reply: Text | ToolCalls, after: int = 2) -> Text | ToolCalls:
    """``reply`` streamed for ``after`` chunks, then the connection dropped mid-stream."""
    reply.cut_after = after
    return reply


def ends_early(reply: Text | ToolCalls, after: int = 2) -> Text | ToolCalls:
    """``reply`` streamed for ``after`` chunks, then its body ended cleanly: no finish_reason, no ``[DONE]``."""
    reply.cut_after, reply.clean_end = after, True
    return reply


def stall(reply: Text | ToolCalls, after: int, seconds: float) -> Text | ToolCalls:
    """``reply`` streamed for ``after`` chunks, then silence for ``seconds`` (past a client timeout)."""
    reply.cut_after, reply.stall = after, seconds
    return reply


def empty_ok() -> Raw:
    """HTTP 200 with an empty body."""
    return Raw(b"", "application/json")


def html_page() -> Raw:
    """HTTP 200 with an HTML page (a proxy's login or error page)."""
    return Raw(b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Please sign in</h1>"
               b"</body></html>", "text/html; charset=utf-8")


def json_for_stream(reply: Reply | None = None) -> PlainJSON:
    """A whole JSON completion where a stream was asked for (a server that ignores ``stream``)."""
    return PlainJSON(reply or Text("A whole answer, not a stream."))


def hostile_calls() -> ToolCalls:
    """Proposals that must all be refused: escape the vault, write raw/, rewrite log.md."""
    return ToolCalls(
        [
            ("propose_page", {"path": "../../etc/x", "content": "pwned", "reason": "escape"}),
            ("propose_page", {"path": "raw/chapter-01.md", "content": "rewritten", "reason": "edit a source"}),
            ("propose_page", {"path": "wiki/log.md", "content": "history rewritten", "reason": "rewrite log"}),
            ("propose_delete", {"path": "/etc/passwd", "reason": "absolute"}),
            ("propose_move", {"path": "wiki/index.md", "new_path": "raw/index.md", "reason": "into raw"}),
        ]
    )


