"""Running a batch headless: one source after another, each its own pending changeset (DESIGN §13).

Each source gets a fresh :class:`~wikitui.core.agent.session.AgentSession` (plan, then
write straight on, as ``wikitui ingest raw/x`` does). The queue is saved before and
after each turn (:mod:`.queue` says in which order, so that a kill loses nothing and
runs nothing twice). The batch stops cleanly, the rest left queued, when:

- the money this run spent reaches the cap (``--max-cost``, config ``batch_max_cost``);
- :data:`MAX_FAILURES` sources in a row failed (a network that is down);
- rate limits kept it paused past :data:`PAUSE_DEADLINE` seconds in all (each wait is
  the server's ``Retry-After``, at most :data:`MAX_WAIT`); a rate limit otherwise only
  pauses the queue: the request is sent again, the source does not fail for it;
- ctrl+c: the first stops after the current source, the second cancels it now (what it
  proposed so far stays pending).
"""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any, TextIO

from wikitui.core.agent.events import TurnStarted
from wikitui.core.agent.headless import EXIT_MODEL, EXIT_NOTHING, EXIT_OK, _Printer
from wikitui.core.batch.queue import Batch, Entry
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


class BatchRunner:
    """Runs the retryable entries of a batch in order (:meth:`run`).

    Args:
        workspace: The workspace (its graph and index are loaded).
        settings: The resolved settings.
        err: Where progress goes.
        client: The model client (one that pauses on rate limits is made when None).
        max_cost: Stop once this run spent this many US dollars (None: no cap).
        sleep: The coroutine that waits (tests may inject one).

    Attributes:
        stopped: Why the run stopped early (``cost cap``, ``failures``, ``rate limited``,
            ``interrupted``), or None.
        paused: Seconds spent waiting for rate limits and retries.
    """

    def __init__(self, workspace, settings, err: TextIO, *, client=None,
                 max_cost: float | None = None, sleep=asyncio.sleep) -> None:
        self.workspace = workspace
        self.batch: Batch | None = None
        self.settings = settings
        self.err = err
        self.max_cost = max_cost
        self._sleep = sleep
        self.client = client if client is not None else self._client()
        self.stopped: str | None = None
        self.paused = 0.0
        self.spent = 0.0
        self.tokens = {"in": 0, "out": 0}
        self._stop_after = False
        self._session: Any = None
        self._durations: list[float] = []
        self._last_error: Exception | None = None
        self._last_code = EXIT_OK
        #: The batch's pending proposals so far, which each source's turn sees (DESIGN §13, "Stacked changesets").
        self.overlay: Any = None

    def _client(self):
        from wikitui.core.agent.llm import LLMClient

        return LLMClient(self.settings, max_retry_after=MAX_WAIT, sleep=self._pause,
                         rate_limit_attempts=RATE_LIMIT_ATTEMPTS)

    async def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` before a retry, holding the batch's total deadline for waits."""
        if self.paused + seconds > PAUSE_DEADLINE:
            raise PausedTooLong(f"{RATE_LIMITED} too long: the batch has waited {self.paused:.1f} s in all, its limit is "
                                f"{PAUSE_DEADLINE:g} s; the rest stays queued (wikitui ingest --resume)")
        self.paused += seconds
        self.err.write(f"  ‖ batch paused {seconds:.1f} s (waited {self.paused:.1f} s in all)\n")
        self.err.flush()
        await self._sleep(seconds)

    # ------------------------------------------------------------ the run
    async def run(self, batch: Batch) -> int:
        """Run ``batch``; the exit status (0 all proposed or skipped, 1 stopped at the cap, 3 failures or rate
        limits past the deadline, 130 ctrl+c)."""
        self.batch = batch
        self.overlay = self._overlay(batch)
        todo = [e for e in batch.entries if e.retryable]
        loop = asyncio.get_running_loop()
        hooked = _hook_sigint(loop, self._interrupt)
        try:
            failures = 0
            for n, entry in enumerate(todo, 1):
                if self._stop_after:
                    self.stopped = "interrupted"
                    break
                if self.max_cost is not None and self.spent >= self.max_cost:
                    self.stopped = "cost cap"
                    self.err.write(f"wikitui: the batch reached its cost cap (${self.spent:.4f} of "
                                   f"${self.max_cost:.4f}); {len(todo) - n + 1} source(s) stay queued: "
                                   "`wikitui ingest --resume` continues\n")
                    break
                if await self._wait_for_writer():
                    # A sync (or an apply) wrote while the batch waited: the next source reads the wiki as it is now.
                    if self.workspace.refresh():
                        self.overlay = self._overlay(batch)
                self._progress(n, len(todo), entry)
                started = time.monotonic()
                await self._one(batch, entry)
                self._durations.append(time.monotonic() - started)
                self._result(n, len(todo), entry)
                if self.stopped == "interrupted":
                    break
                if entry.state == "failed" and entry.changeset is None and (entry.why or "").startswith(RATE_LIMITED):
                    self.stopped = "rate limited"  # waiting longer than allowed, or told to: the next would too
                    batch.set_state(entry, "queued", why=entry.why)
                    self.err.write("wikitui: the server keeps rate-limiting; the batch stops, this source and the "
                                   "rest stay queued: `wikitui ingest --resume` continues\n")
                    break
                # In a row: model and network failures (a source that cannot be read says nothing of the network).
                failures = failures + 1 if entry.state == "failed" and self._last_code == EXIT_MODEL else 0
                if failures >= MAX_FAILURES:
                    self.stopped = "failures"
                    self.err.write(f"wikitui: {failures} sources failed in a row; the batch stops, the rest stays "
                                   "queued: `wikitui ingest --resume` continues\n")
                    break
        finally:
            if hooked:
                loop.remove_signal_handler(signal.SIGINT)
        return self.status()

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
        self.err.write("  ‖ batch paused: another wikitui is writing to the vault (a sync or an apply)\n")
        self.err.flush()
        waited = 0.0
        while lock_held(vault) and waited < WRITER_WAIT_S:
            await self._sleep(WRITER_POLL_S)
            waited += WRITER_POLL_S
        self.err.write(f"  ‖ batch resumed after {waited:.1f} s\n")
        self.err.flush()
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

    def _interrupt(self) -> None:
        """ctrl+c: the first stops after this source, the second cancels it (its proposals stay pending)."""
        if not self._stop_after:
            self._stop_after = True
            self.err.write("\nwikitui: stopping after this source (ctrl+c again stops now; its proposals are "
                           "kept)\n")
        else:
            self.stopped = "interrupted"
            self.err.write("\nwikitui: stopping now\n")
            if self._session is not None:
                self._session.cancel()
        self.err.flush()

    async def _one(self, batch: Batch, entry: Entry) -> None:
        """One source's turn, with the queue saved around it."""
        from wikitui.core.agent.session import AgentSession
        from wikitui.core.changes.builder import ChangesetBuilder

        ws = self.workspace
        reserved = batch.reserve(entry)
        printer = _Printer(self.err, self.err, answer_to_out=False)

        def on_event(ev: Any) -> None:
            printer(ev)
            if isinstance(ev, TurnStarted) and ev.op == "ingest-write" and entry.state == "planning":
                batch.set_state(entry, "writing")

        overlay = self.overlay

        def builder():
            b = ChangesetBuilder(ws.vault, overlay.graph, overlay)
            b.changeset_id = reserved  # the id the queue already names (a kill between save and queue)
            return b

        index = self._session.search_index if self._session is not None else ws.index
        session = AgentSession(ws.vault, overlay.graph, index, self.settings, client=self.client, on_event=on_event,
                               builder_factory=builder, overlay=overlay)
        self._session = session
        self._last_error = None
        try:
            done = await session.ingest(entry.source, auto_go=True)
        except ModelError as exc:  # raised outside a turn (the pause's deadline before any turn began)
            done, printer.error = None, None
            self._last_error = exc
            self.err.write(f"wikitui: {exc}\n")
        totals = session.totals
        entry.tokens = {"in": int(totals.prompt_tokens), "out": int(totals.completion_tokens)}
        entry.cost = round(float(totals.cost), 6)
        self.spent += float(totals.cost)
        self.tokens["in"] += entry.tokens["in"]
        self.tokens["out"] += entry.tokens["out"]
        changeset = done.changeset if done is not None else None
        if changeset is not None:
            overlay.add(changeset)  # the next source sees it, whatever this one's outcome
        self._last_code = printer.error.exit_code if printer.error is not None else EXIT_MODEL
        why = printer.error.message if printer.error is not None else (str(self._last_error) if self._last_error
                                                                          else None)
        if changeset is None:
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
            batch.set_state(entry, "proposed")

    # --------------------------------------------------------- progress
    def _progress(self, n: int, total: int, entry: Entry) -> None:
        failed = sum(1 for e in (self.batch.entries if self.batch is not None else []) if e.state == "failed")
        left = ""
        if self._durations:
            seconds = sum(self._durations) / len(self._durations) * (total - n + 1)
            left = f"; about {_duration(seconds)} left"
        cost = f"${self.spent:.4f}"
        self.err.write(f"wikitui: [{n}/{total}] {entry.source} (spent {self.tokens['in'] + self.tokens['out']:,} "
                       f"tokens, {cost}{left}; {failed} failed)\n")
        self.err.flush()

    def _result(self, n: int, total: int, entry: Entry) -> None:
        what = {"proposed": f"proposed as {entry.changeset}", "failed": f"failed: {entry.why}",
                "queued": "stopped before it proposed anything; queued again"}.get(entry.state, entry.state)
        self.err.write(f"wikitui: [{n}/{total}] {entry.source}: {what} ({entry.tokens['in'] + entry.tokens['out']:,} "
                       f"tokens, ${entry.cost:.4f})\n")
        self.err.flush()


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _hook_sigint(loop, callback) -> bool:
    """Route ctrl+c to ``callback`` while the batch runs (False where the loop cannot: not the main thread)."""
    try:
        loop.add_signal_handler(signal.SIGINT, callback)
    except (NotImplementedError, RuntimeError, ValueError):
        return False
    return True
