"""What a running batch tells whoever shows it: typed events, for the TUI's panel and the headless stderr alike.

:class:`~wikitui.core.batch.runner.BatchRunner` calls its ``on_event`` with each of
these, in order, on the event loop that runs it. :class:`Progress` is the panel's
whole state (N of M, current source, tokens, cost so far, time left, failures);
:class:`AgentEvent` carries the session events of a source's turn (its changeset card).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal, Union


@dataclass(slots=True, kw_only=True)
class Progress:
    """Where the batch is, as a panel shows it.

    Attributes:
        n: The current source's place among this run's sources (1-based; 0 before the first).
        total: This run's sources.
        source: The current source ("" before the first).
        phase: ``planning``, ``writing``, ``done`` (the batch ended) or ``stopping`` (after this source).
        tokens: Tokens this run spent so far (in and out).
        cost: US dollars this run spent so far.
        left_s: Seconds the rest is expected to take (None: no source finished yet).
        failed: Sources of the batch that failed.
        proposed: Sources of this run proposed so far.
        planning_ahead: Later sources whose plan phase runs now (``batch_concurrency``).
        paused: Why the batch waits now (a rate limit, another writer), or "".
    """

    n: int
    total: int
    source: str
    phase: str
    tokens: int
    cost: float
    left_s: float | None
    failed: int
    proposed: int
    planning_ahead: int = 0
    paused: str = ""


@dataclass(slots=True, kw_only=True)
class SourceStarted:
    """Source ``n`` of ``total`` starts its write turn (its plan may have run ahead)."""

    progress: Progress


@dataclass(slots=True, kw_only=True)
class SourceFinished:
    """Source ``n`` of ``total`` ended: ``state`` is its queue state now (proposed, failed, queued)."""

    n: int
    total: int
    source: str
    state: str
    changeset: str | None
    why: str | None
    tokens: int
    cost: float
    progress: Progress


NoticeKind = Literal["paused", "resumed", "stopping", "stopped", "error"]


@dataclass(slots=True, kw_only=True)
class BatchNotice:
    """A line about the batch as a whole: a pause, a resume, a stop and why, an error outside any turn."""

    kind: NoticeKind
    text: str
    progress: Progress


@dataclass(slots=True, kw_only=True)
class AgentEvent:
    """One event of a source's agent session (:mod:`wikitui.core.agent.events`)."""

    source: str
    event: Any


BatchEvent = Union[SourceStarted, SourceFinished, BatchNotice, AgentEvent]
OnBatchEvent = Callable[[BatchEvent], None]


def duration(seconds: float) -> str:
    """``40 s``, ``12 min``, ``2.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
