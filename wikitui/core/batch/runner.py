"""Running a batch headless: one source after another, each its own pending changeset (DESIGN §13).

Each source gets a fresh :class:`~wikitui.core.agent.session.AgentSession` (plan, then
write straight on, as ``wikitui ingest raw/x`` does). The queue is saved before and
after each turn (:mod:`.queue` says in which order, so that a kill loses nothing and
runs nothing twice).

Plans run ahead (config ``batch_concurrency``, N): while source k is written, the plan
phases of sources k+1..k+N-1 run concurrently; writes stay strictly in order, each over
the overlay of every earlier source's proposals. A plan made before an earlier source's
write finished reads that write all the same: the tools read through the live overlay,
and its write phase is told which pages the batch proposed since its plan began, to read
them again before editing. Under a cost cap a plan starts ahead only while the money spent,
with each turn in flight counted at the batch's average cost per source, stays under the cap.

Whoever shows the batch (the TUI's panel, headless stderr) gets typed events
(:mod:`.events`) through ``on_event``. The batch stops cleanly, the rest left queued, when:

- the money this run spent reaches the cap (``--max-cost``, config ``batch_max_cost``);
- :data:`MAX_FAILURES` sources in a row failed (a network that is down);
- rate limits kept it paused past :data:`PAUSE_DEADLINE` seconds in all (each wait is
  the server's ``Retry-After``, at most :data:`MAX_WAIT`); a rate limit otherwise only
  pauses the queue: the request is sent again, the source does not fail for it;
- ctrl+c (headless) or :meth:`BatchRunner.stop` (the TUI's esc): the first stops after the
  current source (plans running ahead are cancelled and queued again), the second cancels
  it now (what it proposed so far stays pending).
"""

from __future__ import annotations

import asyncio
import signal
import time
from dataclasses import dataclass, field
from typing import Any

from wikitui.core.agent.events import AgentError, TurnFinished, TurnStarted
from wikitui.core.agent.headless import EXIT_MODEL, EXIT_NOTHING, EXIT_OK
from wikitui.core.batch.events import (
    AgentEvent,
    BatchEvent,
    BatchNotice,
    NoticeKind,
    OnBatchEvent,
    Progress,
    SourceFinished,
    SourceStarted,
)
from wikitui.core.batch.queue import Batch, Entry, sessions_folder
from wikitui.core.base.errors import ModelError

#: Sources failing one after another before the batch stops (the rest stays queued).
MAX_FAILURES = 3
#: Longest single wait for a rate limit (a longer Retry-After fails the request).
MAX_WAIT = 300.0
#: Seconds a batch may spend paused for rate limits and retries in all before it stops.
PAUSE_DEADLINE = 1800.0
#: How long the batch holds its next source while another wikitui writes to the vault (a sync), and how often it looks.
WRITER_WAIT_S = 600.0
WRITER_POLL_S = 0.1
#: Attempts per request while the server rate-limits.
RATE_LIMIT_ATTEMPTS = 50
EXIT_INTERRUPTED = 130
#: How a rate limit's failure reads (the client's "rate limited by ...", the deadline's below).
RATE_LIMITED = "rate limited"


class PausedTooLong(ModelError):
    """Rate limits kept the batch waiting past its total deadline."""


@dataclass(eq=False)
class _Job:
    """One source's turn: its session, and its plan phase running (perhaps ahead of its write)."""

    entry: Entry
    session: Any
    #: Changesets the overlay held when the plan began (those added later are named to the write phase).
    seen: int
    task: asyncio.Future | None = None
    error: AgentError | None = None
    exc: Exception | None = None
    counted: dict = field(default_factory=lambda: {"in": 0, "out": 0, "cost": 0.0})


