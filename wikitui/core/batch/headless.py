"""Headless ``wikitui ingest DIR|GLOB|--new|--resume``: the plan, the confirmation, the run, the summary.

stderr carries the plan (sources, skipped, the estimate), the progress and the
summary; with ``as_json`` stdout carries one document at the end (also when the
batch is not started for want of ``--yes``: the plan alone, ``"started": false``).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Callable, TextIO

from wikitui.core.agent.headless import EXIT_CONFLICT, EXIT_NOTHING, EXIT_OK, EXIT_USER, _open, _Printer
from wikitui.core.batch.estimate import Estimate
from wikitui.core.batch.events import AgentEvent, BatchEvent, BatchNotice, SourceFinished, SourceStarted, duration
from wikitui.core.batch.preflight import prepare
from wikitui.core.batch.queue import STATES, Batch, Entry
from wikitui.core.batch.runner import EXIT_INTERRUPTED, BatchRunner
from wikitui.core.base.errors import WikituiError

Confirm = Callable[[str], bool]


def run_batch(workspace, argument: str | None, *, new: bool = False, resume: bool = False, yes: bool = False,
              max_cost: float | None = None, model: str | None = None, out: TextIO | None = None,
              err: TextIO | None = None, client=None, as_json: bool = False, confirm: Confirm | None = None,
              sleep=None, apply_ok: bool = False) -> int:
    """Ingest many sources, each its own pending changeset; returns the exit status.

    Args:
        workspace: The :class:`~wikitui.core.workspace.Workspace`.
        argument: A folder or a glob (vault-relative); None with ``new`` (every source) or ``resume``.
        new: Only sources no page lists in ``sources``.
        resume: Continue the last unfinished batch instead.
        yes: Start without asking.
        max_cost: Stop once this run spent this many US dollars (None: config ``batch_max_cost``).
        client: The model client (tests); by default one that pauses on rate limits.
        confirm: Asks the user ``question`` and says whether to go on (None: no terminal to ask on).
        sleep: How the batch waits on a rate limit (tests).
        apply_ok: Then apply every hunk the second reviewer (``review_model``) found ok, each
            source its own changeset in batch order (:func:`apply_ok_hunks`); refused without
            a ``review_model``.

    Returns:
        0 every source proposed or skipped, 1 stopped at the cost cap or not confirmed,
        2 a user error, 3 some source failed (model or network), 4 ``apply_ok`` stopped at a
        conflict, 130 ctrl+c.
    """
    out, err = out or sys.stdout, err or sys.stderr
    try:
        settings = _open(workspace, model, err)
    except WikituiError as exc:
        err.write(f"wikitui: {exc}\n")
        return exc.exit_code
    if apply_ok and not settings.review_model:
        err.write("wikitui: --apply on a batch applies only the hunks the second reviewer found ok: set "
                  "review_model in the config, or review the batch in wikitui (/review batch)\n")
        return EXIT_USER
    kwargs = {"sleep": sleep} if sleep is not None else {}
    report = StderrReport(err)
    runner = BatchRunner(workspace, settings, report, client=client, **kwargs)
    try:
        plan = prepare(workspace, argument, settings=settings, client=runner.client, new=new, resume=resume,
                       max_cost=max_cost)
    except WikituiError as exc:
        err.write(f"wikitui: {exc}\n")
        return exc.exit_code
    runner.max_cost = plan.cap
    for line in plan.notes + plan.lines():
        err.write(f"wikitui: {line}\n")
    err.flush()
    todo, skipped, guess, batch = plan.todo, plan.skipped, plan.estimate, plan.resumed
    if not todo:
        err.write("wikitui: nothing to ingest\n")
        if as_json:
            _document(out, batch, plan.selection, todo + skipped, guess, None, started=False)
        return EXIT_OK
    if not yes:
        if confirm is None:
            err.write("wikitui: a batch spends tokens: pass --yes to start it (there is no terminal to ask on)\n")
            if as_json:
                _document(out, batch, plan.selection, todo + skipped, guess, None, started=False)
            return EXIT_USER
        if not confirm(f"Ingest {len(todo)} source(s)? [y/N] "):
            err.write("wikitui: not started\n")
            return EXIT_NOTHING
    batch = plan.start(workspace.vault)
    err.write(f"wikitui: batch {batch.id} (.wikitui/batches/{batch.id}.json)\n")
    try:
        status = asyncio.run(runner.run(batch))
    except KeyboardInterrupt:
        err.write("wikitui: cancelled\n")
        status = EXIT_INTERRUPTED
    _print_summary(err, batch, runner)
    applied = None
    if apply_ok and status != EXIT_INTERRUPTED:
        applied = apply_ok_hunks(workspace, batch.id, err)
        if applied["stopped"] is not None:
            status = EXIT_CONFLICT
    if as_json:
        _document(out, batch, plan.selection, batch.entries, guess, runner, started=True, applied=applied)
    return status


def apply_ok_hunks(workspace, batch_id: str, err: TextIO) -> dict:
    """Apply every hunk of the batch the second reviewer found ok, each source its own changeset, in order.

    The rest (doubt, wrong, unread, in conflict) stays pending for the batch review. One
    stderr line per source applied, and one for the source that stopped it.

    Returns:
        ``{"sources": [{"source", "changeset", "hunks"}], "left": hunks left pending, "stopped": why or None}``.
    """
    from wikitui.core.batch.review import BatchReview
    from wikitui.core.batch.review_apply import apply_batch
    from wikitui.core.vault.visible_text import visible_line

    review = BatchReview.load(workspace.vault, batch_id)
    review.accept_ok()
    left = review.summary().undecided
    done = apply_batch(review, workspace.apply)
    sources = []
    for d in done.done:
        if d.result is not None and d.result.applied:
            sources.append({"source": d.source, "changeset": d.changeset, "hunks": len(d.result.applied)})
            err.write(f"wikitui: applied {len(d.result.applied)} ok hunk(s) of {visible_line(d.source)} "
                      f"({d.changeset})\n")
    stopped = None
    if done.failed is not None:
        source, exc = done.failed
        stopped = f"{source}: {exc}"
        err.write(f"wikitui: stopped at {visible_line(source)}: {visible_line(str(exc))}; it and the rest stay "
                  "pending\n")
    if left:
        err.write(f"wikitui: {left} hunk(s) the reviewer did not find ok stay pending: /review batch in wikitui\n")
    err.flush()
    return {"sources": sources, "left": left, "stopped": stopped}


class StderrReport:
    """A batch's events as headless lines on ``err``: each source's progress and result, its turn's steps,
    pauses and stops."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self._printers: dict[str, _Printer] = {}

    def __call__(self, event: BatchEvent) -> None:
        err = self.err
        if isinstance(event, AgentEvent):
            printer = self._printers.get(event.source)
            if printer is None:
                printer = self._printers[event.source] = _Printer(err, err, answer_to_out=False)
            printer(event.event)
            return
        if isinstance(event, SourceStarted):
            p = event.progress
            left = f"; about {duration(p.left_s)} left" if p.left_s is not None else ""
            err.write(f"wikitui: [{p.n}/{p.total}] {p.source} (spent {p.tokens:,} tokens, ${p.cost:.4f}{left}; "
                      f"{p.failed} failed)\n")
        elif isinstance(event, SourceFinished):
            self._printers.pop(event.source, None)
            err.write(f"wikitui: [{event.n}/{event.total}] {event.source}: {outcome(event)} "
                      f"({event.tokens:,} tokens, ${event.cost:.4f})\n")
        elif isinstance(event, BatchNotice):
            if event.kind in ("paused", "resumed"):
                err.write(f"  ‖ {event.text}\n")
            elif event.kind == "stopping":
                err.write(f"\nwikitui: {event.text}\n")
            else:
                err.write(f"wikitui: {event.text}\n")
        err.flush()