class BatchRunner:
    """Runs the retryable entries of a batch in order (:meth:`run`).

    Args:
        workspace: The workspace (its graph and index are loaded).
        settings: The resolved settings.
        on_event: Called with every :mod:`.events` event, on the loop that runs the batch.
        client: The model client (one that pauses on rate limits is made when None).
        max_cost: Stop once this run spent this many US dollars (None: no cap).
        sleep: The coroutine that waits (tests may inject one).
        concurrency: Sources with a turn in flight at once (None: ``settings.batch_concurrency``).

    Attributes:
        stopped: Why the run stopped early (``cost cap``, ``failures``, ``rate limited``,
            ``interrupted``), or None.
        paused: Seconds spent waiting for rate limits and retries.
    """

    def __init__(self, workspace, settings, on_event: OnBatchEvent | None = None, *, client=None,
                 max_cost: float | None = None, sleep=asyncio.sleep, concurrency: int | None = None) -> None:
        self.workspace = workspace
        self.batch: Batch | None = None
        self.settings = settings
        self.on_event = on_event
        self.max_cost = max_cost
        self._sleep = sleep
        wanted = concurrency if concurrency is not None else getattr(settings, "batch_concurrency", 1)
        self.concurrency = max(1, int(wanted or 1))
        self.client = client if client is not None else self._client()
        self.stopped: str | None = None
        self.paused = 0.0
        self.spent = 0.0
        self.tokens = {"in": 0, "out": 0}
        self._stop_after = False
        self._current: _Job | None = None
        self._jobs: dict[int, _Job] = {}
        self._durations: list[float] = []
        self._last_code = EXIT_OK
        self._n = 0
        self._total = 0
        self._proposed = 0
        self._pause_why = ""
        #: The batch's pending proposals so far, which each source's turn sees (DESIGN §13, "Stacked changesets").
        self.overlay: Any = None

    def _client(self):
        from wikitui.core.agent.llm import LLMClient

        return LLMClient(self.settings, max_retry_after=MAX_WAIT, sleep=self._pause,
                         rate_limit_attempts=RATE_LIMIT_ATTEMPTS)

    # ------------------------------------------------------------ events
    def _emit(self, event: BatchEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def progress(self, phase: str | None = None) -> Progress:
        """The batch's state now, as a panel shows it."""
        current = self._current
        entries = self.batch.entries if self.batch is not None else []
        left = None
        if self._durations:
            left = sum(self._durations) / len(self._durations) * max(0, self._total - self._n + (current is not None))
        if phase is None:
            phase = "stopping" if self._stop_after else (current.entry.state if current is not None else "done")
        tokens, cost = self.tokens["in"] + self.tokens["out"], self.spent
        for job in [*([current] if current is not None else []), *self._jobs.values()]:  # spent, not yet counted
            totals = job.session.totals
            tokens += int(totals.prompt_tokens) + int(totals.completion_tokens) - job.counted["in"] - job.counted["out"]
            cost += float(totals.cost) - job.counted["cost"]
        return Progress(n=self._n, total=self._total, source=current.entry.source if current is not None else "",
                        phase=phase, tokens=tokens, cost=cost, left_s=left,
                        failed=sum(1 for e in entries if e.state == "failed"), proposed=self._proposed,
                        planning_ahead=sum(1 for j in self._jobs.values() if j.task is not None and not j.task.done()),
                        paused=self._pause_why)

    def _notice(self, kind: NoticeKind, text: str) -> None:
        self._emit(BatchNotice(kind=kind, text=text, progress=self.progress()))

    async def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` before a retry, holding the batch's total deadline for waits."""
        if self.paused + seconds > PAUSE_DEADLINE:
            raise PausedTooLong(f"{RATE_LIMITED} too long: the batch has waited {self.paused:.1f} s in all, its limit is "
                                f"{PAUSE_DEADLINE:g} s; the rest stays queued (wikitui ingest --resume)")
        self.paused += seconds
        self._pause_why = "rate limited"
        self._notice("paused", f"batch paused {seconds:.1f} s (waited {self.paused:.1f} s in all)")
        try:
            await self._sleep(seconds)
        finally:
            self._pause_why = ""

    # ------------------------------------------------------------ the run
    async def run(self, batch: Batch) -> int:
        """Run ``batch``; the exit status (0 all proposed or skipped, 1 stopped at the cap, 3 failures or rate
        limits past the deadline, 130 ctrl+c)."""
        self.batch = batch
        self.overlay = self._overlay(batch)
        todo = [e for e in batch.entries if e.retryable]
        self._total = len(todo)
        loop = asyncio.get_running_loop()
        hooked = _hook_sigint(loop, self._interrupt)
        jobs = self._jobs
        try:
            failures = 0
            for i, entry in enumerate(todo):
                n = i + 1
                if self._stop_after:
                    self.stopped = "interrupted"
                    break
                spent = self.progress().cost  # what plans running ahead spent so far counts too
                if self.max_cost is not None and spent >= self.max_cost:
                    self.stopped = "cost cap"
                    self._notice("stopped", f"the batch reached its cost cap (${spent:.4f} of "
                                 f"${self.max_cost:.4f}); {len(todo) - n + 1} source(s) stay queued: "
                                 "`wikitui ingest --resume` continues")
                    break
                if await self._wait_for_writer():
                    # A sync (or an apply) wrote while the batch waited: the next source reads the wiki as it is now.
                    if self.workspace.refresh():
                        await self._drop()  # plans made over the old overlay are made again
                        self.overlay = self._overlay(batch)
                for j in range(i, min(len(todo), i + self.concurrency)):
                    if j not in jobs:
                        if j > i and not self._room_ahead(len(jobs)):
                            break
                        jobs[j] = self._start(batch, todo[j])
                job = jobs.pop(i)
                self._current, self._n = job, n
                self._emit(SourceStarted(progress=self.progress()))
                started = time.monotonic()
                await self._finish(batch, job)
                self._durations.append(time.monotonic() - started)
                self._emit(SourceFinished(n=n, total=len(todo), source=entry.source, state=entry.state,
                                          changeset=entry.changeset, why=entry.why,
                                          tokens=entry.tokens["in"] + entry.tokens["out"], cost=entry.cost,
                                          progress=self.progress()))
                if self.stopped == "interrupted":
                    break
                if entry.state == "failed" and entry.changeset is None and (entry.why or "").startswith(RATE_LIMITED):
                    self.stopped = "rate limited"  # waiting longer than allowed, or told to: the next would too
                    batch.set_state(entry, "queued", why=entry.why)
                    self._notice("stopped", "the server keeps rate-limiting; the batch stops, this source and the "
                                 "rest stay queued: `wikitui ingest --resume` continues")
                    break
                # In a row: model and network failures (a source that cannot be read says nothing of the network).
                failures = failures + 1 if entry.state == "failed" and self._last_code == EXIT_MODEL else 0
                if failures >= MAX_FAILURES:
                    self.stopped = "failures"
                    self._notice("stopped", f"{failures} sources failed in a row; the batch stops, the rest stays "
                                 "queued: `wikitui ingest --resume` continues")
                    break
            if self._stop_after and self.stopped is None and any(e.retryable for e in todo):
                self.stopped = "interrupted"
            await self._drop()
        except asyncio.CancelledError:  # the app quits: the queue on disk says where it was (recover() settles it)
            for job in jobs.values():
                if job.task is not None:
                    job.task.cancel()
            raise
        finally:
            self._current = None
            if hooked:
                loop.remove_signal_handler(signal.SIGINT)
        return self.status()

    def _room_ahead(self, in_flight: int) -> bool:
        """Whether one more plan may start ahead under the cost cap, with ``in_flight`` turns running.

        Each turn in flight, and the new one, is expected to cost what the batch's proposed sources
        cost on average (a resumed batch's earlier runs included); before any source was proposed the
        cost is unknown, so under a cap no plan runs ahead. So the cap is overshot by at most the
        current source, as with one source at a time.
        """
        if self.max_cost is None:
            return True
        if self.batch is None:
            return False
        costs = [e.cost for e in self.batch.entries if e.state == "proposed"]
        if not costs:
            return False
        per_source = sum(costs) / len(costs)
        return self.spent + per_source * (in_flight + 1) <= self.max_cost

    async def _wait_for_writer(self) -> bool:
        """Hold the next source while another wikitui writes to the vault (a sync bringing commits in, an apply).

        Returns:
            Whether it waited (then the vault may have changed). After :data:`WRITER_WAIT_S` it goes on anyway:
            the batch only writes pending changesets, which the write lock does not guard.
        """
        from wikitui.core.changes.lock import lock_held

        vault = self.workspace.vault
        if not lock_held(vault):
            return False
        self._pause_why = "another wikitui is writing"
        self._notice("paused", "batch paused: another wikitui is writing to the vault (a sync or an apply)")
        waited = 0.0
        try:
            while lock_held(vault) and waited < WRITER_WAIT_S:
                await self._sleep(WRITER_POLL_S)
                waited += WRITER_POLL_S
        finally:
            self._pause_why = ""
        self._notice("resumed", f"batch resumed after {waited:.1f} s")
        return True

    def status(self) -> int:
        """The exit status for what the run left."""
        if self.stopped == "interrupted":
            return EXIT_INTERRUPTED
        entries = self.batch.entries if self.batch is not None else []
        if self.stopped == "rate limited" or any(e.state == "failed" for e in entries):
            return EXIT_MODEL
        if self.stopped:
            return EXIT_NOTHING
        return EXIT_OK

    def _overlay(self, batch: Batch):
        """The overlay of what the batch proposed before this run (a resume), still pending, in order."""
        from wikitui.core.changes.overlay import Overlay
        from wikitui.core.changes.pending import PendingStore
        from wikitui.core.base.errors import WikituiError

        overlay = Overlay(self.workspace.require_graph())
        store = PendingStore(self.workspace.vault)
        for entry in batch.entries:
            if entry.changeset is not None and not entry.retryable:
                try:
                    overlay.add(store.load(entry.changeset))
                except (OSError, ValueError, WikituiError):
                    continue  # applied or discarded since: the disk holds what stays of it
        return overlay

    # ------------------------------------------------------------ stopping
    def stop(self, *, now: bool = False) -> None:
        """Stop after the current source (plans running ahead are cancelled, their sources queued again);
        ``now``, or a second call: cancel the current source too (what it proposed so far stays pending)."""
        if not self._stop_after and not now:
            self._stop_after = True
            for job in self._jobs.values():
                job.session.cancel()
            self._notice("stopping", "stopping after this source (again stops now; its proposals are kept)")
            return
        self._stop_after = True
        self.stopped = "interrupted"
        for job in self._jobs.values():
            job.session.cancel()
        if self._current is not None:
            self._current.session.cancel()
        self._notice("stopping", "stopping now")

    def _interrupt(self) -> None:
        """ctrl+c: the first stops after this source, the second cancels it (its proposals stay pending)."""
        self.stop()

    # ------------------------------------------------------------ one source
    def _start(self, batch: Batch, entry: Entry) -> _Job:
        """Reserve ``entry``'s changeset id and start its plan phase (now, perhaps ahead of its write)."""
        from wikitui.core.agent.session import AgentSession
        from wikitui.core.changes.builder import ChangesetBuilder

        ws = self.workspace
        reserved = batch.reserve(entry)
        overlay = self.overlay

        def on_event(ev: Any) -> None:
            if isinstance(ev, AgentError):
                job.error = ev
            if isinstance(ev, TurnStarted) and ev.op == "ingest-write" and entry.state == "planning":
                batch.set_state(entry, "writing")
            self._emit(AgentEvent(source=entry.source, event=ev))

        def builder():
            b = ChangesetBuilder(ws.vault, overlay.graph, overlay)
            b.changeset_id = reserved  # the id the queue already names (a kill between save and queue)
            return b

        session = AgentSession(ws.vault, overlay.graph, ws.index, self.settings, client=self.client,
                               on_event=on_event, builder_factory=builder, overlay=overlay,
                               transcripts=sessions_folder(ws.vault, batch))
        job = _Job(entry=entry, session=session, seen=len(overlay.changesets))
        job.task = asyncio.ensure_future(self._turn(job, lambda: session.ingest(entry.source)))
        return job

    async def _turn(self, job: _Job, call) -> TurnFinished | None:
        """A phase of ``job``'s turn; None when it raised outside a turn (the pause's deadline before it began)."""
        try:
            return await call()
        except ModelError as exc:
            job.exc = exc
            self._notice("error", str(exc))
            return None

    def _since_plan(self, job: _Job) -> str | None:
        """What the write phase is told of the pages the batch proposed after ``job``'s plan began."""
        paths = self.overlay.paths_since(job.seen) if self.overlay is job.session.overlay else []
        if not paths:
            return None
        shown = ", ".join(paths[:20]) + (f" and {len(paths) - 20} more" if len(paths) > 20 else "")
        return (f"While you planned, earlier sources of this batch proposed changes to {shown}. Your plan was made "
                "before them: read those pages again (the tools show them as they will be) and build on them; "
                "edit a page they created rather than propose it again.")

    async def _finish(self, batch: Batch, job: _Job) -> None:
        """Wait for ``job``'s plan, run its write phase over the overlay as it is now, and settle its entry."""
        assert job.task is not None
        done = await job.task
        if done is not None and done.awaiting_go and not self._stop_now:
            note = self._since_plan(job)
            job.task = asyncio.ensure_future(self._turn(job, lambda: job.session.go(context=note)))
            done = await job.task
        self._settle(batch, job, done)

    @property
    def _stop_now(self) -> bool:
        return self.stopped == "interrupted"

    def _count(self, job: _Job) -> None:
        """Add what ``job``'s session spent since last counted to this run's totals and its entry."""
        entry, totals = job.entry, job.session.totals
        spent_in, spent_out, cost = int(totals.prompt_tokens), int(totals.completion_tokens), float(totals.cost)
        self.tokens["in"] += spent_in - job.counted["in"]
        self.tokens["out"] += spent_out - job.counted["out"]
        self.spent += cost - job.counted["cost"]
        job.counted = {"in": spent_in, "out": spent_out, "cost": cost}
        entry.tokens = {"in": spent_in, "out": spent_out}
        entry.cost = round(cost, 6)

    def _settle(self, batch: Batch, job: _Job, done: TurnFinished | None) -> None:
        """The entry's state after its turn: proposed, failed (why) or queued again (cancelled before proposing)."""
        entry = job.entry
        self._count(job)
        changeset = done.changeset if done is not None else None
        if changeset is not None:
            self.overlay.add(changeset)  # the next source sees it, whatever this one's outcome
        self._last_code = job.error.exit_code if job.error is not None else EXIT_MODEL
        why = job.error.message if job.error is not None else (str(job.exc) if job.exc else None)
        if done is not None and done.awaiting_go:  # stopped between its plan and its write
            entry.changeset = None
            batch.set_state(entry, "queued")
        elif changeset is None:
            entry.changeset = None
            if done is not None and done.cancelled:
                batch.set_state(entry, "queued")
            else:
                batch.set_state(entry, "failed", why=why or "the agent proposed no changes")
        elif done is not None and (done.failed or done.cancelled):
            entry.changeset = changeset.id
            what = "cancelled" if done.cancelled else (why or "failed")
            batch.set_state(entry, "failed", why=f"{what}; what it proposed before is pending as {changeset.id}")
        else:
            entry.changeset = changeset.id
            self._proposed += 1
            batch.set_state(entry, "proposed")

    async def _drop(self) -> None:
        """Cancel the plans running ahead and queue their sources again (what they spent is counted)."""
        jobs = list(self._jobs.values())
        self._jobs.clear()
        for job in jobs:
            job.session.cancel()
        for job in jobs:
            assert job.task is not None
            done = await job.task
            self._count(job)
            if self.batch is None:
                continue
            if done is not None and done.changeset is not None:  # a plan phase that proposed: kept, as any turn's
                self._settle(self.batch, job, done)
                continue
            job.entry.changeset = None
            self.batch.set_state(job.entry, "queued")


def _hook_sigint(loop, callback) -> bool:
    """Route ctrl+c to ``callback`` while the batch runs (False where the loop cannot: not the main thread)."""
    try:
        loop.add_signal_handler(signal.SIGINT, callback)
    except (NotImplementedError, RuntimeError, ValueError):
        return False
    return True