def outcome(event: SourceFinished) -> str:
    """``proposed as cs-…``, ``failed: why``, or ``stopped before it proposed anything; queued again``."""
    return {"proposed": f"proposed as {event.changeset}", "failed": f"failed: {event.why}",
            "queued": "stopped before it proposed anything; queued again"}.get(event.state, event.state)


def _print_summary(err: TextIO, batch: Batch, runner: BatchRunner) -> None:
    counts = batch.counts()
    shown = ", ".join(f"{n} {state}" for state, n in counts.items() if n)
    spent = runner.tokens["in"] + runner.tokens["out"]
    err.write(f"wikitui: batch {batch.id}: {shown}; this run spent {spent:,} tokens, ${runner.spent:.4f}\n")
    if counts["proposed"]:
        err.write("wikitui: each source's changeset is pending: review them together in wikitui "
                  "(/review batch, or the palette's Review batch) or one by one with `wikitui pending list`\n")
    if batch.unfinished:
        err.write("wikitui: `wikitui ingest --resume` continues the batch\n")
    err.flush()


def _document(out: TextIO, batch: Batch | None, selection: str, entries: list[Entry], guess: Estimate,
              runner: BatchRunner | None, *, started: bool, applied: dict | None = None) -> None:
    from wikitui.core.agent.headless_json import write_document

    counts = dict.fromkeys(STATES, 0)
    for e in entries:
        counts[e.state] = counts.get(e.state, 0) + 1
    write_document(out, {
        "batch": batch.id if batch is not None else None,
        "selection": selection,
        "started": started,
        "stopped": runner.stopped if runner is not None else None,
        "estimate": guess.to_dict(),
        "counts": counts,
        "spent": {"tokens": dict(runner.tokens), "cost": round(runner.spent, 6)} if runner is not None else None,
        "sources": [{"source": e.source, "state": e.state, "changeset": e.changeset, "tokens": e.tokens,
                     "cost": e.cost, "why": e.why} for e in entries],
        **({"applied": applied} if applied is not None else {}),
    })
